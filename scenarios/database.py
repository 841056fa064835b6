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
"""

from __future__ import annotations

import os
import re

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


def chosen(given: str | None, default: str) -> str:
    """The database's URL: `--database`, else OPTCHAT_DATABASE, else `default`."""
    return given or os.environ.get(VARIABLE) or default


def database(url: str, local: str) -> ExampleDatabase:
    """The database `url` names; `local` is the folder a read-only one is
    paired with. ValueError, in one line, for a URL it cannot be."""
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
        return RedisExampleDatabase(Redis.from_url(url))
    except ValueError as error:
        raise ValueError(f"--database {url}: {error}") from None
