"""Laws of SPEC 8: the queue area, one file per law."""
