"""LAWS.lock: each law's statement frozen as a hash of its source, so that a
law cannot change without someone relocking it on purpose."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from laws.registry import Law

LOCK = Path(__file__).resolve().parent / "LAWS.lock"


class LockError(Exception):
    """LAWS.lock cannot be read: it names the problem and the way out."""


def digest(law: Law) -> str:
    return hashlib.sha256(law.source.encode("utf-8")).hexdigest()


def relock(laws: list[Law]) -> None:
    """Write LAWS.lock from the laws as they stand."""
    table = {law.name: digest(law) for law in laws}
    LOCK.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")


def changes(laws: list[Law]) -> list[str]:
    """What differs between the laws and LAWS.lock, one sentence per law."""
    how = "if the change is on purpose, run `make relock` and commit LAWS.lock"
    if not LOCK.exists():
        return [f"{LOCK.name} is missing; {how}"]
    try:
        table = json.loads(LOCK.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise LockError(f"{LOCK} cannot be read ({error}); run `make relock`") from None
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise LockError(f"{LOCK} is not a table of law names to hashes; run `make relock`")
    digests = {law.name: digest(law) for law in laws}  # each reads the law's source
    out = [
        f"law {law.name} changed since {LOCK.name} was written ({how})"
        for law in laws
        if table.get(law.name, digests[law.name]) != digests[law.name]
    ]
    out += [
        f"law {law.name} is not in {LOCK.name} ({how})" for law in laws if law.name not in table
    ]
    names = {law.name for law in laws}
    out += [
        f"{LOCK.name} holds {name}, which is no law ({how})" for name in table if name not in names
    ]
    return out
