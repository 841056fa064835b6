"""Benchmarks (`make bench`): ratios measured in one run, never timed tests."""
