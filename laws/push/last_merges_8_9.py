from laws.proofs import example10, link
from laws.push.example import merged
from laws.registry import Broken, Held, Profile, check_law, proved, statement_of
from model.due import more_due


@check_law
def last_merges_8_9(profile: Profile) -> Held:
    """In the T = 10 example, due from last merges 8+1 and 9+1, as push does."""
    strength = proved(last_merges_8_9, example10.last_merges_8_9())
    links = link.example_links(last_merges_8_9, profile, ["last"])
    made = merged(more_due)
    if made != [(1, 4)]:
        raise Broken("last_merges_8_9", statement_of(last_merges_8_9), f"the model merged {made}")
    return Held(f"{strength}; {links}; computed on the model")
