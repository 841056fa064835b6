"""The bridge: scenarios replayed through the model and an engine, compared
byte for byte after every event (`python -m bridge --help`)."""

__version__ = "0.2.0"
"""The project's version (CHANGELOG.md); pyproject.toml reads it from here."""
