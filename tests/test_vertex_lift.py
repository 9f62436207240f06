"""The vertex route's lifted enumeration (docs/compiler.md, "Routes": lifted slice), the exact
minimisation inside the pricing bound, and the direct vertex LP."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from privopt.solvers.lp import solve_equality_lp, solve_lp

import privopt as po
import privopt.routes.vertex as vertex_route
from privopt.compiler.cone import RowCone
from privopt.routes.pricing.envelope import _concat, _minimise_t, _segment_phi
from tests.test_independent_reporting import random_ball
from tests.test_pricing import _cone, _slice_vertices


def _same_rows(a: np.ndarray, b: np.ndarray, atol: float = 1e-9) -> bool:
    """Whether every row of ``a`` is a row of ``b`` (max norm) and the counts agree."""
    if len(a) != len(b):
        return False
    return all(np.min(np.max(np.abs(b - row), axis=1)) <= atol for row in a)


def test_single_lift_exists_exactly_for_one_complete_class_of_blocks():
    F = random_ball(np.random.default_rng(3), (3, 3), 1000)
    with_self = _cone(F, 1.0, self_pairs=True)
    lift = with_self.single_lift()
    assert lift is not None
    A, B, factor = lift
    assert factor == pytest.approx(np.e)
    assert A.shape == B.shape == (9, 9)  # one vector per (s, u): 18 rows instead of 72
    # Without the s1 = s2 pairs the blocks s -> s' miss the diagonal: one t cannot describe them.
    assert _cone(F, 1.0).single_lift() is None
    # Two factors: no single lift either.
    mixed = RowCone(
        with_self.eps,
        with_self.n_inputs,
        with_self.groups,
        (*with_self.blocks[:-1], dataclasses.replace(with_self.blocks[-1], log_factor=2.0)),
        with_self.exact,
        with_self.definition,
    )
    assert mixed.single_lift() is None


def test_single_lift_describes_the_cone():
    # A point satisfies the lifted system for t = max aᵀw exactly when it satisfies every projected row.
    F = random_ball(np.random.default_rng(4), (2, 4), 1000)
    cone = _cone(F, 0.8, self_pairs=True)
    A, B, factor = cone.single_lift()
    G = cone.matrix().toarray()
    rng = np.random.default_rng(0)
    points = np.vstack([_slice_vertices(cone), rng.dirichlet(np.ones(8), size=2000)])
    lifted_ok = (points @ A.T).max(axis=1) <= factor * (points @ B.T).min(axis=1) + 1e-12
    projected_ok = (points @ G.T).max(axis=1) <= 1e-12
    assert np.array_equal(lifted_ok, projected_ok)
    assert lifted_ok.sum() > len(_slice_vertices(cone))  # some random points are inside too


@pytest.mark.parametrize(("shape", "eps", "seed"), [((2, 3), 0.7, 1), ((3, 3), 1.0, 2), ((2, 4), 0.5, 3)])
def test_lifted_enumeration_finds_exactly_the_slice_vertices(shape, eps, seed):
    F = random_ball(np.random.default_rng(seed), shape, 1000)
    problem = po.Problem(po.SensitiveLDP(eps, F), po.MutualInformation(F.center), self_pairs=True)
    solution = problem.solve(route="vertex")
    assert solution.stats.backend == "cdd (lifted slice)"
    assert solution.status is po.Status.OPTIMAL
    exact = _slice_vertices(problem.get_problem_data().cone).astype(np.float64)
    assert solution.stats.vertices == len(exact)
    data = problem.get_problem_data()
    vertices, _ = vertex_route.EnumerationStrategy()._enumerate_lifted(
        data, data.cone.single_lift(), None, {}
    )
    assert _same_rows(vertices, exact)
    # The optimum is the one over the exactly enumerated slice.
    mu = po.MutualInformation(F.center).mu(exact.T)
    exact_lp = solve_lp(mu, a_eq=exact.T, b_eq=np.ones(exact.shape[1]), bounds=(0.0, None))
    assert solution.value == pytest.approx(exact_lp.objective, abs=1e-9)


def test_a_lifted_enumeration_that_loses_a_vertex_moves_on_to_the_projected_slice(monkeypatch):
    F = random_ball(np.random.default_rng(2), (3, 3), 1000)

    def problem() -> po.Problem:
        return po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), self_pairs=True)

    reference = problem().solve(route="vertex")
    used = [column / column.sum() for column in reference.mechanism.matrix.T]
    lifted = vertex_route.EnumerationStrategy._enumerate_lifted

    def losing(self, data, lift, deadline, seconds):
        vertices, result = lifted(self, data, lift, deadline, seconds)
        keep = np.ones(len(vertices), dtype=bool)
        for column in used:
            keep &= np.max(np.abs(vertices - column), axis=1) > 1e-9
        return vertices[keep], dataclasses.replace(result, vertices=vertices[keep])

    monkeypatch.setattr(vertex_route.EnumerationStrategy, "_enumerate_lifted", losing)
    solution = problem().solve(route="vertex")
    assert solution.stats.backend != "cdd (lifted slice)"  # the certificate sent it on
    assert solution.status is po.Status.OPTIMAL
    assert solution.value == pytest.approx(reference.value, abs=1e-9)


def test_minimise_t_finds_the_minimum_of_a_grid_with_few_evaluations():
    # t(ν) = ν − 1 − log(−φ(ν)) for φ a sum of maxima of decreasing lines: compare with a fine grid.
    rng = np.random.default_rng(0)
    evaluations = []
    for _ in range(60):
        parts = [
            (rng.uniform(0.01, 1.0, size=k), rng.normal(size=k))
            for k in rng.integers(1, 8, size=int(rng.integers(1, 5)))
        ]
        phi = _segment_phi(*_concat(parts))
        calls = []

        def counted(nu: float, phi=phi, calls=calls) -> tuple[float, float]:
            calls.append(nu)
            return phi(nu)

        best, nu = _minimise_t(counted, float(rng.normal()))
        evaluations.append(len(calls))
        value = phi(nu)[0]
        assert best == pytest.approx(nu - 1.0 - np.log(-value), abs=1e-12)  # t at the ν returned
        grid = np.linspace(nu - 5.0, nu + 5.0, 200_001)
        values = np.array([phi(g)[0] for g in grid[::50]])
        with np.errstate(divide="ignore"):
            coarse = grid[::50][np.argmin(np.where(values < 0, grid[::50] - np.log(np.abs(values)), np.inf))]
        fine = np.linspace(coarse - 0.01, coarse + 0.01, 4001)
        phis = np.array([phi(g)[0] for g in fine])
        t = np.where(phis < 0, fine - 1.0 - np.log(np.where(phis < 0, -phis, 1.0)), np.inf)
        assert best <= t.min() + 1e-10  # no grid point does better
    assert np.mean(evaluations) < 30  # piecewise-linear: Newton steps end on the right piece


def test_minimise_t_reports_no_bound_when_phi_stays_non_negative():
    phi = _segment_phi(np.array([0.0]), np.array([1.0]), np.array([0]))  # φ ≡ 1
    assert _minimise_t(phi, 0.0) == (np.inf, 0.0)


def test_direct_vertex_lp_agrees_with_scipy():
    rng = np.random.default_rng(5)
    vertices = rng.dirichlet(np.ones(6), size=300)
    vertices = np.vstack([vertices, np.eye(6)])  # feasible: the unit columns cover every input
    mu = rng.uniform(size=len(vertices))
    direct = solve_equality_lp(mu, vertices.T, np.ones(6))
    reference = solve_lp(mu, a_eq=vertices.T, b_eq=np.ones(6), bounds=(0.0, None))
    assert direct.objective == pytest.approx(reference.objective, abs=1e-10)
    assert np.allclose(direct.eq_duals, reference.eq_duals, atol=1e-9)
    assert np.count_nonzero(direct.x > 1e-12) <= 6  # basic


def test_direct_vertex_lp_reports_infeasibility():
    from privopt.solvers.errors import BackendError

    with pytest.raises(BackendError, match="infeasible"):
        solve_equality_lp(np.ones(2), np.array([[1.0, 0.0], [0.0, 0.0]]), np.ones(2))


@pytest.mark.parametrize("n", [3, 5, 7])
def test_ldp_slice_vertices_are_the_staircase_patterns(n):
    # Kairouz et al. (staircase mechanisms): the vertices of the ε-LDP slice are the columns with
    # entries in {1, e^ε} (up to scale), not all equal: 2^n − 2 of them. The lifted enumeration finds
    # exactly those.
    P = po.JointDistribution(np.full((1, n), 1.0 / n))
    solution = po.Problem(po.LDP(0.9), po.MutualInformation(P)).solve(route="vertex")
    assert solution.stats.backend == "cdd (lifted slice)"
    assert solution.stats.vertices == 2**n - 2


def test_minimise_t_stops_at_enough_only_when_the_minimum_is_that_low():
    # With ``enough`` the search may stop at the first t <= enough (the interval bound's per-block loop
    # needs only to know that a block cannot raise the maximum); above the minimum it never stops early.
    rng = np.random.default_rng(1)
    stopped = 0
    for _ in range(60):
        parts = [
            (rng.uniform(0.01, 1.0, size=k), rng.normal(size=k))
            for k in rng.integers(1, 8, size=int(rng.integers(1, 5)))
        ]
        phi = _segment_phi(*_concat(parts))
        start = float(rng.normal())
        exact, _ = _minimise_t(phi, start)
        below, nu = _minimise_t(phi, start, exact + 0.5)
        assert exact <= below <= exact + 0.5
        assert below == pytest.approx(nu - 1.0 - np.log(-phi(nu)[0]), abs=1e-12)  # t at the ν returned
        stopped += below > exact + 1e-9
        assert _minimise_t(phi, start, exact - 1e-6)[0] == pytest.approx(exact, abs=1e-15)  # the full search
    assert stopped > 0  # the early stop happens
