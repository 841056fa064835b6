from laws.registry import Step, step_law


@step_law
def jobs_bound(step: Step) -> None:
    """Never more than JOBS calls run."""
    running, jobs = len(step.after.queue.running), step.after.constants.jobs
    assert running <= jobs, f"{running} calls run, JOBS is {jobs}"
