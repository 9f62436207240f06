"""Exact vertex sets of one envelope block ``{w >= 0 : D <= L·w + c·w_u <= T for all u}``.

For fixed ``D <= T`` (the block's bounds on ``b_s`` and ``a_s``, see :mod:`privopt.routes.pricing.structure`)
write ``β = (T − D)/c``, ``z = L·w`` and ``y_H = Σ_{u∈H} L_u`` for a subset ``H`` of the block. The
vertices of the block polytope are (``c + ΣL = 1``):

- **subset vertices**, one per ``H``: ``w_u = hi`` on ``H`` and ``lo`` off it, with
  ``lo = D − β y_H``, ``hi = lo + β`` when ``y_H <= D/β`` (``b_s = D`` tight), else ``lo = 0``,
  ``hi = T/(c + y_H)`` (``b_s > D``);
- **fractional vertices** on the face ``z = D``: ``w = β`` on ``H``, ``0`` off ``H ∪ {k}``, and
  ``w_k = (D − β y_H)/L_k ∈ (0, β)`` for one ``k ∉ H``.

Every coordinate of a vertex is at ``0``, ``(D − z)/c`` or ``(T − z)/c`` except at most one; the
lists above are all such points (checked against exact enumeration in the tests). The objective of
the pricing problem, ``Σ_u p_u w_u log w_u − λ_u w_u`` (Entropy paper eq. 45 on the slice
``pᵀw = 1``), depends on a subset vertex only through ``(y_H, p_H, λ_H)``: subset sums, computed
once for all ``2^|X_s|`` subsets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privopt.errors import LimitError
from privopt.validation import FloatArray

#: Up to this many points :func:`upper_hull` runs a loop over them, above it array passes (quickhull).
SMALL_HULL = 256

#: Largest block whose ``2^|X_s|`` subset vertices are enumerated (2^16 = 65,536 for Adult's education).
MAX_BLOCK_INPUTS = 18


def subset_sums(values: FloatArray) -> FloatArray:
    """``Σ_{u∈H} values_u`` for every subset ``H`` (index ``H`` as a bit mask: bit ``u`` ⇔ ``u ∈ H``)."""
    out = np.zeros(1)
    for value in values:
        out = np.concatenate([out, out + value])
    return out


def xlogx(t: FloatArray) -> FloatArray:
    """``t log t`` with ``0 log 0 = 0``."""
    t = np.asarray(t, dtype=np.float64)
    positive = t > 0.0
    return np.where(positive, t * np.log(np.where(positive, t, 1.0)), 0.0)


@dataclass(frozen=True, eq=False)
class BlockVertices:
    """The vertices of one block at fixed ``(D, T)``, as pricing terms.

    ``mass[i] = p_sᵀw`` (increasing in ``i``) and ``value[i] = Σ_u p_u w_u log w_u − λ_sᵀw`` at vertex
    ``i``; the vertex is subset ``subset[i]`` with free coordinate ``free[i]`` (``-1``: a subset
    vertex). ``hull`` indexes the upper convex hull of the points ``(mass, value)``: ``max_i value_i −
    ν mass_i`` is attained on it for every ``ν``.
    """

    mass: FloatArray
    value: FloatArray
    subset: np.ndarray
    free: np.ndarray
    hull: np.ndarray

    @property
    def nbytes(self) -> int:
        return int(self.mass.nbytes + self.value.nbytes + self.subset.nbytes + self.free.nbytes)


@dataclass(frozen=True, eq=False)
class BlockGeometry:
    """The vertices of one block at fixed ``(D, T)``, whatever the duals (kept across pricings), in
    order of mass (a window of masses is a slice).

    Vertex ``i`` is subset ``subset[i]`` with free coordinate ``free[i]`` (``-1``: a subset vertex);
    ``mass[i] = p_sᵀw`` and ``entropy[i] = Σ_u p_u w_u log w_u``; its dual term is ``λ_sᵀw = Λ_H·set_factor[i] +
    λ_free·free_factor[i]``, where ``Λ_H`` sums the duals over the subset and ``λ_{-1}`` is their sum
    over the block: a subset vertex is ``hi − lo`` on ``H`` above ``lo`` everywhere, a fractional
    vertex ``β`` on ``H`` and ``w_k`` at ``k``.
    """

    mass: FloatArray
    entropy: FloatArray
    subset: np.ndarray
    free: np.ndarray
    set_factor: FloatArray
    free_factor: FloatArray

    @property
    def nbytes(self) -> int:
        arrays = (self.mass, self.entropy, self.subset, self.free, self.set_factor, self.free_factor)
        return sum(int(a.nbytes) for a in arrays)

    def terms(self, duals: FloatArray, dual_sums: FloatArray) -> BlockVertices:
        """The vertices' pricing terms for duals ``λ_s`` (``dual_sums``: :func:`subset_sums` of them)."""
        extended = np.append(duals, dual_sums[-1])  # index -1: the whole block's sum
        value = (
            self.entropy - dual_sums[self.subset] * self.set_factor - extended[self.free] * self.free_factor
        )
        hull = upper_hull(self.mass, value, ordered=True)
        return BlockVertices(self.mass, value, self.subset, self.free, hull)


def upper_hull(mass: FloatArray, value: FloatArray, *, ordered: bool = False) -> np.ndarray:
    """Indices of the upper convex hull of the points ``(mass, value)``, left to right (quickhull).

    ``max_i value_i − ν mass_i`` over all points equals the maximum over these for every ``ν``. A point
    dropped as "not above" a hull edge is at most rounding above it (covered by the bound's margin).

    ``ordered``: ``mass`` is non-decreasing. Then only *records* can be vertices: with ``value`` sheared
    by the slope between the first and the last point (a shear keeps the hull's vertices), a vertex
    left of the hull's highest point is higher than every point before it (the hull rises to it),
    and one right of it higher than every point after it. On the block vertex lists of pricing that
    leaves a few hundred of about 100,000 points, found in four array passes.
    """
    if mass.size <= 2:
        return np.arange(mass.size)
    if mass.size <= SMALL_HULL:
        return _monotone_chain(mass, value)
    if ordered:
        run = float(mass[-1] - mass[0])
        sheared = value - (float(value[-1] - value[0]) / run if run > 0.0 else 0.0) * mass
        before = np.maximum.accumulate(sheared)
        after = np.maximum.accumulate(sheared[::-1])[::-1]
        records = np.ones(mass.size, dtype=bool)  # the ends stay
        records[1:-1] = (sheared[1:-1] > before[:-2]) | (sheared[1:-1] > after[2:])
        found = np.flatnonzero(records)
        if found.size < mass.size:
            return found[upper_hull(mass[found], value[found], ordered=True)]
    left, right = _end(mass, value, int(np.argmin(mass))), _end(mass, value, int(np.argmax(mass)))
    if left == right:
        return np.array([left])
    chain = [left]
    # Each part carries its candidates' indices and coordinates (gathered once, as they shrink).
    stack: list[tuple[int, int, np.ndarray, FloatArray, FloatArray]] = [
        (left, right, np.arange(mass.size), mass, value)
    ]
    # Depth-first, left part first: vertices are emitted left to right.
    while stack:
        a, b, candidates, m, v = stack.pop()
        if a < 0:  # a marker: emit vertex b
            chain.append(b)
            continue
        dm, dv = mass[b] - mass[a], value[b] - value[a]
        height = dm * (v - value[a]) - dv * (m - mass[a])  # exactly 0 at a and at b
        above = height > 0.0
        if not np.any(above):
            continue
        candidates, m, v, height = candidates[above], m[above], v[above], height[above]
        c = int(candidates[np.argmax(height)])
        stack.append((c, b, candidates, m, v))
        stack.append((-1, c, candidates[:0], m[:0], v[:0]))
        stack.append((a, c, candidates, m, v))
    chain.append(right)
    return np.array(chain, dtype=np.intp)


def _monotone_chain(mass: FloatArray, value: FloatArray) -> np.ndarray:
    """:func:`upper_hull` of a few points by Andrew's monotone chain (quickhull's array passes cost
    more than a loop over them): sorted by mass, the highest of equal masses, then each point drops the
    last ones not strictly above the line from the one before them to it."""
    order = np.lexsort((-value, mass))
    xs, ys = mass[order].tolist(), value[order].tolist()
    chain: list[int] = []
    for k in range(len(xs)):
        if chain and xs[k] <= xs[chain[-1]]:
            continue  # equal mass, lower value: never above the highest
        x, y = xs[k], ys[k]
        while len(chain) >= 2:
            i, j = chain[-2], chain[-1]
            if (xs[j] - xs[i]) * (y - ys[i]) - (ys[j] - ys[i]) * (x - xs[i]) >= 0.0:
                chain.pop()  # j is not above the line from i to k
            else:
                break
        chain.append(k)
    return order[chain]


def window_hull(mass: FloatArray, value: FloatArray, hull: np.ndarray, low: float, high: float) -> np.ndarray:
    """Indices of the upper hull of the points with ``low <= mass <= high``, left to right, given
    ``hull = upper_hull(mass, value)`` and ``mass`` in increasing order (empty when no point lies in
    the window).

    A vertex of the whole hull is extreme in every subset containing it, and the upper hull of a set's
    points left of one of its vertices is the part of its hull left of that vertex. So between the
    first and the last vertex of ``hull`` inside the window the window's hull is ``hull`` itself, and
    only the points beyond them (up to the window's ends: slices of ``mass``) need a hull of their own.
    """
    start, stop = int(np.searchsorted(mass, low, "left")), int(np.searchsorted(mass, high, "right"))
    ends = mass[hull]
    inside = hull[(ends >= low) & (ends <= high)]
    if inside.size == 0:
        return start + upper_hull(mass[start:stop], value[start:stop], ordered=True)
    first, last = int(inside[0]), int(inside[-1])
    # Points of equal mass beside a vertex of the hull lie below it: the slices may end there.
    left = start + upper_hull(mass[start : first + 1], value[start : first + 1], ordered=True)
    right = last + upper_hull(mass[last:stop], value[last:stop], ordered=True)
    return np.concatenate([left[mass[left] < mass[first]], inside, right[mass[right] > mass[last]]])


def _end(mass: FloatArray, value: FloatArray, index: int) -> int:
    """Among the points with the mass of ``index`` (an end of the hull), the highest."""
    ties = mass == mass[index]
    if np.count_nonzero(ties) == 1:
        return index
    found = np.flatnonzero(ties)
    return int(found[np.argmax(value[found])])


class BlockTable:
    """Subset sums of one block, shared by every ``(D, T)`` and every dual vector.

    Parameters
    ----------
    lower:
        ``L_s`` on the block's inputs.
    slack:
        ``c_s = 1 − Σ L_s > 0``.
    weights:
        The utility's ``p`` on the block's inputs.
    """

    def __init__(self, lower: FloatArray, slack: float, weights: FloatArray) -> None:
        if lower.size > MAX_BLOCK_INPUTS:
            raise LimitError(
                f"the envelope bound enumerates 2^|X_s| subsets per block; |X_s| = {lower.size} is above "
                f"{MAX_BLOCK_INPUTS}"
            )
        self.lower = lower
        self.slack = float(slack)
        self.weights = weights
        self.size = lower.size
        self.y = subset_sums(lower)
        self.p = subset_sums(weights)
        self.order = np.argsort(self.y, kind="stable")
        self.y_sorted = self.y[self.order]

    def geometry(self, D: float, T: float) -> BlockGeometry:
        """All vertices at ``(D, T)`` (module docstring), with what their pricing terms take from them."""
        beta = (T - D) / self.slack
        if beta <= 0.0:  # D = T: the single vertex w = D·1
            return BlockGeometry(
                np.array([self.p[-1] * D]),
                np.array([self.p[-1] * float(xlogx(np.array(D)))]),
                np.zeros(1, np.int32),
                np.full(1, -1, np.int16),
                np.zeros(1),
                np.array([D]),
            )
        y_star = D / beta
        tight = self.y <= y_star
        lo = np.where(tight, np.maximum(D - beta * self.y, 0.0), 0.0)
        hi = np.where(tight, lo + beta, T / (self.slack + self.y))
        p_out = self.p[::-1]  # sums over the complement of H (exactly 0 when its weights are 0)
        masses = [self.p * hi + p_out * lo]
        entropies = [self.p * xlogx(hi) + p_out * xlogx(lo)]
        subsets = [np.arange(self.y.size, dtype=np.int32)]
        frees = [np.full(self.y.size, -1, np.int16)]
        set_factors, free_factors = [hi - lo], [lo]
        beta_log = float(xlogx(np.array(beta)))
        for k in range(self.size):
            l_k = self.lower[k]
            if l_k <= 0.0:
                continue
            start = np.searchsorted(self.y_sorted, y_star - l_k, side="right")
            stop = np.searchsorted(self.y_sorted, y_star, side="left")
            cand = self.order[start:stop]
            cand = cand[((cand >> k) & 1) == 0]
            w_k = (D - self.y[cand] * beta) / l_k
            keep = (w_k > 0.0) & (w_k < beta)
            cand, w_k = cand[keep], w_k[keep]
            if cand.size == 0:
                continue
            masses.append(self.p[cand] * beta + self.weights[k] * w_k)
            entropies.append(self.p[cand] * beta_log + self.weights[k] * xlogx(w_k))
            subsets.append(cand.astype(np.int32))
            frees.append(np.full(cand.size, k, np.int16))
            set_factors.append(np.full(cand.size, beta))
            free_factors.append(w_k)
        mass = np.concatenate(masses)
        order = np.argsort(mass, kind="stable")
        return BlockGeometry(
            mass[order],
            np.concatenate(entropies)[order],
            np.concatenate(subsets)[order],
            np.concatenate(frees)[order],
            np.concatenate(set_factors)[order],
            np.concatenate(free_factors)[order],
        )

    def points(self, D: FloatArray, T: FloatArray) -> list[FloatArray]:
        """Every vertex of the block at each ``(D_i, T_i)`` as rows (the entries on ``X_s``; module
        docstring): the ``2^|X_s|`` subset vertices in mask order, then the fractional ones by free
        coordinate; one array per pair, all pairs in a fixed number of array operations."""
        D, T = np.asarray(D, dtype=np.float64), np.asarray(T, dtype=np.float64)
        n_subsets = self.y.size
        members = ((np.arange(n_subsets)[:, None] >> np.arange(self.size)[None, :]) & 1).astype(bool)
        beta = (T - D) / self.slack
        flat = beta <= 0.0  # D = T: the single vertex w = D·1
        with np.errstate(divide="ignore", invalid="ignore"):
            tight = self.y[None, :] <= (D / beta)[:, None]
        lo = np.where(tight, np.maximum(D[:, None] - beta[:, None] * self.y, 0.0), 0.0)
        hi = np.where(tight, lo + beta[:, None], T[:, None] / (self.slack + self.y))
        rows = [np.where(members[None], hi[:, :, None], lo[:, :, None]).reshape(-1, self.size)]
        owners = [np.repeat(np.arange(D.size), n_subsets)]
        for k in np.flatnonzero(self.lower > 0.0):
            outside = np.flatnonzero(~members[:, k])
            w_k = (D[:, None] - self.y[outside][None, :] * beta[:, None]) / self.lower[k]
            at, which = np.nonzero((w_k > 0.0) & (w_k < beta[:, None]) & ~flat[:, None])
            fractional = members[outside[which]] * beta[at, None]
            fractional[:, k] = w_k[at, which]
            rows.append(fractional)
            owners.append(at)
        owner = np.concatenate(owners)
        order = np.argsort(owner, kind="stable")
        split = np.split(np.vstack(rows)[order], np.cumsum(np.bincount(owner, minlength=D.size))[:-1])
        return [np.full((1, self.size), D[i]) if flat[i] else split[i] for i in range(D.size)]

    def point(self, D: float, T: float, subset: int, free: int) -> FloatArray:
        """The block's column (its entries on ``X_s``) at vertex ``(subset, free)``."""
        beta = (T - D) / self.slack
        members = ((subset >> np.arange(self.size)) & 1).astype(bool)
        if beta <= 0.0:
            return np.full(self.size, D)
        if free >= 0:
            w = np.where(members, beta, 0.0)
            w[free] = min(max((D - self.y[subset] * beta) / self.lower[free], 0.0), beta)
            return w
        if self.y[subset] <= D / beta:
            lo = max(D - beta * self.y[subset], 0.0)
            return np.where(members, lo + beta, lo)
        return np.where(members, T / (self.slack + self.y[subset]), 0.0)
