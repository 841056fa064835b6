"""An example database that cannot be used is never a divergence (issue
36, items 2 and 4; README, "A campaign on N machines"): named by
`--database`, it is refused before the run (exit 2, one line naming it);
named by OPTCHAT_DATABASE, or failing during the run (a Redis key of
another type, a server gone), it is one line of warning and the run goes
on without it. A real redis-server is started where one is needed
(tests/bridge/test_campaign.py's fixture)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from laws.__main__ import main as laws_main
from scenarios import database
from tests.bridge.test_campaign import free_port, redis_url  # noqa: F401 (a fixture)
from tests.hostile.processes import Hostile, Run

pytest.importorskip("hypothesis")


def fuzz(run: Hostile, *more: str) -> Run:
    """One history of `fuzz` against the engine (it agrees)."""
    found = str(run.folder / "found")
    return run.main(
        "fuzz", "--engine", "impl", "--seed", "1", "--histories", "1", "--regressions", found,
        *more,
    )  # fmt: skip


def refused(result: Run, url: str) -> str:
    """Exit 2, one line naming the database, no traceback; the line."""
    assert result.code == 2, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    (line,) = result.err.splitlines()
    assert f"--database {url}: " in line, line
    return line


def warned(result: Run, url: str) -> str:
    """The run agreed, after one line of warning naming the database."""
    assert result.code == 0, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    (line,) = result.err.splitlines()
    assert line.startswith("warning: ") and url in line, line
    assert "no divergence in 1 histories" in result.out
    return line


def unreachable() -> str:
    """A Redis URL nobody answers at: a port just found free on this machine."""
    return f"redis://127.0.0.1:{free_port()}/0"


def test_an_unreachable_redis_named_by_the_option_is_refused(run: Hostile) -> None:
    pytest.importorskip("redis")
    url = unreachable()
    assert "cannot be reached" in refused(fuzz(run, "--database", url), url)


def test_an_unreachable_redis_named_by_the_environment_is_a_warning(
    run: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("redis")
    url = unreachable()
    monkeypatch.setenv(database.VARIABLE, url)
    assert "running without it" in warned(fuzz(run), url)


@pytest.mark.parametrize("kind", ["a file", "a read-only folder"])
def test_a_database_that_cannot_keep_an_example_is_refused(run: Hostile, kind: str) -> None:
    """/proc takes no new file, not even from root (the tests may run as root)."""
    where = run.folder / "examples.txt" if kind == "a file" else Path("/proc")
    if kind == "a file":
        where.write_text("not a folder")
    result = fuzz(run, "--database", str(where))
    assert "cannot keep examples" in refused(result, str(where))


def test_a_redis_key_of_another_type_is_a_warning_not_a_divergence(
    run: Hostile,
    redis_url: str,  # noqa: F811 (the fixture)
) -> None:
    """The keys the run reads, found in the server's log of every command
    (SLOWLOG, every command slower than 0 µs), are made strings: Redis then
    answers WRONGTYPE (anyone who can write to a shared Redis can do this)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.config_set("slowlog-log-slower-than", 0)
    client.config_set("slowlog-max-len", 10_000)
    assert fuzz(run, "--database", redis_url).code == 0
    asked = b"SMEMBERS "  # then the key: binary, whitespace bytes too
    read = {
        entry["command"].removeprefix(asked)
        for entry in client.slowlog_get(10_000)
        if entry["command"].startswith(asked + b"hypothesis-example:")
    }
    assert read, "the run read the database"
    for key in read:
        client.set(key, b"not a set")
    result = fuzz(run, "--database", redis_url)
    assert "WRONGTYPE" in warned(result, redis_url)
    client.close()


def test_the_database_of_a_run_that_fails_midway_warns_once(tmp_path: Path) -> None:
    """A folder database that goes away: one warning, then none; the run's
    reads find nothing and its writes are dropped."""
    given = tmp_path / "examples"
    found = database.database(str(given), str(tmp_path / "local"))
    found.save(b"key", b"value")
    assert list(found.fetch(b"key")) == [b"value"]
    broken = OSError("the disk went away")

    class Failing:
        def fetch(self, key: bytes) -> list[bytes]:
            raise broken

        save = delete = fetch

        def move(self, *_: bytes) -> None:
            raise broken

    said: list[str] = []
    guarded = database.Guarded(Failing(), str(given), said.append)  # type: ignore[arg-type]
    assert list(guarded.fetch(b"key")) == []
    guarded.save(b"key", b"x")
    guarded.move(b"key", b"other", b"x")
    guarded.delete(b"key", b"x")
    assert said == [f"warning: the example database {given} failed (OSError: the disk went "
                    "away): going on without it"]  # fmt: skip


def laws_args(**given: str | None) -> argparse.Namespace:
    return argparse.Namespace(shard=None, seed=1, profile="ci", database=given.get("database"))


def test_laws_refuse_an_unusable_database_named_by_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = tmp_path / "examples.txt"
    where.write_text("not a folder")
    code = laws_main(["--seed", "1", "--only", "view_covers", "--database", str(where)])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err
    (line,) = err.splitlines()
    assert line.startswith(f"laws: --database {where}: ") and "cannot keep examples" in line


def test_laws_run_without_an_unusable_database_of_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from laws.__main__ import campaign

    where = tmp_path / "examples.txt"
    where.write_text("not a folder")
    monkeypatch.setenv(database.VARIABLE, str(where))
    _, url = campaign(laws_args())
    assert url is None
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("warning: ") and str(where) in line and "running without it" in line
