"""Laws of SPEC 8: the view area, one file per law."""
