"""The compiler's refusals: each bad input gets a privopt error that says what was expected."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt import memory
from privopt.compiler.cone import RowCone


def _contradiction() -> po.RatioConstraints:
    """w0 + w1 <= e^0 · w0 forces w1 = 0 in every column: no row x = 1 can sum to 1."""
    return po.RatioConstraints(
        [(po.weights([1.0, 1.0]), po.weights([1.0, 0.0]))], 0.0, n_inputs=2, name="Contradiction"
    )


def test_infeasible_cone():
    with pytest.raises(
        po.InfeasibleError,
        match=r"RatioConstraints\('Contradiction', eps=0, 1 pair\): no mechanism has all its columns in the cone",
    ):
        po.Problem(_contradiction(), po.MutualInformation([0.5, 0.5])).solve()


def test_utility_route_mismatch():
    p = np.full(3, 1 / 3)
    with pytest.raises(
        po.ValidationError, match="utility: expected a sub-convex utility on the vertex route"
    ):
        po.Problem(po.LDP(1.0), po.ExpectedDistortion(p)).solve(route="vertex")
    with pytest.raises(po.ValidationError, match="utility: expected a concave utility on the cvxpy route"):
        po.Problem(po.LDP(1.0), po.MutualInformation(p)).solve(route="cvxpy")
    with pytest.raises(
        po.ValidationError, match="route: expected one of 'auto', 'vertex', 'colgen', 'lp', 'cvxpy'"
    ):
        po.Problem(po.LDP(1.0), po.MutualInformation(p)).solve(route="simplex")


def test_vertex_estimate_above_limit(example1):
    F = po.RenyiBall.confidence(example1)
    problem = po.Problem(
        po.SensitiveLDP(1.0, F), po.MutualInformation(example1), vertex_limit=10, colgen={"progress": False}
    )
    with pytest.raises(
        po.LimitError, match=r"vertex enumeration refused: .*McMullen.*above vertex_limit=10.*Remedies"
    ):
        problem.solve(route="vertex")
    # The automatic route explains that it switched to column generation instead.
    solution = problem.solve()
    assert solution.route == "colgen"
    assert "above vertex_limit=10: column generation" in solution.reason


@pytest.mark.slow
def test_time_limit_is_honoured():
    rng = np.random.default_rng(1)
    counts = rng.multinomial(1000, rng.dirichlet(np.full(12, 0.5))).reshape(3, 4) + 1
    P = po.JointDistribution.from_counts(counts)
    problem = po.Problem(
        po.SensitiveLDP(0.5, po.RenyiBall.confidence(P)),
        po.MutualInformation(P),
        time_limit=1.0,
        backend="ppl",
    )
    with pytest.raises(
        po.LimitError, match=r"did not finish within [\d.]+ s and was stopped.*route='colgen'"
    ):
        problem.solve(route="vertex")
    # The automatic route does not walk into the wall: 3×4 is predicted slow, so column generation
    # answers, with a certified bound and a status that says how far it got in the time it had.
    solution = problem.solve()
    assert solution.route == "colgen"
    assert "predicted" in solution.reason
    assert solution.lower <= solution.upper
    assert solution.status in (
        po.Status.OPTIMAL,
        po.Status.OPTIMAL_WITHIN_GAP,
        po.Status.LIMIT_REACHED,
        po.Status.FEASIBLE,
    )


def test_bad_options(example1):
    mi = po.MutualInformation(example1)
    with pytest.raises(po.ValidationError, match="envelope: expected 'lower', 'box' or 'facets:k'"):
        po.Problem(po.LDP(1.0), mi, envelope="tight")
    with pytest.raises(
        po.ValidationError,
        match="envelope: expected 'lower', 'box' or 'facets:k' with k >= 1, got 'facets:0'",
    ):
        po.Problem(po.LDP(1.0), mi, envelope="facets:0")
    with pytest.raises(po.ValidationError, match="backend: expected 'auto', 'cdd' or 'ppl'"):
        po.Problem(po.LDP(1.0), mi, backend="lrs")
    with pytest.raises(po.ValidationError, match="time_limit"):
        po.Problem(po.LDP(1.0), mi, time_limit=-1)
    with pytest.raises(
        po.ValidationError, match="utility: expected a utility over the definition's 4 inputs"
    ):
        po.Problem(po.SensitiveLDP(1.0, example1), po.MutualInformation([0.5, 0.5]))
    with pytest.raises(po.ValidationError, match="utility: expected a privopt utility"):
        po.Problem(po.LDP(1.0), "mutual information")


def test_unsupported_combinations(example1):
    # Refused when the definition is written, naming the pair and how each side depends on P. (Over
    # a Rényi ball, a polytope or an ℓ1 ball LIP has the rectangular rule's joint envelope; the whole
    # simplex, whose rectangular rule is exact, has none.)
    with pytest.raises(
        po.NotSupportedError,
        match=r"LIP over Simplex.*the pair LIP upper: P\(Y=y\|S=0\) <= e\^ε P\(Y=y\) is not affine in the distribution in one way"
        r".*left side is affine in a conditional.*right side affine in the joint P",
    ):
        po.LIP(1.0, po.Simplex((2, 2)))
    with pytest.raises(po.ValidationError, match=r"radius: expected β < 2·min P̂"):
        po.Problem(po.PML(1.0, po.L1Ball(example1, 0.2)), po.MutualInformation(example1)).solve()
    # PML leaves a symbol of prior 0 unconstrained, so e_2 is a vertex, where KL(P0 W || P1 W) is infinite.
    with pytest.raises(po.ValidationError, match="utility: expected finite values"):
        po.Problem(
            po.PML(1.0, [0.5, 0.5, 0.0]), po.FDivergence("kl", [0.0, 0.0, 1.0], [0.5, 0.5, 0.0])
        ).solve()


def test_vertex_route_refuses_a_huge_cone_before_building_its_exact_rows(monkeypatch):
    """15 × 16 (Adult's occupation × education size): the McMullen bound is beyond the float range
    (about 10^366); the refusal formats it and comes before the rational rows are built."""
    rng = np.random.default_rng(3)
    counts = rng.multinomial(32_561, rng.dirichlet(np.full(240, 0.5))).reshape(15, 16)
    counts[:, 0] += 1  # every s observed
    F = po.RenyiBall.confidence(po.JointDistribution.from_counts(counts))

    def not_expected(self):  # pragma: no cover - reached only if the refusal comes too late
        raise AssertionError("exact rows built before the vertex limit was checked")

    monkeypatch.setattr(RowCone, "exact_matrix", not_expected)
    with pytest.raises(po.LimitError, match=r"about 10\^\d{3} vertices.*route='colgen'"):
        po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center)).solve(route="vertex")


def test_a_compilation_too_large_for_memory_is_refused_with_a_limit_error():
    # 200 × 200 over a Rényi ball would need ~13 GB of envelope vectors; the compiler counts what it
    # stores and refuses once past the memory budget (here lowered so that a small cone crosses it).
    rng = np.random.default_rng(0)
    P = po.JointDistribution.from_counts(rng.integers(1, 50, size=(6, 6)))
    with (
        memory.limited(10_000),
        pytest.raises(
            po.LimitError,
            match=r"statistics of the rectangular rule .* needs about .* KiB, more than the memory limit",
        ),
    ):
        po.SensitiveLDP(1.0, po.RenyiBall.confidence(P)).row_cone()
