from laws.registry import Step, declared, step_law
from laws.spec import views_measured


@step_law(off=declared("row_sizes"))
def row_sizes_count_heads(step: Step) -> None:
    """Under `row_sizes` each view's size counts every row as the render writes it but
    for the text's own measure: `{start}+{count}|`, the text (29 bytes for a
    placeholder; under `flat_sizes` each run of line breaks one byte), and the newline;
    and its sawtooth runs on that size."""
    views_measured(step.after)
