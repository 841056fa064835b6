"""Engine profiles as the protocol writes them (SPEC 10, bridge/PROTOCOL.md):
JSON objects of options, read strictly into the model's `Profile`, written
back in full, and described for reports."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from model.profile import Profile, deviations, from_options, options

SPEC = Profile()


class ProfileError(ValueError):
    """A profile that is not one: an unknown option or a bad value."""


def parse(given: Any, where: str) -> Profile:
    """The profile a JSON object declares; options left out keep SPEC's rule.
    ProfileError names `where` and the problem."""
    try:
        return from_options(given)
    except ValueError as error:
        raise ProfileError(f"{where}: {error}") from None


def to_json(profile: Profile) -> dict[str, Any]:
    """The profile with every option spelled out."""
    return options(profile)


def key(profile: Profile) -> str:
    """A short name for a profile, the same for equal profiles: where its
    transcripts are kept."""
    canonical = json.dumps(to_json(profile), sort_keys=True, ensure_ascii=False)
    return "profile-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:10]


def agreement(profile: Profile) -> str:
    """How a report says what an engine declares (SPEC 10); never that it
    agrees, which only its verdict says."""
    differ = deviations(profile)
    if not differ:
        return "declares no deviation (profile: SPEC)"
    return "declares deviations: " + "; ".join(differ)


def declared(profile: Profile) -> str:
    """The profile an engine was checked under, said in a few words:
    `profile: SPEC`, or `declared deviations: ...` (SPEC 10)."""
    differ = deviations(profile)
    return "declared deviations: " + "; ".join(differ) if differ else "profile: SPEC"
