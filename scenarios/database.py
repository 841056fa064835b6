"""The example database a search keeps its failing examples in, named by a
URL (`--database`, or the OPTCHAT_DATABASE environment variable), so that
every shard of a campaign, and every night, replays first what any of them
found (laws and fuzz; Hypothesis's own backends):

  PATH                          a folder on this machine (the default)
  redis://HOST:PORT/DB          a Redis server the shards share (the `redis`
                                package: the `campaign` extra)
  github-artifacts:OWNER/REPO[/ARTIFACT]
                                the examples a CI workflow uploaded as an
                                artifact (default name hypothesis-example-db),
                                read only, beside the local folder that the
                                run writes (for pull requests; GITHUB_TOKEN)

A database that cannot be used is never a divergence (`usable`, `Guarded`):
one named by `--database` is refused before the run (exit 2, one line);
one named by the environment is one line of warning, and the run goes
without it; one that fails during the run (a Redis key of another type, a
server gone, a full disk) is one line of warning, and the run goes on
without it.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    GitHubArtifactDatabase,
    MultiplexedDatabase,
    ReadOnlyDatabase,
)

VARIABLE = "OPTCHAT_DATABASE"
"""The environment variable naming the database when `--database` does not."""

ARTIFACT = "hypothesis-example-db"
"""The artifact a workflow uploads its examples as (Hypothesis's default name)."""

GITHUB = re.compile(r"github-artifacts:([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)(?:/([A-Za-z0-9_.-]+))?")


CONNECT_SECONDS = 10.0
"""How long reaching a Redis server may take, and an answer from it, before
it counts as unreachable (a server that never answers would hold the run)."""


def chosen(given: str | None, default: str) -> str:
    """The database's URL: `--database`, else OPTCHAT_DATABASE, else `default`."""
    return given or os.environ.get(VARIABLE) or default


def checked(given: str | None, default: str, local: str) -> str | None:
    """The URL of the database a run uses (`chosen`), tried now (`usable`):
    ValueError, in one line, when `--database` (`given`) names one that
    cannot be used; a line of warning and None (no database) for one the
    environment or `default` names."""
    url = chosen(given, default)
    if not url:
        return None
    try:
        usable(url, local)
    except ValueError as error:
        if given:
            raise
        shown = without_password(url)
        where = f"{VARIABLE}={shown}" if os.environ.get(VARIABLE) else shown
        warn(f"warning: the example database {where}: {error}; running without it")
        return None
    return url


def usable(url: str, local: str) -> None:
    """ValueError, in one line, unless the database `url` names can keep an
    example: a folder is made if need be and takes a file; a Redis server
    answers. A GitHub artifact is only read, beside `local` (a folder)."""
    found = named(url, local)
    if url.startswith("redis://") or url.startswith("rediss://"):
        try:
            found.redis.ping()  # type: ignore[attr-defined]
        except Exception as error:  # noqa: BLE001 (redis's errors, and the OS's)
            shown = without_password(url)
            raise ValueError(f"--database {shown}: cannot be reached ({said(error)})") from None
        return
    folder = local if url.startswith("github-artifacts:") else url
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        why = error.strerror or str(error)
        raise ValueError(f"--database {url}: cannot keep examples in {folder}: {why}") from None


def without_password(url: str) -> str:
    """A database's URL as a run's lines say it: no password."""
    return re.sub(r"^([a-z]+://)[^/@]*@", r"\1***@", url)


def said(error: BaseException) -> str:
    """An error in one line: its kind and its words."""
    words = " ".join(str(error).split())
    return f"{type(error).__name__}: {words[:300]}" if words else type(error).__name__


def warn(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class Guarded(ExampleDatabase):
    """A database whose every failure is a line of warning, once, after
    which it is left alone: reads find nothing, writes are dropped."""

    def __init__(self, wrapped: ExampleDatabase, url: str, say: Callable[[str], None] = warn):
        super().__init__()
        self.wrapped, self.url, self.say = wrapped, url, say
        self.failed = False

    def __repr__(self) -> str:
        return f"Guarded({self.wrapped!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Guarded) and self.wrapped == other.wrapped

    def __hash__(self) -> int:
        return hash(self.url)

    def _failed(self, error: Exception) -> None:
        if not self.failed:
            self.failed = True
            self.say(
                f"warning: the example database {without_password(self.url)} failed "
                f"({said(error)}): "
                "going on without it"
            )

    def fetch(self, key: bytes) -> Iterable[bytes]:
        if self.failed:
            return
        try:
            found = list(self.wrapped.fetch(key))
        except Exception as error:  # noqa: BLE001 (whatever the database's own failures are)
            self._failed(error)
            return
        yield from found

    def save(self, key: bytes, value: bytes) -> None:
        self._guard(self.wrapped.save, key, value)

    def delete(self, key: bytes, value: bytes) -> None:
        self._guard(self.wrapped.delete, key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self._guard(self.wrapped.move, src, dest, value)

    def _guard(self, change: Callable[..., None], *given: bytes) -> None:
        if self.failed:
            return
        try:
            change(*given)
        except Exception as error:  # noqa: BLE001 (whatever the database's own failures are)
            self._failed(error)


def database(url: str, local: str) -> ExampleDatabase:
    """The database `url` names, `Guarded`; `local` is the folder a
    read-only one is paired with. ValueError, in one line, for a URL it
    cannot be."""
    return Guarded(named(url, local), url)


def named(url: str, local: str) -> ExampleDatabase:
    """Hypothesis's database that `url` names (nothing contacted yet)."""
    if url.startswith("redis://") or url.startswith("rediss://"):
        return redis_database(url)
    if url.startswith("github-artifacts:"):
        found = GITHUB.fullmatch(url)
        if found is None:
            raise ValueError(f"--database {url}: not github-artifacts:OWNER/REPO[/ARTIFACT]")
        owner, repo, artifact = found[1], found[2], found[3] or ARTIFACT
        shared = GitHubArtifactDatabase(owner, repo, artifact_name=artifact)
        return MultiplexedDatabase(DirectoryBasedExampleDatabase(local), ReadOnlyDatabase(shared))
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", url):
        raise ValueError(
            f"--database {url}: an unknown kind of database (a folder, redis://HOST:PORT/DB "
            "or github-artifacts:OWNER/REPO)"
        )
    return DirectoryBasedExampleDatabase(url)


def redis_database(url: str) -> ExampleDatabase:
    """Hypothesis's Redis database on the server `url` names (not contacted yet)."""
    try:
        from hypothesis.extra.redis import RedisExampleDatabase
        from redis import Redis
    except ImportError:
        raise ValueError(
            f"--database {url}: a Redis database needs the redis package: "
            "pip install 'optchat-spec[campaign]'"
        ) from None
    try:
        client = Redis.from_url(
            url, socket_connect_timeout=CONNECT_SECONDS, socket_timeout=CONNECT_SECONDS
        )
        return RedisExampleDatabase(client)
    except ValueError as error:
        raise ValueError(f"--database {url}: {error}") from None
