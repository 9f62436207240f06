"""benchmarks/bench_sample_audit.py still runs against the current API, and its reference formula
reproduces the issue's figure (LDP-Auditor's 0.980 at 10⁵ reports per input)."""

from __future__ import annotations

import math

import pytest

from benchmarks.bench_sample_audit import reference_bound, run


def test_the_reference_formula_gives_the_figures():
    p = math.e / (1 + math.e)
    n = 100_000
    assert reference_bound(round(n * p), round(n * (1 - p)), n) == pytest.approx(0.980, abs=5e-4)


def test_one_row_of_the_benchmark():
    result = run(10_000, range(1))
    assert result["ours"] >= 0.937
    assert result["reference"] == pytest.approx(0.937, abs=0.02)
