import re

from laws.registry import Step, declared, step_law
from laws.spec import lines, text, view_size

BREAK_RUNS = re.compile("[\r\n]+")


@step_law(off=declared("flat_sizes"))
def flat_sizes_counted(step: Step) -> None:
    """Under `flat_sizes` each view's size is the sum of its lines' texts flattened, each
    run of `\\r` and `\\n` one byte (29 bytes for a placeholder), and its sawtooth runs on
    that size. Where a line's text holds two line breaks in a row, or `\\r\\n`, the view
    is smaller than SPEC's measure says."""
    after = step.after
    for what, saw in (("chat view", after.chat), ("compaction view", after.compaction)):
        expected = 0
        for line in lines(saw.view):
            found = text(after, line)
            expected += 29 if found is None else len(BREAK_RUNS.sub(" ", found).encode())
        assert saw.size == expected, f"the {what} measures {saw.size} bytes, not {expected}"
        assert view_size(after, saw.view) == expected
