"""The checker's own proof of ``max_{w ∈ K} (μ(w) − λᵀw)/νᵀw <= δ̄`` on LDP cones of any size.

**The cone.** ``po.LDP(ε)`` compiles to one group ``{e_x}`` with its self pair: in the envelope form of
:mod:`privopt.certificates.envelope`, one block over every input with ``L = 0``:
``K = {w >= 0 : max_x w_x <= F min_x w_x}``. Every ``w ∈ K`` but 0 has ``m = min w > 0``, and
``w = m·1 + Σ_j (v_j − v_{j−1})·1_{A_j}`` over its distinct values ``m = v_0 < v_1 < … <= F m`` and the
level sets ``A_j = {x : w_x >= v_j}``; rewriting ``m·1 + (v − m)1_A`` as ``(1 − θ)·m·r_∅ + θ·m·r_A`` with
``r_A = 1 + (F − 1)·1_A`` and ``θ = (v − m)/((F − 1)m) ∈ [0, 1]``, and summing, shows that ``w`` is a
non-negative combination of the *staircases* ``r_A`` (``A ⊆ X``). The ratio ``R = (μ − λᵀw)/νᵀw`` is
quasi-convex and scale-invariant (docs/compiler.md, "Certificates"), so ``max_K R = max_A R(r_A)``.
With ``k = F − 1``, ``Λ = Σλ``: ``λᵀr_A = Λ + kλ(A)`` and ``νᵀr_A = Σν + kν(A) >= Σν > 0``. The claim
``R(r_A) <= t`` for every ``A`` is therefore ``max_A [μ(r_A) − ℓ(A)] <= C`` with the modular
``ℓ_x = k(λ_x + tν_x)`` and ``C = Λ + tΣν`` — the form proved here, at ``t`` slightly above the claimed
``δ̄`` (by half the comparison's allowance), independently of the solver's ratio searches.

**Mutual information** (and NMI, ``μ = I/H``: ``ℓ`` and ``C`` times ``H``). With ``p`` the prior,
``S = Σp``, ``a = p(A)`` and ``q = S + ka``: ``μ(r_A) = Σ_x p_x r_x log r_x − q log q = φ(a)`` with
``φ(a) = a F log F − q log q``, concave. Inputs with ``p_x = 0`` only add ``−ℓ_x``: the best is
``Σ max(0, −ℓ_x)``. For the others, a depth-first branch and bound (in batches of states, over the
inputs by decreasing ``p``) fixes a part ``I``; for the free inputs ``U`` and any multiplier ``σ``,
``φ(a_I + s) − ℓ(S) <= max_{s ∈ [0, p(U)]} [φ(a_I + s) − σs] + Σ_{x∈U} (σp_x − ℓ_x)⁺`` (Lagrangian
relaxation of ``s = p(S)``), and the first maximum is at ``φ'(a) = σ``, i.e. ``q = exp((F log F − k − σ)/k)``,
clipped. *Any* ``σ`` gives a valid bound; the checker bisects the sign of its derivative
``p{x ∈ U : σp_x > ℓ_x} − (a_σ − a_I)`` (so the bound is the Lagrangian dual's, up to the bisection)
and keeps the smallest of the values it meets. Two inputs with equal ``p`` are exchangeable (same
``a``; the one with the smaller ``ℓ`` is never worse), so once a state leaves one out it takes no later
input of that value. The greedy subset at ``σ`` is a real subset: its exact ``R`` can refute the claim.

**Power forms** (Sibson's α-MI, a user's ``μ(w) = (Σ_x c_x w_x^α)^{1/α}``, α > 1). With ``a = c(A)``
and ``C = Σc``: ``μ(r_A) = φ(a)`` with ``φ(a) = (C + (F^α − 1)a)^{1/α}``, concave and increasing, so the
same search runs with ``c`` in place of ``p`` and ``φ'(a) = σ`` at ``C + (F^α − 1)a =
(ασ/(F^α − 1))^{α/(1−α)}`` (``σ <= 0``: the whole range). The declared form is compared with the
utility's own ``μ`` first (:func:`~privopt.certificates.spatial.form_disagreement`); refutations use
``μ`` itself.

**f-divergences.** ``μ(r_A) = q1 f(q0/q1)`` with ``q_i = S_i + k P_i(A)``: a convex function ``H`` of
``z(A) = (P0(A), P1(A))``. At a maximiser ``A*`` of ``H(z(A)) − ℓ(A)`` take ``α ∈ ∂H(z(A*))``; convexity
gives ``H(z(A)) − ℓ(A) >= H(z*) − α·z* + Σ_{x∈A} (α·(P0_x, P1_x) − ℓ_x)``, so every ``A`` between
``{x : α·q_x > ℓ_x}`` and ``{x : α·q_x >= ℓ_x}`` is a maximiser too. With ``g_x = (P0_x, P1_x, ℓ_x)``
these are the subsets ``{x : u·g_x > 0}`` (``u = (α, −1)``) of the full-dimensional cells of the central
plane arrangement ``{u·g_x = 0}`` in ``ℝ³`` next to ``u``. Every such cell has an extreme ray on two
non-parallel planes, ``u₀ = ±(g_i × g_j)``, and its subset is ``{x : u₀·g_x > 0}`` plus the subset cut
from ``T = {x : u₀·g_x = 0}`` by a line through 0 in the plane ``u₀^⊥``: for each ``g_k`` in ``T``, the
direction ``e = u₀ × g_k`` splits ``T`` by the sign of ``e·g_x``, and the vectors parallel to ``g_k`` by
their orientation. The checker enumerates all of them (when every ``g`` is parallel, the two
orientations), with every sign decided exactly: in floating point with an error bound, and in integer
arithmetic on the doubles' exact values when the bound does not decide. ``ℓ`` is rounded when it is
formed; that moves ``max_A`` by at most the rounding of ``Σ|ℓ|``, which the margin covers. ``μ`` is the
utility's own ``mu`` on the columns; the argument needs only that ``f`` be convex.

**Margins and verdicts.** Every value carries a margin of
:data:`~privopt.tolerances.CHECK_ROUNDING_RTOL` times the magnitudes summed. A node is closed when its
bound plus its margin is at most 0; a real subset with ``R`` beyond the caller's limit by more than its
margin refutes the claim (the column is returned); a real subset above ``t`` but within the limit
raises the proved level to its ``R`` (plus margin). A search that runs out of time proves nothing.
"""

from __future__ import annotations

import abc
import math
import time
from dataclasses import dataclass

import numpy as np

from privopt.certificates.envelope import EnvelopeForm
from privopt.certificates.objective import core_mu, entropy_prior, entropy_scale
from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.certificates.spatial import form_disagreement
from privopt.tolerances import CHECK_DETERMINANT_RTOL, CHECK_FORMED_ULPS, CHECK_ROUNDING_RTOL
from privopt.utilities import PerspectiveForm, SubConvexUtility
from privopt.validation import FloatArray

#: States expanded together (one vectorised step of the depth-first search).
BATCH = 4096

#: Bisection steps on the Lagrange multiplier of a batch of states.
_BISECTIONS = 50

#: Candidate subsets evaluated at once (columns materialised for the utility's ``mu``).
_CHUNK = 20_000

#: Levels ``t`` the f-divergence check tries (each at the largest ratio the previous one met: Dinkelbach).
_LEVELS = 6


@dataclass(frozen=True)
class StaircaseMaximum:
    """The checker's verdict at one claim: ``value`` (plus ``margin``) is either the level it proved
    ``max R`` to be at most, or the ratio of ``column``, which refutes the claim (``refuting``)."""

    value: float
    margin: float
    column: FloatArray
    nodes: int
    seconds: float
    refuting: bool


def ldp_factor(form: EnvelopeForm) -> float | None:
    """``F`` when the envelope form is an LDP cone (one block over every input, ``L = 0``, self pairs)."""
    if len(form.blocks) != 1 or not form.self_pairs or form.free.size or np.any(form.lower[0] > 0.0):
        return None
    return form.factor


def applies(form: EnvelopeForm | NotProved, utility: SubConvexUtility) -> bool:
    """Whether :func:`maximise_ratio` takes this cone and utility."""
    if isinstance(form, NotProved) or ldp_factor(form) is None:
        return False
    return (
        utility.entropy_form() is not None
        or utility.perspective_form() is not None
        or (utility.power_form() is not None and form_disagreement(utility, form.n_inputs) is None)
    )


def maximise_ratio(
    form: EnvelopeForm,
    utility: SubConvexUtility,
    duals: FloatArray,
    weights: FloatArray,
    claim: float,
    limit: float,
    deadline: float,
) -> StaircaseMaximum | NotProved:
    """Prove ``max_K R <= limit`` (aiming at ``claim``), refute it with a column, or say why neither
    was done (module docstring)."""
    factor = ldp_factor(form)
    assert factor is not None
    start = time.perf_counter()
    lam = np.asarray(duals, dtype=np.float64)
    nu = np.asarray(weights, dtype=np.float64)
    if not (
        np.all(np.isfinite(lam)) and np.all(np.isfinite(nu)) and math.isfinite(claim) and math.isfinite(limit)
    ):
        return NotProved(NotProvedReason.CLAIM, "the claim holds a value that is not finite (NaN or ±inf)")
    if np.any(nu < 0.0) or not float(nu.sum()) > 0.0:
        return NotProved(
            NotProvedReason.CLAIM,
            "ν has a negative entry or νᵀw = 0 on a non-zero column: the normalisation does not bound the cone",
        )
    level = claim + 0.5 * (limit - claim)
    prior, power, perspective = entropy_prior(utility), utility.power_form(), utility.perspective_form()
    if prior is not None:
        profile: _Profile = _Entropy(factor, prior)
        return _Concave(
            factor, utility, profile, entropy_scale(utility), lam, nu, level, limit, deadline, start
        ).run()
    if power is not None and perspective is None:
        if (disagreement := form_disagreement(utility, lam.size)) is not None:
            return disagreement
        profile = _Power(factor, np.asarray(power.c, dtype=np.float64), power.alpha)
        return _Concave(factor, utility, profile, 1.0, lam, nu, level, limit, deadline, start).run()
    assert perspective is not None
    return _divergence(factor, perspective, lam, nu, level, limit, deadline, start)


def _column(mask: np.ndarray, factor: float) -> FloatArray:
    ray = 1.0 + (factor - 1.0) * mask.astype(np.float64)
    return ray / ray.sum()


class _Profile(abc.ABC):
    """``φ(a) = μ(r_A)`` as a concave function of ``a = ω(A)`` (module docstring): its weights ``ω``,
    the size of its terms (for the rounding margin), value, slope, and the maximiser of ``φ(a) − σa``
    (unclipped)."""

    weights: FloatArray
    magnitude: float

    @abc.abstractmethod
    def phi(self, a: FloatArray | float) -> FloatArray: ...

    @abc.abstractmethod
    def slope(self, a: FloatArray) -> FloatArray: ...

    @abc.abstractmethod
    def peak(self, sigma: FloatArray) -> FloatArray: ...


class _Entropy(_Profile):
    """Mutual information: ``φ(a) = a F log F − q log q``, ``q = Σp + (F − 1)a``."""

    def __init__(self, factor: float, p: FloatArray) -> None:
        self.weights, self.total = p, float(p.sum())
        self.k, self.gain = factor - 1.0, factor * math.log(factor)
        self.magnitude = self.gain

    def phi(self, a: FloatArray | float) -> FloatArray:
        q = self.total + self.k * np.asarray(a, dtype=np.float64)
        return np.asarray(a) * self.gain - q * np.log(q)

    def slope(self, a: FloatArray) -> FloatArray:
        return self.gain - self.k * (1.0 + np.log(self.total + self.k * a))

    def peak(self, sigma: FloatArray) -> FloatArray:
        exponent = np.clip((self.gain - self.k - sigma) / self.k, -700.0, 700.0)
        return (np.exp(exponent) - self.total) / self.k


class _Power(_Profile):
    """A power form: ``φ(a) = (Σc + (F^α − 1)a)^{1/α}``."""

    def __init__(self, factor: float, c: FloatArray, alpha: float) -> None:
        self.weights, self.total, self.alpha = c, float(c.sum()), alpha
        self.grow = factor**alpha - 1.0
        self.magnitude = factor * self.total ** (1.0 / alpha)  # φ's largest value, φ(Σc)

    def phi(self, a: FloatArray | float) -> FloatArray:
        return np.power(self.total + self.grow * np.asarray(a, dtype=np.float64), 1.0 / self.alpha)

    def slope(self, a: FloatArray) -> FloatArray:
        return self.grow / self.alpha * np.power(self.total + self.grow * a, 1.0 / self.alpha - 1.0)

    def peak(self, sigma: FloatArray) -> FloatArray:
        positive = np.maximum(sigma, np.finfo(float).tiny)
        exponent = np.clip(
            self.alpha / (1.0 - self.alpha) * np.log(self.alpha * positive / self.grow), -700.0, 700.0
        )
        return np.where(sigma > 0.0, (np.exp(exponent) - self.total) / self.grow, np.inf)


class _Concave:
    """The depth-first Lagrangian branch and bound over ``max_A φ(ω(A)) − ℓ(A)`` for a concave profile
    ``φ`` (mutual information and NMI, power forms: module docstring)."""

    def __init__(
        self,
        factor: float,
        utility: SubConvexUtility,
        profile: _Profile,
        h: float,
        lam: FloatArray,
        nu: FloatArray,
        level: float,
        limit: float,
        deadline: float,
        start: float,
    ) -> None:
        self.factor, self.k = factor, factor - 1.0
        self.profile = profile
        self.utility, self.lam, self.nu = utility, lam, nu
        self.p = profile.weights
        self.h = h
        self.level, self.limit, self.deadline, self.start = level, limit, deadline, start
        self.ell = self.h * self.k * (lam + level * nu)
        free_zero = (self.p <= 0.0) & (self.ell < 0.0)
        self.zero_in = np.flatnonzero(free_zero)
        self.constant = self.h * (float(lam.sum()) + level * float(nu.sum())) + float(
            self.ell[free_zero].sum()
        )
        positive = np.flatnonzero(self.p > 0.0)
        self.order = positive[np.lexsort((self.ell[positive], -self.p[positive]))]
        self.ps, self.ls = self.p[self.order], self.ell[self.order]
        m = self.order.size
        # same_group[k]: input k of the order has the p of input k − 1 (the exchange rule applies)
        # Exchangeable inputs need identical p (a tolerance would be unsound): compare the positive
        # doubles' bit patterns, which are equal exactly when the values are.
        bits = self.ps.view(np.int64)
        self.same_group = np.concatenate([[False], bits[1:] == bits[:-1]]) if m else np.zeros(0, bool)
        self.scale = (
            1.0
            + abs(self.constant)
            + float(np.abs(self.ell).sum())
            + profile.magnitude
            + abs(float(self._phi(float(self.p.sum()))))
        )
        self.nodes = 0
        self.proved = level
        self.best: tuple[float, np.ndarray] | None = None
        self.suffix: dict[int, tuple[FloatArray, FloatArray, FloatArray, float]] = {}

    def _phi(self, a: FloatArray | float) -> FloatArray:
        return self.profile.phi(a)

    def ratio(self, mask: np.ndarray) -> tuple[float, float]:
        """``R(r_A)`` of a subset (through the checker's own ``μ``) and its rounding margin."""
        ray = 1.0 + self.k * mask.astype(np.float64)
        mu = float(core_mu(self.utility, ray[:, None])[0])
        dual = float(self.lam @ ray)
        weight = float(self.nu @ ray)
        margin = CHECK_ROUNDING_RTOL * (abs(mu) + float(np.abs(self.lam) @ ray) + 1.0) / weight
        return (mu - dual) / weight, margin

    def _free(self, depth: int) -> tuple[FloatArray, FloatArray, FloatArray, float]:
        """The free inputs ``depth..m−1`` by ``ℓ/p``: ratios, prefix sums of ``p`` and ``ℓ``, ``Σ|ℓ|``."""
        if depth not in self.suffix:
            ps, ls = self.ps[depth:], self.ls[depth:]
            order = np.argsort(ls / ps, kind="stable")
            self.suffix[depth] = (
                (ls / ps)[order],
                np.concatenate([[0.0], np.cumsum(ps[order])]),
                np.concatenate([[0.0], np.cumsum(ls[order])]),
                float(np.abs(ls).sum()),
            )
        return self.suffix[depth]

    def _bound(self, depth: int, a: FloatArray, ell: FloatArray) -> tuple[FloatArray, FloatArray, np.ndarray]:
        """Per state: the smallest Lagrangian bound met on ``max φ − ℓ − C`` over its completions, its
        margin, and how many of the free inputs (by ``ℓ/p``) the greedy completion at that ``σ`` takes."""
        ratios, prefix_p, prefix_l, spread = self._free(depth)
        mass = prefix_p[-1]

        def value(sigma: FloatArray) -> tuple[FloatArray, FloatArray, np.ndarray]:
            top = np.clip(self.profile.peak(sigma), a, a + mass)
            count = np.searchsorted(ratios, sigma, side="left")
            inner = self._phi(top) - sigma * (top - a)
            bound = inner - ell + sigma * prefix_p[count] - prefix_l[count] - self.constant
            magnitude = np.abs(inner) + np.abs(sigma) * (top - a + mass) + np.abs(ell) + spread
            return bound, magnitude, count

        slope_end = self.profile.slope(a + mass)
        slope_start = self.profile.slope(a)
        low = np.minimum(ratios[0], slope_end) - 1.0
        high = np.maximum(ratios[-1], slope_start) + 1.0
        for _ in range(_BISECTIONS):
            middle = 0.5 * (low + high)
            top = np.clip(self.profile.peak(middle), a, a + mass)
            rising = prefix_p[np.searchsorted(ratios, middle, side="left")] >= top - a
            high = np.where(rising, middle, high)
            low = np.where(rising, low, middle)
        best, magnitude, count = value(0.5 * (low + high))
        for sigma in (low, high):
            other, other_magnitude, other_count = value(sigma)
            better = other < best
            best = np.where(better, other, best)
            magnitude = np.where(better, other_magnitude, magnitude)
            count = np.where(better, other_count, count)
        return best, CHECK_ROUNDING_RTOL * (magnitude + self.scale), count

    def _subset(self, bits: np.ndarray, depth: int, count: int) -> np.ndarray:
        """The subset of a state (its decision bits) with the first ``count`` free inputs by ``ℓ/p``."""
        m = self.order.size
        taken = np.unpackbits(bits, count=m).astype(bool)
        mask = np.zeros(self.p.size, dtype=bool)
        mask[self.zero_in] = True
        mask[self.order[taken]] = True
        ps, ls = self.ps[depth:], self.ls[depth:]
        extra = np.argsort(ls / ps, kind="stable")[:count]
        mask[self.order[depth + extra]] = True
        return mask

    def _met(self, mask: np.ndarray) -> StaircaseMaximum | None:
        """Account for a real subset above the level: a refutation, or a higher proved level."""
        value, margin = self.ratio(mask)
        if value - margin > self.limit:
            return StaircaseMaximum(value, 0.0, _column(mask, self.factor), self.nodes, self._seconds(), True)
        self.proved = max(self.proved, value + margin)
        if self.best is None or value > self.best[0]:
            self.best = (value, mask)
        return None

    def _seconds(self) -> float:
        return time.perf_counter() - self.start

    def run(self) -> StaircaseMaximum | NotProved:
        m = self.order.size
        width = (m + 7) // 8
        stack: list[tuple[int, FloatArray, FloatArray, np.ndarray, np.ndarray]] = [
            (0, np.zeros(1), np.zeros(1), np.zeros(1, dtype=bool), np.zeros((1, width), dtype=np.uint8))
        ]
        while stack:
            if time.perf_counter() > self.deadline:
                return NotProved(
                    NotProvedReason.DEADLINE, f"the time limit was reached after {self.nodes:,} states"
                )
            depth, a, ell, closed, bits = stack.pop()
            self.nodes += a.size
            if depth == m:  # leaves: exact values
                gain = self._phi(a) - ell - self.constant
                margin = CHECK_ROUNDING_RTOL * (np.abs(self._phi(a)) + np.abs(ell) + self.scale)
                for i in np.flatnonzero(gain > -margin):
                    found = self._met(self._subset(bits[i], depth, 0))
                    if found is not None:
                        return found
                continue
            bound, margin, count = self._bound(depth, a, ell)
            gain = (
                self._phi(a + self._free(depth)[1][count]) - ell - self._free(depth)[2][count] - self.constant
            )
            for i in np.flatnonzero(gain > 0.0):  # a greedy completion above the level
                found = self._met(self._subset(bits[i], depth, int(count[i])))
                if found is not None:
                    return found
            live = bound + margin > 0.0
            if not np.any(live):
                continue
            a, ell, closed, bits = a[live], ell[live], closed[live], bits[live]
            blocked = closed & self.same_group[depth]
            take = ~blocked
            byte, bit = divmod(depth, 8)
            taken_bits = bits[take].copy()
            taken_bits[:, byte] |= np.uint8(1 << (7 - bit))
            child_a = np.concatenate([a[take] + self.ps[depth], a])
            child_ell = np.concatenate([ell[take] + self.ls[depth], ell])
            child_closed = np.concatenate(
                [np.zeros(int(take.sum()), dtype=bool), np.ones(a.size, dtype=bool)]
            )
            child_bits = np.vstack([taken_bits, bits])
            for first in range(0, child_a.size, BATCH):
                part = slice(first, first + BATCH)
                stack.append(
                    (depth + 1, child_a[part], child_ell[part], child_closed[part], child_bits[part])
                )
        column = (
            _column(self.best[1], self.factor)
            if self.best is not None
            else _column(np.zeros(self.p.size, dtype=bool), self.factor)
        )
        return StaircaseMaximum(self.proved, 0.0, column, self.nodes, self._seconds(), False)


# ------------------------------------------------------------------------------------ f-divergences
def _divergence(
    factor: float,
    form: PerspectiveForm,
    lam: FloatArray,
    nu: FloatArray,
    level: float,
    limit: float,
    deadline: float,
    start: float,
) -> StaircaseMaximum | NotProved:
    """Enumerate the arrangement's cells at ``level`` (module docstring); move the level up to the
    largest ratio met while that stays within ``limit``."""
    k = factor - 1.0
    p0, p1 = np.asarray(form.a, dtype=np.float64), np.asarray(form.b, dtype=np.float64)
    n = lam.size
    mass = float(nu.sum())
    nodes = 0
    best_value, best_mask = -np.inf, np.zeros(n, dtype=bool)
    for _ in range(_LEVELS):
        ell = k * (lam + level * nu)
        constant = float(lam.sum()) + level * mass
        masks = _cells(np.column_stack([p0, p1, ell]), deadline)
        if isinstance(masks, NotProved):
            return masks
        nodes += len(masks)
        top, top_margin, excess = -np.inf, 0.0, -np.inf
        for first in range(0, len(masks), _CHUNK):
            if time.perf_counter() > deadline:
                return NotProved(
                    NotProvedReason.DEADLINE,
                    "the time limit was reached while evaluating the arrangement's cells",
                )
            chunk = masks[first : first + _CHUNK]
            chosen = chunk.astype(np.float64)
            rays = 1.0 + k * chosen
            mu = np.asarray(form.perspective(rays @ p0, rays @ p1), dtype=np.float64)
            if not np.all(np.isfinite(mu)):
                return NotProved(NotProvedReason.NUMERICS, "μ is not finite at a staircase column")
            weight = rays @ nu
            ratio = (mu - rays @ lam) / weight
            ratio_margin = CHECK_ROUNDING_RTOL * (np.abs(mu) + rays @ np.abs(lam) + 1.0) / weight
            if np.any(ratio - ratio_margin > limit):
                i = int(np.argmax(ratio - ratio_margin))
                column = _column(chunk[i], factor)
                return StaircaseMaximum(
                    float(ratio[i]), 0.0, column, nodes, time.perf_counter() - start, True
                )
            gains = mu - chosen @ ell - constant
            gain_margin = CHECK_ROUNDING_RTOL * (np.abs(mu) + chosen @ np.abs(ell) + abs(constant) + 1.0)
            excess = max(excess, float(np.max(gains + gain_margin)))
            i = int(np.argmax(ratio + ratio_margin))
            if ratio[i] + ratio_margin[i] > top + top_margin:
                top, top_margin = float(ratio[i]), float(ratio_margin[i])
                if top > best_value:
                    best_value, best_mask = top, chunk[i]
        # Every subset's gain is at most the cells' (the arrangement argument, ℓ and C as rounded: each
        # is three operations from λ and ν, so off by at most CHECK_FORMED_ULPS units in its last place of
        # the magnitudes), and a gain G means R <= level + G/νᵀr_A <= level + G/Σν.
        formed = (
            k * (float(np.abs(lam).sum()) + abs(level) * mass) + abs(float(lam.sum())) + abs(level) * mass
        )
        rounding = CHECK_FORMED_ULPS * np.finfo(np.float64).eps * formed / mass
        proved = level + max(excess, 0.0) / mass + rounding
        if proved <= limit:
            return StaircaseMaximum(
                proved, 0.0, _column(best_mask, factor), nodes, time.perf_counter() - start, False
            )
        if not top + top_margin > level:
            break
        level = top + top_margin  # a subset above the level, within the limit: Dinkelbach's next level
    return NotProved(
        NotProvedReason.NUMERICS, "a staircase column's ratio is within rounding of the claim's limit"
    )


def _exact(values: FloatArray) -> list[int]:
    """The doubles ``values`` as integers on one common binary scale (exact)."""
    ratios = [float(v).as_integer_ratio() for v in values]
    scale = max(den for _, den in ratios)
    return [num * (scale // den) for num, den in ratios]


def _cross(u: tuple[int, int, int], v: tuple[int, int, int]) -> tuple[int, int, int]:
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def _dot(u: tuple[int, int, int], v: tuple[int, int, int]) -> int:
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


def _cells(vectors: FloatArray, deadline: float) -> np.ndarray | NotProved:
    """Subsets ``{x : u·g_x > 0}`` of every full-dimensional cell of the arrangement ``{u·g_x = 0}``
    (``g_x`` the rows of ``vectors``; module docstring), with ``∅`` and every input; may repeat."""
    n = vectors.shape[0]
    exact_columns = [_exact(vectors[:, c]) for c in range(3)]
    exact = [(exact_columns[0][x], exact_columns[1][x], exact_columns[2][x]) for x in range(n)]
    masks: list[np.ndarray] = [np.zeros((1, n), dtype=bool), np.ones((1, n), dtype=bool)]
    magnitude = np.abs(vectors)
    seen: set[tuple[int, bytes]] = set()
    found_pair = False
    for i in range(n):
        if time.perf_counter() > deadline:
            return NotProved(
                NotProvedReason.DEADLINE,
                "the time limit was reached while enumerating the arrangement's cells",
            )
        j = np.arange(i + 1, n)
        if j.size == 0:
            continue
        u = np.cross(vectors[i], vectors[j])  # (pairs, 3)
        size = np.column_stack(
            [
                magnitude[i, 1] * magnitude[j, 2] + magnitude[i, 2] * magnitude[j, 1],
                magnitude[i, 2] * magnitude[j, 0] + magnitude[i, 0] * magnitude[j, 2],
                magnitude[i, 0] * magnitude[j, 1] + magnitude[i, 1] * magnitude[j, 0],
            ]
        )
        det = u @ vectors.T
        error = CHECK_DETERMINANT_RTOL * (size @ magnitude.T)
        sign = np.where(det > error, 1, np.where(det < -error, -1, 2)).astype(np.int8)  # 2: undecided
        rows = np.arange(j.size)
        sign[rows, i] = 0
        sign[rows, j] = 0
        for r in range(j.size):
            pair_cross: tuple[int, int, int] | None = None
            undecided = np.flatnonzero(sign[r] == 2)
            if undecided.size or np.all(np.abs(u[r]) <= CHECK_DETERMINANT_RTOL * size[r]):
                pair_cross = _cross(exact[i], exact[int(j[r])])
                if pair_cross == (0, 0, 0):
                    continue  # parallel: no ray
                for x in undecided:
                    value = _dot(pair_cross, exact[x])
                    sign[r, x] = (value > 0) - (value < 0)
            found_pair = True
            tied = np.flatnonzero(sign[r] == 0)
            for orientation in (1, -1):
                base = sign[r] * orientation > 0
                if tied.size == 2:
                    block = np.repeat(base[None, :], 4, axis=0)
                    block[1, i] = block[3, i] = True
                    block[2, j[r]] = block[3, j[r]] = True
                    masks.append(block)
                    continue
                key = (orientation, np.packbits(sign[r] == 0).tobytes())
                if key in seen:
                    continue
                seen.add(key)
                if pair_cross is None:
                    pair_cross = _cross(exact[i], exact[int(j[r])])
                normal = (
                    orientation * pair_cross[0],
                    orientation * pair_cross[1],
                    orientation * pair_cross[2],
                )
                masks.append(_plane_subsets(base, tied, normal, exact))
    if not found_pair:  # every g_x parallel to one direction: the two orientations
        reference = next((e for e in exact if any(e)), None)
        if reference is not None:
            axis = next(c for c in range(3) if reference[c] != 0)
            side = np.array([(e[axis] > 0) == (reference[axis] > 0) and e[axis] != 0 for e in exact])
            opposite = np.array([(e[axis] > 0) != (reference[axis] > 0) and e[axis] != 0 for e in exact])
            masks.append(np.vstack([side, opposite]))
    return np.vstack(masks)


def _plane_subsets(
    base: np.ndarray, tied: np.ndarray, normal: tuple[int, int, int], exact: list[tuple[int, int, int]]
) -> np.ndarray:
    """``base`` plus every subset of ``tied`` (vectors in the plane ``normal^⊥``) cut by a line through 0
    in that plane: for each tied ``g_k``, the sides of ``e = normal × g_k`` and the orientation along
    ``g_k`` (exact integers)."""
    rows = []
    for k in tied:
        gk = exact[k]
        if not any(gk):
            continue
        e = _cross(normal, gk)
        axis = next(c for c in range(3) if gk[c] != 0)
        side = np.zeros(base.size, dtype=np.int8)
        along = np.zeros(base.size, dtype=np.int8)
        for x in tied:
            value = _dot(e, exact[x])
            side[x] = (value > 0) - (value < 0)
            if value == 0 and exact[x][axis] != 0:
                along[x] = 1 if (exact[x][axis] > 0) == (gk[axis] > 0) else -1
        for half in (1, -1):
            for direction in (1, -1):
                row = base.copy()
                row[(side * half > 0)] = True
                row[(side == 0) & (along * direction > 0)] = True
                rows.append(row)
    rows.append(base.copy())
    return np.vstack(rows)
