"""Piecewise-linear utilities (total variation, a user's declared pieces) on any cone: one LP for the
design, one LP per piece for its bound, and the checker's own LPs over the projected rows.

Values are compared with vertex enumeration (a second route), with Kairouz et al.'s theorem for total
variation under LDP, and with what the checker proves; the mutations check that the checker refuses
what it should.
"""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt.certificates import NotProved, NotProvedReason, SliceBound, check_bound
from privopt.certificates import piecewise as checker
from privopt.routes.pricing.piecewise import piecewise_delta, piecewise_design


def random_ball(rng: np.random.Generator, shape: tuple[int, int], n: int) -> po.RenyiBall:
    P = po.JointDistribution(rng.dirichlet(np.ones(shape[0] * shape[1])).reshape(shape), n=n)
    return po.RenyiBall.confidence(P)


class MaxOfLinear(po.SubConvexUtility):
    """A user utility ``μ(w) = max_k a_kᵀw`` that declares its pieces."""

    def __init__(self, pieces: np.ndarray, declared: np.ndarray | None = None) -> None:
        self.a = pieces
        self.declared = pieces if declared is None else declared
        super().__init__(lambda W: (self.a @ W).max(axis=0), input_size=pieces.shape[1], name="max-linear")

    def linear_pieces(self) -> np.ndarray:
        return self.declared


def _enumerated(definition: po.PrivacyDefinition, utility: po.SubConvexUtility) -> float:
    """The optimum by vertex enumeration (back end cdd: no exact pricing)."""
    return po.Problem(definition, utility, backend="cdd").solve(route="vertex").value


def test_tv_under_ldp_on_40_symbols_is_kairouz_binary_bound():
    """Kairouz et al. (2016): under ε-LDP, max TV(P0 W, P1 W) = (e^ε − 1)/(e^ε + 1) · TV(P0, P1), attained
    by a binary mechanism — here on 40 symbols, far past vertex enumeration."""
    rng = np.random.default_rng(40)
    p0, p1 = rng.dirichlet(np.ones(40)), rng.dirichlet(np.ones(40))
    for eps in (0.5, 1.0, 2.0):
        solution = po.Problem(po.LDP(eps), po.FDivergence("tv", p0, p1)).solve()
        expected = np.tanh(eps / 2.0) * 0.5 * np.abs(p0 - p1).sum()
        assert solution.status is po.Status.OPTIMAL
        assert solution.certificate.checked
        assert solution.value == pytest.approx(expected, rel=1e-9)
        assert solution.mechanism.matrix.shape[1] == 2
        assert "one column per linear piece" in solution.reason


@pytest.mark.parametrize("shape", [(2, 3), (3, 3)])
def test_the_piecewise_lp_equals_vertex_enumeration(shape):
    rng = np.random.default_rng(sum(shape))
    F = random_ball(rng, shape, 400)
    definition = po.SensitiveLDP(1.0, F)
    utility = po.FDivergence("tv", F.center.p_x, rng.dirichlet(np.ones(F.n_x)))
    cone = po.Problem(definition, utility).get_problem_data().cone
    pieces = utility.linear_pieces()
    columns, weights, duals = piecewise_design(cone, pieces)
    W = columns * weights
    assert np.allclose(W.sum(axis=1), 1.0, atol=1e-9)
    assert cone.violation(columns) <= 1e-9
    value = float(utility.mu(W).sum())
    upper = float(duals.sum()) + F.n_x * max(0.0, piecewise_delta(cone, pieces, duals))
    assert value == pytest.approx(_enumerated(definition, utility), abs=1e-9)
    assert value <= upper + 1e-12
    assert upper - value <= 1e-8


def test_a_user_utility_that_declares_its_pieces():
    rng = np.random.default_rng(7)
    P = po.JointDistribution(rng.dirichlet(np.ones(6)).reshape(2, 3), n=300)
    F = po.RenyiBall.confidence(P)
    utility = MaxOfLinear(rng.normal(size=(3, 6)))
    definition = po.LIP(1.0, F)
    cone = po.Problem(definition, utility).get_problem_data().cone
    columns, weights, duals = piecewise_design(cone, utility.a)
    assert columns.shape[1] <= 3
    value = float(utility.mu(columns * weights).sum())
    assert value == pytest.approx(_enumerated(definition, utility), abs=1e-9)
    # The checker reads the declared pieces after testing them against μ, and proves the LP's bound.
    bound = SliceBound.build(duals, piecewise_delta(cone, utility.a, duals), "sum", np.ones(6), "test")
    check = check_bound(cone, utility, bound)
    assert check.valid
    assert "piecewise-linear" in check.method
    assert check.proved_upper == pytest.approx(value, abs=1e-8)


@pytest.mark.slow  # Adult scale
@pytest.mark.data
def test_sensitive_ldp_tv_at_adult_scale_is_optimal_and_checked(adult_dir):
    frame = po.datasets.load_adult(adult_dir, ["marital-status", "education"])
    P = po.JointDistribution.from_frame(frame, sensitive="marital-status", public="education")
    F = po.RenyiBall.confidence(P, level=0.95)
    utility = po.FDivergence("tv", P.p_x, np.full(P.n_x, 1.0 / P.n_x))
    solution = po.Problem(po.SensitiveLDP(1.0, F), utility).solve()
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.checked
    assert solution.certificate.audit_passed
    assert solution.gap <= 1e-6
    # Column generation's lower bound (a feasible design) may not exceed the proved optimum.
    heuristic = po.Problem(po.SensitiveLDP(1.0, F), utility, colgen={"time_limit": 5, "progress": False})
    assert heuristic.solve(route="colgen").value <= solution.upper + 1e-9


def test_the_checker_refutes_an_under_reported_delta_and_refuses_bad_pieces():
    rng = np.random.default_rng(11)
    F = random_ball(rng, (2, 3), 400)
    utility = po.FDivergence("tv", F.center.p_x, rng.dirichlet(np.ones(6)))
    cone = po.Problem(po.SensitiveLDP(1.0, F), utility).get_problem_data().cone
    pieces = utility.linear_pieces()
    _, _, duals = piecewise_design(cone, pieces)
    lowered = duals - 0.01  # the duals of a smaller optimum: some piece's LP is positive
    delta = piecewise_delta(cone, pieces, lowered)
    assert delta > 0.0
    honest = check_bound(cone, utility, SliceBound.build(lowered, delta, "sum", np.ones(6), "test"))
    assert honest.valid
    lie = check_bound(cone, utility, SliceBound.build(lowered, 0.5 * delta, "sum", np.ones(6), "test"))
    assert lie.refuted
    assert not lie.valid
    # Declared pieces that disagree with μ are not used.
    wrong = MaxOfLinear(rng.normal(size=(2, 6)), declared=rng.normal(size=(2, 6)))
    assert checker.pieces(wrong, 6) == NotProved(
        NotProvedReason.UTILITY, "its declared pieces disagree with μ"
    )
    refused = checker.pieces(po.MutualInformation(F.center), 6)
    assert isinstance(refused, NotProved)
    assert refused.reason == NotProvedReason.UTILITY
    # A normalisation with a zero entry does not bound the slice: the method refuses it.
    found = checker.maximise_ratio(cone, pieces, duals, np.r_[0.0, np.ones(5)], deadline=np.inf)
    assert isinstance(found, NotProved)
    assert found.reason == NotProvedReason.CLAIM
    assert "zero entry" in found.message


def test_a_proof_whose_margin_exceeds_the_claim_is_not_a_refutation(monkeypatch):
    """Refuting needs a column above the claim; a proof that only reaches a larger bound (its margin:
    an LP's dual residual, or rounding) leaves the claim unproved, not refuted."""
    rng = np.random.default_rng(12)
    line = np.abs(np.subtract.outer(np.arange(6), np.arange(6))).astype(float)
    utility = po.FDivergence("tv", rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6)))
    cone = po.Problem(po.MetricLDP(0.5, line), utility).get_problem_data().cone  # no envelope form
    pieces = utility.linear_pieces()
    _, _, duals = piecewise_design(cone, pieces)
    claim = SliceBound.build(duals, piecewise_delta(cone, pieces, duals), "sum", np.ones(6), "test")
    honest = check_bound(cone, utility, claim)
    assert honest.valid
    assert "piecewise-linear" in honest.method
    real = checker.maximise_ratio

    def loose(*args, **kwargs):
        found = real(*args, **kwargs)
        return checker.PiecewiseMaximum(found.value, 1e-3, found.column, found.points, found.seconds)

    monkeypatch.setattr(checker, "maximise_ratio", loose)
    check = check_bound(cone, utility, claim)
    assert not check.valid
    assert not check.refuted
    assert check.reason.startswith("not proved")
    assert check.column is None


def test_the_checkers_warm_lps_prove_what_cold_lps_prove():
    # The checker's model keeps its basis from one objective to the next (the hull's −λ − θ·P0 for a
    # sequence of θ, in any order); every value must still be what a cold scipy LP over the same slice
    # finds, and each dual bound at least that value and within rounding of it.
    from scipy.optimize import linprog

    rng = np.random.default_rng(11)
    F = random_ball(rng, (3, 4), 500)
    cone = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center)).get_problem_data().cone
    G = cone.matrix()
    nu = rng.dirichlet(np.ones(cone.n_inputs)) + 0.01
    lam, p0 = rng.normal(size=cone.n_inputs), rng.dirichlet(np.ones(cone.n_inputs))
    lp = checker.SliceMaximiser(G, nu)
    for theta in (0.0, 0.3, -0.3, 0.1, 5.0, -5.0, 0.0):
        c = -lam - theta * p0
        column, value, proved = lp.maximum(c)
        cold = linprog(-c, A_ub=G, b_ub=np.zeros(G.shape[0]), A_eq=nu[None, :], b_eq=[1.0], method="highs")
        assert value == pytest.approx(-cold.fun, rel=1e-7, abs=1e-9)
        assert value - 1e-9 <= proved <= value + 1e-6 * (1.0 + abs(value))
        assert nu @ column == pytest.approx(1.0)
        assert np.all(G @ column <= 1e-7 * np.abs(G).sum(axis=1).A1.max())


def test_an_lp_that_fails_at_the_checkers_tolerance_is_solved_again_at_highs_default():
    """A slice LP HiGHS does not solve at CHECK_LP_FEASIBILITY_TOL (a badly scaled cone) is solved once
    more at HiGHS's default tolerances and still proves its value; the tight tolerance is then restored."""
    import highspy

    from privopt.tolerances import CHECK_LP_FEASIBILITY_TOL

    rng = np.random.default_rng(12)
    F = random_ball(rng, (2, 3), 500)
    cone = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center)).get_problem_data().cone
    G, nu = cone.matrix(), np.full(cone.n_inputs, 1.0 / cone.n_inputs)
    c = rng.normal(size=cone.n_inputs)
    expected = checker.SliceMaximiser(G, nu).maximum(c)
    assert not isinstance(expected, NotProved)

    class FailsOnce:
        """The model, whose first run ends in a solve error (what HiGHS reports on a cone it cannot
        meet to the tolerance)."""

        def __init__(self, highs):
            self.highs, self.failed = highs, False

        def run(self):
            if not self.failed:
                self.failed = True
                return None
            return self.highs.run()

        def getModelStatus(self):
            return (
                highspy.HighsModelStatus.kSolveError
                if not self.highs.getRunTime()
                else self.highs.getModelStatus()
            )

        def __getattr__(self, name):
            return getattr(self.highs, name)

    lp = checker.SliceMaximiser(G, nu)
    lp.highs = FailsOnce(lp.highs)
    found = lp.maximum(c)
    assert lp.highs.failed
    assert not isinstance(found, NotProved)
    assert found[1] == pytest.approx(expected[1], rel=1e-7, abs=1e-9)
    assert found[1] - 1e-9 <= found[2]
    assert lp.highs.getOptionValue("dual_feasibility_tolerance")[1] == pytest.approx(CHECK_LP_FEASIBILITY_TOL)
