"""Benchmarks (not tests): each module prints medians and ratios measured in the same run."""
