"""The checker's proof of ``max_{w ∈ K} (μ(w) − λᵀw)/pᵀw <= δ`` on envelope cones too large to enumerate.

:mod:`privopt.certificates.envelope` enumerates every product of block vertices at every event of
``ρ``; with blocks of 16 inputs (Adult's education: ``2^16`` subsets per block, about ``10^6`` events)
that is out of reach. This module proves or refutes the same claim by bounds, for mutual information
(and NMI) with the utility's own prior as the normalisation (``ν = p``), reusing the structure derived
in :mod:`privopt.certificates.envelope` (union of products over ``(s*, ρ)``, block polytopes
``B(D, T)``, their vertex kinds and events) and deriving the rest here.

**Separable ratio.** Mutual information is ``μ(w) = Σ_x p_x w_x log w_x − P log P`` with ``P = pᵀw``
(Entropy paper eq. 45), so on a product of blocks ``R(w) = (μ(w) − λᵀw)/P = A/P − log P`` with
``A = Σ_s A_s``, ``A_s = Σ_{x ∈ X_s} p_x w_x log w_x − λ_sᵀw_s`` and ``P = Σ_s P_s``, ``P_s = p_sᵀw_s``.
For NMI (``μ = I/H``) the same holds with ``Hλ`` in place of ``λ`` and ``R`` divided by ``H``.

**Block candidates from subset sums.** Every vertex of ``B(D, T)`` is one of (envelope.py; ``β = (T −
D)/c``, ``σ = c + ΣL``, ``y* = D/β``, ``y_H, p_H, λ_H`` the sums of ``L, p, λ`` over ``H``, ``H̄`` its
complement):

- a subset vertex per ``H``: if ``y_H <= y*``, ``lo = (D − β y_H)/σ`` off ``H`` and ``lo + β`` on it, so
  ``P = p_H (lo + β) + p_H̄ lo`` and ``A = p_H φ(lo + β) + p_H̄ φ(lo) − λ_H (lo + β) − λ_H̄ lo``
  (``φ(t) = t log t``); else ``hi = T/(c + y_H)`` on ``H`` and 0 off it, ``P = p_H hi``, ``A = p_H φ(hi) −
  λ_H hi``;
- a fractional vertex per ``H`` and ``k ∉ H`` with ``L_k > 0`` and ``y* − L_k < y_H < y*``: ``β`` on
  ``H``, ``w_k = (D − β y_H)/L_k`` and 0 elsewhere, ``P = β p_H + p_k w_k``, ``A = p_H φ(β) − λ_H β +
  p_k φ(w_k) − λ_k w_k``;
- if ``D = T``, the single point ``(D/σ)·1``.

So every candidate's ``(P_s, A_s)`` comes from three subset sums, without forming the point.

**Lagrangian bound.** Let ``V_s`` be finite sets of candidates and ``Φ_s(ν) = max_{V_s} (A_s − ν P_s)``.
For any product point, ``A <= Φ(ν) + νP`` with ``Φ = Σ_s Φ_s``, hence ``R <= ν + Φ/P − log P``. If the
product's masses lie in ``[P_lo, P_hi]``, the right side is largest at ``P = clip(−Φ, P_lo, P_hi)``
(its derivative in ``P`` is ``−(Φ + P)/P²``), which gives, for every ``ν``,

    R <= ν + Φ(ν)/P* − log P*,      P* = clip(−Φ(ν), P_lo, P_hi)

(``ν − 1 − log(−Φ(ν))`` when unclipped; no bound when ``P* <= 0``). The right side is convex in ``ν``
(a maximum over ``P`` of functions convex in ``ν``) and smooth between the slopes of the upper hulls of
the points ``(P_s, A_s)``, where only the hulls matter (``Φ_s`` is attained on them); its minimum is
at such a slope or at a stationary point ``−Φ(ν) = M`` of a piece (``M`` its maximisers' mass). Any
``ν`` gives a valid bound; the checker evaluates it at the ``ν`` it picks by direct maxima over each
hull's vertices, after raising each hull by the largest amount a candidate exceeds it, so the hull
algorithm's rounding cannot make the bound too small.

*Duality gap.* When the minimising ``ν`` is not at a slope of a hull, every block has one maximiser,
their mass is ``P*`` and the bound equals their combination's ``R``: it is exact. Otherwise some block
has two maximisers of different mass; splitting that block's candidates at the middle mass into two
ranges (each node of the branch and bound then restricts some blocks to a mass range, and its bound
uses the hulls of the restricted candidates) separates them, and closes the gap in finitely many
steps (a multiple-choice knapsack).

**Intervals of ρ.** For a star block ``s*`` and ``ρ`` in ``I = [ρ1, ρ2]``, each candidate *type* (kind
and ``H``, with ``k``) is valid (is a vertex formula) on a closed interval of ``ρ`` — ``y* = ρc/(F − ρ)``
for the other blocks and ``c/(Fρ − 1)`` for ``s*`` is monotone in ``ρ`` — on which its point is affine
in ``ρ`` (``D``, ``T`` and ``β`` are). Take a product vertex at some ``ρ ∈ I``; on the interval ``J``
where all its types are valid, within ``I``, the product point is affine, so by quasi-convexity ``R``
there is at most its value at an end of ``J``. An end is ``ρ1`` or ``ρ2`` (a product point there: at
most the exact maximum at that point) or an *event* inside ``I`` where some block ``s0``'s type stops
being valid: the kinds of ``H`` meet at ``y_H = y*`` and a fractional type's ends are those of ``H``
and ``H ∪ {k}``, so block ``s0`` is at the *event vertex* ``β·1_H`` with ``y_H = y*``, i.e.
``F/(c + y_H)·1_H`` at ``ρ = F y_H/(c + y_H)`` (other blocks) or ``(1/y_H)·1_H`` at ``ρ = (c + y_H)/(F y_H)``
(``s*``). Every other block's point there is, by the same affinity, a convex combination of its type's
points at the ends of its own validity within ``I``: candidates at ``ρ1`` or ``ρ2``, or event vertices
inside ``I``. ``R`` is quasi-convex in each block separately, so

    max_{ρ ∈ I} max R  <=  max( M(ρ1), M(ρ2), max_{s0} Λ[ Q_{s0} × Π_{s≠s0} (V_s(ρ1) ∪ V_s(ρ2) ∪ Q_s) ] )

with ``M(ρ)`` the maximum over the exact product at ``ρ``, ``Q_s`` the event vertices of block ``s``
with events inside ``I`` and ``Λ`` the Lagrangian bound. Points stable over ``I`` are thus charged to
the exact ends (no slack is lost on a plateau of ``ρ``), and an interval without events is bounded by
its ends alone. The branch and bound splits ``I`` at the median event of the block ``s0`` that
attains the bound.

**Nested intervals.** The blocks' polytopes are nested in ``ρ``: ``s*``'s ``B(1, Fρ)`` grows with
``ρ`` and the others' ``B(ρ, F)`` shrink. So every product over ``I = [ρ1, ρ2]`` lies in the one product
``B(1, Fρ2) × Π_{s≠s*} B(ρ1, F)``, and that product's Lagrangian bound with mass branching bounds the
whole interval. Its points need not lie in the cone (``s*``'s upper side may exceed ``F·ρ1``), so its
maximisers prove nothing against the claim; where the event bound (below) does not prove an interval,
the checker tries it for a few nodes (:data:`NESTED_NODES`) before splitting.

**Normalisation.** If ``ν = p(1 + e)`` with ``|e_x| <= η`` (the same zeros; ``η`` at most
:data:`CHECK_LAGRANGIAN_WEIGHTS_RTOL`), then ``νᵀw`` is within ``1 ± η`` of ``pᵀw``, so ``R_ν <= R_p/(1 − η)`` where
``R >= 0`` and ``R_ν <= R_p/(1 + η)`` where ``R < 0``: proving ``R_p <= δ(1 ∓ η)`` (by the sign of
``δ``) proves ``R_ν <= δ``.

**Exact points** (a product at one ``ρ``, every point of which is in the cone) get the mass branch
and bound; the combination of maximisers at each node's ``ν`` is a column of the cone, and one whose
``R`` exceeds the claim refutes it. With self pairs the cone is the single product ``B(1, F)^S``.

**Partial proofs.** When the deadline stops the search, every interval of ``ρ`` is closed (its bound
is in the proof's largest so far) or waits in the queue with the bound of the interval it was split
from: that bound covers the whole parent interval, ends included (the interval bound above), so it
covers the part. The largest of these is a bound on ``R`` over the whole cone, weaker than the limit;
until every ``s*`` has had its first interval bounded there is none (``inf``). A search stopped inside
an exact point charges that point to its interval's bound.

**Processes.** The stars' intervals are proved independently of each other (the limit is fixed, not
an incumbent), so where the blocks are large (:data:`PARALLEL_SUBSETS`) the stars are dealt
round-robin to one joblib process per core, each proving its share within a share of the memory
budget: the claim is proved when every share is, refuted when one is, and a deadline's partial bound
is the largest of the shares' (proved shares give their proof's). A failed worker leaves the proof to
this process, from the start. Inside a worker process (a curve's chunk, a sweep's cell) the proof
stays in it.

**Positivity.** The bound needs ``P > 0`` on the cone (``ν = p``). A block has a point with ``p_sᵀw_s =
0`` exactly when all its weights are 0, or when ``y_Z >= y*`` for ``Z = {u : p_u = 0}`` (such a point
lives on ``Z``, so ``L_Zᵀw_Z >= D`` and ``L_Zᵀw_Z + c max w <= T``; ``w`` uniform on ``Z`` is feasible
iff ``y_Z (T − D) >= cD``): an interval of ``ρ``. If for some ``s*`` these intervals of all blocks meet,
the cone has a column with ``pᵀw = 0`` and nothing is proved (as :mod:`~privopt.certificates.envelope`
refuses such cones); otherwise every product has ``P > 0``.

**Rounding.** A candidate's ``A_s`` is a sum of a few terms computed to a few ulps of their magnitudes
``Σ p|w log w| + Σ |λ| w``, and its ``P_s`` (non-negative terms) to a few ulps of itself. Each ``A_s``
is raised by :data:`~privopt.tolerances.CHECK_ROUNDING_RTOL` times its own magnitude before hulls are
taken; each hull is raised by the largest amount a candidate exceeds it (as computed); a relative
error ``r`` of the masses is absorbed by evaluating the bound at ``ν + |ν| r/(1 − r)`` over the mass range
widened by ``r`` (``A <= Φ(ν) + νP̃ <= Φ(ν) + (ν + |ν| r')P``); the scores ``value − ν·mass`` get 64 ulps of
their terms and the final value ``CHECK_ROUNDING_RTOL`` of its own terms. A bound exact to rounding
above the claim with no column above it is not a verdict ("not proved").
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import multiprocessing
import os
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed

from privopt.certificates.envelope import EnvelopeForm, free_rays
from privopt.certificates.objective import entropy_prior, entropy_scale, xlogx
from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.memory import current_limit, limited
from privopt.tolerances import CHECK_LAGRANGIAN_WEIGHTS_RTOL, CHECK_ROUNDING_RTOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: Largest block whose ``2^k`` subset sums the method tabulates.
MAX_BLOCK = 20

#: Bytes of block candidate lists kept between uses, and at most this share of the memory limit
#: (recomputed when evicted; on occupation × education a cache of 64 MiB instead of 512 MiB took 10 %
#: longer and half the peak memory). At ε = 2 (occupation × education, the certificates of three 540 s
#: runs) 512 MiB instead of 128 MiB took 75 s instead of 90 s, 51 s instead of 64 s and 50 s instead
#: of 69 s; an unbounded cache, 94 s (about 7 GB of candidate lists, first touched).
CACHE_BYTES, CACHE_SHARE = 2**29, 0.125

#: Relative window around the chosen ``ν`` in which a hull's maximiser must not change for the
#: Lagrangian bound to count as exact (else the node branches on that block's mass).
TIE_WINDOW = 1e-12


#: Nodes of the nested product's branch and bound per interval (module docstring, "Nested intervals").
NESTED_NODES = 50

#: A proof runs on several processes (module docstring, "Processes") when its blocks have at least
#: this many subsets in all: occupation × education's 15 education blocks of 2^16 (checks of 40-90 s
#: in one process at ε = 2), not marital-status × education's 7 (4-9 s, where the processes' start
#: and loky's restarts of workers whose memory grew would eat the gain).
PARALLEL_SUBSETS = 2**19

#: Relative rounding of the few floating-point operations of one Lagrangian evaluation (64 ulps).
_ARITHMETIC = 64 * float(np.finfo(np.float64).eps)


# ----------------------------------------------------------------------------- upper hulls
@dataclass(frozen=True, eq=False)
class _Hull:
    """A concave majorant of points ``(P, A)``: its vertices ``(mass, value)`` by increasing mass.

    ``value`` is raised so that the piecewise-linear function through the vertices is at least every
    point's ``A`` (as computed); ``index`` maps vertices to the points they came from (``None`` for
    majorants of majorants), ``slopes`` are the edges' slopes (decreasing, up to rounding).
    """

    mass: FloatArray
    value: FloatArray
    index: np.ndarray | None
    slopes: FloatArray

    @classmethod
    def through(cls, mass: FloatArray, value: FloatArray, index: np.ndarray | None) -> _Hull:
        return cls(mass, value, index, np.diff(value) / np.diff(mass))


def _hull_indices(x: FloatArray, y: FloatArray) -> np.ndarray:
    """Indices of the vertices of the upper convex hull of the points ``(x, y)``, by increasing ``x`` (quickhull:
    the point farthest above a chord is a vertex; points not above either new chord are inside)."""
    low, high = float(x.min()), float(x.max())
    at_low, at_high = np.flatnonzero(x == low), np.flatnonzero(x == high)
    left = int(at_low[np.argmax(y[at_low])])
    right = int(at_high[np.argmax(y[at_high])])
    if not high > low:
        return np.array([left])
    vertices = [left, right]
    work = [(left, right, np.flatnonzero((x > low) & (x < high)))]
    while work:
        a, b, inside = work.pop()
        if inside.size == 0:
            continue
        height = (x[b] - x[a]) * (y[inside] - y[a]) - (y[b] - y[a]) * (x[inside] - x[a])
        above = height > 0.0
        if not np.any(above):
            continue
        inside, height = inside[above], height[above]
        top = int(inside[np.argmax(height)])
        vertices.append(top)
        split = x[top]
        work.append((a, top, inside[x[inside] < split]))
        work.append((top, b, inside[x[inside] > split]))
    found = np.array(vertices)
    return found[np.argsort(x[found], kind="stable")]


def upper_hull(P: FloatArray, A: FloatArray, keep_index: bool = True) -> _Hull:
    """The concave majorant of the points ``(P, A)`` (non-empty), raised to cover them all as computed."""
    index = _hull_indices(P, A)
    mass, value = P[index], A[index]
    majorant = np.interp(P, mass, value) if mass.size > 1 else value[0]
    excess = float(np.max(A - majorant))
    if excess > 0.0:
        value = value + excess
    return _Hull.through(mass, value, index if keep_index else None)


def merged_hull(hulls: list[_Hull]) -> _Hull:
    """A concave majorant of the union of the points the ``hulls`` majorise."""
    if len(hulls) == 1:
        return _Hull(hulls[0].mass, hulls[0].value, None, hulls[0].slopes)
    mass = np.concatenate([h.mass for h in hulls])
    value = np.concatenate([h.value for h in hulls])
    return upper_hull(mass, value, keep_index=False)


# ----------------------------------------------------------------------------- the Lagrangian bound
@dataclass(frozen=True)
class _Bound:
    """``R <= value`` over a product of the hulls' points; the ``ν`` used, each hull's maximiser there
    and, per hull, the masses of its maximisers just left and right of ``ν`` (a tie when they differ)."""

    value: float
    nu: float
    choice: np.ndarray
    low_mass: FloatArray
    high_mass: FloatArray


def _maximisers(hulls: list[_Hull], nu: FloatArray) -> np.ndarray:
    """``(len(hulls), len(nu))``: each hull's maximiser of ``value − ν·mass`` (slopes above ``ν``)."""
    return np.array([np.count_nonzero(h.slopes[:, None] > nu[None, :], axis=0) for h in hulls])


def lagrangian_bound(hulls: list[_Hull], p_low: float, p_high: float) -> _Bound:
    """The smallest ``ν + Φ(ν)/P* − log P*`` over ``ν`` (module docstring), made rigorous at the ``ν``
    found (the hulls' values already include each candidate's rounding margin)."""
    slopes = np.unique(np.concatenate([h.slopes for h in hulls]))
    # One representative ν per piece between consecutive slopes (and beyond both ends).
    if slopes.size:
        spread = 1.0 + float(np.max(np.abs(slopes)))
        middles = np.concatenate(
            [[slopes[0] - spread], 0.5 * (slopes[:-1] + slopes[1:]), [slopes[-1] + spread]]
        )
    else:
        middles = np.zeros(1)
    pick = _maximisers(hulls, middles)
    masses = sum(h.mass[pick[s]] for s, h in enumerate(hulls))
    values = sum(h.value[pick[s]] for s, h in enumerate(hulls))
    # On a piece Φ(ν) = values − ν·masses; the unclipped stationary point has −Φ(ν) = masses.
    with np.errstate(divide="ignore", invalid="ignore"):
        stationary = np.where(masses > 0.0, (values + masses) / masses, np.nan)
    lows = np.concatenate([[-np.inf], slopes])
    highs = np.concatenate([slopes, [np.inf]])
    stationary = np.clip(stationary, lows, highs)
    candidates = np.concatenate([slopes, stationary[np.isfinite(stationary)]])
    if candidates.size == 0:
        candidates = np.zeros(1)
    phi = np.zeros(candidates.size)
    for h in hulls:
        j = _maximisers([h], candidates)[0]
        phi += h.value[j] - candidates * h.mass[j]
    t = _objective(candidates, phi, p_low, p_high)
    nu = float(candidates[int(np.argmin(t))])
    return _rigorous(hulls, nu, p_low, p_high)


def _objective(nu: FloatArray, phi: FloatArray, p_low: float, p_high: float) -> FloatArray:
    """``ν + Φ/P* − log P*`` with ``P* = clip(−Φ, P_lo, P_hi)`` (``inf`` when ``P* <= 0``)."""
    star = np.clip(-phi, p_low, p_high)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(star > 0.0, nu + phi / star - np.log(np.where(star > 0.0, star, 1.0)), np.inf)


def _rigorous(hulls: list[_Hull], nu: float, p_low: float, p_high: float) -> _Bound:
    """The bound at ``ν`` with every rounding accounted for (module docstring, "Rounding")."""
    choice = np.zeros(len(hulls), dtype=np.intp)
    phi = 0.0
    for s, h in enumerate(hulls):
        scores = h.value - nu * h.mass
        choice[s] = int(np.argmax(scores))
        # The scores' own rounding: a few ulps of their terms.
        slack = _ARITHMETIC * float(np.max(np.abs(h.value) + abs(nu) * h.mass))
        phi += float(scores[choice[s]]) + slack
    rtol = CHECK_ROUNDING_RTOL
    phi += _ARITHMETIC * abs(phi) * len(hulls)
    # Masses are exact to rtol: A <= Φ + νP_computed <= Φ + (ν + |ν|·rtol')·P_true.
    shifted = nu + abs(nu) * rtol / (1.0 - rtol)
    low, high = p_low * (1.0 - rtol), p_high * (1.0 + rtol)
    star = min(max(-phi, low), high)
    if not star > 0.0:
        value = np.inf
    else:
        value = shifted + phi / star - float(np.log(star))
        value += rtol * (abs(shifted) + abs(phi / star) + abs(float(np.log(star))) + 1.0)
    eta = TIE_WINDOW * (1.0 + abs(nu))
    near = np.array([nu - eta, nu + eta])
    ties = _maximisers(hulls, near)
    low_mass = np.array([h.mass[ties[s, 1]] for s, h in enumerate(hulls)])
    high_mass = np.array([h.mass[ties[s, 0]] for s, h in enumerate(hulls)])
    return _Bound(float(value), nu, choice, low_mass, high_mass)


# ----------------------------------------------------------------------------- one block's candidates
def _subset_sums(values: FloatArray) -> FloatArray:
    """``Σ_{u∈H} values_u`` for every subset ``H``, indexed by its bit mask (bit ``u`` set iff ``u ∈ H``)."""
    sums = np.zeros(2**values.size)
    for u, value in enumerate(values):
        sums[1 << u : 2 << u] = sums[: 1 << u] + value
    return sums


class _Candidates:
    """The candidates of one block at ``(D, T)`` (module docstring) as ``(P, A)``, with their identity
    (``subset`` mask, ``free`` coordinate or −1), ``A`` raised by its rounding margin (from the
    magnitudes ``Σ p |w log w| + Σ |λ| w`` of its terms) and the hulls of mass ranges of them."""

    def __init__(
        self,
        block: _Block,
        D: float,
        T: float,
        P: FloatArray,
        A: FloatArray,
        subset: np.ndarray,
        free: np.ndarray,
        magnitude: FloatArray,
    ) -> None:
        self.block, self.D, self.T = block, D, T
        self.P, self.A, self.subset, self.free = P, A, subset, free
        # The values the bounds use: each raised by its rounding margin.
        self.raised = A + CHECK_ROUNDING_RTOL * magnitude
        self.full = upper_hull(P, self.raised)
        self.hulls: dict[tuple[float, float], _Hull | None] = {(-np.inf, np.inf): self.full}
        self.nbytes = int(P.nbytes + 2 * A.nbytes + subset.nbytes + free.nbytes)

    def hull(self, low: float, high: float) -> _Hull | None:
        """The hull of the candidates with ``low <= P <= high`` (``None`` if there are none)."""
        key = (low, high)
        if key not in self.hulls:
            inside = np.flatnonzero((self.P - low >= 0.0) & (high - self.P >= 0.0))
            if inside.size == 0:
                self.hulls[key] = None
            else:
                part = upper_hull(self.P[inside], self.raised[inside])
                assert part.index is not None
                self.hulls[key] = _Hull(part.mass, part.value, inside[part.index], part.slopes)
        return self.hulls[key]

    def point(self, i: int) -> FloatArray:
        """Candidate ``i`` as the block's entries of a column."""
        b = self.block
        beta = (self.T - self.D) / b.slack
        members = ((int(self.subset[i]) >> np.arange(b.lower.size)) & 1).astype(bool)
        if not beta > 0.0:
            return np.full(b.lower.size, self.D / b.sigma)
        y = float(b.y[int(self.subset[i])])
        k = int(self.free[i])
        if k >= 0:
            w = np.where(members, beta, 0.0)
            w[k] = (self.D - beta * y) / float(b.lower[k])
            return w
        if y <= self.D / beta:
            low = max((self.D - beta * y) / b.sigma, 0.0)
            return np.where(members, low + beta, low)
        return np.where(members, self.T / (b.slack + y), 0.0)


@dataclass(frozen=True, eq=False)
class _Events:
    """Event vertices of one block in one role, by increasing event ``ρ`` (module docstring)."""

    rho: FloatArray
    P: FloatArray
    A: FloatArray

    def inside(self, r1: float, r2: float) -> tuple[int, int]:
        """The range of events strictly inside ``(r1, r2)``."""
        return int(np.searchsorted(self.rho, r1, side="right")), int(
            np.searchsorted(self.rho, r2, side="left")
        )


class _Block:
    """Subset sums of one block (``L``, ``p`` and the scaled duals), its candidates and events."""

    def __init__(
        self, inputs: np.ndarray, lower: FloatArray, slack: float, p: FloatArray, lam: FloatArray
    ) -> None:
        self.inputs, self.lower, self.slack = inputs, lower, float(slack)
        self.sigma = self.slack + float(np.sum(lower))
        self.p, self.lam = p, lam
        self.y, self.ph, self.lh = _subset_sums(lower), _subset_sums(p), _subset_sums(lam)
        self.la = _subset_sums(np.abs(lam))
        self.order = np.argsort(self.y, kind="stable")
        self.y_sorted = self.y[self.order]
        self.positive = [k for k in range(lower.size) if lower[k] > 0.0]

    def candidates(self, D: float, T: float) -> _Candidates:
        c, sigma = self.slack, self.sigma
        beta = (T - D) / c
        if not beta > 0.0:  # D = T: the single point (D/σ)·1
            w = D / sigma
            entropy = float(xlogx(np.array(w)))
            P = np.array([float(self.ph[-1]) * w])
            A = np.array([float(self.ph[-1]) * entropy - float(self.lh[-1]) * w])
            magnitude = np.array([float(self.ph[-1]) * abs(entropy) + float(self.la[-1]) * w])
            return _Candidates(self, D, T, P, A, np.zeros(1, np.int32), np.full(1, -1, np.int8), magnitude)
        y_star = D / beta
        y, ph, lh, la = self.y, self.ph, self.lh, self.la
        p_out, l_out, a_out = ph[::-1], lh[::-1], la[::-1]  # sums over the complement (mask 2^k − 1 − H)
        tight = y <= y_star
        low = np.where(tight, np.maximum((D - beta * y) / sigma, 0.0), 0.0)
        high = np.where(tight, low + beta, T / (c + y))
        entropy_high, entropy_low = xlogx(high), xlogx(low)
        masses = [ph * high + p_out * low]
        values = [ph * entropy_high + p_out * entropy_low - lh * high - l_out * low]
        magnitudes = [ph * np.abs(entropy_high) + p_out * np.abs(entropy_low) + la * high + a_out * low]
        subsets = [np.arange(y.size, dtype=np.int32)]
        frees = [np.full(y.size, -1, np.int8)]
        beta_log = float(xlogx(np.array(beta)))
        for k in self.positive:
            l_k = float(self.lower[k])
            start = int(np.searchsorted(self.y_sorted, y_star - l_k, side="right"))
            stop = int(np.searchsorted(self.y_sorted, y_star, side="left"))
            chosen = self.order[start:stop]
            chosen = chosen[((chosen >> k) & 1) == 0]
            if chosen.size == 0:
                continue
            w_k = np.clip((D - beta * y[chosen]) / l_k, 0.0, beta)
            entropy_k = xlogx(w_k)
            masses.append(beta * ph[chosen] + self.p[k] * w_k)
            values.append(
                ph[chosen] * beta_log - lh[chosen] * beta + self.p[k] * entropy_k - self.lam[k] * w_k
            )
            magnitudes.append(
                ph[chosen] * abs(beta_log)
                + la[chosen] * beta
                + self.p[k] * np.abs(entropy_k)
                + abs(self.lam[k]) * w_k
            )
            subsets.append(chosen.astype(np.int32))
            frees.append(np.full(chosen.size, k, np.int8))
        return _Candidates(
            self, D, T, np.concatenate(masses), np.concatenate(values), np.concatenate(subsets),
            np.concatenate(frees), np.concatenate(magnitudes),
        )  # fmt: skip

    def zero_mass_range(
        self, self_pairs: bool, star: bool, factor: float, low: float
    ) -> tuple[float, float] | None:
        """The ``ρ ∈ [low, F]`` at which the block has a point with ``p_sᵀw_s = 0`` (``None``: none).

        Such a point lives on ``Z = {u : p_u = 0}``; unless ``Z`` is the whole block it has ``w_u = 0``
        off ``Z``, so ``z = L_Zᵀw_Z >= D`` and ``z + c max w <= T``: possible iff ``y_Z >= y* = cD/(T −
        D)`` (``w`` uniform on ``Z`` attains it), i.e. ``ρ <= F y_Z/(c + y_Z)`` for the other blocks and
        ``ρ >= (c + y_Z)/(F y_Z)`` for ``s*``.
        """
        zero = self.p <= 0.0
        if np.all(zero):
            return low, factor
        y = float(np.sum(self.lower[zero]))
        c = self.slack
        if not (y > 0.0 and factor > 1.0):  # y* = ∞ when D = T
            return None
        if self_pairs:
            return (1.0, factor) if c / (factor - 1.0) <= y else None
        if star:
            return (c + y) / (factor * y), factor
        return low, factor * y / (c + y)

    def events(self, star: bool, factor: float, low: float) -> _Events:
        """Every subset's event vertex with its event strictly inside ``(low, F)``."""
        chosen = np.flatnonzero(self.y > 0.0)
        y = self.y[chosen]
        if star:  # y* = c/(Fρ − 1) = y_H, where β = 1/y_H
            rho, beta = (self.slack + y) / (factor * y), 1.0 / y
        else:  # y* = ρc/(F − ρ) = y_H, where β = F/(c + y_H)
            rho, beta = factor * y / (self.slack + y), factor / (self.slack + y)
        keep = (rho > low) & (rho < factor)
        chosen, rho, beta = chosen[keep], rho[keep], beta[keep]
        order = np.argsort(rho, kind="stable")
        chosen, rho, beta = chosen[order], rho[order], beta[order]
        entropy = xlogx(beta)
        magnitude = self.ph[chosen] * np.abs(entropy) + self.la[chosen] * beta
        value = self.ph[chosen] * entropy - self.lh[chosen] * beta + CHECK_ROUNDING_RTOL * magnitude
        return _Events(rho, self.ph[chosen] * beta, value)


# ----------------------------------------------------------------------------- exact points
@dataclass(frozen=True, order=True)
class _Node:
    """A node of a point's branch and bound: mass ranges of some blocks, and where to split next."""

    key: float
    order: int
    restrict: dict[int, tuple[float, float]] = field(compare=False)
    block: int = field(compare=False)
    split: float = field(compare=False)


class _Point:
    """The exact product at one ``ρ``: Lagrangian bounds with branching on block masses.

    ``relaxation``: the product contains points outside the cone (a nested interval), so its best
    combination refutes nothing and :meth:`prove` only proves, within ``max_nodes``.
    """

    def __init__(self, parts: list[_Candidates], relaxation: bool = False) -> None:
        self.parts = parts
        self.relaxation = relaxation
        self.heap: list[_Node] = []
        self.counter = itertools.count()
        self.closed = -np.inf
        self.best = -np.inf
        self.best_choice: list[int] | None = None
        self.nodes = 0

    def _push(self, restrict: dict[int, tuple[float, float]], target: float) -> None:
        hulls = []
        for s, part in enumerate(self.parts):
            hull = part.hull(*restrict.get(s, (-np.inf, np.inf)))
            if hull is None:
                return
            hulls.append(hull)
        self.nodes += 1
        p_low = sum(float(h.mass[0]) for h in hulls)
        p_high = sum(float(h.mass[-1]) for h in hulls)
        bound = lagrangian_bound(hulls, p_low, p_high)
        # The maximisers at ν are a column of the cone: a lower bound on the point's maximum.
        chosen = [int(h.index[j]) for h, j in zip(hulls, bound.choice, strict=True) if h.index is not None]
        mass = sum(float(part.P[i]) for part, i in zip(self.parts, chosen, strict=True))
        value = sum(float(part.A[i]) for part, i in zip(self.parts, chosen, strict=True))
        if mass > 0.0:
            ratio = value / mass - float(np.log(mass))
            if ratio > self.best:
                self.best, self.best_choice = ratio, chosen
        if bound.value <= target:
            self.closed = max(self.closed, bound.value)
            return
        jump = bound.high_mass - bound.low_mass
        block = int(np.argmax(jump))
        split = (
            0.5 * (float(bound.low_mass[block]) + float(bound.high_mass[block]))
            if jump[block] > 0.0
            else np.nan
        )
        heapq.heappush(self.heap, _Node(-bound.value, next(self.counter), restrict, block, split))

    def upper(self) -> float:
        """The largest bound of a node left or closed (``max R`` over the point is at most this)."""
        return max(self.closed, -self.heap[0].key if self.heap else -np.inf)

    def prove(self, target: float, deadline: float | None, max_nodes: float = np.inf) -> str:
        """Branch until every node is at most ``target`` (``"proved"``), a column exceeds it
        (``"refuted"``), a node's bound is exact above it without a column above it (``"undecided"``:
        the two differ only by rounding), the deadline passes (``"time"``) or ``max_nodes`` are spent
        (``"nodes"``). A relaxation is never refuted: where it would be, it is undecided."""
        if self.nodes == 0:
            self._push({}, target)
        while self.heap:
            if self.best > target:
                return "undecided" if self.relaxation else "refuted"
            if _deadline_passed(deadline):
                return "time"
            if self.nodes >= max_nodes:
                return "nodes"
            node = heapq.heappop(self.heap)
            if np.isnan(node.split):
                heapq.heappush(self.heap, node)
                return "undecided"
            low, high = node.restrict.get(node.block, (-np.inf, np.inf))
            for part in ((low, node.split), (node.split, high)):
                self._push({**node.restrict, node.block: part}, target)
        if self.best > target:
            return "undecided" if self.relaxation else "refuted"
        return "proved"

    def column(self, n: int) -> FloatArray:
        """The best column met (entries in the cone's input order, summing to 1)."""
        assert self.best_choice is not None
        column = np.zeros(n)
        for part, i in zip(self.parts, self.best_choice, strict=True):
            column[part.block.inputs] = part.point(i)
        return column / column.sum()


# ----------------------------------------------------------------------------- the search
@dataclass(frozen=True)
class RatioProof:
    """The outcome of :func:`prove_ratio_bound`.

    Attributes
    ----------
    proved:
        Whether ``max R <= limit`` was proved over the whole cone.
    upper:
        When proved, the largest bound of the proof's closed nodes (``<= limit``): ``max R <= upper``.
        When the deadline stopped it, the bound it had proved on the whole cone (above ``limit``;
        module docstring, "Partial proofs"), or ``inf``; otherwise ``inf``.
    column:
        The best column met at an exact point (in the cone; ``Σ w = 1``), ``None`` if none.
    ratio:
        Its ``R`` as computed here (a lower bound on ``max R``); above ``limit`` it refutes the claim.
    reason:
        Why the proof stopped (``"proved"``, ``"refuted"``, or why it did not finish).
    points, intervals, nodes:
        Exact points bounded, intervals of ``ρ`` bounded, Lagrangian bounds computed at the points.
    seconds:
        Time taken.
    """

    proved: bool
    upper: float
    column: FloatArray | None
    ratio: float
    reason: str
    points: int
    intervals: int
    nodes: int
    seconds: float


def _weight_error(p: FloatArray, weights: FloatArray) -> float:
    """The largest ``|ν_x/p_x − 1|`` (``inf`` unless ``ν`` and ``p`` have the same zeros)."""
    if p.shape != weights.shape or np.any((p > 0.0) != (weights > 0.0)):
        return np.inf
    positive = p > 0.0
    return float(np.max(np.abs(weights[positive] / p[positive] - 1.0), initial=0.0))


def applicability(form: EnvelopeForm, utility: SubConvexUtility, weights: FloatArray) -> NotProved | None:
    """Why the method does not apply to ``(form, utility, weights)``, or ``None`` when it does."""
    p = entropy_prior(utility)
    if p is None:
        return NotProved(
            NotProvedReason.UTILITY,
            "the Lagrangian method needs an entropy form (mutual information: μ separable on pᵀw = 1)",
        )
    if not _weight_error(p, np.asarray(weights)) <= CHECK_LAGRANGIAN_WEIGHTS_RTOL:
        return NotProved(
            NotProvedReason.CLAIM, "the Lagrangian method needs the normalisation ν = p (the utility's prior)"
        )
    largest = max(block.size for block in form.blocks)
    if largest > MAX_BLOCK:
        return NotProved(
            NotProvedReason.SIZE,
            f"a block has {largest} inputs (the Lagrangian method tabulates 2^k subsets, k <= {MAX_BLOCK})",
        )
    return None


class _Search:
    """One proof: the blocks' tables, a cache of their candidates, the exact points proved so far."""

    def __init__(
        self, form: EnvelopeForm, p: FloatArray, lam: FloatArray, limit: float, deadline: float | None
    ) -> None:
        self.form, self.limit, self.deadline = form, limit, deadline
        self.n = form.n_inputs
        self.blocks = [
            _Block(inputs, lower, float(slack), p[inputs], lam[inputs])
            for inputs, lower, slack in zip(form.blocks, form.lower, form.slack, strict=True)
        ]
        self.cache: OrderedDict[tuple[int, float, float], _Candidates] = OrderedDict()
        self.cache_bytes = 0
        self.full_hulls: dict[tuple[int, float, float], _Hull] = {}
        self.events: dict[tuple[int, bool], _Events] = {}
        self.upper = -np.inf
        #: When the deadline stops the search: the bound it proved on the whole cone (module docstring,
        #: "Partial proofs"; ``inf`` when some part of the cone has none yet).
        self.partial = np.inf
        self.best = -np.inf
        self.best_column: FloatArray | None = None
        self.points = self.intervals = self.nodes = 0

    # -- block data
    def candidates(self, s: int, D: float, T: float) -> _Candidates:
        key = (s, D, T)
        if key in self.cache:
            self.cache.move_to_end(key)
            return self.cache[key]
        found = self.blocks[s].candidates(D, T)
        self.cache[key] = found
        self.full_hulls[key] = found.full
        self.cache_bytes += found.nbytes
        while self.cache_bytes > min(CACHE_BYTES, CACHE_SHARE * current_limit()) and len(self.cache) > 1:
            _, old = self.cache.popitem(last=False)
            self.cache_bytes -= old.nbytes
        return found

    def full_hull(self, s: int, D: float, T: float) -> _Hull:
        """The hull of all the block's candidates at ``(D, T)`` (kept after the candidates themselves
        are evicted)."""
        key = (s, D, T)
        if key not in self.full_hulls:
            self.candidates(s, D, T)
        return self.full_hulls[key]

    def bounds(self, s: int, star: int, rho: float) -> tuple[float, float]:
        """``(D, T)`` of block ``s`` at ``ρ`` (``star < 0``: self pairs, every block ``(1, F)``)."""
        F = self.form.factor
        if star < 0:
            return 1.0, F
        return (1.0, F * rho) if s == star else (rho, F)

    def block_events(self, s: int, star: bool) -> _Events:
        key = (s, star)
        if key not in self.events:
            self.events[key] = self.blocks[s].events(star, self.form.factor, self.form.low)
        return self.events[key]

    # -- exact points
    def point(self, star: int, rho: float) -> str:
        """Prove the exact product at ``ρ`` (``"proved"``) or say why not (and keep its best column)."""
        parts = [self.candidates(s, *self.bounds(s, star, rho)) for s in range(len(self.blocks))]
        point = _Point(parts)
        outcome = point.prove(self.limit, self.deadline)
        self.points += 1
        self.nodes += point.nodes
        if point.best > self.best and point.best_choice is not None:
            self.best, self.best_column = point.best, point.column(self.n)
        if outcome == "proved":
            self.upper = max(self.upper, point.upper())
        return outcome

    # -- intervals of ρ
    def nested(self, star: int, r1: float, r2: float) -> float | None:
        """The nested product's bound on the whole interval when it proves the limit within
        :data:`NESTED_NODES` nodes, else ``None`` (module docstring)."""
        parts = [
            self.candidates(s, *self.bounds(s, star, r2 if s == star else r1))
            for s in range(len(self.blocks))
        ]
        point = _Point(parts, relaxation=True)
        outcome = point.prove(self.limit, self.deadline, NESTED_NODES)
        self.nodes += point.nodes
        return point.upper() if outcome == "proved" else None

    def unstable(self, star: int, r1: float, r2: float) -> tuple[float, float]:
        """The bound on product vertices inside ``(r1, r2)`` whose types change there (module docstring),
        and the ``ρ`` to split at (``nan`` without events inside)."""
        count = len(self.blocks)
        ranges = [self.block_events(s, s == star).inside(r1, r2) for s in range(count)]
        events = [self.block_events(s, s == star) for s in range(count)]
        if all(a >= b for a, b in ranges):
            return -np.inf, np.nan
        ends: list[list[_Hull]] = []
        for s in range(count):
            ends.append([self.full_hull(s, *self.bounds(s, star, r)) for r in (r1, r2)])
        moving: list[_Hull | None] = []
        for s in range(count):
            a, b = ranges[s]
            moving.append(upper_hull(events[s].P[a:b], events[s].A[a:b], keep_index=False) if a < b else None)
        unions = [merged_hull([*ends[s], *(q for q in (moving[s],) if q is not None)]) for s in range(count)]
        found = []
        for s0, q in enumerate(moving):
            if q is not None:
                hulls = [*unions[:s0], q, *unions[s0 + 1 :]]
                p_low = sum(float(h.mass[0]) for h in hulls)
                p_high = sum(float(h.mass[-1]) for h in hulls)
                found.append((lagrangian_bound(hulls, p_low, p_high).value, s0))
        worst, block = max(found)
        a, b = ranges[block]
        return worst, float(events[block].rho[(a + b) // 2])

    def zero_mass(self) -> bool:
        """Whether the cone has a non-zero column with ``pᵀw = 0`` (module docstring, "Positivity")."""
        F = self.form.factor
        for star in self.form.stars:
            low, high = self.form.low, F
            for s, block in enumerate(self.blocks):
                found = block.zero_mass_range(star < 0, s == star, F, self.form.low)
                if found is None:
                    break
                low, high = max(low, found[0]), min(high, found[1])
            else:
                if low <= high:
                    return True
        return False

    def run(self, stars: list[int]) -> str:
        """Prove the limit over the intervals of ``stars`` (``[-1]``: self pairs, one point)."""
        if self.form.self_pairs:
            outcome = self.point(-1, 1.0)
            return outcome
        F = self.form.factor
        heap = [(-np.inf, s, self.form.low, F) for s in stars]
        done: dict[tuple[int, float], str] = {}
        while heap:
            if _deadline_passed(self.deadline):
                self.partial = max(self.upper, -heap[0][0])
                return "time"
            key, star, r1, r2 = heapq.heappop(heap)
            for r in (r1, r2):
                if (star, r) not in done:
                    done[(star, r)] = self.point(star, r)
                if done[(star, r)] != "proved":
                    if done[(star, r)] == "time":  # this interval's bound covers its end points too
                        self.partial = max(self.upper, -key, -heap[0][0] if heap else -np.inf)
                    return done[(star, r)]
            self.intervals += 1
            value, split = self.unstable(star, r1, r2)
            if value <= self.limit:
                self.upper = max(self.upper, value)
                continue
            nested = self.nested(star, r1, r2)
            if nested is not None:
                self.upper = max(self.upper, nested)
                continue
            if not r1 < split < r2:
                return "undecided"
            heapq.heappush(heap, (-value, star, r1, split))
            heapq.heappush(heap, (-value, star, split, r2))
        return "proved"


def _tighter(limit: float, eta: float) -> float:
    """The limit on ``R_p`` that gives ``limit`` on ``R_ν`` (``prove_ratio_bound``)."""
    return limit * (1.0 - eta) if limit >= 0.0 else limit * (1.0 + eta)


def _deadline_passed(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() > deadline


def prove_ratio_bound(
    form: EnvelopeForm,
    utility: SubConvexUtility,
    duals: FloatArray,
    weights: FloatArray,
    limit: float,
    deadline: float | None,
) -> RatioProof:
    """Prove ``max_{w ∈ K} (μ(w) − λᵀw)/νᵀw <= limit`` on the envelope cone ``form``, or find a column of
    the cone above ``limit``, or say why neither was done (module docstring; ``deadline`` on the
    ``time.perf_counter`` clock)."""
    start = time.perf_counter()
    refused = applicability(form, utility, weights)
    prior = entropy_prior(utility)
    if refused is not None or prior is None:
        return RatioProof(False, np.inf, None, -np.inf, str(refused), 0, 0, 0, time.perf_counter() - start)
    rays = free_rays(form, utility, np.asarray(duals), np.asarray(weights))  # the inputs in no group
    if isinstance(rays, NotProved) or rays.value + rays.margin > limit:
        refuted = not isinstance(rays, NotProved) and rays.value - rays.margin > limit
        reason = (
            rays.message
            if isinstance(rays, NotProved)
            else "refuted: a free input's column exceeds the limit"
            if refuted
            else "a free input's ratio is within rounding of the limit"
        )
        column, ratio = (None, -np.inf) if isinstance(rays, NotProved) else (rays.column, rays.value)
        return RatioProof(False, np.inf, column, ratio, reason, 0, 0, 0, time.perf_counter() - start)
    scale = entropy_scale(utility)
    p = prior
    # ν = p(1 + e), |e| <= η: νᵀw is within a factor 1 ± η of pᵀw, so R_ν <= R_p/(1 ∓ η) (by R's sign).
    eta = _weight_error(p, np.asarray(weights, dtype=np.float64))
    lam, tight = scale * np.asarray(duals), scale * _tighter(limit, eta)
    if _Search(form, p, lam, tight, deadline).zero_mass():
        reason = "a non-zero column of the cone has νᵀw = 0: the normalisation does not bound the cone"
        return RatioProof(False, np.inf, None, -np.inf, reason, 0, 0, 0, time.perf_counter() - start)
    share = _prove_shares(form, p, lam, tight, deadline)
    reasons = {
        "proved": "proved",
        "refuted": "refuted: a column of the cone exceeds the limit",
        "time": "the time limit was reached",
        "undecided": "a bound is exact to rounding above the limit but no column exceeds it",
    }
    outcome = share.outcome
    upper = max(share.upper / scale, rays.value + rays.margin)
    return RatioProof(
        outcome == "proved",
        upper / (1.0 - eta) if upper >= 0.0 else upper / (1.0 + eta),
        share.column,
        share.best / scale,
        reasons.get(outcome, outcome),
        share.points,
        share.intervals,
        share.nodes,
        time.perf_counter() - start,
    )


@dataclass(frozen=True)
class _Share:
    """One search over some stars (in the search's units): how it ended, the bound it proved (the
    proof's when ``"proved"``, the partial one when stopped by the deadline, else ``inf``), the best
    column met and its ratio, and its size."""

    outcome: str
    upper: float
    best: float
    column: FloatArray | None
    points: int
    intervals: int
    nodes: int


def _prove_share(
    form: EnvelopeForm,
    p: FloatArray,
    lam: FloatArray,
    limit: float,
    deadline: float | None,
    stars: list[int],
    memory: int | None = None,
) -> _Share:
    """The search over ``stars``' intervals (within ``memory`` bytes when given: in a worker process)."""
    with limited(memory) if memory is not None else contextlib.nullcontext():
        search = _Search(form, p, lam, limit, deadline)
        outcome = search.run(stars)
    upper = {"proved": search.upper, "time": search.partial}.get(outcome, np.inf)
    return _Share(
        outcome, upper, search.best, search.best_column, search.points, search.intervals, search.nodes
    )


def _processes(form: EnvelopeForm) -> int:
    """Processes for a proof: the cores available when the blocks are large enough to be worth them
    (``PARALLEL_SUBSETS``) and there are stars to share, one inside a worker process."""
    if len(form.stars) < 2 or sum(2 ** len(block) for block in form.blocks) < PARALLEL_SUBSETS:
        return 1
    if multiprocessing.parent_process() is not None:
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _prove_shares(
    form: EnvelopeForm, p: FloatArray, lam: FloatArray, limit: float, deadline: float | None
) -> _Share:
    """The proof over every star, its stars dealt round-robin to worker processes where worthwhile
    (module docstring, "Processes"); a worker that fails leaves the proof to this process."""
    count = min(_processes(form), len(form.stars))
    if count < 2:
        return _prove_share(form, p, lam, limit, deadline, form.stars)
    shares = [form.stars[i::count] for i in range(count)]
    memory = current_limit() // (count + 1)
    try:
        parts = Parallel(n_jobs=count)(
            delayed(_prove_share)(form, p, lam, limit, deadline, share, memory) for share in shares
        )
    except Exception as error:  # a dead worker, whatever joblib calls it
        warnings.warn(
            f"a proof worker failed ({error!r}); the proof goes on in this process",
            RuntimeWarning,
            stacklevel=2,
        )
        return _prove_share(form, p, lam, limit, deadline, form.stars)
    return _combine(parts)


def _combine(parts: list[_Share]) -> _Share:
    """The proof of the union of the shares' stars: refuted if one is; else the first other failure;
    else stopped by the deadline if one was (the largest of the bounds proved), else proved."""
    outcomes = [part.outcome for part in parts]
    if "refuted" in outcomes:
        outcome = "refuted"
    else:
        failures = [o for o in outcomes if o not in ("proved", "time")]
        outcome = failures[0] if failures else "time" if "time" in outcomes else "proved"
    best = max(parts, key=lambda part: part.best)
    upper = max(part.upper for part in parts) if outcome in ("proved", "time") else np.inf
    return _Share(
        outcome, upper, best.best, best.column,
        sum(part.points for part in parts), sum(part.intervals for part in parts),
        sum(part.nodes for part in parts),
    )  # fmt: skip
