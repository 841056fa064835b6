"""Scenarios: the replayable corpus, its format and its generator."""
