from laws.proofs import example10, link
from laws.push.example import merged
from laws.push.first import due_from_first
from laws.registry import Broken, Held, Profile, check_law, proved, statement_of
from model.due import more_due


@check_law
def first_is_not_last(profile: Profile) -> Held:
    """In the T = 10 example, due from first and due from last merge different pairs."""
    strength = proved(first_is_not_last, example10.first_is_not_last())
    links = link.example_links(first_is_not_last, profile, ["last", "first"])
    if merged(due_from_first) == merged(more_due):
        raise Broken("first_is_not_last", statement_of(first_is_not_last), "both merged alike")
    return Held(f"{strength}; {links}; computed on the model")
