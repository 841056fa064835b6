"""Laws of SPEC 8: the push area, one file per law."""
