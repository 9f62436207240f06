"""The checker's own proof of ``max_{w ∈ K} (μ(w) − λᵀw)/νᵀw`` on envelope cones, by their vertices.

An *envelope cone* (the Γ cone of Entropy paper Definition 3, LDP, and any cone of the same shape)
has groups ``{L_s + c_s e_u : u ∈ X_s}`` on disjoint blocks ``X_s`` covering the inputs (``L_s >= 0``,
``c_s > 0``), so that ``a_s(w) = L_sᵀw_s + c_s max_u w_u`` and ``b_s(w) = L_sᵀw_s + c_s min_u w_u``, and
blocks ``a_s <= F b_{s'}`` for every ordered pair ``s ≠ s'`` of groups (and for ``s = s'`` with self
pairs). This module derives, independently of the solver's pricing code, everything below.

**Union of products.** Every ``w ≠ 0`` of the cone has ``b_s > 0`` for all ``s`` (if ``b_{s*} = 0``, then
``a_s <= F b_{s*} = 0`` forces ``w_s = 0`` for ``s ≠ s*``, and ``a_{s*} <= F b_s = 0`` for any ``s ≠ s*``).
Scale it so that ``min_s b_s = b_{s*} = 1`` and let ``ρ = min_{s ≠ s*} b_s``; since ``b_s <= a_s <= F``,
``ρ ∈ [1, F]``. Then ``w`` lies in the product of the *block polytopes* ``B(D, T) = {w_s >= 0 :
D <= L_sᵀw_s + c_s w_u <= T ∀u}`` with ``(D, T) = (1, Fρ)`` for ``s*`` and ``(ρ, F)`` for the others;
conversely every point of such a product is in the cone. With self pairs every block is ``B(1, F)``.

**Stars and free inputs.** When the blocks pair one *hub* ``h`` with every other group, both ways, and
no other groups (Pufferfish's discriminative pairs against one secret), scale ``w`` so that ``b_h = 1``
and let ``ρ = a_h/F``: then ``a_s <= F b_h = F`` and ``b_s >= a_h/F = ρ`` for the others, and ``a_h = Fρ``,
so ``w`` is in the same product with ``s* = h``; conversely such a product satisfies every pair
(``a_h <= Fρ <= F b_s`` and ``a_s <= F <= F b_h``). Here ``ρ ∈ [1/F, F]`` (``1 <= a_h`` and ``b_s <= a_s <=
F``). Inputs in no group are unconstrained: the cone is the blocks' cone times their orthant, whose
extreme rays are the blocks' rays and the ``e_x``, so those are checked one by one (:func:`free_rays`).

**Block vertices.** Let ``β = (T − D)/c``, ``z = L·w``, ``σ = c + ΣL`` and ``y_H = Σ_{u∈H} L_u``. At a
vertex ``k`` linearly independent constraints are active. The active rows of coordinate ``u`` are
``e_u`` (``w_u = 0``) or ``L + c e_u`` (``w_u = (D − z)/c`` or ``(T − z)/c``); rows of two coordinates left
free span at most ``k − 1`` dimensions, so at most one coordinate is free:

- none free, ``z < D``: every ``w_u >= (D − z)/c > 0``, so ``w = lo + β 1_H`` with ``lo = (D − β y_H)/σ``
  (from ``z = lo ΣL + β y_H``), valid iff ``y_H <= D/β``;
- none free, ``z >= D``: ``w = hi 1_H`` with ``hi = T/(c + y_H)`` (from ``z = hi y_H``), valid iff
  ``y_H >= D/β``;
- one free coordinate ``k`` (rank needs ``L_k > 0`` and, with only ``k − 1`` other coordinates, a
  coordinate with both ``w_u = 0`` and ``L·w + c w_u = D`` active, so ``z = D``): ``w = β`` on ``H``, ``0``
  off ``H ∪ {k}``, ``w_k = (D − β y_H)/L_k ∈ (0, β)``;
- ``D = T``: the single point ``w = (D/σ) 1``.

The checker generates both two-level formulas for every subset and every fractional candidate and
keeps those feasible within :data:`~privopt.tolerances.CHECK_FEASIBILITY_ATOL` (a superset of the
vertices, all points of the block: the maximum can only grow).

**Events.** The kinds and formulas above change only where ``D/β`` equals a subset sum ``y`` of a
block (``y_H`` or ``y_H + L_k``): for ``s*``, ``c/(Fρ − 1) = y``, i.e. ``ρ = (1 + c/y)/F``; for the others
``ρc/(F − ρ) = y``, i.e. ``ρ = F y/(c + y)``. Between two consecutive events every product vertex is an
affine function of ``ρ`` (``D``, ``T`` and ``β`` are), and the ratio ``R(w) = (μ(w) − λᵀw)/νᵀw`` is
quasi-convex (its sublevel sets ``{μ(w) − λᵀw <= t νᵀw}`` are convex), so along the interval it is at
most its values at the ends, whose limits are points of the products there. Hence the maximum of
``R`` over the cone is the maximum over ``s*`` and over the events in ``[1, F]`` (with ``1`` and ``F``) of
the maximum of ``R`` over the product's vertices — which this module computes by enumeration.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from privopt.certificates.objective import core_mu, entropy_prior, entropy_scale, xlogx
from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.compiler.cone import RowCone
from privopt.tolerances import CHECK_ENVELOPE_FORM_RTOL, CHECK_FEASIBILITY_ATOL, CHECK_ROUNDING_RTOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: Largest block the checker enumerates (``2^k`` subsets, ``k·2^(k−1)`` fractional candidates).
MAX_BLOCK = 14

#: Largest product (combinations of block vertices) enumerated at one point.
MAX_PRODUCT = 2_000_000

#: Largest total work (product size times points) the enumeration takes on.
MAX_WORK = 60_000_000


@dataclass(frozen=True, eq=False)
class EnvelopeForm:
    """An envelope cone as the checker reads it (module docstring)."""

    blocks: tuple[np.ndarray, ...]
    lower: tuple[FloatArray, ...]
    slack: FloatArray
    factor: float
    self_pairs: bool
    hub: int | None = None
    free: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))

    @property
    def low(self) -> float:
        """The smallest ``ρ`` (module docstring): 1, or ``1/F`` in a star."""
        return 1.0 if self.hub is None else 1.0 / self.factor

    @property
    def n_inputs(self) -> int:
        return sum(block.size for block in self.blocks) + self.free.size

    @property
    def stars(self) -> list[int]:
        """The blocks ``s*`` of the union of products (module docstring): every block, a star's hub, or
        ``[-1]`` with self pairs (one product, every block in ``B(1, F)``)."""
        if self.self_pairs:
            return [-1]
        return list(range(len(self.blocks))) if self.hub is None else [self.hub]


def envelope_form(cone: RowCone) -> EnvelopeForm | NotProved:
    """The cone's envelope form, or why it has none."""
    if not cone.blocks:
        return NotProved(NotProvedReason.CONE, "the cone has no ratio blocks")
    factors = np.array([block.factor for block in cone.blocks])
    if np.ptp(factors) > CHECK_ENVELOPE_FORM_RTOL * factors.max():
        return NotProved(NotProvedReason.CONE, "its blocks do not share one factor")
    groups = sorted({block.numerator for block in cone.blocks} | {block.denominator for block in cone.blocks})
    ordered = {(block.numerator, block.denominator) for block in cone.blocks}
    others = {(g, h) for g in groups for h in groups if g != h}
    hub = None
    if ordered == others and len(groups) >= 2:
        self_pairs = False
    elif ordered == others | {(g, g) for g in groups}:
        self_pairs = True
    else:
        spokes = [
            g
            for g in groups
            if ordered == {(g, h) for h in groups if h != g} | {(h, g) for h in groups if h != g}
        ]
        if len(groups) < 3 or len(spokes) != 1:
            return NotProved(
                NotProvedReason.CONE,
                "its blocks are neither every ordered pair of one family of groups nor a star",
            )
        self_pairs, hub = False, groups.index(spokes[0])
    owner = np.full(cone.n_inputs, -1)
    blocks, lowers, slacks = [], [], []
    for g in groups:
        vectors = cone.groups[g].vectors
        support = np.flatnonzero(np.any(vectors != 0.0, axis=0))
        if np.any(vectors < 0.0) or vectors.shape[0] != support.size or support.size == 0:
            return NotProved(
                NotProvedReason.CONE, f"group {g} is not one statistic L + c·e_u per input of its block"
            )
        local = vectors[:, support]
        lower = local.min(axis=0)
        excess = local - lower
        where = excess.argmax(axis=1)
        c = float(excess[np.arange(support.size), where].mean())
        scale = float(np.abs(local).max())
        expected = np.zeros_like(excess)
        expected[np.arange(support.size), where] = c
        if (
            np.unique(where).size != support.size
            or not c > CHECK_ENVELOPE_FORM_RTOL * scale
            or np.abs(excess - expected).max() > CHECK_ENVELOPE_FORM_RTOL * scale
        ):
            return NotProved(NotProvedReason.CONE, f"group {g} is not of the form L + c·e_u")
        if np.any(owner[support] >= 0):
            return NotProved(NotProvedReason.CONE, "two groups share an input")
        owner[support] = g
        blocks.append(support)
        lowers.append(lower)
        slacks.append(c)
    free = np.flatnonzero(owner < 0)
    return EnvelopeForm(
        tuple(blocks), tuple(lowers), np.array(slacks), float(factors.max()), self_pairs, hub, free
    )


def subset_masks(k: int) -> np.ndarray:
    """``(2^k, k)`` booleans: row ``m`` is the subset with bit ``u`` of ``m`` set."""
    return ((np.arange(2**k)[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)


class BlockFormulas:
    """Every candidate point of a block polytope ``B(D, T)`` (module docstring) as ``D·U + T·V``.

    Each formula of the module docstring is affine in ``(D, T)`` for a fixed subset: with ``β = (T −
    D)/c`` and ``σ = c + ΣL``, the low level ``lo = (D − β y_H)/σ = D (c + y_H)/(cσ) − T y_H/(cσ)``, the
    high level ``T/(c + y_H)`` and the free coordinate ``(D − β y_H)/L_k = D (c + y_H)/(c L_k) − T y_H/(c
    L_k)``. The coefficient rows ``U``, ``V`` are built once per block, so the points of many ``(D, T)``
    cost one multiply-add each.
    """

    def __init__(self, lower: FloatArray, slack: float) -> None:
        self.lower, self.slack = lower, slack
        c = slack
        sigma = c + float(lower.sum())
        masks = subset_masks(lower.size).astype(np.float64)
        y = masks @ lower
        low_u = ((c + y) / (c * sigma))[:, None] - masks / c
        low_v = -(y / (c * sigma))[:, None] + masks / c
        u_parts, v_parts = [low_u, np.zeros_like(masks)], [low_v, masks / (c + y)[:, None]]
        for free in np.flatnonzero(lower > 0.0):
            outside = masks[:, free] == 0.0
            rows, sums = masks[outside], y[outside]
            u, v = -rows / c, rows / c
            u[:, free] = (c + sums) / (c * lower[free])
            v[:, free] = -sums / (c * lower[free])
            u_parts.append(u)
            v_parts.append(v)
        self.U, self.V = np.vstack(u_parts), np.vstack(v_parts)
        self.sigma = sigma

    def points(self, D: FloatArray, T: FloatArray) -> tuple[FloatArray, np.ndarray]:
        """For each pair ``(D_e, T_e)``: the candidates (``(E, C, k)``, clipped at 0) and which of them lie
        in ``B(D_e, T_e)`` within :data:`~privopt.tolerances.CHECK_FEASIBILITY_ATOL` (``(E, C)``). Where
        ``β`` vanishes the polytope is the single point ``(D/σ) 1``, the only candidate kept."""
        D, T = np.asarray(D, dtype=np.float64), np.asarray(T, dtype=np.float64)
        points = D[:, None, None] * self.U + T[:, None, None] * self.V
        atol = CHECK_FEASIBILITY_ATOL * np.maximum(1.0, T)[:, None, None]
        sides = (points @ self.lower)[..., None] + self.slack * points
        feasible = (
            np.all(points >= -atol, axis=2)
            & np.all(sides >= D[:, None, None] - atol, axis=2)
            & np.all(sides <= T[:, None, None] + atol, axis=2)
        )
        flat = (T - D) / self.slack <= CHECK_FEASIBILITY_ATOL * np.maximum(1.0, np.abs(D))
        if np.any(flat):
            points[flat, 0, :] = (D[flat] / self.sigma)[:, None]
            feasible[flat] = False
            feasible[flat, 0] = True
        return np.clip(points, 0.0, None), feasible  # duplicates (a point of two kinds) only repeat work


def block_points(lower: FloatArray, slack: float, D: float, T: float) -> FloatArray:
    """Points of ``B(D, T)`` (rows) including all its vertices (module docstring)."""
    points, feasible = BlockFormulas(lower, slack).points(np.array([D]), np.array([T]))
    return points[0][feasible[0]]


def event_points(form: EnvelopeForm, star: int) -> FloatArray:
    """``ρ`` values in ``[low, F]`` where a block's vertex formulas may change, with both ends."""
    F = form.factor
    found = [np.array([form.low, F])]
    for s, lower in enumerate(form.lower):
        y = subset_masks(lower.size) @ lower
        c = form.slack[s]
        if s == star:
            positive = y[y > 0.0]
            found.append((1.0 + c / positive) / F)
        else:
            found.append(F * y / (c + y))
    rho = np.concatenate(found)
    return np.unique(rho[(rho >= form.low) & (rho <= F)])


@dataclass(frozen=True)
class EnvelopeMaximum:
    """``max R`` over the cone (``value``; ``margin`` bounds its rounding), a column attaining it."""

    value: float
    margin: float
    column: FloatArray
    points: int
    seconds: float


def _configurations(form: EnvelopeForm) -> list[tuple[int, FloatArray]]:
    """``(s*, events)`` for every star block (self pairs: one configuration at ``ρ = 1``)."""
    if form.self_pairs:
        return [(-1, np.array([1.0]))]
    return [(star, event_points(form, star)) for star in form.stars]


@dataclass(frozen=True)
class FreeRays:
    """The largest ``R(e_x)`` over the free inputs (``-inf`` if none), its rounding margin and ``e_x``."""

    value: float
    margin: float
    column: FloatArray | None


def free_rays(
    form: EnvelopeForm, utility: SubConvexUtility, duals: FloatArray, weights: FloatArray
) -> FreeRays | NotProved:
    """``max_x (μ(e_x) − λ_x)/ν_x`` over the free inputs (module docstring), or why it is unbounded."""
    n = form.n_inputs
    if form.free.size == 0:
        return FreeRays(-np.inf, 0.0, None)
    columns = np.zeros((n, form.free.size))
    columns[form.free, np.arange(form.free.size)] = 1.0
    mu = core_mu(utility, columns)
    gain = mu - duals[form.free]
    mass = weights[form.free]
    if np.any((mass <= 0.0) & (gain > 0.0)):
        return NotProved(
            NotProvedReason.CLAIM,
            "a free input has νᵀe_x = 0 and a positive reduced cost: the normalisation does not bound it",
        )
    kept = mass > 0.0
    if not np.any(kept):
        return FreeRays(-np.inf, 0.0, None)
    ratio = gain[kept] / mass[kept]
    best = int(np.argmax(ratio))
    x = int(form.free[kept][best])
    margin = (
        CHECK_ROUNDING_RTOL
        * (abs(float(mu[kept][best])) + abs(float(duals[x])) + 1.0)
        / float(mass[kept][best])
    )
    return FreeRays(float(ratio[best]), margin, columns[:, np.flatnonzero(kept)[best]].copy())


def _bounds(form: EnvelopeForm, s: int, stars: np.ndarray, rho: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(D, T)`` of block ``s`` at each ``(s*, ρ)`` (module docstring; ``s* < 0``: self pairs)."""
    F = form.factor
    self_pairs, starred = stars < 0, stars == s
    D = np.where(self_pairs | starred, 1.0, rho)
    T = np.where(starred, F * rho, F)
    return D, T


def work_estimate(form: EnvelopeForm) -> float:
    """Combinations the enumeration evaluates (``inf`` past :data:`MAX_BLOCK`)."""
    if max(block.size for block in form.blocks) > MAX_BLOCK:
        return np.inf
    per_block = [2**b.size + b.size * 2 ** max(b.size - 1, 0) for b in form.blocks]
    product = float(np.prod(per_block, dtype=np.float64))
    events = sum(len(events) for _, events in _configurations(form))
    return product * events


#: Candidate coordinates (events × candidates × inputs, over the blocks) built at once.
_CHUNK_ENTRIES = 2_000_000


def maximise_ratio(
    form: EnvelopeForm,
    utility: SubConvexUtility,
    duals: FloatArray,
    weights: FloatArray,
    deadline: float | None,
) -> EnvelopeMaximum | NotProved:
    """``max_w (μ(w) − λᵀw)/νᵀw`` over the cone by enumerating its vertices (module docstring), or why
    it could not be done. The blocks' candidates are built for many events at once (:class:`BlockFormulas`)."""
    start = time.perf_counter()
    n = form.n_inputs
    scale = entropy_scale(utility)
    p = entropy_prior(utility)  # NMI too: μ = MI / H(X)
    formulas = [
        BlockFormulas(lower, float(slack)) for lower, slack in zip(form.lower, form.slack, strict=True)
    ]
    per_event = sum(f.U.size for f in formulas)
    step = max(1, _CHUNK_ENTRIES // per_event)
    best, best_margin, best_column, points = -np.inf, 0.0, np.zeros(n), 0
    configurations = _configurations(form)
    all_stars = np.concatenate([np.full(events.size, star) for star, events in configurations])
    all_rho = np.concatenate([events for _, events in configurations])
    for first in range(0, all_rho.size, step):  # the events of every s*, in chunks
        if deadline is not None and time.perf_counter() > deadline:
            return NotProved(NotProvedReason.DEADLINE, "the time limit was reached")
        stars, rho = all_stars[first : first + step], all_rho[first : first + step]
        blocks = [f.points(*_bounds(form, s, stars, rho)) for s, f in enumerate(formulas)]
        sums = (
            None
            if p is None
            else [_block_sums(form, s, pts, p, scale, duals, weights) for s, (pts, _) in enumerate(blocks)]
        )
        counts = np.array([feasible.sum(axis=1) for _, feasible in blocks], dtype=np.float64)
        sizes = np.prod(counts, axis=0)
        if np.any(sizes > MAX_PRODUCT):
            return NotProved(
                NotProvedReason.SIZE,
                f"a product of block vertices has {sizes.max():.3g} combinations (limit {MAX_PRODUCT:.3g})",
            )
        points += rho.size
        for e in range(rho.size):
            kept = [feasible[e] for _, feasible in blocks]
            try:
                if sums is not None:
                    value, margin, choice = _separable_max(
                        [block[:, e, k] for block, k in zip(sums, kept, strict=True)], scale, best
                    )
                else:
                    parts = [pts[e][k] for (pts, _), k in zip(blocks, kept, strict=True)]
                    value, margin, choice = _general_max(form, parts, utility, duals, weights, n)
            except _NotPositive:
                return NotProved(
                    NotProvedReason.CLAIM,
                    "a non-zero column of the cone has νᵀw = 0: the normalisation does not bound the cone",
                )
            if value > best:
                best, best_margin = value, margin
                best_column = np.zeros(n)
                for s, ((pts, _), k, index) in enumerate(zip(blocks, kept, choice, strict=True)):
                    best_column[form.blocks[s]] = pts[e][k][index]
    rays = free_rays(form, utility, duals, weights)
    if isinstance(rays, NotProved):
        return rays
    if rays.column is not None and rays.value > best:
        best, best_margin, best_column = rays.value, rays.margin, rays.column
    best_column = best_column / best_column.sum()
    return EnvelopeMaximum(best, best_margin, best_column, points, time.perf_counter() - start)


def _block_sums(
    form: EnvelopeForm,
    s: int,
    points: FloatArray,
    p: FloatArray,
    scale: float,
    duals: FloatArray,
    weights: FloatArray,
) -> FloatArray:
    """Mutual information, per candidate of block ``s`` (over the leading axes of ``points``), stacked on
    a first axis of four: ``A_s = Σ p w log w − Hλᵀw``, ``P_s = pᵀw_s``, ``N_s = νᵀw_s`` and the
    magnitude of ``A_s``'s terms."""
    inputs = form.blocks[s]
    ps, lam, nu = p[inputs], scale * duals[inputs], weights[inputs]
    terms = xlogx(points)
    return np.stack(
        [terms @ ps - points @ lam, points @ ps, points @ nu, np.abs(terms) @ ps + points @ np.abs(lam)]
    )


def _separable_max(
    parts: list[FloatArray], scale: float, floor: float
) -> tuple[float, float, tuple[int, ...]]:
    """Mutual information: ``R = (Σ_s A_s − P log P)/N`` over the product of the blocks' points, from their
    sums ``(A_s, P_s, N_s, magnitude)`` stacked (``4 × k_s``, :func:`_block_sums`), combined by
    broadcasting all four at once. The rounding margin is worked out only above ``floor`` (the best so
    far; below it the maximum is not kept)."""
    sums = np.zeros((4, 1))
    for part in parts:
        sums = (sums[:, :, None] + part[:, None, :]).reshape(4, -1)
    A, P, N, M = sums
    if not np.all(N > 0.0):
        raise _NotPositive
    f = A - xlogx(P)
    ratio = f / (scale * N)
    index = int(np.argmax(ratio))
    value = float(ratio[index])
    if not value > floor:
        return value, 0.0, ()
    margin = (
        CHECK_ROUNDING_RTOL
        * (M[index] + abs(xlogx(np.array([P[index]]))[0]) + abs(f[index]))
        / (scale * N[index])
    )
    choice = tuple(int(i) for i in np.unravel_index(index, [part.shape[1] for part in parts]))
    return value, float(margin), choice


def _general_max(
    form: EnvelopeForm,
    parts: list[FloatArray],
    utility: SubConvexUtility,
    duals: FloatArray,
    weights: FloatArray,
    n: int,
) -> tuple[float, float, tuple[int, ...]]:
    """Any utility: the product's vertices as full columns (in chunks), ``μ`` evaluated by the utility."""
    sizes = [len(x) for x in parts]
    total = int(np.prod(sizes))
    best, margin, choice = -np.inf, 0.0, (0,) * len(parts)
    for start in range(0, total, _CHUNK):
        index = np.unravel_index(np.arange(start, min(total, start + _CHUNK)), sizes)
        columns = np.zeros((index[0].size, n))
        for s, chosen in enumerate(index):
            columns[:, form.blocks[s]] = parts[s][chosen]
        mu = core_mu(utility, columns.T)
        f = mu - columns @ duals
        N = columns @ weights
        if not np.all(N > 0.0):
            raise _NotPositive
        ratio = f / N
        i = int(np.argmax(ratio))
        if ratio[i] > best:
            best = float(ratio[i])
            margin = CHECK_ROUNDING_RTOL * (abs(mu[i]) + columns[i] @ np.abs(duals) + 1.0) / N[i]
            choice = tuple(int(chosen[i]) for chosen in index)
    return best, float(margin), choice


#: Columns materialised at once for a utility that is not separable.
_CHUNK = 20_000


class _NotPositive(Exception):
    """A vertex of the cone has ``νᵀw = 0``: the normalisation does not bound the cone."""
