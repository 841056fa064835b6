"""An engine that runs some SPEC 10 options at values it does not declare
(issue 40): a declarable difference, not a bug, that shows wherever those
options do. `plant(put, options)` puts it into the engine in this process
(with `put`, a test's monkeypatch.setattr): every planner runs its profile
with `options` (a JSON object of SPEC 10 options) over it."""

from collections.abc import Callable
from typing import Any

from impl import planner
from impl.constants import Constants
from impl.profile import Profile


def plant(put: Callable[[object, str, object], None], options: dict[str, Any]) -> None:
    """Every planner runs `options` over the profile it is given."""
    made = planner.Planner.__init__

    def running(
        self: planner.Planner, constants: Constants | None = None, profile: Profile | None = None
    ) -> None:
        runs = Profile.from_json({**(profile or Profile()).to_json(), **options})
        made(self, constants, runs)

    put(planner.Planner, "__init__", running)
