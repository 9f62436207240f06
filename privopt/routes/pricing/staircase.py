"""Exact pricing on LDP cones of any size: staircase columns and a proved bound on the reduced cost.

``po.LDP(ε)`` compiles to one group ``{e_x}`` with its self pair (:mod:`privopt.routes.pricing.structure`
reads it as one envelope block with ``L = 0``, ``c = 1``): the cone ``K = {w >= 0 : w_x <= F w_x'}``,
``F = e^ε``. Its extreme rays are the *staircases* ``r_A = 1 + k·1_A`` (``k = F − 1``, ``A`` a non-empty
proper subset; ``A = ∅`` and ``A = X`` give the constant column, which is in ``K``): a ray of ``K`` has
``n − 1`` independent active rows, and a column with a value strictly between its minimum ``m`` and
maximum ``M = F m`` (or with ``M < F m``) is the mean of two columns of ``K`` moving that value up and
down (Kairouz et al. Thm. 4, the staircase pattern). Column generation's pricing problem,
``δ(λ) = max_{w ∈ K} (μ(w) − λᵀw)/νᵀw``, is a maximum over subsets ``A``, and with ``Λ = Σλ``,
``λᵀr_A = Λ + k λ(A)`` and ``νᵀr_A = Σν + k ν(A)``:

- **Mutual information** (``ν = p``, :class:`KnapsackPricer`). With ``a = p(A)``, ``b = λ(A)``,
  ``S = Σp`` and ``q = S + k a``: ``μ(r_A) = a F log F − q log q``, so the reduced cost
  ``R(A) = (a F log F − q log q − Λ − k b)/q`` depends on ``(a, b)`` only and decreases in ``b``: the
  maximum lies on the 0/1-knapsack frontier ``min {λ(A) : p(A) = a}``. The search is a breadth-first
  branch and bound over the inputs in the order of ``λ_x/p_x``; a state (decisions on a prefix) is
  bounded by the exact maximum of ``R`` over the *fractional* frontier of its remaining inputs (the
  greedy fill, piecewise linear with breakpoints at prefix sums). On a piece ``b = β + γa``,
  ``R = A₀ − B₀/q − log q`` with ``A₀ = (F log F − kγ)/k``, ``B₀ = S A₀ + Λ + kβ``, which is concave in
  ``1/q`` and peaks at ``q = B₀`` (clipped to the piece): the bound is exact for the relaxation. The
  breakpoints are real subsets (fixed part ∪ a prefix), which give the incumbent and the columns.
  Inputs with ``p_x = 0`` are decided up front (in ``A`` iff ``λ_x < 0``: ``R`` falls with ``b``), and two
  inputs with equal ``p`` are exchangeable (same ``a``, the smaller ``λ`` gives the smaller ``b``): a state
  that has left one out takes no later input of its value (uniform priors stay polynomial). States
  beyond a beam, a node budget or the deadline are not expanded and their bounds enter ``δ̄``, which
  is therefore always valid. NMI is the same search with ``λ·H(X)``, divided by ``H(X)``.
- **Power forms** (Sibson's α-MI, a user's ``μ(w) = (Σ_x c_x w_x^α)^{1/α}``; ``ν = c``, the same
  :class:`KnapsackPricer` over ``a = c(A)``). ``μ(r_A) = φ(a) = (Σc + (F^α − 1)a)^{1/α}``, concave. On a
  piece ``b = β + γa`` of the fractional frontier, ``R(a) = N(a)/q(a)`` with ``N`` concave and
  ``q = Σc + ka``; the tangent ``T`` of ``φ`` at any ``a₀`` is above ``φ``, so ``R <= (T − Λ − kβ −
  kγa)/q``, a linear-fractional function whose maximum is at an end of the piece: a valid bound for every
  ``a₀``, equal to ``max R`` at its maximiser, where ``φ'(a)q(a) − kφ(a) = kγΣc − kΛ − k²β`` (the left
  side decreases in ``a``: bisection).
- **f-divergences** (``ν = (P0 + P1)/2``, :class:`SlopePricer`). ``μ(r_A) = q1 f(q0/q1)`` with
  ``q_i = S_i + k P_i(A)``: a convex function ``H`` of ``(P0(A), P1(A))``. Dinkelbach's method turns the
  ratio into ``max_A H(z(A)) − ℓ(A)`` with ``ℓ = k(λ + tν)`` modular; ``f(ρ) = max_g (gρ − f*(g))`` over
  the slopes ``g`` of its tangents at ``ρ ∈ [S0/(F S1), F S0/S1]`` (the range of ``q0/q1``) gives
  ``max_A H − ℓ = max_g [g S0 − f*(g) S1 + Σ_x (k(g P0_x − f*(g) P1_x) − ℓ_x)⁺]``, a search over one
  number. For slopes in ``[g1, g2]`` with reference points ``a <= b`` (where tangents of slopes
  ``g1``, ``g2`` touch ``f``; any ``a, b`` keep the bound valid), every tangent satisfies
  ``g u − f*(g) <= f(a) + g1(u − a)`` for ``u <= a``, ``<= f(b) + g2(u − b)`` for ``u >= b`` and ``<= f(u)``
  always, which bounds each term; the branch and bound halves slope intervals until the bound meets
  the best set, ``{x : k(g P0_x − f*(g)P1_x) > ℓ_x}`` at the interval's middle slope. Polynomial, for
  the four built-in generators and a user's convex ``f`` alike (only ``f`` is evaluated).

Both return :class:`~privopt.routes.pricing.envelope.PricingOutcome`\\ s: a proved ``δ̄ >= δ(λ)`` and the
best columns met (normalised ``Σw = 1``). The independent checker proves or refutes such claims by
its own methods (:mod:`privopt.certificates.staircase`).
"""

from __future__ import annotations

import abc
import contextlib
import math
import time
from dataclasses import dataclass

import numpy as np

from privopt.compiler.cone import RowCone
from privopt.routes.pricing.contract import (
    CertifiedPricer,
    PricedColumn,
    PricerEntry,
    PricerTraits,
    PricingOutcome,
    PricingRequest,
    Refusal,
    RefusalReason,
    register_pricer,
    single_session,
)
from privopt.routes.pricing.structure import envelope_structure
from privopt.tolerances import STAIRCASE_DECISION_RTOL, STAIRCASE_ROUNDING_RTOL, STAIRCASE_SLOPE_FLOOR_RTOL
from privopt.utilities import PerspectiveForm, SubConvexUtility
from privopt.validation import FloatArray

#: The method string of certificates proved by the staircase pricers.
STAIRCASE_METHOD = (
    "staircase pricing bound (LDP cone: exact search over the staircase columns r_A = 1 + (F − 1)·1_A)"
)

#: Knapsack states kept per level of the breadth-first search (the rest are bounded, not expanded).
BEAM = 20_000

#: Knapsack states (or slope intervals) one unit of ``ColumnGenerationOptions.bound_nodes`` buys.
NODES_PER_UNIT = 1000

#: Distinct equal-``p`` groups whose exchange dominance is tracked (one bit each per state).
_DOMINANCE_GROUPS = 64

#: Slope intervals the f-divergence search starts from, and the Dinkelbach steps it may take.
_SLOPE_GRID, _DINKELBACH_STEPS = 64, 60

#: Bisection steps locating a power profile's tangent point on a piece (any point gives a valid bound;
#: the bound exceeds the piece's maximum by ``O(|φ''|·(width/2^steps)²)``).
_TANGENT_BISECTIONS = 16

#: Golden-section iterations locating where a tangent of a given slope touches ``f``.
_GOLDEN_STEPS = 40


def ldp_factor(cone: RowCone) -> float | Refusal:
    """``F = e^ε`` when ``cone`` is an LDP cone (one group ``{e_x}`` with its self pair), else why not."""
    structure = envelope_structure(cone)
    if isinstance(structure, Refusal):
        return Refusal(RefusalReason.CONE, f"not an LDP cone: {structure.message}")
    if (
        structure.n_blocks != 1
        or not structure.self_pairs
        or structure.free.size
        or np.any(structure.lower[0] > 0.0)
    ):
        return Refusal(
            RefusalReason.CONE,
            "not an LDP cone (the staircase pricer needs one group {e_x} with its self pair)",
        )
    if structure.factor <= 1.0:  # its bounds divide by F − 1 and by ε
        return Refusal(RefusalReason.CONE, "ε = 0: the LDP cone is the ray of the constant column")
    return float(structure.factor)


def prior_free_bound(factor: float) -> float:
    """``μ*(ε) = u − 1 − log u`` with ``u = ε e^ε/(e^ε − 1)`` (``F = e^ε``): the mutual information of every
    ε-LDP mechanism under every prior is at most this (it is ``max_a`` of a staircase's MI, ``a* = (u−1)/k``)."""
    eps = math.log(factor)
    u = eps * factor / math.expm1(eps)
    return u - 1.0 - math.log(u)


def staircase_columns(masks: np.ndarray, factor: float) -> FloatArray:
    """The columns ``r_A / Σ r_A`` (rows) of the subsets ``masks`` (rows of booleans)."""
    rays = 1.0 + (factor - 1.0) * np.asarray(masks, dtype=np.float64)
    return rays / rays.sum(axis=1, keepdims=True)


def _distinct(
    masks: list[np.ndarray], ratios: list[float], limit: int, factor: float
) -> tuple[PricedColumn, ...]:
    """The best ``limit`` distinct subsets as priced columns, best first."""
    out: list[PricedColumn] = []
    seen: set[bytes] = set()
    for index in np.argsort(-np.asarray(ratios), kind="stable"):
        key = np.packbits(masks[index]).tobytes()
        if key in seen:
            continue
        seen.add(key)
        out.append(PricedColumn(staircase_columns(masks[index][None, :], factor)[0], float(ratios[index])))
        if len(out) >= limit:
            break
    return tuple(out)


class StaircasePricer(abc.ABC):
    """What the LDP pricers share (their factor and the run's settings; each defines its own ``price``, which
    the certified column-generation loop calls every round).

    Attributes
    ----------
    weights:
        The normalisation ``ν`` of the reduced cost (``p``, or ``(P0 + P1)/2``).
    normalisation:
        Its name in a :class:`~privopt.certificates.SliceBound`.
    """

    #: Exact every round; the run closes to half its ``gap_tolerance``: the checker proves a staircase
    #: claim at ``δ̄`` plus a share of its allowance (:mod:`privopt.certificates.staircase`), which the
    #: solution then reports; the checker takes about as long as the pricing (milliseconds both).
    traits: PricerTraits
    weights: FloatArray

    def __init__(self, factor: float) -> None:
        self.factor = factor
        self.k = factor - 1.0

    def prior_free_duals(self) -> list[FloatArray]:
        """Duals whose certificate holds whatever the prior (none but for mutual information)."""
        return []

    @abc.abstractmethod
    def price(self, duals: FloatArray, request: PricingRequest) -> PricingOutcome:
        """``δ̄`` at ``duals`` (:meth:`privopt.routes.pricing.contract.CertifiedPricer.price`)."""

    def session(self, workers: int) -> contextlib.AbstractContextManager[CertifiedPricer]:
        """A run needs no set-up; the staircase search runs in this process."""
        return single_session(self)


class KnapsackProfile(abc.ABC):
    """``μ(r_A) = φ(a)``, ``a = ω(A)``, concave, with the normalisation ``ν = ω`` (``q = Σω + ka``): the
    knapsack search's values at breakpoints and its bound on a piece of the fractional frontier
    (module docstring)."""

    weights: FloatArray
    #: The size of ``φ``'s terms, for the rounding margin.
    magnitude: float

    def __init__(self, factor: float, weights: FloatArray) -> None:
        self.factor, self.k = factor, factor - 1.0
        self.weights = weights
        self.total = float(weights.sum())

    @abc.abstractmethod
    def phi(self, a: FloatArray) -> FloatArray:
        """``φ`` at ``a`` (elementwise)."""

    @abc.abstractmethod
    def piece_bound(
        self, low: FloatArray, high: FloatArray, beta: FloatArray, gamma: FloatArray, dual_sum: float
    ) -> FloatArray:
        """An upper bound on ``max R`` over ``a ∈ [low, high]`` with ``b = β + γa`` (elementwise)."""

    def prior_free_duals(self) -> list[FloatArray]:
        """Duals whose certificate holds whatever the weights (none by default)."""
        return []


class EntropyProfile(KnapsackProfile):
    """Mutual information: ``φ(a) = a F log F − q log q``; on a piece, ``R`` peaks in closed form."""

    def __init__(self, factor: float, p: FloatArray) -> None:
        super().__init__(factor, p)
        self.gain = factor * math.log(factor)
        self.magnitude = self.gain

    def phi(self, a: FloatArray) -> FloatArray:
        q = self.total + self.k * a
        return a * self.gain - q * np.log(q)

    def piece_bound(
        self, low: FloatArray, high: FloatArray, beta: FloatArray, gamma: FloatArray, dual_sum: float
    ) -> FloatArray:
        k, S = self.k, self.total
        a0 = (self.gain - k * gamma) / k
        b0 = S * a0 + dual_sum + k * beta
        q = np.clip(b0, S + k * low, S + k * high)
        return a0 - b0 / q - np.log(q)

    def prior_free_duals(self) -> list[FloatArray]:
        return [prior_free_bound(self.factor) * self.weights]


class PowerProfile(KnapsackProfile):
    """A power form: ``φ(a) = (Σc + (F^α − 1)a)^{1/α}``; on a piece, the tangent bound (module docstring)."""

    def __init__(self, factor: float, c: FloatArray, alpha: float) -> None:
        super().__init__(factor, c)
        self.alpha = alpha
        self.grow = factor**alpha - 1.0
        self.magnitude = factor * self.total ** (1.0 / alpha)  # φ's largest value, φ(Σc)

    def phi(self, a: FloatArray) -> FloatArray:
        return np.power(self.total + self.grow * a, 1.0 / self.alpha)

    def slope(self, a: FloatArray) -> FloatArray:
        return self.grow / self.alpha * np.power(self.total + self.grow * a, 1.0 / self.alpha - 1.0)

    def piece_bound(
        self, low: FloatArray, high: FloatArray, beta: FloatArray, gamma: FloatArray, dual_sum: float
    ) -> FloatArray:
        k, S = self.k, self.total
        target = k * gamma * S - k * dual_sum - k * k * beta

        def excess(a: FloatArray) -> FloatArray:  # φ'q − kφ − target, decreasing in a
            return self.slope(a) * (S + k * a) - k * self.phi(a) - target

        left, right = np.array(low, dtype=np.float64), np.array(high, dtype=np.float64)
        for _ in range(_TANGENT_BISECTIONS):
            middle = 0.5 * (left + right)
            rising = excess(middle) > 0.0
            left = np.where(rising, middle, left)
            right = np.where(rising, right, middle)
        a0 = 0.5 * (left + right)
        value, slope = self.phi(a0), self.slope(a0)

        def tangent_ratio(a: FloatArray) -> FloatArray:
            return (value + slope * (a - a0) - dual_sum - k * (beta + gamma * a)) / (S + k * a)

        return np.maximum(tangent_ratio(low), tangent_ratio(high))


class KnapsackPricer(StaircasePricer):
    """Exact pricing for a concave staircase profile on an LDP cone: mutual information (or NMI) and
    power forms (module docstring)."""

    traits = PricerTraits(
        STAIRCASE_METHOD, "prior", exact_every_round=True, nodes_per_unit=NODES_PER_UNIT, gap_share=0.5
    )

    def __init__(self, profile: KnapsackProfile, scale: float) -> None:
        super().__init__(profile.factor)
        self.profile = profile
        self.p = profile.weights
        self.weights = self.p
        self.scale = scale  # 1/H(X) for NMI: μ = I/H
        self.total = profile.total
        self.positive = np.flatnonzero(self.p > 0.0)
        self.zero = np.flatnonzero(self.p <= 0.0)
        values, inverse, counts = np.unique(self.p[self.positive], return_inverse=True, return_counts=True)
        groups = np.flatnonzero(counts >= 2)
        groups = groups[np.argsort(-counts[groups], kind="stable")][:_DOMINANCE_GROUPS]
        bits = np.zeros(values.size, dtype=np.uint64)
        bits[groups] = np.left_shift(np.uint64(1), np.arange(groups.size, dtype=np.uint64))
        self.group_bits = bits[inverse]  # per positive input: its equal-p group's bit (0: none tracked)

    def prior_free_duals(self) -> list[FloatArray]:
        return [self.scale * duals for duals in self.profile.prior_free_duals()]

    def ratio(self, a: FloatArray, b: FloatArray, dual_sum: float) -> FloatArray:
        """``R`` (in the profile's units) of the subsets with ``ω(A) = a``, ``λ(A) = b``."""
        q = self.total + self.k * a
        return (self.profile.phi(a) - dual_sum - self.k * b) / q

    def price(self, duals: FloatArray, request: PricingRequest) -> PricingOutcome:
        """The arguments of :meth:`~privopt.routes.pricing.envelope.EnvelopePricer.price`; ``ceiling`` only
        permits an early stop, and the knapsack frontier (milliseconds) does not take it."""
        tolerance = request.tolerance
        target = request.target
        slack = request.slack
        deadline = request.deadline
        max_nodes = 10**7 if request.max_nodes is None else request.max_nodes
        max_columns = request.max_columns
        scale = self.scale
        lam = np.asarray(duals, dtype=np.float64) / scale
        found = _Knapsack(self, lam).run(tolerance / scale, target / scale, slack, deadline, max_nodes)
        masks, ratios = found.candidates(max(max_columns, 1))
        margin = (
            2.0
            * STAIRCASE_ROUNDING_RTOL
            * (
                1.0
                + self.profile.magnitude
                + abs(found.dual_sum)
                + self.k * float(np.abs(lam).sum())
                + self.factor * abs(found.incumbent)
            )
        )
        return PricingOutcome(
            upper=scale * (found.upper + margin),
            lower=scale * found.incumbent,
            columns=_distinct(masks, [scale * r for r in ratios], max_columns, self.factor),
            nodes=found.nodes,
            point_nodes=0,
            complete=found.complete,
            tolerance=tolerance,
            seconds=found.seconds,
        )


class _Knapsack:
    """One breadth-first branch and bound of :class:`KnapsackPricer` at duals ``λ`` (MI units)."""

    def __init__(self, pricer: KnapsackPricer, lam: FloatArray) -> None:
        self.pricer = pricer
        self.lam = lam
        self.dual_sum = float(lam.sum())
        positive = pricer.positive
        self.order = positive[np.argsort(lam[positive] / pricer.p[positive], kind="stable")]
        rank = np.empty(pricer.p.size, dtype=np.intp)
        rank[positive] = np.arange(positive.size)
        self.bits = pricer.group_bits[rank[self.order]]
        self.fixed = pricer.zero[lam[pricer.zero] < 0.0]  # p_x = 0: in A iff λ_x < 0
        self.levels: list[tuple[np.ndarray, np.ndarray]] = []  # (parent, took) per level
        self.records: list[tuple[float, int, int, int]] = []  # (R, level, state, prefix length)
        self.incumbent = -np.inf
        self.upper = -np.inf
        self.nodes = 0
        self.complete = True
        self.seconds = 0.0

    def run(
        self, tolerance: float, target: float, slack: float, deadline: float | None, max_nodes: int
    ) -> _Knapsack:
        start = time.perf_counter()
        pricer = self.pricer
        k, S = pricer.k, pricer.total
        profile = pricer.profile
        ps, ls = pricer.p[self.order], self.lam[self.order]
        gamma = ls / ps
        m = ps.size
        prefix_p = np.concatenate([[0.0], np.cumsum(ps)])
        prefix_l = np.concatenate([[0.0], np.cumsum(ls)])
        a = np.zeros(1)
        b = np.full(1, float(self.lam[self.fixed].sum()))
        closed = np.zeros(1, dtype=np.uint64)
        self.levels.append((np.zeros(1, dtype=np.intp), np.zeros(1, dtype=bool)))
        left = -np.inf  # bounds of states not expanded (budget, beam) or pruned
        for level in range(m + 1):
            self.nodes += a.size
            steps_p = prefix_p[level:] - prefix_p[level]
            steps_l = prefix_l[level:] - prefix_l[level]
            A = a[:, None] + steps_p
            B = b[:, None] + steps_l
            Q = S + k * A
            at_points = (profile.phi(A) - self.dual_sum - k * B) / Q
            bound = at_points.max(axis=1)
            if level < m:
                g = np.broadcast_to(gamma[level:], A[:, :-1].shape)
                beta = B[:, :-1] - g * A[:, :-1]
                pieces = profile.piece_bound(A[:, :-1], A[:, 1:], beta, g, self.dual_sum)
                bound = np.maximum(bound, pieces.max(axis=1))
            self._record(at_points, level)
            threshold = max(target, self.incumbent + tolerance + slack * max(self.incumbent, 0.0))
            keep = bound > threshold
            if np.any(~keep):
                left = max(left, float(bound[~keep].max()))
            if level == m or not np.any(keep):
                break
            out_of_time = deadline is not None and time.perf_counter() > deadline
            if self.nodes >= max_nodes or out_of_time:
                left = max(left, float(bound[keep].max()))
                self.complete = False
                break
            survivors = np.flatnonzero(keep)
            if survivors.size > BEAM:
                order = np.argsort(-bound[survivors], kind="stable")
                left = max(left, float(bound[survivors[order[BEAM:]]].max()))
                survivors = np.sort(survivors[order[:BEAM]])
                self.complete = False
            bit = self.bits[level]
            may_take = survivors[(closed[survivors] & bit) == 0]
            a = np.concatenate([a[may_take] + ps[level], a[survivors]])
            b = np.concatenate([b[may_take] + ls[level], b[survivors]])
            closed = np.concatenate([closed[may_take], closed[survivors] | bit])
            parent = np.concatenate([may_take, survivors])
            took = np.concatenate([np.ones(may_take.size, dtype=bool), np.zeros(survivors.size, dtype=bool)])
            self.levels.append((parent, took))
        self.upper = max(self.incumbent, left)
        self.seconds = time.perf_counter() - start
        return self

    def _record(self, values: FloatArray, level: int) -> None:
        """Keep the best breakpoints of this level as candidate columns (and the incumbent)."""
        best = values.argmax(axis=1)
        top = values[np.arange(values.shape[0]), best]
        chosen = np.argsort(-top, kind="stable")[:_RECORDS_PER_LEVEL]
        for state in chosen:
            self.records.append((float(top[state]), level, int(state), int(best[state])))
        self.incumbent = max(self.incumbent, float(top[chosen[0]]))

    def subset(self, level: int, state: int, length: int) -> np.ndarray:
        """The subset of ``state`` at ``level`` with the next ``length`` inputs (in the search order)."""
        mask = np.zeros(self.pricer.p.size, dtype=bool)
        mask[self.fixed] = True
        mask[self.order[level : level + length]] = True
        for depth in range(level, 0, -1):
            parent, took = self.levels[depth]
            if took[state]:
                mask[self.order[depth - 1]] = True
            state = int(parent[state])
        return mask

    def candidates(self, limit: int) -> tuple[list[np.ndarray], list[float]]:
        """The best recorded subsets (up to ``4·limit`` before de-duplication) and their ``R``."""
        records = sorted(self.records, key=lambda record: -record[0])[: 4 * limit]
        return [self.subset(level, state, length) for _, level, state, length in records], [
            r for r, *_ in records
        ]


#: Candidate breakpoints recorded per level of the knapsack search (the columns come from them).
_RECORDS_PER_LEVEL = 8


class SlopePricer(StaircasePricer):
    """Exact pricing for an f-divergence ``D_f(P0 W || P1 W)`` on an LDP cone (module docstring)."""

    traits = PricerTraits(
        STAIRCASE_METHOD, "mixture", exact_every_round=True, nodes_per_unit=NODES_PER_UNIT, gap_share=0.5
    )

    def __init__(self, factor: float, form: PerspectiveForm) -> None:
        super().__init__(factor)
        self.form = form
        self.p0, self.p1 = np.asarray(form.a, dtype=np.float64), np.asarray(form.b, dtype=np.float64)
        self.weights = 0.5 * (self.p0 + self.p1)
        self.s0, self.s1 = float(self.p0.sum()), float(self.p1.sum())
        self.low, self.high = self.s0 / (factor * self.s1), factor * self.s0 / self.s1  # range of q0/q1
        # Slopes of the tangents of f on [low, high], widened by secants outside it (convexity).
        near = self.f(np.array([0.5 * self.low, self.low, self.high, 2.0 * self.high]))
        self.slope_low = float((near[1] - near[0]) / (0.5 * self.low))
        self.slope_high = float((near[3] - near[2]) / self.high)
        # P1_x f(P0_x/P1_x) per input (+inf where P1_x = 0: only the tangent bounds apply there)
        both = self.p1 > 0.0
        self.item_values = np.full(self.p0.size, np.inf)
        self.item_values[both] = form.perspective(self.p0[both], self.p1[both])
        self.total_value = float(form.perspective(np.array([self.s0]), np.array([self.s1]))[0])

    def f(self, t: FloatArray) -> FloatArray:
        """The generator ``f(t)`` (``t > 0``)."""
        t = np.asarray(t, dtype=np.float64)
        return self.form.perspective(t, np.ones_like(t))

    def tangents(self, slopes: FloatArray) -> _Tangents:
        """For each slope ``g``: a point ``τ`` where a tangent of slope ``g`` (nearly) touches ``f`` on
        ``[low, high]``, ``f(τ) − gτ`` (at least the intercept ``m_g = min_τ f(τ) − gτ``) and a lower bound
        on ``m_g`` — golden section on the convex ``φ = f − gτ``, then, for the lower bound, every chord of
        the points it evaluated extended beyond its ends (below ``φ`` by convexity)."""
        lo = np.full(slopes.size, self.low)
        hi = np.full(slopes.size, self.high)
        ratio = 0.5 * (math.sqrt(5.0) - 1.0)
        x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        f1, f2 = self.f(x1) - slopes * x1, self.f(x2) - slopes * x2
        for _ in range(_GOLDEN_STEPS):
            left = f1 <= f2  # the minimum is in [lo, x2], else in [x1, hi]
            hi = np.where(left, x2, hi)
            lo = np.where(left, lo, x1)
            x1, x2, kept1, kept2 = (
                np.where(left, hi - ratio * (hi - lo), x2),
                np.where(left, x1, lo + ratio * (hi - lo)),
                f2,
                f1,
            )
            fresh = np.where(left, x1, x2)
            value = self.f(fresh) - slopes * fresh
            f1, f2 = np.where(left, value, kept1), np.where(left, kept2, value)
        ends = np.column_stack([np.full(slopes.size, self.low), lo, hi, np.full(slopes.size, self.high)])
        phi_ends = self.f(ends) - slopes[:, None] * ends
        points = np.column_stack([ends[:, :2], x1, x2, ends[:, 2:]])
        values = np.column_stack([phi_ends[:, :2], f1, f2, phi_ends[:, 2:]])
        best = np.argmin(values, axis=1)
        rows = np.arange(slopes.size)
        return _Tangents(points[rows, best], values[rows, best], _chord_lower_bound(points, values))

    def values(self, masks: np.ndarray) -> FloatArray:
        """``μ(r_A)`` for the subsets ``masks`` (rows)."""
        chosen = np.asarray(masks, dtype=np.float64)
        q0 = self.s0 + self.k * (chosen @ self.p0)
        q1 = self.s1 + self.k * (chosen @ self.p1)
        return self.form.perspective(q0, q1)

    def ratios(self, masks: np.ndarray, duals: FloatArray) -> FloatArray:
        """``R(A) = (μ(r_A) − λᵀr_A)/νᵀr_A`` for the subsets ``masks`` (rows)."""
        chosen = np.asarray(masks, dtype=np.float64)
        numerator = self.values(masks) - float(duals.sum()) - self.k * (chosen @ duals)
        return numerator / (float(self.weights.sum()) + self.k * (chosen @ self.weights))

    def price(self, duals: FloatArray, request: PricingRequest) -> PricingOutcome:
        """The arguments of :meth:`~privopt.routes.pricing.envelope.EnvelopePricer.price`; ``ceiling`` only
        permits an early stop, and the slope search (a few Dinkelbach steps) does not take it."""
        tolerance = request.tolerance
        target = request.target
        slack = request.slack
        deadline = request.deadline
        max_nodes = 10**7 if request.max_nodes is None else request.max_nodes
        max_columns = request.max_columns
        start = time.perf_counter()
        lam = np.asarray(duals, dtype=np.float64)
        mass = float(self.weights.sum())
        pool_masks = [np.zeros((1, lam.size), dtype=bool)]
        pool_ratios = [self.ratios(pool_masks[0], lam)]
        t = float(pool_ratios[0][0])  # the constant column
        upper, nodes = np.inf, 0
        for _ in range(_DINKELBACH_STEPS):  # t rises to δ(λ); each step bounds R <= t + max_A gain/ν(r_A)
            ell = self.k * (lam + t * self.weights)
            constant = float(lam.sum()) + t * mass
            search = _SlopeSearch(self, ell, constant)
            floor = STAIRCASE_SLOPE_FLOOR_RTOL * (1.0 + abs(constant) + float(np.abs(ell).sum()))
            inner, masks = search.run(max(tolerance * mass, floor), deadline, max_nodes - nodes)
            nodes += search.nodes
            upper = min(upper, t + max(inner, 0.0) / mass)
            pool_masks.append(masks)
            pool_ratios.append(self.ratios(masks, lam))
            best = float(max(r.max() for r in pool_ratios))
            if upper <= max(target, best + tolerance + slack * max(best, 0.0)) or best <= t:
                break
            if not search.complete:
                break
            t = best
        all_masks, all_ratios = np.vstack(pool_masks), np.concatenate(pool_ratios)
        best = float(all_ratios.max())
        order = np.argsort(-all_ratios, kind="stable")[: 4 * max(max_columns, 1)]
        magnitude = (
            1.0
            + abs(float(lam.sum()))
            + self.k * float(np.abs(lam).sum())
            + float(np.abs(self.values(all_masks[order])).max())
        )
        margin = 2.0 * STAIRCASE_ROUNDING_RTOL * (magnitude + (1.0 + self.k) * abs(best) * mass) / mass
        return PricingOutcome(
            upper=max(upper, best) + margin,
            lower=best,
            columns=_distinct(list(all_masks[order]), list(all_ratios[order]), max_columns, self.factor),
            nodes=nodes,
            point_nodes=0,
            complete=upper <= best + tolerance,
            tolerance=tolerance,
            seconds=time.perf_counter() - start,
        )


@dataclass(frozen=True)
class _Tangents:
    """Per slope ``g``: a touching point ``τ``, ``f(τ) − gτ`` (``>= m_g``) and a lower bound of ``m_g``."""

    touch: FloatArray
    upper: FloatArray
    lower: FloatArray


def _chord_lower_bound(points: FloatArray, values: FloatArray) -> FloatArray:
    """A lower bound (per row) on the minimum over ``[points[:, 0], points[:, -1]]`` of a convex function
    with these sorted evaluations: on each gap, the chords of the neighbouring gaps extended into it lie
    below the function; the smaller rounding of the values is covered by a relative margin."""
    width = np.diff(points, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(width > 0.0, np.diff(values, axis=1) / np.where(width > 0.0, width, 1.0), np.nan)
    gaps = width.shape[1]
    bounds = []
    for i in range(gaps):
        candidates = []
        if i >= 1:  # the chord on the left, continued rightwards across gap i
            candidates.append(values[:, i] + np.minimum(slope[:, i - 1], 0.0) * width[:, i])
        if i + 1 < gaps:  # the chord on the right, continued leftwards across gap i
            candidates.append(values[:, i + 1] - np.maximum(slope[:, i + 1], 0.0) * width[:, i])
        known = [np.where(np.isnan(c), -np.inf, c) for c in candidates]
        bound = np.max(known, axis=0) if known else np.full(points.shape[0], -np.inf)
        bounds.append(np.where(width[:, i] > 0.0, bound, np.inf))
    lower = np.min(bounds, axis=0)
    return lower - STAIRCASE_ROUNDING_RTOL * (1.0 + np.abs(values).max(axis=1))


@dataclass
class _SlopeSearch:
    """``max_A μ(r_A) − ℓ(A) − constant`` by branch and bound over tangent slopes (module docstring)."""

    pricer: SlopePricer
    ell: FloatArray
    constant: float
    nodes: int = 0
    complete: bool = True

    def gains(self, masks: np.ndarray) -> FloatArray:
        return self.pricer.values(masks) - np.asarray(masks, dtype=np.float64) @ self.ell - self.constant

    def bounds(self, g1: FloatArray, g2: FloatArray) -> tuple[FloatArray, np.ndarray]:
        """Upper bounds on the gain over the tangents with slopes in ``[g1, g2]`` (one per interval) and
        the subsets met on the way (real subsets: candidates).

        Each input's term ``h_x(g) = k(g P0_x + m_g P1_x) − ℓ_x`` is bounded above through the tangents
        at the interval's ends (module docstring) and, being concave in ``g``, below by its values at the
        ends. Where at most ``_UNDECIDED`` inputs can change sign inside, the maximiser ``{h_x > 0}`` is
        one of the ``2^u`` subsets between the inputs surely in and those possibly in, and the gain of a
        subset bounds every tangent's (Fenchel), so the bound is the best of their exact gains.
        """
        pricer = self.pricer
        k, p0, p1, ell = pricer.k, pricer.p0, pricer.p1, self.ell
        t1, t2 = pricer.tangents(g1), pricer.tangents(g2)
        a, b = t1.touch[:, None], t2.touch[:, None]
        fa, fb = (t1.upper + g1 * t1.touch)[:, None], (t2.upper + g2 * t2.touch)[:, None]

        def envelope(u0: FloatArray, u1: FloatArray, exact: FloatArray) -> FloatArray:
            left = np.where(u0 <= a * u1, u1 * fa + g1[:, None] * (u0 - a * u1), np.inf)
            right = np.where(u0 >= b * u1, u1 * fb + g2[:, None] * (u0 - b * u1), np.inf)
            return np.minimum(np.minimum(left, right), exact)

        base = envelope(np.array([pricer.s0]), np.array([pricer.s1]), np.array([pricer.total_value]))[:, 0]
        above = k * envelope(p0[None, :], p1[None, :], pricer.item_values[None, :]) - ell
        below = (
            np.minimum(
                k * (g1[:, None] * p0 + t1.lower[:, None] * p1),
                k * (g2[:, None] * p0 + t2.lower[:, None] * p1),
            )
            - ell
        )
        margin = STAIRCASE_DECISION_RTOL * (np.abs(ell) + k * (np.abs(above) + np.abs(below) + p0 + p1))
        surely = below > margin
        possibly = above > -margin
        bound = base + np.maximum(above, 0.0).sum(axis=1) - self.constant
        found = [above > 0.0]
        undecided = possibly & ~surely
        counts = undecided.sum(axis=1)
        for i in np.flatnonzero(counts <= _UNDECIDED):
            free = np.flatnonzero(undecided[i])
            masks = np.repeat(surely[i][None, :], 2**free.size, axis=0)
            masks[:, free] = _SUBSETS[free.size]
            bound[i] = min(bound[i], float(self.gains(masks).max()))
            found.append(masks)
        return bound, np.vstack(found)

    def candidates(self, slopes: FloatArray) -> np.ndarray:
        """The subsets ``{x : k(g P0_x + m P1_x) > ℓ_x}`` for the tangent of each slope ``g``."""
        pricer = self.pricer
        tangents = pricer.tangents(slopes)
        return pricer.k * (slopes[:, None] * pricer.p0 + tangents.upper[:, None] * pricer.p1) > self.ell

    def run(self, tolerance: float, deadline: float | None, budget: int) -> tuple[float, np.ndarray]:
        """``(upper bound on the gain, best candidate subsets)``; the bound is valid when a budget stops it."""
        pricer = self.pricer
        edges = np.linspace(pricer.slope_low, pricer.slope_high, _SLOPE_GRID + 1)
        g1, g2 = edges[:-1], edges[1:]
        masks: list[np.ndarray] = []
        gains: list[FloatArray] = []
        incumbent, left = -np.inf, -np.inf
        while g1.size:
            self.nodes += g1.size
            bound, met = self.bounds(g1, g2)
            found = np.vstack([self.candidates(0.5 * (g1 + g2)), met])
            value = self.gains(found)
            masks.append(found)
            gains.append(value)
            incumbent = max(incumbent, float(value.max()))
            keep = bound > max(incumbent, 0.0) + tolerance
            if np.any(~keep):
                left = max(left, float(bound[~keep].max()))
            g1, g2 = g1[keep], g2[keep]
            out_of_time = deadline is not None and time.perf_counter() > deadline
            if g1.size and (self.nodes >= budget or out_of_time):
                left = max(left, float(bound[keep].max()))
                self.complete = False
                break
            middle = 0.5 * (g1 + g2)
            g1, g2 = np.concatenate([g1, middle]), np.concatenate([middle, g2])
        all_masks, all_gains = np.vstack(masks), np.concatenate(gains)
        order = np.argsort(-all_gains, kind="stable")[:_SLOPE_CANDIDATES]
        return max(incumbent, left), all_masks[order]


#: Inputs that may change sign within one slope interval for its bound to be the best of the ``2^u``
#: subsets between (exact); with more, the interval keeps the tangent bound and is split.
_UNDECIDED = 6

#: Every subset of ``u`` inputs, as boolean rows (``_SUBSETS[u]`` has ``2^u`` rows).
_SUBSETS = [
    ((np.arange(2**u)[:, None] >> np.arange(u)[None, :]) & 1).astype(bool) for u in range(_UNDECIDED + 1)
]

#: Subsets of one slope search kept as candidate columns (best gains first).
_SLOPE_CANDIDATES = 64


def staircase_pricer(utility: SubConvexUtility, cone: RowCone) -> KnapsackPricer | SlopePricer | Refusal:
    """The exact LDP pricer for ``(utility, cone)``, or why there is none."""
    factor = ldp_factor(cone)
    if isinstance(factor, Refusal):
        return factor
    entropy, perspective, power = utility.entropy_form(), utility.perspective_form(), utility.power_form()
    if entropy is not None:
        if entropy.p.size != cone.n_inputs:
            return Refusal(
                RefusalReason.UTILITY, "the utility's distribution does not match the cone's inputs"
            )
        return KnapsackPricer(EntropyProfile(factor, np.asarray(entropy.p, dtype=np.float64)), entropy.scale)
    if power is not None and perspective is None:
        if power.c.size != cone.n_inputs:
            return Refusal(RefusalReason.UTILITY, "the utility's weights do not match the cone's inputs")
        return KnapsackPricer(PowerProfile(factor, np.asarray(power.c, dtype=np.float64), power.alpha), 1.0)
    if perspective is not None:
        if perspective.a.size != cone.n_inputs:
            return Refusal(
                RefusalReason.UTILITY, "the utility's distributions do not match the cone's inputs"
            )
        return SlopePricer(factor, perspective)
    return Refusal(
        RefusalReason.UTILITY,
        "the staircase pricer takes an entropy, power or perspective form (MI, NMI, Sibson, f-divergences), "
        f"not {utility!r}",
    )


register_pricer(PricerEntry("staircase", 10, staircase_pricer, proved_by=("staircase", "envelope")))
