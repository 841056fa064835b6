"""scenarios/shard.py and scenarios/database.py: `--shard K/N` read or
refused in one line, shares that add up, seeds that differ from shard to
shard and stay the same for the same shard; `--database` URLs to Hypothesis's
backends (nothing contacted: the Redis server is tested in
tests/campaign/test_redis.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    GitHubArtifactDatabase,
    MultiplexedDatabase,
    ReadOnlyDatabase,
)

from scenarios import database
from scenarios.shard import Shard, parse


@pytest.mark.parametrize("text", ["0/2", "3/2", "x", "1/0", "1", "/2", "1/2/3", "-1/2", "½/2"])
def test_a_shard_that_is_not_k_of_n_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse(text)
    assert "\n" not in str(refused.value) and "--shard" in str(refused.value)


def test_k_of_n_is_read() -> None:
    assert parse("3/4") == Shard(3, 4)
    assert parse(" 1/1 ") == Shard(1, 1)
    assert str(Shard(2, 5)) == "2/5"


@pytest.mark.parametrize("total", [0, 1, 5, 299, 300, 5000])
@pytest.mark.parametrize("count", [1, 2, 3, 8])
def test_the_shares_add_up_and_differ_by_at_most_one(total: int, count: int) -> None:
    shares = [Shard(k, count).share(total) for k in range(1, count + 1)]
    assert sum(shares) == total
    assert max(shares) - min(shares) <= 1


def test_each_shard_has_its_own_seed_and_the_same_one_every_time() -> None:
    seeds = [Shard(k, n).seed(7) for n in (2, 3, 8) for k in range(1, n + 1)]
    assert len(set(seeds)) == len(seeds)
    assert Shard(2, 3).seed(7) == Shard(2, 3).seed(7) != Shard(2, 3).seed(8)
    # A run of one shard is the run itself: `--shard 1/1` repeats a plain run.
    assert Shard(1, 1).seed(7) == Shard().seed(7) == 7
    # Far apart: a shard's processes explore from seed + 0, 1, 2 ... (laws --jobs).
    assert min(abs(a - b) for a in seeds for b in seeds if a != b) > 1000


def test_a_folder_is_a_directory_database(tmp_path: Path) -> None:
    guarded = database.database(str(tmp_path / "db"), str(tmp_path / "local"))
    assert isinstance(guarded, database.Guarded)  # tests/hostile/test_database.py
    found = guarded.wrapped
    assert isinstance(found, DirectoryBasedExampleDatabase)
    found.save(b"key", b"value")
    assert list(found.fetch(b"key")) == [b"value"]
    assert (tmp_path / "db").is_dir()


def test_github_artifacts_are_read_only_beside_the_local_folder(tmp_path: Path) -> None:
    local = tmp_path / "local"
    found = database.named("github-artifacts:someone/engine/nightly-examples", str(local))
    assert isinstance(found, MultiplexedDatabase)
    mine, shared = found._wrapped  # noqa: SLF001 (Hypothesis names its parts so)
    assert isinstance(mine, DirectoryBasedExampleDatabase)
    assert isinstance(shared, ReadOnlyDatabase)
    artifact = shared._wrapped  # noqa: SLF001
    assert isinstance(artifact, GitHubArtifactDatabase)
    assert (artifact.owner, artifact.repo, artifact.artifact_name) == (
        "someone",
        "engine",
        "nightly-examples",
    )
    default = database.named("github-artifacts:someone/engine", str(local))
    assert default._wrapped[1]._wrapped.artifact_name == "hypothesis-example-db"  # noqa: SLF001
    # Saving reaches the local folder (the artifact is only read, never
    # written: a write to it would need the network, which this test has not).
    found.save(b"key", b"found")
    assert list(mine.fetch(b"key")) == [b"found"]


@pytest.mark.parametrize(
    "url",
    ["github-artifacts:", "github-artifacts:owner", "github-artifacts:a/b/c/d", "ftp://host/x"],
)
def test_a_url_that_names_no_database_is_refused_in_one_line(tmp_path: Path, url: str) -> None:
    with pytest.raises(ValueError) as refused:
        database.database(url, str(tmp_path))
    assert "\n" not in str(refused.value) and url in str(refused.value)


def test_a_redis_url_is_hypothesis_redis_database_on_that_server(tmp_path: Path) -> None:
    pytest.importorskip("redis", reason="the redis package (the campaign extra)")
    from hypothesis.extra.redis import RedisExampleDatabase

    found = database.named("redis://127.0.0.1:6390/3", str(tmp_path))
    assert isinstance(found, RedisExampleDatabase)
    given = found.redis.connection_pool.connection_kwargs
    assert (given["host"], given["port"], given["db"]) == ("127.0.0.1", 6390, 3)


def test_the_url_comes_from_the_option_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(database.VARIABLE, raising=False)
    assert database.chosen(None, "here") == "here"
    monkeypatch.setenv(database.VARIABLE, "redis://shared:6379/0")
    assert database.chosen(None, "here") == "redis://shared:6379/0"
    assert database.chosen("there", "here") == "there"
