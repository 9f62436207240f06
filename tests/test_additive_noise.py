"""Binary Laplace and Gaussian mechanisms (PML paper §VI): Prop. 3, eq. 50, Remark 4, the inverse
problem, δ1 of eqs. 58–62 and (ε*, δ*) of eqs. 64–65."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.optimize import brentq, minimize_scalar

import privopt as po
from privopt.mechanisms import (
    gaussian_mechanism,
    gaussian_pml_guarantee,
    laplace_mechanism,
    laplace_pml,
    laplace_pml_estimated,
    laplace_scale,
    laplace_scale_estimated,
)
from privopt.sets.l1 import weissman_radius


def direct_sup(mechanism: po.mechanisms.ContinuousMechanism, prior: np.ndarray, half_width: float) -> float:
    """sup_y ℓ(y) by brute force: a dense grid on [−w, w] refined by bounded Brent around its best point."""
    grid = np.linspace(-half_width, half_width, 200_001)
    values = mechanism.leakage(grid, prior)
    k = int(np.argmax(values))
    a, b = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
    result = minimize_scalar(
        lambda y: -float(mechanism.leakage(np.array([y]), prior)[0]), bounds=(a, b), method="bounded"
    )
    return max(float(values[k]), -float(result.fun))


# ------------------------------------------------------------------ Laplace
@pytest.mark.parametrize("b", [0.3, 0.8, 2.0, 5.0])
@pytest.mark.parametrize("p_minus", [0.1, 0.35, 0.5, 0.8])
def test_prop3_equals_direct_sup(b, p_minus):
    # ε(b) of Prop. 3 (eq. 49) against a numerical sup over y of ℓ(y) computed from the densities.
    prior = np.array([p_minus, 1.0 - p_minus])
    assert laplace_pml(b, prior) == pytest.approx(
        direct_sup(laplace_mechanism(b), prior, 10.0 + 10 * b), abs=1e-9
    )


def test_eq50_is_the_sup_over_the_ball():
    # eq. 50 against the direct sup at the ball's two extreme priors (ℓ is convex in the prior, Prop. 1),
    # and against a scan over the ball's priors.
    b, p_hat, beta = 0.9, np.array([0.3, 0.7]), 0.2
    M = laplace_mechanism(b)
    worst = max(direct_sup(M, p_hat + s * np.array([-1, 1]) * beta / 2, 12.0) for s in (-1.0, 1.0))
    assert laplace_pml(b, p_hat, beta=beta) == pytest.approx(worst, abs=1e-9)
    scan = max(M.pml([1 - q, q]) for q in np.linspace(0.6, 0.8, 101))
    assert laplace_pml(b, p_hat, beta=beta) == pytest.approx(scan, abs=1e-12)
    assert M.audit(po.L1Ball(p_hat, beta), 5.0).eps == pytest.approx(worst, abs=1e-9)


def test_remark4_ldp_limit():
    # p̂_min = 1/2 and β* = 1: ε(b, δ) = 2/b (Remark 4), the LDP level of the mechanism.
    for b in (0.5, 1.0, 4.0):
        assert laplace_pml(b, [0.5, 0.5], beta=1.0) == pytest.approx(2.0 / b, abs=1e-14)
        assert laplace_mechanism(b).ldp_eps == pytest.approx(2.0 / b, abs=1e-15)
    # Through eq. 45: m samples and δ with β*(δ) = sqrt(2 (log 2 − log δ)/m) >= 1 give the same.
    assert laplace_pml_estimated(0.7, [0.5, 0.5], m=2, delta=0.1) == pytest.approx(2.0 / 0.7, abs=1e-14)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0])
def test_inverse_problem(eps):
    # The smallest b with ε(b, δ) <= ε: the forward formula returns ε, and any smaller b leaks more.
    for prior, beta in (([0.3, 0.7], 0.0), ([0.45, 0.55], 0.1), ([0.5, 0.5], 1.0)):
        b = laplace_scale(eps, prior, beta=beta)
        if b == 0.0:  # ε >= −log p_min: no noise needed
            assert eps >= -np.log(max(min(prior) - beta / 2, 0.0))
            continue
        assert laplace_pml(b, prior, beta=beta) == pytest.approx(eps, abs=1e-12)
        assert laplace_pml(b * (1 - 1e-6), prior, beta=beta) > eps
    # q = 0 is LDP: b = 2/ε.
    assert laplace_scale(eps, [0.5, 0.5], beta=1.0) == pytest.approx(2.0 / eps, rel=1e-14)
    m, delta = 1000, 1e-6
    b = laplace_scale_estimated(eps, [0.3, 0.7], m, delta)
    q = 0.3 - weissman_radius(2, m, delta) / 2  # eq. 50's worst p_min
    if eps >= -np.log(q):
        assert b == 0.0
    else:
        assert laplace_pml_estimated(b, [0.3, 0.7], m, delta) == pytest.approx(eps, abs=1e-12)


def test_laplace_sampling_matches_density(rng):
    M = laplace_mechanism(0.7)
    x = np.where(rng.random(20_000) < 0.4, -1.0, 1.0)
    y = M.sample(x, rng)
    for value in (-1.0, 1.0):
        # Kolmogorov–Smirnov against Lap(x, b); seeded, so the verdict is reproducible.
        assert stats.kstest(y[x == value] - value, stats.laplace(scale=0.7).cdf).pvalue > 1e-3
    np.testing.assert_allclose(
        M.density(np.array([0.0, 1.0]), 1.0), stats.laplace(loc=1, scale=0.7).pdf([0.0, 1.0])
    )


# ------------------------------------------------------------------ Gaussian
def test_gaussian_thresholds_closed_form():
    # For y >= 0, ℓ(y) = −log(P(+1) + P(−1) e^{−2y/σ²}), so E_ε ∩ [0, ∞) = (y₊, ∞) with
    # y₊ = (σ²/2) log(P(−1) / (e^{−ε} − P(+1))) (derived from eq. 55).
    sigma, eps, prior = 1.5, 0.4, np.array([0.45, 0.55])
    low, high = gaussian_mechanism(sigma).violation_thresholds(eps, prior)
    expected_high = sigma**2 / 2 * np.log(prior[0] / (np.exp(-eps) - prior[1]))
    expected_low = -(sigma**2) / 2 * np.log(prior[1] / (np.exp(-eps) - prior[0]))
    assert high == pytest.approx(expected_high, abs=1e-11)
    assert low == pytest.approx(expected_low, abs=1e-11)


def test_delta1_against_quadrature_and_grid_search():
    # δ1 (eq. 59) against (i) quad of f_Y over the violation set located on a fine grid, at the worst
    # prior, and (ii) the paper's method, an exhaustive grid over the ball's priors.
    sigma, eps, p_hat, beta = 1.5, 0.45, np.array([0.5, 0.5]), 0.2
    M = gaussian_mechanism(sigma)
    result = M.violation(eps, po.L1Ball(p_hat, beta))
    prior = result.worst_prior
    ys = np.linspace(-40, 40, 400_001)
    inside = M.leakage(ys, prior) > eps
    # The violation set's finite endpoints: sign changes of ℓ − ε on the grid, refined by Brent.
    edges = [
        brentq(lambda y: float(M.leakage(np.array([y]), prior)[0]) - eps, ys[k], ys[k + 1], xtol=1e-14)
        for k in np.flatnonzero(np.diff(inside.astype(int)))
    ]

    def f_y(y: float) -> float:
        return float(prior[0] * M.density(y, -1.0) + prior[1] * M.density(y, 1.0))

    pieces = [(-np.inf, edges[0])] if inside[0] else []
    pieces += [(edges[-1], np.inf)] if inside[-1] else []
    quad = sum(integrate.quad(f_y, a, b, epsabs=1e-13)[0] for a, b in pieces)
    assert result.delta == pytest.approx(quad, abs=1e-10)
    grid = max(M.violation_probability(eps, [1 - q, q]) for q in np.linspace(0.4, 0.6, 2001))
    assert grid <= result.delta + 1e-12
    assert result.delta - grid < 1e-7
    assert result.error < 1e-10


def test_delta1_agrees_with_monte_carlo(rng):
    # Draw X from the worst prior and Y = X + G; the fraction with ℓ(Y) > ε estimates δ1. The exact
    # value must lie within 5 binomial standard errors.
    for sigma, eps, p_hat, beta in ((1.5, 0.4, [0.5, 0.5], 0.1), (2.0, 0.25, [0.3, 0.7], 0.05)):
        M = gaussian_mechanism(sigma)
        result = M.violation(eps, po.L1Ball(p_hat, beta))
        n = 400_000
        x = np.where(rng.random(n) < result.worst_prior[0], -1.0, 1.0)
        frequency = float(np.mean(M.leakage(M.sample(x, rng), result.worst_prior) > eps))
        assert abs(frequency - result.delta) <= 5 * np.sqrt(result.delta * (1 - result.delta) / n)


def test_gaussian_guarantee_eqs_64_65():
    sigma, eps, m, delta2 = 2.0, 0.3, 10_000, 1e-6
    g = gaussian_pml_guarantee(sigma, eps, [0.5, 0.5], m, delta2)
    beta = weissman_radius(2, m, delta2)  # eq. 45
    assert g.beta == pytest.approx(np.sqrt(2 * (np.log(2) - np.log(delta2)) / m), abs=1e-15)
    assert g.eps_star == pytest.approx(eps - np.log(1 - beta / 2 * np.exp(eps)), abs=1e-14)
    assert g.delta_star == pytest.approx(g.delta1 + delta2 - g.delta1 * delta2, abs=1e-15)
    assert g.delta1 == pytest.approx(
        gaussian_mechanism(sigma).delta(eps, po.L1Ball([0.5, 0.5], beta)), abs=1e-15
    )
    assert g.delta_star >= delta2  # the lower bound δ* >= δ2 visible in the paper's Fig. 6


def test_gaussian_audit():
    M = gaussian_mechanism(1.5)
    ball = po.L1Ball([0.4, 0.6], 0.1)
    # δ = 0: the sup of ℓ is the y → ±∞ limit, −log p_min at the ball's most extreme prior.
    report = M.audit(ball, 1.0)
    assert report.eps == pytest.approx(-np.log(0.35), abs=1e-12)
    assert not report.satisfied
    # δ > 0: the realized ε is where δ(ε) crosses δ.
    report = M.audit(ball, 1.0, delta=0.01)
    realized = report.eps
    assert M.delta(realized - 1e-6, ball) > 0.01 >= M.delta(realized + 1e-6, ball)
    assert report.satisfied


def test_boundary_priors_are_limits():
    # A prior with P(x) = 0 is read as the limit of interior priors: the LDP level (2/b; ∞ for Gaussian).
    assert laplace_mechanism(0.5).pml([0.0, 1.0]) == pytest.approx(4.0, abs=1e-14)
    assert gaussian_mechanism(1.0).pml([1.0, 0.0]) == np.inf
    assert laplace_mechanism(0.5).pml([1e-12, 1 - 1e-12]) == pytest.approx(4.0, abs=1e-9)


# ------------------------------------------------------------------ bad input
def test_bad_input():
    with pytest.raises(
        po.ValidationError, match=r"prior: expected a distribution over the binary input alphabet"
    ):
        laplace_pml(1.0, [0.2, 0.3, 0.5])
    with pytest.raises(po.ValidationError, match=r"F: expected a distribution over the binary input"):
        gaussian_mechanism(1.0).delta(0.5, po.L1Ball([0.2, 0.3, 0.5], 0.1))
    for delta in (0.0, 1.0, -0.5, 2.0):
        with pytest.raises(po.ValidationError, match=r"delta: expected a probability in \(0, 1\)"):
            laplace_pml_estimated(1.0, [0.3, 0.7], 100, delta)
        with pytest.raises(po.ValidationError, match=r"delta2: expected a probability in \(0, 1\)"):
            gaussian_pml_guarantee(1.0, 0.5, [0.3, 0.7], 100, delta)
    with pytest.raises(po.ValidationError, match=r"eps: expected ε > 0"):
        laplace_scale(0.0, [0.3, 0.7])
    with pytest.raises(po.ValidationError, match=r"b: expected a noise scale in \[1e-100, 1e\+100\]"):
        laplace_pml(0.0, [0.3, 0.7])
    with pytest.raises(po.ValidationError, match=r"x: expected input values in \{−1, \+1\}"):
        laplace_mechanism(1.0).sample(np.array([0.0, 1.0]))
    with pytest.raises(po.ValidationError, match=r"eps: expected β\*\(δ2\)·e\^ε < 2"):
        gaussian_pml_guarantee(1.0, 3.0, [0.5, 0.5], 10, 0.01)
    with pytest.raises(po.ValidationError, match=r"delta: expected a probability in \[0, 1\)"):
        gaussian_mechanism(1.0).audit([0.5, 0.5], 1.0, delta=1.5)
