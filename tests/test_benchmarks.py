"""The benchmarks' own code paths still run against the current API (they are not part of CI's runs)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import linprog

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


def _geo_lp_loss(prior: np.ndarray, d: np.ndarray, eps: float) -> float:
    """Bordenabe et al.'s LP solved here with scipy's HiGHS: min Σ p_x W[x,y] d[x,y] over channels with
    W[x,y] <= e^{ε d(x,x')} W[x',y] for all x != x' and y."""
    n = len(prior)
    index = np.arange(n * n).reshape(n, n)  # W[x, y] at index[x, y]
    rows, cols, values = [], [], []
    row = 0
    for x in range(n):
        for x2 in range(n):
            if x == x2:
                continue
            for y in range(n):
                rows += [row, row]
                cols += [index[x, y], index[x2, y]]
                values += [1.0, -np.exp(eps * d[x, x2])]
                row += 1
    A_ub = sparse.csr_array((values, (rows, cols)), shape=(row, n * n))
    A_eq = sparse.kron(sparse.eye(n), np.ones((1, n)))
    lp = linprog(
        (prior[:, None] * d).ravel(),
        A_ub=A_ub,
        b_ub=np.zeros(row),
        A_eq=A_eq,
        b_eq=np.ones(n),
        method="highs",
    )
    assert lp.status == 0
    return float(lp.fun)


def test_bench_geo_quick_row_on_the_smallest_grid(monkeypatch):
    """``bench_geo --quick``'s row (4 × 4, ε = 0.5): privopt's certified optimum is the LP's optimum,
    libqif (when installed) finds the same loss, and the planar Laplace's losses are ordered around it."""
    from benchmarks import bench_geo

    instance = bench_geo.Instance(4)
    row = bench_geo.run(instance, libqif_seconds=600.0)
    expected = _geo_lp_loss(instance.prior, instance.distances, 0.5)
    ours = row["privopt"]
    assert ours["status"] == "optimal"
    assert ours["checked"]
    assert ours["loss"] == pytest.approx(expected, rel=1e-8)
    assert ours["least_loss_bound"] <= expected + 1e-9
    if bench_geo.libqif_available():
        assert row["libqif"]["loss"] == pytest.approx(expected, rel=1e-8)
    else:
        assert row["libqif"]["error"].startswith("skipped: libqif")
    base = row["baselines"]
    assert expected <= base["remapped"] + 1e-9
    assert base["remapped"] < base["planar_laplace"]
    # Without qif the benchmark says so by name and goes on.
    monkeypatch.setattr(bench_geo, "libqif_available", lambda: False)
    assert bench_geo.run(instance)["libqif"] == {"error": "skipped: libqif (PyPI 'qif') is not installed"}
