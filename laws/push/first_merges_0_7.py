from laws.proofs import example10, link
from laws.push.example import merged
from laws.push.first import due_from_first
from laws.registry import Broken, Held, Profile, check_law, proved, statement_of


@check_law
def first_merges_0_7(profile: Profile) -> Held:
    """In the T = 10 example, due from first merges 0+4 and 4+4."""
    strength = proved(first_merges_0_7, example10.first_merges_0_7())
    links = link.example_links(first_merges_0_7, profile, ["first"])
    made = merged(due_from_first)
    if made != [(3, 0)]:
        raise Broken("first_merges_0_7", statement_of(first_merges_0_7), f"it merged {made}")
    return Held(f"{strength}; {links}; computed on the model's fit")
