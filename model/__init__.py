"""The specification of the chat-memory planner as a pure model (SPEC 1-5).

Immutable values, no I/O, node indices as bit lists. `model.machine` is the
entry point: `initial(constants)`, `step(state, event)` and the observations.
"""
