"""Laws of SPEC 8: the cview area, one file per law."""
