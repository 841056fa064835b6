"""The bridge: scenarios replayed through the model and an engine, compared
byte for byte after every event (`python -m bridge --help`)."""
