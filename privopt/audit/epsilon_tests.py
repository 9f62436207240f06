"""Exact one-sided lower confidence bounds on the log-ratio of two event probabilities: the tests of ε.

A sample audit (:mod:`privopt.audit.sample_audit`) compares two *streams* of reports: stream A draws
its inputs from a distribution ``a/|a|`` over the mechanism's inputs and stream B from ``b/|b|`` (for
LDP a single input each, ``a = e_x``), so that the probability that a report of stream A falls in an
event ``E`` (a set of outputs) is ``π_A = aᵀw_E/|a|``, with ``w_E = W[:, E].sum(axis=1)``. Two exact
tests bound a log-ratio from below at level ``1 − α`` (docs/sample-audits.md gives the references):

**Ratio test** (:func:`ratio_lower_bound`). When the numbers of reports are Poisson, ``N_A ~
Poisson(μ_A)`` and ``N_B ~ Poisson(μ_B)``, the counts in ``E`` are independent Poisson variables
``C_A ~ Poisson(μ_A π_A)`` and ``C_B ~ Poisson(μ_B π_B)``, and given ``T = C_A + C_B = t``,
``C_A ~ Binomial(t, θ)`` with ``θ = μ_Aπ_A / (μ_Aπ_A + μ_Bπ_B)``: the conditional test of the ratio of
two Poisson means (Przyborowski & Wileński 1940; uniformly most powerful unbiased, Lehmann & Romano,
*Testing Statistical Hypotheses*, §4.5). The Clopper–Pearson lower bound ``θ_L`` of ``θ`` (Clopper &
Pearson 1934) gives ``log(π_A/π_B) >= log(θ_L/(1 − θ_L)) + log(μ_B/μ_A)``.

**Odds test** (:func:`odds_lower_bound`). For any numbers of reports, fixed or random, the table
``(C_A, N_A − C_A; C_B, N_B − C_B)`` given its margins makes ``C_A`` follow Fisher's noncentral
hypergeometric distribution with odds ratio ``ψ = [π_A/(1−π_A)] / [π_B/(1−π_B)]``; inverting the
one-sided conditional test gives an exact lower bound ``ψ_L`` (Cornfield 1956; the interval of Fisher's
exact test). ``ψ = r_E · r′_{E^c}`` is the product of the ratio of ``E`` for the pair ``(a, b)`` and the
ratio of the complement for the reversed pair ``(b, a)``; when a definition constrains both with the
same level, ``ε >= log ψ / 2``.

Both bounds are conservative only through the discreteness of the counts. Neither divides by zero: an
event with no report in stream A gives ``-inf`` (no evidence of leakage), one with no report in stream
B a finite bound that grows with ``C_A``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln, logsumexp
from scipy.stats import beta

from privopt.validation import FloatArray

#: Absolute accuracy, in log ψ, of the inversion of the conditional odds-ratio test.
_ODDS_XTOL = 1e-10


def ratio_lower_bound(c_a: int, mu_a: float, c_b: int, mu_b: float, alpha: float) -> float:
    """Exact lower ``1 − alpha`` bound on ``log(π_A/π_B)`` from Poisson counts ``c_a ~ Poisson(mu_a π_A)``
    and ``c_b ~ Poisson(mu_b π_B)`` (module docstring); ``-inf`` when ``c_a = 0``."""
    if c_a <= 0:
        return -math.inf
    theta = float(beta.ppf(alpha, c_a, c_b + 1))
    if theta <= 0.0:
        return -math.inf
    return math.log(theta) - math.log1p(-theta) + math.log(mu_b) - math.log(mu_a)


def odds_lower_bound(c_a: int, n_a: int, c_b: int, n_b: int, alpha: float) -> float:
    """Exact lower ``1 − alpha`` bound on the log odds ratio ``log ψ`` of the table
    ``(c_a, n_a − c_a; c_b, n_b − c_b)`` conditional on its margins (module docstring); ``-inf`` when
    ``c_a`` is the smallest count the margins allow."""
    t = c_a + c_b
    low, high = max(0, t - n_b), min(n_a, t)
    if c_a <= low:
        return -math.inf
    k = np.arange(low, high + 1, dtype=np.float64)
    base = _log_choose(n_a, k) + _log_choose(n_b, t - k)
    upper = k >= c_a
    log_alpha = math.log(alpha)

    def excess(log_psi: float) -> float:
        weights = base + k * log_psi
        return float(logsumexp(weights[upper]) - logsumexp(weights)) - log_alpha

    # Start from Woolf's estimate (with ½ added to every cell) and widen until the root is bracketed.
    cells = np.array([c_a, n_a - c_a, c_b, n_b - c_b], dtype=np.float64) + 0.5
    estimate = float(np.log(cells[0] * cells[3] / (cells[1] * cells[2])))
    spread = float(np.sqrt(np.sum(1.0 / cells))) + 1.0
    lo, hi = estimate - spread, estimate + spread
    while excess(lo) > 0.0:
        lo -= 2.0 * (hi - lo)
    while excess(hi) < 0.0:
        hi += 2.0 * (hi - lo)
    return float(brentq(excess, lo, hi, xtol=_ODDS_XTOL))


def _log_choose(n: int, k: FloatArray) -> FloatArray:
    return np.asarray(gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0))


def clopper_pearson(counts: np.ndarray, sizes: np.ndarray, alpha: float) -> tuple[FloatArray, FloatArray]:
    """Two-sided Clopper–Pearson interval ``[low, high]`` at level ``1 − alpha`` (``alpha/2`` in each
    tail) for every proportion ``counts/sizes`` (arrays of one shape); ``[0, 1]`` where ``sizes`` is 0."""
    c = np.asarray(counts, dtype=np.float64)
    n = np.asarray(sizes, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(c > 0, beta.ppf(alpha / 2.0, np.maximum(c, 1.0), n - c + 1.0), 0.0)
        high = np.where(c < n, beta.ppf(1.0 - alpha / 2.0, c + 1.0, np.maximum(n - c, 1.0)), 1.0)
    return np.nan_to_num(low, nan=0.0), np.nan_to_num(high, nan=1.0)


def log_ratio_estimate(c_a: int, mu_a: float, c_b: int, mu_b: float) -> float | None:
    """The plug-in ``log((c_a/mu_a) / (c_b/mu_b))`` (``±inf`` when one count is 0; ``None`` when both are)."""
    if c_a == 0 and c_b == 0:
        return None
    if c_b == 0:
        return math.inf
    if c_a == 0:
        return -math.inf
    return math.log(c_a / mu_a) - math.log(c_b / mu_b)


def log_odds_estimate(c_a: int, n_a: int, c_b: int, n_b: int) -> float | None:
    """The plug-in log odds ratio of the table (``±inf`` at a zero cell; ``None`` when undefined)."""
    cells = (c_a, n_a - c_a, c_b, n_b - c_b)
    top = 0 if 0 in (cells[0], cells[3]) else 1
    bottom = 0 if 0 in (cells[1], cells[2]) else 1
    if not top and not bottom:
        return None
    if not bottom:
        return math.inf
    if not top:
        return -math.inf
    return math.log(cells[0]) + math.log(cells[3]) - math.log(cells[1]) - math.log(cells[2])
