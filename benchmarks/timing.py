"""Median wall-clock timing, for benchmarks that report ratios against a baseline in the same run."""

from __future__ import annotations

import resource
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any


def median_seconds(function: Callable[[], Any], repeat: int = 7, warmup: int = 1) -> float:
    """Median over ``repeat`` calls (after ``warmup`` untimed calls) of the wall time of ``function()``."""
    for _ in range(warmup):
        function()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def peak_bytes(function: Callable[[], Any]) -> int:
    """Peak memory allocated through Python's allocators (numpy included) while ``function()`` runs."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def peak_mib() -> float:
    """Peak resident memory of this process and of its (enumeration) children, from ``getrusage``."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024.0


def report(title: str, rows: list[tuple[str, str]]) -> None:
    print(f"\n== {title}")
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
