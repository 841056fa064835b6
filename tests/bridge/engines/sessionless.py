"""planted.py's engine (`sessionless.py NAME ...`, the plants named as
there) declaring `sessions: false`, so that each replay starts it afresh, as
an engine author's first adapter does: what `make bench`'s red run measures.
`sessionless.py --once NAME ...` declares `sessions: true` but exits at the
next scenario's header: sessions that do not work, which shrinking survives
by starting it again."""

import os
import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a program; an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"
sys.path.insert(0, str(Path(__file__).parent))

import planted  # noqa: E402

from impl import protocol  # noqa: E402


def declaring(once: bool) -> None:
    """Make the engine declare `sessions: once`; with `once`, exit at a second header."""
    ready, opened = protocol.ready, protocol.opened
    headers = 0

    def declared(profile: Any) -> dict[str, Any]:
        return {**ready(profile), "sessions": once}

    def first_only(header: Any, profile: Any) -> Any:
        nonlocal headers
        headers += 1
        if once and headers > 1:
            os._exit(3)
        return opened(header, profile)

    protocol.ready, protocol.opened = declared, first_only  # type: ignore[assignment]


if __name__ == "__main__":
    once = sys.argv[1:2] == ["--once"]
    named = sys.argv[2:] if once else sys.argv[1:]
    unknown = [name for name in named if name not in planted.PLANTS]
    if unknown or not named:
        sys.exit(f"sessionless.py: name plants of planted.py, not {unknown or 'none'}")
    for name in named:
        planted.PLANTS[name]()
    declaring(once)
    sys.exit(protocol.main([]))
