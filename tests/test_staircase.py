"""Staircase pricing on LDP cones (privopt.routes.pricing.staircase) and the checker's own staircase
method (privopt.certificates.staircase), each against brute force over every subset ``A`` (the slice's
vertices are the staircase columns ``r_A = 1 + (e^ε − 1)·1_A``, Kairouz et al. Thm. 4) and column
generation against the exact vertex route."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

import privopt as po
from privopt.certificates import NotProved, NotProvedReason, envelope
from privopt.certificates import staircase as checker
from privopt.certificates.check import check_bound
from privopt.certificates.claims import SliceBound
from privopt.routes.pricing import PricingRequest, Refusal
from privopt.routes.pricing.staircase import STAIRCASE_METHOD, prior_free_bound, staircase_pricer
from privopt.utilities import PowerForm

CHECKER_METHOD = "LDP cone: every staircase column"


def _le_cam(t):
    """A user generator: ``(t − 1)²/(t + 1)`` (Le Cam's triangular discrimination), convex, ``f(1) = 0``."""
    t = np.asarray(t, dtype=np.float64)
    return (t - 1.0) ** 2 / (t + 1.0)


def _subsets(n: int) -> np.ndarray:
    """Every subset of ``n`` inputs (rows of booleans, ∅ and X included)."""
    return ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)


def _brute_force(utility, factor: float, duals, weights) -> tuple[float, np.ndarray]:
    """``max_A (μ(r_A) − λᵀr_A)/νᵀr_A`` over every subset, through the utility's public ``mu``."""
    masks = _subsets(len(duals))
    rays = 1.0 + (factor - 1.0) * masks.astype(np.float64)
    ratios = (utility.mu(rays.T) - rays @ duals) / (rays @ weights)
    best = int(np.argmax(ratios))
    return float(ratios[best]), masks[best]


def _ratio(utility, column, duals, weights) -> float:
    return float((utility.mu(column[:, None])[0] - duals @ column) / (weights @ column))


def _prior(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "dirichlet":
        return rng.dirichlet(np.full(n, rng.choice([0.3, 1.0, 3.0])))
    if kind == "ties":  # repeated values: the exchange rule of the searches
        p = rng.choice([1.0, 2.0, 3.0], size=n)
        return p / p.sum()
    p = rng.dirichlet(np.ones(n))  # one input of probability 0
    p[0] = 0.0
    return p / p.sum()


def _duals(rng: np.random.Generator, weights: np.ndarray, level: float, kind: str) -> np.ndarray:
    """Random duals: Gaussian, near ``level·ν`` (the degenerate regime of the searches), or tied."""
    n = weights.size
    if kind == "gauss":
        return rng.normal(0.0, 0.3, n) / n
    if kind == "near":
        return level * weights + rng.normal(0.0, 0.01, n) * weights
    return rng.choice([-0.02, 0.01, 0.03], size=n)


UTILITIES = ["mi", "nmi", "tv", "kl", "chi2", "hellinger", "user", "sibson", "power"]


class _CubeNorm(po.SubConvexUtility):
    """A user's power form ``μ(w) = (Σ_x c_x w_x³)^{1/3}``, weights not summing to 1."""

    def __init__(self, c: np.ndarray) -> None:
        self.c = np.asarray(c, dtype=np.float64)
        super().__init__(lambda W: (self.c @ np.power(W, 3.0)) ** (1.0 / 3.0), input_size=self.c.size)

    def power_form(self) -> PowerForm:
        return PowerForm(self.c, 3.0)


class _WrongCube(_CubeNorm):
    """Declares α = 2 where its μ has α = 3: no method may trust the form."""

    def power_form(self) -> PowerForm:
        return PowerForm(self.c, 2.0)


def _utility(name: str, rng: np.random.Generator, n: int, prior_kind: str):
    p = _prior(rng, n, prior_kind)
    if name == "mi":
        return po.MutualInformation(p)
    if name == "nmi":
        return po.NormalizedMutualInformation(p)
    if name == "sibson":
        return po.SibsonMutualInformation(p, float(rng.choice([1.5, 2.0, 4.0])))
    if name == "power":
        return _CubeNorm(3.0 * p)
    q = _prior(rng, n, "dirichlet")
    f = _le_cam if name == "user" else name
    return po.FDivergence(f, p, q)


def _weights(utility) -> np.ndarray:
    if isinstance(utility, po.MutualInformation):
        return np.asarray(utility.p, dtype=np.float64)
    if utility.power_form() is not None:
        return np.asarray(utility.power_form().c, dtype=np.float64)
    return 0.5 * (np.asarray(utility.p0) + np.asarray(utility.p1))


def _ldp_cone(eps: float, utility):
    return po.Problem(po.LDP(eps), utility).get_problem_data().cone


# ------------------------------------------------------------------------------------ the route's pricer
@pytest.mark.parametrize("name", UTILITIES)
@pytest.mark.parametrize("seed", range(6))
def test_the_staircase_pricer_finds_the_brute_force_maximum(name, seed):
    rng = np.random.default_rng(1000 * UTILITIES.index(name) + seed)
    n = int(rng.integers(3, 11))
    eps = float(rng.choice([0.5, 1.0, 2.0]))
    utility = _utility(name, rng, n, ["dirichlet", "ties", "zero"][seed % 3])
    pricer = staircase_pricer(utility, _ldp_cone(eps, utility))
    assert not isinstance(pricer, Refusal)
    weights = _weights(utility)
    np.testing.assert_allclose(pricer.weights, weights, rtol=1e-15)
    for kind in ("gauss", "near", "tied"):
        level = prior_free_bound(math.exp(eps)) if name in ("mi", "nmi") else 0.05
        duals = _duals(rng, weights, level, kind)
        exact, _ = _brute_force(utility, math.exp(eps), duals, weights)
        outcome = pricer.price(duals, PricingRequest(tolerance=1e-12))
        assert outcome.complete
        # δ̄ is a proved upper bound, tight; the best column attains the maximum.
        assert outcome.upper >= exact
        assert outcome.upper == pytest.approx(exact, abs=1e-9)
        assert outcome.lower == pytest.approx(exact, abs=1e-9)
        best = outcome.columns[0]
        assert best.ratio == pytest.approx(exact, abs=1e-9)
        assert _ratio(utility, best.column, duals, weights) == pytest.approx(exact, abs=1e-9)


# ------------------------------------------------------------------------------------ column generation
@pytest.mark.parametrize(("n", "eps", "seed"), [(6, 1.0, 0), (7, 0.5, 1), (8, 2.0, 2), (8, 1.0, 3)])
def test_certified_column_generation_reaches_the_vertex_routes_optimum(n, eps, seed):
    p = np.random.default_rng(seed).dirichlet(np.ones(n))
    problem = po.Problem(po.LDP(eps), po.MutualInformation(p))
    solution = problem.solve(route="colgen")
    exact = po.Problem(po.LDP(eps), po.MutualInformation(p)).solve(route="vertex")
    assert solution.status is po.Status.OPTIMAL
    assert solution.value == pytest.approx(exact.value, abs=1e-6)
    assert solution.upper >= exact.value - 1e-9
    certificate = solution.certificate
    assert certificate.checked
    assert certificate.bound.method.startswith(STAIRCASE_METHOD)
    # A cone this small is checked by the envelope method; the staircase method proves the same claim.
    assert certificate.check.method.startswith("envelope cone")
    bound = certificate.bound
    form = envelope.envelope_form(problem.get_problem_data().cone)
    limit = bound.delta + 1e-9
    found = checker.maximise_ratio(
        form, problem.utility, bound.duals, bound.weights, bound.delta, limit, time.perf_counter() + 60.0
    )
    assert isinstance(found, checker.StaircaseMaximum)
    assert not found.refuting
    assert found.value <= limit


@pytest.mark.parametrize("name", ["tv", "kl", "nmi", "sibson", "power"])
def test_certified_column_generation_on_other_utilities_matches_the_vertex_route(name):
    rng = np.random.default_rng(7)
    utility = _utility(name, rng, 7, "dirichlet")
    solution = po.Problem(po.LDP(1.0), utility).solve(route="colgen")
    exact = po.Problem(po.LDP(1.0), utility).solve(route="vertex")
    assert solution.status is po.Status.OPTIMAL
    assert solution.value == pytest.approx(exact.value, abs=1e-6)
    assert solution.upper >= exact.value - 1e-9
    assert solution.certificate.checked
    assert solution.certificate.bound.method.startswith(STAIRCASE_METHOD)


def _mutual_information(matrix: np.ndarray, p: np.ndarray) -> float:
    joint = p[:, None] * matrix
    q = joint.sum(axis=0)
    inside = joint > 0.0
    return float(np.sum(joint[inside] * np.log((matrix / q[None, :])[inside])))


@pytest.fixture(scope="module")
def forty() -> tuple[po.Problem, po.Solution]:
    p = np.random.default_rng(2).dirichlet(np.ones(40))
    problem = po.Problem(po.LDP(1.0), po.MutualInformation(p))
    return problem, problem.solve()


def test_ldp_on_forty_symbols_is_certified_by_column_generation(forty):
    problem, solution = forty
    assert solution.route == "colgen"
    assert solution.status in (po.Status.OPTIMAL, po.Status.OPTIMAL_WITHIN_GAP)
    assert solution.gap <= 1e-6
    assert solution.certificate.checked
    assert solution.certificate.check.method.startswith(CHECKER_METHOD)
    # Independent of both: the design's MI recomputed from its matrix, its LDP ratios, and the
    # prior-free bound μ*(ε) (every ε-LDP mechanism under every prior is below it).
    matrix = solution.mechanism.matrix
    p = np.asarray(problem.utility.p)
    assert _mutual_information(matrix, p) == pytest.approx(solution.value, abs=1e-9)
    assert np.log(matrix.max(axis=0) / matrix.min(axis=0)).max() <= 1.0 + 1e-9
    mu_star = prior_free_bound(math.e)
    assert mu_star == pytest.approx(0.1233015614822, abs=1e-12)  # u − 1 − log u, u = e/(e − 1)
    assert solution.value <= mu_star + 1e-12
    # The certified upper bound is at most μ* (the run certifies the prior-free duals λ = μ*·p).
    assert solution.upper <= mu_star + 1e-9


# ------------------------------------------------------------------------------------ the checker
def _checker_case(name: str, seed: int):
    rng = np.random.default_rng(5000 + 100 * UTILITIES.index(name) + seed)
    n = int(rng.integers(3, 11))
    eps = float(rng.choice([0.5, 1.0, 2.0]))
    utility = _utility(name, rng, n, ["dirichlet", "ties", "zero"][seed % 3])
    weights = _weights(utility) if seed % 2 == 0 else rng.uniform(0.2, 1.0, n)  # any ν > 0
    level = prior_free_bound(math.exp(eps)) if name in ("mi", "nmi") else 0.05
    duals = _duals(rng, weights, level, ["gauss", "near", "tied"][seed % 3])
    form = envelope.envelope_form(_ldp_cone(eps, utility))
    return utility, form, math.exp(eps), duals, weights


@pytest.mark.parametrize("name", UTILITIES)
@pytest.mark.parametrize("seed", range(6))
def test_the_checker_proves_the_true_maximum_and_refutes_just_below_it(name, seed):
    utility, form, factor, duals, weights = _checker_case(name, seed)
    assert checker.applies(form, utility)
    exact, _ = _brute_force(utility, factor, duals, weights)
    deadline = time.perf_counter() + 60.0
    proved = checker.maximise_ratio(form, utility, duals, weights, exact, exact + 1e-9, deadline)
    assert isinstance(proved, checker.StaircaseMaximum)
    assert not proved.refuting
    assert exact <= proved.value <= exact + 1e-9
    claim = exact - 1e-6
    refuted = checker.maximise_ratio(form, utility, duals, weights, claim, claim + 1e-9, deadline)
    assert isinstance(refuted, checker.StaircaseMaximum)
    assert refuted.refuting
    ratio = _ratio(utility, refuted.column, duals, weights)
    assert claim + 1e-9 < ratio <= exact + 1e-12
    assert refuted.value == pytest.approx(ratio, abs=1e-12)


@pytest.mark.parametrize("name", ["mi", "kl", "user", "sibson"])
def test_check_bound_uses_the_staircase_method_past_the_envelope_method(name):
    # 16 inputs: the envelope method's work estimate is infinite, the staircase method takes the cone,
    # and brute force (65,536 subsets) still gives the exact maximum.
    rng = np.random.default_rng(11)
    utility = _utility(name, rng, 16, "dirichlet")
    cone = _ldp_cone(1.0, utility)
    form = envelope.envelope_form(cone)
    assert envelope.work_estimate(form) > envelope.MAX_WORK
    weights = _weights(utility)
    normalisation = "prior" if name in ("mi", "sibson") else "mixture"
    duals = _duals(rng, weights, prior_free_bound(math.e) if name == "mi" else 0.05, "near")
    exact, _ = _brute_force(utility, math.e, duals, weights)
    good = check_bound(cone, utility, SliceBound.build(duals, exact, normalisation, weights, "test"))
    assert good.valid
    assert good.method.startswith(CHECKER_METHOD)
    core = float(duals.sum()) + weights.sum() * max(exact, 0.0)
    assert good.proved_upper == pytest.approx(utility.from_core(core), abs=1e-8)
    low = check_bound(cone, utility, SliceBound.build(duals, exact - 1e-6, normalisation, weights, "test"))
    assert not low.valid
    assert low.refuted
    assert _ratio(utility, low.column, duals, weights) > exact - 1e-6


@pytest.mark.parametrize("name", ["tv", "kl", "chi2", "user"])
@pytest.mark.parametrize("seed", range(8))
def test_the_checker_on_degenerate_f_divergence_data(name, seed):
    # P0, P1 and λ from small sets of values: many vectors (P0_x, P1_x, ℓ_x) are parallel or coplanar,
    # the arrangement's cells have rays on more than two planes (the tied sets the checker splits).
    rng = np.random.default_rng(9000 + seed)
    n = int(rng.integers(6, 11))
    p0 = rng.choice([1.0, 2.0], size=n)
    p1 = rng.choice([1.0, 2.0, 4.0], size=n)
    utility = po.FDivergence(_le_cam if name == "user" else name, p0 / p0.sum(), p1 / p1.sum())
    weights = _weights(utility)
    duals = rng.choice([-1.0, 0.0, 1.0, 2.0], size=n) / 64.0
    form = envelope.envelope_form(_ldp_cone(math.log(2.0), utility))
    exact, _ = _brute_force(utility, 2.0, duals, weights)
    deadline = time.perf_counter() + 60.0
    proved = checker.maximise_ratio(form, utility, duals, weights, exact, exact + 1e-9, deadline)
    assert isinstance(proved, checker.StaircaseMaximum)
    assert not proved.refuting
    claim = exact - 1e-7
    refuted = checker.maximise_ratio(form, utility, duals, weights, claim, claim + 1e-9, deadline)
    assert isinstance(refuted, checker.StaircaseMaximum)
    assert refuted.refuting
    assert _ratio(utility, refuted.column, duals, weights) > claim + 1e-9


# ------------------------------------------------------------------------------------ mutations
def test_a_lowered_certificate_on_forty_symbols_is_refuted(forty):
    problem, solution = forty
    cone = problem.get_problem_data().cone
    bound = solution.certificate.bound
    assert check_bound(cone, problem.utility, bound).valid
    duals = np.array(bound.duals)
    duals[int(np.argmax(problem.utility.p))] -= 0.01
    lowered = SliceBound.build(duals, bound.delta, bound.normalisation, bound.weights, bound.method)
    check = check_bound(cone, problem.utility, lowered)
    assert not check.valid
    assert check.refuted
    assert check.method.startswith(CHECKER_METHOD)
    assert _ratio(problem.utility, check.column, duals, np.asarray(bound.weights)) > bound.delta + 1e-9
    short = SliceBound.build(
        bound.duals, bound.delta - 1e-4, bound.normalisation, bound.weights, bound.method
    )
    check = check_bound(cone, problem.utility, short)
    assert not check.valid
    assert check.refuted


def test_a_lowered_f_divergence_certificate_is_refuted():
    rng = np.random.default_rng(3)
    utility = _utility("kl", rng, 20, "dirichlet")
    solution = po.Problem(po.LDP(1.0), utility).solve(route="colgen")
    assert solution.certificate.checked
    assert solution.certificate.check.method.startswith(CHECKER_METHOD)
    cone = po.Problem(po.LDP(1.0), utility).get_problem_data().cone
    bound = solution.certificate.bound
    lowered = SliceBound.build(
        0.99 * np.array(bound.duals), bound.delta, bound.normalisation, bound.weights, "x"
    )
    check = check_bound(cone, utility, lowered)
    assert not check.valid
    assert check.refuted
    short = SliceBound.build(bound.duals, bound.delta - 1e-4, bound.normalisation, bound.weights, "x")
    check = check_bound(cone, utility, short)
    assert not check.valid
    assert check.refuted


@pytest.mark.parametrize("field", ["delta", "duals", "weights"])
def test_the_checker_on_nan_is_not_valid(field):
    rng = np.random.default_rng(4)
    utility = _utility("mi", rng, 16, "dirichlet")
    cone = _ldp_cone(1.0, utility)
    weights = _weights(utility)
    duals = prior_free_bound(math.e) * weights
    delta = 1e-9
    if field == "delta":
        delta = math.nan
    elif field == "duals":
        duals = duals.copy()
        duals[3] = math.nan
    else:
        weights = weights.copy()
        weights[3] = math.nan
    check = check_bound(cone, utility, SliceBound.build(duals, delta, "prior", weights, "test"))
    assert not check.valid
    assert not check.refuted
    # The method itself refuses NaN too (it never returns a level it did not prove).
    form = envelope.envelope_form(cone)
    found = checker.maximise_ratio(
        form, utility, duals, weights, delta, delta + 1e-9, time.perf_counter() + 60.0
    )
    assert isinstance(found, NotProved)
    assert found.reason == NotProvedReason.CLAIM


def test_a_power_form_that_is_not_its_mu_is_not_trusted_by_the_checker():
    # The pricer reads the declared form (α = 2); the checker compares it with μ (α = 3) first and
    # takes no staircase proof from it, so a claim built on the wrong form is never proved by it.
    rng = np.random.default_rng(3)
    wrong = _WrongCube(rng.uniform(0.5, 2.0, 16))
    cone = _ldp_cone(1.0, wrong)
    form = envelope.envelope_form(cone)
    assert not checker.applies(form, wrong)
    duals = _duals(rng, wrong.c, 0.05, "near")
    verdict = check_bound(cone, wrong, SliceBound.build(duals, 0.0, "prior", wrong.c, "test"))
    assert not verdict.method.startswith(CHECKER_METHOD)
    exact, _ = _brute_force(wrong, math.e, duals, wrong.c)
    if verdict.valid:  # another method proved it: then it holds for the true μ
        assert verdict.proved_upper >= float(duals.sum()) + wrong.c.sum() * max(exact, 0.0) - 1e-9
