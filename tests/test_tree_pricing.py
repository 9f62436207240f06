"""Tree cones (ratio pairs of single inputs forming a forest: metric LDP on a line or a tree): the route's
exact pricing (a dynamic program over lattice walks, Lagrangian bounds, branch and bound) and the
checker's own proof, against exact enumeration of the slice's vertices (pplpy, rational arithmetic) and
against the vertex route's optimum."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import privopt as po
from benchmarks.bench_families import _tree_distance
from privopt.certificates import NotProved, NotProvedReason, vertices
from privopt.certificates import tree as checker
from privopt.routes.pricing import PricingRequest, Refusal, certified_pricer
from privopt.routes.pricing.tree import TreeCone, TreePricer, tree_pricer, tree_structure


def _line(n: int) -> np.ndarray:
    return np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)


def _cases(seed: int):
    rng = np.random.default_rng(seed)
    for trial in range(8):
        n = int(rng.integers(3, 8))
        d = _line(n) if trial % 2 == 0 else _tree_distance(rng, n)
        p = rng.dirichlet(np.ones(n))
        if trial % 4 == 3:
            p[-1] = 0.0  # an input of prior 0 inside a component
            p /= p.sum()
        utility = (
            po.MutualInformation(p)
            if trial % 3
            else po.NormalizedMutualInformation(po.JointDistribution(p[None, :], n=1000))
        )
        eps = float(rng.choice([0.2, 0.5, 1.0]))
        cone = po.Problem(po.MetricLDP(eps, d), utility).get_problem_data().cone
        yield cone, utility, rng.normal(0.0, 0.5, n) * np.maximum(p, 0.01)


@pytest.mark.parametrize("seed", [3, 4])
def test_tree_pricing_and_the_checker_match_exact_enumeration(seed):
    for cone, utility, duals in _cases(seed):
        p = np.asarray(utility.p)
        exact = vertices.maximise_ratio(cone, utility, duals, p, 60.0)
        assert not isinstance(exact, NotProved)
        pricer = tree_pricer(utility, cone)
        assert isinstance(pricer, TreePricer)
        outcome = pricer.price(duals, PricingRequest(tolerance=1e-10))
        # δ̄ is proved above the exact maximum and tight; the best column met is a maximiser
        assert exact.value - 1e-9 <= outcome.upper <= exact.value + 1e-7 * (1.0 + abs(exact.value))
        assert outcome.lower == pytest.approx(exact.value, abs=1e-8)
        assert outcome.complete
        assert outcome.columns
        assert cone.violation(np.column_stack([c.column for c in outcome.columns])) <= 1e-9
        form = checker.tree_form(cone)
        assert not isinstance(form, NotProved)
        proof = checker.prove_ratio_bound(form, utility, duals, p, exact.value + 1e-8, None)
        assert proof.proved, proof.reason
        lowered = checker.prove_ratio_bound(form, utility, duals, p, exact.value - 1e-4, None)
        assert not lowered.proved
        assert lowered.reason.startswith("refuted")
        assert lowered.column is not None
        assert cone.violation(lowered.column[:, None]) <= 1e-9


def test_a_ceiling_stops_the_tree_search_early_and_the_bound_stays_valid():
    from privopt.routes.colgen import ColumnGenerationOptions
    from privopt.routes.colgen_route import column_generation

    n = 30
    p = np.random.default_rng(8).dirichlet(np.ones(n))
    utility = po.MutualInformation(p)
    distance = _tree_distance(np.random.default_rng(3), n)
    cone = po.Problem(po.MetricLDP(0.5, distance), utility).get_problem_data().cone
    pricer = tree_pricer(utility, cone)
    assert isinstance(pricer, TreePricer)
    # The duals of a short run, where the search branches (21 nodes to close).
    duals = column_generation(utility, cone, ColumnGenerationOptions(max_iterations=20, progress=False)).duals
    full = pricer.price(duals, PricingRequest(tolerance=1e-10))
    assert full.complete
    assert full.nodes > 10
    early = pricer.price(duals, PricingRequest(tolerance=1e-10, ceiling=0.9 * full.lower))
    assert early.lower >= 0.9 * full.lower  # a column reached the ceiling
    assert early.nodes < full.nodes
    assert not early.complete
    assert early.upper >= full.lower - 1e-12


def test_a_forest_with_an_input_in_no_pair():
    """Dropping the pairs of input 0 leaves it a component alone: its ray ``e_0`` is priced too."""
    rng = np.random.default_rng(11)
    p = rng.dirichlet(np.ones(5))
    utility = po.MutualInformation(p)
    cone = po.Problem(po.MetricLDP(0.5, _line(5)), utility).get_problem_data().cone
    groups = [int(np.flatnonzero(g.vectors[0])[0]) for g in cone.groups]
    kept = tuple(b for b in cone.blocks if 0 not in (groups[b.numerator], groups[b.denominator]))
    cone = dataclasses.replace(cone, blocks=kept)
    structure = tree_structure(cone)
    assert isinstance(structure, TreeCone)
    assert len(structure.components) == 2
    duals = np.full(5, 0.05) - 0.4 * p
    duals[0] = -0.2  # the lone input's ratio −λ_0/p_0 − log p_0 is the largest
    exact = vertices.maximise_ratio(cone, utility, duals, p, 60.0)
    assert not isinstance(exact, NotProved)
    outcome = tree_pricer(utility, cone).price(duals, PricingRequest(tolerance=1e-10))
    assert exact.value == pytest.approx(-duals[0] / p[0] - np.log(p[0]), rel=1e-9)
    assert outcome.lower == pytest.approx(exact.value, rel=1e-9)
    assert exact.value - 1e-9 <= outcome.upper <= exact.value + 1e-7


_GRID = np.array([[0, 1, 1, 2], [1, 0, 2, 1], [1, 2, 0, 1], [2, 1, 1, 0]], dtype=float)
_POSITIONS = np.array([0.0, 1.0, 1.0 + np.sqrt(2.0), 3.0])


@pytest.mark.parametrize(
    ("definition", "reason"),
    [
        (po.LDP(1.0), "single inputs"),
        (po.MetricLDP(0.5, _GRID), "tighter"),
        (po.MetricLDP(0.5, np.abs(np.subtract.outer(_POSITIONS, _POSITIONS))), "unit"),
    ],
)
def test_cones_that_are_not_tree_cones_say_why(definition, reason):
    """LDP compiles to one group of every input, a 2 × 2 grid's pairs have a cycle, and incommensurable
    distances leave no lattice: the route and the checker refuse them, each with its own reason."""
    cone = po.Problem(definition, po.MutualInformation(np.full(4, 0.25))).get_problem_data().cone
    found = tree_structure(cone)
    assert isinstance(found, Refusal)
    assert reason in found.message
    refused = checker.tree_form(cone)
    assert isinstance(refused, NotProved)
    assert refused.reason == NotProvedReason.CONE


def test_metric_line_past_enumeration_is_certified_and_checked():
    """``MetricLDP(0.3)`` on a 40-point line has ``2^39`` vertices: column generation with tree pricing
    closes the gap, and the checker proves the bound with its own method."""
    rng = np.random.default_rng(25)
    prior = rng.dirichlet(np.ones(40))
    problem = po.Problem(
        po.MetricLDP(0.3, _line(40)), po.MutualInformation(prior), colgen={"progress": False}
    )
    assert isinstance(certified_pricer(problem.utility, problem.get_problem_data().cone), TreePricer)
    solution = problem.solve()
    assert solution.status is po.Status.OPTIMAL
    assert solution.upper - solution.lower <= 1e-6 * solution.upper
    assert solution.certificate.checked
    assert solution.certificate.audit_passed
    assert "tree cone" in solution.certificate.check.method


def test_tree_route_equals_the_vertex_route():
    """On a 10-point line (512 vertices) column generation with tree pricing and the vertex LP agree."""
    rng = np.random.default_rng(7)
    prior = rng.dirichlet(np.ones(10))
    problem = po.Problem(
        po.MetricLDP(0.4, _line(10)), po.MutualInformation(prior), colgen={"progress": False}
    )
    by_vertices = problem.solve("vertex")
    by_columns = problem.solve("colgen")
    assert by_columns.status is po.Status.OPTIMAL
    assert by_columns.certificate.checked
    assert by_columns.value == pytest.approx(by_vertices.value, abs=1e-7)
