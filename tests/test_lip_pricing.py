"""Exact pricing on LIP cones at a known distribution (privopt.routes.pricing.lip) and the checker's own
method for them (privopt.certificates.lip): the LP over every vertex of the slice without enumerating."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from privopt.solvers.lp import solve_lp

import privopt as po
from privopt.certificates import NotProved, vertices
from privopt.certificates import lip as checker_lip
from privopt.certificates.check import check_bound
from privopt.certificates.claims import SliceBound
from privopt.routes import vertex as vertex_route
from privopt.routes.pricing.lip import LipPricer

BACKEND = "LIP block masses (exact pricing)"


def _lip(shape: tuple[int, int], eps: float, seed: int, zero: bool = False) -> po.Problem:
    joint = np.random.default_rng(seed).dirichlet(np.ones(shape[0] * shape[1])).reshape(shape)
    if zero:
        joint[0, 0] = 0.0  # an input of probability 0: in no row of the cone
        joint /= joint.sum()
    P = po.JointDistribution(joint)
    return po.Problem(po.LIP(eps, P), po.MutualInformation(P))


@pytest.mark.parametrize(
    ("shape", "eps", "seed", "zero"),
    [((2, 3), 1.0, 1, False), ((3, 2), 0.5, 2, False), ((3, 3), 2.0, 3, False), ((2, 3), 1.0, 4, True)],
)
def test_lip_pricing_reaches_the_exact_enumerations_optimum(shape, eps, seed, zero):
    problem = _lip(shape, eps, seed, zero)
    solution = problem.solve()
    assert solution.route == "vertex"
    assert solution.stats.backend == BACKEND
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.checked
    assert "LIP cone" in solution.certificate.check.method
    exact = po.Problem(problem.definition, problem.utility, backend="ppl").solve(route="vertex")
    assert exact.stats.backend.startswith("ppl")
    assert solution.value == pytest.approx(exact.value, abs=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_the_checkers_lip_maximum_equals_exact_vertex_enumeration(seed):
    rng = np.random.default_rng(seed)
    shape = [(2, 2), (2, 3), (3, 2), (3, 3)][seed % 4]
    problem = _lip(shape, float(rng.uniform(0.3, 2.0)), 100 + seed)
    data = problem.get_problem_data()
    form = checker_lip.lip_form(data.cone)
    assert not isinstance(form, NotProved)
    weights = problem.utility.p
    assert checker_lip.applicable(form, problem.utility, weights) is None
    duals = rng.normal(0.0, 0.3, data.n_inputs)
    found = checker_lip.maximise_ratio(form, problem.utility, duals, None)
    exact = vertices.maximise_ratio(data.cone, problem.utility, duals, weights, 60.0)
    assert not isinstance(found, NotProved)
    assert not isinstance(exact, NotProved)
    assert found.value == pytest.approx(exact.value, abs=1e-9)
    # The column it returns attains it: R at the column is the value.
    column = found.column
    ratio = (problem.utility.mu(column[:, None])[0] - duals @ column) / (weights @ column)
    assert ratio == pytest.approx(found.value, abs=1e-9)


def test_a_lip_certificate_whose_bound_is_too_small_is_refuted():
    # The vertex LP's duals with one dual lowered by 0.05: the claimed δ̄ (0) no longer holds, and the
    # checker's LIP method finds the column that shows it.
    problem = _lip((3, 3), 1.0, 7)
    solution = problem.solve()
    bound = solution.certificate.bound
    assert isinstance(bound, SliceBound)
    duals = np.array(bound.duals)
    duals[int(np.argmax(problem.utility.p))] -= 0.05
    short = SliceBound.build(duals, bound.delta, bound.normalisation, bound.weights, bound.method)
    check = check_bound(problem.get_problem_data().cone, problem.utility, short)
    assert not check.valid
    assert check.refuted
    assert "LIP cone" in check.method
    # What it proves from those duals instead is still a valid bound (weak duality).
    assert solution.value - 1e-9 <= check.proved_upper


def test_a_lip_pricer_that_loses_vertices_is_caught_and_the_route_enumerates(monkeypatch):
    # The route's pricer made to forget every vertex with the free mass strictly inside its box: its
    # LP stops short, the independent checker refutes the duals, and the route enumerates instead.
    problem = _lip((3, 3), 1.0, 9)
    reference = po.Problem(problem.definition, problem.utility, backend="ppl").solve(route="vertex")
    vertices_of = LipPricer._vertices

    def corners_only(self):
        masses = vertices_of(self)
        factor = self.structure.factor
        on_bounds = np.all(np.isclose(masses, factor) | np.isclose(masses, 1.0 / factor), axis=1)
        return masses[on_bounds] if on_bounds.any() else masses[:1]

    monkeypatch.setattr(LipPricer, "_vertices", corners_only)
    solution = problem.solve(route="vertex")
    assert solution.stats.backend != BACKEND
    assert solution.value == pytest.approx(reference.value, abs=1e-9)
    assert solution.certificate.checked


def test_lip_on_adult_marital_status_by_education_is_solved_exactly(adult_dir):
    # Issue 25's table: column generation stopped at 2.3102 <= OPT <= 3.2789 (29.6 %); exact LIP
    # pricing solves the vertex LP (7 x 16 inputs) and the checker proves it.
    frame = po.datasets.load_adult(adult_dir, ["marital-status", "education"])
    P = po.JointDistribution.from_frame(frame, sensitive="marital-status", public="education")
    solution = po.Problem(po.LIP(1.0, P), po.MutualInformation(P)).solve()
    assert solution.status is po.Status.OPTIMAL
    assert solution.stats.backend == BACKEND
    assert solution.certificate.checked
    assert 2.3102 - 1e-4 <= solution.value <= 3.2789
    # A second route's lower bound: column generation's feasible mechanisms never beat it.
    heuristic = po.Problem(
        po.LIP(1.0, P), po.MutualInformation(P), time_limit=5.0, colgen={"progress": False}
    ).solve(route="colgen")
    assert heuristic.lower <= solution.value + 1e-9


def test_a_vertex_dropped_from_a_lip_enumeration_is_caught(monkeypatch):
    # Issue 24's mutation on a LIP cone: with back end "cdd" (no exact pricing) the first enumeration
    # loses the vertices its LP uses until the LP's optimum falls (checked below); the checker refutes
    # the LP's duals and the route enumerates again, reaching the optimum.
    problem = _lip((3, 3), 1.0, 11)
    reference = problem.solve()
    enumerate_slice = vertex_route.EnumerationStrategy._enumerate
    calls, lowered = [], []

    def losing(data, a_ub, backend, validate, deadline, seconds, auxiliary=0):
        vertices, result = enumerate_slice(data, a_ub, backend, validate, deadline, seconds, auxiliary)
        calls.append(backend)
        if len(calls) > 1:
            return vertices, result
        kept = vertices
        for _ in range(10):  # drop the vertices the LP uses until its optimum falls
            lp = solve_lp(
                problem.utility.mu(kept.T), a_eq=kept.T, b_eq=np.ones(kept.shape[1]), bounds=(0.0, None)
            )
            if lp.objective < reference.value - 1e-6:
                break
            kept = kept[lp.x <= 1e-12]
        lowered.append(lp.objective)
        return kept, dataclasses.replace(result, vertices=kept)

    monkeypatch.setattr(vertex_route.EnumerationStrategy, "_enumerate", staticmethod(losing))
    solution = po.Problem(problem.definition, problem.utility, backend="cdd").solve(route="vertex")
    assert lowered[0] < reference.value - 1e-6  # the mutation matters
    assert len(calls) >= 2  # refuted, then enumerated again
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.checked
    assert solution.value == pytest.approx(reference.value, abs=1e-9)
