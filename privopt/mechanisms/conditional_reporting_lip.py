"""Conditional reporting, LIP form: privacy-funnel paper Algorithm 1 (CR^α), Props. 1–2.

The privacy-funnel paper's data item is privopt's public part ``U`` (its ``X``), with the secret ``S``
also available to the mechanism; so CR^α reads privopt's ``X = S × U`` and outputs a value of ``U``.
On input ``(s, u)``: draw ``ŝ = GRR^α(s)`` on ``S``; output ``u`` if ``ŝ = s``, otherwise a fresh draw
from ``P(·|ŝ)``. With ``c = |S|`` the channel is (eq. 46)

    W[(s, u), y] = (e^α [y = u] + Σ_{ŝ != s} P(y|ŝ)) / (e^α + c − 1).

Derivation of the leakage (Appendix A, eqs. 47–55, recomputed): averaging over ``u ~ P(·|s)``,

    P(Y=y | S=s) = ((e^α − 1) P(y|s) + Σ_{s'} P(y|s')) / (e^α + c − 1),
    P(Y=y)       = ((e^α − 1) P(y)   + Σ_{s'} P(y|s')) / (e^α + c − 1),

so the LIP of CR^α w.r.t. ``S`` is (eq. 33)

    L(α) = max_{y,s} |log( ((e^α − 1) P(y|s) + Σ_{s'} P(y|s')) / ((e^α − 1) P(y) + Σ_{s'} P(y|s')) )|,

over the ``y`` with ``P(y) > 0``. Each term ``|log((c a + b)/(c p + b))|`` is non-decreasing in
``c = e^α − 1`` (its derivative has the sign of ``a − p``), so ``L`` is continuous and non-decreasing
with ``L(0) = 0``, and ``L(α) <= α`` (Prop. 2: CR^α is α-LDP w.r.t. ``S``). The α with ``L(α) = ε`` is
found by bracketing and Brent's method (the calibration of
:mod:`privopt.mechanisms.lip_calibration`); when even ``L(∞) = max |log P(y|s)/P(y)|`` is at most ε,
α = ∞ (CR reports ``u`` itself) and no α attains ε.
"""

from __future__ import annotations

import math

import numpy as np

from privopt.audit import audit
from privopt.data.distribution import JointDistribution
from privopt.data.mechanism import Mechanism
from privopt.definitions import LIP
from privopt.errors import SolverError, ValidationError
from privopt.mechanisms.lip_calibration import calibrate_monotone
from privopt.validation import FloatArray, check_eps, check_eps_or_inf


def _check_joint(P: object) -> JointDistribution:
    if not isinstance(P, JointDistribution):
        raise ValidationError(
            "P", "a JointDistribution P[s, u] (CR reads the secret S and the data U)", type(P).__name__
        )
    return P


def cr_lip_leakage(P: JointDistribution, alpha: float) -> float:
    """``L(α)``, the exact LIP of CR^α w.r.t. ``S`` (privacy-funnel paper eq. 33, Prop. 1).

    ``alpha = inf`` gives the limit ``max_{y,s} |log P(y|s)/P(y)|`` over ``P(y) > 0``.
    """
    P = _check_joint(P)
    conditional = P.conditional_u_given_s()  # P(y|s): the output alphabet is U
    marginal = P.p_u
    support = marginal > 0.0
    a, p = conditional[:, support], marginal[support]
    alpha = check_eps_or_inf(alpha, "alpha")
    if math.isinf(alpha):
        with np.errstate(divide="ignore"):
            return float(np.max(np.abs(np.log(a) - np.log(p))))
    c = np.expm1(alpha)
    b = a.sum(axis=0)  # Σ_{s'} P(y|s') > 0 on the support of P(y)
    return float(np.max(np.abs(np.log(c * a + b) - np.log(c * p + b))))


def calibrate_cr_lip(P: JointDistribution, eps: float) -> float:
    """The α with ``L(α) = ε`` (``inf`` when ``L(∞) <= ε``: then CR^∞, which reports ``u``, suffices)."""
    P = _check_joint(P)
    eps = check_eps(eps)
    return calibrate_monotone(lambda a: cr_lip_leakage(P, a), eps)


def cr_lip_channel(P: JointDistribution, alpha: float) -> Mechanism:
    """The exact channel of CR^α on ``X = S × U`` (s-major) to ``Y = U`` (eq. 46)."""
    P = _check_joint(P)
    n_s, n_u = P.shape
    conditional = P.conditional_u_given_s()
    alpha = check_eps_or_inf(alpha, "alpha")
    if math.isinf(alpha):
        matrix: FloatArray = np.tile(np.eye(n_u), (n_s, 1))
    else:
        # Divide numerator and denominator by e^α so that large α does not overflow.
        keep = 1.0 / (1.0 + (n_s - 1) * np.exp(-alpha))
        other = np.exp(-alpha) * keep
        decoy = conditional.sum(axis=0)[None, :] - conditional  # Σ_{ŝ != s} P(y|ŝ), row s
        matrix = np.repeat(other * decoy, n_u, axis=0) + keep * np.tile(np.eye(n_u), (n_s, 1))
    return Mechanism(matrix, P.x_labels, P.u_labels, name=f"CR-LIP(alpha={alpha:.4g})")


def conditional_reporting_lip(P: JointDistribution, eps: float) -> Mechanism:
    """CR^α calibrated to be exactly ε-LIP w.r.t. ``S`` (α from :func:`calibrate_cr_lip`), audited.

    The channel reads ``X = S × U``; audit it with ``po.LIP(eps, P)`` (``on="x"``). Raises
    :class:`~privopt.errors.SolverError` if the audit does not confirm ε-LIP.
    """
    P = _check_joint(P)
    eps = check_eps(eps)
    alpha = calibrate_cr_lip(P, eps)
    mechanism = cr_lip_channel(P, alpha)
    name = f"CR-LIP(eps={eps:.4g}, alpha={alpha:.4g})"
    mechanism = Mechanism(mechanism.matrix, mechanism.input_labels, mechanism.output_labels, name=name)
    report = audit(mechanism, LIP(eps, P))
    if not report.satisfied:
        raise SolverError(f"conditional reporting (LIP) fails its own audit — {report}")
    return mechanism
