"""The benchmarks' own code paths still run against the current API (they are not part of CI's runs)."""

from __future__ import annotations

import privopt as po
from benchmarks.bench_colgen import certified_result
from benchmarks.bench_compiler import polyopt_instances
from privopt.tolerances import GAP_TOLERANCE


def test_certified_table_row_agrees_with_the_exact_optimum() -> None:
    """One row of ``bench_colgen --certified`` (forked child) on a 2×3 instance: its certified bounds
    enclose the optimum that vertex enumeration finds for the same cone."""
    result = certified_result(("synthetic", (2, 3), 1000, 1), 1.0, 20.0)
    assert isinstance(result, dict), result
    (F,) = polyopt_instances((2, 3), 1, seed=1, n=1000)
    exact = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center)).solve(route="vertex")
    assert result["audit"]
    assert result["certified"]
    # The design is a mechanism in the cone (at most the optimum) and the upper bound is certified
    # (at least it); 1e-9 allows the LPs' round-off.
    assert result["lower"] <= exact.value + 1e-9
    assert result["upper"] >= exact.value - 1e-9
    # A 2×3 instance converges: the relative gap is within the default colgen gap tolerance.
    assert result["gap"] <= GAP_TOLERANCE
    assert result["stopped"] == "converged"
    assert result["peak"] > 0
