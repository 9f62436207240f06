"""f-divergences on any cone: exact pricing by the upper hull of ``(P0ᵀw, −λᵀw)`` (the route's
dichotomic search and the checker's own envelope), against exact enumeration of the slice's vertices
(pplpy, rational arithmetic) and against the vertex route's enumeration of the whole problem."""

from __future__ import annotations

import time

import numpy as np
import pytest

import privopt as po
from privopt.certificates import NotProved, SliceBound, check_bound, vertices
from privopt.certificates import fdivergence as checker
from privopt.routes.pricing.contract import PricingRequest
from privopt.routes.pricing.fdivergence import FDivergencePricer, _envelope_breakpoints, fdivergence_weights

KINDS = ["kl", "chi2", "hellinger", "tv"]


def _line(n: int) -> np.ndarray:
    return np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)


def _cases(seed: int):
    rng = np.random.default_rng(seed)
    for trial in range(3):
        P = po.JointDistribution(rng.dirichlet(np.ones(6)).reshape(2, 3), n=400)
        definitions = [po.SensitiveLDP(1.0, po.RenyiBall.confidence(P)), po.MetricLDP(0.4, _line(6))]
        for kind in KINDS:
            p0 = rng.dirichlet(np.ones(6))
            if trial == 2:
                p0[0] = 0.0  # a prior without full support: ν = (P0 + P1)/2 stays positive
                p0 /= p0.sum()
            utility = po.FDivergence(kind, p0, rng.dirichlet(np.ones(6)))
            for definition in definitions:
                yield definition, utility, rng.normal(0.0, 0.3, 6)


@pytest.mark.parametrize("seed", [1, 2])
def test_hull_pricing_and_the_checker_bracket_exact_enumeration(seed):
    for definition, utility, duals in _cases(seed):
        cone = po.Problem(definition, utility).get_problem_data().cone
        weights = fdivergence_weights(utility.perspective_form())
        exact = vertices.maximise_ratio(cone, utility, duals, weights, 60.0)
        assert not isinstance(exact, NotProved)
        delta, columns = FDivergencePricer(cone, utility.perspective_form(), weights).price(
            duals, 16, -np.inf
        )
        assert exact.value - 1e-9 <= delta <= exact.value + 1e-7 * (1.0 + abs(exact.value))
        assert columns
        assert cone.violation(np.column_stack(columns)) <= 1e-9
        proof = checker.maximise_ratio(
            cone, utility.perspective_form(), duals, weights, time.perf_counter() + 60.0
        )
        assert not isinstance(proof, NotProved)
        assert (
            exact.value - 1e-9 <= proof.value + proof.margin <= exact.value + 1e-7 * (1.0 + abs(exact.value))
        )
        assert proof.value == pytest.approx(exact.value, abs=1e-7)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_pruned_hull_search_bounds_the_exact_maximum_within_its_request(seed):
    """Refined best first and stopped by a request's tolerance or slack, the search still bounds the
    enumerated maximum from above, within what the request allows of the best column it found, with no
    more LPs than the whole hull."""
    for definition, utility, duals in _cases(seed):
        cone = po.Problem(definition, utility).get_problem_data().cone
        weights = fdivergence_weights(utility.perspective_form())
        exact = vertices.maximise_ratio(cone, utility, duals, weights, 60.0)
        assert not isinstance(exact, NotProved)
        pricer = FDivergencePricer(cone, utility.perspective_form(), weights)
        pricer.search(duals)
        whole = pricer.lps
        for request in (PricingRequest(1e-3), PricingRequest(0.0, slack=0.25), PricingRequest(0.0)):
            delta, found, complete = pricer.search(duals, closed=request.closed)
            assert complete
            assert pricer.lps <= whole
            best = found[0].ratio
            assert best <= exact.value + 1e-9
            assert exact.value - 1e-9 <= delta
            allowed = request.tolerance + request.slack * max(best, 0.0)
            assert delta <= best + allowed + 1e-7 * (1.0 + abs(exact.value))


def test_the_envelope_breakpoints_give_the_bound_of_every_crossing():
    """The maximum of a convex φ plus the lines' lower envelope, read at the envelope's breakpoints, equals
    the one read at every pairwise crossing of the lines (the definition), ties and parallel lines
    included."""
    rng = np.random.default_rng(7)
    for trial in range(200):
        k = int(rng.integers(1, 40))
        theta = rng.normal(0.0, 3.0, k).round(1 if trial % 3 == 0 else 12)  # ties every third trial
        intercept = rng.normal(0.0, 1.0, k)
        low, high = sorted(rng.uniform(-1.0, 3.0, 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            crossings = (intercept[None, :] - intercept[:, None]) / (theta[:, None] - theta[None, :])
        inside = crossings[np.isfinite(crossings) & (crossings > low) & (crossings < high)]
        points = np.concatenate([[low, high], inside])
        breaks = np.concatenate([[low, high], _envelope_breakpoints(theta, intercept, low, high)])
        assert set(np.round(breaks, 9)) <= set(np.round(points, 9))
        # With φ convex (here a²) the maximum of φ plus the envelope is at its breakpoints.
        brute = np.max(points**2 + (intercept[None, :] + theta[None, :] * points[:, None]).min(axis=1))
        envelope = (intercept[None, :] + theta[None, :] * breaks[:, None]).min(axis=1)
        assert np.max(breaks**2 + envelope) == pytest.approx(brute, abs=1e-9)


def test_the_checker_stops_once_it_has_proved_the_limit():
    """Given the limit a claim needs, the checker's refinement stops once its bound is below it, with no
    more LPs than closing the hull; a limit under the maximum is never reached (the bound stays valid)."""
    for definition, utility, duals in _cases(3):
        cone = po.Problem(definition, utility).get_problem_data().cone
        form = utility.perspective_form()
        weights = fdivergence_weights(form)
        exact = vertices.maximise_ratio(cone, utility, duals, weights, 60.0)
        assert not isinstance(exact, NotProved)
        deadline = time.perf_counter() + 60.0
        closed = checker.maximise_ratio(cone, form, duals, weights, deadline)
        assert not isinstance(closed, NotProved)
        for limit in (exact.value + 0.05 * (1.0 + abs(exact.value)), exact.value - 1e-3):
            proof = checker.maximise_ratio(cone, form, duals, weights, deadline, limit)
            assert not isinstance(proof, NotProved)
            assert proof.points <= closed.points
            assert proof.value + proof.margin >= exact.value - 1e-9
            if limit > exact.value:
                assert proof.value + proof.margin <= limit
            else:
                assert proof.points == closed.points


def test_metric_kl_past_enumeration_equals_the_enumerated_optimum():
    rng = np.random.default_rng(9)
    utility = po.FDivergence("kl", rng.dirichlet(np.ones(9)), rng.dirichlet(np.ones(9)))
    points = rng.random((9, 2))  # generic points: no pair is implied by another, every pair is a row
    distances = 3.0 * np.sqrt(((points[:, None] - points[None]) ** 2).sum(-1))
    definition = po.MetricLDP(0.5, distances)  # enumeration predicted above 0.15 s: the hull prices
    priced = po.Problem(definition, utility).solve()
    assert priced.stats.backend == "f-divergence hull (exact pricing)"
    assert priced.status is po.Status.OPTIMAL
    assert priced.certificate.checked
    assert "f-divergence: the upper hull" in priced.certificate.check.method
    enumerated = po.Problem(definition, utility, backend="cdd").solve(route="vertex")
    assert priced.value == pytest.approx(enumerated.value, rel=1e-7)
    # The enumeration's claim (McMullen: 10^6.2 vertices; 12,870 in fact) is proved by the checker's
    # exact trial enumeration, not left to SCIP's spatial branch and bound (which took minutes).
    assert enumerated.certificate.checked
    assert "tried first on a share of the time" in enumerated.certificate.check.method


def test_the_checker_refutes_a_lowered_delta():
    rng = np.random.default_rng(4)
    utility = po.FDivergence("hellinger", rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6)))
    cone = po.Problem(po.MetricLDP(0.4, _line(6)), utility).get_problem_data().cone
    weights = fdivergence_weights(utility.perspective_form())
    duals = rng.normal(0.0, 0.3, 6)
    delta, _ = FDivergencePricer(cone, utility.perspective_form(), weights).price(duals, 16, -np.inf)
    honest = check_bound(cone, utility, SliceBound.build(duals, delta, "mixture", weights, "test"))
    assert honest.valid
    assert "upper hull" in honest.method
    lowered = check_bound(cone, utility, SliceBound.build(duals, delta - 1e-4, "mixture", weights, "test"))
    assert lowered.refuted
    assert cone.violation(lowered.column[:, None]) <= 1e-9
    # Another normalisation than (P0 + P1)/2 is not this method's.
    assert checker.applicable(utility, np.ones(6)) is not None


def test_certified_column_generation_prices_an_f_divergence_by_its_hull():
    """Column generation on a cone without an envelope or staircase pricer (a metric cone) certifies
    KL by the hull pricer; the optimum by enumeration lies between its bounds."""
    rng = np.random.default_rng(21)
    utility = po.FDivergence("kl", rng.dirichlet(np.ones(7)), rng.dirichlet(np.ones(7)))
    definition = po.MetricLDP(0.5, _line(7))
    solution = po.Problem(definition, utility, colgen={"time_limit": 20, "progress": False}).solve(
        route="colgen"
    )
    assert solution.certificate.checked
    assert "f-divergence hull" in solution.certificate.bound.method
    optimum = po.Problem(definition, utility, backend="cdd").solve(route="vertex").value
    assert solution.lower <= optimum + 1e-9
    assert optimum <= solution.upper + 1e-9
    assert solution.gap <= 1e-3


def test_the_hulls_ends_stop_where_the_maximisers_reach():
    """The search for the hull's ends stops once the maximiser reaches the extreme of ``P0ᵀw`` the LP
    attains, not the proved (dual) bound a little beyond it: chasing that bound steepened the end line
    eight times over, and the line's rounding margin (proportional to its slope) then held ``δ̄`` at
    4·10⁻⁴ where the maximum was 0, and column generation stopped short of the optimum. A sensitive-LDP
    KL at ε = 6 that did so now converges to the enumerated optimum."""
    rng = np.random.default_rng(18)
    assert float(rng.choice([0.1, 0.5, 1.0, 3.0, 6.0])) == pytest.approx(6.0)  # as the instance was found
    P = po.JointDistribution(rng.dirichlet(np.ones(6)).reshape(2, 3), n=300)
    definition = po.SensitiveLDP(6.0, po.RenyiBall.confidence(P))
    utility = po.FDivergence("kl", rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6)))
    priced = po.Problem(definition, utility, time_limit=60).solve(route="colgen")
    assert priced.status is po.Status.OPTIMAL
    assert priced.certificate.checked
    enumerated = po.Problem(definition, utility, backend="cdd").solve(route="vertex")
    assert priced.value == pytest.approx(enumerated.value, rel=1e-7)
