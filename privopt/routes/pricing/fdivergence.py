"""Exact pricing of an f-divergence on any cone: the upper hull of a two-dimensional projection.

``μ(w) = P1ᵀw · f(P0ᵀw / P1ᵀw)`` depends on ``w`` only through ``a = P0ᵀw`` and ``b = P1ᵀw``. On the slice
``S = {w ∈ K : νᵀw = 1}`` with ``ν = (P0 + P1)/2`` (positive: one prior or the other gives every input
mass),
``b = 2 − a``, so ``μ = φ(a) = (2 − a) f(a/(2 − a))``, convex in ``a``, and the reduced cost is

    max_{w ∈ S} μ(w) − λᵀw = max_a φ(a) + V(a),   V(a) = max {−λᵀw : w ∈ S, P0ᵀw = a},

with ``V`` concave and piecewise linear: the upper hull of the points ``(P0ᵀv, −λᵀv)`` over the
vertices ``v`` of ``S``. On each edge of the hull ``φ + V`` is convex, so the maximum is at a hull vertex.

Every LP ``g(θ) = max_{w ∈ S} (−λ − θP0)ᵀw`` gives a line ``V(a) <= ĝ(θ) + θa`` valid for every ``a``,
with ``ĝ`` the LP's dual bound (:meth:`~privopt.routes.pricing.slice_lp.SliceLP.maximise_bounded`), and
``a`` lies in ``[â_min, â_max]`` (two more bounded LPs). So for any set of slopes, ``max φ + min_θ(ĝ(θ) +
θa)`` over that interval — attained at the interval's ends or where two lines cross, since between
breakpoints ``φ`` plus a line is convex — bounds the reduced cost from above. The slopes are chosen by
the dichotomic (Eisner–Severance) search: start from the two ends of the hull (``θ = ±T``, grown
until the maximiser reaches ``â_min`` and ``â_max``), and for
two consecutive points found, take the slope of the segment between them; either the LP finds a
point above the segment (recurse on both halves) or the segment is an edge of the hull and its line
is tight. At the end the lines are the hull's edges, and the bound is ``max φ + V`` itself, up to the
LPs' duals (docs/compiler.md, "f-divergences on any cone").
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import time
from collections.abc import Callable
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
from privopt.routes.pricing.slice_lp import ConeRepair, SliceLP
from privopt.tolerances import DUAL_BOUND_RTOL, HULL_RTOL
from privopt.utilities import PerspectiveForm, SubConvexUtility
from privopt.validation import FloatArray

#: Largest number of LPs one pricing solves (the hull's vertices, twice, plus the ends).
MAX_LPS = 400

#: LPs one unit of ``ColumnGenerationOptions.bound_nodes`` buys in certified column generation.
HULL_LPS_PER_UNIT = 10

#: How certified column generation's hull pricer proves ``δ̄`` (kept in certificates).
HULL_METHOD = "f-divergence hull: the upper hull of (P0ᵀw, −λᵀw), its lines bounded by LP duals"


#: The first slopes ``±T`` that look for the ends of the hull, as multiples of ``1 + max|λ|/min ν``;
#: each try multiplies them by ``END_GROWTH``, at most ``END_STEPS`` times.
END_SLOPE = 4.0
END_GROWTH = 8.0
END_STEPS = 8


def fdivergence_weights(form: PerspectiveForm) -> FloatArray | None:
    """``ν = (P0 + P1)/2`` when it is positive on every input (``None`` otherwise: an input of both
    priors' mass 0 leaves the slice unbounded along it)."""
    weights = 0.5 * (np.asarray(form.a, dtype=np.float64) + np.asarray(form.b, dtype=np.float64))
    return weights if np.all(weights > 0.0) else None


class FDivergencePricer:
    """Exact pricing of an f-divergence (its perspective ``form``, with positive priors) over ``cone``
    (module docstring)."""

    #: The slice's normalisation ``ν = (P0 + P1)/2``; its name and what :attr:`work` counts, in reports.
    normalisation = "mixture"
    name = "f-divergence hull"
    unit = "LPs"

    def __init__(self, cone: RowCone, form: PerspectiveForm, weights: FloatArray) -> None:
        self.form = form
        self.p0 = np.asarray(form.a, dtype=np.float64)
        self._weights = weights
        self.lp = SliceLP(cone, weights)
        self.repair = ConeRepair(cone)
        self.lps = 0

    @property
    def weights(self) -> FloatArray:
        """``ν = (P0 + P1)/2``."""
        return self._weights

    @property
    def work(self) -> int:
        """LPs the last pricing solved."""
        return self.lps

    def _phi(self, a: FloatArray) -> FloatArray:
        a = np.clip(np.asarray(a, dtype=np.float64), 0.0, 2.0)
        return np.asarray(self.form.perspective(a, 2.0 - a), dtype=np.float64)

    def _solve(self, c: FloatArray) -> tuple[FloatArray, float]:
        """The maximiser (on ``νᵀv = 1``) and the dual bound of ``max cᵀv`` over the slice."""
        self.lps += 1
        v, bound = self.lp.maximise_bounded(c)
        return v / float(self._weights @ v), bound

    def search(
        self,
        duals: FloatArray,
        max_lps: int = MAX_LPS,
        closed: Callable[[float, float], bool] | None = None,
        deadline: float | None = None,
    ) -> tuple[float, list[PricedColumn], bool]:
        """``(δ̄, vertices, complete)``: a proved upper bound on ``max μ(w) − λᵀw`` over ``{w ∈ K, νᵀw =
        1}``, the hull vertices found (``Σ w = 1``, with their reduced cost on ``νᵀw = 1``, best first)
        and whether the search closed (``False``: stopped at ``max_lps`` or ``deadline``; ``δ̄`` is still
        proved).

        The segments between the hull points found are refined best first, by the bound each allows:
        ``φ`` plus the smaller of its two end points' lines, at its ends and where the lines cross
        (:func:`_segment_bound`). With ``closed`` (a test ``closed(bound, best found)``, e.g.
        :meth:`~privopt.routes.pricing.contract.PricingRequest.closed`) the search stops once the largest
        bound left passes it, and a segment whose bound passes it is not refined; without, every hull
        vertex is found. ``δ̄`` is always the bound of every line met (:meth:`_bound`)."""
        lam = np.asarray(duals, dtype=np.float64)
        self.lps = 0
        # The range of P0ᵀw on the slice: proved by the LPs' duals (the bound's domain), and reached by
        # their maximisers (where the ends' search stops: a proved end lies up to the duals' margin
        # beyond any point, and steepening the slope towards it only grows the end line's margin).
        top, a_high = self._solve(self.p0)
        bottom, a_low = self._solve(-self.p0)
        a_low = -a_low
        reached_high, reached_low = float(self.p0 @ top), float(self.p0 @ bottom)
        lines: list[tuple[float, float]] = []  # (θ, ĝ(θ)): V(a) <= ĝ + θa for every a
        points: list[tuple[float, float, FloatArray]] = []  # (a, V(a), the vertex)

        def probe(theta: float) -> _HullPoint:
            v, bound = self._solve(-lam - theta * self.p0)
            lines.append((theta, bound))
            points.append((float(self.p0 @ v), float(-lam @ v), v))
            return _HullPoint(points[-1][0], points[-1][1], theta, bound)

        left, right = self._end(probe, reached_low, 1.0, lam), self._end(probe, reached_high, -1.0, lam)
        found = float(np.max(self._phi(np.array([left.a, right.a])) + np.array([left.v, right.v])))
        # Bounds no segment refines: the ends' regions beyond the points found, and the segments passed.
        settled = max(self._end_bound(left, a_low), self._end_bound(right, a_high))
        heap: list[tuple[float, int, _HullPoint, _HullPoint]] = []
        order = itertools.count()

        def push(first: _HullPoint, second: _HullPoint) -> None:
            nonlocal settled
            bound = self._segment_bound(first, second)
            if closed is not None and closed(bound, found):
                settled = max(settled, bound)
            else:
                heapq.heappush(heap, (-bound, next(order), first, second))

        if right.a > left.a:
            push(left, right)
        while heap and self.lps < max_lps and (deadline is None or time.perf_counter() < deadline):
            if closed is not None and closed(max(-heap[0][0], settled), found):
                break
            _, _, first, second = heapq.heappop(heap)
            theta = (second.v - first.v) / (second.a - first.a)
            middle = probe(theta)
            found = max(found, float(self._phi(np.array([middle.a]))[0]) + middle.v)
            tolerance = HULL_RTOL * (
                1.0 + abs(first.v) + abs(second.v) + abs(theta) * (abs(first.a) + abs(second.a))
            )
            if (middle.v - theta * middle.a) - (first.v - theta * first.a) > tolerance and (
                first.a < middle.a < second.a
            ):
                push(first, middle)
                push(middle, second)
        complete = not heap or (closed is not None and closed(max(-heap[0][0], settled), found))
        delta = self._bound(lines, a_low, a_high)
        values = self._phi(np.array([a for a, _, _ in points])) + np.array([value for _, value, _ in points])
        columns = [
            PricedColumn(points[k][2] / points[k][2].sum(), float(values[k]))
            for k in np.argsort(-values, kind="stable")
        ]
        return delta, columns, complete

    def price(self, duals: FloatArray, limit: int, threshold: float) -> tuple[float, list[FloatArray]]:
        """``(δ̄, columns)`` for the vertex route: :meth:`search`'s bound, and up to ``limit`` of its
        vertices (moved into the cone) of reduced cost above ``threshold``."""
        delta, found, _ = self.search(duals)
        kept = self.repair_priced([column for column in found if column.ratio > threshold][: 4 * limit])
        return delta, [column.column for column in kept[:limit]]

    def repair_priced(self, found: list[PricedColumn]) -> list[PricedColumn]:
        """``found`` with each column moved into the cone (:class:`ConeRepair`; those it drops go)."""
        if not found:
            return []
        kept = self.repair.kept(np.column_stack([column.column for column in found]))
        return [PricedColumn(column, found[j].ratio) for j, column in kept]

    def _end(
        self, probe: Callable[[float], _HullPoint], end: float, side: float, lam: FloatArray
    ) -> _HullPoint:
        """The hull's end at ``a = end`` (``side`` +1: the left end, −1: the right one): slopes ``±T``
        grown by :data:`END_GROWTH` until the maximiser reaches ``end`` (or :data:`END_STEPS` tries;
        the lines stay valid, only the bound near that end is looser)."""
        theta = side * END_SLOPE * (1.0 + float(np.abs(lam).max()) / float(self._weights.min()))
        for _ in range(END_STEPS):
            point = probe(theta)
            if abs(point.a - end) <= HULL_RTOL * (1.0 + abs(end)):
                break
            theta *= END_GROWTH
        return point

    def _end_bound(self, point: _HullPoint, end: float) -> float:
        """``max φ + ℓ`` between an end point found and the end ``â`` of the range, ``ℓ`` its line (``φ``
        plus a line is convex: at the two ends)."""
        a = np.array([point.a, end])
        return float(np.max(self._phi(a) + point.line(a)))

    def _segment_bound(self, first: _HullPoint, second: _HullPoint) -> float:
        """A bound on ``φ + V`` over the segment between two hull points: ``V`` lies below both points'
        lines, so ``φ + min(ℓ1, ℓ2)`` — convex on each side of the lines' crossing — is largest at the
        segment's ends or at the crossing."""
        a = [first.a, second.a]
        if first.theta > second.theta:
            crossing = (second.bound - first.bound) / (first.theta - second.theta)
            a.append(min(max(crossing, first.a), second.a))
        at = np.array(a)
        return float(np.max(self._phi(at) + np.minimum(first.line(at), second.line(at))))

    def _bound(self, lines: list[tuple[float, float]], low: float, high: float) -> float:
        """``max φ(a) + min_θ (ĝ(θ) + θa)`` over ``[low, high]``: at the ends and at the breakpoints of the
        lines' lower envelope (between those points ``φ`` plus one line is convex), the envelope taken
        over every line there, plus a rounding margin."""
        theta = np.array([line[0] for line in lines])
        intercept = np.array([line[1] for line in lines])
        a = np.concatenate([[low, high], _envelope_breakpoints(theta, intercept, low, high)])
        envelope = (intercept[None, :] + theta[None, :] * a[:, None]).min(axis=1)
        phi = self._phi(a)
        # Rounding: of φ, of the minimising line's ĝ + θa, and of the breakpoint's position.
        magnitude = np.abs(phi) + (np.abs(intercept)[None, :] + np.abs(theta[None, :] * a[:, None])).max(
            axis=1
        )
        return float(np.max(phi + envelope + DUAL_BOUND_RTOL * (1.0 + magnitude)))


@dataclass(frozen=True)
class _HullPoint:
    """A point ``(a, V(a))`` the hull search found with slope ``θ``, and the line ``ĝ(θ) + θa >= V``
    its LP's duals prove."""

    a: float
    v: float
    theta: float
    bound: float

    def line(self, a: FloatArray) -> FloatArray:
        return self.bound + self.theta * a


def _envelope_breakpoints(theta: FloatArray, intercept: FloatArray, low: float, high: float) -> FloatArray:
    """The ``a`` in ``(low, high)`` where the lower envelope ``min_i (intercept_i + θ_i a)`` changes
    line: the lines by decreasing slope (the envelope's order from left to right), each dropping the
    last ones it hides (the convex-hull trick), and the crossings of consecutive survivors."""
    order = np.lexsort((intercept, -theta))
    kept: list[int] = []
    for i in order:
        if kept and not theta[kept[-1]] > theta[i]:
            continue  # the same slope, a line no lower (lexsort put the lowest first)
        while len(kept) >= 2 and _crossing(theta, intercept, kept[-2], i) <= _crossing(
            theta, intercept, kept[-2], kept[-1]
        ):
            kept.pop()
        kept.append(int(i))
    crossings = np.array([_crossing(theta, intercept, i, j) for i, j in itertools.pairwise(kept)])
    return crossings[(crossings > low) & (crossings < high)] if crossings.size else crossings


def _crossing(theta: FloatArray, intercept: FloatArray, i: int, j: int) -> float:
    """Where lines ``i`` and ``j`` (``θ_i > θ_j``) cross."""
    return float((intercept[j] - intercept[i]) / (theta[i] - theta[j]))


class CertifiedHullPricer:
    """:class:`FDivergencePricer` as certified column generation's pricer
    (:func:`~privopt.routes.pricing.contract.certified_pricer`): each exact round is one hull search,
    a "node" is one LP."""

    #: Exact every round (one hull search); the run closes to half its ``gap_tolerance``; the checker
    #: takes about as long as the pricing (:attr:`~privopt.routes.pricing.contract.PricerTraits.check_ratio`).
    traits = PricerTraits(
        HULL_METHOD, "mixture", exact_every_round=True, nodes_per_unit=HULL_LPS_PER_UNIT, gap_share=0.5
    )

    def __init__(self, cone: RowCone, form: PerspectiveForm, weights: FloatArray) -> None:
        self.hull = FDivergencePricer(cone, form, weights)
        self.weights = weights

    def prior_free_duals(self) -> list[FloatArray]:
        """None: no dual vector is known to certify every prior here."""
        return []

    def session(self, workers: int) -> contextlib.AbstractContextManager[CertifiedPricer]:
        """A run needs no set-up; the hull search runs in this process."""
        return single_session(self)

    def price(self, duals: FloatArray, request: PricingRequest) -> PricingOutcome:
        """The arguments of :meth:`~privopt.routes.pricing.envelope.EnvelopePricer.price`; ``ceiling`` only
        permits an early stop, and the hull's search does not take it."""
        tolerance = request.tolerance
        max_nodes = 10**7 if request.max_nodes is None else request.max_nodes
        max_columns = request.max_columns
        start = time.perf_counter()
        delta, found, complete = self.hull.search(
            duals, max(3, min(MAX_LPS, max_nodes)), request.closed, request.deadline
        )
        columns = tuple(self.hull.repair_priced(found[: 4 * max_columns]))[:max_columns]
        lower = found[0].ratio if found else -np.inf
        return PricingOutcome(
            upper=delta,
            lower=lower,
            columns=columns,
            nodes=self.hull.lps,
            point_nodes=0,
            complete=complete,
            tolerance=tolerance,
            seconds=time.perf_counter() - start,
        )


def _hull_entry(utility: SubConvexUtility, cone: RowCone) -> CertifiedPricer | Refusal:
    form = utility.perspective_form()
    if form is None:
        return Refusal(
            RefusalReason.UTILITY, f"the hull prices perspective forms (f-divergences), not {utility!r}"
        )
    weights = fdivergence_weights(form)
    if weights is None or weights.size != cone.n_inputs:
        return Refusal(RefusalReason.NUMERICS, "ν = (P0 + P1)/2 is not positive on every input of the cone")
    return CertifiedHullPricer(cone, form, weights)


register_pricer(PricerEntry("f-divergence hull", 40, _hull_entry, proved_by=("f-divergence hull",)))
