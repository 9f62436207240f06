"""Binary additive-noise mechanisms and their PML: PML paper §VI (Laplace and Gaussian noise).

The input is binary, ``X ∈ {−1, +1}`` (the paper's ``x1 = −1``, ``x2 = +1``), and the output is
continuous, ``Y = X + N`` with ``N`` Laplace (scale ``b``, eq. 48) or Gaussian (``σ``, eq. 53). Priors
are written ``(P(X=−1), P(X=+1))``. The leakage to an outcome ``y`` is (eq. 46)

    ℓ_P(y) = log max_x f(y|x) / f_Y(y),     f_Y(y) = Σ_x P(x) f(y|x).

**Structure used throughout.** Both noises are symmetric and log-concave, so the likelihood ratio
``r(y) = f(y|−1)/f(y|+1)`` is non-increasing: for ``y >= 0`` (where ``x = +1`` is the more likely
input) ``ℓ_P(y) = −log(P(+1) + P(−1) r(y))`` is non-decreasing in ``y``, and symmetrically for
``y <= 0``. Hence

- the ε-PML level (δ = 0) is the limit ``y → ±∞``: ``sup_y ℓ_P = max_x −log(P(x) + (1 − P(x)) e^{−L})``
  with ``L = lim_{y→∞} log f(y|+1)/f(y|−1)`` the mechanism's LDP level (``2/b`` for Laplace, ``∞`` for
  Gaussian). For Laplace this is Prop. 3 / eq. 49;
- the violation set ``E_ε(P) = {y : ℓ_P(y) > ε}`` of eq. 58 is ``(−∞, y₋) ∪ (y₊, ∞)``, its thresholds
  solving ``r(y₊) = (e^{−ε} − P(+1))/P(−1)`` (found by Brent's method on ``log r``, computed from the
  log-densities), and its probability (eqs. 59–62) is a sum of noise tail probabilities — the integral
  in closed form, accurate to double precision;
- over an ℓ1 ball of binary priors (an interval of ``P(+1)``) the δ of eq. 59 is a 1-D maximisation,
  done by a scan plus bounded refinements around every scanned local maximum
  (:func:`~privopt.mechanisms.independent_reporting.maximise_on_interval`) instead of the paper's grid
  search; the ε-PML level over a ball is attained at an extreme prior (PML paper Prop. 1: ℓ is convex
  in the prior).

*Remark on eqs. 63–65.* δ1 of eq. 59 is already a supremum over the ball, so with probability
``1 − δ2`` over the data the mechanism is (ε, δ1)-PML w.r.t. the true prior, and (ε, δ*)-PML overall
with ``δ* = δ1 + δ2 − δ1δ2``; the paper's additional inflation to ``ε* = ε − log(1 − β e^ε/2)`` (eq. 64,
from Theorem 4 for discrete ε-PML mechanisms) is therefore conservative. Both are reported.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats
from scipy.optimize import brentq
from scipy.special import logsumexp

from privopt.audit import AuditReport, Witness
from privopt.data.distribution import JointDistribution
from privopt.data.terms import PairLabel, Term
from privopt.errors import ValidationError
from privopt.mechanisms.independent_reporting import maximise_on_interval
from privopt.sets.finite import FiniteSet, Point
from privopt.sets.l1 import L1Ball, weissman_radius
from privopt.tolerances import AUDIT_EPS_ATOL, NOISE_SCALE_MAX, PRIOR_XTOL, ROOT_XTOL
from privopt.validation import FloatArray, check_eps, check_probability_vector, check_real

#: The binary input alphabet of PML paper §VI.
INPUTS: tuple[float, float] = (-1.0, 1.0)

#: Points of the scan over an ℓ1 ball's priors that precedes the bounded refinements.
PRIOR_SCAN_POINTS = 65

NoiseFamily = Literal["laplace", "gaussian"]

#: A binary prior, or a set of them: a Point, a FiniteSet or an L1Ball (the noise mechanisms take only these;
#: privopt.mechanisms.pml_accounting.Priors also admits polytopes over any alphabet).
BinaryPriors: TypeAlias = ArrayLike | JointDistribution | Point | FiniteSet | L1Ball


class _Noise(Protocol):
    """The part of a frozen scipy distribution the mechanism uses."""

    def rvs(self, size: tuple[int, ...], random_state: np.random.Generator) -> FloatArray: ...

    def sf(self, t: float) -> float: ...

    def cdf(self, t: float) -> float: ...


def _binary_prior(prior: ArrayLike | JointDistribution, argument: str = "prior") -> FloatArray:
    """``(P(X=−1), P(X=+1))`` from a length-2 vector or a JointDistribution over two symbols."""
    p = prior.p_x if isinstance(prior, JointDistribution) else check_probability_vector(prior, argument)
    if p.size != 2:
        raise ValidationError(
            argument,
            "a distribution over the binary input alphabet {−1, +1} (PML paper §VI is for binary X)",
            f"{p.size} symbols",
        )
    return p


def _check_scale(value: object, argument: str) -> float:
    return check_real(
        value,
        argument,
        low=1.0 / NOISE_SCALE_MAX,
        high=NOISE_SCALE_MAX,
        expected=f"a noise scale in [{1.0 / NOISE_SCALE_MAX:g}, {NOISE_SCALE_MAX:g}]",
    )


@dataclass(frozen=True)
class Violation:
    """The probability of the violation set ``E_ε`` (eq. 58) at the worst prior of a set (eq. 59).

    Attributes
    ----------
    delta:
        ``sup_P P_{Y~P}(ℓ_P(Y) > ε)``.
    worst_prior:
        The prior ``(P(X=−1), P(X=+1))`` attaining it.
    thresholds:
        ``(y₋, y₊)``: ``E_ε = (−∞, y₋) ∪ (y₊, ∞)`` at the worst prior (``∓inf`` for an empty side).
    error:
        An estimate of the absolute error of ``delta``: the threshold tolerance times the output
        density there, plus the change of δ within the prior search's tolerance.
    evaluations:
        Number of priors at which δ was evaluated.
    """

    delta: float
    worst_prior: FloatArray
    thresholds: tuple[float, float]
    error: float
    evaluations: int


@dataclass(frozen=True, eq=False)
class _ContinuousMechanismFields:
    family: NoiseFamily
    scale: float
    name: str
    _noise: _Noise = field(repr=False)


@dataclass(frozen=True, eq=False, init=False)
class ContinuousMechanism(_ContinuousMechanismFields):
    """``Y = X + N`` on ``X ∈ {−1, +1}`` with Laplace (``scale = b``) or Gaussian (``scale = σ``) noise.

    Not a :class:`~privopt.Mechanism`: the output is a real number. It has densities, sampling, the
    pointwise leakage (eq. 46) and an :meth:`audit` for ε-PML and (ε, δ)-PML over a prior, a finite set
    of priors or an ℓ1 ball (PML paper §VI). The constructor validates the family and the scale; the
    default ``name`` is ``Laplace(b=…)`` or ``Gaussian(sigma=…)``.
    """

    def __init__(self, family: NoiseFamily, scale: float, name: str = "") -> None:
        if family not in ("laplace", "gaussian"):
            raise ValidationError("family", "'laplace' or 'gaussian'", repr(family))
        scale = _check_scale(scale, "scale")
        noise = stats.laplace(scale=scale) if family == "laplace" else stats.norm(scale=scale)
        if not name:
            symbol = "b" if family == "laplace" else "sigma"
            name = f"{family.capitalize()}({symbol}={scale:.4g})"
        super().__init__(family, scale, name, noise)

    # ------------------------------------------------------------------ the noise
    def noise_logpdf(self, t: ArrayLike) -> FloatArray:
        """``log f_N(t)`` in closed form (finite far in the tails, unlike ``log(pdf)``)."""
        t = np.asarray(t, dtype=np.float64)
        if self.family == "laplace":
            return -np.log(2.0 * self.scale) - np.abs(t) / self.scale
        return -0.5 * (t / self.scale) ** 2 - np.log(self.scale * np.sqrt(2.0 * np.pi))

    @property
    def ldp_eps(self) -> float:
        """``L = sup_y log f(y|+1)/f(y|−1)``: the mechanism is L-LDP (``2/b`` for Laplace, ``∞`` for Gaussian)."""
        return 2.0 / self.scale if self.family == "laplace" else np.inf

    def log_density(self, y: ArrayLike, x: float) -> FloatArray:
        """``log f(y|x)`` (eqs. 48, 55)."""
        return self.noise_logpdf(np.asarray(y, dtype=np.float64) - self._input(x))

    def density(self, y: ArrayLike, x: float) -> FloatArray:
        """``f(y|x)``."""
        return np.exp(self.log_density(y, x))

    def _input(self, x: float) -> float:
        if x not in INPUTS:
            raise ValidationError("x", "an input value −1 or +1", repr(x))
        return float(x)

    def sample(self, x: ArrayLike, rng: np.random.Generator | int | None = None) -> FloatArray:
        """``x + N`` for an array of inputs in ``{−1, +1}``; ``rng`` a Generator or a seed."""
        values = np.asarray(x, dtype=np.float64)
        if values.size and not np.all((values == -1.0) | (values == 1.0)):
            raise ValidationError("x", "input values in {−1, +1}", f"values {np.unique(values)[:5]}")
        generator = np.random.default_rng(rng)
        return values + self._noise.rvs(size=values.shape, random_state=generator)

    # ------------------------------------------------------------------ leakage
    def leakage(self, y: ArrayLike, prior: ArrayLike | JointDistribution) -> FloatArray:
        """``ℓ_P(y) = log max_x f(y|x) − log Σ_x P(x) f(y|x)`` (eq. 46), vectorised over ``y``."""
        p = _binary_prior(prior)
        y = np.asarray(y, dtype=np.float64)
        logs = np.stack([self.log_density(y, x) for x in INPUTS])
        with np.errstate(divide="ignore"):
            log_prior = np.log(p).reshape((2,) + (1,) * y.ndim)
        return logs.max(axis=0) - logsumexp(logs + log_prior, axis=0)

    def pml(self, prior: ArrayLike | JointDistribution) -> float:
        """``ε_min = sup_y ℓ_P(y) = −log(p + (1 − p) e^{−L})`` with ``p = min_x P(x)`` (the y → ±∞ limit;
        eq. 49 for Laplace). A prior on the boundary is read as the limit of interior priors (→ ``L``)."""
        p = float(_binary_prior(prior).min())
        with np.errstate(divide="ignore"):  # Gaussian noise and a boundary prior: ∞
            return float(-np.log(p + (1.0 - p) * np.exp(-self.ldp_eps)))

    def _log_r(self, y: float) -> float:
        """``log r(y) = log f(y|−1) − log f(y|+1)``, non-increasing (log-concave noise), in closed form:
        ``(|y − 1| − |y + 1|)/b`` (Laplace) or ``−2y/σ²`` (Gaussian) — the difference of the two log
        densities would cancel to 0 for large ``y`` and large scales."""
        if self.family == "laplace":
            return float((abs(y - 1.0) - abs(y + 1.0)) / self.scale)
        return float(-2.0 * y / self.scale**2)

    def _threshold(self, target: float) -> float:
        """The ``y >= 0`` with ``log r(y) = target`` (``target < 0``); ``inf`` if ``log r`` never gets below it."""
        if target <= -self.ldp_eps:
            return np.inf
        high = 1.0
        while self._log_r(high) >= target:
            high *= 2.0
        return float(brentq(lambda t: self._log_r(t) - target, 0.0, high, xtol=ROOT_XTOL))

    def _side(self, eps: float, p_here: float, p_other: float) -> float:
        """The threshold ``t`` such that ``ℓ > ε`` exactly for ``y > t`` on the side where the input of
        prior ``p_here`` is the more likely (``inf``: no violation on that side)."""
        if p_other <= 0.0:
            return np.inf  # ℓ = −log p_here = 0 on this side
        ratio = (np.exp(-eps) - p_here) / p_other
        if ratio <= 0.0:
            return np.inf
        return self._threshold(float(np.log(ratio))) if ratio < 1.0 else 0.0

    def violation_thresholds(self, eps: float, prior: ArrayLike | JointDistribution) -> tuple[float, float]:
        """``(y₋, y₊)`` with ``E_ε(P) = (−∞, y₋) ∪ (y₊, ∞)`` (eq. 58); ``∓inf`` marks an empty side."""
        eps = check_eps(eps)
        p_minus, p_plus = _binary_prior(prior)
        return -self._side(eps, p_minus, p_plus), self._side(eps, p_plus, p_minus)

    def violation_probability(self, eps: float, prior: ArrayLike | JointDistribution) -> float:
        """``P_{Y~P}(E_ε(P))`` (eq. 62 at one prior), from the noise's tail probabilities."""
        p = _binary_prior(prior)
        low, high = self.violation_thresholds(eps, p)
        noise = self._noise
        total = 0.0
        for weight, x in zip(p, INPUTS, strict=True):
            if weight > 0.0:
                upper = noise.sf(high - x) if np.isfinite(high) else 0.0
                lower = noise.cdf(low - x) if np.isfinite(low) else 0.0
                total += weight * (upper + lower)
        return float(total)

    # ------------------------------------------------------------------ over sets of priors
    def _priors(self, F: BinaryPriors) -> tuple[FloatArray, tuple[float, float] | None]:
        """Listed priors (rows) and, for an ℓ1 ball, the interval of ``P(+1)`` it spans."""
        if isinstance(F, L1Ball):
            center = _binary_prior(F.center, "F")
            low = max(center[1] - F.radius / 2.0, 0.0)
            high = min(center[1] + F.radius / 2.0, 1.0)
            extremes = np.array([[1.0 - low, low], [1.0 - high, high]])
            return extremes, (low, high)
        if isinstance(F, (Point, FiniteSet)):
            return np.vstack([_binary_prior(p, "F") for p in F.members()]), None
        return _binary_prior(F, "F")[None, :], None

    def violation(self, eps: float, F: BinaryPriors) -> Violation:
        """δ of eq. 59: the largest ``P_{Y~P}(E_ε(P))`` over ``P`` in ``F`` (a prior, a Point, a FiniteSet or
        an L1Ball of binary priors), with the worst prior, the thresholds and an error estimate."""
        eps = check_eps(eps)
        listed, interval = self._priors(F)

        def at(p_plus: float) -> float:
            return self.violation_probability(eps, np.array([1.0 - p_plus, p_plus]))

        if interval is None:
            values = [self.violation_probability(eps, p) for p in listed]
            k = int(np.argmax(values))
            worst, delta, evaluations, prior_error = listed[k], float(values[k]), len(values), 0.0
        else:
            best = maximise_on_interval(
                at, interval[0], interval[1], scan_points=PRIOR_SCAN_POINTS, xtol=PRIOR_XTOL, what="P(X=+1)"
            )
            worst, delta, evaluations = (
                np.array([1.0 - best.argmax, best.argmax]),
                best.value,
                best.evaluations,
            )
            nearby = [at(float(np.clip(best.argmax + s * PRIOR_XTOL, *interval))) for s in (-1.0, 1.0)]
            prior_error = float(max(abs(v - delta) for v in nearby))
        low, high = self.violation_thresholds(eps, worst)
        density = sum(
            float(worst[i] * self.density(t, x))
            for t in (low, high)
            if np.isfinite(t)
            for i, x in enumerate(INPUTS)
        )
        error = ROOT_XTOL * density + prior_error + 4.0 * np.finfo(float).eps * delta
        return Violation(delta, worst, (low, high), error, evaluations)

    def delta(self, eps: float, F: BinaryPriors) -> float:
        """``δ(ε) = sup_{P ∈ F} P_{Y~P}(ℓ_P(Y) > ε)`` (eq. 59)."""
        return self.violation(eps, F).delta

    def realized_eps(self, F: BinaryPriors, delta: float = 0.0) -> float:
        """The smallest ε for which the mechanism is (ε, δ)-PML for every prior in ``F``.

        ``δ = 0``: ``max_{P ∈ F} sup_y ℓ_P(y)``, attained at an extreme prior. ``δ > 0``: the smallest ε
        with ``δ(ε) <= δ``, by root finding on the non-increasing ``δ(ε)``.
        """
        delta = _check_delta(delta, allow_zero=True)
        listed, _interval = self._priors(F)
        sup = max(self.pml(p) for p in listed)
        if delta == 0.0:
            return sup
        if self.delta(0.0, F) <= delta:
            return 0.0
        high = sup if np.isfinite(sup) else 1.0
        while self.delta(high, F) > delta:
            high *= 2.0
        return float(brentq(lambda e: self.delta(e, F) - delta, 0.0, high, xtol=ROOT_XTOL))

    def audit(
        self, F: BinaryPriors, eps: float, delta: float = 0.0, *, tolerance: float = AUDIT_EPS_ATOL
    ) -> AuditReport:
        """Audit (ε, δ)-PML (δ = 0: ε-PML) for every prior in ``F``; ``eps`` of the report is the
        realized ε at level δ (:meth:`realized_eps`), ``details["delta"]`` the δ at the target ε."""
        eps = check_eps(eps)
        delta = _check_delta(delta, allow_zero=True)
        realized = self.realized_eps(F, delta)
        listed, _interval = self._priors(F)
        per_prior = np.array([self.pml(p) for p in listed])
        at_target = self.violation(eps, F)
        if delta == 0.0:
            k = int(np.argmax(per_prior))
            # The sup is the limit on the side of the less likely input: y → −∞ for x = −1, +∞ for x = +1.
            output: Hashable = np.inf if int(np.argmin(listed[k])) == 1 else -np.inf
            prior = listed[k]
            rule = "limit of ℓ(y) as |y| → ∞ (monotone likelihood ratio)"
        else:
            worst = self.violation(realized, F)
            output, prior = worst.thresholds, worst.worst_prior
            rule = f"violation set (−∞, y₋) ∪ (y₊, ∞) has probability δ = {delta:.3g} at this prior"
        pair = PairLabel(
            Term("x", "the more likely input at y"),
            Term("P", None, f"prior (P(X=−1), P(X=+1)) = ({prior[0]:.6g}, {prior[1]:.6g})"),
            None,
            rule,
        )
        witness = Witness(output, pair, realized) if realized > 0.0 else None
        return AuditReport(
            definition=f"({eps:.6g}, {delta:.3g})-PML of {self.name} over {F!r}",
            target=eps,
            lower=realized,
            upper=realized,
            satisfied=realized <= eps + tolerance,
            witness=witness,
            per_output=per_prior,
            tolerance=tolerance,
            method="exact: closed-form noise tails and the monotone likelihood ratio (PML paper §VI)",
            details={
                "delta": at_target.delta,
                "delta_error": at_target.error,
                "worst_prior": at_target.worst_prior,
            },
        )

    def __repr__(self) -> str:
        return f"ContinuousMechanism({self.name})"


def _check_delta(delta: object, *, allow_zero: bool = False, argument: str = "delta") -> float:
    """A failure probability in (0, 1) (``[0, 1)`` when ``allow_zero``: δ = 0 is plain ε-PML)."""
    expected = "a probability in [0, 1)" if allow_zero else "a probability in (0, 1)"
    return check_real(
        delta, argument, low=0.0, high=1.0, open_low=not allow_zero, open_high=True, expected=expected
    )


def laplace_mechanism(b: float) -> ContinuousMechanism:
    """``Y = X + Lap(b)`` on ``X ∈ {−1, +1}`` (PML paper eqs. 47–48)."""
    return ContinuousMechanism("laplace", _check_scale(b, "b"))


def gaussian_mechanism(sigma: float) -> ContinuousMechanism:
    """``Y = X + N(0, σ²)`` on ``X ∈ {−1, +1}`` (PML paper eqs. 52–53)."""
    return ContinuousMechanism("gaussian", _check_scale(sigma, "sigma"))


# ---------------------------------------------------------------------------------------------
# Laplace: Prop. 3, eq. 50 and the inverse problem
# ---------------------------------------------------------------------------------------------
def _worst_p_min(prior: ArrayLike | JointDistribution, beta: float) -> float:
    """``max(min_x P̂(x) − β/2, 0)``: the smallest probability over the ℓ1 ball (eq. 50's argument)."""
    p = _binary_prior(prior)
    beta = check_real(beta, "beta", low=0.0, expected="an ℓ1 radius β >= 0")
    return max(float(p.min()) - beta / 2.0, 0.0)


def laplace_pml(b: float, prior: ArrayLike | JointDistribution, *, beta: float = 0.0) -> float:
    """PML of the binary Laplace mechanism: Prop. 3 (``β = 0``) and eq. 50 (``β > 0``).

    ``ε(b) = 2/b − log(e^{2/b} q + 1 − q)`` with ``q = p_min`` (eq. 49), or ``q = p̂_min − β/2`` for the
    worst prior of the ℓ1 ball of radius β (eq. 50; ``q`` is clipped at 0, where ``ε = 2/b``, the LDP
    level — Remark 4).
    """
    b = _check_scale(b, "b")
    q = _worst_p_min(prior, beta)
    return float(-np.log(q + (1.0 - q) * np.exp(-2.0 / b)))


def laplace_pml_estimated(b: float, p_hat: ArrayLike | JointDistribution, m: int, delta: float) -> float:
    """``ε(b, δ)`` of eq. 50: the PML over the ball of radius ``β*(δ)`` (eq. 45) around ``P̂`` from ``m``
    samples; it holds with probability at least ``1 − δ``."""
    return laplace_pml(b, p_hat, beta=weissman_radius(2, m, _check_delta(delta)))


def laplace_scale(eps: float, prior: ArrayLike | JointDistribution, *, beta: float = 0.0) -> float:
    """The smallest Laplace scale ``b`` with ``laplace_pml(b, prior, beta=β) <= ε`` (the inverse problem).

    Solving eq. 49/50 for ``t = e^{2/b}``: ``t = e^ε (1 − q)/(1 − q e^ε)``, so
    ``b = 2 / (ε + log(1 − q) − log(1 − q e^ε))``. When ``q e^ε >= 1`` (ε at least the largest possible
    PML ``−log q``) no noise is needed and 0 is returned. ``ε = 0`` has no finite solution.
    """
    eps = check_eps(eps)
    q = _worst_p_min(prior, beta)
    if eps <= 0.0:
        raise ValidationError(
            "eps", "ε > 0 (ε(b) > 0 for every finite noise scale b, so ε = 0 has no solution)", repr(eps)
        )
    if q * np.exp(eps) >= 1.0:
        return 0.0
    return float(2.0 / (eps + np.log1p(-q) - np.log1p(-q * np.exp(eps))))


def laplace_scale_estimated(eps: float, p_hat: ArrayLike | JointDistribution, m: int, delta: float) -> float:
    """The smallest ``b`` with ``ε(b, δ) <= ε`` (eq. 50 inverted), for ``P̂`` from ``m`` samples."""
    return laplace_scale(eps, p_hat, beta=weissman_radius(2, m, _check_delta(delta)))


# ---------------------------------------------------------------------------------------------
# Gaussian: δ1 (eqs. 58–62) and the (ε*, δ*) guarantee (eqs. 63–65)
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GaussianGuarantee:
    """The (ε*, δ*)-PML guarantee of the binary Gaussian mechanism (PML paper §VI-B).

    ``delta1`` (eq. 59) is over the ℓ1 ball of radius ``beta = β*(δ2)`` (eq. 45); ``eps_star`` is eq. 64,
    ``delta_star = δ1 + δ2 − δ1δ2`` eq. 65. ``violation`` has the worst prior and the accuracy of δ1.
    """

    eps: float
    eps_star: float
    delta1: float
    delta2: float
    delta_star: float
    beta: float
    violation: Violation


def gaussian_pml_guarantee(
    sigma: float, eps: float, p_hat: ArrayLike | JointDistribution, m: int, delta2: float
) -> GaussianGuarantee:
    """(ε*, δ*) of the binary Gaussian mechanism for ``P̂`` estimated from ``m`` samples (eqs. 58–65).

    Requires ``β*(δ2) e^ε < 2`` for eq. 64's logarithm (Theorem 4's bound is vacuous otherwise).
    """
    eps = check_eps(eps)
    delta2 = _check_delta(delta2, argument="delta2")
    p_hat = _binary_prior(p_hat, "p_hat")
    beta = weissman_radius(2, m, delta2)
    if beta * np.exp(eps) >= 2.0:
        raise ValidationError(
            "eps",
            f"β*(δ2)·e^ε < 2 (eq. 64 needs a positive logarithm; β*(δ2) = {beta:.6g})",
            repr(eps),
        )
    violation = gaussian_mechanism(sigma).violation(eps, L1Ball(p_hat, beta))
    eps_star = float(eps - np.log1p(-beta * np.exp(eps) / 2.0))
    d1 = violation.delta
    return GaussianGuarantee(eps, eps_star, d1, delta2, d1 + delta2 - d1 * delta2, beta, violation)
