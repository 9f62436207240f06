"""The LP route for affine utilities and the implied pairs it leaves out (docs/compiler.md, "Linear
utilities"): against the cvxpy route, against LPs written here over every pair, and faults injected."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy.optimize import linprog

import privopt as po
from privopt.certificates import LinearBound, bound_from_dict, check_bound
from privopt.compiler import implied as implied_module
from privopt.compiler.implied import implied_blocks, pair_endpoints
from privopt.routes import linear_program as linear_program_module
from privopt.routes.colgen_options import relative_gap
from privopt.tolerances import LP_FACTOR_CAP, ZERO_OPTIMUM_ATOL

#: Two routes' optima agree to this (relative to max(1, |value|)): both are certified to 1e-6 or better.
ROUTES_RTOL = 1e-6


def _grid(n: int, metric: str) -> np.ndarray:
    points = np.array([(i, j) for i in range(n) for j in range(n)], dtype=float)
    difference = np.abs(points[:, None, :] - points[None, :, :])
    return np.sqrt((difference**2).sum(-1)) if metric == "euclidean" else difference.sum(-1)


def _cone(definition: po.PrivacyDefinition, n: int):
    return po.Problem(definition, po.ExpectedGain(np.full(n, 1.0 / n), np.eye(n))).get_problem_data().cone


def _kept_pairs(cone) -> set[tuple[int, int]]:
    blocks, a, b, _ = pair_endpoints(cone)
    implied = implied_blocks(cone)
    return {(int(x), int(y)) for index, x, y in zip(blocks, a, b, strict=True) if not implied[index]}


# ----------------------------------------------------------------- implied pairs
def test_a_manhattan_grid_keeps_the_four_neighbours_and_a_path_its_consecutive_inputs():
    kept = _kept_pairs(_cone(po.MetricLDP(0.5, _grid(4, "manhattan")), 16))
    points = [(i, j) for i in range(4) for j in range(4)]
    neighbours = {
        (a, b)
        for a, p in enumerate(points)
        for b, q in enumerate(points)
        if abs(p[0] - q[0]) + abs(p[1] - q[1]) == 1
    }
    assert kept == neighbours
    line = np.abs(np.subtract.outer(np.arange(6), np.arange(6))).astype(float)
    assert _kept_pairs(_cone(po.MetricLDP(0.5, line), 6)) == {
        (a, b) for a in range(6) for b in range(6) if abs(a - b) == 1
    }


def test_a_euclidean_grid_keeps_the_pairs_with_no_lattice_point_between_them():
    # d(x, z) = d(x, y) + d(y, z) only for y on the segment [x, z]: a lattice point inside it exists
    # exactly when gcd(|dx|, |dy|) > 1.
    n = 5
    kept = _kept_pairs(_cone(po.MetricLDP(0.5, _grid(n, "euclidean")), n * n))
    points = [(i, j) for i in range(n) for j in range(n)]
    expected = {
        (a, b)
        for a, p in enumerate(points)
        for b, q in enumerate(points)
        if a != b and math.gcd(abs(p[0] - q[0]), abs(p[1] - q[1])) == 1
    }
    assert kept == expected


def _slice_maximum(rows: list[tuple[int, int, float]], n: int, objective: np.ndarray) -> float:
    """``max gᵀw`` over ``{w >= 0, Σw = 1, w_a <= e^L w_b}`` by scipy, from the rows given."""
    a_ub = np.zeros((len(rows), n))
    for r, (a, b, length) in enumerate(rows):
        a_ub[r, a], a_ub[r, b] = 1.0, -math.exp(length)
    result = linprog(
        -objective, A_ub=a_ub if rows else None, b_ub=np.zeros(len(rows)) if rows else None,
        A_eq=np.ones((1, n)), b_eq=[1.0], bounds=(0, None), method="highs",
    )  # fmt: skip
    assert result.status == 0
    return float(-result.fun)


@pytest.mark.parametrize("seed", range(6))
def test_leaving_out_the_implied_pairs_keeps_the_cone(seed):
    # Random metrics (points in the plane), per-input budgets (levels min(ε_a, ε_b): ID-LDP) and sparse
    # policy graphs with random levels: every linear function has the same maximum over the slice with
    # every pair and with the kept ones only (an independent LP over each row set).
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    kind = seed % 3
    if kind == 0:
        points = rng.random((n, 2))
        levels = np.sqrt(((points[:, None] - points[None]) ** 2).sum(-1)) * 3.0
    elif kind == 1:
        budgets = rng.uniform(0.2, 2.0, n)
        levels = np.minimum.outer(budgets, budgets)
    else:
        levels = rng.uniform(0.1, 1.5, (n, n))
        levels = (levels + levels.T) / 2
        levels[rng.random((n, n)) < 0.4] = np.inf  # not a pair of the policy
        levels = np.minimum(levels, levels.T)
    np.fill_diagonal(levels, 0.0)
    pairs = [
        (a, b, float(levels[a, b]))
        for a in range(n)
        for b in range(n)
        if a != b and np.isfinite(levels[a, b])
    ]
    definition = po.RatioConstraints(
        [(po.given(x=a), po.given(x=b), length) for a, b, length in pairs], eps=1.0
    )
    cone = _cone(definition, n)
    blocks, left, right, lengths = pair_endpoints(cone)
    implied = implied_blocks(cone)
    assert blocks.size == len(pairs)
    kept = [
        (int(a), int(b), float(length))
        for index, a, b, length in zip(blocks, left, right, lengths, strict=True)
        if not implied[index]
    ]
    for _ in range(5):
        objective = rng.normal(size=n)
        full = _slice_maximum(pairs, n, objective)
        assert _slice_maximum(kept, n, objective) == pytest.approx(full, rel=1e-9, abs=1e-9)


def test_pairs_of_length_zero_never_drop_each_other():
    # At ε = 0 every pair has length 0 (w_a = w_b): chaining through another input proves nothing
    # shorter, so every pair is kept, and the LP's design is the constant mechanism.
    d = _grid(3, "manhattan")
    cone = _cone(po.MetricLDP(0.0, d), 9)
    assert not implied_blocks(cone).any()
    prior = np.random.default_rng(1).dirichlet(np.ones(9))
    solution = po.Problem(po.MetricLDP(0.0, d), po.ExpectedDistortion(prior, d)).solve(route="lp")
    assert solution.status is po.Status.OPTIMAL
    matrix = solution.mechanism.matrix
    np.testing.assert_allclose(matrix, np.broadcast_to(matrix[0], matrix.shape), atol=1e-9)


# ----------------------------------------------------------------- the route
def _instances() -> list[tuple[str, po.Problem]]:
    rng = np.random.default_rng(7)
    P = po.JointDistribution(rng.dirichlet(np.ones(6)).reshape(2, 3))
    ball = po.RenyiBall.confidence(
        po.JointDistribution.from_counts(rng.multinomial(300, P.probabilities.ravel()).reshape(2, 3) + 1)
    )
    d = _grid(3, "euclidean")
    prior = rng.dirichlet(np.ones(9))
    points = rng.random((5, 2))
    metric = np.sqrt(((points[:, None] - points[None]) ** 2).sum(-1)) * 4.0
    affine = po.ConcaveUtility(
        lambda W: 2.0 * W[0, 1] - W[3, 0] + 0.5, n_outputs=2, input_size=6, name="a user's affine utility"
    )
    return [
        ("LDP, gain", po.Problem(po.LDP(0.8), po.ExpectedGain(P.p_x, rng.random((6, 4))))),
        ("LDP w.r.t. S, point, distortion", po.Problem(po.SensitiveLDP(1.0, P), po.ExpectedDistortion(P.p_x))),
        ("LDP w.r.t. S, Rényi ball, gain", po.Problem(po.SensitiveLDP(1.0, ball), po.ExpectedGain(P.p_x, np.eye(6)))),
        ("grid metric, distortion", po.Problem(po.MetricLDP(0.5, d), po.ExpectedDistortion(prior, d))),
        ("random metric, distortion", po.Problem(po.MetricLDP(0.7, metric), po.ExpectedDistortion(np.full(5, 0.2), metric))),
        ("LIP, a user's affine utility", po.Problem(po.LIP(1.0, P), affine)),
    ]  # fmt: skip


@pytest.mark.parametrize("solver", ["HIGHS", "CLARABEL"])
def test_the_lp_route_agrees_with_the_cvxpy_route_and_is_certified(solver):
    for name, problem in _instances():
        assert problem.plan()[0] == "lp", name
        linear = problem.solve(route="lp", solver=solver)
        conic = problem.solve(route="cvxpy")
        assert linear.route == "lp"
        assert linear.status is po.Status.OPTIMAL, (name, linear.reason)
        assert linear.certificate.checked, (name, linear.certificate.checked_by)
        assert linear.certificate.audit.satisfied, name
        assert linear.value == pytest.approx(conic.value, rel=ROUTES_RTOL, abs=ROUTES_RTOL), name
        assert isinstance(linear.certificate.bound, LinearBound)
        again = po.check_certificate(problem, linear)
        assert again.valid, (name, again.reason)


def test_pdlp_asked_for_is_certified_and_its_design_is_repaired_into_the_cone():
    # HiGHS's first-order method to its tolerance on the pair cones: the repair keeps the value, the
    # design passes the audit and the bound the independent check. Other cones (lifted Rényi blocks, LDP
    # w.r.t. S's weighted rows, LDP's lifted block) are refused by name.
    pair_cones = ("grid metric, distortion", "random metric, distortion")
    for name, problem in _instances():
        if name not in pair_cones:
            with pytest.raises(po.ValidationError, match="'PDLP' needs a cone of single-input pairs"):
                problem.solve(route="lp", solver="PDLP")
            continue
        exact = problem.solve(route="lp")
        first = problem.solve(route="lp", solver="PDLP")
        assert "PDLP" in first.reason, name
        assert first.certificate.checked, (name, first.certificate.checked_by)
        assert first.certificate.audit.satisfied, name
        assert first.value <= exact.value + ROUTES_RTOL * max(1.0, abs(exact.value)), name
        assert first.status in (po.Status.OPTIMAL, po.Status.OPTIMAL_WITHIN_GAP), (name, first.reason)
        assert first.value == pytest.approx(exact.value, rel=1e-5, abs=1e-5), name


def test_auto_solves_a_large_lp_on_a_pair_cone_by_pdlp(monkeypatch: pytest.MonkeyPatch) -> None:
    d = _grid(5, "manhattan")
    prior = np.random.default_rng(4).dirichlet(np.ones(25))
    problem = po.Problem(po.MetricLDP(0.5, d), po.ExpectedDistortion(prior, d))
    exact = problem.solve()
    assert "PDLP" not in exact.reason
    monkeypatch.setattr(linear_program_module, "FIRST_ORDER_VARIABLES", 24 * 25)
    first = problem.solve()
    assert first.route == "lp"
    assert "PDLP" in first.reason
    assert first.status is po.Status.OPTIMAL, first.reason
    assert first.certificate.checked
    assert first.value == pytest.approx(exact.value, rel=1e-6)


def test_pdlp_stopped_by_the_time_limit_returns_its_repaired_design_and_checked_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # PDLP stopped after a few iterations: the design is still a mechanism of the cone and the bound is
    # still proved (any multipliers >= 0 bound the LP); the status says the limit was reached.
    import highspy

    real = linear_program_module.new_highs

    def few_iterations() -> highspy.Highs:
        highs = real()
        highs.setOptionValue("pdlp_iteration_limit", 50)
        return highs

    monkeypatch.setattr(linear_program_module, "new_highs", few_iterations)
    d = _grid(6, "manhattan")
    prior = np.random.default_rng(5).dirichlet(np.ones(36))
    solution = po.Problem(po.MetricLDP(0.5, d), po.ExpectedDistortion(prior, d)).solve(
        route="lp", solver="PDLP"
    )
    assert "stopped at the time limit" in solution.reason
    assert solution.status is po.Status.LIMIT_REACHED
    assert solution.certificate.checked
    assert solution.certificate.audit.satisfied
    assert solution.lower < solution.upper


def test_the_sparse_certificate_survives_json_and_is_proved_again():
    _, problem = _instances()[3]
    solution = problem.solve(route="lp")
    bound = solution.certificate.bound
    back = bound_from_dict(bound.to_dict())
    assert back.upper == bound.upper
    assert (back.cone_duals != bound.cone_duals).nnz == 0
    cone = problem.get_problem_data().cone
    check = check_bound(cone, problem.utility, back, mechanism=solution.mechanism.matrix)
    assert check.valid, check.reason


def test_a_pair_wrongly_left_out_is_caught_by_the_audit(monkeypatch):
    # The reduction made to drop a pair that is not implied (every pair of w[0]): the LP is then a
    # relaxation whose optimum leaks through that pair, and the independent audit refuses the design.
    d = _grid(3, "manhattan")
    prior = np.random.default_rng(2).dirichlet(np.ones(9))
    real = implied_module.implied_blocks

    def wrong(cone):
        implied = real(cone).copy()
        blocks, a, _, _ = pair_endpoints(cone)
        implied[blocks[a == 0]] = True
        return implied

    import privopt.routes.linear_program as route_module

    monkeypatch.setattr(route_module, "implied_blocks", wrong)
    with pytest.raises(po.SolverError, match="fails its own audit"):
        po.Problem(po.MetricLDP(0.5, d), po.ExpectedDistortion(prior, d)).solve(route="lp")


def test_solver_names_and_limits():
    _, problem = _instances()[0]
    with pytest.raises(
        po.ValidationError, match="solver: expected one of 'HIGHS', 'CLARABEL', 'PDLP' on the lp route"
    ):
        problem.solve(route="lp", solver="ECOS")
    assert problem.solve(solver="ECOS").route == "cvxpy"  # a cvxpy solver asked for: auto takes cvxpy
    with pytest.raises(po.ValidationError, match="affine in the mechanism on the lp route"):
        po.Problem(po.LDP(1.0), po.MutualInformation(np.full(3, 1 / 3))).solve(route="lp")
    d = _grid(6, "euclidean")
    tiny = po.Problem(
        po.MetricLDP(0.5, d), po.ExpectedDistortion(np.full(36, 1 / 36), d), memory_limit="200 KiB"
    )
    with pytest.raises(po.LimitError, match="more than the memory limit of 200 KiB"):
        tiny.solve(route="lp")  # not even the cone fits: a LimitError, not an allocation failure


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("cap", ["default", "none"])
def test_a_badly_scaled_lp_is_solved(seed: int, cap: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # ε·d = 30 between neighbours of a path (factors e^30 ≈ 1e13 in each row). By default those rows are
    # left out of the LP (above LP_FACTOR_CAP) and the design is moved into them; with every row in the
    # LP, Clarabel, which the route picks for so sparse a cone, stops with InsufficientProgress, which was
    # a SolverError (fuzzing), and HiGHS solves it instead. Every deterministic release is within e^-30 of
    # the cone, so the optimum is Σ_x p_x max_y g[x, y] to ~1e-12.
    if cap == "none":
        monkeypatch.setattr(linear_program_module, "LP_FACTOR_CAP", np.inf)
    rng = np.random.default_rng(seed)
    n = 6
    d = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
    gain = rng.uniform(0.0, 1.0, size=(n, n)) - d
    prior = rng.dirichlet(np.ones(n))
    solution = po.Problem(po.MetricLDP(30.0, d), po.ExpectedGain(prior, gain)).solve(route="lp")
    expected = "left out of the LP" if cap == "default" else "HiGHS solved the LP instead"
    assert expected in solution.reason
    assert solution.status is po.Status.OPTIMAL
    assert solution.value == pytest.approx(float(prior @ gain.max(axis=1)), rel=1e-9)
    assert solution.certificate.audit_passed


def test_clarabel_asked_for_and_failing_names_the_remedies(monkeypatch: pytest.MonkeyPatch) -> None:
    # The badly scaled path above with every row in the LP: Clarabel stops short (InsufficientProgress);
    # asked for by name it does not fall back, and the error says what would solve it.
    monkeypatch.setattr(linear_program_module, "LP_FACTOR_CAP", np.inf)
    rng = np.random.default_rng(0)
    n = 6
    d = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
    gain = rng.uniform(0.0, 1.0, size=(n, n)) - d
    problem = po.Problem(po.MetricLDP(30.0, d), po.ExpectedGain(rng.dirichlet(np.ones(n)), gain))
    with pytest.raises(po.SolverError, match="Remedies: solver='HIGHS'"):
        problem.solve(route="lp", solver="CLARABEL")
    assert problem.solve(route="lp", solver="HIGHS").status is po.Status.OPTIMAL


def test_a_matrix_that_is_not_a_metric_is_its_shortest_path_closure():
    # MetricLDP takes any positive levels on purpose: a pair longer than a chain is implied by it, so the
    # problem equals the one over the closure of d (here d(0,2) = 5 > d(0,1) + d(1,2) = 2, asymmetric
    # entries, and an absent pair), on both the LP route and the vertex route.
    from scipy.sparse.csgraph import shortest_path

    d = np.array([[0, 1, 5, np.inf], [1, 0, 1, 2], [4, 1, 0, 1], [np.inf, 3, 1, 0]], dtype=float)
    closure = shortest_path(np.where(np.isfinite(d), d, 0.0), directed=True)
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    for utility in (po.ExpectedDistortion(prior, closure), po.MutualInformation(prior)):
        given = po.Problem(po.MetricLDP(0.7, d), utility).solve()
        closed = po.Problem(po.MetricLDP(0.7, closure), utility).solve()
        assert given.status is po.Status.OPTIMAL
        assert given.value == pytest.approx(closed.value, rel=1e-9, abs=1e-12)
        assert po.audit(given.mechanism, po.MetricLDP(0.7, closure)).satisfied


def test_an_lp_beyond_the_memory_budget_is_solved_by_column_generation_over_its_pieces():
    # 3 MiB holds the compiled cone and column generation's master, not the LP over 36 outputs: the route
    # prices one LP per output over the slice instead, certifies its bound (the checker's piecewise method
    # on the utility's pieces view), and merges the design's columns into 36 labelled outputs.
    d = po.Grid(6, 6).distances("manhattan")
    prior = np.random.default_rng(0).dirichlet(np.ones(36))
    utility = po.ExpectedDistortion(prior, d)
    flat = po.Problem(po.MetricLDP(0.5, d), utility).solve(route="lp")
    tight = po.Problem(po.MetricLDP(0.5, d), utility, memory_limit="3 MiB", colgen={"progress": False})
    solution = tight.solve(route="lp")
    assert "column generation over its pieces" in solution.reason
    assert solution.mechanism.matrix.shape == (36, 36)
    assert solution.status is po.Status.OPTIMAL, solution.reason
    assert solution.certificate.checked
    assert "piecewise-linear utility" in solution.certificate.checked_by
    assert solution.value == pytest.approx(flat.value, rel=1e-7)
    assert solution.value == pytest.approx(utility.value(solution.mechanism), rel=1e-12)
    assert po.audit(solution.mechanism, po.MetricLDP(0.5, d)).satisfied


def test_metric_ldp_leaves_the_callers_distances_writable():
    # MetricLDP froze the array it was given (np.asarray kept it, setflags made it read-only), so a
    # caller's next `np.fill_diagonal(d, 0)` raised "assignment destination is read-only" (fuzzing).
    d = np.abs(np.subtract.outer(np.arange(3), np.arange(3))).astype(float)
    definition = po.MetricLDP(1.0, d)
    d[0, 1] = 5.0
    assert definition.distances[0, 1] == 1.0
    assert not definition.distances.flags.writeable


@pytest.mark.parametrize(
    "problem",
    [
        # A one-hot prior: the constant mechanism reporting its location loses nothing.
        lambda: po.Problem(
            po.MetricLDP(0.5, po.Grid(3, 3).distances("euclidean")),
            po.ExpectedDistortion(np.eye(9)[4], po.Grid(3, 3).distances("euclidean")),
        ),
        # ε = 0: every column is constant, and a centred gain averages to 0 on each.
        lambda: po.Problem(po.LDP(0.0), po.ExpectedGain(np.full(4, 0.25), np.eye(4) - 0.25)),
    ],
)
def test_an_optimum_of_zero_is_optimal(problem: Any) -> None:
    """At an optimum of 0 the relative gap is undefined: bounds within ``ZERO_OPTIMUM_ATOL`` of 0 close
    it (an upper bound of 3.7e-10 was reported ``feasible`` with a gap of 1)."""
    solution = problem().solve()
    assert abs(solution.value) <= ZERO_OPTIMUM_ATOL
    assert 0.0 <= solution.upper <= ZERO_OPTIMUM_ATOL
    assert solution.status is po.Status.OPTIMAL
    assert solution.gap == 0.0
    assert solution.certificate.checked


def test_the_relative_gap_near_zero() -> None:
    """Both bounds near 0 close the gap; one bound away from 0 keeps the ratio."""
    assert relative_gap(0.0, 0.5 * ZERO_OPTIMUM_ATOL) == 0.0
    assert relative_gap(-0.5 * ZERO_OPTIMUM_ATOL, 0.5 * ZERO_OPTIMUM_ATOL) == 0.0
    assert relative_gap(0.0, 1e-6) == pytest.approx(1.0)
    assert relative_gap(0.9, 1.0) == pytest.approx(0.1)
    assert relative_gap(0.0, np.inf) == np.inf


def _exponential_mechanism(d: np.ndarray, eps: float) -> np.ndarray:
    """``W[x, y] ∝ e^{−ε d(x, y) / 2}`` (rows normalised): ε·d-private for a metric ``d`` (each factor and
    the normaliser's ratio contribute at most ``e^{ε d(x, x') / 2}``), a floor under the optimum."""
    W = np.exp(-0.5 * eps * (d - d.min(axis=1, keepdims=True)))
    return W / W.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(
    ("d", "eps", "prior", "loss_power"),
    [
        # A 2×2 grid of step 3 at ε = 30: factors up to e^127 (HiGHS: "Solve error" before).
        (po.Grid(2, 2, step=3.0).distances("euclidean"), 30.0, np.array([0.97, 0.01, 0.01, 0.01]), 2),
        # 10 random points at ε = 10: a design 90 times below the optimum with a bound of 1.5e5 before.
        (
            np.linalg.norm(
                (p := np.random.default_rng(3).uniform(0.0, 5.0, (10, 2)))[:, None] - p[None], axis=2
            ),
            10.0,
            np.random.default_rng(4).dirichlet(np.ones(10)),
            1,
        ),
    ],
)
def test_pairs_with_extreme_factors_are_left_out_of_the_lp_and_met_by_the_design(
    d: np.ndarray, eps: float, prior: np.ndarray, loss_power: int
) -> None:
    """Rows ``w_a <= e^{ε d} w_b`` with ``e^{ε d}`` above ``LP_FACTOR_CAP`` are left out of the LP (a
    relaxation: its multipliers still bound the optimum) and the design is moved into them: the bound is
    checked, the design passes an audit written here, and it loses at most what the move can cost. Each
    column moves towards the uniform one by ``t <= n / (F − 1)`` of its mass (``into_cone``: a row
    ``a − F b`` needs ``t (F − 1) / n >= v_a``), which changes its value by at most ``2 t max|C|`` per
    unit of mass, and the masses add up to ``n``."""
    loss = d**loss_power
    n = d.shape[0]
    solution = po.Problem(po.MetricLDP(eps, d), po.ExpectedDistortion(prior, loss)).solve()
    assert "left out of the LP" in solution.reason
    assert solution.certificate.checked
    W = solution.mechanism.matrix
    assert np.all(W > 0.0)  # finite levels: a zero beside a positive entry is an infinite ratio
    ratios = np.log(W[:, None, :]) - np.log(W[None, :, :])
    assert np.all(ratios <= eps * d[:, :, None] * (1.0 + 1e-9) + 1e-9)
    move = 3.0 * n**2 / LP_FACTOR_CAP * float(np.max(prior[:, None] * loss)) + 1e-9
    assert solution.upper - solution.value <= move
    floor = -float(np.sum(prior[:, None] * _exponential_mechanism(d, eps) * loss))
    assert solution.value >= floor - move
