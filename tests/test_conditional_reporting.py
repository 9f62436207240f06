"""Conditional reporting: the RLDP form (ISIT paper Protocol 2, Theorems 5–6) and the LIP form
(privacy-funnel paper Algorithm 1, Props. 1–2)."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt.data.information import mutual_information
from privopt.mechanisms import calibrate_cr_lip, cr_lip_channel, cr_lip_leakage
from tests.conftest import random_distribution
from tests.test_independent_reporting import random_ball


def _frequencies(samples: np.ndarray, size: int) -> np.ndarray:
    return np.bincount(samples, minlength=size) / samples.size


def _within_confidence(frequency: np.ndarray, probability: np.ndarray, n: int, z: float = 5.0) -> bool:
    """Every frequency within z binomial standard errors of its probability (plus a 1/n floor)."""
    sd = np.sqrt(probability * (1.0 - probability) / n)
    return bool(np.all(np.abs(frequency - probability) <= z * sd + 1.0 / n))


# ------------------------------------------------------------------ CR, RLDP form
def test_cr_channel_matches_protocol2_by_simulation(rng):
    # Run Protocol 2 literally (GRR on s, then R^s(u) or R^{s̃}(Ũ) with Ũ ~ P̂(·|s̃)) and compare the
    # output frequencies with the exact channel's rows (Monte Carlo, 5 standard errors).
    F = random_ball(rng, (2, 3), 500)
    P = F.center
    eps, eps2 = 1.2, 0.7
    W = po.mechanisms.conditional_reporting_at(F, eps, eps2)
    radii = po.mechanisms.projection_l1_radii(F)
    components = np.stack(
        [po.mechanisms.grr(3, np.log(1.0 + 2.0 * np.expm1(eps2) / d)).matrix for d in radii]
    )
    rr = po.mechanisms.grr(2, eps - eps2).matrix
    cond = P.conditional_u_given_s()
    n = 200_000
    for s in range(2):
        for u in range(3):
            s_tilde = (rng.random(n)[:, None] > np.cumsum(rr[s])[None, :]).sum(axis=1)
            u_used = np.where(
                s_tilde == s, u, (rng.random(n)[:, None] > np.cumsum(cond[s_tilde], axis=1)).sum(axis=1)
            )
            rows = components[s_tilde, u_used]
            y = (rng.random(n)[:, None] > np.cumsum(rows, axis=1)).sum(axis=1)
            outputs = s_tilde * 3 + y  # outputs (s̃, y), s̃-major as in the channel
            assert _within_confidence(_frequencies(outputs, 6), W.matrix[s * 3 + u], n)


def test_cr_theorem6_with_eps0_the_grr_parameter(rng):
    # ISIT Theorem 6 with ε0 = ε1 (the GRR parameter): I(CR(X);X) = I(G^{ε1}(S);S)
    #   + e^{ε1}/(e^{ε1} + |S| − 1) · Σ_s P̂_s I_{U~P̂(·|s)}(R^s(U);U), checked against the exact channel.
    for _ in range(10):
        F = random_ball(rng, (int(rng.integers(2, 4)), int(rng.integers(2, 4))), 1000)
        P = F.center
        eps = float(rng.uniform(0.2, 3.0))
        eps2 = float(rng.uniform(0.0, eps))
        eps1 = eps - eps2
        W = po.mechanisms.conditional_reporting_at(F, eps, eps2)
        deltas = np.log1p(2.0 * np.expm1(eps2) / po.mechanisms.projection_l1_radii(F))
        cond = P.conditional_u_given_s()
        inner = sum(
            P.p_s[s] * mutual_information(cond[s], po.mechanisms.grr(P.n_u, deltas[s]).matrix)
            for s in range(P.n_s)
        )
        first = mutual_information(P.p_s, po.mechanisms.grr(P.n_s, eps1).matrix)
        weight = np.exp(eps1) / (np.exp(eps1) + P.n_s - 1)
        assert mutual_information(P.p_x, W.matrix) == pytest.approx(first + weight * inner, abs=1e-12)


def test_cr_passes_robust_audit_on_random_instances(rng):
    # Theorem 5 (with δ_s = log(1 + 2(e^{ε2} − 1)/d_s)): every design must pass the robust audit at ε.
    for trial in range(24):
        shape = [(2, 2), (2, 3), (3, 2), (3, 3)][trial % 4]
        F = random_ball(rng, shape, int(rng.choice([100, 1000, 10000])))
        eps = float(rng.uniform(0.1, 3.0))
        design = po.mechanisms.conditional_reporting(F, eps)
        report = po.audit(design.mechanism, po.SensitiveLDP(eps, F))
        assert report.upper <= eps + 1e-7, (trial, report)
        assert design.eps1 + design.eps2 == pytest.approx(eps, abs=1e-12)


def test_cr_search_beats_fine_grid(rng):
    for _ in range(6):
        F = random_ball(rng, (3, 3), 1000)
        eps = float(rng.uniform(0.2, 3.0))
        utility = po.MutualInformation(F.center)
        grid = max(
            utility.value(po.mechanisms.conditional_reporting_at(F, eps, t)) for t in np.linspace(0, eps, 801)
        )
        assert po.mechanisms.conditional_reporting(F, eps, verify_audit=False).value >= grid - 1e-12


def test_cr_bad_input(example1):
    F = po.RenyiBall.confidence(example1)
    with pytest.raises(po.ValidationError, match=r"F: expected a po.RenyiBall"):
        po.mechanisms.conditional_reporting(example1, 1.0)  # type: ignore[arg-type]
    with pytest.raises(po.ValidationError, match=r"eps2: expected a split"):
        po.mechanisms.conditional_reporting_at(F, 1.0, 1.5)

    def refuses(k: int, eps: float) -> po.Mechanism:
        raise po.ValidationError("eps", "a supported level", repr(eps))

    with pytest.raises(po.InfeasibleError, match=r"found no feasible point"):
        po.mechanisms.conditional_reporting(F, 1.0, R=refuses)


# ------------------------------------------------------------------ CR, LIP form
@pytest.mark.parametrize("eps", [0.05, 0.3, 1.0])
def test_cr_lip_calibration_is_exact(rng, eps):
    # The mechanism found for ε has audited LIP (exact ratio pairs, on X = S × U) equal to ε.
    checked = 0
    for _ in range(12):
        P = random_distribution(rng, (int(rng.integers(2, 5)), int(rng.integers(2, 6))))
        if not np.isfinite(calibrate_cr_lip(P, eps)):
            continue  # L(∞) <= ε: no α attains ε (tested separately)
        W = po.mechanisms.conditional_reporting_lip(P, eps)
        assert po.audit(W, po.LIP(eps, P)).eps == pytest.approx(eps, abs=1e-9)
        checked += 1
    assert checked >= 6


def test_eq33_is_the_exact_lip_and_prop2(rng):
    # Eq. 33 against the exact audit of the eq. 46 channel, and Prop. 2: L(α) <= α, non-decreasing.
    for _ in range(10):
        P = random_distribution(rng, (int(rng.integers(2, 5)), int(rng.integers(2, 6))))
        alphas = np.linspace(0.0, 6.0, 25)
        values = np.array([cr_lip_leakage(P, a) for a in alphas])
        assert np.all(values <= alphas + 1e-12)
        assert np.all(np.diff(values) >= -1e-12)
        for a in alphas[::6]:
            assert values[list(alphas).index(a)] == pytest.approx(
                po.audit(cr_lip_channel(P, a), po.LIP(a, P)).eps, abs=1e-12
            )


def test_cr_lip_channel_matches_algorithm1_by_simulation(rng):
    # Algorithm 1 run literally: ŝ ~ GRR^α(s); y = u if ŝ = s, else y ~ P(·|ŝ).
    P = random_distribution(rng, (3, 4))
    alpha = 0.8
    W = cr_lip_channel(P, alpha)
    rr = po.mechanisms.grr(3, alpha).matrix
    cond = P.conditional_u_given_s()
    n = 200_000
    for s in range(3):
        for u in range(4):
            s_hat = (rng.random(n)[:, None] > np.cumsum(rr[s])[None, :]).sum(axis=1)
            fresh = (rng.random(n)[:, None] > np.cumsum(cond[s_hat], axis=1)).sum(axis=1)
            y = np.where(s_hat == s, u, fresh)
            assert _within_confidence(_frequencies(y, 4), W.matrix[s * 4 + u], n)


def test_cr_lip_saturates_and_eps_zero():
    # S independent of U: even reporting u leaks nothing, L(∞) = 0, so α = ∞ (report u, LIP 0).
    P = po.JointDistribution(np.outer([0.3, 0.7], [0.2, 0.5, 0.3]))
    assert calibrate_cr_lip(P, 0.5) == np.inf
    W = po.mechanisms.conditional_reporting_lip(P, 0.5)
    np.testing.assert_allclose(W.matrix, np.tile(np.eye(3), (2, 1)))
    # ε = 0: α = 0 makes ŝ uniform, so Y is independent of S (L(0) = 0).
    Q = po.JointDistribution([[0.1, 0.3], [0.4, 0.2]])
    assert calibrate_cr_lip(Q, 0.0) == 0.0
    assert po.audit(po.mechanisms.conditional_reporting_lip(Q, 0.0), po.LIP(0.0, Q)).eps == pytest.approx(
        0.0, abs=1e-12
    )


def test_cr_lip_bad_input():
    with pytest.raises(po.ValidationError, match=r"P: expected a JointDistribution"):
        cr_lip_leakage(np.array([0.5, 0.5]), 1.0)  # type: ignore[arg-type]
    P = po.JointDistribution([[0.1, 0.3], [0.4, 0.2]])
    with pytest.raises(po.ValidationError, match=r"eps: expected a finite number >= 0"):
        po.mechanisms.conditional_reporting_lip(P, -0.1)
    with pytest.raises(po.ValidationError, match=r"alpha: expected"):
        cr_lip_channel(P, -1.0)
    with pytest.raises(po.ValidationError, match=r"P\(S=s\) > 0"):
        cr_lip_leakage(po.JointDistribution([[0.0, 0.0], [0.5, 0.5]]), 1.0)
