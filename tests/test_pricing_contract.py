"""The pricing contract (routes/pricing/contract.py) and the checker's method registry
(certificates/methods.py): a user's pricer and checker method for a cone privopt does not ship certify a
column-generation run, and every shipped pricer's claims reach a checker method named for them."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator

import numpy as np
import pytest

import privopt as po
from privopt.certificates import NotProved, NotProvedReason, check_bound
from privopt.certificates.methods import (
    METHODS,
    CheckMethod,
    Proof,
    SliceContext,
    applicability,
    attempt,
    method_for,
    register_check_method,
    unregister_check_method,
)
from privopt.compiler.implied import pair_endpoints
from privopt.routes.pricing import (
    PRICERS,
    PricedColumn,
    PricerEntry,
    PricerTraits,
    PricingOutcome,
    PricingRequest,
    Refusal,
    RefusalReason,
    certified_pricer,
    register_pricer,
    unregister_pricer,
)
from privopt.routes.pricing.contract import single_session
from privopt.routes.pricing.global_pricer import GlobalPricer
from privopt.routes.pricing.graph import GraphPricer
from tests.test_independent_reporting import random_ball

#: The toy enumeration's rounding margin on a reduced cost (relative to the magnitudes summed).
TOY_MARGIN = 1e-12


class CyclicLDP(po.RatioConstraints):
    """A definition privopt ships no pricer for: each input protected against the next one round a
    cycle, ``w[i] <= e^ε w[i+1 mod n]`` (not a tree, not an envelope cone)."""

    def __init__(self, eps: float, n: int) -> None:
        super().__init__([(po.given(x=i), po.given(x=(i + 1) % n)) for i in range(n)], eps=eps)


class IrregularCycle(po.RatioConstraints):
    """The cycle with incommensurable levels (``ε`` and ``√2·ε`` in turn): no lattice holds its rays, so
    neither the tree nor the graph pricer takes it."""

    def __init__(self, eps: float, n: int) -> None:
        levels = [1.0 if i % 2 == 0 else float(np.sqrt(2.0)) for i in range(n)]
        super().__init__([(po.given(x=i), po.given(x=(i + 1) % n), levels[i]) for i in range(n)], eps=eps)


def _cycle(cone) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The cycle's pairs ``(a, b, length)`` when the cone is exactly one directed cycle of pairs."""
    blocks, a, b, length = pair_endpoints(cone)
    n = cone.n_inputs
    if blocks.size != n or len(cone.blocks) != n or n < 3 or not np.array_equal(np.sort(a), np.arange(n)):
        return None
    return (a, b, length) if np.array_equal(b, (a + 1) % n) else None


def _slice_vertices(cone, nu: np.ndarray) -> np.ndarray:
    """Every vertex of ``{w >= 0, w_a <= e^L w_b, νᵀw = 1}`` by brute force over active sets (tiny n)."""
    a, b, length = _cycle(cone)
    n = cone.n_inputs
    rows = [np.eye(n)[i] * -1.0 for i in range(n)]  # -w_i <= 0
    for i, j, level in zip(a, b, length, strict=True):
        row = np.zeros(n)
        row[i], row[j] = 1.0, -np.exp(level)
        rows.append(row)
    G = np.array(rows)
    found = []
    for active in itertools.combinations(range(len(G)), n - 1):
        system = np.vstack([G[list(active)], nu])
        if abs(np.linalg.det(system)) < 1e-12:
            continue
        w = np.linalg.solve(system, np.concatenate([np.zeros(n - 1), [1.0]]))
        if np.all(G @ w <= 1e-10):
            found.append(np.clip(w, 0.0, None))
    return np.unique(np.round(np.array(found), 12), axis=0)


class ToyCyclePricer:
    """Exact pricing on a cycle cone by enumerating its slice (a user's pricer, for the test)."""

    traits = PricerTraits("toy cycle enumeration", "prior", exact_every_round=True, gap_share=0.5)

    def __init__(self, cone, utility: po.MutualInformation) -> None:
        self.utility = utility
        self.vertices = _slice_vertices(cone, utility.p)
        self.calls = 0

    @property
    def weights(self) -> np.ndarray:
        return self.utility.p

    def price(self, duals, request: PricingRequest) -> PricingOutcome:
        self.calls += 1
        columns = self.vertices.T
        ratios = self.utility.mu(columns) - duals @ columns  # νᵀw = 1 on the slice
        margin = TOY_MARGIN * float(np.abs(ratios).max() + 1.0)
        order = np.argsort(-ratios)[: request.max_columns]
        found = tuple(PricedColumn(columns[:, k] / columns[:, k].sum(), float(ratios[k])) for k in order)
        best = float(ratios.max())
        return PricingOutcome(best + margin, best, found, len(ratios), 0, True, request.tolerance, 0.0)

    def prior_free_duals(self) -> list[np.ndarray]:
        return []

    def session(self, workers: int) -> contextlib.AbstractContextManager:
        return single_session(self)


def _toy_entry(utility, cone):
    if not isinstance(utility, po.MutualInformation) or _cycle(cone) is None:
        return Refusal(RefusalReason.CONE, "not a cycle of single-input pairs with MI")
    return ToyCyclePricer(cone, utility)


def _toy_applies(context: SliceContext) -> NotProved | None:
    if _cycle(context.cone) is None or not isinstance(context.utility, po.MutualInformation):
        return NotProved(NotProvedReason.CONE, "not a cycle of single-input pairs with MI")
    if not np.allclose(context.weights, context.utility.p):
        return NotProved(NotProvedReason.CLAIM, "ν is not the prior")
    return None


def _toy_proof(context: SliceContext) -> Proof:
    vertices = _slice_vertices(context.cone, context.weights).T
    p = context.utility.p
    mu = p @ (vertices * np.log(np.where(vertices > 0, vertices, 1.0) / np.maximum(p @ vertices, 1e-300)))
    ratios = mu - context.duals @ vertices
    best = int(np.argmax(ratios))
    margin = TOY_MARGIN * float(np.abs(ratios).max() + 1.0)
    return Proof(float(ratios[best]) + margin, vertices[:, best], f"{vertices.shape[1]} vertices")


@pytest.fixture
def toy_registered() -> Iterator[None]:
    register_pricer(PricerEntry("toy cycle", 5, _toy_entry, proved_by=("toy cycle check",)))
    register_check_method(
        CheckMethod("toy cycle check", "toy: every vertex of the cycle's slice", 5, _toy_applies, _toy_proof)
    )
    yield
    unregister_pricer("toy cycle")
    unregister_check_method("toy cycle check")


def test_a_users_pricer_and_checker_method_certify_column_generation(toy_registered):
    p = np.array([0.4, 0.3, 0.2, 0.1])
    problem = po.Problem(CyclicLDP(0.7, 4), po.MutualInformation(p), colgen={"progress": False})
    cone = problem.get_problem_data().cone
    pricer = certified_pricer(problem.utility, cone)
    assert isinstance(pricer, ToyCyclePricer)
    solution = problem.solve(route="colgen")
    assert solution.status is po.Status.OPTIMAL, solution.reason
    assert solution.certificate.checked
    assert solution.certificate.check.method.startswith("toy: every vertex of the cycle's slice")
    assert "toy cycle enumeration" in solution.certificate.bound.method
    assert pricer.calls >= 1
    exact = po.Problem(CyclicLDP(0.7, 4), po.MutualInformation(p)).solve(route="vertex")
    assert solution.value == pytest.approx(exact.value, rel=1e-7)
    # A claim below the optimum is refuted by the user's method too (the verdict recomputes its column).
    lowered = type(solution.certificate.bound).build(
        solution.certificate.bound.duals - 1e-4, solution.certificate.bound.delta, "prior", p, "lowered"
    )
    assert check_bound(cone, problem.utility, lowered).refuted


def test_without_the_users_entries_the_graph_pricer_takes_the_cycle_and_a_bare_mu_is_refused():
    problem = po.Problem(CyclicLDP(0.7, 4), po.MutualInformation(np.full(4, 0.25)))
    assert isinstance(certified_pricer(problem.utility, problem.get_problem_data().cone), GraphPricer)
    # With incommensurable levels no lattice holds the rays: the global pricer takes the cycle.
    problem = po.Problem(IrregularCycle(0.7, 4), po.MutualInformation(np.full(4, 0.25)))
    cone = problem.get_problem_data().cone
    assert isinstance(certified_pricer(problem.utility, cone), GlobalPricer)
    # A utility that declares no form (only its μ) gets no certified pricer: every entry says why.
    bare = po.SubConvexUtility(lambda W: np.abs(W).max(axis=0), input_size=4)
    refused = certified_pricer(bare, cone)
    assert isinstance(refused, Refusal)
    assert all(entry.name in refused.message for entry in PRICERS)


def _shipped_cases() -> dict[str, po.Problem]:
    F = random_ball(np.random.default_rng(9), (2, 4), 1000)
    line = np.abs(np.subtract.outer(np.arange(6), np.arange(6))).astype(float)
    p = np.random.default_rng(1).dirichlet(np.ones(6))
    quiet = {"progress": False}
    return {
        "staircase": po.Problem(po.LDP(1.0), po.MutualInformation(p), colgen=quiet),
        "envelope": po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen=quiet),
        "tree": po.Problem(po.MetricLDP(0.5, line), po.MutualInformation(p), colgen=quiet),
        "f-divergence hull": po.Problem(
            po.MetricLDP(0.5, line), po.FDivergence("kl", p, np.roll(p, 1)), colgen=quiet
        ),
        "piecewise": po.Problem(CyclicLDP(0.7, 6), po.FDivergence("tv", p, np.roll(p, 1)), colgen=quiet),
        "graph": po.Problem(CyclicLDP(0.7, 5), po.MutualInformation(p[:5] / p[:5].sum()), colgen=quiet),
        # A cycle of incommensurable pairs with mutual information: no specialised pricer takes it.
        "global": po.Problem(IrregularCycle(0.7, 5), po.MutualInformation(p[:5] / p[:5].sum()), colgen=quiet),
    }


def test_every_shipped_pricer_is_registered_and_its_claims_reach_a_method_named_for_it():
    cases = _shipped_cases()
    names = {method.name for method in METHODS}
    assert {entry.name for entry in PRICERS} == set(cases)
    for entry in PRICERS:
        assert set(entry.proved_by) <= names, entry.name
        problem = cases[entry.name]
        solution = problem.solve(route="colgen")
        bound = solution.certificate.bound
        assert entry.build(problem.utility, problem.get_problem_data().cone).traits.method in bound.method
        cone = problem.get_problem_data().cone
        context = SliceContext(
            cone, problem.utility, bound.duals, bound.weights, bound.delta, bound.delta + 1e-9, float("inf")
        )
        chosen, _ = method_for(context)
        assert chosen is not None
        assert chosen.name in entry.proved_by, (entry.name, chosen.name)
        assert solution.certificate.checked, (entry.name, solution.certificate.checked_by)


def test_registries_refuse_what_is_not_an_entry():
    with pytest.raises(po.ValidationError, match="entry: expected a PricerEntry"):
        register_pricer(("toy", 1, _toy_entry, ("x",)))
    with pytest.raises(po.ValidationError, match="method: expected a CheckMethod"):
        register_check_method("toy")
    with pytest.raises(po.ValidationError, match="normalisation"):
        PricerTraits("toy", "ν")


def test_a_piecewise_linear_utility_is_certified_by_column_generation_on_any_cone():
    # μ(w) = max_y C_yᵀw, the pieces of an affine utility (expected distortion on a 4×4 Manhattan grid):
    # certified column generation prices one LP per piece and reaches the LP route's optimum.
    grid = po.Grid(4, 4)
    d = grid.distances("manhattan")
    prior = np.random.default_rng(3).dirichlet(np.ones(16))
    C = -(prior[:, None] * d)

    class Pieces(po.SubConvexUtility):
        def __init__(self) -> None:
            super().__init__(lambda V: (C.T @ V).max(axis=0), input_size=16, name="max_y C_yᵀw")

        def linear_pieces(self) -> np.ndarray:
            return C.T

    solution = po.Problem(po.MetricLDP(0.5, d), Pieces(), colgen={"progress": False}).solve(route="colgen")
    linear = po.Problem(po.MetricLDP(0.5, d), po.ExpectedDistortion(prior, d)).solve(route="lp")
    assert solution.status is po.Status.OPTIMAL, solution.reason
    assert solution.certificate.checked
    assert "piecewise-linear μ" in solution.certificate.bound.method
    assert solution.value == pytest.approx(linear.value, rel=1e-7)


def test_a_method_that_does_not_prove_hands_the_claim_to_the_next(monkeypatch):
    # A registered method that applies but cannot prove (it says why) is followed by the next one that
    # applies; the verdict names the method that proved the claim.
    from privopt.certificates import check_bound
    from privopt.certificates.claims import SliceBound

    p = np.array([0.4, 0.3, 0.2, 0.1])
    problem = po.Problem(CyclicLDP(0.7, 4), po.MutualInformation(p), colgen={"progress": False})
    bound = problem.solve(route="colgen").certificate.bound
    assert isinstance(bound, SliceBound)
    cone = problem.get_problem_data().cone
    calls = []

    def gives_up(context):
        calls.append(context.claim)
        return NotProved(NotProvedReason.DEADLINE, "a toy that never proves")

    register_check_method(
        CheckMethod("gives up", "a toy that never proves", 1, lambda context: None, gives_up)
    )
    try:
        verdict = check_bound(cone, problem.utility, bound)
    finally:
        unregister_check_method("gives up")
    assert calls == [bound.delta]
    assert verdict.valid
    assert "a toy that never proves" not in verdict.method


def test_a_users_method_that_still_returns_a_str_works_with_a_deprecation_warning():
    # Before NotProved, a method said why it does not apply (or why it failed) in a bare str: such a
    # method still works, its words read as a NotProved, with a DeprecationWarning naming it.
    p = np.array([0.4, 0.3, 0.2, 0.1])
    problem = po.Problem(CyclicLDP(0.7, 4), po.MutualInformation(p), colgen={"progress": False})
    bound = problem.solve(route="colgen").certificate.bound
    cone = problem.get_problem_data().cone
    context = SliceContext(
        cone, problem.utility, bound.duals, bound.weights, bound.delta, bound.delta, np.inf
    )
    words = CheckMethod("old words", "an old method", 1, lambda context: "not mine", _toy_proof)
    failure = CheckMethod(
        "old failure", "an old method that fails", 2, lambda context: None, lambda context: "gave up"
    )
    with pytest.warns(DeprecationWarning, match="'old words' returned a str from applicable.*NotProved"):
        assert applicability(words, context) == NotProved(NotProvedReason.CONE, "not mine")
    with pytest.warns(DeprecationWarning, match="'old failure' returned a str from prove.*NotProved"):
        assert attempt(failure, context) == NotProved(NotProvedReason.NUMERICS, "gave up")
    register_check_method(words)
    register_check_method(failure)
    try:
        with pytest.warns(DeprecationWarning, match="returned a str") as warned:
            verdict = check_bound(cone, problem.utility, bound)
    finally:
        unregister_check_method("old words")
        unregister_check_method("old failure")
    named = {
        method for method in ("'old words'", "'old failure'") for w in warned if method in str(w.message)
    }
    assert named == {"'old words'", "'old failure'"}
    assert verdict.valid  # the next method that applies proved the claim
    assert "an old method" not in verdict.method


def test_every_registered_method_says_why_not_with_a_not_proved():
    # On the shipped pricers' cones, with ν uniform and ν = p: every method applies (None) or says why
    # not with a typed NotProved, never a bare str.
    seen = set()
    for name, problem in _shipped_cases().items():
        cone = problem.get_problem_data().cone
        n = cone.n_inputs
        prior = getattr(problem.utility, "p", None)
        for weights in [np.full(n, 1.0 / n), *([np.asarray(prior)] if prior is not None else [])]:
            context = SliceContext(cone, problem.utility, np.zeros(n), weights, 0.0, 1e-9, np.inf)
            for method in METHODS:
                why = method.applicable(context)
                assert why is None or isinstance(why, NotProved), (name, method.name, why)
                if why is not None:
                    assert isinstance(why.reason, NotProvedReason)
                    assert str(why) == why.message != ""
                    seen.add(why.reason)
    assert {NotProvedReason.CONE, NotProvedReason.UTILITY, NotProvedReason.CLAIM} <= seen, seen
