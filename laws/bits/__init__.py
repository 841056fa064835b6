"""Laws of SPEC 8: the bits area, one file per law."""
