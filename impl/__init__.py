"""The production engine of optchat-spec: planner, storage, library API and
compactor (SPEC 1-7). It never imports `model/`, `laws/` or `bridge/`."""
