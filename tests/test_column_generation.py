"""Column generation (``route="colgen"``): values against exact enumeration, valid upper bounds,
budgets, early stops and solver failures (issue 8)."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt.certificates import SliceBound, TheoremBound
from privopt.routes.colgen import ColumnGenerationOptions, RestrictedMaster
from privopt.routes.colgen_route import column_generation
from privopt.routes.pricing.slice_lp import SliceLP
from privopt.routes.theorem_bounds import chain_rule_bound, ldp_mutual_information_max
from tests.test_independent_reporting import random_ball

#: Options shared by the comparisons: a small node budget keeps the bound quick (it stays valid).
FAST = {"progress": False, "bound_nodes": 200, "time_limit": 10.0}
SHAPES = [(3, 3), (2, 5), (3, 4)]


def _compare_with_exact(problem: po.Problem) -> tuple[float, float, po.Solution]:
    exact = problem.solve(route="vertex")
    heuristic = problem.solve(route="colgen")
    assert heuristic.certificate.audit_passed, heuristic.certificate.audit
    return exact.value, heuristic.value, heuristic


def _check(exact: float, solution: po.Solution, label: object) -> None:
    lower, upper = solution.lower, solution.upper
    assert lower == pytest.approx(solution.value, rel=1e-9, abs=1e-12), label
    # Within 0.5% of the exact optimum, never above it (it is a feasible mechanism) ...
    assert exact * (1 - 5e-3) <= solution.value <= exact * (1 + 1e-9) + 1e-12, (label, exact, solution.value)
    # ... and the reported upper bound is valid: >= the exact optimum.
    assert upper >= exact * (1 - 1e-9) - 1e-12, (label, exact, upper)
    assert solution.gap == pytest.approx(max(0.0, (upper - lower) / upper), abs=1e-12)


def _instances(rng: np.random.Generator, count: int):
    for trial in range(count):
        shape = SHAPES[trial % len(SHAPES)]
        F = random_ball(rng, shape, int(rng.choice([200, 1000, 5000])))
        yield trial, F, float(rng.uniform(0.3, 3.0))


def _rldp_problem(F: po.RenyiBall, eps: float, seed: int) -> po.Problem:
    return po.Problem(po.SensitiveLDP(eps, F), po.MutualInformation(F.center), colgen={**FAST, "seed": seed})


def test_colgen_matches_exact_enumeration_on_small_instances(rng):
    # The default-suite share of the 21-instance check below: 3×3 and 2×5 only (quick to enumerate).
    rng_small = np.random.default_rng(7)
    for trial in range(6):
        shape = SHAPES[trial % 2]
        F = random_ball(rng_small, shape, int(rng_small.choice([200, 1000, 5000])))
        eps = float(rng_small.uniform(0.3, 3.0))
        exact, _, solution = _compare_with_exact(_rldp_problem(F, eps, trial))
        _check(exact, solution, (trial, shape, eps))


@pytest.mark.slow
def test_colgen_within_half_a_percent_on_21_seeded_instances(rng):
    # Issue 8: >= 20 seeded instances where enumeration finishes (3×3, 2×5, 3×4).
    shortfalls = []
    for trial, F, eps in _instances(rng, 21):
        exact, value, solution = _compare_with_exact(_rldp_problem(F, eps, trial))
        _check(exact, solution, (trial, F.shape, eps))
        shortfalls.append((exact - value) / exact)
    assert max(shortfalls) <= 5e-3


def _lip_problem(rng):
    P = po.JointDistribution(rng.dirichlet(np.ones(6)).reshape(2, 3))
    return po.Problem(po.LIP(1.0, P), po.MutualInformation(P), colgen=FAST)


def _pml_problem(rng):
    P = po.JointDistribution(rng.dirichlet(np.full(4, 3.0)).reshape(4, 1))
    F = po.L1Ball(P, 0.5 * float(P.p_x.min()))
    return po.Problem(po.PML(1.0, F), po.MutualInformation(P), colgen=FAST)


def _ratio_problem(rng):
    # A user definition: LDP w.r.t. S where only s = 0 vs s = 1 is protected (the religion policy).
    P = po.JointDistribution(rng.dirichlet(np.ones(6)).reshape(3, 2), n=500)
    given = po.statistics.given
    pairs = [po.RatioPair.of(given(s=a), given(s=b), f"s={a} vs s={b}") for a, b in ((0, 1), (1, 0))]
    definition = po.RatioConstraints(pairs, 1.0, over=po.RenyiBall.confidence(P))
    return po.Problem(definition, po.MutualInformation(P), colgen=FAST)


def _fdivergence_problem(rng):
    p0, p1 = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
    return po.Problem(po.LDP(1.0), po.FDivergence("tv", p0, p1), colgen=FAST)


def _box_envelope_problem(rng):
    F = random_ball(rng, (2, 3), 300)
    return po.Problem(
        po.SensitiveLDP(1.5, F), po.NormalizedMutualInformation(F.center), envelope="box", colgen=FAST
    )


@pytest.mark.parametrize(
    "build",
    [_lip_problem, _pml_problem, _box_envelope_problem],
    ids=["LIP", "PML-l1", "box-envelope-NMI"],
)
def test_colgen_works_for_every_definition_that_compiles_to_a_cone(build, rng):
    problem = build(rng)
    exact, _, solution = _compare_with_exact(problem)
    _check(exact, solution, build.__name__)
    # No specialised pricer takes these cones: the global pricer (SCIP) certifies them on ν = p (the
    # chain rule's theorem bound may be the tighter claim, and is then the one reported), and the
    # checker proves the bound; a prior with a zero entry is refused by it, and the simplicial bound
    # is kept, saying why.
    bound = solution.certificate.bound
    assert isinstance(bound, SliceBound | TheoremBound)
    assert solution.certificate.checked, solution.certificate.checked_by
    if np.all(problem.utility.entropy_form().p > 0.0):
        assert not isinstance(bound, SliceBound) or bound.normalisation == "prior"
        assert "global: SCIP's spatial branch and bound" in solution.reason
    else:
        assert "ν has a zero entry" in solution.reason
        assert "its bound: simplicial branch and bound" in solution.reason


@pytest.mark.parametrize(
    ("build", "label", "normalisation", "method"),
    [
        # Only s = 0 vs s = 1 is protected: an envelope cone on those blocks, s = 2's inputs
        # unconstrained. The envelope pricer prices the blocks and the free inputs' rays e_x.
        (_ratio_problem, "RatioConstraints", "prior", "envelope pricing bound"),
        # LDP cones price f-divergences exactly (staircase pricing): a bound on the slice
        # ((P0 + P1)/2)ᵀw = 1, where the simplicial bound used to be the only one.
        (_fdivergence_problem, "TV", "mixture", "staircase pricing bound"),
    ],
    ids=["free-inputs", "f-divergence-on-LDP"],
)
def test_colgen_certifies_cones_with_an_exact_pricer(build, label, normalisation, method, rng):
    problem = build(rng)
    exact, _, solution = _compare_with_exact(problem)
    _check(exact, solution, label)
    bound = solution.certificate.bound
    assert isinstance(bound, SliceBound)
    assert bound.normalisation == normalisation
    assert method in bound.method
    assert solution.certificate.checked
    assert solution.status is po.Status.OPTIMAL


def test_chain_rule_bound_is_valid_and_tight_without_public_attribute(rng):
    for trial in range(6):
        F = random_ball(rng, SHAPES[trial % 2], 500)
        eps = float(rng.uniform(0.3, 3.0))
        problem = _rldp_problem(F, eps, trial)
        bound = chain_rule_bound(problem)
        assert bound is not None
        assert bound.value >= problem.solve(route="vertex").value - 1e-9
    # |U| = 1 and F = {P}: LDP w.r.t. S is ε-LDP on S, so the bound is the optimum itself.
    P = po.JointDistribution(rng.dirichlet(np.ones(4)).reshape(4, 1))
    problem = po.Problem(po.SensitiveLDP(1.0, P), po.MutualInformation(P))
    bound = chain_rule_bound(problem)
    assert bound is not None
    assert bound.value == pytest.approx(problem.solve(route="vertex").value, abs=1e-9)


def test_staircase_lp_is_the_ldp_optimum(rng):
    # Kairouz et al.'s staircase columns are the LDP slice's vertices: same value as enumeration.
    for k, eps in ((3, 0.5), (4, 1.0), (5, 2.5)):
        p = rng.dirichlet(np.ones(k))
        exact = po.Problem(po.LDP(eps), po.MutualInformation(p)).solve(route="vertex").value
        assert ldp_mutual_information_max(p, eps) == pytest.approx(exact, abs=1e-9)


def test_chain_rule_bound_applies_only_when_its_premises_hold(example1):
    F = po.RenyiBall.confidence(example1)
    other = po.MutualInformation([0.25, 0.25, 0.25, 0.25])  # not the set's reference distribution
    assert chain_rule_bound(po.Problem(po.SensitiveLDP(1.0, F), other)) is None
    assert chain_rule_bound(po.Problem(po.LIP(1.0, example1), po.MutualInformation(example1))) is None
    assert chain_rule_bound(po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(example1))) is not None


# ----------------------------------------------------------------- budgets and early stops
def _large_problem(**options) -> po.Problem:
    rng = np.random.default_rng(3)
    F = random_ball(rng, (5, 8), 2000)
    return po.Problem(
        po.SensitiveLDP(1.0, F),
        po.MutualInformation(F.center),
        colgen={"progress": False, "bound_nodes": 100, **options},
    )


def test_iteration_budget_stops_early_with_an_audited_mechanism_and_its_gap():
    solution = _large_problem(max_iterations=3).solve(route="colgen")
    stats = solution.stats
    assert stats.stopped == "iteration limit"
    assert stats.iterations == 3
    assert "stopped: iteration limit" in solution.reason
    assert solution.route == "colgen"
    assert solution.status is po.Status.LIMIT_REACHED
    assert solution.certificate.audit_passed
    assert 0.0 < solution.gap < 1.0
    assert solution.lower <= solution.upper
    # More iterations never lower the value (the master only gains columns).
    longer = _large_problem(max_iterations=12).solve(route="colgen")
    assert longer.value >= solution.value - 1e-12


def test_time_budget_stops_early_and_says_so():
    solution = _large_problem(time_limit=1.0).solve(route="colgen")
    # Within 1 s no search completes a bound here, so the bound phase may take the budget's last 30 %.
    assert solution.stats.stopped in ("time limit", "time limit (no complete bound)")
    assert "stopped: time limit" in solution.reason
    assert solution.certificate.audit_passed
    trace = np.array(solution.stats.trace)
    assert np.all(np.diff(trace[:, 1]) >= -1e-9)  # the master's value never decreases


class _FlakyHighs:
    """Wraps a ``highspy.Highs``: the next ``failures`` solves report a solver error."""

    def __init__(self, highs, failures: int) -> None:
        self._highs, self.failures = highs, failures

    def getModelStatus(self):
        import highspy

        if self.failures > 0:
            self.failures -= 1
            return highspy.HighsModelStatus.kSolveError
        return self._highs.getModelStatus()

    def __getattr__(self, name):
        return getattr(self._highs, name)


def test_pricing_lp_failure_is_retried_then_a_clear_error(example1):
    cone = po.Problem(po.SensitiveLDP(1.0, po.RenyiBall.confidence(example1)), po.MutualInformation(example1))
    cone = cone.compile().cone
    lp = SliceLP(cone)
    c = np.array([1.0, 0.0, 0.0, 0.0])
    expected = lp.maximise(c)
    lp.highs = _FlakyHighs(lp.highs, failures=1)
    np.testing.assert_allclose(lp.maximise(c), expected, atol=1e-12)  # retried once, succeeded
    lp.highs = _FlakyHighs(lp.highs._highs, failures=2)
    with pytest.raises(po.SolverError, match="pricing LP failed twice"):
        lp.maximise(c)


def test_bad_options_are_refused():
    for bad in ({"time_limit": 0}, {"max_iterations": 0}, {"bound_fraction": 1.0}, {"starts": 0}):
        with pytest.raises(po.ValidationError):
            ColumnGenerationOptions(**bad)


def test_seed_makes_runs_deterministic():
    problem = _large_problem(max_iterations=4, seed=11)
    first, second = problem.solve(route="colgen"), problem.solve(route="colgen")
    np.testing.assert_array_equal(first.mechanism.matrix, second.mechanism.matrix)


def test_column_generation_value_is_the_mechanism_utility():
    problem = _large_problem(max_iterations=5)
    cone = problem.compile().cone
    result = column_generation(
        problem.utility, cone, ColumnGenerationOptions(max_iterations=5, bound_nodes=100, progress=False)
    )
    matrix = result.columns * result.weights[None, :]
    assert problem.utility.value(po.Mechanism(matrix)) == pytest.approx(result.lower, rel=1e-9)
    assert cone.violation(matrix) <= 1e-9


def test_master_hands_highs_exactly_the_columns_added():
    # The columns' non-zeros go to HiGHS column-wise: its model matrix, read back dense, is the columns
    # (zeros anywhere, a unit column, a full one), and its costs are the values, negated.
    columns = [np.array([0.5, 0.0, 0.5, 0.0]), np.eye(4)[1], np.array([0.1, 0.2, 0.3, 0.4])]
    master = RestrictedMaster(4, cap=100)
    master.add(columns, [0.1, 0.2, 0.3])
    master.add([np.array([0.0, 0.0, 0.0, 1.0])], [0.4])
    lp = master.highs.getLp()
    start, index, value = (
        np.asarray(x) for x in (lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_)
    )
    dense = np.zeros((4, lp.num_col_))
    for j in range(lp.num_col_):
        dense[index[start[j] : start[j + 1]], j] = value[start[j] : start[j + 1]]
    np.testing.assert_array_equal(dense, np.column_stack([*columns, np.eye(4)[3]]))
    np.testing.assert_array_equal(np.asarray(lp.col_cost_), [-0.1, -0.2, -0.3, -0.4])


def test_master_pruning_keeps_the_value_the_duals_and_the_support():
    # Deleting non-basic columns leaves the optimal basis optimal: the pruned master's value, duals and
    # weights equal those of an unpruned master over the same columns.
    rng = np.random.default_rng(3)
    n = 6
    columns = list(rng.dirichlet(np.ones(n), size=40)) + list(np.eye(n))
    values = list(rng.uniform(0.0, 1.0, size=len(columns)))
    pruned, full = RestrictedMaster(n, cap=12), RestrictedMaster(n, cap=10**6)
    for master in (pruned, full):
        master.add(columns, values)
    value, theta, duals = pruned.solve()
    full_value, full_theta, full_duals = full.solve()
    assert len(pruned.columns) == 6  # cap // 2 kept, all of them basic
    assert pruned.pruned == len(columns) - 6
    assert value == pytest.approx(full_value, abs=1e-12)
    np.testing.assert_allclose(duals, full_duals, atol=1e-10)
    support, weights = pruned.support(theta)
    np.testing.assert_allclose(support @ weights, np.ones(n), atol=1e-10)
    assert float(np.dot(weights, [values[i] for i in np.flatnonzero(full_theta > 1e-12)])) == pytest.approx(
        value
    )
    # Columns added after a prune are priced from the kept basis and the value keeps rising.
    better = list(rng.dirichlet(np.ones(n), size=10))
    pruned.add(better, [1.0] * 10)
    full.add(better, [1.0] * 10)
    assert pruned.solve()[0] == pytest.approx(full.solve()[0], abs=1e-12)


def test_colgen_with_a_small_master_still_reaches_the_exact_optimum(monkeypatch):
    calls = []
    original = RestrictedMaster._prune

    def spy(self, reduced, theta):
        calls.append(len(self.columns))
        return original(self, reduced, theta)

    monkeypatch.setattr(RestrictedMaster, "_prune", spy)
    F = random_ball(np.random.default_rng(7), (3, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center),
                         colgen={**FAST, "master_columns": 20})  # fmt: skip
    exact = problem.solve(route="vertex").value
    solution = problem.solve(route="colgen")
    assert calls, "the master was never pruned"
    assert solution.certificate.audit_passed
    assert solution.value == pytest.approx(exact, rel=1e-6)
    assert solution.status in (po.Status.OPTIMAL, po.Status.OPTIMAL_WITHIN_GAP)


def test_master_columns_option_is_checked():
    assert ColumnGenerationOptions().master_cap(500) == 2000  # 4 per input ...
    assert ColumnGenerationOptions().master_cap(9) == 1000  # ... and at least 1000
    assert ColumnGenerationOptions(master_columns=50).master_cap(240) == 50
    for bad in (1, 2.5, True):
        with pytest.raises(po.ValidationError, match="master_columns"):
            ColumnGenerationOptions(master_columns=bad)


def test_stabilized_fraction_option_is_checked():
    # Larger than the search (1 − bound_fraction) is allowed: every search round is stabilised.
    assert ColumnGenerationOptions(bound_fraction=0.2, stabilized_fraction=1.0).stabilized_fraction == 1.0
    for bad in (-0.1, 1.5, "0.3", None):
        with pytest.raises(po.ValidationError, match="stabilized_fraction"):
            ColumnGenerationOptions(stabilized_fraction=bad)


def test_a_cover_too_large_to_return_leaves_the_root_simplex_bound(monkeypatch):
    # The simplicial cover is dropped above COVER_MAX_ROWS (set to 0 here): the root simplex still
    # covers the slice, so its vertex LP bounds the optimum (Entropy paper Thm. 3) and is among the
    # claims — Pufferfish on Adult (112 inputs) reported 15.3 instead, above H(X) = 3.3.
    import time

    from privopt.solvers.lp import solve_lp

    from privopt.routes import colgen, simplicial_bound

    monkeypatch.setattr(simplicial_bound, "COVER_MAX_ROWS", 0)
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(12))
    line = np.abs(np.subtract.outer(np.arange(12), np.arange(12))).astype(float)
    problem = po.Problem(
        po.MetricLDP(0.3, line),
        po.MutualInformation(p),
        colgen={"progress": False, "time_limit": 3.0, "bound_nodes": 1},
    )
    solution = problem.solve(route="colgen")
    root = colgen._root_simplex(SliceLP(problem.get_problem_data().cone), time.perf_counter() + 60)
    lp = solve_lp(problem.utility.mu(root.T), a_eq=root.T, b_eq=np.ones(12), bounds=(0.0, None))
    assert solution.lower <= lp.objective + 1e-9
    assert solution.upper <= lp.objective + 1e-9


def test_priced_columns_are_moved_into_the_cone_or_dropped():
    # HiGHS meets the rows to an absolute tolerance: on a metric cone with factors up to e^11.7 a small
    # entry off by 1e-3 relative is a violated ratio. The repair moves such a column towards the uniform
    # column just far enough (row values <= 0 exactly), and drops one that is far outside.
    from privopt.routes.pricing.slice_lp import REPAIR_MAX_STEP, ConeRepair

    line = np.abs(np.subtract.outer(np.arange(40), np.arange(40))).astype(float)
    cone = (
        po.Problem(po.MetricLDP(0.3, line), po.MutualInformation(np.full(40, 1 / 40))).get_problem_data().cone
    )
    edge = np.exp(-0.3 * np.arange(40))  # every ratio of neighbours at its bound e^0.3: on the boundary
    edge /= edge.sum()
    assert cone.violation(edge[:, None]) <= 1e-12
    nudged = edge.copy()
    nudged[-1] *= 1.0 - 1e-3  # the smallest entry, 0.1 % low: ratios against it exceed e^{0.3 d}
    far = edge.copy()
    far[0] *= 2.0  # the largest entry doubled: ratios against it twice their bound
    assert cone.violation(nudged[:, None]) > 1e-4
    repaired = ConeRepair(cone)(np.column_stack([edge, nudged, far]))
    assert repaired.shape == (40, 2)  # the far column is dropped
    assert np.all(cone.matrix() @ repaired <= 1e-15)
    assert np.allclose(repaired[:, 0], edge, rtol=0, atol=1e-15)  # a column in the cone is unchanged
    assert np.max(np.abs(repaired[:, 1] - nudged)) <= REPAIR_MAX_STEP


@pytest.mark.slow
def test_metric_ldp_on_a_40_point_line_designs_a_mechanism_that_passes_its_audit():
    # bench_families' metric row: before the repair the design's columns violated the cone by 0.16 %
    # and solve() raised SolverError (realized ε 0.3016 against 0.3).
    rng = np.random.default_rng(25)
    line = np.abs(np.subtract.outer(np.arange(40), np.arange(40))).astype(float)
    problem = po.Problem(
        po.MetricLDP(0.3, line), po.MutualInformation(rng.dirichlet(np.ones(40))), time_limit=120.0,
        colgen={"progress": False},
    )  # fmt: skip
    solution = problem.solve()
    assert solution.certificate.audit_passed
    assert solution.certificate.audit.eps <= 0.3 + 1e-7
    assert solution.lower <= solution.upper
