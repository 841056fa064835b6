"""Laws of SPEC 8: the constants area (SPEC 7), one file per law."""
