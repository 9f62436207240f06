"""A proof is used for what it proves (docs/compiler.md, "Certificates").

For every method of the independent checker: a claim lowered by less than the comparison's tolerance
is proved, and the solution reports the bound the checker proved (never the lower claim) as OPTIMAL; a
claim that the checker can only prove weaker is used as that weaker bound; a claim lowered below the
optimum is refuted (slice bounds: a column of the cone exceeds it) or contradicts the design's value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

import privopt as po
from privopt.certificates import (
    LinearBound,
    SliceBound,
    TheoremBound,
    check_bound,
    envelope,
    upper_in_units,
    weaker_claim,
)
from privopt.routes import ROUTES
from privopt.tolerances import CERTIFICATE_ATOL, GAP_OPTIMAL_RTOL
from tests.test_independent_reporting import random_ball

#: How far below the optimum a lowered claim goes (relative to max(1, |Σλ|)): far beyond every
#: comparison's tolerance (CERTIFICATE_ATOL = 1e-9), far below any route's gap.
LOWERED = 1e-5

#: How far a weaker-proved linear claim sits below what its multipliers prove: beyond CERTIFICATE_ATOL
#: (so the claim itself is not proved), within GAP_OPTIMAL_RTOL (so the proved bound is still optimal).
WEAKER = 1e-8

P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]])
LINE = po.JointDistribution(np.array([[0.1, 0.2, 0.3, 0.25, 0.15]]))
DISTANCE = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :]).astype(float)
OTHER = po.JointDistribution([[0.1, 0.2], [0.3, 0.4]])


def _ldp(n: int) -> po.Problem:
    prior = np.random.default_rng(n).dirichlet(np.ones(n))
    return po.Problem(po.LDP(1.0), po.MutualInformation(prior), colgen={"progress": False})


def _ball() -> po.Problem:
    F = random_ball(np.random.default_rng(9), (2, 4), 1000)
    return po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen={"progress": False})


#: (checker method, problem, route, the checker's size threshold to lower so that this method is the
#: one that runs on a small cone — None when the cone reaches the method by itself).
SLICE_CASES: list[tuple[str, Callable[[], po.Problem], str, tuple[object, str] | None]] = [
    ("envelope cone: every product", _ball, "vertex", None),
    ("LDP cone: every staircase column", lambda: _ldp(8), "colgen", (envelope, "MAX_WORK")),
    ("envelope cone: Lagrangian bounds", _ball, "colgen", (envelope, "MAX_WORK")),
    ("LIP cone", lambda: po.Problem(po.LIP(1.0, P), po.MutualInformation(P)), "vertex", None),
    (
        "tree cone",
        lambda: po.Problem(
            po.MetricLDP(0.5, DISTANCE), po.MutualInformation(LINE), colgen={"progress": False}
        ),
        "colgen",
        None,
    ),
    (
        "f-divergence: the upper hull",
        lambda: po.Problem(
            po.MetricLDP(0.5, DISTANCE),
            po.FDivergence("kl", LINE.p_x, np.roll(LINE.p_x, 1)),
            colgen={"progress": False},
        ),
        "colgen",
        None,
    ),
    (
        "piecewise-linear utility",
        lambda: po.Problem(po.MetricLDP(0.5, DISTANCE), po.FDivergence("tv", LINE.p_x, np.roll(LINE.p_x, 1))),
        "vertex",
        None,
    ),
    (
        "exact vertex enumeration",
        lambda: po.Problem(po.PML(1.0, po.L1Ball(P, radius=0.05)), po.MutualInformation(P)),
        "vertex",
        None,
    ),
]


def _lowered(bound: SliceBound, delta: float) -> SliceBound:
    return SliceBound.build(bound.duals, delta, bound.normalisation, bound.weights, bound.method)


def _scale(bound: SliceBound) -> float:
    return max(1.0, abs(float(np.sum(bound.duals))))


def _proved_delta(bound: SliceBound, proved_upper: float) -> float:
    """The δ̄ a check's ``proved_upper`` stands for (mutual information and f-divergences: core units)."""
    return (proved_upper - float(np.sum(bound.duals))) / float(np.sum(bound.weights))


def _solve_claiming(monkeypatch, problem: po.Problem, route: str, claim) -> po.Solution:
    """``problem`` solved on ``route`` with the route's bounds replaced by ``claim`` (and no verdict of
    the route's own), so that ``Problem._finish`` has the checker prove exactly that claim."""
    kind = type(ROUTES[route])
    solve = kind.solve

    def claiming(self, data, deadline):
        return dataclasses.replace(solve(self, data, deadline), bounds=(claim,), check=None)

    monkeypatch.setattr(kind, "solve", claiming)
    return problem.solve(route=route)


@pytest.mark.parametrize(
    ("method", "build", "route", "threshold"), SLICE_CASES, ids=[c[0] for c in SLICE_CASES]
)
def test_every_slice_method_uses_what_it_proves(monkeypatch, method, build, route, threshold):
    if threshold is not None:
        monkeypatch.setattr(*threshold, 0)
    problem = build()
    solution = problem.solve(route=route)
    assert solution.status is po.Status.OPTIMAL, solution.reason
    bound = solution.certificate.bound
    assert isinstance(bound, SliceBound)
    cone, utility = problem.get_problem_data().cone, problem.utility
    first = check_bound(cone, utility, bound)
    assert first.valid, first.reason
    assert method in first.method, first.method
    # The claim lowered to half the comparison's tolerance below what the checker proves: proved, and
    # the solution reports the checker's bound, above the claim.
    tolerance = CERTIFICATE_ATOL * _scale(bound)
    nudged = _lowered(bound, _proved_delta(bound, first.proved_upper) - tolerance / 2)
    check = check_bound(cone, utility, nudged)
    assert check.valid, check.reason
    assert check.proved_upper > upper_in_units(nudged, utility)
    reported = _solve_claiming(monkeypatch, problem, route, nudged)
    assert reported.status is po.Status.OPTIMAL, reported.reason
    assert reported.certificate.checked
    assert reported.upper == pytest.approx(check.proved_upper, rel=1e-12, abs=1e-12)
    assert reported.upper > upper_in_units(nudged, utility)
    # Lowered below the optimum: a column of the cone exceeds the claim.
    lowered = _lowered(bound, bound.delta - LOWERED * _scale(bound))
    refuted = check_bound(cone, utility, lowered)
    assert refuted.refuted, refuted.reason
    with pytest.raises(po.SolverError, match="refuted"):
        _solve_claiming(monkeypatch, problem, route, lowered)


def test_the_linear_method_uses_the_bound_its_multipliers_prove(monkeypatch):
    # The cvxpy route's claim for a linear utility sits a rounding error below what the checker's
    # own supergradient proves from its multipliers (the geo-indistinguishability case): the solution
    # is OPTIMAL with the proved bound, not FEASIBLE.
    problem = po.Problem(po.MetricLDP(0.5, DISTANCE), po.ExpectedDistortion(LINE.p_x, DISTANCE))
    solution = problem.solve(route="cvxpy")
    bound = solution.certificate.bound
    assert isinstance(bound, LinearBound)
    cone, matrix = problem.get_problem_data().cone, solution.mechanism.matrix
    first = check_bound(cone, problem.utility, bound, mechanism=matrix)
    assert first.valid
    assert "Lagrangian dual of the linearised utility" in first.method
    proved = first.proved_upper
    below = dataclasses.replace(bound, upper=proved - WEAKER * max(1.0, abs(proved)))
    check = check_bound(cone, problem.utility, below, mechanism=matrix)
    assert not check.valid
    assert not check.refuted
    assert check.proved_upper == pytest.approx(proved, rel=1e-12)
    weaker, proof = weaker_claim(below, check)
    assert proof.valid
    assert weaker.upper == pytest.approx(proved, rel=1e-12)
    assert WEAKER < GAP_OPTIMAL_RTOL  # so the proved bound is still an optimality proof
    reported = _solve_claiming(monkeypatch, problem, "cvxpy", below)
    assert reported.status is po.Status.OPTIMAL, reported.reason
    assert reported.certificate.checked
    assert reported.upper == pytest.approx(proved, rel=1e-12)
    assert "not the claimed" in reported.certificate.check.reason
    # Below the design's own value: the claim contradicts a feasible point.
    lowered = dataclasses.replace(bound, upper=solution.value - LOWERED * max(1.0, abs(solution.value)))
    with pytest.raises(po.SolverError, match="below its own mechanism's value"):
        _solve_claiming(monkeypatch, problem, "cvxpy", lowered)


def test_the_theorem_method_uses_the_bound_the_theorem_gives():
    # The chain rule re-derived by the checker: a claim a little below is used as the theorem's bound.
    problem = _ball()
    cone = problem.get_problem_data().cone
    parameters = {"eps": 1.0, "shape": problem.definition.uncertainty.center.shape}
    found = check_bound(cone, problem.utility, TheoremBound("chain rule", 10.0, parameters))
    assert found.valid
    assert found.proved_upper is not None
    below = TheoremBound("chain rule", found.proved_upper - LOWERED, parameters)
    check = check_bound(cone, problem.utility, below)
    assert not check.valid
    assert not check.refuted
    weaker, proof = weaker_claim(below, check)
    assert proof.valid
    assert weaker.upper == pytest.approx(found.proved_upper, rel=1e-12)
