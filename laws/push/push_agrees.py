from laws.proofs import link
from laws.proofs.push_bounded import prove_push_bounded
from laws.registry import Broken, Held, Profile, check_law, proved, statement_of
from laws.spec import lines
from model import bits, push
from model.node import Node


def first_disagreement(last_t: int) -> tuple[int, list, list] | None:
    """Run push_agrees for t = 0..last_t; the first t where the view and push
    differ, with both, or None."""
    view: tuple[Node, ...] = ()
    stack: push.Stack = ()
    for t in range(last_t + 1):
        stack = push.push(stack, bits.from_int(t))
        count = bits.from_int(t + 1)
        view = push.agree_step(view, stack, count)
        expected = push.lines(stack, count)
        if view != expected:
            return t, lines(view), lines(expected)
    return None


@check_law
def push_agrees(profile: Profile) -> Held:
    """With push's length as the budget, the due order makes exactly push's
    merges, at every t = 0..20,000."""
    # The model's own run first: a wrong model is named before the proof's seconds.
    found = first_disagreement(profile.push_t)
    if found is not None:
        t, view, expected = found
        raise Broken(
            "push_agrees",
            statement_of(push_agrees),
            f"at t = {t} the view is {view}, push's lines are {expected}",
        )
    proof = prove_push_bounded(k=profile.push_k, processes=profile.processes)
    strength = proved(push_agrees, proof)
    steps, pairs = link.linked(
        push_agrees,
        lambda: link.push_steps(profile),
        lambda: link.pairs(profile, ["bits"]),
    )
    return Held(
        f"{strength}; linked to the model: the proof's step is the model's at {steps}, "
        f"its bit-vector order and tie rule on {pairs}; "
        f"computed on the model for every t <= {profile.push_t:,}"
    )
