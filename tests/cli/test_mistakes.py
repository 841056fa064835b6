"""Every command-line mistake of issue 15, its `python -m` run in this
process (the module's `main`, its SystemExit taken as the interpreter takes
it): exit 2 (bad input or usage; 1 is kept for a divergence or a broken
law), no traceback, and the problem named on stderr's last line; `--help`
exits 0 with usage and runs nothing. Then what the bridge reads back: damaged LAWS.lock files,
unknown law names, a transcript holding U+2028, a render diff at a lone
`\\r`."""

from __future__ import annotations

import importlib
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import laws.__main__ as laws_cli
from bridge.checking.compare import explain_states
from bridge.formats import transcript
from laws import lock
from laws.all import all_laws
from tests.scenarios.test_format import CONSTANTS

ROOT = Path(__file__).resolve().parents[2]

SCENARIO = "bad.jsonl"
"""A bad scenario file a case names with `{bad}`, written by `run`."""

HEADER = {"format": "optchat-scenario/2", "generator": "test", "seed": 1, "constants": CONSTANTS}

MISTAKES: list[tuple[str, list[str], bytes, str]] = [
    ("replay a missing file", ["bridge", "replay", "{tmp}/nope.jsonl"], b"", "cannot be read"),
    ("replay a directory", ["bridge", "replay", "{tmp}"], b"", "is a directory"),
    ("replay no file", ["bridge", "replay"], b"", "the following arguments are required"),
    (
        "compare a size of 10^12",
        ["bridge", "compare", "{bad}", "--engine", "model"],
        b'{"event": "message", "kind": "user", "size": 1000000000000}',
        ":2: a size is a natural number of at most 16777216, not 1000000000000",
    ),
    (
        "compare a 200,000-deep line",
        ["bridge", "compare", "{bad}", "--engine", "model"],
        b"[" * 200_000 + b"]" * 200_000,
        ":2: nested too deeply",
    ),
    (
        "replay NaN",
        ["bridge", "replay", "{bad}", "--engine", "model"],
        b'{"event": "zoom", "id": NaN, "n": 1}',
        ":2: NaN is not a JSON number",
    ),
    (
        "replay a non-UTF-8 byte",
        ["bridge", "replay", "{bad}", "--engine", "model"],
        b'{"event": "wait"}\n{"event": "message", "kind": "user", "text": "\xff"}',
        ":3: not UTF-8",
    ),
    (
        "replay a 5,000-digit integer",
        ["bridge", "replay", "{bad}", "--engine", "model"],
        b'{"event": "wait"}\n{"event": "zoom", "id": ' + b"9" * 5000 + b', "n": 1}',
        ":3: a number with too many digits",
    ),
    (
        "compare with an engine that does not exist",
        ["bridge", "compare", "{bad}", "--engine", "/no/such/engine"],
        b'{"event": "wait"}',
        "cannot be started: No such file or directory",
    ),
    (
        "compare with an unclosed quote",
        ["bridge", "compare", "{bad}", "--engine", "engine 'unclosed"],
        b'{"event": "wait"}',
        "cannot be split: No closing quotation",
    ),
    ("laws --only an unknown law", ["laws", "--only", "no_such_law"], b"", "no law is named"),
    ("laws --only and no name", ["laws", "--only"], b"", "expected at least one argument"),
    ("impl.protocol a bad argument", ["impl.protocol", "--protocol", "1"], b"", "unrecognized"),
    ("bench.scale no count", ["bench.scale"], b"", "arguments are required: COUNT"),
    ("bench.storage a count of 0", ["bench.storage", "0"], b"", "0: not a positive whole number"),
    ("bench.drive a word", ["bench.drive", "many", "10"], b"", "many: not a positive whole number"),
    ("impl.example an argument", ["impl.example", "--messages", "5"], b"", "unrecognized"),
]
"""(case, `python -m` arguments, the bad scenario's lines after its header,
what stderr's last line holds)."""


MAINS = {"bridge": "bridge.cli", "laws": "laws.__main__"}
"""Where the `main` that `python -m NAME` runs is, when not in NAME itself."""


@pytest.fixture
def run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`python -m ARGS` from the project's root, in this process: what it
    printed, and its exit code as the interpreter gives it for a SystemExit
    (None is 0; a message is printed to stderr, and is 1)."""
    monkeypatch.chdir(ROOT)

    def python_m(args: list[str], events: bytes = b"") -> subprocess.CompletedProcess[str]:
        bad = tmp_path / SCENARIO
        bad.write_bytes(json.dumps(HEADER).encode() + b"\n" + events + b"\n")
        module, *argv = [arg.format(tmp=tmp_path, bad=bad) for arg in args]
        main = importlib.import_module(MAINS.get(module, module)).main
        try:
            code = main(argv)
        except SystemExit as ended:
            code = ended.code
        out, err = capsys.readouterr()
        if code is not None and not isinstance(code, int):
            err, code = f"{err}{code}\n", 1
        return subprocess.CompletedProcess([module, *argv], code or 0, out, err)

    return python_m


@pytest.mark.parametrize(
    ("args", "events", "said"), [case[1:] for case in MISTAKES], ids=[c[0] for c in MISTAKES]
)
def test_a_mistake_exits_2_with_one_line_and_no_traceback(
    args: list[str], events: bytes, said: str, run: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    done = run(args, events)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    assert said in done.stderr.strip().splitlines()[-1]


HELP = ["impl.protocol", "impl.example", "bench.scale", "bench.storage", "bench.drive"]


@pytest.mark.parametrize("module", HELP)
def test_help_prints_usage_exits_0_and_runs_nothing(
    module: str, run: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    done = run([module, "--help"])
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith(f"usage: python -m {module}")
    assert "<chat>" not in done.stdout, "the example ran"


def some_law() -> str:
    return all_laws()[0].name


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_text('{"a_law": "ab'),
        lambda path: path.write_text(""),
        lambda path: path.write_text('["a_law"]'),
        lambda path: path.write_bytes(b"\xff\xfe\x00\x01"),
        lambda path: path.write_text('{"a_law": 5}'),
        lambda path: path.mkdir(),
    ],
    ids=["cut", "empty", "a list", "binary", "not hashes", "a directory"],
)
def test_a_damaged_laws_lock_exits_2_naming_it(
    damage: object,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "LAWS.lock"
    damage(path)  # type: ignore[operator]
    monkeypatch.setattr(lock, "LOCK", path)
    assert laws_cli.main(["--only", some_law()]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"laws: {path} ") and err.rstrip().endswith("run `make relock`")
    assert len(err.strip().splitlines()) == 1


def test_laws_only_with_an_unknown_name_among_known_ones_runs_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert laws_cli.main(["--only", some_law(), "no_such_law"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", "laws: no law is named no_such_law\n")


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_a_transcript_holding_line_separators_reads_back_whole(tmp_path: Path, suffix: str) -> None:
    records = [{"render": "<chat>\n0+1|user: a\u2028b\u2029c\u0085d\x1ce\n</chat>"}, {"n": 2}]
    header = transcript.Header("s.jsonl", "0" * 64, "spec", 2)
    path = tmp_path / f"t{suffix}"
    transcript.write(header, transcript.encode(records), path)
    assert "\u2028".encode() in transcript.body(path)
    assert list(transcript.records(path)) == records


def test_the_render_diff_shows_a_lone_carriage_return_instead_of_splitting_at_it() -> None:
    model = {"render": "<chat>\n0+1|user: a b\n</chat>"}
    engine = {"render": "<chat>\n0+1|user: a\rb\n</chat>"}
    shown = explain_states(model, engine, ("model", "engine"))
    assert "    -0+1|user: a b" in shown
    assert "    +0+1|user: a\\rb" in shown
    assert not any(line.strip() in ("+b", "-b") for line in shown)
