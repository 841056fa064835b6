"""Laws of SPEC 8: the engine profile area (SPEC 10), one file per law."""
