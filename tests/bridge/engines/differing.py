"""An engine that differs from SPEC in every way SPEC 10 can declare, at
once (issue 35): `python -m impl.protocol` under PROFILE, every option at
a value other than SPEC's, and the constants limits of a real JavaScript
engine (limited.py: no CEILING under 8 x NODE, no FLOOR under 4 x NODE,
answered `{"ready": false, "unsupported": {...}}`). Given `--declare` it
declares both, the profile and the limits, in every answer to a header;
undeclared, it declares neither, and every difference shows as a
divergence that is no bug (what `diagnose` must find from nothing)."""

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from limited import LIMITS, serve  # noqa: E402

from impl import protocol  # noqa: E402
from impl.profile import Profile  # noqa: E402

PROFILES = Path(__file__).parents[3] / "scenarios" / "profiles"
PROFILE: dict[str, Any] = {
    **json.loads((PROFILES / "deviant.json").read_text(encoding="utf-8")),
    **json.loads((PROFILES / "policies.json").read_text(encoding="utf-8")),
    "kinds": ["user"],
}
"""The engine's real profile (SPEC 10): every option off SPEC, those of
the two kept profiles that declare the outside engines' differences
(deviant.json's, then policies.json's, whose `trim_set` wins) and `kinds`
only `user`. Where an option has several such values, the one that
delivers least of the corpus (tests/scenarios/delivery.py, `ALL_OPTIONS`,
says which and why). Under
`overlong: kept` the chooser cuts no reply, only the source when there is
none (SPEC 10), so its `cut` and `ellipsis` hardly ever act (declared
without `ellipsis` it still agrees on tests/bridge/test_differing.py's
sample): the policies profile, with `overlong: cut`, checks them (the
gate's bridge-policies stage)."""


def main(argv: list[str]) -> None:
    profile = Profile.from_json(PROFILE)

    def opened(header: dict[str, Any]) -> tuple[protocol.Session | None, dict[str, Any]]:
        session, answer = protocol.opened(header, profile)
        answer.pop("profile", None)
        return session, {**answer, "engine": "differing example"}

    declared = {"profile": PROFILE, "constants": LIMITS} if "--declare" in argv else None
    serve(opened, declared, "differing engine")


if __name__ == "__main__":
    main(sys.argv[1:])
