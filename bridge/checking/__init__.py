"""Layer 3 of the runner, checking: an engine's answers compared with what is
expected, a diverging scenario shrunk, and the verdict of one scenario
(docs/developing.md, "How the code is laid out")."""
