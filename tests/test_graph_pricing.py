"""Graph cones (ratio pairs of single inputs on any graph: grid metrics, per-input budgets, policy graphs,
per-pair levels): the route's exact pricing (the lattice search with a closure LP as its oracle) and the
checker's own graph method, against exact enumeration of the slice's vertices (pplpy, rational
arithmetic) and against the vertex route's optimum."""

from __future__ import annotations

import time

import numpy as np
import pytest

import privopt as po
from privopt.certificates import NotProved, NotProvedReason, SliceBound, check_bound, vertices
from privopt.certificates import graph as checker
from privopt.certificates import tree as checker_tree
from privopt.routes.pricing import PricingRequest, Refusal, certified_pricer
from privopt.routes.pricing import graph as graph_module
from privopt.routes.pricing.graph import GraphCone, GraphPricer, graph_pricer, graph_structure


def _grid(rows: int, cols: int) -> np.ndarray:
    cells = [(i, j) for i in range(rows) for j in range(cols)]
    return np.array([[abs(a[0] - b[0]) + abs(a[1] - b[1]) for b in cells] for a in cells], dtype=float)


def _ratio(levels: np.ndarray, eps: float, name: str) -> po.RatioConstraints:
    n = levels.shape[0]
    pairs = [
        (po.given(x=a), po.given(x=b), float(levels[a, b]))
        for a in range(n)
        for b in range(n)
        if a != b and np.isfinite(levels[a, b])
    ]
    return po.RatioConstraints(pairs, eps=eps, n_inputs=n, name=name)


def _definition(rng: np.random.Generator, kind: str, n: int) -> po.PrivacyDefinition:
    eps = float(rng.choice([0.3, 0.7, 1.5]))
    if kind == "grid":
        return po.MetricLDP(eps, _grid(2, n // 2))
    if kind == "id-ldp":  # per-input budgets, each pair at the smaller one
        budgets = rng.choice([1.0, 2.0, 4.0], size=n)
        return _ratio(np.minimum.outer(budgets, budgets), eps, "ID-LDP")
    if kind == "blowfish":  # a policy graph: a path and random chords, one level both ways
        levels = np.full((n, n), np.inf)
        order = rng.permutation(n)
        levels[order[:-1], order[1:]] = levels[order[1:], order[:-1]] = 1.0
        for a, b in rng.integers(0, n, size=(n // 2, 2)):
            if a != b:
                levels[a, b] = levels[b, a] = 1.0
        return _ratio(levels, eps, "Blowfish")
    levels = np.full((n, n), 2.0)  # mixed levels, one way tighter than the other on some pairs
    levels[: n // 2, : n // 2] = 1.0
    levels[0, n - 1] = 1.0
    return _ratio(levels, eps, "mixed")


def _cases(seed: int):
    rng = np.random.default_rng(seed)
    for trial, kind in enumerate(["grid", "id-ldp", "blowfish", "mixed"] * 2):
        n = int(rng.integers(2, 4)) * 2
        p = rng.dirichlet(np.ones(n))
        if trial % 3 == 2:
            p[-1] = 0.0  # an input of prior 0 inside a component
            p /= p.sum()
        utility = (
            po.MutualInformation(p)
            if trial % 4 != 1
            else po.NormalizedMutualInformation(po.JointDistribution(p[None, :], n=1000))
        )
        cone = po.Problem(_definition(rng, kind, n), utility).get_problem_data().cone
        yield kind, cone, utility, rng.normal(0.0, 0.5, n) * np.maximum(p, 0.01)


@pytest.mark.parametrize(("seed", "exact_step"), [(5, False), (6, False), (7, False), (5, True), (8, True)])
def test_graph_pricing_and_the_checker_match_exact_enumeration(seed, exact_step, monkeypatch):
    """With ``exact_step`` the lattice search and the checker's bisection stop at once, so the pricer's
    MIP step (Dinkelbach, tangents of ``−P log P``) and the checker's exact proof carry everything."""
    if exact_step:  # the search and the bisection start the exact methods and then only wait for them
        monkeypatch.setattr(graph_module, "SEARCH_NODES", 0)
        monkeypatch.setattr(checker_tree, "BISECTION_NODES", 0)

        def idle(self, limits):
            if self.stop is not None:
                self.stop.wait(60.0)
            self.complete, self.upper = False, np.inf

        monkeypatch.setattr(graph_module.LatticeSearch, "resume", idle)
        monkeypatch.setattr(graph_module.LatticeSearch, "run", idle)  # no roots: no incumbent either
        monkeypatch.setattr(checker_tree, "_examine", lambda lattice, low, high, bound: (False, []))
        monkeypatch.setattr(checker_tree, "_bisect", lambda lattice, low, high, walks: [(low, high)])
    for kind, cone, utility, duals in _cases(seed):
        p = np.asarray(utility.p)
        exact = vertices.maximise_ratio(cone, utility, duals, p, 60.0)
        assert not isinstance(exact, NotProved)
        pricer = graph_pricer(utility, cone)
        assert isinstance(pricer, GraphPricer), (kind, pricer)
        outcome = pricer.price(duals, PricingRequest(tolerance=1e-10))
        # δ̄ is proved above the exact maximum and tight; the best column met is a maximiser
        assert exact.value - 1e-9 <= outcome.upper <= exact.value + 1e-7 * (1.0 + abs(exact.value)), kind
        assert outcome.lower == pytest.approx(exact.value, abs=1e-8), kind
        assert outcome.complete
        assert cone.violation(np.column_stack([c.column for c in outcome.columns])) <= 1e-9
        form = checker.graph_form(cone)
        assert isinstance(form, checker.GraphForm)
        deadline = time.perf_counter() + 60.0
        proof = checker_tree.prove_ratio_bound(form, utility, duals, p, exact.value + 1e-8, deadline)
        assert proof.proved, (kind, proof.reason)
        lowered = checker_tree.prove_ratio_bound(form, utility, duals, p, exact.value - 1e-4, deadline)
        assert not lowered.proved
        assert lowered.reason.startswith("refuted")
        assert lowered.column is not None
        assert cone.violation(lowered.column[:, None]) <= 1e-9


def test_the_roots_partition_the_representatives():
    """Every walk of a 2 × 3 grid's lattice with some input at its cap and none above lies under exactly
    one of the search's first nodes (brute force over the lattice)."""
    p = np.random.default_rng(2).dirichlet(np.ones(6))
    cone = po.Problem(po.MetricLDP(0.5, _grid(2, 3)), po.MutualInformation(p)).get_problem_data().cone
    pricer = graph_pricer(po.MutualInformation(p), cone)
    assert isinstance(pricer, GraphPricer)
    (component,) = pricer.components
    roots = component.roots()
    grids = np.meshgrid(*[np.arange(component.size)] * 6, indexing="ij")
    walks = np.stack([g.ravel() for g in grids], axis=1)
    steps = component.steps
    feasible = np.all(walks[:, :, None] - walks[:, None, :] <= steps[None, :, :], axis=(1, 2))
    counted = feasible & np.all(walks <= component.cap, axis=1) & np.any(walks == component.cap, axis=1)
    inside = np.array([np.all((walks >= low) & (walks <= high), axis=1) for low, high in roots])
    assert counted.sum() > 10
    assert np.all(inside[:, counted].sum(axis=0) == 1)
    assert not np.any(inside[:, feasible & ~counted])


def test_a_grid_is_priced_by_the_graph_pricer_and_matches_the_vertex_route():
    """A 3 × 3 Manhattan grid: column generation with graph pricing is certified, the checker's graph
    method proves it, and the vertex route's LP agrees."""
    prior = np.random.default_rng(9).dirichlet(np.ones(9))
    problem = po.Problem(
        po.MetricLDP(0.6, _grid(3, 3)), po.MutualInformation(prior), colgen={"progress": False}
    )
    assert isinstance(certified_pricer(problem.utility, problem.get_problem_data().cone), GraphPricer)
    by_columns = problem.solve("colgen")
    assert by_columns.status is po.Status.OPTIMAL
    assert by_columns.certificate.checked
    assert "graph cone" in by_columns.certificate.check.method
    assert by_columns.value == pytest.approx(problem.solve("vertex").value, abs=1e-7)


_POSITIONS = np.array([0.0, 1.0, 1.0 + np.sqrt(2.0), 3.0])


@pytest.mark.parametrize(
    ("definition", "reason"),
    [
        (po.LDP(1.0), "single inputs"),
        (po.MetricLDP(0.5, np.abs(np.subtract.outer(_POSITIONS, _POSITIONS))), "unit"),
    ],
)
def test_cones_that_are_not_graph_cones_say_why(definition, reason):
    """LDP compiles to one group of every input and incommensurable distances leave no lattice: the route
    and the checker refuse them, each with its own reason."""
    cone = po.Problem(definition, po.MutualInformation(np.full(4, 0.25))).get_problem_data().cone
    found = graph_structure(cone)
    assert isinstance(found, Refusal)
    assert reason in found.message
    refused = checker.graph_form(cone)
    assert isinstance(refused, NotProved)
    assert refused.reason == NotProvedReason.CONE


def test_a_pair_bounded_one_way_is_refused():
    """``w_0 <= e^ε w_1`` alone lets ``w_1 > 0 = w_0``: the rays are not all positive, so neither side
    reads a lattice."""
    definition = _ratio(
        np.array([[np.inf, 1.0, np.inf], [np.inf, np.inf, 1.0], [np.inf, 1.0, np.inf]]), 0.5, "one way"
    )
    cone = po.Problem(definition, po.MutualInformation(np.full(3, 1 / 3))).get_problem_data().cone
    found = graph_structure(cone)
    assert isinstance(found, Refusal)
    assert "both ways" in found.message
    assert isinstance(checker.graph_form(cone), NotProved)


def test_structure_of_a_grid():
    """A 3 × 3 grid: one component, unit ε, the 24 neighbour pairs essential (the rest implied)."""
    cone = (
        po.Problem(po.MetricLDP(0.5, _grid(3, 3)), po.MutualInformation(np.full(9, 1 / 9)))
        .get_problem_data()
        .cone
    )
    structure = graph_structure(cone)
    assert isinstance(structure, GraphCone)
    assert structure.unit == pytest.approx(0.5)
    assert len(structure.components) == 1
    assert structure.pairs.shape == (24, 2)
    assert np.array_equal(structure.steps, _grid(3, 3).astype(np.int64))


def test_both_closure_oracles_equal_brute_force():
    """The pricer's closure LP and the checker's dual bound give the largest ``Σ_i t_i(k_i)`` over walks
    within random level ranges, to rounding, on a 2 × 3 grid (brute force over the lattice)."""
    rng = np.random.default_rng(4)
    p = rng.dirichlet(np.ones(6))
    lam = rng.normal(0.0, 0.3, 6)
    cone = po.Problem(po.MetricLDP(0.5, _grid(2, 3)), po.MutualInformation(p)).get_problem_data().cone
    pricer = graph_pricer(po.MutualInformation(p), cone)
    assert isinstance(pricer, GraphPricer)
    form = checker.graph_form(cone)
    assert isinstance(form, checker.GraphForm)
    for component, lattice in [(pricer.components[0], None), (None, form.lattice(np.arange(6), p, lam))]:
        oracle = component if component is not None else lattice
        size = oracle.size
        steps = oracle.steps
        grids = np.meshgrid(*[np.arange(size)] * 6, indexing="ij")
        walks = np.stack([g.ravel() for g in grids], axis=1)
        feasible = walks[np.all(walks[:, :, None] - walks[:, None, :] <= steps[None, :, :], axis=(1, 2))]
        for _ in range(6):
            table = rng.normal(0.0, 1.0, (6, size))
            low = rng.integers(0, size // 2, 6)
            high = low + rng.integers(1, size // 2 + 1, 6)
            inside = feasible[np.all((feasible >= low) & (feasible <= np.minimum(high, size - 1)), axis=1)]
            high = np.minimum(high, size - 1)
            if component is not None:
                value, levels = component.best(table, low, high)
            else:
                value, levels = lattice.solve(table, low, high)
            if inside.shape[0] == 0:
                assert value == -np.inf
                continue
            expected = table[np.arange(6)[:, None], inside.T].sum(axis=0).max()
            assert value == pytest.approx(expected, abs=1e-9)
            assert levels is not None
            assert table[np.arange(6), levels].sum() == pytest.approx(expected, abs=1e-9)


def _claim(duals, delta, pricer) -> SliceBound:
    return SliceBound.build(
        duals, delta, pricer.traits.normalisation, pricer.weights, graph_module.GRAPH_METHOD
    )


@pytest.mark.parametrize("exact_step", [False, True])
def test_a_pair_dropped_from_the_pricer_only_loosens_it_a_pair_tightened_is_refuted(exact_step, monkeypatch):
    """Mutations of the pricer's reading of the cone. Leaving an essential pair out of its closure LP
    (and its MIP) relaxes them: ``δ̄`` can only grow, the checker still proves it, and the columns are
    moved into the cone. A pair *tightened* by one level shrinks the lattice: an under-reported ``δ̄``
    is refuted by the checker's own reading of the cone."""
    if exact_step:
        monkeypatch.setattr(graph_module, "SEARCH_NODES", 0)
    rng = np.random.default_rng(12)
    p = rng.dirichlet(np.ones(6))
    utility = po.MutualInformation(p)
    cone = po.Problem(po.MetricLDP(0.7, _grid(2, 3)), utility).get_problem_data().cone
    structure = graph_structure(cone)
    assert isinstance(structure, GraphCone)
    refuted = 0
    for k in range(structure.pairs.shape[0]):
        for mutation in ("drop", "tighten"):
            pairs, steps = structure.pairs, structure.steps.copy()
            if mutation == "drop":
                pairs = np.delete(pairs, k, axis=0)
            else:
                a, b = structure.pairs[k]
                steps[a, b] -= 1
            mutated = GraphCone(structure.unit, structure.components, steps, pairs)
            monkeypatch.setattr(graph_module, "graph_structure", lambda cone, m=mutated: m)
            pricer = graph_pricer(utility, cone)
            assert isinstance(pricer, GraphPricer)
            duals = p * rng.uniform(0.2, 0.8, 6)
            outcome = pricer.price(duals, PricingRequest(tolerance=1e-10))
            exact = vertices.maximise_ratio(cone, utility, duals, p, 60.0).value
            check = check_bound(cone, utility, _claim(duals, outcome.upper, pricer))
            if mutation == "drop":
                assert outcome.upper >= exact - 1e-9
                assert check.valid, (k, check.reason)
                assert all(cone.violation(c.column[:, None]) <= 1e-9 for c in outcome.columns)
            elif outcome.upper < exact - 1e-6:
                assert check.refuted, (k, check.reason)
                refuted += 1
    assert refuted >= 1  # some tightened pair binds at the maximiser


@pytest.mark.parametrize("kind", ["id-ldp", "mixed", "blowfish", "grid"])
def test_stars_keep_exactly_the_essential_pairs(kind):
    """The stars and the pairs left stand for exactly the essential pairs (``k_a − k_b <= s`` with the
    pair's own ``s``; a star's ``a = b`` is empty), and cliques of one level become stars."""
    rng = np.random.default_rng(3)
    n = 12
    p = rng.dirichlet(np.ones(n))
    cone = po.Problem(_definition(rng, kind, n), po.MutualInformation(p)).get_problem_data().cone
    structure = graph_structure(cone)
    assert isinstance(structure, GraphCone)
    stars, single = graph_module._stars(structure.pairs, structure.steps)
    covered = {(int(a), int(b)) for a, b in single}
    for sources, targets, s in stars:
        for a in sources:
            for b in targets:
                if a != b:
                    assert structure.steps[a, b] == s
                    covered.add((int(a), int(b)))
    assert covered == {(int(a), int(b)) for a, b in structure.pairs}
    if kind in ("id-ldp", "mixed"):
        assert stars
        bounds = single.shape[0] + sum(len(a) + len(b) for a, b, _ in stars)
        assert bounds < structure.pairs.shape[0]


def test_a_bound_of_level_zero_is_kept_and_a_negative_cycle_refused(monkeypatch):
    """The closure reads ``inf`` as a missing pair, so ``w_0 <= e^0 w_1`` (a level 0, which statistics'
    weights can produce) stays an edge — a dense 0 would read as no pair — and a cycle of negative total
    length, which admits only the zero column, is refused instead of raising from scipy."""
    inf = np.inf
    cone = (
        po.Problem(po.MetricLDP(0.5, _grid(1, 3)), po.MutualInformation(np.full(3, 1 / 3)))
        .get_problem_data()
        .cone
    )
    zero = np.array([[inf, 0.0, inf], [0.5, inf, 0.5], [inf, 0.5, inf]])
    monkeypatch.setattr(graph_module, "single_input_limits", lambda cone: zero.copy())
    structure = graph_structure(cone)
    assert isinstance(structure, GraphCone)
    assert structure.steps[0, 2] == 1  # 0 → 1 at level 0, then 1 → 2 at one unit of 0.5
    assert structure.steps[0, 1] == 0
    negative = np.array([[inf, -1.0, inf], [inf, inf, -1.0], [1.0, inf, inf]])
    monkeypatch.setattr(graph_module, "single_input_limits", lambda cone: negative.copy())
    refused = graph_structure(cone)
    assert isinstance(refused, Refusal)
    assert "negative" in refused.message


def test_a_child_reuses_its_parents_oracle_calls_where_their_maximisers_lie_in_it(monkeypatch):
    # A maximiser over a node that lies in its child is one over the child: reusing the parent's calls
    # (P's bounds, the last probe) changes no bound and no node of the search, only how many closure
    # LPs it solves.
    from privopt.routes.pricing import tree as tree_module

    rng = np.random.default_rng(11)
    p = rng.dirichlet(np.ones(25))
    utility = po.MutualInformation(p)
    cone = po.Problem(po.MetricLDP(0.7, _grid(5, 5)), utility).get_problem_data().cone
    duals = p * (1.0 + rng.normal(0.0, 0.3, 25))
    calls = [0]
    best = graph_module._GraphComponent.best

    def counted(self, table, low, high):
        calls[0] += 1
        return best(self, table, low, high)

    monkeypatch.setattr(graph_module._GraphComponent, "best", counted)
    monkeypatch.setattr(graph_module, "SEARCH_NODES", 10**9)  # the search alone
    outcomes = []
    for reuse in (True, False):
        if not reuse:
            monkeypatch.setattr(tree_module._Known, "within", staticmethod(lambda levels, low, high: False))
        calls[0] = 0
        pricer = graph_pricer(utility, cone)
        assert isinstance(pricer, GraphPricer)
        outcomes.append((pricer.price(duals, PricingRequest(tolerance=1e-12)), calls[0]))
    (reused, fewer), (fresh, more) = outcomes
    assert reused.nodes == fresh.nodes > 10  # the search branches (19 nodes on this instance when written)
    assert reused.upper == pytest.approx(fresh.upper, abs=1e-12)
    assert reused.lower == pytest.approx(fresh.lower, abs=1e-12)
    assert fewer < more
