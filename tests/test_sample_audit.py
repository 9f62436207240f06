"""Sample-based audits (docs/sample-audits.md): validity on correct samplers, power on broken ones, the
interval bracketing the exact audit, reproducibility across backends, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

import privopt as po
from privopt.mechanisms.unary_encoding import UnaryEncoding, unary_matrix

EPS = 1.0


def sampler(W: po.Mechanism) -> po.clients.Sampler:
    return po.clients.mechanism_sampler(W)


# ---------------------------------------------------------------------- the mechanisms
def _example() -> tuple[po.JointDistribution, po.RenyiBall]:
    """Entropy paper Example 1's P̂ with n = 300 and its 95 % χ² ball."""
    P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=300)
    return P, po.RenyiBall.confidence(P)


def correct_cases() -> dict[str, tuple[po.Mechanism, po.PrivacyDefinition]]:
    """Mechanisms that satisfy their definition at ε = 1 (all but IR with equality)."""
    P, F = _example()
    robust = po.Problem(po.SensitiveLDP(EPS, F), po.MutualInformation(P)).solve().mechanism
    ball = po.L1Ball([0.2, 0.3, 0.5], 0.1)
    prior = po.JointDistribution([[0.2, 0.3, 0.5]])
    pml = po.Problem(po.PML(EPS, ball), po.MutualInformation(prior)).solve().mechanism
    return {
        "GRR": (po.mechanisms.grr(4, EPS), po.LDP(EPS)),
        "OUE": (po.mechanisms.oue(4, EPS), po.LDP(EPS)),
        "SRR": (po.mechanisms.srr(2, 2, EPS), po.SensitiveLDP(EPS, po.Simplex((2, 2)))),
        "IR": (po.mechanisms.independent_reporting(F, EPS).mechanism, po.SensitiveLDP(EPS, F)),
        "robust": (robust, po.SensitiveLDP(EPS, F)),
        "LIP": (po.mechanisms.grr_calibrated_lip(P, EPS), po.LIP(EPS, P)),
        "PML": (pml, po.PML(EPS, ball)),
    }


CASES = correct_cases()


def test_the_correct_cases_are_private_and_tight():
    """The premise of the validity checks: each mechanism satisfies its definition (exact audit), and
    all but IR attain ε (a tight mechanism is the hardest case for a false alarm)."""
    for name, (W, definition) in CASES.items():
        report = po.audit(W, definition)
        assert report.satisfied, name
        if name != "IR":
            assert report.upper == pytest.approx(EPS, abs=1e-6), name


def _false_alarms(name: str, seeds: range, per_input: int) -> int:
    W, definition = CASES[name]
    alarms = 0
    for seed in seeds:
        report = po.audit_sampler(sampler(W), definition, n=W.n_inputs * per_input, rng=seed, progress=False)
        assert report.eps_lower <= report.eps_upper
        alarms += report.eps_lower > EPS
    return alarms


@pytest.mark.parametrize("name", list(CASES))
def test_correct_samplers_pass(name):
    """At 99 % (two-sided), a lower bound above a tight ε is a false alarm of probability <= 0.5 %: in
    20 seeds, more than one would be a 1-in-200 event."""
    assert _false_alarms(name, range(20), 10_000) <= 1


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_correct_samplers_pass_in_98_of_100_seeds(name):
    assert _false_alarms(name, range(100, 200), 10_000) <= 2


def test_correct_samplers_pass_with_a_one_sided_bound():
    """``alternative="greater"`` spends all of α on the lower end: still at most 1 % of false alarms."""
    W, definition = CASES["GRR"]
    alarms = sum(
        po.audit_sampler(
            sampler(W), definition, n=40_000, alternative="greater", rng=seed, progress=False
        ).eps_lower
        > EPS
        for seed in range(30)
    )
    assert alarms <= 2  # P(Binomial(30, 0.01) > 2) ≈ 0.3 %


# ---------------------------------------------------------------------- broken samplers
def _grr_with_bias(k: int, eps: float, extra: float) -> po.Mechanism:
    p = math.exp(eps) / (math.exp(eps) + k - 1) + extra
    matrix = np.full((k, k), (1 - p) / (k - 1))
    np.fill_diagonal(matrix, p)
    return po.Mechanism(matrix, name="GRR +0.05")


def _srr_leaking_s(share: float) -> po.Mechanism:
    """SRR that reports S in the clear (an output of its own per sensitive value) in ``share`` of reports."""
    W = po.mechanisms.srr(2, 2, EPS)
    clear = np.kron(np.eye(2), np.ones((2, 1)))  # input (s, u) -> output "S=s"
    matrix = np.hstack([(1 - share) * W.matrix, share * clear])
    return po.Mechanism(matrix, W.input_labels, [*W.output_labels, "S=0", "S=1"])


def broken_cases() -> dict[str, tuple[po.Mechanism, po.PrivacyDefinition]]:
    bad_oue = UnaryEncoding(4, 0.5, 1.0 / (math.exp(2 * EPS) + 1.0), "OUE with q for 2ε")
    P, F = _example()
    return {
        "GRR, truth +0.05": (_grr_with_bias(4, EPS, 0.05), po.LDP(EPS)),
        "OUE, q for 2ε": (po.Mechanism(unary_matrix(bad_oue)), po.LDP(EPS)),
        "SRR, S in the clear in 2 %": (_srr_leaking_s(0.02), po.SensitiveLDP(EPS, po.Simplex((2, 2)))),
        "NR over its Rényi ball": (po.designs.nr(P, EPS), po.SensitiveLDP(EPS, F)),
    }


BROKEN = broken_cases()


def test_the_broken_cases_violate_eps():
    realized = {name: po.audit(W, d) for name, (W, d) in BROKEN.items()}
    assert realized["GRR, truth +0.05"].eps == pytest.approx(1.2002, abs=1e-4)
    assert realized["OUE, q for 2ε"].eps == pytest.approx(2 * EPS)
    assert realized["SRR, S in the clear in 2 %"].eps == np.inf
    assert realized["NR over its Rényi ball"].lower > 1.4
    # ... and NR satisfies the non-robust definition at P̂: only the robust audit can catch it.
    P, _ = _example()
    assert po.audit(BROKEN["NR over its Rényi ball"][0], po.SensitiveLDP(EPS, P)).satisfied


@pytest.mark.parametrize("name", list(BROKEN))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_broken_samplers_are_caught_with_1e4_reports_per_input(name, seed):
    W, definition = BROKEN[name]
    report = po.audit_sampler(sampler(W), definition, n=W.n_inputs * 10_000, rng=seed, progress=False)
    assert not report.satisfied, report
    assert report.eps_lower > EPS


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_robust_audit_catches_what_the_plain_one_passes(seed):
    W, robust = BROKEN["NR over its Rényi ball"]
    P, _ = _example()
    plain = po.audit_sampler(sampler(W), po.SensitiveLDP(EPS, P), n=40_000, rng=seed, progress=False)
    caught = po.audit_sampler(sampler(W), robust, n=40_000, rng=seed, progress=False)
    assert plain.satisfied
    assert not caught.satisfied
    # The witness of the robust bound is a distribution of the ball.
    assert caught.witness.distribution is not None
    assert robust.uncertainty.contains(np.array(caught.witness.distribution))


# ---------------------------------------------------------------------- the reference figures
@pytest.mark.parametrize(("per_input", "reference"), [(10_000, 0.937), (100_000, 0.980)])
def test_grr_k2_beats_the_reference_lower_bounds(per_input, reference):
    """GRR (k = 2, ε = 1), 99 % lower bound: at least LDP-Auditor's (Clopper–Pearson on each side at
    α/2) in every seed (benchmarks/bench_sample_audit.py has the full table)."""
    W = po.mechanisms.grr(2, EPS)
    bounds = [
        po.audit_sampler(
            sampler(W), po.LDP(EPS), n=2 * per_input, alternative="greater", rng=seed, progress=False
        ).eps_lower
        for seed in range(5)
    ]
    assert min(bounds) >= reference - 0.01
    assert np.mean(bounds) >= reference


# ---------------------------------------------------------------------- intervals bracket the exact audit
def _random_cases(rng: np.random.Generator) -> dict[str, tuple[po.Mechanism, po.PrivacyDefinition]]:
    W = po.Mechanism(rng.dirichlet(np.full(3, 3.0), size=4))
    P = po.JointDistribution(rng.dirichlet(np.full(4, 3.0)).reshape(2, 2), n=300)
    prior = rng.dirichlet(np.full(4, 3.0))
    return {
        "LDP": (W, po.LDP(EPS)),
        "SensitiveLDP over a Rényi ball": (W, po.SensitiveLDP(EPS, po.RenyiBall.confidence(P))),
        "LIP": (W, po.LIP(EPS, P)),
        "PML over an ℓ1 ball": (W, po.PML(EPS, po.L1Ball(prior, 0.05))),
    }


@pytest.mark.parametrize("kind", ["LDP", "SensitiveLDP over a Rényi ball", "LIP", "PML over an ℓ1 ball"])
def test_sample_intervals_bracket_the_exact_audit(kind):
    """20 random 4 × 3 channels per definition, 20 000 reports per input, 99 % two-sided: each interval
    contains the exact audit's realized ε (its interval, over a Rényi ball)."""
    rng = np.random.default_rng(26)
    misses = []
    for trial in range(20):
        W, definition = _random_cases(rng)[kind]
        W = po.Mechanism(W.matrix, definition.input_labels())  # the sampler is called with these labels
        exact = po.audit(W, definition)
        report = po.audit_sampler(
            sampler(W), definition, n=4 * 20_000, rng=trial, outputs=W.output_labels, progress=False
        )
        if not (report.eps_lower <= exact.upper + 1e-9 and report.eps_upper >= exact.lower - 1e-9):
            misses.append((trial, exact.interval, report.interval))
    assert not misses


# ---------------------------------------------------------------------- logged reports
def test_audit_samples_brackets_and_catches():
    rng = np.random.default_rng(5)
    xs = np.repeat(np.arange(4), 10_000)
    good = po.audit_samples(xs, po.mechanisms.grr(4, EPS).apply(xs, rng=rng), po.LDP(EPS), rng=1)
    assert good.satisfied
    assert good.eps_lower <= EPS <= good.eps_upper
    bad = po.audit_samples(xs, _grr_with_bias(4, EPS, 0.05).apply(xs, rng=rng), po.LDP(EPS), rng=1)
    assert not bad.satisfied
    assert "Poisson-thinned" in bad.method
    assert bad.samples == xs.size


def test_audit_samples_of_a_robust_definition_with_shared_inputs():
    """LIP compares a conditional with the marginal, which involves the same inputs: the logged reports
    of an input are split between the two streams."""
    P, _ = _example()
    W = po.mechanisms.grr_calibrated_lip(P, EPS)
    rng = np.random.default_rng(8)
    xs = [x for x in W.input_labels for _ in range(15_000)]
    ys = W.apply(xs, rng=rng)
    report = po.audit_samples(xs, ys, po.LIP(EPS, P), rng=2)
    assert report.eps_lower <= EPS <= report.eps_upper
    assert report.witness is not None


def test_audit_samples_is_reproducible_with_a_seed():
    xs = np.repeat([0, 1], 5000)
    ys = po.mechanisms.grr(2, EPS).apply(xs, rng=3)
    first = po.audit_samples(xs, ys, po.LDP(EPS), rng=11)
    second = po.audit_samples(xs, ys, po.LDP(EPS), rng=11)
    assert first.interval == second.interval


# ---------------------------------------------------------------------- unseen outputs, zeros
def test_an_output_never_seen_for_an_input_makes_the_upper_end_unbounded():
    """W[0, 1] = 0: output 1 never appears for input 0, so no finite upper bound exists, and the lower
    bound is large and finite — never a division by zero."""
    W = po.Mechanism([[1.0, 0.0], [0.5, 0.5]])
    report = po.audit_sampler(sampler(W), po.LDP(EPS), n=4000, rng=0, progress=False)
    assert report.eps_upper == np.inf
    assert np.isfinite(report.eps_lower)
    assert report.eps_lower > EPS
    assert any("unbounded" in note for note in report.notes)


def test_declared_outputs_never_seen_are_covered_by_the_upper_end():
    W = po.mechanisms.grr(2, EPS)
    seen_only = po.audit_sampler(sampler(W), po.LDP(EPS), n=20_000, rng=0, progress=False)
    declared = po.audit_sampler(sampler(W), po.LDP(EPS), n=20_000, rng=0, outputs=[0, 1, 2], progress=False)
    assert np.isfinite(seen_only.eps_upper)
    assert declared.eps_upper == np.inf  # output 2 may have any probability below the data's resolution
    assert declared.outputs == (0, 1, 2)
    with pytest.raises(po.ValidationError, match="not declared"):
        po.audit_sampler(sampler(W), po.LDP(EPS), n=20_000, rng=0, outputs=[0], progress=False)


def test_one_output_channel_leaks_nothing():
    W = po.Mechanism([[1.0], [1.0]])
    report = po.audit_sampler(sampler(W), po.LDP(EPS), n=1000, rng=0, progress=False)
    assert report.eps_lower == 0.0
    assert report.eps_upper == 0.0
    assert report.witness is None


# ---------------------------------------------------------------------- the report
def test_the_report_names_the_test_and_the_sample_sizes():
    W = po.mechanisms.grr(3, EPS)
    report = po.audit_sampler(sampler(W), po.LDP(EPS), n=30_000, rng=4, progress=False)
    assert isinstance(report, po.AuditReport)
    assert isinstance(report.witness, po.SampleWitness)
    assert report.per_input == {0: 5000, 1: 5000, 2: 5000}
    assert report.selection == 15_000
    assert sum(report.estimation) == report.samples - 15_000
    assert abs(report.samples - 30_000) < 1000  # the streams have Poisson sizes with mean 15 000
    text = str(report)
    assert "no violation shown at 99 % confidence" in text
    assert "reports" in text
    assert "witness" in text
    summary = report.to_dict()
    assert summary["test"]["kind"] in ("ratio", "odds")
    assert summary["confidence"] == 0.99
    assert report.eps_lower == report.lower
    assert report.eps_upper == report.upper


def test_alternatives():
    W = po.mechanisms.grr(3, EPS)
    lower = po.audit_sampler(sampler(W), po.LDP(EPS), n=30_000, alternative="greater", rng=0, progress=False)
    upper = po.audit_sampler(sampler(W), po.LDP(EPS), n=30_000, alternative="less", rng=0, progress=False)
    assert lower.eps_upper == np.inf
    assert lower.eps_lower > 0
    assert upper.eps_lower == 0.0
    assert np.isfinite(upper.eps_upper)
    assert upper.selection == 0
    assert upper.estimation == (0, 0)


# ---------------------------------------------------------------------- reproducibility and backends
def _vectorised_grr(xs, rng):
    """A vectorised GRR(3) sampler written as a user would (module level, so workers can import it)."""
    p = math.exp(EPS) / (math.exp(EPS) + 2)
    keep = rng.random(len(xs)) < p
    other = (np.asarray(xs) + rng.integers(1, 3, size=len(xs))) % 3
    return np.where(keep, xs, other)


def _scalar_grr(x, rng):
    return int(_vectorised_grr(np.array([x]), rng)[0])


def test_seeded_runs_are_identical_serially_and_with_joblib():
    kwargs = {"n": 60_000, "rng": 7, "progress": False, "vectorized": True, "inputs": [0, 1, 2]}
    serial = po.audit_sampler(_vectorised_grr, po.LDP(EPS), **kwargs)
    parallel = po.audit_sampler(_vectorised_grr, po.LDP(EPS), n_jobs=2, **kwargs)
    assert serial.interval == parallel.interval
    assert serial.witness == parallel.witness
    assert serial.eps_lower <= EPS <= serial.eps_upper


def test_seeded_runs_are_identical_on_dask():
    distributed = pytest.importorskip("distributed")  # the [dist] extra, installed by `make setup`
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        kwargs = {"n": 30_000, "rng": 3, "progress": False, "vectorized": True, "inputs": [0, 1, 2]}
        local = po.audit_sampler(_vectorised_grr, po.LDP(EPS), **kwargs)
        remote = po.audit_sampler(_vectorised_grr, po.LDP(EPS), client=client, **kwargs)
    assert local.interval == remote.interval


def test_a_scalar_sampler_and_a_generator_seed():
    report = po.audit_sampler(
        _scalar_grr, po.LDP(EPS), [0, 1, 2], n=6000, rng=np.random.default_rng(0), progress=False
    )
    assert report.eps_lower <= EPS


# ---------------------------------------------------------------------- bad input
def _raises(x, rng):
    raise RuntimeError("boom")


def _unhashable(x, rng):
    return np.array([x, 1])


def test_a_sampler_that_raises_is_a_privopt_error():
    with pytest.raises(po.ValidationError, match=r"sampler: .*raised RuntimeError: boom for input 0"):
        po.audit_sampler(_raises, po.LDP(EPS), [0, 1], n=1000, rng=0, progress=False)


def test_unhashable_reports_are_refused():
    with pytest.raises(po.ValidationError, match=r"unhashable report .*ndarray.*tuple"):
        po.audit_sampler(_unhashable, po.LDP(EPS), [0, 1], n=1000, rng=0, progress=False)


def test_a_vectorised_sampler_returning_the_wrong_number_of_reports():
    with pytest.raises(po.ValidationError, match="3 reports for"):
        po.audit_sampler(
            lambda xs, rng: [0, 1, 0], po.LDP(EPS), [0, 1], n=1000, vectorized=True, progress=False
        )


def test_labels_outside_the_definitions_inputs_are_refused():
    P, F = _example()
    definition = po.SensitiveLDP(EPS, F)
    with pytest.raises(po.ShapeError, match=r"inputs.*'nope'"):
        po.audit_sampler(_scalar_grr, definition, [(0, 0), (0, 1), (1, 0), "nope"], n=1000, progress=False)
    with pytest.raises(po.ShapeError, match="every input"):
        po.audit_sampler(_scalar_grr, definition, [(0, 0), (0, 1)], n=1000, progress=False)
    with pytest.raises(po.ShapeError, match="inputs"):
        po.audit_samples([0, 5], [1, 1], po.SensitiveLDP(EPS, P))


def test_n_too_small_says_how_many_are_needed():
    with pytest.raises(
        po.ValidationError,
        match=r"n: expected at least 32 reports in all \(16 per input\) for 2 inputs at 99 %",
    ):
        po.audit_sampler(_scalar_grr, po.LDP(EPS), [0, 1], n=20, progress=False)


def test_too_many_distinct_reports_is_a_limit():
    """A sampler whose reports never repeat (a float) is refused past 200 000 distinct reports."""
    with pytest.raises(po.LimitError, match="distinct reports; post-process"):
        po.audit_sampler(
            lambda xs, rng: rng.random(len(xs)),
            po.LDP(EPS),
            [0, 1],
            n=420_000,
            vectorized=True,
            progress=False,
        )


def test_other_bad_arguments():
    W = po.mechanisms.grr(2, EPS)
    s = sampler(W)
    for kwargs, argument in (
        ({"confidence": 1.0}, "confidence"),
        ({"alternative": "both"}, "alternative"),
        ({"selection": 1.5}, "selection"),
        ({"rng": -1}, "rng"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"n": 0}, "n"),
    ):
        with pytest.raises(po.ValidationError, match=f"^{argument}:"):
            po.audit_sampler(s, po.LDP(EPS), **{"n": 1000, "progress": False, **kwargs})
    with pytest.raises(po.ValidationError, match=r"^sampler:"):
        po.audit_sampler("not callable", po.LDP(EPS), [0, 1], n=100)
    with pytest.raises(po.ValidationError, match=r"^inputs:"):
        po.audit_sampler(_scalar_grr, po.LDP(EPS), n=100)  # LDP fixes no inputs
    with pytest.raises(po.ValidationError, match=r"^definition:"):
        po.audit_sampler(s, "LDP", n=100)
    with pytest.raises(po.ShapeError, match=r"^reports:"):
        po.audit_samples([0, 1], [0], po.LDP(EPS))
    with pytest.raises(po.ValidationError, match=r"^reports: expected hashable"):
        po.audit_samples([0, 1], [[0], [1]], po.LDP(EPS))
