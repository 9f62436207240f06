"""(ε, δ)-PML accounting for estimated distributions: PML paper §III and §IV (Defs. 5–6, Thms. 3–4,
eqs. 37–39).

A mechanism designed for the empirical ``P̂`` (from ``m`` samples over ``N`` symbols) is used while the
true prior is unknown. With probability at least ``1 − δ`` the true prior lies in the ℓ1 ball of radius

    β*(δ) = sqrt(2/m · (log(2^N − 2) − log δ))                     (eq. 37, Weissman et al.)

and inside that ball a mechanism that is ε-PML at ``P̂`` leaks at most

    ε′(δ) = ε − log(1 − β*(δ) e^ε / 2)                             (eq. 38, Theorem 4 with k > 1).

Inverting both for a target ``ε′ > ε`` gives Corollary 3,
``δ_min(ε′) = (2^N − 2) exp(−2m (e^{−ε} − e^{−ε′})²)`` (eq. 39) — exactly, not only as a bound:
eq. 38 gives ``β = 2(e^{−ε} − e^{−ε′})`` and eq. 37 then gives eq. 39.

The exact quantities behind these bounds are computed for a given mechanism ``W``:

- the leakage capacity ``C(W, 𝒫) = sup_{Q ∈ 𝒫} ε_min(W, Q)`` (Def. 5, eq. 23) — over an ℓ1 ball the
  worst prior of each output is a greedy transport (:meth:`~privopt.L1Ball.min_linear`), over a
  finite set (or a point, a polytope's vertices) the largest member value (PML is convex in the prior,
  Prop. 1, so a polytope's vertices suffice);
- the leakage sensitivity ``S_P(W, 𝒫) = sup_{Q ∈ 𝒫} ε_min(W, Q) − ε_min(W, P)`` (Def. 6, eq. 26);
- ``max_{Q ∈ 𝒫} D_∞(W∘P || W∘Q)``, the quantity Theorem 4's proof actually bounds (Appendix B, eq. 83).

*Discrepancy in the paper:* the text after Corollary 2 says "simple manipulations show
``S_P = max_Q D_∞(P_Y || Q_Y)``". That is not Def. 6: ``C(W, 𝒫) <= ε_min(W, P) + max_Q D_∞`` (Remark 2)
gives ``S_P <= max_Q D_∞``, with strict inequality in general (e.g. when the output attaining
``ε_min(W, P)`` is not the one whose marginal drops most). Theorem 4 bounds the larger quantity, so it
holds for both; privopt reports both (:func:`theorem4_check`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from privopt.data.distribution import JointDistribution, as_distribution
from privopt.data.mechanism import Mechanism
from privopt.errors import ShapeError, ValidationError
from privopt.sets.base import UncertaintySet
from privopt.sets.l1 import L1Ball, weissman_radius
from privopt.tolerances import AUDIT_EPS_ATOL, ZERO_ATOL
from privopt.validation import FloatArray, check_eps, check_positive_int, check_real

#: A set of priors (an L1Ball, a finite set, a point, a polytope or simplex) or one prior.
Priors: TypeAlias = UncertaintySet | JointDistribution | ArrayLike


# ---------------------------------------------------------------------------------------------
# eqs. 37–39
# ---------------------------------------------------------------------------------------------
def beta_star(delta: float, m: int, n_symbols: int) -> float:
    """``β*(δ)`` of eq. 37 (:func:`~privopt.sets.l1.weissman_radius`): the ℓ1 radius that contains the
    true prior with probability at least ``1 − δ`` when ``P̂`` is estimated from ``m`` samples."""
    return weissman_radius(
        check_positive_int(n_symbols, "n_symbols", 2), m, _check_probability(delta, "delta")
    )


def _check_probability(delta: object, argument: str) -> float:
    return check_real(
        delta, argument, low=0.0, high=1.0, open_low=True, open_high=True, expected="a probability in (0, 1)"
    )


def eps_prime(eps: float, delta: float, m: int, n_symbols: int) -> float:
    """``ε′(δ) = ε − log(1 − β*(δ) e^ε/2)`` (eq. 38): an ε-PML mechanism for ``P̂`` is ε′-PML for every
    prior in the ball of radius ``β*(δ)``, hence (ε′, δ)-PML for the true prior.

    Raises :class:`~privopt.errors.ValidationError` unless ``β*(δ) e^ε < 2`` (else the bound is vacuous).
    Theorem 4 also assumes ``β < 2 min P̂``; that assumption only serves its equality cases — the upper
    bound holds without it (the worst perturbation is then not even reachable).
    """
    eps = check_eps(eps)
    beta = beta_star(delta, m, n_symbols)
    if beta * np.exp(eps) >= 2.0:
        raise ValidationError(
            "delta",
            f"β*(δ)·e^ε < 2 for eq. 38 (β*(δ) = {beta:.6g}, e^ε = {np.exp(eps):.6g}); use more samples or a larger δ",
            repr(delta),
        )
    return float(eps - np.log1p(-beta * np.exp(eps) / 2.0))


def delta_min(eps_target: float, eps: float, m: int, n_symbols: int) -> float:
    """Corollary 3 (eq. 39): the failure probability ``(2^N − 2) exp(−2m (e^{−ε} − e^{−ε′})²)`` of an
    ε′-PML guarantee for a mechanism that is ε-PML at ``P̂``; values above 1 are vacuous and returned as 1.

    Requires ``ε′ > ε`` (at ``ε′ = ε`` no finite sample size suffices).
    """
    eps = check_eps(eps)
    eps_target = check_eps(eps_target, "eps_target")
    if not eps_target > eps:
        raise ValidationError("eps_target", f"ε′ > ε = {eps:.6g} (Corollary 3)", repr(eps_target))
    m = check_positive_int(m, "m")
    n_symbols = check_positive_int(n_symbols, "n_symbols", 2)
    log_subsets = n_symbols * np.log(2.0) + np.log1p(-(2.0 ** (1 - n_symbols)))  # log(2^N − 2)
    log_delta = log_subsets - 2.0 * m * (np.exp(-eps) - np.exp(-eps_target)) ** 2
    return float(np.exp(min(log_delta, 0.0)))


# ---------------------------------------------------------------------------------------------
# Defs. 5 and 6
# ---------------------------------------------------------------------------------------------
def _matrix(mechanism: Mechanism | ArrayLike) -> FloatArray:
    return (
        mechanism.matrix
        if isinstance(mechanism, Mechanism)
        else Mechanism(np.asarray(mechanism, float)).matrix
    )


def _log_ratio(top: FloatArray, bottom: FloatArray) -> FloatArray:
    """``log(top/bottom)`` per output with the PML conventions: ``0/0 -> 0``, ``x/0 -> inf``."""
    out = np.zeros(top.shape)
    live = top > ZERO_ATOL
    dead = live & (bottom <= ZERO_ATOL)
    ok = live & ~dead
    out[ok] = np.log(top[ok] / bottom[ok])
    out[dead] = np.inf
    return out


def _priors(F: Priors, n: int) -> list[FloatArray] | L1Ball:
    """An ℓ1 ball as is; anything else as the list of priors whose maximum gives the supremum
    (the members of a finite set or a point, the vertices of a polytope or simplex, or one prior)."""
    priors: list[FloatArray] | L1Ball
    if isinstance(F, L1Ball):
        priors = F
    elif isinstance(F, UncertaintySet):
        members = F.members()
        if members is not None:
            priors = [p.p_x for p in members]
        elif hasattr(F, "vertices"):
            priors = list(F.vertices())
        else:
            raise ValidationError("F", "an L1Ball, a finite set, a point or a polytope of priors", repr(F))
    else:
        priors = [as_distribution(F, "F").p_x]
    size = priors.n_x if isinstance(priors, L1Ball) else priors[0].size
    if size != n:
        raise ShapeError("F", f"priors over the mechanism's {n} inputs", f"{size} symbols")
    return priors


def _prior(prior: JointDistribution | ArrayLike, n: int, argument: str = "prior") -> FloatArray:
    p = as_distribution(prior, argument).p_x
    if p.size != n:
        raise ShapeError(argument, f"a prior over the mechanism's {n} inputs", f"{p.size} symbols")
    return p


def _worst_marginal(W: FloatArray, F: Priors) -> FloatArray:
    """``min_{Q ∈ F} Qᵀw`` for every column ``w`` of ``W``."""
    priors = _priors(F, W.shape[0])
    if isinstance(priors, L1Ball):
        return priors.min_linear(W)
    return np.min(np.vstack([p @ W for p in priors]), axis=0)


def pml_level(mechanism: Mechanism | ArrayLike, prior: JointDistribution | ArrayLike) -> float:
    """``ε_min(W, P) = max_y log max_x W[x,y] / (Pᵀw_y)`` (eqs. 7–8 with eq. 4; outputs with ``Pᵀw = 0``
    never occur and are skipped)."""
    W = _matrix(mechanism)
    p = _prior(prior, W.shape[0])
    marginal = p @ W
    seen = marginal > ZERO_ATOL
    return float(np.max(_log_ratio(W.max(axis=0)[seen], marginal[seen]), initial=0.0))


def leakage_capacity(mechanism: Mechanism | ArrayLike, F: Priors) -> float:
    """``C(W, 𝒫) = max_y sup_{Q ∈ 𝒫} log max_x W[x,y] / Qᵀw_y`` (Def. 5, eq. 23), exactly.

    ``F``: an :class:`~privopt.L1Ball` (greedy worst prior per output), a :class:`~privopt.FiniteSet`
    or :class:`~privopt.Point`, a polytope with ``vertices()``, or one prior.
    """
    W = _matrix(mechanism)
    return float(np.max(_log_ratio(W.max(axis=0), _worst_marginal(W, F)), initial=0.0))


def leakage_sensitivity(
    mechanism: Mechanism | ArrayLike, prior: JointDistribution | ArrayLike, F: Priors
) -> float:
    """``S_P(W, 𝒫) = sup_{Q ∈ 𝒫} ε_min(W, Q) − ε_min(W, P) = C(W, 𝒫) − ε_min(W, P)`` (Def. 6, eq. 26)."""
    return leakage_capacity(mechanism, F) - pml_level(mechanism, prior)


def max_divergence_sensitivity(
    mechanism: Mechanism | ArrayLike, prior: JointDistribution | ArrayLike, F: Priors
) -> float:
    """``max_{Q ∈ 𝒫} D_∞(W∘P || W∘Q) = max_y log Pᵀw_y / min_{Q ∈ 𝒫} Qᵀw_y`` (Appendix B, eq. 83)."""
    W = _matrix(mechanism)
    p = _prior(prior, W.shape[0])
    return float(np.max(_log_ratio(p @ W, _worst_marginal(W, F)), initial=0.0))


# ---------------------------------------------------------------------------------------------
# Theorems 3 and 4: bound against exact
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoundCheck:
    """A theorem's bound next to the exact value it bounds.

    ``holds`` is ``exact <= bound + tolerance``; ``slack = bound − exact``.
    """

    theorem: str
    exact: float
    bound: float
    tolerance: float = AUDIT_EPS_ATOL
    details: dict[str, float] = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        return bool(self.exact <= self.bound + self.tolerance)

    @property
    def slack(self) -> float:
        return self.bound - self.exact

    def __str__(self) -> str:
        verdict = "holds" if self.holds else "VIOLATED"
        return f"{self.theorem}: exact {self.exact:.6g} <= bound {self.bound:.6g} ({verdict}, slack {self.slack:.3g})"


def privacy_region(prior: JointDistribution | ArrayLike, eps: float) -> int:
    """The privacy region ``k`` of ε for the prior (Def. 4): ``ε ∈ [ε_{k−1}, ε_k)`` with
    ``ε_k = −log Σ_{i <= N−k} P(x_(i))`` over the probabilities sorted in decreasing order (``ε_0 = 0``).
    ``N`` means ``ε >= ε_{N−1} = −log max P``, where every mechanism is ε-PML."""
    p = np.sort(as_distribution(prior, "prior").p_x)[::-1]
    eps = check_eps(eps)
    n = p.size
    for k in range(1, n):
        if eps < -np.log(p[: n - k].sum()):
            return k
    return n


def theorem4_check(
    mechanism: Mechanism | ArrayLike,
    prior: JointDistribution | ArrayLike,
    beta: float,
    eps: float | None = None,
) -> BoundCheck:
    """Theorem 4 (eq. 32): the leakage sensitivity over ``B_β(P)`` against its bound.

    ``eps`` is the mechanism's PML at ``P`` (default: exactly ``ε_min(W, P)``; a larger value is
    allowed, a smaller one is refused). The bound is ``−log(1 − β/2 (e^ε − 1)/p_min)`` in the first
    privacy region and ``−log(1 − β e^ε/2)`` otherwise. ``exact`` is Def. 6's ``S_P``;
    ``details["max_divergence"]`` is the ``D_∞`` form the proof bounds (module docstring).
    Requires ``β < 2 p_min`` (Theorem 4's assumption).
    """
    W = _matrix(mechanism)
    p = _prior(prior, W.shape[0])
    p_min = float(p.min())
    ball = L1Ball(p, beta)
    if not ball.radius < 2.0 * p_min:
        raise ValidationError("beta", f"β < 2·min P = {2.0 * p_min:.6g} (Theorem 4's assumption)", repr(beta))
    level = pml_level(W, p)
    eps = level if eps is None else check_eps(eps)
    if eps < level - AUDIT_EPS_ATOL:
        raise ValidationError("eps", f"the mechanism's PML at P or more (ε_min = {level:.6g})", repr(eps))
    k = privacy_region(p, eps)
    if k == 1:
        bound = float(-np.log1p(-ball.radius / 2.0 * np.expm1(eps) / p_min))
    else:
        bound = float(-np.log1p(-ball.radius * np.exp(eps) / 2.0))
    exact = leakage_capacity(W, ball) - level
    details = {"region": float(k), "eps": eps, "max_divergence": max_divergence_sensitivity(W, p, ball)}
    return BoundCheck(f"PML paper Theorem 4 (region k = {k})", exact, bound, details=details)


def theorem3_check(
    mechanism: Mechanism | ArrayLike,
    P: JointDistribution | ArrayLike,
    Q: JointDistribution | ArrayLike,
    F: Priors,
) -> BoundCheck:
    """Theorem 3 (eqs. 24–25): ``|ε_min(W, P) − ε_min(W, Q)| <= exp(C(W, 𝒫)) ||P − Q||₁`` for
    ``P, Q ∈ 𝒫``. Membership is checked for ℓ1 balls (``contains``) and finite sets (a listed member)."""
    W = _matrix(mechanism)
    p = _prior(P, W.shape[0], "P")
    q = _prior(Q, W.shape[0], "Q")
    priors = _priors(F, W.shape[0])
    for name, r in (("P", p), ("Q", q)):
        inside = (
            priors.contains(r)
            if isinstance(priors, L1Ball)
            else any(np.allclose(r, member, rtol=0.0, atol=1e-12) for member in priors)
        )
        if not inside:
            raise ValidationError(
                name, "a distribution in F (Theorem 3 compares two members of the set)", "outside F"
            )
    exact = abs(pml_level(W, p) - pml_level(W, q))
    capacity = leakage_capacity(W, F)
    bound = float(np.exp(capacity) * np.abs(p - q).sum())
    return BoundCheck("PML paper Theorem 3", exact, bound, details={"capacity": capacity})
