"""Calibrating LDP mechanisms to an exact LIP level (privacy-funnel paper §VII-A, eqs. 29 and 32).

An α-LDP mechanism is also α-LIP, but its actual LIP w.r.t. ``S`` is usually smaller because ``S``
is only correlated with the input. Both GRR and unary encodings have a LIP that is continuous and
non-decreasing in α (each term ``|log((1 + (e^α−1)a)/(1 + (e^α−1)b))|`` is), so the α giving LIP
exactly ε is found by bracketing and Brent's method.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import brentq

from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.data.mechanism import Mechanism
from privopt.errors import ValidationError
from privopt.mechanisms.randomized_response import grr_matrix
from privopt.mechanisms.unary_encoding import optimised_unary_encoding, unary_lip, unary_matrix
from privopt.tolerances import ROOT_XTOL
from privopt.validation import check_eps, check_eps_or_inf

#: Above this α, e^α overflows double precision; the mechanism is then the identity (α = ∞).
_ALPHA_MAX = 700.0


def grr_lip(P: JointDistribution, alpha: float, on: InputAlphabet = "x") -> float:
    """LIP of ``GRR^α`` w.r.t. ``S`` (privacy-funnel paper eq. 29)::

        LIP(GRR^α) = max_{x, s} | log((1 + (e^α − 1) P(x|s)) / (1 + (e^α − 1) P(x))) |.

    ``alpha = inf`` gives the identity mechanism's LIP, ``max |log(P(x|s)/P(x))|`` over ``P(x) > 0``.
    """
    if not isinstance(P, JointDistribution):
        raise ValidationError(
            "P", "a JointDistribution (LIP needs the sensitive attribute)", type(P).__name__
        )
    conditional, marginal = P.conditional(on), P.marginal(on)
    alpha = check_eps_or_inf(alpha, "alpha")
    if math.isinf(alpha):
        support = marginal > 0
        with np.errstate(divide="ignore"):
            return float(np.max(np.abs(np.log(conditional[:, support] / marginal[support]))))
    c = np.expm1(alpha)
    return float(np.max(np.abs(np.log1p(c * conditional) - np.log1p(c * marginal))))


def calibrate_monotone(lip: Callable[[float], float], eps: float) -> float:
    """Smallest α >= 0 with ``lip(α) = eps`` for a continuous non-decreasing ``lip``; ``inf`` if none.

    ``lip(inf)`` must be the limit as α → ∞. Bracketing by doubling up to α = 700 (beyond, e^α
    overflows), then Brent's method to :data:`~privopt.tolerances.ROOT_XTOL`.
    """
    if lip(np.inf) <= eps:
        return np.inf
    if eps <= 0.0:
        return 0.0
    high = 1.0
    while lip(high) < eps:
        if high >= _ALPHA_MAX:
            return np.inf
        high = min(2.0 * high, _ALPHA_MAX)
    return float(brentq(lambda a: lip(a) - eps, 0.0, high, xtol=ROOT_XTOL, rtol=4 * np.finfo(float).eps))


def calibrate_grr_lip(P: JointDistribution, eps: float, on: InputAlphabet = "x") -> float:
    """The α for which ``GRR^α`` is exactly ε-LIP w.r.t. ``S``.

    Returns ``inf`` when even the identity mechanism (α = ∞) has LIP at most ε — then no
    randomisation is needed and no α attains ε exactly.
    """
    eps = check_eps(eps)
    return calibrate_monotone(lambda a: grr_lip(P, a, on), eps)


def grr_calibrated_lip(P: JointDistribution, eps: float, on: InputAlphabet = "x") -> Mechanism:
    """``GRR^α`` with α from :func:`calibrate_grr_lip`: the GRR that is exactly ε-LIP."""
    alpha = calibrate_grr_lip(P, eps, on)
    labels = P.input_labels(on)
    return Mechanism(
        grr_matrix(len(labels), alpha), labels, labels, name=f"GRR-LIP(eps={eps:.4g}, alpha={alpha:.4g})"
    )


def _oue_lip_at(P: JointDistribution, alpha: float, on: InputAlphabet) -> float:
    if np.isinf(alpha):
        # As α → ∞ each subset's ratio tends to Σ_{x∈y} P(x|s) / Σ_{x∈y} P(x), a mediant of the
        # singleton ratios, so the limit is max |log P(x|s)/P(x)|: the same as GRR's.
        return grr_lip(P, np.inf, on)
    return unary_lip(optimised_unary_encoding(P.input_size(on), alpha), P, on)


def calibrate_oue_lip(P: JointDistribution, eps: float, on: InputAlphabet = "x") -> float:
    """The α for which ``OUE^α`` is exactly ε-LIP w.r.t. ``S`` (eq. 32); ``inf`` if never reached."""
    eps = check_eps(eps)
    return calibrate_monotone(lambda a: _oue_lip_at(P, a, on), eps)


def oue_calibrated_lip(
    P: JointDistribution, eps: float, on: InputAlphabet = "x", *, max_bytes: int | None = None
) -> Mechanism:
    """``OUE^α`` with α from :func:`calibrate_oue_lip`, as a dense mechanism (see :func:`oue`)."""
    alpha = min(calibrate_oue_lip(P, eps, on), _ALPHA_MAX)
    code = optimised_unary_encoding(P.input_size(on), alpha)
    return Mechanism(
        unary_matrix(code, max_bytes),
        P.input_labels(on),
        None,
        name=f"OUE-LIP(eps={eps:.4g}, alpha={alpha:.4g})",
    )
