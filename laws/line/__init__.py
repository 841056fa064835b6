"""Laws of SPEC 8: the line area, one file per law."""
