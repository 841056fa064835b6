"""Every hint a runner prints is a command that works where it was printed
(issue 22): the FAIL line's `compare`, the "replay it" of `corpus`'s cause
and of `compare`, `fuzz`'s "repeat the search", and the usage line of
`--help`, each run again in a
shell from the same directory and environment, with the exit code the
contract gives (1 for a divergence, 0 for `--version`). Three runners: a
clone (`python -m bridge`), the wheel installed into a bare virtual
environment (`optchat-spec`), and the zipapp (`python3 optchat-spec.pyz`).
Each also knows the reference engine by name; each lists `expect`, which
remakes the bundled corpus's transcripts only in the clone. The clone's runs
that print a hint run in this process as `python -m bridge` starts it (its
`sys.argv`, directory and PYTHONPATH); each hint runs in a shell, and the
hint a `compare` run there prints runs in a shell again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bridge import cli
from tests.packaging.kits import PYTHON, Installed

ROOT = Path(__file__).resolve().parents[2]
WRONG = f"{sys.executable} {Path(__file__).parent / 'engines' / 'wrong.py'} size"
"""An engine whose every size is one byte too many: it diverges at event 0."""
SHRUNK = " for the states there and a shrunk scenario"


@dataclass(frozen=True)
class Runner:
    argv: list[str]
    """How the test starts it."""
    cwd: Path
    env: dict[str, str]

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.shell([*self.argv, *args])

    def shell(self, command: list[str] | str) -> subprocess.CompletedProcess[str]:
        """A command list, or a hint as a user pastes it into a shell."""
        argv = ["bash", "-c", command] if isinstance(command, str) else command
        return subprocess.run(
            argv, cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=600
        )


@dataclass(frozen=True)
class InProcess(Runner):
    """The clone's runner in this process, as `python -m bridge` from `cwd`
    runs it: its hints are printed as that process prints them (its command
    is bridge/formats/invocation.py's); a hint still runs in a shell."""

    patch: pytest.MonkeyPatch | None = None
    capture: pytest.CaptureFixture[str] | None = None

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert self.patch is not None and self.capture is not None
        with self.patch.context() as patched:
            patched.setattr(sys, "argv", [str(ROOT / "bridge" / "__main__.py"), *args])
            patched.chdir(self.cwd)
            patched.setenv("PYTHONPATH", self.env["PYTHONPATH"])
            try:
                code = cli.main(list(args))
            except SystemExit as done:  # --help
                code = int(done.code or 0)
            out, err = self.capture.readouterr()
        return subprocess.CompletedProcess([*self.argv, *args], code, out, err)


def usage(done: subprocess.CompletedProcess[str]) -> str:
    """The usage paragraph of a `--help`, its lines joined: argparse wraps a
    long program name (a clone at a long path) onto lines of its own."""
    text = done.stdout.split("usage:", 1)[1].split("\n\n", 1)[0]
    return " ".join(text.split())


def said(done: subprocess.CompletedProcess[str], prefix: str, suffix: str = "") -> str:
    """The hint on the line that starts with `prefix` (and ends with `suffix`)."""
    lines = [line.strip() for line in done.stdout.splitlines()]
    found = [line for line in lines if line.startswith(prefix) and line.endswith(suffix)]
    assert found, done.stdout + done.stderr
    return found[0].removeprefix(prefix).removesuffix(suffix).strip()


def assert_hints_work(
    runner: Runner, looks_like: Callable[[str], bool]
) -> subprocess.CompletedProcess[str]:
    """The hints `runner` prints work; its `--help`."""
    helped = runner("--help")
    assert helped.returncode == 0, helped.stderr
    prog = usage(helped).split(" [-h]")[0]
    assert looks_like(prog), prog
    version = runner.shell(f"{prog} --version")
    assert version.returncode == 0 and version.stdout.startswith("optchat-spec "), version

    # Five replays shrink the cause's scenario: shrinking is not tested here.
    failed = runner(
        "corpus", "--engine", WRONG, "--only", "random_00", "--jobs", "1", "--shrink-tries", "5"
    )
    assert failed.returncode == 1, failed.stdout + failed.stderr
    cause = said(failed, "replay it:")
    assert cause.startswith(prog + " compare "), cause
    replayed = runner.shell(cause + " --shrink-tries 1")
    assert replayed.returncode == 1 and "field 'size' (SPEC 3)" in replayed.stdout, replayed
    again = said(failed, "", SHRUNK)
    assert again.startswith(prog + " compare "), again
    compared = runner.shell(again)
    assert compared.returncode == 1, compared.stdout + compared.stderr
    replay = said(compared, "replay it:")
    assert replay.startswith(prog + " compare "), replay
    replayed = runner.shell(replay)
    assert replayed.returncode == 1 and "field 'size' (SPEC 3)" in replayed.stdout, replayed
    return helped


def assert_reference_agrees(runner: Runner, *more: str) -> None:
    done = runner(
        "corpus", "--engine", "reference", "--only", "zoom_1", "--only", "empty_chat", *more
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("ALL 2 SCENARIOS AGREE; compared ")


def assert_expect_is_for_a_clone(runner: Runner, helped: subprocess.CompletedProcess[str]) -> None:
    """An installed runner lists `expect` in its `--help` (`helped`), makes
    the transcripts of a scenario of the user's own, and leaves its bundled
    data alone."""
    assert "\n    expect " in helped.stdout
    refused = runner("expect")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert refused.stderr.count("\n") == 1 and "only in a clone" in refused.stderr
    (runner.cwd / "mine").mkdir()
    shutil.copy(ROOT / "scenarios" / "corpus" / "empty_chat.jsonl", runner.cwd / "mine")
    made = runner("expect", "mine")
    assert made.returncode == 0, made.stdout + made.stderr
    assert (runner.cwd / "expected" / "mine" / "empty_chat.jsonl.gz").is_file()


@pytest.fixture
def clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Runner:
    """`python -m bridge` from a directory of its own, the clone on
    PYTHONPATH (in this process: `InProcess`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    argv, env = [sys.executable, "-m", "bridge"], {**env, "PYTHONPATH": str(ROOT)}
    return InProcess(argv, tmp_path, env, monkeypatch, capsys)


def test_a_clone_prints_hints_that_work(clone: Runner) -> None:
    assert_hints_work(clone, lambda prog: prog.endswith(" -m bridge"))
    assert_reference_agrees(clone, "--jobs", "1")
    assert clone("expect", "--help").returncode == 0


def test_a_clone_run_from_its_root_says_python_m_bridge() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    path = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    runner = Runner([sys.executable, "-m", "bridge"], ROOT, {**env, "PATH": path})
    assert usage(runner("--help")).startswith("python -m bridge [-h]")


def test_fuzz_repeats_its_search_with_a_command_that_works(clone: Runner) -> None:
    pytest.importorskip("hypothesis")
    budget = ["--shrink-tries", "1", "--shrink-seconds", "5"]  # one replay: shrinking is not tested
    found = clone("fuzz", "--engine", WRONG, "--seed", "7", "--histories", "3", *budget)
    assert found.returncode == 1, found.stdout + found.stderr
    for prefix in ("replay it:", "repeat the search:"):
        hint = said(found, prefix)
        assert hint.startswith(f"{sys.executable} -m bridge "), hint
        assert prefix == "replay it:" or " ".join(budget) in hint, hint
        again = clone.shell(hint)
        assert again.returncode == 1, again.stdout + again.stderr


def test_the_laws_repeat_their_run_with_the_command_that_started_them(clone: Runner) -> None:
    pytest.importorskip("hypothesis")
    prog = f"{sys.executable} -m bridge laws"
    assert usage(clone("laws", "--help")).startswith(prog + " [-h]")
    ran = clone("laws", "--only", "constants_allowed", "--seed", "3")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    again = said(ran, "seed 3 (again:", ")")
    assert again == f"{prog} --profile ci --seed 3 --only constants_allowed", again
    repeated = clone.shell(again)
    assert repeated.returncode == 0, repeated.stdout + repeated.stderr
    assert "seed 3 (again:" in repeated.stdout and "constants_allowed  holds" in repeated.stdout


@pytest.mark.more  # the installed runner run end to end a dozen times: `make test-more`
@pytest.mark.xdist_group("installed")
def test_an_installed_runner_prints_hints_that_work(
    installed: Installed,
    tmp_path: Path,
) -> None:
    command = str(installed.venv / "bin" / "optchat-spec")
    runner = Runner([command], tmp_path, installed.env)
    helped = assert_hints_work(runner, lambda prog: prog == command)
    # One job: its workers run from the installed command in test_install.py's known failures.
    assert_reference_agrees(runner, "--jobs", "1")
    # With its folder on PATH (an activated venv, pipx), the hint is the bare
    # name: every hint starts with the one program name (invocation.command,
    # shown whole above), so its usage line and a hint run from PATH show it.
    path = os.pathsep.join([str(installed.venv / "bin"), installed.env.get("PATH", "")])
    on_path = Runner([command], tmp_path, {**installed.env, "PATH": path})
    assert usage(on_path("--help")).startswith("optchat-spec [-h]")
    failed = on_path("corpus", "--engine", WRONG, "--only", "random_00", "--shrink-tries", "0")
    again = said(failed, "", SHRUNK)
    assert again.startswith("optchat-spec compare "), again
    replayed = on_path.shell(again + " --shrink-tries 1")
    assert replayed.returncode == 1 and "field 'size' (SPEC 3)" in replayed.stdout, replayed
    assert_expect_is_for_a_clone(runner, helped)


@pytest.mark.more  # the zipapp run end to end a dozen times: `make test-more`
@pytest.mark.xdist_group("zipapp")
def test_the_zipapp_prints_hints_that_work(warm_pyz: Path) -> None:
    """Its payload already unpacked: its first runs are test_zipapp.py's, as is
    a corpus run of its workers (`--jobs 2`)."""
    pyz = warm_pyz
    env = {"PATH": "/usr/bin:/bin", "HOME": str(pyz.parent.parent / "home")}
    runner = Runner([str(PYTHON), "-I", pyz.name], pyz.parent, env)
    helped = assert_hints_work(runner, lambda prog: prog.endswith(f" {pyz.resolve()}"))
    assert_reference_agrees(runner, "--jobs", "1")
    assert_expect_is_for_a_clone(runner, helped)
