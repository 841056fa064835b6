"""The bridge: scenarios replayed through the model and an engine, compared
byte for byte after every event (`python -m bridge --help`)."""

__version__ = "0.3.0.dev0"
"""The project's version: a release `X.Y.Z` only in the commit tagged `vX.Y.Z`
(RELEASING.md), else the next release in development, which a built wheel or
zipapp carries with its commit (`0.3.0.dev0+g1a2b3c4d5e6f`, release/version.py)."""
