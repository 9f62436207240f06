"""Rényi-divergence balls around an empirical distribution (Entropy paper §3–4).

``F = {P : D_α(P̂ || P) <= B}``. For ``α = 2`` and ``B = log(1 + F⁻¹_{χ², a−1}(1 − β) / n)`` this is the
χ² confidence set of the papers (eq. 9), containing the true ``P*`` with probability ``>= 1 − β``.

What the compiler and the low-complexity mechanisms need is the *conditional projection*
``F_{U|s} = {P(·|s) : P ∈ F}``: by Theorem 1 it is again a Rényi ball, of radius ``B_s`` around
``P̂(·|s)``. Its statistics (Proposition 1) are expressed through ``ξ±(ρ)``, the two roots of the
convex function ``φ_{B_s}(ρ, ·)`` of eq. (26):

- ``L_{u|s} = P̂_{u|s} ξ⁻(P̂_{u|s})`` — the smallest value of ``P(u|s)`` on ``F`` (eq. 29),
- ``max P(u|s) = P̂_{u|s} ξ⁺(P̂_{u|s})`` (Lemma A5),
- ``rad_s = 2 max_{U1 ⊆ U} P̂_{U1|s} (ξ⁺(P̂_{U1|s}) − 1)`` — the ℓ1 radius of ``F_{U|s}`` (eq. 30).

For ``α = 2`` the roots have the closed form of Lemma 1; for other orders they are found by
bisection, which is robust because ``φ`` is convex in ``ξ`` with minimum ``−B_s`` at ``ξ = 1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize_scalar
from scipy.stats import chi2

from privopt.data.distribution import JointDistribution, as_distribution
from privopt.errors import LimitError, NotSupportedError, ValidationError
from privopt.sets.base import UncertaintySet
from privopt.sets.conditional_bounds import box_simplex_vertices, lower_envelope_vertices
from privopt.sets.counterparts import CounterpartRule, RectangularRule
from privopt.sets.renyi_extremes import is_order, linear_extremes, linear_maximum, logsumexp
from privopt.validation import FloatArray, check_real

#: Bisection steps for ξ±: the bracket shrinks by 2^-100, far below double precision.
_BISECTION_STEPS = 100
#: Largest |U| for which rad_s is computed exactly by enumerating the 2^|U| subsets U1.
EXACT_RADIUS_MAX_U = 16


def _check_order(order: float) -> float:
    return check_real(order, "order", low=0.0, open_low=True, expected="a Rényi order α > 0 (α = 1 is KL)")


def _check_level(level: float) -> float:
    return check_real(
        level, "level", low=0.0, high=1.0, open_low=True, open_high=True,
        expected="a confidence level in (0, 1), e.g. 0.95",
    )  # fmt: skip


def renyi_divergence(p_hat: FloatArray, p: FloatArray, order: float) -> float:
    """``D_α(P̂ || P)`` in nats (Entropy paper eq. 22); ``+inf`` when ``P`` misses mass of ``P̂`` (α >= 1)."""
    support = p_hat > 0
    a, b = p_hat[support], p[support]
    if is_order(order, 1.0):
        if np.any(b <= 0):
            return np.inf
        return float(np.sum(a * np.log(a / b)))
    with np.errstate(divide="ignore"):
        terms = order * np.log(a) + (1.0 - order) * np.log(b)
    if order > 1.0 and np.any(b <= 0):
        return np.inf
    return float(logsumexp(terms) / (order - 1.0))


class RenyiBall(UncertaintySet):
    """``F = {P : D_α(P̂ || P) <= B}`` on ``X = S × U`` (Entropy paper eq. 8).

    Parameters
    ----------
    center:
        The estimate ``P̂`` (a :class:`~privopt.JointDistribution` or array).
    radius:
        ``B >= 0`` in nats.
    order:
        ``α > 0``; ``α = 1`` is the KL divergence, ``α = 2`` the χ² case of the papers.
    """

    def __init__(
        self,
        center: JointDistribution | ArrayLike,
        radius: float,
        order: float = 2.0,
        *,
        level: float | None = None,
    ) -> None:
        self._center = as_distribution(center, "center")
        self._radius = check_real(radius, "radius", low=0.0, expected="a finite number >= 0")
        self._order = _check_order(order)
        self._level = None if level is None else _check_level(level)
        self._cache: dict[tuple[object, ...], Any] = {}

    @property
    def center(self) -> JointDistribution:
        return self._center

    @property
    def radius(self) -> float:
        return self._radius

    @property
    def order(self) -> float:
        return self._order

    @property
    def level(self) -> float | None:
        return self._level

    @classmethod
    def confidence(
        cls, P: JointDistribution | ArrayLike, n: int | None = None, level: float = 0.95, order: float = 2.0
    ) -> RenyiBall:
        """The χ² confidence set of the papers: ``B = log(1 + F⁻¹_{χ², |X|−1}(level) / n)`` (eq. 9).

        ``level = 1 − β`` is the confidence (the papers' β = 0.05 is ``level = 0.95``, the default; an
        ℓ1 ball's default is ``1 − 10⁻⁶``, a PML guarantee's failure probability: docs/concepts.md,
        "Sets of distributions"); ``n`` defaults to the sample size stored in ``P``. Only ``order = 2``
        has this calibration.
        """
        P = as_distribution(P, "P")
        if not is_order(_check_order(order), 2.0):
            raise NotSupportedError(
                f"RenyiBall.confidence: the χ² calibration of B holds for order 2 only (got {order}); "
                "build RenyiBall(P, radius, order) with your own radius"
            )
        n = P.n if n is None else n
        if n is None or isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValidationError("n", "the sample size P̂ was estimated from (a positive integer)", repr(n))
        level = _check_level(level)
        radius = float(np.log1p(chi2.ppf(level, P.n_x - 1) / n))
        return cls(P, radius, 2.0, level=level)

    # ------------------------------------------------------------------ basic facts
    @property
    def shape(self) -> tuple[int, int]:
        return self.center.shape

    def reference(self) -> JointDistribution:
        return self.center

    def divergence(self, P: JointDistribution | ArrayLike) -> float:
        """``D_α(P̂ || P)``."""
        return renyi_divergence(self.center.p_x, as_distribution(P).p_x, self.order)

    def contains(self, P: JointDistribution | ArrayLike, atol: float = 1e-12) -> bool:
        return self.divergence(P) <= self.radius + atol

    # ------------------------------------------------------------------ Theorem 1
    def projection_radius(self, s: int) -> float:
        """``B_s``: ``F_{U|s}`` is the Rényi ball of this radius around ``P̂(·|s)`` (Theorem 1).

        ``B_s = α/(α−1) · log((e^{(α−1)B/α} − (1 − P̂_s)) / P̂_s)`` for ``α != 1``, ``B/P̂_s`` for ``α = 1``.
        ``+inf`` means ``F_{U|s}`` is the whole simplex (``P̂_s = 0``, or ``α < 1`` with a large ``B``).
        """
        p_s = float(self.center.p_s[s])
        if p_s <= 0.0:
            return np.inf
        alpha, B = self.order, self.radius
        if is_order(alpha, 1.0):
            return B / p_s
        grown = np.expm1((alpha - 1.0) * B / alpha)  # e^{(α−1)B/α} − 1, exact near B = 0 (B_s = 0 at B = 0)
        if grown + p_s <= 0.0:
            return np.inf
        return float(alpha / (alpha - 1.0) * np.log1p(grown / p_s))

    def projection_radii(self) -> FloatArray:
        return np.array([self.projection_radius(s) for s in range(self.n_s)])

    def shared_radii(self, s: int, t: int, share: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Radii ``(B_s, B_t)`` that the conditionals given ``s`` and ``t ≠ s`` reach *together* in the
        ball, every other conditional at the centre's: for each ``θ`` in ``share``, ``θ`` of the budget
        to ``s``.

        Theorem 1's derivation with two conditionals moved: for ``P`` with conditionals ``R_s`` at
        ``d_s = D_α(P̂(·|s) || R_s)``, the smallest ``D_α(P̂ || P)`` over its marginal (Hölder: the
        marginal ``∝ P̂_s e^{(α−1)d_s/α}``) is ``α/(α−1) · log Σ_s P̂_s e^{(α−1)d_s/α}`` (``Σ_s P̂_s d_s`` for
        α = 1). It is at most ``B`` exactly when the excesses ``P̂_s (e^{(α−1)d_s/α} − 1)`` sum to at most
        ``X = e^{(α−1)B/α} − 1`` (in sign: both are negative for α < 1). Giving ``θX`` to ``s`` and ``(1 −
        θ)X`` to ``t``: ``d_s = α/(α−1) · log(1 + θX/P̂_s)`` (``θB/P̂_s`` for α = 1), ``+inf`` where the
        logarithm's argument is not positive or ``P̂_s = 0`` (that conditional is free). ``θ = 1`` gives
        ``projection_radius(s)``.
        """
        theta = np.asarray(share, dtype=np.float64)
        alpha, B = self.order, self.radius
        radii = []
        for index, part in ((s, theta), (t, 1.0 - theta)):
            p_s = float(self.center.p_s[index])
            if p_s <= 0.0:
                radii.append(np.full(theta.shape, np.inf))
            elif is_order(alpha, 1.0):
                radii.append(part * B / p_s)
            else:
                inner = 1.0 + part * np.expm1((alpha - 1.0) * B / alpha) / p_s
                with np.errstate(divide="ignore", invalid="ignore"):
                    radius = alpha / (alpha - 1.0) * np.log(np.where(inner > 0.0, inner, 1.0))
                radii.append(np.where(inner > 0.0, np.clip(radius, 0.0, None), np.inf))
        return radii[0], radii[1]

    def closest_with_conditionals(self, conditionals: dict[int, FloatArray]) -> FloatArray:
        """The distribution (flat) closest to ``P̂`` in ``D_α`` whose conditionals given the keys ``s`` are
        the values ``R_s`` and the others the centre's: its marginal is ``∝ P̂_s e^{(α−1)d_s/α}``, ``d_s =
        D_α(P̂(·|s) || R_s)`` (:meth:`shared_radii`; ``P̂_s`` for α = 1), the construction behind Theorem 1
        (Lemmas A2 and A4). (The extracted text of Lemma A2 scales the other rows by ``C^{1/α}`` at the
        boundary, which leaves the ball, verified numerically; the marginal here is the minimiser.)"""
        alpha = self.order
        joint = self.center.conditional_u_given_s().astype(np.float64).copy()
        weights = self.center.p_s.astype(np.float64).copy()
        for s, R in conditionals.items():
            R = np.clip(np.asarray(R, dtype=np.float64), 0.0, None)
            R = R / R.sum()
            if not is_order(alpha, 1.0) and weights[s] > 0.0:
                weights[s] *= np.exp((alpha - 1.0) * renyi_divergence(joint[s], R, alpha) / alpha)
            joint[s] = R
        joint = np.nan_to_num(joint) * (weights / weights.sum())[:, None]
        flat = np.clip(joint.reshape(-1), 0.0, None)
        return flat / flat.sum()

    # ------------------------------------------------------------------ ξ±
    def _phi(self, rho: FloatArray, xi: FloatArray, b_s: float) -> FloatArray:
        """``φ_{B_s}(ρ, ξ)`` of eq. (26), in log space so that the boundaries give ±inf, not NaN."""
        alpha = self.order
        psi = (1.0 - rho * xi) / (1.0 - rho)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_xi, log_psi = np.log(xi), np.log(psi)
            if is_order(alpha, 1.0):
                value = -rho * log_xi - (1.0 - rho) * log_psi
            else:
                terms = np.stack([np.log(rho) + (1 - alpha) * log_xi, np.log1p(-rho) + (1 - alpha) * log_psi])
                value = logsumexp(terms, axis=0) / (alpha - 1.0)
        return np.nan_to_num(value, nan=np.inf) - b_s

    def xi(self, rho: ArrayLike, s: int) -> tuple[FloatArray, FloatArray]:
        """``(ξ⁻(ρ), ξ⁺(ρ))`` of eqs. (27)–(28) for the projection on ``s``, vectorised over ``ρ``.

        ``ξ⁻ ∈ [0, 1]`` and ``ξ⁺ ∈ [1, 1/ρ]``; an endpoint is returned when ``φ`` stays negative up to it
        (then the bound is the simplex boundary). ``ρ = 1`` gives ``(e^{−B_s}, 1)``.
        """
        rho = np.atleast_1d(np.asarray(rho, dtype=np.float64))
        b_s = self.projection_radius(s)
        lower, upper = np.zeros_like(rho), np.ones_like(rho)
        if np.isinf(b_s):
            with np.errstate(divide="ignore"):
                return lower, np.where(rho > 0, 1.0 / np.maximum(rho, 1e-300), np.inf)
        full = rho >= 1.0
        lower[full] = np.exp(-b_s)
        inner = (rho > 0) & ~full
        if is_order(self.order, 2.0) and np.any(inner):
            lower[inner], upper[inner] = _xi_order2(rho[inner], b_s)
        elif np.any(inner):
            lower[inner], upper[inner] = self._xi_bisection(rho[inner], b_s)
        return lower, upper

    def _xi_bisection(self, rho: FloatArray, b_s: float) -> tuple[FloatArray, FloatArray]:
        def root(lo: FloatArray, hi: FloatArray, increasing: bool) -> FloatArray:
            for _ in range(_BISECTION_STEPS):
                mid = 0.5 * (lo + hi)
                positive = self._phi(rho, mid, b_s) > 0
                go_left = positive if increasing else ~positive
                hi, lo = np.where(go_left, mid, hi), np.where(go_left, lo, mid)
            return 0.5 * (lo + hi)

        at_zero = self._phi(rho, np.zeros_like(rho), b_s)
        xi_minus = np.where(at_zero > 0, root(np.zeros_like(rho), np.ones_like(rho), increasing=False), 0.0)
        top = 1.0 / rho
        at_top = self._phi(rho, top, b_s)
        xi_plus = np.where(at_top > 0, root(np.ones_like(rho), top, increasing=True), top)
        return xi_minus, xi_plus

    # ------------------------------------------------------------------ Proposition 1
    def lower_bounds(self) -> FloatArray:
        """``L[s, u] = min_{P ∈ F} P(u|s) = P̂_{u|s} ξ⁻(P̂_{u|s})`` (Prop. 1 eq. 29; Prop. 2 for α = 2)."""
        cond = self.center.conditional_u_given_s()
        return np.vstack([cond[s] * self.xi(cond[s], s)[0] for s in range(self.n_s)])

    def upper_bounds(self) -> FloatArray:
        """``max_{P ∈ F} P(u|s) = P̂_{u|s} ξ⁺(P̂_{u|s})``, capped at 1 (Lemma A5 on the projection).

        A symbol with ``P̂_{u|s} = 0`` can reach ``1 − e^{−B_s}`` (move mass ``t`` towards it:
        ``D_α(P̂ || (1−t)P̂ + t e_u) = −log(1 − t)`` for every α).
        """
        cond = self.center.conditional_u_given_s()
        rows = []
        for s in range(self.n_s):
            value = cond[s] * self.xi(cond[s], s)[1]
            zero = cond[s] <= 0
            value[zero] = -np.expm1(-self.projection_radius(s))
            rows.append(np.minimum(value, 1.0))
        return np.vstack(rows)

    def l1_radius(self, s: int, method: str = "auto") -> float:
        """``rad_s = max_{R ∈ F_{U|s}} ||R − P̂(·|s)||₁`` (Prop. 1 eq. 30), or an upper bound on it.

        ``method``:

        - ``"exact"``: since ``Σ(R − P̂) = 0``, ``||R − P̂||₁ = 2 max_{U1} (R(U1) − P̂(U1))``; for every
          subset ``U1`` (|U| <= 16) the maximum of the linear ``R(U1)`` over the ball is solved exactly
          (:mod:`privopt.sets.renyi_extremes`). This is Prop. 1's subset maximum, and unlike the
          ``2ρ(ξ⁺(ρ) − 1)`` form of Lemma A6 it stays exact when ``P̂(·|s)`` has zeros (mass moved onto
          them is not covered by the lemma's stationarity argument).
        - ``"closed_form"``: Prop. 2.2 for α = 2 and ``P̂(·|s) > 0``, the subset ``{u_min}``; valid when
          ``e^{B_s} − 1 >= (1 − 2 P̂_{u_min|s})²`` — the condition its proof (Lemma A7) establishes; the
          statement prints ``(1 − P̂_{u_min|s})²``, which is stronger. The printed formula also lacks its
          ``− 2P̂_{u_min|s}`` term (docs/verifying.md, "What the library found"); this is the corrected one.
        - ``"bound"``: an upper bound, the sup of ``2ρ(ξ⁺(ρ) − 1)`` over ``ρ ∈ [P̂_{u_min|s}, 1]``; for
          α = 2 it is ``√(e^{B_s} − 1)`` (Prop. 2.3, where the text lost the square root). With zeros in
          ``P̂(·|s)`` a mass ``t <= 1 − e^{−B_s}`` can sit on them, adding at most ``t(2 − r)`` to a
          radius ``r`` of the support part, and the bound includes that.
        - ``"auto"``: exact when |U| <= 16, else the closed form when valid, else the bound.
        """
        cond = self.center.conditional_u_given_s()[s]
        b_s = self.projection_radius(s)
        if np.isinf(b_s):
            return 2.0
        positive = cond[cond > 0]
        rho_min = float(positive.min())
        has_zeros = positive.size < cond.size

        def g(rho: FloatArray) -> FloatArray:
            return np.minimum(2.0 * rho * (self.xi(rho, s)[1] - 1.0), 2.0)

        if method == "auto":
            if self.n_u <= EXACT_RADIUS_MAX_U:
                method = "exact"
            elif is_order(self.order, 2.0) and not has_zeros and np.expm1(b_s) >= (1 - 2 * rho_min) ** 2:
                method = "closed_form"
            else:
                method = "bound"
        if method == "exact":
            if self.n_u > EXACT_RADIUS_MAX_U:
                raise LimitError(
                    f"l1_radius(method='exact') enumerates 2^|U| = 2^{self.n_u} subsets; the limit is "
                    f"|U| <= {EXACT_RADIUS_MAX_U}. Use method='bound' (a valid upper bound)."
                )
            key = ("l1_radius", s)
            if key not in self._cache:
                self._cache[key] = self._exact_l1_radius(s)
            return self._cache[key]
        if method == "closed_form":
            if not is_order(self.order, 2.0):
                raise NotSupportedError(
                    "l1_radius(method='closed_form') is Prop. 2.2, which holds for order 2 only"
                )
            if has_zeros:
                raise ValidationError(
                    "method", "'closed_form' only when P̂(·|s) > 0 (Prop. 2.2)", f"zeros in P̂(·|s={s})"
                )
            if np.expm1(b_s) < (1 - 2 * rho_min) ** 2:
                raise ValidationError(
                    "method",
                    "'closed_form' only when e^{B_s} − 1 >= (1 − 2 P̂_min)² (Prop. 2.2 / Lemma A7)",
                    f"e^B_s − 1 = {np.expm1(b_s):.4g} < {(1 - 2 * rho_min) ** 2:.4g} for s = {s}",
                )
            return float(g(np.array([rho_min]))[0])
        if method == "bound":
            if is_order(self.order, 2.0):
                bound = float(min(np.sqrt(np.expm1(b_s)), 2.0))
            else:
                result = minimize_scalar(
                    lambda r: -g(np.array([r]))[0], bounds=(rho_min, 1.0), method="bounded"
                )
                grid = np.linspace(rho_min, 1.0, 257)
                bound = float(max(-result.fun, np.max(g(grid))))
            if has_zeros:
                bound += -np.expm1(-b_s) * (2.0 - bound)
            return float(min(bound, 2.0))
        raise ValidationError("method", "'auto', 'exact', 'closed_form' or 'bound'", repr(method))

    def _exact_l1_radius(self, s: int) -> float:
        """``rad_s = 2 max_{U1} (max_{R ∈ F_{U|s}} R(U1) − P̂(U1|s))`` (Prop. 1), exactly.

        A symbol with ``P̂_{u|s} = 0`` always belongs to the best ``U1`` (it can only add), so ``U1`` is
        the zero set ``Z`` plus a subset ``A`` of the support. Putting mass ``t`` on ``Z`` and
        ``(1 − t) R'`` on the support shifts the divergence by ``−log(1 − t)`` (the zeros do not enter
        it), so the maximum of ``R(U1)`` is ``max_t t + (1 − t) ρ ξ⁺(ρ; B_s + log(1 − t))`` with
        ``ρ = P̂(A|s)`` (Lemma A5 on the support) over ``t ∈ [0, 1 − e^{−B_s}]`` — Lemma A6 when
        ``Z = ∅`` (``t = 0``). For α = 2 ``ξ⁺`` is Lemma 1's closed form and the 1-D search over ``t``
        is vectorised over all subset masses; other orders solve the subset maxima directly.
        """
        cond = self.center.conditional_u_given_s()[s]
        if self.n_u == 1:  # F_{U|s} is the single point mass: no subset U1 other than ∅ and U
            return 0.0
        b_s = self.projection_radius(s)
        positive = cond[cond > 0]
        has_zeros = positive.size < cond.size
        if not is_order(self.order, 2.0):
            subsets = ((np.arange(1, 2**self.n_u - 1)[:, None] >> np.arange(self.n_u)) & 1).astype(np.float64)
            subsets = subsets[np.all(subsets[:, cond <= 0] == 1, axis=1)] if has_zeros else subsets
            high, _ = _linear_maximum(cond, b_s, self.order, subsets)
            return float(min(2.0, 2.0 * np.max(high - subsets @ cond)))
        masks = (np.arange(2**positive.size)[:, None] >> np.arange(positive.size)) & 1
        rho = np.unique(np.clip(masks @ positive, 0.0, 1.0))

        def gain(t: FloatArray) -> FloatArray:  # R(U1) − P̂(U1) at mass t on the zeros
            budget = b_s + np.log1p(-t)
            inner = np.where(
                (rho > 0) & (rho < 1), rho * _xi_order2(np.clip(rho, 1e-300, 1.0), budget)[1], rho
            )
            return t + (1.0 - t) * inner - rho

        if not has_zeros:
            return float(min(2.0, 2.0 * np.max(gain(np.zeros_like(rho)))))
        t_max = -np.expm1(-b_s)
        grid = np.linspace(0.0, t_max, 33)
        values = np.stack([gain(np.full_like(rho, t)) for t in grid])
        best = np.argmax(values, axis=0)
        low = grid[np.maximum(best - 1, 0)]
        high = grid[np.minimum(best + 1, grid.size - 1)]
        ratio = (np.sqrt(5.0) - 1.0) / 2.0
        for _ in range(60):  # golden section around the best grid point, for every subset mass at once
            a, b = high - ratio * (high - low), low + ratio * (high - low)
            left = gain(a) >= gain(b)
            high, low = np.where(left, b, high), np.where(left, low, a)
        refined = np.maximum(gain(0.5 * (low + high)), values.max(axis=0))
        return float(min(2.0, 2.0 * np.max(refined)))

    def projection_extremes(
        self, s: int, columns: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """``min`` and ``max`` of ``Rᵀc`` over ``R ∈ F_{U|s}`` for each column ``c`` of ``columns``
        (shape ``(|U|, k)``), with the minimisers and maximisers (rows), exactly
        (:mod:`privopt.sets.renyi_extremes`)."""
        center = self.center.conditional_u_given_s()[s]
        return linear_extremes(
            center, self.projection_radius(s), self.order, np.asarray(columns, dtype=np.float64).T
        )

    def projections_extremes(
        self, columns: Sequence[FloatArray]
    ) -> list[tuple[FloatArray, FloatArray, FloatArray, FloatArray]]:
        """:meth:`projection_extremes` for every ``s`` at once (``columns[s]`` for ``F_{U|s}``), in one
        vectorised pass."""
        centers = self.center.conditional_u_given_s()
        rows = [np.asarray(columns[s], dtype=np.float64).T for s in range(self.n_s)]
        sizes = [len(r) for r in rows]
        p = np.repeat(centers, sizes, axis=0)
        budgets = np.repeat([self.projection_radius(s) for s in range(self.n_s)], sizes)
        found = linear_extremes(p, budgets, self.order, np.vstack(rows))
        edges = np.cumsum(sizes)[:-1]
        return list(zip(*(np.split(x, edges) for x in found), strict=True))

    # ------------------------------------------------------------------ envelopes (Entropy §5)
    def conditional_envelope(self, s: int, envelope: str = "lower") -> FloatArray:
        """Vertices of a polytope ``D_s ⊇ F_{U|s}`` (rows), for the vertex rule.

        - ``"lower"``: ``D_s = {R ∈ Δ_U : R >= L_s}`` (Entropy paper eq. 42), vertices
          ``L_s + (1 − Σ_u L_{u|s}) e_u``; this reproduces the Γ cone of Definition 3.
        - ``"box"``: ``D_s = {R ∈ Δ_U : L_s <= R <= U_s}`` with the upper bounds too; a smaller
          envelope, hence more utility, with more vertices.
        - ``"facets:k"``: the ``"lower"`` envelope cut by ``k`` supporting hyperplanes of ``F_{U|s}``.
          Each cut is placed at the vertex of the current envelope that lies farthest outside
          (largest divergence from ``P̂(·|s)``): the segment from ``P̂(·|s)`` to it meets the
          boundary at ``r``, and the tangent hyperplane ``∇D_α(r)ᵀR <= ∇D_α(r)ᵀr`` — which contains
          the convex ball — cuts the vertex off.
        """
        key = (s, envelope)
        if key not in self._cache:
            self._cache[key] = self._envelope(s, envelope)
        return self._cache[key]

    def _envelope(self, s: int, envelope: str) -> FloatArray:
        if self.lower_bounds()[s].sum() >= 1.0 - 1e-12:  # F_{U|s} is the point P̂(·|s) (B = 0 or |U| = 1)
            return self.center.conditional_u_given_s()[s][None, :].copy()
        if envelope == "lower":
            return lower_envelope_vertices(self.lower_bounds()[s], s)
        if envelope == "box":
            return box_simplex_vertices(self.lower_bounds()[s], self.upper_bounds()[s])
        k = facet_count(envelope)
        return self._facet_envelope(s, k)

    def _facet_envelope(self, s: int, k: int) -> FloatArray:
        from privopt.solvers.vertex_enumeration import polytope_vertices

        center = self.center.conditional_u_given_s()[s]
        b_s = self.projection_radius(s)
        vertices = lower_envelope_vertices(self.lower_bounds()[s], s)
        if not np.isfinite(b_s):
            return vertices
        n = self.n_u
        a_ub, b_ub = [-np.eye(n)], [-self.lower_bounds()[s]]
        for _ in range(k):
            outside = np.array([renyi_divergence(center, v, self.order) for v in vertices])
            worst = int(np.argmax(outside))
            if outside[worst] <= b_s * (1.0 + 1e-9):
                break
            r = self._boundary_point(center, vertices[worst], b_s)
            normal = self._divergence_gradient(center, r)
            normal -= normal.mean()  # tangent to the simplex
            a_ub.append(normal[None, :])
            b_ub.append(np.array([normal @ r]))
            vertices = polytope_vertices(
                np.vstack(a_ub), np.concatenate(b_ub), np.ones((1, n)), [1.0]
            ).vertices
        return vertices

    def _boundary_point(self, center: FloatArray, outside: FloatArray, b_s: float) -> FloatArray:
        """The point where the segment from ``center`` to ``outside`` leaves ``F_{U|s}`` (bisection)."""
        low, high = 0.0, 1.0
        for _ in range(_BISECTION_STEPS):
            mid = 0.5 * (low + high)
            if renyi_divergence(center, center + mid * (outside - center), self.order) > b_s:
                high = mid
            else:
                low = mid
        return center + low * (outside - center)

    def _divergence_gradient(self, center: FloatArray, r: FloatArray) -> FloatArray:
        """``∇_R D_α(center || R)`` at ``R = r`` (zero off the support of ``center``)."""
        support = center > 0
        p, q = center[support], r[support]
        grad = np.zeros_like(r)
        if is_order(self.order, 1.0):
            grad[support] = -p / q
        else:
            alpha = self.order
            weights = np.exp(alpha * np.log(p) - alpha * np.log(q))
            grad[support] = -weights / np.sum(np.exp(alpha * np.log(p) + (1 - alpha) * np.log(q)))
        return grad

    def joint_extremes(self, columns: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """``min`` and ``max`` of ``Pᵀc`` over the ball for each column ``c`` of ``columns`` (shape
        ``(|X|, k)``), with the minimisers and maximisers (rows, distributions of the ball), exactly
        (:mod:`privopt.sets.renyi_extremes`)."""
        return linear_extremes(
            self.center.p_x, self.radius, self.order, np.asarray(columns, dtype=np.float64).T
        )

    def joint_envelope(self) -> tuple[JointDistribution, ...]:
        """Vertices ``L + (1 − Σ L) e_x`` of ``D = {P ∈ Δ_X : P >= L} ⊇ F``, ``L_x = min_{P ∈ F} P(x)``
        (the joint analogue of Entropy paper eq. 42; the ball's centre alone when ``Σ L = 1``)."""
        key = ("joint-envelope",)
        if key not in self._cache:
            lower = np.clip(self.joint_extremes(np.eye(self.n_x))[0], 0.0, 1.0)
            if lower.sum() >= 1.0 - 1e-12:
                self._cache[key] = (self.center,)
            else:
                self._cache[key] = self.labelled(lower_envelope_vertices(lower, -1))
        found: tuple[JointDistribution, ...] = self._cache[key]
        return found

    def counterpart_rules(self) -> tuple[CounterpartRule, ...]:
        """Pairs of conditionals and of the joint ``P``: the rectangular rule over the envelopes ``D_s``
        of the projections (Entropy paper Theorem 2) and ``D`` of the ball (:meth:`joint_envelope`);
        a sound inner approximation of the ball's condition."""
        return (RectangularRule(self, False, self),)

    def __repr__(self) -> str:
        order = "" if is_order(self.order, 2.0) else f", order={self.order:g}"
        level = f", level={self.level}" if self.level is not None else ""
        return f"RenyiBall(shape={self.shape}, B={self.radius:.4g}{order}{level})"


def _linear_maximum(
    center: FloatArray, budget: float, order: float, c: FloatArray
) -> tuple[FloatArray, FloatArray]:
    return linear_maximum(center, budget, order, c)


def facet_count(envelope: str) -> int:
    """``k`` of an envelope named ``"facets:k"`` (a ValidationError otherwise)."""
    prefix, _, count = envelope.partition(":")
    if prefix != "facets" or not count.isdigit() or int(count) < 1:
        raise ValidationError("envelope", "'lower', 'box' or 'facets:k' with k >= 1", repr(envelope))
    return int(count)


def _xi_order2(rho: FloatArray, b_s: float | FloatArray) -> tuple[FloatArray, FloatArray]:
    """Lemma 1: ``ξ± = (e^{B_s} + 2ρ − 1 ± √((e^{B_s} − 1)(e^{B_s} − (2ρ − 1)²))) / (2 e^{B_s} ρ)``."""
    # With e^{B_s} − 1 = expm1(B_s) and e^{B_s} − (2ρ − 1)² = expm1(B_s) + 4ρ(1 − ρ): no cancellation for
    # small B_s or ρ (at B_s = 0, ξ± = 1 exactly; (e + 2ρ − 1) lost ρ's digits when ρ ~ 1e-11).
    em1 = np.expm1(b_s)
    e = em1 + 1.0
    root = np.sqrt(np.maximum(em1 * (em1 + 4 * rho * (1 - rho)), 0.0))
    minus = (em1 + 2 * rho - root) / (2 * e * rho)
    plus = (em1 + 2 * rho + root) / (2 * e * rho)
    return np.clip(minus, 0.0, 1.0), np.clip(plus, 1.0, 1.0 / rho)
