"""The checker's Lagrangian method for large envelope cones (privopt.certificates.lagrangian), against
the exact methods it stands in for: every product of block vertices at every event of ρ
(privopt.certificates.envelope) and exact rational vertex enumeration (privopt.certificates.vertices)."""

from __future__ import annotations

import time

import numpy as np
import pytest

import privopt as po
from privopt.certificates import (
    NotProved,
    NotProvedReason,
    SliceBound,
    check_bound,
    envelope,
    lagrangian,
    vertices,
    weaker_claim,
)
from privopt.certificates.envelope import EnvelopeForm
from privopt.certificates.objective import core_mu
from privopt.routes.colgen import ColumnGenerationOptions
from privopt.routes.colgen_route import column_generation
from privopt.routes.pricing import PricingRequest, Refusal, envelope_pricer


def _random_form(rng: np.random.Generator, sizes: list[int], self_pairs: bool) -> EnvelopeForm:
    """Groups ``L_s + c_s e_u`` with some zero entries of ``L``, factor ``e^ε``, ε ∈ {0.3, 1, 2}."""
    blocks, lowers, slacks, start = [], [], [], 0
    for k in sizes:
        blocks.append(np.arange(start, start + k))
        start += k
        lower = rng.dirichlet(np.full(k, 0.5)) * rng.uniform(0.0, 0.9)
        lower[rng.random(k) < 0.25] = 0.0
        lowers.append(lower)
        slacks.append(float(rng.uniform(0.1, 1.0)))
    factor = float(np.exp(rng.choice([0.3, 1.0, 2.0])))
    return EnvelopeForm(tuple(blocks), tuple(lowers), np.array(slacks), factor, self_pairs)


def _in_form(form: EnvelopeForm, column: np.ndarray) -> bool:
    """``a_s <= F b_{s'}`` for every pair of groups the form has (the cone's definition)."""
    a = [
        float(L @ column[x] + c * column[x].max())
        for x, L, c in zip(form.blocks, form.lower, form.slack, strict=True)
    ]
    b = [
        float(L @ column[x] + c * column[x].min())
        for x, L, c in zip(form.blocks, form.lower, form.slack, strict=True)
    ]
    pairs = [(s, t) for s in range(len(a)) for t in range(len(a)) if s != t or form.self_pairs]
    return all(a[s] <= form.factor * b[t] * (1 + 1e-9) for s, t in pairs) and bool(np.all(column >= 0))


def _ratio(utility: po.MutualInformation, duals: np.ndarray, column: np.ndarray) -> float:
    mu = float(core_mu(utility, column[:, None])[0])
    return (mu - float(duals @ column)) / float(utility.p @ column)


def test_the_lagrangian_proof_agrees_with_every_event_enumeration():
    # Random envelope cones (2 to 4 blocks, self pairs or not, one block with L = 0 as in LDP), mutual
    # information and NMI, inputs of zero weight (with arbitrary duals there) and random λ: the proof
    # succeeds at the exact maximum (plus the checker's tolerance), its bound is at least that maximum
    # and within the tolerance of it, and a claim 1e-7 below the maximum is refuted by a column of the
    # cone whose ratio, recomputed from μ, exceeds it.
    rng = np.random.default_rng(11)
    shapes = [[2, 3], [3, 3], [2, 2, 2], [4, 3], [5, 2], [3, 3, 2], [6], [4, 4], [2, 2, 2, 2]]
    kinds = {"self pairs": 0, "NMI": 0, "zero weights": 0, "one block": 0, "zero-weight columns": 0}
    for trial in range(54):
        sizes = shapes[trial % len(shapes)]
        form = _random_form(rng, sizes, self_pairs=len(sizes) == 1 or trial % 4 == 3)
        n = sum(sizes)
        if len(sizes) == 1 and trial % 2:  # LDP: one group, L = 0
            form = EnvelopeForm(form.blocks, (np.zeros(n),), np.ones(1), form.factor, True)
            kinds["one block"] += 1
        p = rng.dirichlet(np.full(n, 0.6))
        if trial % 3 == 0:
            p[rng.random(n) < 0.3] = 0.0
            p[rng.integers(n)] += 0.1
            p /= p.sum()
            kinds["zero weights"] += int(np.any(p == 0.0))
        nmi = trial % 4 == 1
        utility = po.NormalizedMutualInformation(p) if nmi else po.MutualInformation(p)
        kinds["NMI"] += nmi
        kinds["self pairs"] += form.self_pairs
        duals = p * rng.uniform(0.2, 1.5) + rng.normal(scale=0.1, size=n)
        exact = envelope.maximise_ratio(form, utility, duals, p, None)
        if isinstance(exact, NotProved):  # a column of zero weight: neither method proves anything
            assert exact.reason == NotProvedReason.CLAIM
            assert "νᵀw = 0" in exact.message
            proof = lagrangian.prove_ratio_bound(form, utility, duals, p, 1e6, None)
            assert not proof.proved, trial
            assert "νᵀw = 0" in proof.reason, trial
            kinds["zero-weight columns"] += 1
            continue
        limit = exact.value + exact.margin + 1e-9
        proof = lagrangian.prove_ratio_bound(form, utility, duals, p, limit, None)
        assert proof.proved, (trial, proof.reason)
        assert exact.value - 1e-12 * (1 + abs(exact.value)) <= proof.upper <= limit, trial
        lowered = exact.value - 1e-7
        refuted = lagrangian.prove_ratio_bound(form, utility, duals, p, lowered, None)
        assert not refuted.proved, trial
        assert refuted.column is not None, trial
        assert _in_form(form, refuted.column), trial
        assert _ratio(utility, duals, refuted.column) > lowered, trial
        assert refuted.reason.startswith("refuted")
    assert all(count >= 1 for count in kinds.values()), kinds
    assert kinds["zero weights"] - kinds["zero-weight columns"] >= 4, kinds


def _problem(rng: np.random.Generator, trial: int) -> po.Problem:
    shape = [(2, 3), (3, 3), (2, 4), (3, 2)][trial % 4]
    P = po.JointDistribution(rng.dirichlet(np.full(shape[0] * shape[1], 0.7)).reshape(shape), n=500)
    eps = float(rng.choice([0.5, 1.0, 2.0]))
    definition = [
        po.SensitiveLDP(eps, po.RenyiBall.confidence(P)),
        po.LDP(eps),
        po.SensitiveLDP(eps, po.Simplex(shape)),
    ][trial % 3]
    utility = po.NormalizedMutualInformation(P) if trial % 5 == 2 else po.MutualInformation(P)
    return po.Problem(definition, utility, self_pairs=trial % 4 == 1)


def test_the_lagrangian_proof_agrees_with_exact_vertex_enumeration_of_compiled_cones():
    # Cones compiled from definitions (Rényi balls, LDP, the simplex), against the exact rational vertex
    # enumeration of the slice, which shares nothing with either envelope method; refuting columns
    # satisfy the compiled rows.
    rng = np.random.default_rng(12)
    for trial in range(12):
        problem = _problem(rng, trial)
        cone = problem.get_problem_data().cone
        form = envelope.envelope_form(cone)
        assert not isinstance(form, NotProved), form
        utility = problem.utility
        p = utility.p
        duals = p * rng.uniform(0.2, 1.5) + rng.normal(scale=0.05, size=cone.n_inputs)
        exact = vertices.maximise_ratio(cone, utility, duals, p, 60.0)
        assert not isinstance(exact, NotProved), exact
        proof = lagrangian.prove_ratio_bound(form, utility, duals, p, exact.value + 1e-9, None)
        assert proof.proved, (trial, proof.reason)
        assert proof.upper >= exact.value - 1e-12 * (1 + abs(exact.value)), trial
        refuted = lagrangian.prove_ratio_bound(form, utility, duals, p, exact.value - 1e-7, None)
        assert not refuted.proved, trial
        assert refuted.column is not None, trial
        assert cone.violation(refuted.column[:, None]) <= 1e-9, trial
        assert _ratio(utility, duals, refuted.column) > exact.value - 1e-7, trial


@pytest.fixture
def colgen_certificate():
    """A column-generation certificate (ν = p) on a 3×3 χ²-ball cone, its problem and cone."""
    P = po.JointDistribution(np.random.default_rng(13).dirichlet(np.full(9, 0.7)).reshape(3, 3), n=1000)
    problem = po.Problem(po.SensitiveLDP(1.0, po.RenyiBall.confidence(P)), po.MutualInformation(P))
    cone = problem.get_problem_data().cone
    result = column_generation(problem.utility, cone, ColumnGenerationOptions(progress=False))
    assert result.certificate is not None
    bound = result.bounds[0]
    assert isinstance(bound, SliceBound)
    assert bound.normalisation == "prior"
    return problem, cone, bound, result.certificate.lower


def test_check_bound_uses_the_lagrangian_method_where_enumeration_is_too_large(
    monkeypatch, colgen_certificate
):
    # With the event enumeration's work limit at 0 the checker takes the Lagrangian method: the route's
    # claim is proved with the same verdict, and a claim below a column the route itself found is refuted
    # by a column of the compiled cone.
    problem, cone, bound, found = colgen_certificate
    exact = check_bound(cone, problem.utility, bound)
    assert exact.valid
    assert "every event" in exact.method
    monkeypatch.setattr(envelope, "MAX_WORK", 0.0)
    check = check_bound(cone, problem.utility, bound)
    assert check.valid, check.reason
    assert "Lagrangian" in check.method
    assert check.proved_upper == pytest.approx(exact.proved_upper, abs=1e-8)
    lowered = SliceBound.build(bound.duals, found - 1e-6, "prior", bound.weights, "lowered")
    refuted = check_bound(cone, problem.utility, lowered)
    assert refuted.refuted
    assert not refuted.valid
    assert refuted.column is not None
    assert cone.violation(refuted.column[:, None]) <= 1e-9
    assert "refuted" in refuted.reason


def test_the_lagrangian_method_stops_at_its_deadline_without_a_verdict(monkeypatch, colgen_certificate):
    problem, cone, bound, _ = colgen_certificate
    form = envelope.envelope_form(cone)
    assert not isinstance(form, NotProved)
    past = time.perf_counter() - 1.0
    proof = lagrangian.prove_ratio_bound(form, problem.utility, bound.duals, bound.weights, bound.delta, past)
    assert not proof.proved
    assert "time limit" in proof.reason
    monkeypatch.setattr(envelope, "MAX_WORK", 0.0)
    check = check_bound(cone, problem.utility, bound, time_limit=0.0)
    assert not check.valid
    assert not check.refuted
    assert check.reason.startswith("not proved")


def _stop_after(monkeypatch, calls: dict[str, int]) -> None:
    """Make the Lagrangian method's deadline pass after ``calls["stop"]`` checks (a count, not the clock)."""

    def passed(deadline: float | None) -> bool:
        if deadline is None:
            return False
        calls["n"] += 1
        return calls["n"] > calls["stop"]

    monkeypatch.setattr(lagrangian, "_deadline_passed", passed)


def test_a_stopped_lagrangian_proof_keeps_the_bound_it_proved(monkeypatch):
    # The deadline passes after a number of checks. Once every s* has had its first interval bounded,
    # the stopped proof returns the bound it proved on the whole cone: the largest of its closed bounds
    # and the bounds its open intervals inherited. It is never below the exact maximum (every product
    # at every event enumerated), and above the limit (the open intervals' bounds are).
    rng = np.random.default_rng(21)
    shapes = [[2, 3], [3, 3], [2, 2, 2], [4, 3], [3, 3, 2]]
    calls = {"n": 0, "stop": 0}
    _stop_after(monkeypatch, calls)
    stopped = finite = 0
    for trial in range(15):
        form = _random_form(rng, shapes[trial % len(shapes)], self_pairs=False)
        n = sum(shapes[trial % len(shapes)])
        p = rng.dirichlet(np.full(n, 0.6))
        utility = po.NormalizedMutualInformation(p) if trial % 4 == 1 else po.MutualInformation(p)
        duals = p * rng.uniform(0.2, 1.5) + rng.normal(scale=0.1, size=n)
        exact = envelope.maximise_ratio(form, utility, duals, p, None)
        if isinstance(exact, NotProved):
            continue
        limit = exact.value + exact.margin + 1e-9
        for stop in (1, 2, 4, 8, 16, 32, 64, 128):
            calls.update(n=0, stop=stop)
            proof = lagrangian.prove_ratio_bound(form, utility, duals, p, limit, 1.0)
            if proof.proved:
                break
            stopped += 1
            assert "time limit" in proof.reason, (trial, stop)
            assert proof.upper >= exact.value - 1e-12 * (1 + abs(exact.value)), (trial, stop)
            if np.isfinite(proof.upper):
                finite += 1
                assert proof.upper > limit, (trial, stop)
    # Not vacuous: 40 stopped proofs here, 17 of them with a finite bound (seed 21); the rest stopped
    # before every s* had its first interval bounded.
    assert stopped >= 20
    assert finite >= 10


def test_a_stopped_check_proves_a_weaker_claim(monkeypatch, colgen_certificate):
    # A check the deadline stops reports the δ̄ it proved; weaker_claim makes it a claim of its own,
    # proved by that check, whose bound lies above the exact check's.
    problem, cone, bound, _ = colgen_certificate
    exact = check_bound(cone, problem.utility, bound)
    assert exact.valid
    assert weaker_claim(bound, exact) is None  # nothing weaker to take: the claim itself is proved
    monkeypatch.setattr(envelope, "MAX_WORK", 0.0)
    calls = {"n": 0, "stop": 0}
    _stop_after(monkeypatch, calls)
    found = 0
    for stop in range(1, 60, 3):
        calls.update(n=0, stop=stop)
        check = check_bound(cone, problem.utility, bound)
        if check.valid:
            break
        assert not check.refuted
        if check.proved_delta is None:
            assert weaker_claim(bound, check) is None
            continue
        found += 1
        assert check.proved_delta > bound.delta
        weaker, proved = weaker_claim(bound, check)
        assert proved.valid
        assert weaker.delta == check.proved_delta
        np.testing.assert_array_equal(weaker.duals, bound.duals)
        assert weaker.upper == pytest.approx(check.proved_upper, rel=1e-12)
        assert weaker.upper >= exact.proved_upper - 1e-9
    assert found >= 2  # 13 of these stops left a proved δ̄ (the others came before one, or after the proof)


def test_a_cone_with_columns_of_zero_weight_is_not_proved():
    # One block of two inputs, L = (0.5, 0), p = (0, 1): the column e_0 (scaled) is in B(1, F), so the
    # normalisation pᵀw = 1 does not bound the cone; neither envelope method claims a bound.
    form = EnvelopeForm((np.arange(2),), (np.array([0.5, 0.0]),), np.array([0.5]), float(np.exp(2.0)), True)
    utility = po.MutualInformation(np.array([0.0, 1.0]))
    duals = np.array([-0.3, 0.2])
    proof = lagrangian.prove_ratio_bound(form, utility, duals, utility.p, 100.0, None)
    assert not proof.proved
    assert "νᵀw = 0" in proof.reason
    refused = envelope.maximise_ratio(form, utility, duals, utility.p, None)
    assert isinstance(refused, NotProved)
    assert refused.reason == NotProvedReason.CLAIM
    # Two groups without self pairs: with s* = 0, both blocks can put their mass on p = 0 inputs only
    # for ρ in [(c + y_Z)/(F y_Z), F y_Z'/(c' + y_Z')] = [1.49, 2.11], away from ρ = 1 and ρ = F.
    lowers = (np.array([0.05, 0.3]), np.array([0.2, 0.1]))
    form = EnvelopeForm(
        (np.arange(2), np.arange(2, 4)), lowers, np.array([0.5, 0.5]), float(np.exp(2.0)), False
    )
    utility = po.MutualInformation(np.array([0.0, 0.6, 0.0, 0.4]))
    duals = np.array([-0.3, 0.2, 0.1, 0.4])
    proof = lagrangian.prove_ratio_bound(form, utility, duals, utility.p, 100.0, None)
    assert "νᵀw = 0" in proof.reason
    assert not proof.proved
    assert "νᵀw = 0" in str(envelope.maximise_ratio(form, utility, duals, utility.p, None))


def test_the_lagrangian_method_applies_only_to_mutual_information_with_its_prior(example1):
    problem = po.Problem(
        po.SensitiveLDP(1.0, po.RenyiBall.confidence(example1)), po.MutualInformation(example1)
    )
    form = envelope.envelope_form(problem.get_problem_data().cone)
    assert not isinstance(form, NotProved)
    mi = problem.utility
    assert lagrangian.applicability(form, mi, mi.p) is None
    assert lagrangian.applicability(form, mi, mi.p * (1 + 1e-12)) is None  # ν = p to rounding
    assert "ν = p" in str(lagrangian.applicability(form, mi, np.ones(4)))
    divergence = po.FDivergence("hellinger", example1.p_x, np.full(4, 0.25))
    assert "mutual information" in str(lagrangian.applicability(form, divergence, mi.p))
    refused = lagrangian.prove_ratio_bound(form, mi, np.zeros(4), np.ones(4), 1e6, None)
    assert not refused.proved
    assert "ν = p" in refused.reason


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_adult_occupation_education_tight_claims_are_proved_and_lowered_ones_refuted(adult_dir, eps):
    # 15 blocks of 16 inputs: beyond the event enumeration (2^16 subsets per block). At the duals of a
    # short column generation, the solver's pricer bounds δ(λ) to the route's tolerance; the checker
    # proves that tight claim without room, and refutes a claim below the pricer's best column.
    frame = po.datasets.load_adult(adult_dir, ["occupation", "education"])
    P = po.JointDistribution.from_frame(frame, sensitive="occupation", public="education")
    problem = po.Problem(
        po.SensitiveLDP(eps, po.RenyiBall.confidence(P, level=0.95)), po.MutualInformation(P)
    )
    cone = problem.get_problem_data().cone
    form = envelope.envelope_form(cone)
    assert not isinstance(form, NotProved)
    assert envelope.work_estimate(form) > envelope.MAX_WORK
    options = ColumnGenerationOptions(time_limit=60.0, progress=False)
    result = column_generation(problem.utility, cone, options)
    assert result.certificate is not None
    pricer = envelope_pricer(problem.utility, cone)
    assert not isinstance(pricer, Refusal)
    duals = result.certificate.duals
    outcome = pricer.price(
        duals, PricingRequest(tolerance=0.5e-6 * result.lower, deadline=time.perf_counter() + 600.0)
    )
    assert outcome.complete
    tight = SliceBound.build(duals, outcome.upper, "prior", problem.utility.p, "the pricer's tight claim")
    check = check_bound(cone, problem.utility, tight, time_limit=600.0)
    assert check.valid, check.reason
    assert "Lagrangian" in check.method
    lowered = SliceBound.build(duals, outcome.lower - 1e-6, "prior", problem.utility.p, "lowered")
    refuted = check_bound(cone, problem.utility, lowered, time_limit=600.0)
    assert refuted.refuted, refuted.reason
    assert cone.violation(refuted.column[:, None]) <= 1e-9


@pytest.mark.slow
def test_a_proof_shared_over_processes_agrees_with_the_proof_here(monkeypatch):
    # The stars dealt to two worker processes (whatever the cores): the same verdicts as the
    # proof in this process (module docstring, "Processes"), the bound within rounding of it, and a
    # lowered claim refuted by a column of the cone above it.
    rng = np.random.default_rng(5)
    shapes = [[2, 3], [3, 3, 2], [2, 2, 2, 2], [4, 3]]
    shared = 0
    for trial in range(8):
        sizes = shapes[trial % len(shapes)]
        form = _random_form(rng, sizes, self_pairs=False)
        n = sum(sizes)
        p = rng.dirichlet(np.full(n, 0.6))
        utility = po.MutualInformation(p)
        duals = p * rng.uniform(0.2, 1.5) + rng.normal(scale=0.1, size=n)
        exact = envelope.maximise_ratio(form, utility, duals, p, None)
        if isinstance(exact, NotProved):
            continue
        limit = exact.value + exact.margin + 1e-9
        here = lagrangian.prove_ratio_bound(form, utility, duals, p, limit, None)
        with monkeypatch.context() as patch:
            patch.setattr(lagrangian, "_processes", lambda form: 2)
            there = lagrangian.prove_ratio_bound(form, utility, duals, p, limit, None)
            refuted = lagrangian.prove_ratio_bound(form, utility, duals, p, exact.value - 1e-7, None)
        shared += 1
        assert here.proved, trial
        assert there.proved, trial
        assert there.upper == pytest.approx(here.upper, rel=1e-12, abs=1e-12), trial
        assert there.intervals == here.intervals, trial
        assert not refuted.proved, trial
        assert refuted.reason.startswith("refuted"), trial
        assert refuted.column is not None, trial
        assert _in_form(form, refuted.column), trial
        assert _ratio(utility, duals, refuted.column) > exact.value - 1e-7, trial
    assert shared >= 5


def test_shares_combine_into_one_verdict():
    share = lagrangian._Share
    proved = share("proved", 0.4, 0.39, None, 1, 2, 3)
    stopped = share("time", 0.7, 0.2, None, 1, 1, 1)
    column = np.array([0.5, 0.5])
    refuted = share("refuted", np.inf, 0.9, column, 2, 2, 2)
    undecided = share("undecided", np.inf, 0.1, None, 0, 0, 0)
    both = lagrangian._combine([proved, share("proved", 0.45, 0.3, None, 1, 1, 1)])
    assert (both.outcome, both.upper, both.best, both.points, both.intervals, both.nodes) == (
        "proved", 0.45, 0.39, 2, 3, 4,
    )  # fmt: skip
    partial = lagrangian._combine([proved, stopped])
    assert (partial.outcome, partial.upper) == ("time", 0.7)  # the proved share's bound is below it
    assert lagrangian._combine([stopped, undecided, proved]).outcome == "undecided"
    worst = lagrangian._combine([stopped, refuted, undecided])
    assert worst.outcome == "refuted"
    assert worst.upper == np.inf
    assert worst.column is column
