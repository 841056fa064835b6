from laws.registry import Step, step_law
from laws.spec import declared_outcome


@step_law
def word_cut_drops_last_word(step: Step) -> None:
    """Under `cut: word` the line chooser's cut goes back to before the last white space
    of what a cut at a character boundary keeps, and drops the white space it then ends
    in; otherwise it is that character cut. Where the two differ on a call's end, the node
    is built with the line of the declared one."""
    other = "character" if step.before.profile.cut == "word" else "word"
    declared_outcome(step, "cut", other)
