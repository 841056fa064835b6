from laws.registry import Step, declared, step_law
from laws.spec import declared_outcome


@step_law(off=declared("cut"))
def word_cut_drops_last_word(step: Step) -> None:
    """Under `cut: word` the line chooser's cut goes back to before the last white space
    of what a cut at a character boundary keeps, and drops the white space it then ends
    in. Where that cut and the character cut differ on a call's end, the node is built
    with the word cut."""
    declared_outcome(step, "cut", "character")
