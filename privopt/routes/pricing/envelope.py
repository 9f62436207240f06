"""A certified bound on column generation's pricing problem over envelope cones, and its maximisers.

Column generation (:mod:`privopt.routes.colgen`) needs, for master duals ``λ``::

    δ(λ) = max { μ(w) − λᵀw : w ∈ K, pᵀw = 1 },

because then ``OPT <= 1ᵀλ + max(0, δ̄)`` for any ``δ̄ >= δ(λ)``: ``μ(w) − λᵀw <= δ̄ pᵀw`` on the cone
makes ``λ + δ̄⁺ p`` feasible for the dual of the vertex LP (Entropy paper Thm. 3's LP), whose value is
``1ᵀλ + δ̄⁺`` since ``Σp = 1``. For mutual information ``μ(w) = Σ_x p_x w_x log(w_x / pᵀw)``
(Entropy paper eq. 45); on ``pᵀw = 1`` it is separable and convex.

Structure (``K`` an envelope cone, :mod:`privopt.routes.pricing.structure`). Let ``s*`` minimise ``b_s`` and
scale ``w`` so that ``b_{s*} = 1`` (``b_s > 0`` on ``K \\ {0}``). With ``ρ = min_{s≠s*} b_s ∈ [1, F]``
the cone is the union over ``(s*, ρ)`` of products of block polytopes (Entropy paper Def. 3)::

    block s*: 1 <= b_{s*}, a_{s*} <= F ρ;     block s != s*: ρ <= b_s, a_s <= F,

(with self pairs: every block ``1 <= b_s, a_s <= F``, a single point). So
``δ = max_{s*, ρ} max_w R(w)`` with the ratio ``R(w) = (μ(w) − λᵀw)/pᵀw``, which is quasi-convex.

Bounds:

- **At a point** ``(s*, ρ)``: by ``−P log P <= r − P − P log r`` and a multiplier ``ν``,
  ``R <= min_ν ν − 1 − log(−Σ_s Φ_s(ν))`` with ``Φ_s(ν) = max_{vertices of block s} (A − νP)``
  (``A = Σ p w log w − λᵀw``, ``P = pᵀw``): each ``Φ_s`` is read off the upper hull of the block's
  vertices (:mod:`privopt.routes.pricing.blocks`). Its duality gap is closed by branching on one block's
  ``P_s`` (a multiple-choice knapsack), each node's maximisers being improved by block-wise ascent.
- **On an interval** ``ρ ∈ [ρ1, ρ2]``: a vertex type of a block (a subset, a fractional vertex) keeps
  its formula between *events* (``ρ`` where ``b_s = D`` starts or stops binding); there ``w`` is
  affine in ``ρ``, so a combination of such types has ``R(ρ) <= max(R(ρ1), R(ρ2))`` (quasi-convexity)
  ``<=`` the point bounds at the ends. Combinations with a type that changes inside are bounded by the
  Lagrangian with those types' values at the ends and events, and the interval is split at events.
  A second bound holds for the whole interval at once, by nesting: block ``s*``'s polytope
  ``{1 <= b, a <= Fρ}`` grows with ``ρ`` and the others' ``{ρ <= b, a <= F}`` shrink, so every
  product over ``[ρ1, ρ2]`` lies in the product of ``s*`` at ``ρ2`` with the others at ``ρ1``. That
  product's point bound (with its own branching) is the *nested* bound; the interval takes the
  smaller of the two. Its combinations need not lie in the cone, so it yields no columns. (Measured
  at the duals of a 300 s run of Adult marital-status × education at ε = 2: a complete pricing went
  from 1,567 interval nodes and 58.6 s to 181 nodes and 11.1 s, the same ``δ̄``.)

Branch and bound over ``(s*, [ρ1, ρ2])`` then gives ``δ̄``; the best combinations met are columns.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from privopt.compiler.cone import RowCone
from privopt.memory import current_limit
from privopt.routes.pricing.blocks import (
    MAX_BLOCK_INPUTS,
    BlockGeometry,
    BlockTable,
    BlockVertices,
    subset_sums,
    upper_hull,
    window_hull,
    xlogx,
)
from privopt.routes.pricing.contract import (
    CertifiedPricer,
    PricedColumn,
    PricerTraits,
    PricingOutcome,
    PricingRequest,
    Refusal,
    RefusalReason,
)
from privopt.routes.pricing.structure import EnvelopeCone, envelope_structure
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: Bytes of block vertex lists kept between uses within one pricing (recomputed when evicted), and at
#: most this share of the memory limit (privopt.memory).
CACHE_BYTES, CACHE_SHARE = 2**30, 0.25

#: The same for the vertex lists' geometry kept across pricings (the pricer's, whatever the duals; 3.5
#: MB a list at Adult's 16-input blocks: a pricing at ε = 2 meets about 900 lists, 3.3 GB).
GEOMETRY_BYTES, GEOMETRY_SHARE = 3 * 2**30, 0.25

#: The method string of certificates proved by :class:`EnvelopePricer`.
ENVELOPE_METHOD = "envelope pricing bound (Lagrangian point bounds, branch and bound over (s*, ρ))"

#: Absolute margin added to every certified ``δ̄`` for the rounding of the hull and of the ν search.
ROUNDING_MARGIN = 1e-10

#: Relative width of the ν-window in which a block's maximiser must not change for its Lagrangian
#: term to count as smooth (otherwise the point bound branches on that block's mass).
KINK_WINDOW = 1e-5

#: Multiplier-search iterations (bracketing, then guarded Newton steps; measured: 9.6 on average).
_SEARCH_STEPS = 200

#: Block-ascent sweeps at a point.
_ASCENT_SWEEPS = 30

#: Rounding slack of the ascent's pruning (:func:`_raising_masses`), relative to the terms compared:
#: the pruning only saves work, the same vertex is chosen.
ASCENT_SLACK = 1e-9

#: Point-bound nodes spent per visit of a point.
_POINT_NODES = 50

#: Intervals per ``s*`` the search starts from (geometric in ``ρ``).
ROOT_INTERVALS = 1

#: An interval with more events than this gets the cheap, fully decoupled bound (every block takes its
#: best vertex at either end or at any event of the whole range) instead of the exact-event one.
EVENT_LIMIT = 5000


@dataclass(frozen=True)
class SliceObjective:
    """``μ = scale · Σ_x p_x w_x log(w_x / pᵀw)``: mutual information (``scale = 1``) or NMI (``1/H(X)``)."""

    weights: FloatArray
    scale: float


def slice_objective(utility: SubConvexUtility) -> SliceObjective | Refusal:
    """The separable form of ``utility`` on ``pᵀw = 1`` (its :meth:`~privopt.utilities.SubConvexUtility.entropy_form`),
    or why it has none."""
    form = utility.entropy_form()
    if form is None:
        return Refusal(
            RefusalReason.UTILITY,
            f"the utility {utility!r} declares no entropy form (its μ is not separable on pᵀw = 1)",
        )
    return SliceObjective(form.p, form.scale)


@dataclass(frozen=True)
class SearchResult:
    """One search's outcome in the search's own units (mutual information's, before the objective's
    scale; its bound covers its stars' intervals, without the free inputs' rays), and the seconds spent
    on each star (the load of a split, :mod:`privopt.routes.pricing.workers`)."""

    outcome: PricingOutcome
    star_seconds: tuple[tuple[int, float], ...]


class SharedIncumbent(Protocol):
    """The best ratio met by any of the processes searching one pricing (their common incumbent)."""

    def exchange(self, local: float) -> float:
        """Publish ``local`` (a ratio this process has met) and return the best one any process has met."""
        ...


class StarSearch(Protocol):
    """Runs the search of :meth:`EnvelopePricer.price` for duals ``lam`` (its own units), within
    ``limits``, keeping ``max_columns`` columns: on several processes, split by ``s*``
    (:class:`~privopt.routes.pricing.workers.StarWorkers`)."""

    def __call__(self, lam: FloatArray, limits: SearchLimits, max_columns: int) -> SearchResult: ...


@dataclass(frozen=True)
class SearchLimits:
    """When a pricing search stops, in the search's own units (the arguments of
    :meth:`EnvelopePricer.price` divided by the objective's scale)."""

    tolerance: float
    target: float
    slack: float
    deadline: float | None
    max_nodes: int
    ceiling: float

    def closed(self, bound: float, found: float) -> bool:
        """Whether the bound left (``bound``) is close enough to the best ratio ``found``: at most the
        target, or within the tolerance and the slack of it."""
        return bound <= max(self.target, found + self.tolerance + self.slack * max(found, 0.0))

    def spent(self, nodes: int) -> bool:
        """Whether the node budget or the deadline is spent."""
        return nodes >= self.max_nodes or (self.deadline is not None and time.perf_counter() > self.deadline)


@dataclass(frozen=True)
class _Config:
    """The bounds ``(D, T)`` of one block as functions of ``ρ`` ("other" or "star" role)."""

    star: bool
    factor: float

    def bounds(self, rho: float | FloatArray) -> tuple[float | FloatArray, float | FloatArray]:
        if self.star:
            return 1.0, self.factor * rho
        return rho, self.factor


@dataclass(frozen=True, order=True)
class _PointNode:
    key: float
    order: int
    restrict: dict[int, tuple[float, float]] = field(compare=False)
    nu: float = field(compare=False)
    #: The blocks' upper hulls under ``restrict`` (kept for the node's branching), and their indices
    #: in the blocks' vertex lists.
    hulls: list[tuple[FloatArray, FloatArray]] = field(compare=False)
    indices: list[np.ndarray] = field(compare=False)


class EnvelopePricer:
    """Pricing bound and exact-block pricing for one envelope cone and one MI objective.

    Parameters
    ----------
    structure:
        The cone's envelope form (:func:`~privopt.routes.pricing.structure.envelope_structure`).
    objective:
        The utility's separable form (:func:`slice_objective`).
    """

    #: Its certificates' method and normalisation ``ν = p``; its rounds are costly (seconds at the Adult
    #: scale), so the local search prices first (not exact every round); one interval node per unit of
    #: ``ColumnGenerationOptions.bound_nodes``; the run closes to its whole ``gap_tolerance`` (the checker
    #: re-proves its bound to ~1e-12). The checker's time is twice the pricing's (the bound phase keeps
    #: it): with window hulls and ascent pruning the pricing got faster than the checker —
    #: occupation × education, ε = 2, 90 s against 47 s at a 540 s run's final duals (20 s against 40 s
    #: at another run's, 4.2 s against 5 s on marital-status × education); with the earlier 0.5 a run's
    #: best certificate once ran out of check time and was lost.
    traits = PricerTraits(
        ENVELOPE_METHOD, "prior", exact_every_round=False, nodes_per_unit=1, gap_share=1.0, check_ratio=2.0
    )

    def __init__(self, structure: EnvelopeCone, objective: SliceObjective) -> None:
        self.structure = structure
        self.objective = objective
        self.weights = objective.weights
        self.n_inputs = sum(block.size for block in structure.blocks) + structure.free.size
        self.tables = [
            BlockTable(lower, float(slack), objective.weights[inputs])
            for inputs, lower, slack in zip(structure.blocks, structure.lower, structure.slack, strict=True)
        ]
        factor = structure.factor
        self.configs = {False: _Config(False, factor), True: _Config(True, factor)}
        # Events: ρ where a subset vertex switches between b_s = D binding or not (y_H = D/β).
        self.events: dict[bool, list[tuple[FloatArray, np.ndarray, FloatArray]]] = {}
        for star in (False, True):
            rows = []
            for table in self.tables:
                y, c = table.y, table.slack
                with np.errstate(divide="ignore", invalid="ignore"):
                    rho = (c + y) / (factor * y) if star else factor * y / (c + y)
                rho = np.where(np.isfinite(rho), rho, np.inf)
                order = np.argsort(rho, kind="stable")
                rows.append((rho, order, rho[order]))
            self.events[star] = rows
        self._geometry: OrderedDict[tuple[int, bool, float], BlockGeometry] = OrderedDict()
        self._geometry_bytes = 0
        #: Whether :meth:`geometry` keeps what it builds after a pricing: set for a run's duration
        #: (certified column generation, a pricing worker process); a pricer outlives its run as long
        #: as its cone does, and should not hold gigabytes meanwhile.
        self.keep_geometry = False

    def __getstate__(self) -> dict[str, Any]:
        """Without the geometry kept (a worker process builds its own)."""
        state = self.__dict__.copy()
        state["_geometry"], state["_geometry_bytes"] = OrderedDict(), 0
        return state

    def forget_geometry(self) -> None:
        """Drop the geometry kept (:meth:`geometry`)."""
        self._geometry.clear()
        self._geometry_bytes = 0

    def geometry(self, s: int, star: bool, rho: float) -> BlockGeometry:
        """Block ``s``'s vertices at ``ρ`` (in the role of ``s*`` or not), kept across pricings while
        :attr:`keep_geometry` is set: a search meets the same ``ρ`` again (interval ends, events),
        whatever the duals. Measured at occupation × education, ε = 2: 80 % of the vertex lists of a
        pricing were the previous one's."""
        key = (s, star, rho)
        if key in self._geometry:
            self._geometry.move_to_end(key)
            return self._geometry[key]
        D, T = self.configs[star].bounds(rho)
        found = self.tables[s].geometry(float(D), float(T))
        self._geometry[key] = found
        self._geometry_bytes += found.nbytes
        while self._geometry_bytes > min(GEOMETRY_BYTES, GEOMETRY_SHARE * current_limit()) and self._geometry:
            _, old = self._geometry.popitem(last=False)
            self._geometry_bytes -= old.nbytes
        return found

    # ------------------------------------------------------------------ public
    def price(
        self, duals: FloatArray, request: PricingRequest, parallel: StarSearch | None = None
    ) -> PricingOutcome:
        """Bound ``δ(λ)`` from above to within ``tolerance`` of the best column found (or budget).

        ``target``: stop as soon as ``δ̄ <= target`` (a re-check of a claimed bound needs no more).
        ``slack``: stop once ``δ̄ <= (1 + slack)·δ_found + tolerance`` (the bound stays valid; a looser
        bound is enough while the columns found still improve the master a lot).
        ``ceiling``: stop as soon as a column of reduced cost ``>= ceiling`` is found (the caller only
        needs to know that ``δ`` is that large; the bound returned is still valid, and incomplete).
        ``parallel``: run the search on several processes (:mod:`privopt.routes.pricing.workers`).
        """
        tolerance = request.tolerance
        target = request.target
        slack = request.slack
        deadline = request.deadline
        max_nodes = 100_000 if request.max_nodes is None else request.max_nodes
        max_columns = request.max_columns
        ceiling = request.ceiling
        scale = self.objective.scale
        lam = np.asarray(duals, dtype=np.float64) / scale
        limits = SearchLimits(tolerance / scale, target / scale, slack, deadline, max_nodes, ceiling / scale)
        found = (
            search_stars(self, lam, limits, max_columns)
            if parallel is None
            else parallel(lam, limits, max_columns)
        ).outcome
        if not self.keep_geometry:
            self.forget_geometry()
        free_upper, free_columns = self._free(lam, max_columns)
        columns = sorted([*found.columns, *free_columns], key=lambda c: -c.ratio)[:max_columns]
        return replace(
            found,
            upper=scale * max(found.upper, free_upper) + ROUNDING_MARGIN,
            lower=scale * max([found.lower] + [c.ratio for c in free_columns]),
            columns=tuple(PricedColumn(c.column, scale * c.ratio) for c in columns),
            tolerance=tolerance,
        )

    def _free(self, lam: FloatArray, limit: int) -> tuple[float, list[PricedColumn]]:
        """The rays ``e_x`` of the free inputs (the cone is the blocks' cone times their orthant):
        ``R(e_x) = −log p_x − λ_x/p_x`` (MI units), the largest (``inf`` if an input of ``p_x = 0`` has
        ``λ_x < 0``: ``pᵀw = 0`` there) and the best ``limit`` columns."""
        free = self.structure.free
        p, dual = self.weights[free], lam[free]
        if np.any((p <= 0.0) & (dual < 0.0)):
            return np.inf, []
        inputs, p, dual = free[p > 0.0], p[p > 0.0], dual[p > 0.0]
        if not inputs.size:
            return -np.inf, []
        ratios = -np.log(p) - dual / p
        columns = []
        for k in np.argsort(-ratios, kind="stable")[:limit]:
            column = np.zeros(self.n_inputs)
            column[inputs[k]] = 1.0
            columns.append(PricedColumn(column, float(ratios[k])))
        return float(ratios.max()), columns

    def prior_free_duals(self) -> list[FloatArray]:
        """Duals whose certificate holds whatever the prior: none known on envelope cones."""
        return []

    @contextlib.contextmanager
    def session(self, workers: int) -> Iterator[CertifiedPricer]:
        """A run's pricings meet the same blocks again: their geometry is kept for the run and dropped
        after it. (Pricing on several processes is :class:`~privopt.routes.pricing.workers.SharedEnvelopePricer`'s.)"""
        self.keep_geometry = True
        try:
            yield self
        finally:
            self.keep_geometry = False
            self.forget_geometry()

    def column(self, star: int, rho: float, choice: list[tuple[int, int]]) -> FloatArray:
        """The column (``Σ w = 1``) made of one vertex per block at ``(s*, ρ)``."""
        w = np.zeros(self.n_inputs)
        for s, (subset, free) in enumerate(choice):
            D, T = self.configs[s == star].bounds(rho)
            w[self.structure.blocks[s]] = self.tables[s].point(float(D), float(T), subset, free)
        return w / w.sum()


def _ratio(value: FloatArray | float, mass: FloatArray | float) -> FloatArray:
    """``(A − P log P)/P``: the ratio ``R`` of a column with ``A = Σ p w log w − λᵀw``, ``P = pᵀw``."""
    mass = np.asarray(mass, dtype=np.float64)
    if mass.size and float(mass.min()) > 0.0:  # the usual case: one pass fewer, no masking
        return np.asarray(value) / mass - np.log(mass)
    safe = np.where(mass > 0.0, mass, 1.0)
    return np.where(mass > 0.0, (np.asarray(value) - mass * np.log(safe)) / safe, -np.inf)


def _raising_masses(
    mass: FloatArray, value: FloatArray, rest_mass: float, rest_value: float, best: float
) -> tuple[float, float] | None:
    """The block masses outside which no vertex of the block, joined to the rest of a column (mass
    ``rest_mass``, value ``rest_value``), has a ratio above ``best``; ``None`` if none has. ``(mass,
    value)`` is the block's upper hull, left to right.

    With ``M = rest_mass + m`` a vertex ``(m, v)`` has ratio ``(rest_value + v)/M − log M > best`` iff
    ``v > φ(m) = M(best + log M) − rest_value``, where ``φ`` is convex. Every vertex lies under the
    hull's chain ``H``, which is concave, so ``H − φ`` is concave and positive on one interval of
    masses, spanned by the hull segments on which it is positive somewhere (at an end, or where
    ``φ'`` equals the segment's slope).
    """
    if mass.size < 2 or rest_mass <= 0.0 or np.any(np.diff(mass) <= 0.0):
        return -np.inf, np.inf
    slope = np.diff(value) / np.diff(mass)
    left, right = mass[:-1], mass[1:]
    with np.errstate(over="ignore"):
        top = np.clip(np.exp(slope - best - 1.0) - rest_mass, left, right)

    def excess(m: FloatArray, chain: FloatArray) -> FloatArray:
        total = rest_mass + m
        return chain - total * (best + np.log(total)) + rest_value

    most = np.maximum(
        np.maximum(excess(left, value[:-1]), excess(right, value[1:])),
        excess(top, value[:-1] + slope * (top - left)),
    )
    alive = np.flatnonzero(most > -ASCENT_SLACK * (1.0 + abs(rest_value) + abs(best) * (rest_mass + right)))
    if alive.size == 0:
        return None
    return float(left[alive[0]]), float(right[alive[-1]])


#: ``ν ↦ (φ(ν), φ'(ν))``: a convex, non-increasing, piecewise-linear function and the slope of one of
#: its pieces active at ``ν`` (a subgradient).
Phi = Callable[[float], tuple[float, float]]


def _minimise_t(f: Phi, nu0: float, enough: float = -np.inf) -> tuple[float, float]:
    """``min_ν t(ν) = ν − 1 − log(−φ(ν))`` for ``f`` a :data:`Phi` (any ``ν`` gives a valid bound), or the
    first ``t`` met at most ``enough`` (the caller only needs to know that the minimum is that low).

    Where ``φ < 0``, ``t`` is convex (``−log`` of a positive concave function) with ``t' = 1 − φ'/φ``, so
    its minimiser is where ``g = φ − φ'`` changes sign (``g > 0``: ``t`` decreases). On the piece
    active at ``ν``, ``φ(ν') = φ(ν) + φ'(ν)(ν' − ν)`` and ``t`` is stationary at ``ν' = ν + 1 − φ/φ'``:
    Newton steps between pieces, which end exactly once the piece is the right one, guarded by a
    bracket on the sign of ``g`` (bisection when a step leaves it). Returns ``(t, ν)`` for the best ``ν``
    met, or ``(+inf, ν0)`` when ``φ`` does not become negative (no bound).
    """
    a, step = nu0, 1.0
    for _ in range(_SEARCH_STEPS):
        if f(a)[0] < 0.0:
            break
        a, step = a + step, 2.0 * step
    else:
        return np.inf, nu0
    best, best_nu = np.inf, nu0
    low, high, nu, step = -np.inf, np.inf, a, 1.0
    for _ in range(_SEARCH_STEPS):
        value, slope = f(nu)
        proposal = np.nan
        if value < 0.0:
            t = nu - 1.0 - float(np.log(-value))
            if t < best:
                best, best_nu = t, nu
            if t <= enough:
                break
            g = value - slope
            if abs(g) <= 1e-15 * (abs(value) + abs(slope)):
                break  # stationary: the exact minimiser
            if g > 0.0:
                low = nu
            else:
                high = nu
            if slope < 0.0:
                proposal = nu + 1.0 - value / slope
        else:  # t = +inf here: the domain, and the minimiser, lie to the right
            low = nu
        if not low < proposal < high:
            if np.isfinite(low) and np.isfinite(high):
                proposal = 0.5 * (low + high)
            elif np.isfinite(high):
                proposal, step = high - step, 2.0 * step
            else:
                proposal, step = low + step, 2.0 * step
        closed = np.isfinite(low) and np.isfinite(high) and high - low <= 1e-13 * (1.0 + abs(low))
        if closed or abs(proposal - nu) <= 1e-15 * (1.0 + abs(nu)):
            break
        nu = proposal
    return best, best_nu


def _segment_phi(mass: FloatArray, value: FloatArray, starts: np.ndarray) -> Phi:
    """``ν ↦ Σ_segments max_{i ∈ segment} (value_i − ν mass_i)`` (segments start at ``starts``) and its
    left derivative ``−Σ_segments max {mass_i : i maximises its segment}``."""
    return _largest_segment_phi([(mass, value, starts)])


def _largest_segment_phi(sides: list[tuple[FloatArray, FloatArray, np.ndarray]]) -> Phi:
    """``ν ↦`` the largest over ``sides`` of :func:`_segment_phi` (the first side on a tie), with that
    side's left derivative: every side's segments are scored in one pass (the pricing evaluates this
    function about a million times a run)."""
    mass = np.concatenate([side[0] for side in sides])
    value = np.concatenate([side[1] for side in sides])
    offsets = np.cumsum([0] + [side[0].size for side in sides])
    starts = np.concatenate([side[2] + offset for side, offset in zip(sides, offsets, strict=False)])
    sizes = np.diff(np.append(starts, mass.size))
    segment = np.repeat(np.arange(starts.size), sizes)  # each entry's segment
    first_segment = np.cumsum([0] + [side[2].size for side in sides])[:-1]  # each side's first segment

    def phi(nu: float) -> tuple[float, float]:
        scores = value - nu * mass
        best = np.maximum.reduceat(scores, starts)
        steepest = np.maximum.reduceat(np.where(scores >= best[segment], mass, -np.inf), starts)
        totals = np.add.reduceat(best, first_segment)
        side = int(np.argmax(totals))
        return float(totals[side]), -float(np.add.reduceat(steepest, first_segment)[side])

    return phi


def _minimise_hulls(hulls: list[tuple[FloatArray, FloatArray]]) -> tuple[float, float]:
    """:func:`_minimise_t` for ``φ(ν) = Σ_s max_i (value_i − ν mass_i)`` over the blocks' upper hulls
    (left to right), by its pieces: no search.

    On a hull the maximiser moves one vertex right each time ``ν`` falls below the slope of its next
    edge, so with the edges of every hull sorted by slope, ``φ(ν) = a_k − ν M_k`` on the ``k``-th piece
    between consecutive slopes (``a_k``, ``M_k``: cumulative sums of the edges' rises and runs).
    There ``t = ν − 1 − log(νM_k − a_k)`` is least at ``ν = 1 + a_k/M_k`` (``t = a_k/M_k − log M_k``,
    the ratio of the piece's maximisers), clipped to the piece; ``t`` is convex, so the least of the
    pieces' minima is its minimum. The bound returned is ``t`` at that ``ν`` with ``φ`` re-evaluated
    from the hulls (valid at any ``ν``); ``(+inf, 0)`` when ``φ`` is never negative.
    """
    mass, value, starts = _concat(hulls)
    last = np.append(starts[1:], mass.size) - 1
    edge = np.ones(mass.size - 1, dtype=bool)
    edge[last[:-1]] = False  # the step from one hull's last vertex to the next hull's first
    run, rise = np.diff(mass)[edge], np.diff(value)[edge]
    if np.any(run <= 0.0):  # not hulls left to right
        return _minimise_t(_segment_phi(mass, value, starts), 0.0)
    slope = rise / run
    order = np.argsort(-slope, kind="stable")
    slopes = slope[order]
    a = float(value[starts].sum()) + np.concatenate([[0.0], np.cumsum(rise[order])])
    m = float(mass[starts].sum()) + np.concatenate([[0.0], np.cumsum(run[order])])
    high = np.concatenate([[np.inf], slopes])
    low = np.concatenate([slopes, [-np.inf]])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        nu = np.clip(np.where(m > 0.0, 1.0 + a / m, low), low, high)
        gap = nu * m - a
        t = np.where(np.isfinite(nu) & (gap > 0.0), nu - 1.0 - np.log(np.where(gap > 0.0, gap, 1.0)), np.inf)
    k = int(np.argmin(t))
    if not np.isfinite(t[k]):
        return np.inf, 0.0
    best = float(nu[k])
    phi = float(np.sum(np.maximum.reduceat(value - best * mass, starts)))
    if phi >= 0.0:
        return np.inf, 0.0
    return best - 1.0 - float(np.log(-phi)), best


def _concat(parts: list[tuple[FloatArray, FloatArray]]) -> tuple[FloatArray, FloatArray, np.ndarray]:
    sizes = np.array([p[0].size for p in parts])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), starts


class _Point:
    """The pricing problem at one ``(s*, ρ)``: Lagrangian bound, branching on block masses, ascent.

    With ``outer > rho`` it is the *nested* relaxation of the interval ``[rho, outer]``: block ``s*``
    at ``outer``, the others at ``rho`` (module docstring). Its combinations need not lie in the
    cone, so it gives bounds only: no ascent, no incumbent, no columns.
    """

    def __init__(self, search: _Search, star: int, rho: float, outer: float | None = None) -> None:
        self.search, self.star, self.rho = search, star, rho
        self.outer = rho if outer is None else outer
        self.feasible = self.outer == rho
        self.heap: list[_PointNode] = []
        self.counter = itertools.count()
        self.nodes = 0
        self.lower = -np.inf
        self.closed = -np.inf  # largest bound of a node dropped without branching
        self.best: list[tuple[int, int]] | None = None
        self._push({})

    def entry(self, s: int) -> BlockVertices:
        """Block ``s``'s vertices here (block ``s*`` at ``outer``)."""
        return self.search.entry(s, s == self.star, self.outer if s == self.star else self.rho)

    def entries(self) -> list[BlockVertices]:
        return [self.entry(s) for s in range(self.search.n_blocks)]

    def _hull(self, s: int, window: tuple[float, float] | None) -> np.ndarray | None:
        """Indices of block ``s``'s upper hull over its vertices with mass in ``window`` (``None``:
        all), or ``None`` when no vertex lies there."""
        entry = self.entry(s)
        hull = entry.hull if window is None else window_hull(entry.mass, entry.value, entry.hull, *window)
        return hull if hull.size else None

    def _push(
        self,
        restrict: dict[int, tuple[float, float]],
        parent: _PointNode | None = None,
        changed: int = -1,
    ) -> None:
        """A node with the block masses ``restrict``; a child of ``parent`` differs from it on block
        ``changed`` only."""
        self.nodes += 1
        indices = []
        for s in range(self.search.n_blocks):
            hull = (
                parent.indices[s] if parent is not None and s != changed else self._hull(s, restrict.get(s))
            )
            if hull is None:
                return
            indices.append(hull)
        entries = self.entries()
        hulls = [(e.mass[i], e.value[i]) for e, i in zip(entries, indices, strict=True)]
        bound, nu = _minimise_hulls(hulls)
        if self.feasible:
            self._ascend(nu, entries, indices)
        heapq.heappush(self.heap, _PointNode(-bound, next(self.counter), restrict, nu, hulls, indices))

    def _ascend(self, nu: float, entries: list[BlockVertices], hulls: list[np.ndarray]) -> None:
        """Block-wise ascent from the Lagrangian maximisers (read off the node's hulls: a linear
        function's maximum over a block's window is at a vertex of its hull): each block in turn takes
        its best vertex."""
        choice = [
            int(hull[np.argmax(e.value[hull] - nu * e.mass[hull])])
            for e, hull in zip(entries, hulls, strict=True)
        ]
        masses = np.array([e.mass[c] for e, c in zip(entries, choice, strict=True)])
        values = np.array([e.value[c] for e, c in zip(entries, choice, strict=True)])
        best = float(_ratio(values.sum(), masses.sum()))
        for _ in range(_ASCENT_SWEEPS):
            improved = False
            for s, entry in enumerate(entries):
                rest_m, rest_v = masses.sum() - masses[s], values.sum() - values[s]
                window = _raising_masses(
                    entry.mass[entry.hull], entry.value[entry.hull], rest_m, rest_v, best
                )
                if window is None:
                    continue
                start = int(np.searchsorted(entry.mass, window[0], "left"))
                stop = int(np.searchsorted(entry.mass, window[1], "right"))
                ratios = _ratio(rest_v + entry.value[start:stop], rest_m + entry.mass[start:stop])
                k = int(np.argmax(ratios))
                if ratios[k] > best + 1e-15 * (1.0 + abs(best)):
                    j = start + k
                    best, choice[s], masses[s], values[s] = float(ratios[k]), j, entry.mass[j], entry.value[j]
                    improved = True
            if not improved:
                break
        if best > self.lower:
            self.lower = best
            self.best = [(int(e.subset[c]), int(e.free[c])) for e, c in zip(entries, choice, strict=True)]

    @property
    def upper(self) -> float:
        top = -self.heap[0].key if self.heap else -np.inf
        return max(top, self.closed, self.lower)

    def refine(self, target: float, budget: int, deadline: float | None) -> float:
        """Branch until the bound is at most ``target`` (or the budget runs out); returns the bound."""
        spent = 0
        while self.heap and -self.heap[0].key > max(target, self.lower) and spent < budget:
            if deadline is not None and time.perf_counter() > deadline:
                break
            node = heapq.heappop(self.heap)
            spent += 1
            hulls = node.hulls
            eta = KINK_WINDOW * (1.0 + abs(node.nu))
            jump, block, split = 0.0, -1, 0.0
            for s, (mass, value) in enumerate(hulls):
                if mass.size < 2:
                    continue
                left = int(np.argmax(value - (node.nu + eta) * mass))
                right = int(np.argmax(value - (node.nu - eta) * mass))
                if mass[right] - mass[left] > jump:
                    jump, block, split = mass[right] - mass[left], s, 0.5 * (mass[right] + mass[left])
            if block < 0:  # smooth at ν: the bound is (to rounding) the value of its maximisers
                self.closed = max(self.closed, -node.key)
                continue
            low, high = node.restrict.get(block, (-np.inf, np.inf))
            for part in ((low, split), (split, high)):
                self._push({**node.restrict, block: part}, node, block)
        return self.upper


def search_stars(
    pricer: EnvelopePricer,
    lam: FloatArray,
    limits: SearchLimits,
    max_columns: int,
    stars: Sequence[int] | None = None,
    shared: SharedIncumbent | None = None,
) -> SearchResult:
    """The branch and bound of one pricing over the intervals of ``stars`` (``None``: every ``s*``),
    pruning against ``shared`` too when given; its caches are dropped before it returns."""
    search = _Search(pricer, lam, shared)
    try:
        upper, lower, nodes, point_nodes, complete, seconds = search.run(limits, stars)
        columns = search.columns(max_columns)
        found = PricingOutcome(
            upper, lower, tuple(columns), nodes, point_nodes, complete, limits.tolerance, seconds
        )
        return SearchResult(found, tuple(sorted(search.star_seconds.items())))
    finally:
        search.release()


def distinct_columns(columns: Iterable[PricedColumn], limit: int) -> list[PricedColumn]:
    """The first ``limit`` columns of ``columns`` that differ from every one kept before them."""
    out: list[PricedColumn] = []
    for candidate in columns:
        if any(np.max(np.abs(candidate.column - c.column)) < 1e-12 for c in out):
            continue
        out.append(candidate)
        if len(out) >= limit:
            break
    return out


class _Search:
    """One call of :meth:`EnvelopePricer.price` (or one process's share of it): caches for one dual
    vector; with ``shared``, the incumbent is the best ratio any of the processes has met."""

    def __init__(
        self, pricer: EnvelopePricer, duals: FloatArray, shared: SharedIncumbent | None = None
    ) -> None:
        self.pricer = pricer
        self.shared = shared
        self.star_seconds: dict[int, float] = {}
        self.n_blocks = len(pricer.tables)
        self.duals = [duals[inputs] for inputs in pricer.structure.blocks]
        self.dual_sums = [subset_sums(d) for d in self.duals]
        self.cache: OrderedDict[tuple[int, bool, float], BlockVertices] = OrderedDict()
        self.cache_bytes = 0
        self.points: dict[tuple[int, float, float], _Point] = {}
        self.event_hulls: dict[tuple[int, bool], tuple[FloatArray, FloatArray]] = {}

    def event_hull(self, s: int, star: bool) -> tuple[FloatArray, FloatArray]:
        """Upper hull of block ``s``'s vertices at all its events in ``[1, F]`` (each subset's switch)."""
        key = (s, star)
        if key not in self.event_hulls:
            rho, _, _ = self.pricer.events[star][s]
            structure = self.pricer.structure
            inside = np.flatnonzero((rho >= structure.rho_low) & (rho <= structure.factor))
            mass, value = self._event_vertices(s, star, inside, rho[inside])
            hull = upper_hull(mass, value)
            self.event_hulls[key] = (mass[hull], value[hull])
        return self.event_hulls[key]

    def _event_vertices(
        self, s: int, star: bool, subsets: np.ndarray, rho: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """Subset vertices at their own events: ``lo = 0``, ``hi = β`` (both formulas agree there)."""
        table = self.pricer.tables[s]
        D, T = self.pricer.configs[star].bounds(rho)
        beta = (np.asarray(T) - np.asarray(D)) / table.slack
        return table.p[subsets] * beta, table.p[subsets] * xlogx(beta) - self.dual_sums[s][subsets] * beta

    def entry(self, s: int, star: bool, rho: float) -> BlockVertices:
        key = (s, star, rho)
        if key in self.cache:
            self.cache.move_to_end(key)
            return self.cache[key]
        entry = self.pricer.geometry(s, star, rho).terms(self.duals[s], self.dual_sums[s])
        self.cache[key] = entry
        self.cache_bytes += entry.nbytes
        while self.cache_bytes > min(CACHE_BYTES, CACHE_SHARE * current_limit()) and len(self.cache) > 1:
            _, old = self.cache.popitem(last=False)
            self.cache_bytes -= old.nbytes
        return entry

    def release(self) -> None:
        """Drop the caches now: the points refer back to this search, and a reference cycle holding a
        gigabyte of vertex lists would wait for the cyclic garbage collector (measured: 7.8 GiB peak)."""
        self.cache.clear()
        self.cache_bytes = 0
        self.points.clear()
        self.event_hulls.clear()

    def point(self, star: int, rho: float, outer: float | None = None) -> _Point:
        """The point ``(s*, ρ)``, or the nested relaxation of ``[ρ, outer]``."""
        key = (star, rho, rho if outer is None else outer)
        if key not in self.points:
            self.points[key] = _Point(self, star, rho, outer)
        return self.points[key]

    def incumbent(self) -> float:
        """The best ratio met (by a column of the cone): the search prunes what cannot beat it."""
        local = max((p.lower for p in self.points.values()), default=-np.inf)
        return local if self.shared is None else self.shared.exchange(local)

    # ------------------------------------------------------------------ intervals
    def _unstable(
        self, star: int, r1: float, r2: float, tolerance: float
    ) -> tuple[float, list[FloatArray], int]:
        """Bound on combinations with a block type that changes inside ``(r1, r2)``; events; worst block."""
        parts: list[
            tuple[
                tuple[FloatArray, FloatArray],
                tuple[FloatArray, FloatArray],
                tuple[FloatArray, FloatArray] | None,
            ]
        ] = []
        events: list[FloatArray] = []
        insides = []
        for s in range(self.n_blocks):
            rho_all, order, rho_sorted = self.pricer.events[s == star][s]
            inside = order[np.searchsorted(rho_sorted, r1, "right") : np.searchsorted(rho_sorted, r2, "left")]
            insides.append(inside)
            events.append(rho_all[inside])
        decoupled = sum(inside.size for inside in insides) > EVENT_LIMIT
        for s, inside in enumerate(insides):
            is_star = s == star
            e1, e2 = self.entry(s, is_star, r1), self.entry(s, is_star, r2)
            ends = ((e1.mass[e1.hull], e1.value[e1.hull]), (e2.mass[e2.hull], e2.value[e2.hull]))
            if inside.size == 0:
                parts.append((*ends, None))
                continue
            if decoupled:  # every type of the block at either end or at any event of [1, F]
                mass = np.concatenate([ends[0][0], ends[1][0], self.event_hull(s, is_star)[0]])
                value = np.concatenate([ends[0][1], ends[1][1], self.event_hull(s, is_star)[1]])
                hull = upper_hull(mass, value)
                parts.append((*ends, (mass[hull], value[hull])))
                continue
            table = self.pricer.tables[s]
            at = events[s]
            event_mass, event_value = self._event_vertices(s, is_star, inside, at)
            masses = [event_mass]
            values = [event_value]
            flagged = np.zeros(table.y.size, dtype=bool)
            flagged[inside] = True
            for entry in (e1, e2):
                grown = np.where(
                    entry.free >= 0, entry.subset | (1 << np.maximum(entry.free, 0)), entry.subset
                )
                changing = flagged[entry.subset] | flagged[grown]
                masses.append(entry.mass[changing])
                values.append(entry.value[changing])
            mass, value = np.concatenate(masses), np.concatenate(values)
            hull = upper_hull(mass, value)
            parts.append((*ends, (mass[hull], value[hull])))
        if all(j is None for _, _, j in parts):
            return -np.inf, events, -1

        def phi_for(only: int) -> Phi:
            sides = []
            for side in (0, 1):
                segments = []
                for s, (h1, h2, j) in enumerate(parts):
                    end = (h1, h2)[side]
                    if s == only:
                        assert j is not None
                        segments.append(j)
                    elif j is None:
                        segments.append(end)
                    else:
                        segments.append((np.concatenate([end[0], j[0]]), np.concatenate([end[1], j[1]])))
                sides.append(_concat(segments))
            return _largest_segment_phi(sides)

        bound, nu = _minimise_t(phi_for(-1), 0.0)
        if decoupled or bound <= self.incumbent() + tolerance:
            return bound, events, int(np.argmax([e.size for e in events]))
        largest, block = float("-inf"), -1
        for s, (_, _, j) in enumerate(parts):
            if j is None:
                continue
            # Once t falls to the largest so far, this block cannot raise the maximum: stop there.
            candidate, _ = _minimise_t(phi_for(s), nu, largest)
            if candidate > largest:
                largest, block = candidate, s
        return largest, events, block

    def _evaluate(
        self, star: int, r1: float, r2: float, tolerance: float, deadline: float | None
    ) -> tuple[float, float, list[FloatArray], int]:
        """``(bound, interior part, events, worst block)`` of the interval node ``(s*, [r1, r2])``.

        The bound is ``min(max(ends, unstable), nested)``: the end points' bounds with the combinations
        that change inside, or the nested relaxation of the whole interval (module docstring); the
        interior part, ``min(unstable, nested)``, is below the bound when only the ends keep it up.
        """
        target = self.incumbent() + tolerance
        ends = max(
            self.point(star, r).refine(target, _POINT_NODES, deadline)
            for r in ((r1, r2) if r2 > r1 else (r1,))
        )
        if r2 <= r1:
            return ends, -np.inf, [], -1
        nested = self.point(star, r1, r2).refine(target, _POINT_NODES, deadline)
        if nested <= target:
            return nested, nested, [], -1
        unstable, events, block = self._unstable(star, r1, r2, tolerance)
        return min(max(ends, unstable), nested), min(unstable, nested), events, block

    def _charge(self, star: int, since: float) -> float:
        """Adds the time since ``since`` to ``star``'s seconds; returns the time now."""
        now = time.perf_counter()
        self.star_seconds[star] = self.star_seconds.get(star, 0.0) + now - since
        return now

    def run(
        self, limits: SearchLimits, stars: Sequence[int] | None = None
    ) -> tuple[float, float, int, int, bool, float]:
        """Best-first branch and bound over the intervals ``(s*, [ρ1, ρ2])`` of ``stars`` (``None``:
        every ``s*``): ``(upper, incumbent, interval nodes, point nodes, complete, seconds)``."""
        start = time.perf_counter()
        tolerance, deadline = limits.tolerance, limits.deadline
        structure = self.pricer.structure
        nodes, counter = 0, itertools.count()
        heap: list[tuple[float, int, int, float, float]] = []
        dropped = -np.inf
        if structure.self_pairs:
            roots = [(-1, 1.0, 1.0)]  # every block at D = 1, T = F: one point
        else:  # a grid of ρ per s*: its points give columns all along [ρ_low, F] from the first round
            low = structure.rho_low
            grid = low * (structure.factor / low) ** np.linspace(0.0, 1.0, ROOT_INTERVALS + 1)
            grid[0], grid[-1] = low, structure.factor
            chosen = structure.stars if stars is None else stars
            roots = [(s, float(a), float(b)) for s in chosen for a, b in itertools.pairwise(grid)]
        since = start
        for star, r1, r2 in roots:
            bound, *_ = self._evaluate(star, r1, r2, tolerance, deadline)
            nodes += 1
            heapq.heappush(heap, (-bound, next(counter), star, r1, r2))
            since = self._charge(star, since)
        busy = -2  # the star of the node being worked on (-2: none yet)

        def stop() -> bool:
            return limits.closed(-heap[0][0], self.incumbent())

        while heap and not stop() and self.incumbent() < limits.ceiling:
            if busy > -2:
                since = self._charge(busy, since)
            if limits.spent(nodes):
                break
            neg, _, star, r1, r2 = heapq.heappop(heap)
            busy = star
            bound, interior, events, block = self._evaluate(star, r1, r2, tolerance, deadline)
            nodes += 1
            bound = min(bound, -neg)
            if bound <= self.incumbent() + tolerance:
                dropped = max(dropped, bound)
                continue
            if r2 <= r1 or interior < bound:
                # The end points' bounds are what is left: refine them further (more branching).
                for r in (r1, r2):
                    self.point(star, r).refine(self.incumbent() + tolerance, 10 * _POINT_NODES, deadline)
                again, *_ = self._evaluate(star, r1, r2, tolerance, deadline)
                heapq.heappush(heap, (-min(bound, again), next(counter), star, r1, r2))
                continue
            mid = float(np.median(events[block])) if block >= 0 and events[block].size else 0.5 * (r1 + r2)
            if not r1 < mid < r2:
                mid = 0.5 * (r1 + r2)
            for a, b in ((r1, mid), (mid, r2)):
                child, *_ = self._evaluate(star, a, b, tolerance, deadline)
                nodes += 1
                child = min(child, bound)
                if child <= self.incumbent() + tolerance:
                    dropped = max(dropped, child)
                else:
                    heapq.heappush(heap, (-child, next(counter), star, a, b))
        if busy > -2:
            self._charge(busy, since)
        incumbent = self.incumbent()
        complete = not heap or stop()
        upper = max(-heap[0][0] if heap else -np.inf, dropped, incumbent)
        point_nodes = sum(p.nodes for p in self.points.values())
        return upper, incumbent, nodes, point_nodes, complete, time.perf_counter() - start

    def columns(self, limit: int) -> list[PricedColumn]:
        """The best distinct combinations met, best first (the columns column generation adds)."""
        found = sorted((p for p in self.points.values() if p.best is not None), key=lambda p: -p.lower)
        candidates = (
            PricedColumn(self.pricer.column(p.star, p.rho, p.best), float(p.lower))
            for p in found
            if p.best is not None
        )
        return distinct_columns(candidates, limit)


def envelope_pricer(utility: SubConvexUtility, cone: RowCone) -> EnvelopePricer | Refusal:
    """The envelope pricer for ``(utility, cone)``, or why there is none (kept in solutions).

    Built once per pair while both live: planning, the vertex route (its block-vertex products) and
    column generation all ask for it."""
    key = id(utility)
    cached = _ENVELOPE_PRICERS.setdefault(cone, {})
    if key not in cached or cached[key][0] is not utility:
        found = envelope_parts(utility, cone)
        cached[key] = (utility, found if isinstance(found, Refusal) else EnvelopePricer(*found))
    return cached[key][1]


def envelope_parts(utility: SubConvexUtility, cone: RowCone) -> tuple[EnvelopeCone, SliceObjective] | Refusal:
    """The cone's envelope structure and the utility's separable form, when the envelope pricer's bound
    holds for them (or why not)."""
    structure = envelope_structure(cone)
    if isinstance(structure, Refusal):
        return Refusal(RefusalReason.CONE, f"no certified pricing bound for this cone: {structure.message}")
    objective = slice_objective(utility)
    if isinstance(objective, Refusal):
        return Refusal(RefusalReason.UTILITY, f"no certified pricing bound: {objective.message}")
    if objective.weights.size != cone.n_inputs:
        return Refusal(
            RefusalReason.UTILITY,
            "no certified pricing bound: the utility's distribution does not match the cone's inputs",
        )
    if not _positive_mass(structure, objective.weights):
        return Refusal(
            RefusalReason.NUMERICS, "no certified pricing bound: the cone has non-zero columns with pᵀw = 0"
        )
    largest = max(block.size for block in structure.blocks)
    if largest > MAX_BLOCK_INPUTS:
        return Refusal(
            RefusalReason.SIZE,
            f"no certified pricing bound: a block has {largest} inputs (limit {MAX_BLOCK_INPUTS})",
        )
    return structure, objective


def _positive_mass(structure: EnvelopeCone, weights: FloatArray) -> bool:
    """Whether ``pᵀw > 0`` on the whole cone but 0, which the bound ``OPT <= Σλ + δ̄⁺`` needs.

    Every block of a non-zero column has ``b_s > 0``. A block with some ``p > 0`` input and ``L = 0``
    wherever ``p = 0`` then has ``p_sᵀw_s > 0``: if ``w_s`` lived on ``{p = 0}``, ``min_u w_u = 0`` and
    ``b_s = L_sᵀw_s = 0``. (For mutual information at the centre of a Rényi ball this always holds.)
    """
    for inputs, lower in zip(structure.blocks, structure.lower, strict=True):
        p = weights[inputs]
        if np.any(p > 0.0) and np.all(lower[p <= 0.0] <= 0.0):
            return True
    return False


#: Envelope pricers already built, per cone (weakly: a cone's entry goes with it) and utility.
_ENVELOPE_PRICERS: weakref.WeakKeyDictionary[
    RowCone, dict[int, tuple[SubConvexUtility, EnvelopePricer | Refusal]]
] = weakref.WeakKeyDictionary()
