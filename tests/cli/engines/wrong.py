"""impl.protocol with one thing made wrong on purpose, for the CLI's tests:
`wrong.py HOW` gives the engine's answers with HOW changed, and nothing
else, so that a run must FAIL naming what HOW changes (the runner checked
like the engine, tests/cli/test_wrong_engines.py).

HOW is an answer field made wrong wherever an answer holds it (`size` one
byte too many, `queue` empty, `refused` left out, `view` without its last
line, ...: `WRONG` below), one of the texts' bytes (`line-stripped`: an
end's line without its trailing whitespace; `render-trailing-space`,
`render-final-newline`, `render-cr` (its first newline a lone carriage
return), `render-cut` (a prefix): the final render), a field the protocol
does not know (`extra-field`; `x-field`, an engine's own, is no
difference), `started` (under `calls: self`, the last call it started left
out of its answer), `after-gap` (an engine without zoom, declared, whose sizes
are wrong after the first event the bridge did not send it), `unsupported`
(it answers the second event `unsupported`), or `skip` (it refuses every
scenario's header as unsupported).

It takes sessions: one process answers scenario after scenario. Runs from
any interpreter: it puts the project's root first on its own path."""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from impl.profile import Profile  # noqa: E402
from impl.protocol import Session, ready  # noqa: E402

Answer = dict[str, Any]


def changed(field: str, how: Callable[[Any], Any]) -> Callable[[Answer], None]:
    """A wrong that changes `field` by `how` wherever an answer holds it."""

    def wrong(answer: Answer) -> None:
        if field in answer:
            answer[field] = how(answer[field])

    return wrong


def refused_spurious(answer: Answer) -> None:
    if "refused" not in answer and "size" in answer:
        answer["refused"] = "kind"


WRONG: dict[str, Callable[[Answer], None]] = {
    "size": changed("size", lambda v: v + 1),
    "shrinking": changed("shrinking", lambda v: not v),
    "shrinking-int": changed("shrinking", int),
    "merges": changed("merges", lambda v: v[:-1]),
    "cmerges": changed("cmerges", lambda v: [*v, [9, 9]]),
    "view_digest": changed("view_digest", lambda v: (v + 1) % 2**32),
    "cview_digest": changed("cview_digest", lambda v: (v + 1) % 2**32),
    "queue": changed("queue", lambda v: []),
    "queue_waiting": changed("queue_waiting", lambda v: []),
    "refused": lambda answer: answer.pop("refused", None),
    "refused-rule": changed("refused", lambda v: "zoom"),
    "refused-spurious": refused_spurious,
    "line": changed("line", lambda v: v + "!"),
    "line-stripped": changed("line", str.rstrip),
    "zoom": changed("zoom", lambda v: v + "!"),
    "render_timed_out_crc": changed("render_timed_out_crc", lambda v: (v + 1) % 2**32),
    "view": changed("view", lambda v: v[:-1]),
    "cview": changed("cview", lambda v: v[:-1]),
    "render_crc": changed("render_crc", lambda v: (v + 1) % 2**32),
    "contexts_crc": changed("contexts_crc", lambda v: [*v, [[9, 9], 0]]),
    "started": changed("started", lambda v: v[:-1]),
    "render": changed("render", lambda v: v.replace("|", ":", 1)),
    "render-trailing-space": changed("render", lambda v: v + " "),
    "render-final-newline": changed("render", lambda v: v + "\n"),
    "render-cr": changed("render", lambda v: v.replace("\n", "\r", 1)),
    "render-cut": changed("render", lambda v: v[:-1]),
    "render_timed_out": changed("render_timed_out", lambda v: v.replace("|", ":", 1)),
    "contexts": changed("contexts", lambda v: v[:-1]),
    "extra-field": lambda answer: answer.update(surplus=True),
    "x-field": lambda answer: answer.update({"x-debug": "the engine's own"}),
}
"""Each way an answer is made wrong, by name."""

WITHOUT_ZOOM = ["settle_timeout", "timed_out_render", "compaction_view", "queue_waiting", "replies"]

PROFILE = Profile.from_json({"calls": "self"}) if sys.argv[1] == "started" else Profile()
"""`started` is wrong under `calls: self`, the profile whose answers hold it."""

how = sys.argv[1]
session: Session | None = None
expected_at, gap = 0, False
for raw in sys.stdin:
    line = json.loads(raw)
    if "format" in line:  # a header: the first, or the next scenario's (sessions)
        if how == "skip":
            said: Answer = {"ready": False, "unsupported": {"all": "wrong.py skip takes nothing"}}
        else:
            session, expected_at, gap = Session(line, PROFILE), 0, False
            said = {**ready(PROFILE), "sessions": True}
            if how == "after-gap":
                said["capabilities"] = WITHOUT_ZOOM
        print(json.dumps(said), flush=True)
        continue
    assert session is not None
    answer = session.answer(line)
    if "at" in line:
        gap = gap or line["at"] > expected_at
        expected_at = line["at"] + 1
    if how == "after-gap" and gap:
        WRONG["size"](answer)
    elif how == "unsupported" and line.get("at") == 1:
        answer = {"unsupported": "wrong.py unsupported takes no second event"}
    elif how in WRONG:
        WRONG[how](answer)
    print(json.dumps(answer, ensure_ascii=False), flush=True)
