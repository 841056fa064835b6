from laws.registry import Step, step_law
from laws.spec import leaves_unbuilt, node_of, plain
from model import machine
from model.errors import Refused
from model.events import Start


@step_law
def held_takes_a_job(step: Step) -> None:
    """Under `held_takes_job` a node held after a failure takes one of the JOBS places
    until it may start again: the running calls, the held nodes and the candidates
    together are at most JOBS, and with no place left a start is refused as
    `jobs_bound`; otherwise only the running calls take places."""
    state = step.after
    q, jobs = state.queue, state.constants.jobs
    taken = len(q.running) + (len(q.held) if state.profile.held_takes_job else 0)
    offered = len(machine.candidates(state))
    assert taken + offered <= jobs, (
        f"{len(q.running)} running, {len(q.held)} held and {offered} offered, JOBS {jobs}"
    )
    if taken < jobs or state.profile.self_calls:
        return
    busy = {plain(n) for n in (*q.running, *q.held)}
    idle = [leaf for leaf in leaves_unbuilt(state) if leaf not in busy]
    if idle:
        try:
            machine.step(state, Start(node_of(idle[0])))
        except Refused as refused:
            assert refused.rule == "jobs_bound", f"a start was refused as {refused.rule}"
        else:
            raise AssertionError(f"a call started with every place of JOBS {jobs} taken")
