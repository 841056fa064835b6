"""Two shards of a fuzzing campaign sharing a real Redis example database
(Debian's redis-server, started here on a free port of 127.0.0.1 without
persistence, stopped after): a break of the engine that only shard 1's
histories reach within the budget is replayed by shard 2 from the database
on its next run, as its first history.

Skipped, saying why, where redis-server or the redis package is missing,
unless OPTCHAT_REQUIRE_REDIS is set (.ci/run installs both and sets it):
then it fails, so that CI never skips it."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge import cli
from tests.bridge.helpers import bug_in_process

ROOT = Path(__file__).resolve().parents[2]
LATE_CAP = f"{sys.executable} {ROOT / 'tests' / 'bridge' / 'engines' / 'failure_cap_late.py'}"
"""impl.protocol whose failure cap builds a node one failure late (planted)."""

SEED = "1"
"""The run's seed: with 6 histories, 3 a shard, shard 1 reaches the planted
break at its 3rd history and shard 2 not at all (both from the seed alone,
whatever the machine's speed: the budget is histories, not seconds). When
scenarios/strategies.py changes what it draws, the first two runs below say
so: pick again the first seed whose shard 1 alone finds the break."""

STARTED = 120.0
"""Seconds redis-server may take to answer its first PING (a loaded machine)."""


@pytest.fixture
def late_cap_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """LATE_CAP's engine runs in this process (`with_bug`), as the shards do."""
    bug_in_process(monkeypatch, LATE_CAP, "failure_cap_late")


def needed(what: str, why: str) -> None:
    if os.environ.get("OPTCHAT_REQUIRE_REDIS"):
        pytest.fail(f"{what} is missing and OPTCHAT_REQUIRE_REDIS is set")
    pytest.skip(f"needs {what} ({why}; .ci/run installs it)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis server of this test alone; its URL."""
    server = shutil.which("redis-server")
    if server is None:
        needed("redis-server", "Debian's redis-server")
    try:
        import redis
    except ImportError:
        needed("the redis package", "pip install 'optchat-spec[campaign]'")
    port = free_port()
    log = (tmp_path / "redis.log").open("wb")
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        + ["--dir", str(tmp_path)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        began = time.monotonic()
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if process.poll() is not None or time.monotonic() - began > STARTED:
                    pytest.fail(
                        f"redis-server did not start: {(tmp_path / 'redis.log').read_text()}"
                    )
                time.sleep(0.2)
        client.close()
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def shard(
    k: int, url: str, regressions: Path, how: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """Fuzz shard k of 2 against the planted break, the runner in this
    process (the shards share nothing but the database), the database named
    by `--database` or by OPTCHAT_DATABASE (`how`)."""
    args = ["fuzz", "--engine", LATE_CAP, "--seed", SEED, "--shard", f"{k}/2"]
    args += ["--histories", "6", "--shrink-tries", "100", "--regressions", str(regressions)]
    with pytest.MonkeyPatch.context() as env:
        if how == "option":
            args += ["--database", url]
        else:
            env.setenv("OPTCHAT_DATABASE", url)
        code = cli.main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, err
    return code, out


@pytest.mark.usefixtures("late_cap_in_process")
def test_a_break_found_by_one_shard_is_replayed_first_by_the_other(
    redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    # Shard 2 alone does not reach the break within its 3 histories ...
    code, out = shard(2, redis_url, tmp_path / "two", "environment", capsys)
    assert code == 0 and "no divergence in 3 histories" in out, out
    assert client.dbsize() == 0  # nothing to keep
    # ... shard 1 does, at its 3rd, and keeps it in the shared database ...
    code, out = shard(1, redis_url, tmp_path / "one", "option", capsys)
    assert code == 1 and re.search(r"^DIVERGED after .* at history 3 ", out, re.M), out
    assert client.dbsize() > 0
    # ... and shard 2's next run replays it first: its 1st history diverges.
    code, out = shard(2, redis_url, tmp_path / "two", "environment", capsys)
    assert code == 1, out
    assert re.search(
        r"^DIVERGED after .* at history 1, one kept in the example database ", out, re.M
    ), out
    assert "the example database: 1 history replayed; history 1 still diverges" in out
    assert "line differs, expected" in out and list((tmp_path / "two").glob("**/*.jsonl"))
    client.close()
