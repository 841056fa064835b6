"""Laws of SPEC 8: the render and zoom area, one file per law."""
