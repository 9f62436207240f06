"""The exact tests behind a sample audit's lower bound, and the simultaneous region behind its upper end:
agreement with scipy's implementations, coverage by simulation, edge cases."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import binomtest
from scipy.stats.contingency import odds_ratio

from privopt.audit.epsilon_tests import (
    clopper_pearson,
    log_odds_estimate,
    log_ratio_estimate,
    odds_lower_bound,
    ratio_lower_bound,
)
from privopt.audit.sampled_channel import SampledChannel


@pytest.mark.parametrize(
    ("table", "alpha"), [((30, 50, 10, 50), 0.02), ((3, 7, 0, 9), 0.05), ((40, 40, 1, 60), 0.01)]
)
def test_odds_bound_is_scipys_conditional_interval(table, alpha):
    """scipy's conditional odds ratio (Fisher's noncentral hypergeometric) gives the same bound; privopt
    computes it itself because scipy's takes 30 s at 10⁵ reports per stream."""
    c_a, n_a, c_b, n_b = table
    reference = odds_ratio([[c_a, n_a - c_a], [c_b, n_b - c_b]]).confidence_interval(1 - alpha, "greater").low
    assert odds_lower_bound(c_a, n_a, c_b, n_b, alpha) == pytest.approx(math.log(reference), abs=1e-7)


@pytest.mark.parametrize(
    ("c_a", "c_b", "mu_a", "mu_b"), [(30, 10, 100.0, 100.0), (7, 0, 50.0, 80.0), (500, 400, 1e3, 2e3)]
)
def test_ratio_bound_is_the_clopper_pearson_bound_of_the_conditional_binomial(c_a, c_b, mu_a, mu_b):
    theta = binomtest(c_a, c_a + c_b).proportion_ci(0.95, method="exact").low  # two-sided 95 %: 2.5 % tail
    expected = math.log(theta / (1 - theta)) + math.log(mu_b / mu_a)
    assert ratio_lower_bound(c_a, mu_a, c_b, mu_b, 0.025) == pytest.approx(expected, abs=1e-9)


def test_no_evidence_gives_minus_infinity_and_a_zero_denominator_a_finite_bound():
    assert ratio_lower_bound(0, 10.0, 5, 10.0, 0.01) == -math.inf
    assert odds_lower_bound(0, 10, 5, 10, 0.01) == -math.inf
    # All reports of the event from stream A: θ_L = α^{1/t}, finite.
    assert ratio_lower_bound(20, 10.0, 0, 10.0, 0.01) == pytest.approx(
        math.log(0.01 ** (1 / 20) / (1 - 0.01 ** (1 / 20)))
    )
    assert math.isfinite(odds_lower_bound(10, 10, 0, 10, 0.01))
    assert log_ratio_estimate(0, 1.0, 0, 1.0) is None
    assert log_ratio_estimate(3, 1.0, 0, 1.0) == math.inf
    assert log_odds_estimate(5, 5, 0, 5) == math.inf


def test_large_tables_are_fast_and_tight():
    """GRR (k = 2, ε = 1) at 8·10⁵ reports per stream: the odds bound is within 0.005 of ε."""
    p = math.e / (1 + math.e)
    n = 800_000
    bound = odds_lower_bound(round(n * p), n, round(n * (1 - p)), n, 0.01) / 2
    assert 0.995 < bound < 1.0


def test_the_ratio_bound_covers_at_its_level():
    """Poisson counts at a true log-ratio of 1: the 95 % bound exceeds it in at most 5 % of 1500 draws
    (plus three binomial standard errors)."""
    rng = np.random.default_rng(0)
    mu_a, mu_b, pi_a = 400.0, 300.0, 0.2
    pi_b = pi_a / math.e
    exceed = sum(
        ratio_lower_bound(int(rng.poisson(mu_a * pi_a)), mu_a, int(rng.poisson(mu_b * pi_b)), mu_b, 0.05)
        > 1.0
        for _ in range(1500)
    )
    assert exceed / 1500 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 1500)


def test_the_odds_bound_covers_at_its_level_with_fixed_sizes():
    rng = np.random.default_rng(1)
    n_a, n_b, p = 200, 300, 0.6
    q = 1 / (1 + math.e * (1 - p) / p)  # odds ratio e
    exceed = sum(
        odds_lower_bound(int(rng.binomial(n_a, p)), n_a, int(rng.binomial(n_b, q)), n_b, 0.05) > 1.0
        for _ in range(1500)
    )
    assert exceed / 1500 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 1500)


def test_clopper_pearson_intervals():
    low, high = clopper_pearson(np.array([0, 5, 10]), np.array([10, 10, 10]), 0.05)
    reference = binomtest(5, 10).proportion_ci(0.95, method="exact")
    assert (low[1], high[1]) == pytest.approx((reference.low, reference.high))
    assert low[0] == 0.0
    assert high[2] == 1.0
    assert clopper_pearson(np.array([0]), np.array([0]), 0.05) == (pytest.approx([0.0]), pytest.approx([1.0]))


def test_the_region_holds_every_entry_at_once():
    """A 3 × 4 channel sampled 2000 times: the 90 % box contains the whole channel in at least 90 % of
    draws (Bonferroni and Šidák make it conservative)."""
    rng = np.random.default_rng(2)
    W = rng.dirichlet(np.ones(4), size=3)
    inside = 0
    for _ in range(2000):
        counts = [Counter(dict(enumerate(rng.multinomial(300, row).tolist()))) for row in W]
        channel = SampledChannel.from_counters((0, 1, 2), counts, outputs=range(4))
        low, high = channel.region(0.1)
        inside += bool(np.all((low <= W) & (high >= W)))
    assert inside / 2000 >= 0.9


def test_a_sampled_channel_from_logged_pairs():
    channel = SampledChannel.from_pairs(("a", "b"), [("a", 1), ("b", 2), ("a", 1)], outputs=[2])
    assert channel.outputs == (2, 1)
    assert channel.counts.tolist() == [[0, 2], [1, 0]]
    assert channel.frequencies().tolist() == [[0.0, 1.0], [1.0, 0.0]]
