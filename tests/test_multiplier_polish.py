"""Polishing a first-order point's multipliers (privopt.routes.multiplier_polish): the bound it returns
is a bound (at least the exact LP's optimum, on every pair cone of tests/test_pair_repair.py), never
worse than the one it was given, and at the optimum's multipliers of ``Σ_y w_y = 1`` it is the optimum
(LP duality: every output's pricing LP is then worth 0); each output's ray is the best one of total 1
(no normalised column of the optimum prices higher)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from privopt.solvers.lp import new_highs

from privopt.routes.linear_program import ColumnSystem, _highs_model
from privopt.routes.multiplier_polish import polish
from privopt.routes.row_generation import multipliers_bound
from tests.test_pair_repair import _cases


def _flat(rows: sp.csr_matrix) -> ColumnSystem:
    """The LP's system over the projected rows alone (no lifted blocks: every pair a row over ``w``)."""
    return ColumnSystem(rows, rows, 0, np.arange(rows.shape[0]), (), 0)


def _optimum(system: ColumnSystem, C: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """The LP's optimum by HiGHS's simplex, its multipliers of the cone's rows (outputs × rows) and
    of ``Σ_y w_y = 1``, and its columns (inputs × outputs)."""
    import highspy

    n, k = C.shape
    m = system.rows.shape[0]
    highs = new_highs()
    highs.setOptionValue("output_flag", False)
    highs.passModel(_highs_model(system, C))
    highs.run()
    assert highs.getModelStatus() == highspy.HighsModelStatus.kOptimal
    duals = np.asarray(highs.getSolution().row_dual)
    columns = np.asarray(highs.getSolution().col_value).reshape(k, n).T
    return highs.getInfo().objective_function_value, duals[: k * m].reshape(k, m), duals[k * m :], columns


@pytest.mark.parametrize("seed", range(6))
def test_the_polished_bound_is_a_bound_no_worse_and_exact_at_the_optimum(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 8))
    for name, data, _graph, rows in _cases(rng, n):
        C, _ = data.affine_utility()
        system = _flat(rows)
        optimum, beta, sums, exact_columns = _optimum(system, C)
        scale = float(np.abs(C).max())
        # exact multipliers of the sums: the pricing LPs' β prove the optimum
        exact = polish(system.rows, C, np.zeros_like(beta), sums, 1e-9, None)
        assert exact.passes >= 1, name
        # HiGHS meets dual rows to 1e-7; on rows with factors e^12 that leaves a few 1e-6 of the scale
        exact_to = 1e-4 if name == "LDP at a large ε" else 1e-9
        assert exact.bound == pytest.approx(optimum, abs=exact_to * scale), name
        # noisy multipliers, as a first-order method leaves them: still a bound, never a worse one
        noisy_beta = np.clip(beta + rng.normal(0.0, 0.05 * scale, beta.shape), 0.0, None)
        noisy_sums = sums + rng.normal(0.0, 0.05 * scale, sums.shape)
        given = multipliers_bound(system.rows, C, noisy_beta)
        polished = polish(system.rows, C, noisy_beta, noisy_sums, 1e-9, None)
        assert polished.bound <= given + 1e-12, name
        assert polished.bound >= optimum - 1e-7 * scale, name
        assert polished.bound == pytest.approx(multipliers_bound(system.rows, C, polished.weights)), name
        assert np.all(polished.weights >= 0.0), name
        # every ray is a pricing LP's: of total 1, on the relaxation's rows (to HiGHS's feasibility
        # tolerance, relative to the row: 2e-6 on factors e^12), one per output
        rays = polished.rays
        assert rays.shape == (n, C.shape[1]), name
        np.testing.assert_array_equal(polished.labels, np.arange(C.shape[1]), err_msg=name)
        assert np.all(rays >= -1e-9), name
        np.testing.assert_allclose(rays.sum(axis=0), 1.0, rtol=1e-7, err_msg=name)
        assert np.all(system.rows @ rays <= 1e-5 * (abs(system.rows) @ rays)), name
        # and each is the best one: no vertex of the exact optimum's normalised columns prices higher
        gains = np.einsum("xy,xy->y", C - polished.prices[:, None], rays)
        columns = exact_columns / np.maximum(exact_columns.sum(axis=0), 1e-300)
        used = exact_columns.sum(axis=0) > 1e-9
        priced = np.einsum("xy,xy->y", C - polished.prices[:, None], columns)
        assert np.all(priced[used] <= gains[used] + 1e-7 * scale), name


def test_a_polish_without_time_proves_nothing_new() -> None:
    rng = np.random.default_rng(7)
    _name, data, _graph, rows = next(_cases(rng, 5))
    C, _ = data.affine_utility()
    system = _flat(rows)
    _optimum_value, beta, sums, _columns = _optimum(system, C)
    noisy = np.clip(beta + 0.1, 0.0, None)
    polished = polish(system.rows, C, noisy, sums, 1e-9, 0.0)
    assert polished.passes == 0
    assert polished.bound == pytest.approx(multipliers_bound(system.rows, C, noisy), rel=1e-15, abs=0.0)
    np.testing.assert_array_equal(polished.weights, noisy)
    assert polished.rays.shape == (5, 0)
