"""Audits of the pairs whose compiled rows are not the definition itself.

:func:`privopt.audit.audit` splits a definition's pairs by the robust-counterpart rule that compiled
them (:mod:`privopt.sets.counterparts`). Pairs whose rows *are* the constraint (constant, member and
vertex rules, the rectangular rule on rectangular sets) are audited exactly from those rows; the others
here:

- **Point masses against the output marginal over an ℓ1 ball** (PML, compiled by the ε′ transform)
  are audited exactly: the worst prior for output ``y`` minimises ``Qᵀw`` over the ball, a transport
  problem solved greedily (:meth:`~privopt.sets.L1Ball.min_linear`; PML paper eq. 23).
- **Pairs under the rectangular rule over a Rényi ball or a polytope** (LDP w.r.t. S, or user pairs of
  conditionals given S) are reported as an interval ``[lower, upper]``:

  - *upper*: the exact worst case over the product of the conditional projections: each side's
    extreme ``max/min_{R ∈ F_{U|s}} Rᵀw_s`` is a convex program over a Rényi ball (Entropy paper
    Theorem 1), solved exactly from its KKT conditions (:mod:`privopt.sets.renyi_extremes`; cvxpy's
    power-cone formulation was off by up to 5e-3), or the best vertex of a polytope's projection. The
    product contains ``F``'s conditionals, so this bounds the true worst case from above. A conditional
    against the output marginal (LIP's pairs) also gets the bound of the mixture: ``P(Y=y)`` lies
    between the smallest and largest conditional of the same ``P`` (:func:`_mixture_log_ratio`); the
    smaller of the two upper ends is reported.
  - *lower*: the ratio at distributions that lie in ``F`` itself — ``P̂`` and, for every extreme
    conditional found above, the closest distribution of ``F`` with that conditional (the
    construction behind Theorem 1) — refined by a local search (SLSQP with exact gradients), or on
    balls of more than ``_LOCAL_SEARCH_MAX_INPUTS`` inputs searched along the pairs' budget frontiers
    (:func:`_frontier`), and re-checked to lie in ``F`` before it counts. For a polytope, its vertices.

``satisfied`` is decided on the upper end, so an interval audit is never optimistic.

Every part reads a channel through :class:`Columns`: the matrix the ratios' numerators are evaluated on
and the one for their denominators. For a mechanism both are its matrix; for a sampled channel they are
the upper and lower corners of a confidence region (:mod:`privopt.audit.sample_audit`), and since every
side is a non-negative combination of entries, the parts' upper ends bound the realized ε of every
channel in the region (their lower ends are then not computed).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.optimize import minimize

from privopt.audit.report import Witness
from privopt.compiler.ratio_pairs import RatioPair
from privopt.data.distribution import JointDistribution
from privopt.data.mechanism import Mechanism
from privopt.data.statistics import JOINT, Statistic
from privopt.data.terms import PairLabel, Term
from privopt.sets.counterparts import Layout
from privopt.sets.l1 import L1Ball
from privopt.sets.polytope import Polytope
from privopt.sets.renyi import RenyiBall, renyi_divergence
from privopt.sets.renyi_extremes import is_order, linear_maximum
from privopt.tolerances import ZERO_RTOL
from privopt.validation import FloatArray

#: The sets an interval audit reads: a Rényi ball (exact KKT extremes) or a polytope of distributions
#: given by its vertices (a polytope, an ℓ1 ball).
IntervalSet = RenyiBall | Polytope | L1Ball

#: How an interval audit looks for its lower end: candidate distributions refined by local searches
#: (``"search"``), the candidates alone (``"candidates"``), or not at all (``"none"``: reported as 0).
LowerEnd = Literal["search", "candidates", "none"]

#: Local searches for the lower end of an interval audit (the best-scoring candidates are refined).
_LOCAL_SEARCHES = 3
#: Outputs (by upper end) whose extreme conditionals become lower-bound candidates.
_CANDIDATE_OUTPUTS = 4
#: Above this many inputs the lower bound uses the constructions and the pairs' budget frontiers
#: (:func:`_frontier`) instead of a local search (SLSQP over |X| variables is slow); the pass/fail verdict
#: depends on the upper end and is unaffected.
_LOCAL_SEARCH_MAX_INPUTS = 64
#: Shares of the budget per stage of the frontier search, and its stages (each refines the grid around
#: the previous stage's best share).
_FRONTIER_POINTS = 17
_FRONTIER_STAGES = 3


@dataclass(frozen=True)
class Columns:
    """The channel an audit part reads: ``numerators`` and ``denominators`` (inputs × outputs) are the
    matrices the two sides of every ratio are evaluated on (module docstring)."""

    numerators: FloatArray
    denominators: FloatArray
    output_labels: tuple[Hashable, ...]

    @classmethod
    def of(cls, mechanism: Mechanism) -> Columns:
        """A mechanism's own columns (both sides on its matrix)."""
        return cls(mechanism.matrix, mechanism.matrix, mechanism.output_labels)

    @property
    def exact(self) -> bool:
        """Whether both sides read one matrix (a mechanism, not a region)."""
        return self.numerators is self.denominators

    @property
    def n_outputs(self) -> int:
        return self.numerators.shape[1]

    @property
    def scales(self) -> FloatArray:
        """The largest entry of each numerator column (the reference of the zero convention)."""
        return self.numerators.max(axis=0, initial=0.0)


@dataclass(frozen=True)
class AuditPart:
    """The audit of some of a definition's pairs: a lower bound on their realized ε, the upper end per
    output, the witness of the upper end and how it was computed. ``worst`` is a distribution of the
    set (flat, s-major) at which the lower bound is attained, when the part searched the set for one."""

    lower: float
    upper_per_output: FloatArray
    witness: Witness | None
    method: str
    worst: FloatArray | None = None


def _log_ratio(num: float, den: float, scale: float) -> float:
    """``log(num / den)``: ``-inf`` when ``num`` is rounding noise relative to its column's ``scale``,
    ``+inf`` when ``den`` is exactly 0 (the convention of :meth:`RatioPairs.log_ratios`)."""
    if num <= ZERO_RTOL * scale:
        return -np.inf
    if den <= 0.0:
        return np.inf
    return float(np.log(num / den))


def l1_marginal_part(pairs: Sequence[RatioPair], ball: L1Ball, columns: Columns, layout: Layout) -> AuditPart:
    """Exact ``sup_{Q ∈ ball} log(max_a aᵀw / Qᵀw) / c`` per output for constant-left, marginal-right
    pairs (the ℓ1-local leakage capacity, PML paper eq. 23)."""
    W = columns.numerators
    scales = columns.scales
    worst_prior = ball.min_linear(columns.denominators)
    per_output = np.zeros(W.shape[1])
    best: tuple[float, int, int, int] | None = None  # (value, pair, statistic, output)
    for index, pair in enumerate(pairs):
        tops = np.vstack([st.vector(None, layout.labels, layout.on) @ W for st in pair.left])
        arg = np.argmax(tops, axis=0)
        top = tops[arg, np.arange(W.shape[1])]
        values = (
            np.array([_log_ratio(t, m, c) for t, m, c in zip(top, worst_prior, scales, strict=True)])
            / pair.scale
        )
        values = np.maximum(values, 0.0)
        per_output = np.maximum(per_output, values)
        y = int(np.argmax(values))
        if top[y] > ZERO_RTOL * scales[y] and (best is None or values[y] > best[0]):
            best = (float(values[y]), index, int(arg[y]), y)
    witness, worst = None, None
    if best is not None:
        value, index, i, y = best
        left = pairs[index].left[i].term()
        label = PairLabel(
            left,
            Term("P", None, "worst prior in the ℓ1 ball"),
            None,
            "exact ℓ1-ball worst case",
            pairs[index].scale,
        )
        witness = Witness(columns.output_labels[y], label, value)
        worst = ball.minimizer(columns.denominators[:, y])
    realized = float(per_output.max()) if per_output.size else 0.0
    return AuditPart(realized, per_output, witness, "exact: worst prior of the ℓ1 ball per output", worst)


class _SideExtremes:
    """Per output ``y``, the extremes of ``R ↦ Rᵀw_s`` over each conditional projection ``F_{U|s}``: the
    maxima on the numerators' matrix, the minima on the denominators'; and, for statistics affine in the
    joint ``P`` (LIP's ``P(Y=y)``), the extremes of ``P ↦ Pᵀ(Mw)`` over ``F`` itself (:func:`joint_map`)."""

    def __init__(self, F: IntervalSet, columns: Columns, layout: Layout) -> None:
        self.F, self.columns, self.layout = F, columns, layout
        n_s = F.n_s
        self.low = np.zeros((n_s, columns.n_outputs))
        self.high = np.zeros_like(self.low)
        self.arg_low: dict[int, FloatArray] = {}
        self.arg_high: dict[int, FloatArray] = {}
        #: Per joint statistic: ``(min on the denominators, max on the numerators, argmin, argmax)``.
        self.joint: dict[Statistic, tuple[FloatArray, FloatArray, FloatArray, FloatArray]] = {}
        tops = [columns.numerators[self._rows(s)] for s in range(n_s)]
        bottoms = [columns.denominators[self._rows(s)] for s in range(n_s)]
        if isinstance(F, RenyiBall):
            on_top = F.projections_extremes(tops)
            on_bottom = on_top if columns.exact else F.projections_extremes(bottoms)
            for s in range(n_s):
                _, self.high[s], _, self.arg_high[s] = on_top[s]
                self.low[s], _, self.arg_low[s], _ = on_bottom[s]
        else:
            for s in range(n_s):
                self.high[s] = (F.conditional_envelope(s) @ tops[s]).max(axis=0)
                self.low[s] = (F.conditional_envelope(s) @ bottoms[s]).min(axis=0)

    def _rows(self, s: int) -> slice:
        block = self.layout.block(s)
        return block if block is not None else slice(None)

    def _joint_extremes(self, statistic: Statistic) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        if statistic not in self.joint:
            M = joint_map(statistic, self.F, self.layout)
            top, bottom = M @ self.columns.numerators, M @ self.columns.denominators
            if isinstance(self.F, RenyiBall):
                _, high, _, arg_high = self.F.joint_extremes(top)
                low, _, arg_low, _ = self.F.joint_extremes(bottom)
            else:
                V = self.F.vertices()
                high, low = (V @ top).max(axis=0), (V @ bottom).min(axis=0)
                arg_high, arg_low = V[np.argmax(V @ top, axis=0)], V[np.argmin(V @ bottom, axis=0)]
            self.joint[statistic] = (low, high, arg_low, arg_high)
        return self.joint[statistic]

    def side(self, statistic: Statistic, high: bool) -> FloatArray:
        """The max (or min) over the set of one statistic, per output."""
        matrix = self.columns.numerators if high else self.columns.denominators
        constant: FloatArray = statistic.constant_part(self.layout.labels) @ matrix
        if statistic.dependence == JOINT:
            low, top, _, _ = self._joint_extremes(statistic)
            return constant + (top if high else low)
        s = statistic.sensitive_value
        if s is None:
            return constant
        coefficient = sum(c for c, kind, _ in statistic.atoms if kind == "s")
        position = self.layout.s_position(s)
        return coefficient * (self.high if high else self.low)[position] + constant

    def candidates(self, statistic: Statistic, high: bool, y: int) -> list[FloatArray]:
        """Distributions of ``F`` (flat) at which ``statistic`` attains its extreme for output ``y``:
        the joint statistics' extremes themselves (the conditional ones are built by the caller)."""
        if statistic.dependence != JOINT:
            return []
        _, _, arg_low, arg_high = self._joint_extremes(statistic)
        return [np.clip((arg_high if high else arg_low)[y], 0.0, None)]


def joint_map(statistic: Statistic, F: IntervalSet, layout: Layout) -> FloatArray:
    """The matrix ``M`` (records × inputs) of a statistic affine in the joint ``P``: its value on a column
    ``w`` at ``P`` is its constant part plus ``Pᵀ(Mw)``; row ``x`` is its joint part at the point mass on
    record ``x`` (the statistic is linear in ``P``)."""
    constant = statistic.constant_part(layout.labels)
    points = F.labelled(np.eye(F.n_x))
    return np.vstack([statistic.vector(P, layout.labels, layout.on) - constant for P in points])


def rectangular_part(
    F: IntervalSet,
    pairs: Sequence[RatioPair],
    columns: Columns,
    layout: Layout,
    lower_end: LowerEnd = "search",
) -> AuditPart:
    """Interval audit of pairs of conditionals over a Rényi ball or a polytope (module docstring), its
    lower end found as ``lower_end`` says (:data:`LowerEnd`)."""
    extremes = _SideExtremes(F, columns, layout)
    n_out = columns.n_outputs
    scales = columns.scales
    upper_per_output = np.zeros(n_out)
    where: list[tuple[int, int, int] | None] = [None] * n_out  # (pair, left index, right index)
    for index, pair in enumerate(pairs):
        mixture = _mixture_form(pair, layout)
        tops = np.vstack([extremes.side(st, True) for st in pair.left])
        bottoms = np.vstack([extremes.side(st, False) for st in pair.right])
        for y in range(n_out):
            i, j = int(np.argmax(tops[:, y])), int(np.argmin(bottoms[:, y]))
            value = _log_ratio(float(tops[i, y]), float(bottoms[j, y]), float(scales[y])) / pair.scale
            if columns.exact and mixture is not None:
                value = min(value, _mixture_log_ratio(mixture, extremes, y, float(scales[y])) / pair.scale)
            if value > upper_per_output[y]:
                upper_per_output[y], where[y] = value, (index, i, j)
    upper = float(upper_per_output.max()) if n_out else 0.0
    lower, worst = 0.0, None
    if columns.exact and lower_end != "none":
        lower, worst = _lower_bound(
            F, columns.numerators, pairs, layout, extremes, upper_per_output, where, lower_end == "search"
        )
        lower = min(lower, upper)
    y = int(np.argmax(upper_per_output)) if n_out else 0
    witness = None
    found = where[y] if n_out else None
    if found is not None:
        index, i, j = found
        left, right = pairs[index].left[i].term(), pairs[index].right[j].term()
        label = PairLabel(
            Term(left.kind, left.label, "its worst case over F"),
            Term(right.kind, right.label, "its worst case over F"),
            None,
            f"{pairs[index]} over the product of conditional projections",
            pairs[index].scale,
        )
        witness = Witness(columns.output_labels[y], label, upper)
    if isinstance(F, RenyiBall):
        method = (
            "interval: upper = worst case over the product of the Rényi projections (exact KKT solutions)"
        )
        found_lower = ""
    else:
        method = "interval: upper = product of the conditional projections' vertices"
        found_lower = "; lower = polytope vertices"
    method += "; lower end not looked for" if lower_end == "none" else found_lower
    return AuditPart(lower, upper_per_output, witness, method, worst)


#: A pair of one conditional against the output marginal (LIP's, either way): ``(position of s, the
#: conditional's coefficient, the marginal's coefficient, whether the conditional is the numerator)``.
MixtureForm = tuple[int, float, float, bool]


def _single_atom(statistic: Statistic) -> tuple[float, str, object] | None:
    return statistic.atoms[0] if len(statistic.atoms) == 1 else None


def _mixture_form(pair: RatioPair, layout: Layout) -> MixtureForm | None:
    """The pair's :data:`MixtureForm` when it is ``c·P(Y=y|S=s)`` against ``d·P(Y=y)`` (or back), else
    ``None``."""
    if len(pair.left) != 1 or len(pair.right) != 1:
        return None
    left, right = _single_atom(pair.left[0]), _single_atom(pair.right[0])
    if left is None or right is None:
        return None
    if left[1] == "s" and right[1] == "marginal":
        return layout.s_position(left[2]), left[0], right[0], True
    if left[1] == "marginal" and right[1] == "s":
        return layout.s_position(right[2]), right[0], left[0], False
    return None


def _mixture_log_ratio(form: MixtureForm, extremes: _SideExtremes, y: int, scale: float) -> float:
    """A second upper end for a :data:`MixtureForm` pair at output ``y``, by the mixture itself: at every
    ``P``, ``P(Y=y) = Σ_s' P(s') P(Y=y|S=s')`` lies between the smallest and the largest conditional of
    the same ``P``, so ``P(Y=y|S=s) / P(Y=y) <= max_s' P(Y=y|S=s) / P(Y=y|S=s')``, which is 1 at ``s' = s``
    and at most ``max_{F_{U|s}} / min_{F_{U|s'}}`` otherwise (and back for the reverse pair). Unlike the
    decoupled bound (the joint ``P`` apart from ``P(·|s)``), it keeps ``P(·|s)`` inside ``P(Y=y)``.
    Only for a mechanism (both sides on one matrix: the ratio at ``s' = s`` is then exactly 1)."""
    s, c, d, numerator = form
    others = [t for t in range(extremes.high.shape[0]) if t != s]
    if numerator:
        ratios = [
            _log_ratio(c * float(extremes.high[s, y]), d * float(extremes.low[t, y]), scale) for t in others
        ]
    else:
        ratios = [
            _log_ratio(d * float(extremes.high[t, y]), c * float(extremes.low[s, y]), scale) for t in others
        ]
    self_ratio = float(np.log(c / d)) if numerator else float(np.log(d / c))
    return max([self_ratio, *ratios])


# ---------------------------------------------------------------------- lower bound
def _worst_at(
    P: FloatArray, F: IntervalSet, pairs: Sequence[RatioPair], W: FloatArray, layout: Layout
) -> tuple[float, tuple[int, int, int, int]]:
    """``max`` over pairs, sides and outputs of the (scaled) log-ratio at the distribution ``P`` (flat)."""
    reference = F.reference()
    if reference is None:
        joint = JointDistribution(P.reshape(F.shape))
    else:
        joint = JointDistribution(
            P.reshape(F.shape), s_labels=reference.s_labels, u_labels=reference.u_labels
        )
    values: dict[Statistic, FloatArray] = {}
    scales = W.max(axis=0)

    def side(statistic: Statistic) -> FloatArray:
        if statistic not in values:  # a statistic shared by many pairs is evaluated once
            values[statistic] = statistic.vector(joint, layout.labels, layout.on) @ W
        return values[statistic]

    best, where = 0.0, (-1, -1, -1, -1)
    for index, pair in enumerate(pairs):
        for i, left in enumerate(pair.left):
            top = side(left)
            for j, right in enumerate(pair.right):
                with np.errstate(divide="ignore", invalid="ignore"):
                    bottom = side(right)
                    ratios = np.where(
                        top > ZERO_RTOL * scales,
                        np.where(bottom > 0.0, np.log(top / np.where(bottom > 0.0, bottom, 1.0)), np.inf),
                        -np.inf,
                    )
                ratios = ratios / pair.scale
                y = int(np.argmax(ratios))
                if ratios[y] > best:
                    best, where = float(ratios[y]), (index, i, j, y)
    return best, where


def _lower_bound(
    F: IntervalSet,
    W: FloatArray,
    pairs: Sequence[RatioPair],
    layout: Layout,
    extremes: _SideExtremes,
    upper_per_output: FloatArray,
    where: list[tuple[int, int, int] | None],
    search: bool,
) -> tuple[float, FloatArray | None]:
    """The best ratio found at distributions of ``F`` and the distribution (flat) where it is found
    (refined by local searches when ``search``)."""
    target = float(upper_per_output.max()) if upper_per_output.size else 0.0
    if not isinstance(F, RenyiBall):  # a polytope or an ℓ1 ball: its vertices
        scored_vertices = [
            (_worst_at(v, F, pairs, W, layout)[0], v)
            for v in F.vertices()
            if np.all(v.reshape(F.shape).sum(axis=1) > 0)
        ]
        if not scored_vertices:
            return 0.0, None
        value, vertex = max(scored_vertices, key=lambda item: item[0])
        return value, vertex
    # Candidates: P̂, and for the outputs with the largest upper ends, the distributions of F closest
    # to P̂ whose conditionals sit at the extremes that produced those upper ends.
    candidates = [F.center.p_x]
    for y in np.argsort(-upper_per_output)[:_CANDIDATE_OUTPUTS]:
        found = where[int(y)]
        if found is None:
            continue
        index, i, j = found
        for statistic, args, high in (
            (pairs[index].left[i], extremes.arg_high, True),
            (pairs[index].right[j], extremes.arg_low, False),
        ):
            candidates.extend(extremes.candidates(statistic, high, int(y)))
            s = statistic.sensitive_value
            if s is not None and layout.s_position(s) in args:
                position = layout.s_position(s)
                candidates.append(F.closest_with_conditionals({position: args[position][y]}))
    if F.n_x > _LOCAL_SEARCH_MAX_INPUTS:  # no local search: the pairs' frontiers instead
        outputs = [int(y) for y in np.argsort(-upper_per_output)[:_CANDIDATE_OUTPUTS]]
        locations = [(*found, y) for y in outputs if (found := where[y]) is not None]
        candidates.extend(_frontier(F, pairs, layout, W, locations))
    scored = []
    for index, P in enumerate(candidates):
        if F.contains(P):
            value, location = _worst_at(P, F, pairs, W, layout)
            scored.append((value, index, location))
    scored.sort(key=lambda item: -item[0])
    if not scored:
        return 0.0, None
    best, best_at = scored[0][0], candidates[scored[0][1]]
    if F.n_x > _LOCAL_SEARCH_MAX_INPUTS or not search:
        return best, best_at
    seen: set[tuple[int, int, int, int]] = set()
    for _, index, location in scored:
        if best >= target - 1e-9 or len(seen) >= _LOCAL_SEARCHES:
            break
        if location in seen or location[0] < 0:
            continue
        seen.add(location)
        pair_index, i, j, y = location
        pair = pairs[pair_index]
        refined = _local_search(F, layout, candidates[index], pair.left[i], pair.right[j], W[:, y])
        if refined is not None and F.contains(refined):
            value = _worst_at(refined, F, pairs, W, layout)[0]
            if value > best:
                best, best_at = value, refined
    return best, best_at


def _frontier(
    F: RenyiBall,
    pairs: Sequence[RatioPair],
    layout: Layout,
    W: FloatArray,
    locations: Sequence[tuple[int, int, int, int]],
) -> list[FloatArray]:
    """For each location ``(pair, left, right, y)`` whose sides are conditional on two different ``s``,
    ``t``: the distribution of ``F`` with the largest log-ratio found along the budget frontier.

    Only those two conditionals enter the ratio, and ``F`` holds them together exactly at the radii of
    :meth:`~privopt.sets.RenyiBall.shared_radii` (every other conditional at the centre's, the marginal
    the minimiser), so the pair's worst case over ``F`` is a maximum over the share ``θ`` alone: each
    side at its exact extreme for its radius (:func:`~privopt.sets.renyi_extremes.linear_maximum`, every
    ``θ`` of a stage in one call per conditional). ``θ`` runs over a grid dense at both ends (where a
    side's extreme grows like the square root of its radius), refined around its best point.
    """
    centre = F.center.conditional_u_given_s()
    found = []
    for index, i, j, y in locations:
        top, bottom = (
            _Side.of(st, F, layout, W[:, y]) for st in (pairs[index].left[i], pairs[index].right[j])
        )
        s, t = top.position, bottom.position
        if s is None or t is None or s == t or top.joint is not None or bottom.joint is not None:
            continue
        low, high = 0.0, 1.0
        best, chosen = -np.inf, None
        for _ in range(_FRONTIER_STAGES):
            u = np.linspace(low, high, _FRONTIER_POINTS)
            theta = 0.5 - 0.5 * np.cos(np.pi * u)
            radius_s, radius_t = F.shared_radii(s, t, theta)
            # the top side at its largest coefficient·Rᵀw, the bottom at its smallest
            _, R_top = linear_maximum(
                centre[s], radius_s, F.order, np.tile(np.sign(top.coefficient) * top.block, (u.size, 1))
            )
            _, R_bottom = linear_maximum(
                centre[t],
                radius_t,
                F.order,
                np.tile(-np.sign(bottom.coefficient) * bottom.block, (u.size, 1)),
            )
            numerator = top.constant + top.coefficient * (R_top @ top.block)
            denominator = bottom.constant + bottom.coefficient * (R_bottom @ bottom.block)
            usable = (numerator > 0.0) & (denominator > 0.0)
            if not np.any(usable):
                break
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(usable, np.log(numerator) - np.log(denominator), -np.inf)
            k = int(np.argmax(ratio))
            if ratio[k] > best:
                best, chosen = float(ratio[k]), (R_top[k], R_bottom[k])
            low, high = u[max(k - 1, 0)], u[min(k + 1, u.size - 1)]
        if chosen is not None:
            found.append(F.closest_with_conditionals({s: chosen[0], t: chosen[1]}))
    return found


@dataclass(frozen=True)
class _Side:
    """One side of a pair on a fixed column ``w``, as a function of the joint ``P`` (with its gradient):
    ``constant + coefficient · P(·|s)ᵀw_s`` (at ``position``, on the inputs ``block``) or, for a joint
    statistic, ``constant + Pᵀjoint`` (:func:`joint_map`)."""

    constant: float
    coefficient: float
    position: int | None
    block: FloatArray
    joint: FloatArray | None

    @classmethod
    def of(cls, statistic: Statistic, F: RenyiBall, layout: Layout, w: FloatArray) -> _Side:
        constant = float(statistic.constant_part(layout.labels) @ w)
        if statistic.dependence == JOINT:
            return cls(constant, 0.0, None, w, joint_map(statistic, F, layout) @ w)
        s = statistic.sensitive_value
        if s is None:
            return cls(constant, 0.0, None, w, None)
        position = layout.s_position(s)
        rows = layout.block(position)
        coefficient = sum(c for c, kind, _ in statistic.atoms if kind == "s")
        return cls(constant, coefficient, position, w if rows is None else w[rows], None)

    def __call__(self, joint: FloatArray) -> tuple[float, FloatArray]:
        if self.joint is not None:
            return self.constant + float(joint.reshape(-1) @ self.joint), self.joint
        grad = np.zeros(joint.shape)
        if self.position is None:
            return self.constant, grad.reshape(-1)
        row = joint[self.position]
        mass = row.sum()
        conditional = float(row @ self.block) / mass
        grad[self.position] = self.coefficient * (self.block - conditional) / mass
        return self.constant + self.coefficient * conditional, grad.reshape(-1)


def _local_search(
    F: RenyiBall,
    layout: Layout,
    start: np.ndarray,
    left: Statistic,
    right: Statistic,
    w: np.ndarray,
) -> np.ndarray | None:
    """Maximise ``log left(P)ᵀw − log right(P)ᵀw`` over ``F`` from ``start`` (SLSQP, exact gradients).

    Each side is a constant plus a multiple of ``P(·|s)ᵀw_s`` or plus ``Pᵀ(Mw)`` (:func:`joint_map`); the
    result only counts after the caller has checked that it lies in ``F``.
    """
    floor = 1e-12
    shape = F.shape
    p_hat = F.center.p_x
    support = p_hat > 0
    alpha = F.order
    top_side, bottom_side = _Side.of(left, F, layout, w), _Side.of(right, F, layout, w)

    def objective(p: np.ndarray) -> tuple[float, np.ndarray]:
        joint = p.reshape(shape)
        if np.any(joint.sum(axis=1) <= 0):
            return 1e6, np.zeros_like(p)
        top, g_top = top_side(joint)
        bottom, g_bottom = bottom_side(joint)
        if min(top, bottom) <= 0:
            return 1e6, np.zeros_like(p)
        return -(np.log(top) - np.log(bottom)), -(g_top / top - g_bottom / bottom)

    def slack(p: np.ndarray) -> float:
        return F.radius - renyi_divergence(p_hat, np.clip(p, floor, None), alpha)

    def slack_gradient(p: np.ndarray) -> np.ndarray:
        q = np.clip(p[support], floor, None)
        grad = np.zeros_like(p)
        if is_order(alpha, 1.0):
            grad[support] = p_hat[support] / q
        else:
            log_terms = alpha * np.log(p_hat[support]) + (1 - alpha) * np.log(q)
            grad[support] = np.exp(
                alpha * np.log(p_hat[support]) - alpha * np.log(q) - np.logaddexp.reduce(log_terms)
            )
        return grad

    constraints = [
        {"type": "eq", "fun": lambda p: np.sum(p) - 1.0, "jac": lambda p: np.ones_like(p)},
        {"type": "ineq", "fun": slack, "jac": slack_gradient},
    ]
    result = minimize(
        objective, np.clip(start, floor, None), jac=True, method="SLSQP", bounds=[(floor, 1.0)] * start.size,
        constraints=constraints, options={"maxiter": 100, "ftol": 1e-12},
    )  # fmt: skip
    candidate = np.clip(result.x, 0.0, None)
    total = candidate.sum()
    return candidate / total if total > 0 else None
