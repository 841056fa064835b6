"""The engine's own reading of sized texts (impl/protocol.py) against the
scenario format's (scenarios/format.py): the same bytes for every size and
starting character."""

from __future__ import annotations

from impl import protocol
from scenarios import format as scenario_format


def test_sized_texts_agree_with_the_format_for_every_start_and_size() -> None:
    turn = len(protocol.FILLER)
    for position in range(turn + 1):
        for size in [*range(0, 3 * protocol.TURN_BYTES + 5), 30_000, 30_001]:
            text = protocol.sized_text(size, position)
            assert text == scenario_format.sized_text(size, position), (size, position)
            assert len(text.encode("utf-8")) == size
