"""Layer 2 of the runner, the wire: what is sent and what comes back (lines,
answers, digests), and the engines behind one interface, made from a spec by
one factory (docs/developing.md, "How the code is laid out")."""
