"""Certified pricing on envelope cones (issue 13): block vertices, the bound on the best reduced cost,
certified column generation, certificates and their re-check, the vertex route's certificate."""

from __future__ import annotations

import dataclasses
import importlib
import json
import time

import numpy as np
import pytest
from privopt.solvers.vertex_enumeration import polytope_vertices

import privopt as po
from privopt.app.serialization import from_json, to_json
from privopt.certificates import SliceBound
from privopt.compiler.cone import CompileOptions, RowCone
from privopt.routes.colgen import ColumnGenerationOptions, start_master, starting_columns
from privopt.routes.colgen_route import column_generation
from privopt.routes.pricing import (
    EnvelopeCone,
    EnvelopePricer,
    PricingCertificate,
    PricingRequest,
    Refusal,
    RefusalReason,
    check_pricing_certificate,
    envelope_pricer,
    envelope_structure,
    tuning,
)
from privopt.routes.pricing.blocks import BlockTable, subset_sums, upper_hull, window_hull
from privopt.routes.pricing.certified_generation import (
    DualAverage,
    _bound_limits,
    _BoundPhase,
    _box_due,
    _stalled,
    _State,
    certified_column_generation,
)
from privopt.routes.pricing.stabilization import BoxStep
from privopt.routes.pricing.tuning import active
from tests.test_independent_reporting import random_ball

KNOBS = tuning.DEFAULT
DUAL_WINDOW, STALL_GROWTH = KNOBS.dual_window, KNOBS.stall_growth
GROW, SHRINK, MIN_RADIUS = KNOBS.grow, KNOBS.shrink, KNOBS.min_radius
INITIAL_RADIUS, MEAN_DUAL_RADII, MIN_CUTS = KNOBS.initial_radius, KNOBS.mean_dual_radii, KNOBS.min_cuts


def _tune(monkeypatch, **changes):
    """The runs of this test read ``changes`` on top of the tuning in force (cumulative)."""
    monkeypatch.setattr(tuning, "_ACTIVE", [dataclasses.replace(tuning.active(), **changes)])


#: Small shapes whose cone slices ppl enumerates exactly in well under a second.
SMALL = [((2, 3), 0.7), ((3, 3), 1.0), ((2, 4), 0.5)]


def _cone(F: po.RenyiBall, eps: float, self_pairs: bool = False) -> RowCone:
    return po.SensitiveLDP(eps, F).row_cone(F.center.n_x, options=CompileOptions(self_pairs=self_pairs))


def _slice_vertices(cone: RowCone) -> np.ndarray:
    """All vertices of the cone slice ``Σw = 1`` by exact (ppl) enumeration."""
    n = cone.n_inputs
    rows = cone.exact_matrix()
    a_ub = np.vstack([rows, -np.eye(n, dtype=int).astype(object)])
    return polytope_vertices(
        a_ub, np.zeros(a_ub.shape[0], dtype=int), np.ones((1, n)), [1.0], backend="ppl"
    ).vertices


def _brute_delta(utility: po.MutualInformation, vertices: np.ndarray, duals: np.ndarray) -> float:
    """``max (μ(v) − λᵀv)/pᵀv`` over the slice's vertices: the exact pricing value (its max is at a vertex)."""
    return float(np.max((utility.mu(vertices.T) - vertices @ duals) / (vertices @ utility.p)))


# ----------------------------------------------------------------- block vertex sets
def test_block_vertices_contain_every_exact_vertex_and_nothing_infeasible():
    rng = np.random.default_rng(5)
    for _ in range(40):
        k = int(rng.integers(2, 6))
        lower = rng.dirichlet(np.ones(k)) * rng.uniform(0.05, 0.95)
        if rng.random() < 0.3:
            lower[rng.integers(k)] = 0.0
        slack = 1.0 - lower.sum()
        table = BlockTable(lower, slack, rng.dirichlet(np.ones(k)))
        duals = rng.normal(size=k)
        D, T = 1.0, float(rng.uniform(1.0, 8.0))
        stats = lower[None, :] + slack * np.eye(k)
        a_ub = np.vstack([stats, -stats, -np.eye(k)])
        b_ub = np.concatenate([np.full(k, T), np.full(k, -D), np.zeros(k)])
        exact = polytope_vertices(a_ub, b_ub, np.zeros((0, k)), np.zeros(0), backend="ppl").vertices
        found = table.geometry(D, T).terms(duals, subset_sums(duals))
        points = np.array([table.point(D, T, h, f) for h, f in zip(found.subset, found.free, strict=True)])
        for v in exact:
            assert np.min(np.max(np.abs(points - v), axis=1)) <= 1e-9, (lower, T, v)
        products = stats @ points.T
        assert products.max() <= T + 1e-9
        assert products.min() >= D - 1e-9
        assert points.min() >= -1e-12
        # The pricing terms are those of the points.
        np.testing.assert_allclose(found.mass, points @ table.weights, atol=1e-12)
        xlogx = np.where(points > 0, points * np.log(np.where(points > 0, points, 1.0)), 0.0)
        np.testing.assert_allclose(found.value, xlogx @ table.weights - points @ duals, atol=1e-12)
        # The vectorised rows, over several (D, T) at once: the same vertices (subset ones in mask
        # order), scaled with (D, T) (the block is a cone in (w, D, T)), and D·1 alone where D = T.
        many = table.points(np.array([D, 2.0 * D, 1.5]), np.array([T, 2.0 * T, 1.5]))
        assert many[0].shape == points.shape
        subset = found.free < 0
        assert np.all(np.diff(found.mass) >= 0.0)  # in order of mass
        by_mask = points[subset][np.argsort(found.subset[subset])]
        np.testing.assert_allclose(many[0][: 2**k], by_mask, atol=1e-12)
        assert np.max(np.min(np.abs(many[0][:, None, :] - points[None]).max(axis=2), axis=1)) <= 1e-12
        np.testing.assert_allclose(many[1], 2.0 * many[0], atol=1e-12)
        np.testing.assert_allclose(many[2], np.full((1, k), 1.5))


def test_upper_hull_gives_every_linear_maximum():
    # Every method (a loop up to SMALL_HULL points, quickhull above, records first on points in order
    # of mass): every linear maximum, and a chain left to right whose slopes fall (what
    # _minimise_hulls reads).
    from privopt.routes.pricing.blocks import SMALL_HULL

    rng = np.random.default_rng(1)
    sizes = {"small": 0, "large": 0}
    for trial in range(160):
        n = int(rng.integers(1, 60)) if trial % 2 else int(rng.integers(SMALL_HULL - 5, 8 * SMALL_HULL))
        sizes["small" if n <= SMALL_HULL else "large"] += 1
        mass, value = rng.random(n), rng.random(n)
        if trial % 4 == 1:
            value = value - 3.0 * (mass - 0.5) ** 2  # many points near the hull
        if trial % 3 == 0:
            mass = np.round(mass, 1)  # ties in mass
        if trial % 5 == 0:
            value = np.round(mass, 1) * 0.5  # collinear points
        order = np.argsort(mass, kind="stable")
        for hull in (upper_hull(mass, value), order[upper_hull(mass[order], value[order], ordered=True)]):
            assert np.all(np.diff(mass[hull]) > 0.0)
            assert np.all(np.diff(np.diff(value[hull]) / np.diff(mass[hull])) <= 1e-12)
            for nu in np.linspace(-8.0, 8.0, 33):
                assert np.max(value[hull] - nu * mass[hull]) == pytest.approx(
                    np.max(value - nu * mass), abs=1e-12
                )
    assert min(sizes.values()) > 20


def test_the_hulls_minimum_by_pieces_is_the_searched_one():
    # _minimise_hulls reads min_ν ν − 1 − log(−φ(ν)) off φ's pieces; _minimise_t searches for it. Both
    # against a grid of ν (a minimum is at most every grid value, and close to the best of them).
    from privopt.routes.pricing.envelope import _concat, _minimise_hulls, _minimise_t, _segment_phi

    rng = np.random.default_rng(4)
    for trial in range(200):
        hulls = []
        for _ in range(int(rng.integers(1, 6))):
            n = int(rng.integers(1, 40))
            mass = rng.random(n) * rng.random() + (0.0 if trial % 7 == 0 else 1e-3)
            value = rng.normal(size=n) * 0.2 - mass * np.log(mass + 1e-12) - rng.random() * mass
            hull = upper_hull(mass, value)
            hulls.append((mass[hull], value[hull]))
        phi = _segment_phi(*_concat(hulls))
        pieces, nu = _minimise_hulls(hulls)
        searched, _ = _minimise_t(phi, 0.0)
        grid = np.linspace(-20.0, 40.0, 6001)
        values = sum(np.max(v[None, :] - grid[:, None] * m[None, :], axis=1) for m, v in hulls)
        t = np.where(values < 0.0, grid - 1.0 - np.log(np.where(values < 0.0, -values, 1.0)), np.inf)
        if not np.isfinite(searched):
            assert not np.isfinite(pieces)
            continue
        assert pieces == pytest.approx(searched, abs=1e-10)
        assert pieces <= t.min() + 1e-12
        assert pieces == pytest.approx(nu - 1.0 - np.log(-phi(nu)[0]), abs=1e-12)


def test_window_hull_is_the_hull_of_the_points_in_the_window():
    # Against the hull of the filtered points, by every linear maximum: windows with and without
    # vertices of the whole hull, ties in mass and in value, open ends, empty windows.
    rng = np.random.default_rng(2)
    empty = 0
    for trial in range(400):
        n = int(rng.integers(1, 200)) if trial % 2 else int(rng.integers(200, 3000))
        mass = rng.random(n)
        if trial % 3 == 0:
            mass = np.round(mass, 1)
        mass = np.sort(mass)  # as block vertex lists are
        value = rng.random(n) - rng.random() * mass**2
        if trial % 5 == 0:
            value = np.round(value, 1)
        low, high = np.sort(rng.random(2))
        if trial % 7 == 0:
            low = -np.inf
        if trial % 11 == 0:
            high = np.inf
        keep = np.flatnonzero((mass >= low) & (mass <= high))
        found = window_hull(mass, value, upper_hull(mass, value), low, high)
        assert set(found) <= set(keep)
        if keep.size == 0:
            empty += 1
            assert found.size == 0
            continue
        for nu in np.linspace(-8.0, 8.0, 33):
            assert np.max(value[found] - nu * mass[found]) == pytest.approx(
                np.max(value[keep] - nu * mass[keep]), abs=1e-12
            )
    assert empty > 0


def test_ascent_pruning_keeps_every_vertex_that_raises_the_ratio():
    # Outside the returned masses no point has a ratio above ``best``; the window is a real pruning.
    from privopt.routes.pricing.envelope import _raising_masses, _ratio

    rng = np.random.default_rng(3)
    pruned = 0
    for trial in range(300):
        n = int(rng.integers(3, 400))
        mass = rng.random(n) * rng.random() + 1e-3
        rest_mass, rest_value = float(rng.random() * 2 + 0.1), float(rng.normal())
        if trial % 2:
            value = rng.normal(size=n) * 0.1 - mass * np.log(mass) * rng.random()
        else:  # a single hull segment whose best points lie inside it, not at its ends
            mass[:2] = mass.min() - 0.1, mass.max() + 0.1
            value = rng.normal() * mass - 1e-9 * rng.random(n)
            value[:2] = rng.normal() * mass[:2]
            value[2:] = np.interp(mass[2:], mass[:2], value[:2]) - 1e-9 * rng.random(n - 2)
        ratios = _ratio(rest_value + value, rest_mass + mass)
        best = float(np.quantile(ratios, 0.9 + 0.1 * rng.random()))
        hull = upper_hull(mass, value)
        window = _raising_masses(mass[hull], value[hull], rest_mass, rest_value, best)
        outside = np.ones(n, bool) if window is None else (mass < window[0]) | (mass > window[1])
        assert np.all(ratios[outside] <= best + 1e-12)
        pruned += int(np.count_nonzero(outside))
    assert pruned > 0


# ----------------------------------------------------------------- structure
def test_structure_recognises_gamma_ldp_and_explains_the_rest(example1):
    F = po.RenyiBall.confidence(example1)
    gamma = envelope_structure(_cone(F, 1.0))
    assert isinstance(gamma, EnvelopeCone)
    assert gamma.n_blocks == 2
    assert not gamma.self_pairs
    np.testing.assert_allclose(gamma.lower[0], F.lower_bounds()[0])
    with_self = envelope_structure(_cone(F, 1.0, self_pairs=True))
    assert isinstance(with_self, EnvelopeCone)
    assert with_self.self_pairs
    ldp = envelope_structure(po.LDP(1.0).row_cone(4, options=CompileOptions()))
    assert isinstance(ldp, EnvelopeCone)
    assert ldp.self_pairs
    assert ldp.n_blocks == 1
    point = envelope_structure(po.SensitiveLDP(1.0, example1).row_cone(4, options=CompileOptions()))
    assert isinstance(point, Refusal)
    assert point.reason is RefusalReason.CONE
    assert "not a lower envelope" in point.message
    wide = random_ball(np.random.default_rng(0), (2, 4), 100)  # its box envelope adds vertices
    box = po.SensitiveLDP(1.0, wide).row_cone(8, options=CompileOptions(envelope="box"))
    assert isinstance(envelope_structure(box), Refusal)
    utility = po.FDivergence("tv", example1.p_x, [0.25] * 4)
    assert isinstance(envelope_pricer(utility, _cone(F, 1.0)), Refusal)


# ----------------------------------------------------------------- the bound
#: Large ε: the range of ``ρ`` is wide, and intervals are bounded by the nested relaxation.
WIDE = [((2, 3), 2.0), ((3, 3), 2.5), ((2, 4), 3.0)]


@pytest.mark.parametrize(("shape", "eps"), SMALL + WIDE)
def test_bound_is_above_the_brute_force_delta_and_tight(shape, eps, monkeypatch):
    """The bound is above the brute-force ``δ`` and within the tolerance of it, its columns are in the
    cone with their stated ratios; at large ε the nested interval bound (the star block at the
    interval's top, the others at its bottom) was used."""
    bound = importlib.import_module("privopt.routes.pricing.envelope")
    nested = []
    original = bound._Point.__init__

    def spy(self, search, star, rho, outer=None):
        original(self, search, star, rho, outer)
        if not self.feasible:
            nested.append(self.outer / self.rho)

    monkeypatch.setattr(bound._Point, "__init__", spy)
    rng = np.random.default_rng(11)
    F = random_ball(rng, shape, 1000)
    cone, utility = _cone(F, eps), po.MutualInformation(F.center)
    vertices = _slice_vertices(cone)
    pricer = envelope_pricer(utility, cone)
    assert isinstance(pricer, EnvelopePricer)
    # Master duals of a short run, and perturbed ones (positive reduced costs).
    result = column_generation(utility, cone, ColumnGenerationOptions(max_iterations=3, progress=False))
    for duals in (result.duals, result.duals * 0.9, result.duals + 0.05 * rng.normal(size=result.duals.size)):
        exact = _brute_delta(utility, vertices, duals)
        outcome = pricer.price(duals, PricingRequest(tolerance=1e-8))
        assert outcome.complete
        assert outcome.upper >= exact - 1e-12, (shape, exact, outcome.upper)
        assert outcome.upper <= exact + 1e-7, (shape, exact, outcome.upper)
        assert outcome.lower == pytest.approx(exact, abs=1e-9)
        for column in outcome.columns:  # the columns are in the cone and their ratios are right
            assert cone.violation(column.column) <= 1e-9
            v = column.column
            assert (utility.mu(v[:, None])[0] - duals @ v) / (utility.p @ v) == pytest.approx(
                column.ratio, abs=1e-9
            )
    if (shape, eps) in WIDE:
        assert nested
        assert max(nested) > 1.0


def test_bound_with_self_pairs_and_for_normalized_mi():
    rng = np.random.default_rng(2)
    F = random_ball(rng, (3, 3), 500)
    cone = _cone(F, 1.5, self_pairs=True)
    vertices = _slice_vertices(cone)
    duals = rng.uniform(0.0, 0.2, size=9)
    mi, nmi = po.MutualInformation(F.center), po.NormalizedMutualInformation(F.center)
    for utility in (mi, nmi):
        pricer = envelope_pricer(utility, cone)
        assert isinstance(pricer, EnvelopePricer)
        exact = float(np.max((utility.mu(vertices.T) - vertices @ duals) / (vertices @ F.center.p_x)))
        outcome = pricer.price(duals, PricingRequest(tolerance=1e-9))
        assert exact - 1e-12 <= outcome.upper <= exact + 1e-8


def test_the_geometry_kept_across_pricings_changes_no_result():
    # A pricer that kept the geometry of earlier pricings, one that keeps almost none (a tiny memory
    # budget evicts it), and a fresh one give the same bound, nodes and columns; a pickled pricer (a
    # worker's) carries none of it.
    import pickle

    from privopt.memory import limited
    from privopt.routes.pricing.envelope import envelope_parts

    def _build_pricer(utility, cone):  # a new pricer, outside the cache
        return EnvelopePricer(*envelope_parts(utility, cone))

    rng = np.random.default_rng(9)
    F = random_ball(rng, (3, 4), 1000)
    cone, utility = _cone(F, 2.0), po.MutualInformation(F.center)
    duals = [utility.p * rng.uniform(0.3, 1.2) + rng.normal(scale=0.02, size=cone.n_inputs) for _ in range(3)]
    kept, starved = _build_pricer(utility, cone), _build_pricer(utility, cone)
    assert isinstance(kept, EnvelopePricer)
    assert isinstance(starved, EnvelopePricer)
    kept.keep_geometry = starved.keep_geometry = True
    for lam in duals:
        fresh = _build_pricer(utility, cone)  # keeps nothing after its pricing
        assert isinstance(fresh, EnvelopePricer)
        outcomes = [
            kept.price(lam, PricingRequest(tolerance=1e-9)),
            fresh.price(lam, PricingRequest(tolerance=1e-9)),
        ]
        with limited(4096):
            outcomes.append(starved.price(lam, PricingRequest(tolerance=1e-9)))
        for other in outcomes[1:]:
            assert other.upper == pytest.approx(outcomes[0].upper, abs=1e-13)
            assert (other.nodes, other.point_nodes) == (outcomes[0].nodes, outcomes[0].point_nodes)
            np.testing.assert_allclose(
                [c.column for c in other.columns], [c.column for c in outcomes[0].columns], atol=1e-13
            )
        assert len(fresh._geometry) == 0
    assert len(kept._geometry) > len(starved._geometry)
    assert len(pickle.loads(pickle.dumps(kept))._geometry) == 0


def test_node_budget_and_ceiling_stop_the_search_and_an_unfinished_bound_stays_valid():
    rng = np.random.default_rng(4)
    F = random_ball(rng, (3, 3), 1000)
    cone, utility = _cone(F, 0.5), po.MutualInformation(F.center)
    pricer = envelope_pricer(utility, cone)
    assert isinstance(pricer, EnvelopePricer)
    duals = np.full(9, 0.02)
    exact = _brute_delta(utility, _slice_vertices(cone), duals)
    for budget in (1, 5, 20):
        outcome = pricer.price(duals, PricingRequest(tolerance=0.0, max_nodes=budget))
        # Each pop adds at most two children (and the roots are always evaluated).
        assert outcome.nodes <= max(budget, 3) + 2
        assert outcome.upper >= exact - 1e-12
    # A ceiling stops the search once a column reaches it: fewer nodes, incomplete, still a bound.
    full = pricer.price(duals, PricingRequest(tolerance=1e-9))
    assert full.complete
    assert full.lower == pytest.approx(exact, abs=1e-9)
    early = pricer.price(duals, PricingRequest(tolerance=1e-9, ceiling=0.5 * exact))
    assert early.lower >= 0.5 * exact
    assert early.nodes < full.nodes
    assert not early.complete
    assert early.upper >= exact - 1e-12


# ----------------------------------------------------------------- certified column generation
@pytest.mark.parametrize(("shape", "eps"), SMALL)
def test_certified_colgen_closes_the_gap_around_the_exact_optimum(shape, eps):
    F = random_ball(np.random.default_rng(3), shape, 1000)
    problem = po.Problem(po.SensitiveLDP(eps, F), po.MutualInformation(F.center), colgen={"progress": False})
    exact = (
        po.Problem(po.SensitiveLDP(eps, F), po.MutualInformation(F.center), backend="ppl")
        .solve(route="vertex")
        .value
    )
    solution = problem.solve(route="colgen")
    assert solution.stats.stopped == "converged"
    assert solution.upper >= exact - 1e-9 >= solution.lower - 2e-9
    assert solution.gap <= 1e-4
    assert solution.status is po.Status.OPTIMAL
    bound = solution.certificate.bound
    assert isinstance(bound, SliceBound)
    assert bound.normalisation == "prior"
    assert bound.upper == pytest.approx(solution.upper)
    assert solution.certificate.checked
    assert po.check_certificate(problem, solution).valid


def test_certified_colgen_respects_iteration_and_column_budgets():
    F = random_ball(np.random.default_rng(8), (4, 5), 2000)
    problem = po.Problem(
        po.SensitiveLDP(1.0, F),
        po.MutualInformation(F.center),
        colgen={"progress": False, "max_iterations": 4, "max_columns": 10},
    )
    solution = problem.solve(route="colgen")
    assert solution.stats.iterations <= 4
    assert solution.stats.columns <= 10
    assert solution.stats.stopped in ("iteration limit", "column limit")
    assert solution.lower <= solution.upper
    assert solution.status is po.Status.LIMIT_REACHED


# ----------------------------------------------------------------- certificates
def test_certificate_recheck_passes_and_fails_when_tampered():
    F = random_ball(np.random.default_rng(6), (3, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen={"progress": False})
    cone, utility = problem.compile().cone, problem.utility
    result = column_generation(utility, cone, ColumnGenerationOptions(max_iterations=2, progress=False))
    pricer = envelope_pricer(utility, cone)
    assert isinstance(pricer, EnvelopePricer)
    outcome = pricer.price(result.duals, PricingRequest(tolerance=1e-9))
    assert outcome.upper > 1e-4  # a non-trivial claim: the run was stopped early
    good = PricingCertificate.from_outcome(result.duals, outcome)
    assert check_pricing_certificate(good, cone, utility).valid
    data = good.to_dict()
    smaller_delta = {**data, "delta": 0.5 * good.delta, "upper": good.upper - 0.5 * good.delta}
    lower_duals = {**data, "duals": list(np.array(good.duals) - 1e-3), "upper": good.upper - 9e-3}
    wrong_upper = {**data, "upper": good.upper - 1e-3}
    for bad in (smaller_delta, lower_duals, wrong_upper):
        check = check_pricing_certificate(PricingCertificate.from_dict(bad), cone, utility)
        assert not check.valid, check.reason


def test_solution_json_keeps_the_pricing_certificate():
    F = random_ball(np.random.default_rng(9), (2, 3), 1000)
    solution = po.Problem(
        po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen={"progress": False}
    ).solve(route="colgen")
    back = from_json(to_json(solution))
    assert isinstance(back.certificate.bound, SliceBound)
    assert isinstance(solution.certificate.bound, SliceBound)
    assert back.certificate.bound.delta == solution.certificate.bound.delta
    assert back.certificate.bound.normalisation == "prior"
    np.testing.assert_array_equal(back.certificate.bound.duals, solution.certificate.bound.duals)
    assert back.certificate.checked
    assert solution.certificate.checked
    json.loads(to_json(solution))


def test_cones_without_the_structure_get_the_global_pricer_and_a_bare_mu_keeps_the_old_bound(example1):
    problem = po.Problem(
        po.LIP(1.0, example1), po.MutualInformation(example1), colgen={"progress": False, "time_limit": 10.0}
    )
    solution = problem.solve(route="colgen")
    source = solution.certificate.upper_source
    assert "global: SCIP's spatial branch and bound" in source or "chain rule" in source
    assert solution.certificate.checked
    # A utility that declares no form of its μ gets no certified pricer: the old bound, and why.
    mi = po.MutualInformation(example1)
    bare = po.Problem(
        po.LIP(1.0, example1),
        po.SubConvexUtility(mi.mu, input_size=mi.p.size),
        colgen={"progress": False, "time_limit": 10.0},
    )
    assert "no certified pricing bound" in bare.solve(route="colgen").reason
    vertex = problem.solve(route="vertex")
    assert vertex.status is po.Status.OPTIMAL
    assert vertex.certificate.checked  # by the checker's LIP method: no envelope structure on this cone
    assert "LIP cone" in vertex.certificate.checked_by


# ----------------------------------------------------------------- the vertex route
def test_vertex_route_is_certified_and_a_lost_vertex_is_detected():
    F = random_ball(np.random.default_rng(10), (3, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center))
    solution = problem.solve(route="vertex")
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.checked
    assert "envelope cone" in solution.certificate.checked_by
    # Drop the vertices the optimum uses: the LP over the rest is no longer optimal, and the pricing
    # bound on its duals says so.
    cone, utility = problem.compile().cone, problem.utility
    vertices = _slice_vertices(cone)
    used = np.array(
        [np.min(np.max(np.abs(vertices - c / c.sum()), axis=1)) < 1e-9 for c in solution.mechanism.matrix.T]
    )
    keep = np.ones(len(vertices), dtype=bool)
    for column in solution.mechanism.matrix.T:
        keep &= np.max(np.abs(vertices - column / column.sum()), axis=1) > 1e-9
    assert used.all()
    assert keep.sum() < len(vertices)
    from privopt.solvers.lp import solve_lp

    mu = utility.mu(vertices[keep].T)
    lp = solve_lp(mu, a_eq=vertices[keep].T, b_eq=np.ones(9), bounds=(0.0, None))
    pricer = envelope_pricer(utility, cone)
    assert isinstance(pricer, EnvelopePricer)
    outcome = pricer.price(lp.eq_duals, PricingRequest(tolerance=1e-9))
    assert lp.objective < solution.value - 1e-6
    assert float(np.sum(lp.eq_duals)) + max(0.0, outcome.upper) >= solution.value - 1e-9
    assert outcome.upper > 1e-6  # not certified: a better column exists


def _losing(enumerate_all, used, calls):
    """A vertex back end that drops the given vertices on its first ``calls`` calls."""
    import dataclasses

    seen = []

    def losing(*args, **kwargs):
        result = enumerate_all(*args, **kwargs)
        seen.append(result.backend)
        if len(seen) > calls:
            return result
        keep = np.ones(len(result.vertices), dtype=bool)
        for column in used:
            normalised = result.vertices / result.vertices.sum(axis=1, keepdims=True)
            keep &= np.max(np.abs(normalised[:, : column.size] - column), axis=1) > 1e-9
        return dataclasses.replace(result, vertices=result.vertices[keep])

    return losing, seen


@pytest.mark.parametrize(
    ("build", "shape", "seed"),
    [(lambda F: po.SensitiveLDP(1.0, F), (3, 3), 10), (lambda F: po.LIP(1.0, F.center), (3, 2), 11)],
    ids=["Gamma", "LIP"],
)
def test_a_vertex_enumeration_that_loses_vertices_is_caught(monkeypatch, build, shape, seed):
    # A floating-point enumeration can lose vertices silently. Drop the vertices the optimum uses from
    # what the back end returns: the independent checker refutes the LP's duals, and the route
    # re-enumerates; if every back end loses them, the solve is an error, never a wrong "optimal".
    import privopt.routes.vertex as vertex_route

    F = random_ball(np.random.default_rng(seed), shape, 1000)  # dropping the optimum's vertices costs value
    problem = po.Problem(build(F), po.MutualInformation(F.center), backend="cdd")  # enumerate, in floats
    optimal = problem.solve(route="vertex")
    assert optimal.certificate.checked
    used = [column / column.sum() for column in optimal.mechanism.matrix.T]
    enumerate_all = vertex_route.polytope_vertices
    once, seen = _losing(enumerate_all, used, calls=1)
    monkeypatch.setattr(vertex_route, "polytope_vertices", once)
    recovered = po.Problem(build(F), po.MutualInformation(F.center), backend="cdd").solve(route="vertex")
    assert len(seen) >= 2  # the lossy enumeration was refuted and redone
    assert recovered.value == pytest.approx(optimal.value, abs=1e-9)
    assert recovered.status is po.Status.OPTIMAL
    assert recovered.certificate.checked
    assert "re-enumeration" in recovered.reason
    always, _ = _losing(enumerate_all, used, calls=10**6)
    monkeypatch.setattr(vertex_route, "polytope_vertices", always)
    with pytest.raises(po.SolverError, match="refuted"):
        po.Problem(build(F), po.MutualInformation(F.center), backend="cdd").solve(route="vertex")


@pytest.mark.parametrize("backend", ["cdd", "ppl"])
def test_every_vertex_back_end_is_checked_independently(backend):
    # Whatever the back end (floating-point cdd or rational ppl), the vertex route's optimum carries
    # a bound the independent checker proved, and both agree with the default back end.
    F = random_ball(np.random.default_rng(10), (3, 3), 1000)
    reference = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center)).solve(route="vertex")
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), backend=backend)
    solution = problem.solve(route="vertex")
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.checked
    assert solution.value == pytest.approx(reference.value, abs=1e-9)
    assert solution.stats.backend.startswith(backend)
    assert po.check_certificate(problem, solution).valid


def test_bound_phase_prices_the_averaged_duals_with_zeros_on_inputs_of_zero_weight(monkeypatch):
    # Any λ certifies; on inputs with p_x = 0 the master's duals are noise, so the bound phase prices
    # the recent rounds' mean duals set to 0 there (a run stopped by its iteration budget takes no box
    # steps), and its certificate must re-check independently.
    from privopt.routes.pricing import envelope as bound

    counts = np.array([[30, 0, 12, 9], [5, 25, 0, 14], [8, 11, 19, 3]])
    F = po.RenyiBall.confidence(po.JointDistribution.from_counts(counts))
    utility = po.MutualInformation(F.center)
    assert np.sum(utility.p == 0.0) == 2
    priced = []
    price = bound.EnvelopePricer.price

    def recording(self, duals, request, **kwargs):
        priced.append(np.array(duals))
        return price(self, duals, request, **kwargs)

    monkeypatch.setattr(bound.EnvelopePricer, "price", recording)
    cone = _cone(F, 1.0)
    result = column_generation(utility, cone, ColumnGenerationOptions(max_iterations=3, progress=False))
    zero = utility.p == 0.0
    averaged = priced[-1]
    assert not np.any(averaged[zero])
    assert np.any(result.duals[zero])  # the master's own duals are not what was priced
    assert not np.allclose(averaged, np.where(zero, 0.0, result.duals))  # three rounds' mean
    assert check_pricing_certificate(result.certificate, cone, utility).valid
    at_averaged = price(envelope_pricer(utility, cone), averaged, PricingRequest(tolerance=1e-9))
    assert result.upper <= float(np.sum(averaged)) + max(0.0, at_averaged.upper) + 1e-7


def _envelope_case(exact: bool = True) -> tuple[RowCone, po.MutualInformation, EnvelopePricer, float]:
    """A 3×3 ball's cone at ε = 1 with MI, its envelope pricer and (with ``exact``) the exact optimum
    by ppl enumeration (else NaN)."""
    F = random_ball(np.random.default_rng(3), (3, 3), 1000)
    cone, utility = _cone(F, 1.0), po.MutualInformation(F.center)
    optimum = (
        po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), backend="ppl")
        .solve(route="vertex")
        .value
        if exact
        else np.nan
    )
    pricer = envelope_pricer(utility, cone)
    assert isinstance(pricer, EnvelopePricer)
    return cone, utility, pricer, optimum


def test_bound_phase_box_steps_reach_the_exact_optimum(monkeypatch):
    # Box steps with the exact oracle minimise U(λ) = 1ᵀλ + δ(λ)⁺, whose minimum is the optimum (LP
    # duality over every column): from the first basis's duals they close the gap to the vertex
    # route's optimum, and their columns raise the master to it.
    cone, utility, pricer, exact = _envelope_case()
    options = ColumnGenerationOptions(progress=False)
    master = start_master(utility, starting_columns(cone, None), 1000)
    first = master.solve()[0]
    box = BoxStep(pricer.weights, scaled=True)
    box.add(np.column_stack(master.columns), np.asarray(master.values))
    state = _State(utility, pricer, options)
    priced: list[tuple[float, float]] = []  # (tolerance, bound) of each evaluation
    run = state._run

    def spy(*args, **kwargs):
        certificate, columns = run(*args, **kwargs)
        priced.append((certificate.tolerance, certificate.upper))
        return certificate, columns

    monkeypatch.setattr(state, "_run", spy)
    phase = _BoundPhase(utility, state, master, box, time.perf_counter() + 60.0, options.max_columns)
    assert phase.run(master.solve()[2], 1e-6, steps=True)
    assert box.serious >= 1
    assert exact - 1e-9 <= state.upper <= exact * (1.0 + 1e-6) + 1e-9
    assert first < master.solve()[0] <= exact + 1e-9
    assert phase.generated > 0
    assert check_pricing_certificate(state.best, cone, utility).valid
    # The steps priced coarsely while the gap was wide (a share of it), every bound still above the
    # optimum (weak duality); the last one to the run's own tolerance (at the master's value then, which
    # is at most its final value), the centre priced again once no descent was left.
    own = state.tolerance(master.solve()[0])
    assert max(tolerance for tolerance, _ in priced) > 100 * own
    assert all(bound >= exact - 1e-9 for _, bound in priced)
    assert priced[-1][0] <= own


def test_the_bound_phase_has_room_for_a_step_only_beyond_the_checks_reserve():
    # The phase keeps ``check_ratio`` pricing times for the check and ``final_reserve`` for the final
    # re-proof (while refinable); a step needs ``step_share`` of a pricing time before that.
    cone, utility, pricer, _ = _envelope_case()
    state = _State(utility, pricer, ColumnGenerationOptions(progress=False))
    now = time.perf_counter()
    assert state.room(now + 1e-3, 0.0)  # nothing certified: any time at all
    state._run(0.0, np.zeros(cone.n_inputs), now + 60.0, 0.0)
    state.best_seconds = 10.0
    kept = pricer.traits.check_ratio + (active().final_reserve if state.refinable(0.0) else 0.0)
    edge = (kept + active().step_share) * state.best_seconds
    assert state.until(now + edge, 0.0) == pytest.approx(now + active().step_share * 10.0)
    assert state.room(time.perf_counter() + edge + 1.0, 0.0)
    assert not state.room(time.perf_counter() + edge - 1.0, 0.0)


def _record_phases(monkeypatch, certified) -> list[bool]:
    """The ``steps`` argument of every bound phase the run enters, in order."""
    run, phases = certified._BoundPhase.run, []

    def record(self, first, tolerance, steps):
        phases.append(steps)
        return run(self, first, tolerance, steps)

    monkeypatch.setattr(certified._BoundPhase, "run", record)
    return phases


@pytest.mark.slow  # a 12 s budget run twice
def test_a_settled_master_hands_the_rest_of_the_budget_to_the_bound_phase(monkeypatch):
    # Made to look settled from the start (any growth counts as settled, from the first round): the
    # search stops there, and the bound phase's exact box steps — which a run converging in its search
    # never reaches — take the run to the exact optimum, both bounds.
    certified = importlib.import_module("privopt.routes.pricing.certified_generation")
    _tune(monkeypatch, early_bound_fraction=0.98)
    _tune(monkeypatch, settled_growth=np.inf, settled_gap_share=np.inf)
    phases = _record_phases(monkeypatch, certified)
    cone, utility, pricer, exact = _envelope_case()
    options = ColumnGenerationOptions(progress=False, time_limit=60.0, gap_tolerance=1e-6)
    result = certified_column_generation(
        utility, cone, options, pricer, starting_columns(cone, None), time.perf_counter()
    )
    assert phases == [True]  # entered settled, with steps
    assert result.stopped == "converged"  # by the bound phase
    assert exact - 1e-9 <= result.upper <= exact * (1.0 + 1e-6) + 1e-9
    assert exact * (1.0 - 1e-6) - 1e-9 <= result.lower <= exact + 1e-9
    _tune(monkeypatch, settled_growth=0.0)  # never settled: converges in its search
    phases.clear()
    certified_column_generation(
        utility, cone, options, pricer, starting_columns(cone, None), time.perf_counter()
    )
    assert phases == []
    # Settled, but the check's reserve would leave the bound phase no step (the pricings are long): the
    # search goes on rather than end its rounds with the budget unspent, and converges by itself.
    _tune(monkeypatch, settled_growth=np.inf, settled_gap_share=np.inf)
    room = certified._State.room
    monkeypatch.setattr(certified._State, "room", lambda self, deadline, value: False)
    result = certified_column_generation(
        utility, cone, options, pricer, starting_columns(cone, None), time.perf_counter()
    )
    assert phases == []
    assert result.stopped == "converged"
    monkeypatch.setattr(certified._State, "room", room)
    # Settled, but the exact pricer has shown it cannot complete a search with its whole node budget
    # (here: one node, before the first round; as at ε = 2 on Adult): the search goes on (doubling
    # the budget) and converges by itself.
    _tune(monkeypatch, settled_growth=np.inf, settled_gap_share=np.inf)

    def one_node(self, deadline):
        self.node_budget = 1
        self._run(0.0, np.zeros(cone.n_inputs), deadline, 0.0)
        assert self.unfinished

    monkeypatch.setattr(certified._State, "certify_prior_free", one_node)
    result = certified_column_generation(
        utility, cone, options, pricer, starting_columns(cone, None), time.perf_counter()
    )
    assert phases == []
    assert result.iterations > 1
    assert result.stopped == "converged"


def test_a_master_settled_by_value_but_rising_at_the_gaps_rate_gets_exact_steps_between_its_rounds(
    monkeypatch,
):
    # Settled by its value from the start (any growth counts) but never by the gap (made to look
    # rising): the run does not hand its budget to the bound phase; exact box steps run between the
    # master's rounds, and the run still reaches the exact optimum, both bounds.
    certified = importlib.import_module("privopt.routes.pricing.certified_generation")
    _tune(monkeypatch, settled_growth=np.inf)
    monkeypatch.setattr(certified, "_bound_limits", lambda trace, upper: False)
    phases = _record_phases(monkeypatch, certified)
    step, taken = certified._BoundPhase.step, []

    def record(self, tolerance):
        stepped = step(self, tolerance)
        taken.append(stepped)
        return stepped

    monkeypatch.setattr(certified._BoundPhase, "step", record)
    cone, utility, pricer, exact = _envelope_case()
    options = ColumnGenerationOptions(progress=False, time_limit=60.0, gap_tolerance=1e-6)
    result = certified_column_generation(
        utility, cone, options, pricer, starting_columns(cone, None), time.perf_counter()
    )
    assert any(taken)  # a step was priced between the rounds
    assert phases == []  # never settled: the run converged in its rounds
    assert result.stopped == "converged"
    assert exact - 1e-9 <= result.upper <= exact * (1.0 + 1e-6) + 1e-9
    assert exact * (1.0 - 1e-6) - 1e-9 <= result.lower <= exact + 1e-9


def test_after_stabilised_rounds_the_bound_phase_starts_from_the_box_centre_alone(monkeypatch):
    # Made to stabilise from the first round and to settle at the third: the bound phase then starts
    # from the stabilised box's centre (the mean duals, which lost to it in every measured run, are
    # not priced), and the bound it ends with holds (weak duality against the exact optimum).
    certified = importlib.import_module("privopt.routes.pricing.certified_generation")
    _tune(monkeypatch, early_bound_fraction=0.98)
    monkeypatch.setattr(certified, "_box_due", lambda trace, best: True)
    monkeypatch.setattr(certified, "_stalled", lambda trace, growth: len(trace) >= 3)
    monkeypatch.setattr(certified, "_bound_limits", lambda trace, upper: True)
    boxes, seen = [], []
    start = certified.BoxStep.start

    def record_box(self, centre, estimate=None):
        boxes.append(self)
        return start(self, centre, estimate)

    run = certified._BoundPhase.run

    def record(self, first, tolerance, steps):
        seen.append((np.array(first), boxes[0].centre.copy()))
        return run(self, first, tolerance, steps)

    monkeypatch.setattr(certified.BoxStep, "start", record_box)
    monkeypatch.setattr(certified._BoundPhase, "run", record)
    cone, utility, pricer, exact = _envelope_case()
    options = ColumnGenerationOptions(progress=False, time_limit=30.0, stabilized_fraction=0.9)
    result = certified_column_generation(
        utility, cone, options, pricer, starting_columns(cone, None), time.perf_counter()
    )
    assert result.stopped in ("master settled", "converged")
    assert len(seen) == 1
    first, centre = seen[0]
    np.testing.assert_array_equal(first, centre)
    assert result.upper >= exact - 1e-9


def test_a_search_without_a_complete_bound_hands_the_bound_phase_its_share(monkeypatch):
    # While no search has completed a bound (here: one node, before the first round; as the 5-node
    # probes at ε = 2 on Adult), the bound phase starts at INCOMPLETE_BOUND_FRACTION of the budget (here
    # all of it) with its steps, and its bound still holds (weak duality). Once a search has completed
    # (the same pricing with the whole node budget), it does not start early: the run converges in its
    # search.
    certified = importlib.import_module("privopt.routes.pricing.certified_generation")
    _tune(monkeypatch, incomplete_bound_fraction=0.98)
    phases = _record_phases(monkeypatch, certified)
    cone, utility, pricer, exact = _envelope_case()

    def first(nodes):
        def price(self, deadline):
            self.node_budget = nodes
            self._run(0.0, np.zeros(cone.n_inputs), deadline, 0.0)
            assert self.complete == (nodes > 1)

        return price

    options = ColumnGenerationOptions(progress=False, time_limit=4.0)
    monkeypatch.setattr(certified._State, "certify_prior_free", first(options.bound_nodes))
    result = certified_column_generation(
        utility, cone, options, pricer, starting_columns(cone, None), time.perf_counter()
    )
    assert phases == []
    assert result.stopped == "converged"
    monkeypatch.setattr(certified._State, "certify_prior_free", first(1))
    result = certified_column_generation(
        utility, cone, options, pricer, starting_columns(cone, None), time.perf_counter()
    )
    assert phases == [True]
    assert result.iterations == 1
    assert result.stopped in ("time limit (no complete bound)", "converged")
    assert result.upper >= exact - 1e-9
    assert result.lower <= exact + 1e-9


def test_bound_phase_leaves_the_checker_its_time(monkeypatch):
    # A pricing starts only while the time left, less check_ratio times the best certificate's pricing
    # time (kept for the independent check), covers STEP_SHARE of that pricing time, and it must stop
    # at that reserve: with a pricing of (say) 10 s and 5 s left, nothing more is priced, and the
    # certificate stays the one found.
    cone, utility, pricer, _ = _envelope_case(exact=False)
    options = ColumnGenerationOptions(progress=False)
    master = start_master(utility, starting_columns(cone, None), 1000)
    state = _State(utility, pricer, options)
    state.evaluate(master.solve()[0], master.solve()[2], time.perf_counter() + 60.0)
    best = state.best
    state.best_seconds = 10.0
    calls = []
    monkeypatch.setattr(state, "evaluate", lambda *args, **kwargs: calls.append(args) or (np.inf, []))
    box = BoxStep(pricer.weights, scaled=True)
    phase = _BoundPhase(utility, state, master, box, time.perf_counter() + 5.0, options.max_columns)
    phase.run(master.solve()[2], 1e-6, steps=True)
    assert not calls
    assert state.best is best
    # With the same 5 s left and a pricing of 1 s (2 s kept for the check), the start is priced, to
    # stop 2 s before the phase's deadline.
    state.best_seconds = 1.0
    end = time.perf_counter() + 5.0
    phase = _BoundPhase(utility, state, master, box, end, options.max_columns)
    phase.run(master.solve()[2], 1e-6, steps=False)
    assert len(calls) == 1
    assert calls[0][2] == pytest.approx(end - pricer.traits.check_ratio * 1.0)
    # Half of step_share of a 1 s pricing left before the reserve: nothing is priced.
    left = pricer.traits.check_ratio * 1.0 + 0.5 * KNOBS.step_share
    phase = _BoundPhase(utility, state, master, box, time.perf_counter() + left, options.max_columns)
    phase.run(master.solve()[2], 1e-6, steps=False)
    assert len(calls) == 1


def test_a_coarse_certificate_is_re_proved_finer_at_the_end_of_the_bound_phase(monkeypatch):
    # A run's pricing tolerance is half its gap_tolerance of the value: with a curve's 4 % a bound may
    # sit 2 % above U at its duals, which the run keeps when its time runs out with the gap open. The
    # bound phase keeps final_reserve pricing times for re-proving its best certificate to final_share
    # of the master's value, once, stopping early only where the bound closes the gap.
    cone, utility, pricer, exact = _envelope_case()
    tight = ColumnGenerationOptions(progress=False, time_limit=60.0)
    solved = certified_column_generation(
        utility, cone, tight, pricer, starting_columns(cone, None), time.perf_counter()
    )
    assert solved.stopped == "converged"
    # The optimal duals priced to the tolerance of a run with gap_tolerance 0.1 (0.05 of the optimum),
    # beside the first basis's master, whose gap is wide open.
    options = ColumnGenerationOptions(progress=False, gap_tolerance=0.1)
    state = _State(utility, pricer, options)
    state.evaluate(solved.lower, solved.duals, time.perf_counter() + 60.0)
    coarse = state.best
    assert coarse.tolerance == pytest.approx(0.05 * solved.lower)
    # The search may stop 0.05 of the value above U (the optimum at λ*): 4.8 % here, and at least 2 %.
    assert coarse.upper > exact * 1.02
    master = start_master(utility, starting_columns(cone, None), 1000)
    value = master.solve()[0]
    assert state.refinable(value)  # its slack is above FINAL_SHARE of the value
    deadline = time.perf_counter() + 60.0
    phase = _BoundPhase(utility, state, master, BoxStep(pricer.weights, scaled=True), deadline, 100)
    kept = pricer.traits.check_ratio * state.best_seconds
    assert phase._until() == pytest.approx(deadline - kept - KNOBS.final_reserve * state.best_seconds)
    assert phase._until(final=True) == pytest.approx(deadline - kept)
    calls = []
    run = state._run

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return run(*args, **kwargs)

    monkeypatch.setattr(state, "_run", spy)
    phase._refine()
    phase._refine()  # once only
    assert len(calls) == 1
    fine = KNOBS.final_share * value
    assert calls[0]["tolerance"] == pytest.approx(fine)
    # The target would close the gap to the run's tolerance: Σλ + δ̄ <= value / (1 − 0.1).
    assert calls[0]["target"] == pytest.approx(value / 0.9 - coarse.duals.sum())
    refined = state.best
    np.testing.assert_array_equal(refined.duals, coarse.duals)
    assert refined.tolerance == pytest.approx(fine)
    assert refined.complete
    assert refined.delta - refined.lower <= fine
    assert exact - 1e-9 <= refined.upper <= exact + fine + 1e-9  # weak duality; U at λ* is the optimum
    assert check_pricing_certificate(refined, cone, utility).valid
    assert not state.refinable(value)  # and no time is kept for it any longer
    assert phase._until() == pytest.approx(deadline - pricer.traits.check_ratio * state.best_seconds)


def test_dual_average_is_the_mean_over_the_rounds_within_the_window():
    rng = np.random.default_rng(5)
    values = np.linspace(0.1, 1.0, 100)  # grows by more than a checkpoint step every round
    duals = rng.normal(size=(100, 4))
    average = DualAverage()
    for value, d in zip(values, duals, strict=True):
        average.add(float(value), d)
    recent = values >= (1.0 - DUAL_WINDOW) * values[-1]
    assert 1 < recent.sum() < 100
    np.testing.assert_allclose(average.mean(float(values[-1])), duals[recent].mean(axis=0), atol=1e-12)
    # On a plateau no new checkpoint is stored: the window runs from the last one.
    plateau = DualAverage()
    for d in duals[:10]:
        plateau.add(0.5, d)
    np.testing.assert_allclose(plateau.mean(0.5), duals[:10].mean(axis=0), atol=1e-12)
    with pytest.raises(ValueError, match="no duals"):
        DualAverage().mean(1.0)


def test_box_step_minimises_the_model_in_the_box_and_moves_only_on_a_serious_step():
    from scipy.optimize import linprog

    rng = np.random.default_rng(6)
    n, k = 4, 12
    p = rng.dirichlet(np.ones(n))
    columns, values = rng.uniform(0.1, 1.0, size=(n, k)), rng.uniform(0.0, 0.5, size=k)
    np.testing.assert_array_equal(BoxStep(p).scale, np.ones(n))  # the stabilised rounds' ∞-norm box
    box = BoxStep(p, scaled=True)
    box.add(columns, values)
    centre = rng.uniform(0.0, 0.3, size=n)
    box.start(centre)
    # The exact steps' box is measured in units of the normalisation: its half-width on x is D·n·p_x.
    np.testing.assert_allclose(box.scale, n * p, rtol=1e-12)
    # Û(λ) = 1ᵀλ + max(0, max_k (μ_k − λᵀw_k)/pᵀw_k), computed directly.
    scaled = values / (p @ columns)
    direct = centre.sum() + max(0.0, float(np.max(scaled - centre @ (columns / (p @ columns)))))
    assert box.estimate == pytest.approx(direct, abs=1e-12)
    point, predicted = box.point()
    # The same LP by scipy: min 1ᵀλ + r, λᵀw̃_k + r >= μ̃_k, |λ − centre| <= radius, r >= 0.
    cuts = columns / (p @ columns)
    lp = linprog(
        np.ones(n + 1),
        A_ub=-np.vstack([cuts, np.ones(k)]).T,
        b_ub=-scaled,
        bounds=[
            (c - INITIAL_RADIUS * n * q, c + INITIAL_RADIUS * n * q) for c, q in zip(centre, p, strict=True)
        ]
        + [(0.0, None)],
    )
    assert predicted == pytest.approx(lp.fun, abs=1e-9)
    assert box.model(point) == pytest.approx(predicted, abs=1e-9)  # r is folded into λ along p
    assert predicted < box.estimate  # so, with no new cut, the step is serious
    box.update(point, predicted)
    assert box.serious == 1
    np.testing.assert_array_equal(box.centre, point)
    assert box.radius == pytest.approx(INITIAL_RADIUS * GROW)
    # A cut that the next point violates by far makes a null step: the centre stays, the box shrinks.
    centre = box.centre.copy()
    point, predicted = box.point()
    assert not np.allclose(point, centre)
    column = rng.uniform(0.1, 1.0, size=n)
    box.add(column[:, None], np.array([point @ column + 1.0]))
    box.update(point, predicted)
    assert box.serious == 1
    np.testing.assert_array_equal(box.centre, centre)
    assert box.radius == pytest.approx(INITIAL_RADIUS * GROW * SHRINK)
    # A failed LP is a SolverError, never a stale point.
    import highspy

    box.highs.getModelStatus = lambda: highspy.HighsModelStatus.kSolveError
    with pytest.raises(po.SolverError, match="box-step LP"):
        box.point()


def test_the_stabilised_box_is_at_most_a_few_mean_duals_wide():
    # Where the model's value at the centre over the inputs (the mean dual) is small, the stabilised
    # rounds' ∞-norm box and its floor shrink to MEAN_DUAL_RADII mean duals; elsewhere they keep
    # their absolute radii.
    rng = np.random.default_rng(8)
    n = 6
    p = rng.dirichlet(np.ones(n))
    columns = rng.uniform(0.1, 1.0, size=(n, 10))
    for size in (1e-3, 10.0):
        values = size * rng.uniform(0.5, 1.0, size=10)
        box = BoxStep(p)
        box.add(columns, values)
        box.start(np.zeros(n))
        estimate = float(np.max(values / (p @ columns)))  # Û at λ = 0, computed directly
        assert box.estimate == pytest.approx(estimate, rel=1e-12)
        share = min(1.0, MEAN_DUAL_RADII * estimate / (n * INITIAL_RADIUS))
        assert (share < 1.0) == (size < 1.0)
        box.point()
        lp = box.highs.getLp()
        np.testing.assert_allclose(np.asarray(lp.col_upper_)[:n], INITIAL_RADIUS * share, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(lp.col_lower_)[:n], -INITIAL_RADIUS * share, rtol=1e-12)
        for _ in range(40):  # null steps, down to the floor
            box.update(np.zeros(n), box.estimate, np.inf)
        box.point()
        lp = box.highs.getLp()
        np.testing.assert_allclose(np.asarray(lp.col_upper_)[:n], MIN_RADIUS * share, rtol=1e-12)
        box.start(np.zeros(n), estimate=np.inf)  # started again without a value: no cap, none kept
        np.testing.assert_array_equal(box.scale, np.ones(n))


def test_the_box_step_cut_pool_stays_bounded_and_keeps_the_model_at_its_centre():
    from scipy.optimize import linprog

    rng = np.random.default_rng(7)
    n = 4
    p = rng.dirichlet(np.ones(n))
    box = BoxStep(p)
    assert box.max_cuts == MIN_CUTS
    centre = rng.uniform(0.0, 0.3, size=n)
    seen_columns, seen_values = [], []
    for batch in range(30):  # 30 rounds of 300 cuts: 9,000 in all, far above the cap
        columns, values = rng.uniform(0.1, 1.0, size=(n, 300)), rng.uniform(0.0, 0.5, size=300)
        box.add(columns, values)
        seen_columns.append(columns)
        seen_values.append(values)
        if batch == 0:
            box.start(centre)
        assert box.values.size <= box.max_cuts
        assert box.highs.getNumRow() == box.values.size  # the LP holds exactly the kept cuts
    every, mu = np.hstack(seen_columns), np.concatenate(seen_values)
    scaled = every / (p @ every)
    # The tightest cut at the centre is kept, so the model's value there is that of all 9,000 cuts.
    direct = centre.sum() + max(0.0, float(np.max(mu / (p @ every) - centre @ scaled)))
    assert box.model(centre) == pytest.approx(direct, abs=1e-12)
    # The box LP is still the model's minimiser over the cuts it keeps.
    _, predicted = box.point()
    k = box.values.size
    lp = linprog(
        np.ones(n + 1),
        A_ub=-np.vstack([box.cuts, np.ones(k)]).T,
        b_ub=-box.values,
        bounds=[(c - box.radius * h, c + box.radius * h) for c, h in zip(box.centre, box.scale, strict=True)]
        + [(0.0, None)],
    )
    assert predicted == pytest.approx(lp.fun, abs=1e-9)
    # Every prune keeps the half of the cuts tightest at the centre, so the tightest max_cuts / 2 of all
    # the cuts ever added are still there.
    tightness = mu / (p @ every) - centre @ scaled
    best = np.sort(tightness)[::-1][: box.max_cuts // 2]
    kept = np.sort(box.values - centre @ box.cuts)[::-1][: box.max_cuts // 2]
    np.testing.assert_allclose(kept, best, atol=1e-12)


def test_stabilized_rounds_reach_the_exact_optimum_with_a_certificate(monkeypatch):
    # Every round stabilised (the phase spans the whole search): the run must still reach the vertex
    # route's optimum and certify it.
    from privopt.routes.pricing import stabilization

    updates = []
    update = stabilization.BoxStep.update

    def counting(self, point, predicted):
        updates.append(predicted)
        update(self, point, predicted)

    monkeypatch.setattr(stabilization.BoxStep, "update", counting)
    F = random_ball(np.random.default_rng(3), (3, 3), 1000)
    options = {"progress": False, "bound_fraction": 0.1, "stabilized_fraction": 0.9}
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen=options)
    exact = (
        po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), backend="ppl")
        .solve(route="vertex")
        .value
    )
    solution = problem.solve(route="colgen")
    assert updates  # stabilised rounds ran
    assert solution.stats.stopped == "converged"
    assert solution.upper >= exact - 1e-9 >= solution.lower - 2e-9
    assert solution.gap <= 1e-4
    assert solution.certificate.checked
    assert po.check_certificate(problem, solution).valid


def test_stabilised_rounds_wait_for_the_master_to_stall():
    # The value at 75 s (the start of the last quarter of a 100 s run) against the last one.
    rising = [(0.0, 0.1), (50.0, 0.4), (75.0, 0.5), (100.0, 0.5 * (1.0 + 2.0 * STALL_GROWTH))]
    assert not _stalled(rising, STALL_GROWTH)
    flat = [*rising[:3], (90.0, 0.5), (100.0, 0.5 * (1.0 + 0.5 * STALL_GROWTH))]
    assert _stalled(flat, STALL_GROWTH)
    assert _stalled([(0.3, 0.2)], STALL_GROWTH)  # a single solve has not grown


def test_a_master_rising_at_the_rate_of_the_gap_has_not_settled():
    # The bound phase starts early only where the bound keeps the gap open: the master's rise over the
    # last quarter of the run (75 s to 100 s here) is at most settled_gap_share of the gap left.
    share = KNOBS.settled_gap_share
    for factor, settled in ((0.9, True), (1.1, False)):
        trace = [(0.0, 0.1), (75.0, 0.5), (100.0, 0.5 + factor * share * 0.01)]
        assert _bound_limits(trace, trace[-1][1] + 0.01) == settled
    assert _bound_limits([(0.0, 0.1), (75.0, 0.5), (100.0, 0.6)], np.inf)  # nothing certified yet
    assert not _bound_limits([(0.0, 0.1), (75.0, 0.5), (100.0, 0.6)], 0.6)  # rising, the gap closed


def test_stabilised_rounds_do_not_start_once_exact_rounds_have_certified():
    # Where the local search gets stuck the exact rounds (stabilised by Wentges smoothing) run
    # instead: a stalled master with a certificate from them keeps pricing at its own duals.
    F = random_ball(np.random.default_rng(3), (3, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen={"progress": False})
    cone, utility = problem.compile().cone, problem.utility
    certificate = column_generation(utility, cone, ColumnGenerationOptions(progress=False)).certificate
    assert certificate is not None
    flat = [(0.0, 0.5), (100.0, 0.5)]
    assert _box_due(flat, None)
    assert not _box_due(flat, certificate)
    assert not _box_due([(0.0, 0.1), (100.0, 0.5)], None)  # still rising


@pytest.mark.parametrize(
    "build",
    [
        lambda F: po.SensitiveLDP(1.0, F),
        lambda F: po.SensitiveLDP(0.0, F),
        lambda F: po.LIP(1.0, F),
        lambda F: po.LDP(0.7),
        lambda F: po.MetricLDP(0.3, np.abs(np.subtract.outer(np.arange(9), np.arange(9))).astype(float)),
    ],
)
def test_the_starting_basis_steps_as_far_as_the_expanded_rows_allow(build):
    # The largest step is read off pairs of group vectors; the cone's expanded rows r = a − F·b give it
    # directly: min over rows and entries with r_x > g = rᵀu of −g/(r_x − g).
    from privopt.routes.colgen import _STEP_MARGIN, _largest_step

    F = random_ball(np.random.default_rng(21), (3, 3), 1000)
    cone = po.Problem(build(F), po.MutualInformation(F.center), self_pairs=False).get_problem_data().cone
    u = np.full(cone.n_inputs, 1.0 / cone.n_inputs)
    rows = cone.matrix().toarray()
    g = np.minimum(rows @ u, 0.0)[:, None]
    capped = rows > g
    expected = min(1.0, float(np.min((-g / np.where(capped, rows - g, 1.0))[capped], initial=1.0)))
    assert _largest_step(cone, u) == pytest.approx(expected * (1.0 - _STEP_MARGIN), rel=1e-12, abs=1e-15)
    step = _largest_step(cone, u)
    basis = (1.0 - step) * u[:, None] + step * np.eye(cone.n_inputs)
    assert cone.violation(basis) <= 1e-12
    if 0.0 < step < 0.5:  # and it is the largest: a step 0.1 % longer leaves the cone
        longer = 1.001 * step
        assert cone.violation((1.0 - longer) * u[:, None] + longer * np.eye(cone.n_inputs)) > 1e-9
