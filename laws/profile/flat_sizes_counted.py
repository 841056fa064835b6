from laws.registry import Step, declared, step_law
from laws.spec import views_measured


@step_law(off=declared("flat_sizes"))
def flat_sizes_counted(step: Step) -> None:
    """Under `flat_sizes` each view's size is the sum of its lines' texts flattened, each
    run of `\\r` and `\\n` one byte (29 bytes for a placeholder), and its sawtooth runs on
    that size. Where a line's text holds two line breaks in a row, or `\\r\\n`, the view
    is smaller than SPEC's measure says."""
    views_measured(step.after)
