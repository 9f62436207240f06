"""``po.samples_needed`` (closed form, simulated power) and ``po.conformance`` (goodness of fit)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

import privopt as po


# ---------------------------------------------------------------------- samples_needed
def test_samples_needed_for_randomized_response_is_the_closed_form():
    """Binary RR at ε′: the odds test's statistic has standard error s/√M with s = 1/√(p(1−p)),
    p = e^ε′/(1+e^ε′), at the best split of M reports; power at (z_{1−α} + z_power) standard errors."""
    eps, alt = 1.0, 1.2
    p = math.exp(alt) / (1 + math.exp(alt))
    s = 1 / math.sqrt(p * (1 - p))
    budget = (s * (norm.isf(0.005) + norm.isf(0.1)) / (alt - eps)) ** 2  # two-sided 99 %: α/2 below
    expected = math.ceil(math.ceil(budget / 0.5) / 2)  # half the reports choose the test; 2 inputs
    assert po.samples_needed(eps, alt) == pytest.approx(expected, rel=1e-3)
    one_sided = po.samples_needed(eps, alt, alternative="greater", power=0.8)
    assert one_sided < po.samples_needed(eps, alt)


def test_samples_needed_gives_the_power_it_promises():
    """At the number returned for power 0.8, audits of RR at ε′ = 1.5 show the violation of ε = 1 in
    at least ~80 % of 60 runs (binomial noise allowed)."""
    per_input = po.samples_needed(1.0, 1.5, power=0.8)
    W = po.mechanisms.randomized_response(1.5)
    shown = sum(
        not po.audit_sampler(
            po.clients.mechanism_sampler(W), po.LDP(1.0), n=2 * per_input, rng=seed, progress=False
        ).satisfied
        for seed in range(60)
    )
    assert shown >= 0.8 * 60 - 2 * math.sqrt(60 * 0.8 * 0.2)


def test_samples_needed_for_a_given_channel():
    """The GRR (k = 4) whose truth is 0.05 too likely (ε ≈ 1.20): fewer than 10⁴ reports per input."""
    k, eps = 4, 1.0
    p = math.exp(eps) / (math.exp(eps) + k - 1) + 0.05
    matrix = np.full((k, k), (1 - p) / (k - 1))
    np.fill_diagonal(matrix, p)
    per_input = po.samples_needed(eps, mechanism=po.Mechanism(matrix))
    assert 1000 < per_input < 10_000


def test_samples_needed_bad_input():
    with pytest.raises(po.ValidationError, match=r"^eps_alt: expected an alternative"):
        po.samples_needed(1.0, 0.5)
    with pytest.raises(po.ValidationError, match=r"^eps_alt:"):
        po.samples_needed(1.0)
    with pytest.raises(po.ValidationError, match=r"^mechanism:"):
        po.samples_needed(1.0, mechanism=po.mechanisms.grr(3, 1.0))  # no violation to see
    with pytest.raises(po.ValidationError, match=r"^power:"):
        po.samples_needed(1.0, 1.5, power=1.0)
    with pytest.raises(po.ValidationError, match=r"^alternative:"):
        po.samples_needed(1.0, 1.5, alternative="less")


# ---------------------------------------------------------------------- conformance
def test_a_correct_sampler_conforms():
    W = po.mechanisms.grr(4, 1.0)
    result = po.conformance(po.clients.mechanism_sampler(W), W, n=40_000, rng=1, progress=False)
    assert result.p_value > 0.01
    assert set(result.p_values) == set(W.input_labels)
    assert result.df == 4 * 3
    assert result.method == "chi-square"
    assert result.worst_input == min(result.p_values, key=result.p_values.get)
    assert "conformance: p =" in str(result)


def test_a_biased_sampler_is_refuted_and_the_worst_input_named():
    W = po.mechanisms.grr(4, 1.0)
    matrix = W.matrix.copy()
    matrix[2] = [0.1, 0.2, 0.5, 0.2]  # input 2 reports the truth too often
    result = po.conformance(
        po.clients.mechanism_sampler(po.Mechanism(matrix)), W, n=40_000, rng=1, progress=False
    )
    assert result.p_value < 1e-6
    assert result.worst_input == 2


def test_an_impossible_report_refutes_its_row():
    design = po.Mechanism([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    code = po.Mechanism([[0.5, 0.49, 0.01], [0.2, 0.3, 0.5]])
    result = po.conformance(po.clients.mechanism_sampler(code), design, n=20_000, rng=0, progress=False)
    assert result.p_value == 0.0
    assert result.p_values[0] == 0.0
    assert result.unexpected[0] == (2,)


def test_small_expected_counts_use_monte_carlo():
    """OUE on 6 symbols has 64 outputs: at 300 reports per input most expected counts are below 5."""
    W = po.mechanisms.oue(6, 1.0)
    result = po.conformance(po.clients.mechanism_sampler(W), W, n=1800, rng=3, resamples=999, progress=False)
    assert result.method == "Monte Carlo (999 draws)"
    assert 0.001 <= result.p_value <= 1.0
    bad = po.mechanisms.oue(6, 2.0)
    refuted = po.conformance(
        po.clients.mechanism_sampler(bad), W, n=6000, rng=3, resamples=999, progress=False
    )
    assert refuted.p_value <= 0.01


def test_conformance_bad_input():
    W = po.mechanisms.grr(2, 1.0)
    labelled = po.Mechanism(W.matrix, output_labels=["a", "b"])
    with pytest.raises(
        po.ShapeError, match=r"^sampler: expected reports among the mechanism's output labels"
    ):
        po.conformance(po.clients.mechanism_sampler(W), labelled, n=1000, rng=0, progress=False)
    with pytest.raises(po.ValidationError, match=r"^n:"):
        po.conformance(po.clients.mechanism_sampler(W), W, n=3)
    with pytest.raises(po.ValidationError, match=r"^mechanism:"):
        po.conformance(po.clients.mechanism_sampler(W), W.matrix, n=1000)
