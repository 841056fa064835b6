from laws.proofs import example10, link
from laws.push.first import agreements
from laws.registry import Broken, Held, Profile, check_law, proved, statement_of


@check_law
def first_leaves_push(profile: Profile) -> Held:
    """Due from first leaves push within 11 steps (t = 0..10), first at t = 9,
    and over t = 0..20,000 agrees with push at exactly 481 steps."""
    strength = proved(first_leaves_push, example10.first_leaves_push())
    (runs,) = link.linked(first_leaves_push, link.example_runs)
    links = link.example_links(first_leaves_push, profile, ["last", "first"])
    agree = agreements(profile.push_t)
    facts = {"first step off push": agree.index(False) if False in agree else None}
    if profile.push_t == 20_000:
        facts["steps on push"] = sum(agree)
    expected = {"first step off push": 9, "steps on push": 481}
    wrong = {k: v for k, v in facts.items() if v != expected[k]}
    if wrong:
        raise Broken("first_leaves_push", statement_of(first_leaves_push), f"found {wrong}")
    return Held(
        f"{strength}; example10's runs are the model's for {runs}; {links}; "
        f"computed on the model for t <= {profile.push_t:,}"
    )
