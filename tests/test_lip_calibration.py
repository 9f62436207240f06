"""LIP of GRR (privacy-funnel eq. 29) and its calibration; LIP of OUE (eq. 32)."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt.mechanisms import calibrate_grr_lip, calibrate_oue_lip, grr_lip, unary_lip
from privopt.mechanisms.unary_encoding import optimised_unary_encoding
from tests.conftest import random_distribution


@pytest.mark.parametrize("on", ["x", "u"])
def test_eq29_equals_audit_on_random_distributions(rng, on):
    for _ in range(25):
        P = random_distribution(rng, (int(rng.integers(2, 5)), int(rng.integers(2, 6))))
        alpha = rng.uniform(0.0, 6.0)
        W = po.mechanisms.grr(P.input_size(on), alpha)
        assert grr_lip(P, alpha, on) == pytest.approx(po.audit(W, po.LIP(alpha, P, on=on)).eps, abs=1e-10)


@pytest.mark.parametrize("eps", [0.05, 0.3, 1.0])
def test_grr_calibration_is_exact(rng, eps):
    for _ in range(10):
        P = random_distribution(rng, (2, 5))
        alpha = calibrate_grr_lip(P, eps, on="u")
        assert np.isfinite(alpha)
        assert alpha >= eps - 1e-12  # LIP(GRR^α) <= α (an α-LDP mechanism is α-LIP)
        report = po.audit(po.mechanisms.grr(5, alpha), po.LIP(eps, P, on="u"))
        assert report.eps == pytest.approx(eps, abs=1e-10)
        assert report.satisfied


def test_grr_calibration_saturates_to_identity():
    # S independent of U: the identity leaks nothing about S, so no α attains ε > 0 and α = ∞.
    P = po.JointDistribution(np.outer([0.3, 0.7], [0.2, 0.5, 0.3]))
    assert calibrate_grr_lip(P, 0.5, on="u") == np.inf
    W = po.mechanisms.grr_calibrated_lip(P, 0.5, on="u")
    np.testing.assert_allclose(W.matrix, np.eye(3))
    assert po.audit(W, po.LIP(0.5, P, on="u")).eps == pytest.approx(0.0, abs=1e-12)


def test_calibration_eps_zero():
    P = po.JointDistribution([[0.1, 0.3], [0.4, 0.2]])
    assert calibrate_grr_lip(P, 0.0) == 0.0


@pytest.mark.parametrize("eps", [0.1, 0.5])
def test_oue_calibration_is_exact(rng, eps):
    for _ in range(5):
        P = random_distribution(rng, (3, 4))
        alpha = calibrate_oue_lip(P, eps, on="u")
        assert unary_lip(optimised_unary_encoding(4, alpha), P, on="u") == pytest.approx(eps, abs=1e-10)
        W = po.mechanisms.oue_calibrated_lip(P, eps, on="u")
        assert po.audit(W, po.LIP(eps, P, on="u")).eps == pytest.approx(eps, abs=1e-10)


def test_grr_lip_requires_joint_distribution():
    with pytest.raises(po.ValidationError, match="P: expected a JointDistribution"):
        grr_lip(np.array([0.5, 0.5]), 1.0)
