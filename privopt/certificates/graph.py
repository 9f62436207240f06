"""The checker's proof of ``max (μ(w) − λᵀw)/pᵀw <= limit`` on graph cones, where the tree method's
forest is missing.

The cone's bounds between single inputs, closed under composition (:func:`~privopt.certificates.tree.closed_pairs`),
are *difference constraints* ``h_a − h_b <= D_ab`` on ``h = log w``; a ray has a spanning tree of tight
pairs, so with every essential bound a multiple of one unit ``u`` it is a walk on the lattice ``h = u·k``,
and the tree method's argument (Lagrangian lines in ``ν``, bisection of level ranges) applies to it
unchanged. Two parts differ:

- *the oracle*: the largest ``Σ_i t_i(k_i)`` over levels within ranges that keep ``k_a − k_b <= D_ab/u``
  is a maximum-weight closure in the threshold variables ``z_{i,l} = [k_i >= l]``. The checker solves its
  linear program with HiGHS and takes as the bound, not the LP's value, the weak-duality bound of its row
  duals ``y`` (any ``y >= 0`` proves ``cᵀz <= Σ_j max_{z_j ∈ [lo_j, up_j]} (c − Mᵀy)_j z_j``); the walk read
  from the solution must satisfy every pair before it may refute a claim;
- *the counted walks* (``max_i (k_i − c_i) = 0``): one first node per input ``x``, the first at its cap
  (``k_x = c_x``, ``k_y <= c_y − 1`` before it), so the first nodes partition the walks;
- *the exact proof*, where the bisection needs many nodes: ``max P (R − L) <= 0`` over the counted walks
  by a HiGHS MIP over the threshold variables with "some input at its cap" as a row and ``−P log P``
  bounded by tangents (over-estimates, so the MIP's dual bound is a proof), added where its walk lands;
  it runs in a thread beside the bisection (:class:`~privopt.certificates.tree.Lattice`'s
  ``prove_whole``), and the first to decide stops the other.

It shares no code with the route's graph pricer: the forms, the LP and the bounds are the checker's own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp

from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.certificates.tree import Lattice, closed_pairs, lattice_unit
from privopt.compiler.cone import RowCone
from privopt.solvers.lp import highs_lp, limit_run, mip_bound_holds, new_highs
from privopt.tolerances import CHECK_LP_FEASIBILITY_TOL, CHECK_ROUNDING_RTOL, CHECK_TREE_FORM_RTOL
from privopt.validation import FloatArray

_NEG = -np.inf

#: The exact proof's MIPs: proved to optimality, at tight LP tolerances (their dual bounds are the proof).
_MIP_OPTIONS: dict[str, float] = {
    "mip_rel_gap": 0.0,
    "mip_abs_gap": 0.0,
    "primal_feasibility_tolerance": CHECK_LP_FEASIBILITY_TOL,
    "dual_feasibility_tolerance": CHECK_LP_FEASIBILITY_TOL,
}

#: Tangents of ``−P log P`` the exact proof starts with, and the most it adds.
_FIRST_TANGENTS = 24
_MAX_TANGENTS = 60


@dataclass(frozen=True, eq=False)
class GraphForm:
    """The cone as difference constraints on a lattice: the unit, each component's inputs, the closed
    bounds in levels (``steps[a, b]``: how far ``a`` may be above ``b``) and the essential pairs."""

    unit: float
    components: tuple[np.ndarray, ...]
    steps: np.ndarray
    essential: np.ndarray

    def lattice(self, members: np.ndarray, p: FloatArray, lam: FloatArray) -> Lattice:
        return _GraphLattice(self, members, p, lam)


def graph_form(cone: RowCone) -> GraphForm | NotProved:
    """The checker's reading of ``cone`` as a graph cone, or why it is not one."""
    pairs = closed_pairs(cone)
    if isinstance(pairs, NotProved):
        return pairs
    closed, essential = pairs
    finite = np.isfinite(closed)
    a, b = np.nonzero(essential)
    unit = lattice_unit(closed[a, b])
    if unit is None:
        return NotProved(NotProvedReason.CONE, "its essential bounds are not multiples of one unit")
    steps = np.rint(np.where(finite, closed, 0.0) / unit)
    if np.any(
        np.abs(steps * unit - np.where(finite, closed, 0.0)) > CHECK_TREE_FORM_RTOL * (1.0 + np.abs(steps))
    ):
        return NotProved(NotProvedReason.CONE, "its closed bounds are not multiples of the unit")
    components, seen = [], np.zeros(closed.shape[0], dtype=bool)
    for x in range(closed.shape[0]):
        if not seen[x]:
            members = np.flatnonzero(finite[x])
            seen[members] = True
            components.append(members)
    return GraphForm(unit, tuple(components), steps.astype(np.int64), essential)


class _GraphLattice(Lattice):
    """One component of a graph cone and its closure LP (module docstring)."""

    def __init__(self, form: GraphForm, members: np.ndarray, p: FloatArray, lam: FloatArray) -> None:
        steps = form.steps[np.ix_(members, members)]
        positive = p[members] > 0.0
        caps = np.zeros(members.size, dtype=np.int64)
        caps[positive] = self.caps(p[members], form.unit)
        capped = np.flatnonzero(positive)
        high = (caps[capped][None, :] + steps[:, capped]).min(axis=1)  # k_i <= c_j + D_ij/u
        low = (caps[capped][None, :] - steps[capped, :].T).min(axis=1)  # some j is at its cap
        super().__init__(members, p, lam, form.unit, int(high.max()), int(low.min()))
        self.steps = steps
        self.low = low - self.bottom
        self.high = np.minimum(high - self.bottom, np.where(positive, self.cap, self.size - 1))
        essential = form.essential[np.ix_(members, members)]
        self.pairs = np.argwhere(essential)
        self.model: tuple[highspy.Highs, sp.csr_matrix] | None = self._model() if self.ok else None
        self.whole: _WholeProof | None = None
        self.stopping = False  # set by :meth:`cancel_whole`, perhaps before the proof has begun

    def _model(self) -> tuple[highspy.Highs, sp.csr_matrix]:
        m, levels = self.members.size, self.size - 1
        index = np.arange(m * levels).reshape(m, levels)
        rows = [np.stack([index[:, 1:].ravel(), index[:, :-1].ravel()], axis=1)]  # z_{i,l+1} <= z_{i,l}
        l = np.arange(1, self.size)
        for a, b in self.pairs:  # k_a <= k_b + s: z_{a,l} <= z_{b,l−s}
            s = int(self.steps[a, b])
            inside = (l - s >= 1) & (l - s <= levels)
            rows.append(np.stack([index[a, l[inside] - 1], index[b, l[inside] - s - 1]], axis=1))
        pairs = np.concatenate(rows)
        count = pairs.shape[0]
        matrix = sp.csr_matrix(
            (np.r_[np.ones(count), -np.ones(count)], (np.tile(np.arange(count), 2), pairs.T.ravel())),
            shape=(count, m * levels),
        )
        size = m * levels
        model = highs_lp(
            np.zeros(size), matrix, (np.full(count, -highspy.kHighsInf), np.zeros(count)),
            (np.zeros(size), np.ones(size)),
        )  # fmt: skip
        highs = new_highs()
        highs.setOptionValue("simplex_strategy", 1)  # dual simplex: a vertex, warm between calls
        highs.passModel(model)
        return highs, matrix

    def roots(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """One first node per input that may be the first at its cap (module docstring)."""
        found = []
        for x in np.flatnonzero(self.p > 0.0):
            low, high = self.low.copy(), self.high.copy()
            earlier = np.flatnonzero(self.p[:x] > 0.0)
            high[earlier] = np.minimum(high[earlier], self.cap[earlier] - 1)
            low[x], high[x] = max(low[x], self.cap[x]), min(high[x], self.cap[x])
            high = (high[None, :] + self.steps).min(axis=1)
            low = (low[:, None] - self.steps).max(axis=0)
            if np.all(low <= high):
                found.append((low, high))
        return found

    def solve(self, table: FloatArray, low: np.ndarray, high: np.ndarray) -> tuple[float, np.ndarray | None]:
        """The closure LP's weak-duality bound on ``Σ_i table[i, k_i]`` and the walk read from it (``None``
        if it breaks a pair); ``-inf`` when the ranges hold no walk."""
        if np.any(low > high):
            return _NEG, None
        assert self.model is not None  # prove_ratio_bound stops at a lattice that is not ok
        highs, matrix = self.model
        l = np.arange(1, self.size)[None, :]
        lower = (l <= low[:, None]).astype(np.float64).ravel()
        upper = (l <= high[:, None]).astype(np.float64).ravel()
        cost = np.diff(table, axis=1).ravel()
        count = cost.size
        columns = np.arange(count, dtype=np.int32)
        highs.changeColsBounds(count, columns, lower, upper)
        highs.changeColsCost(count, columns, -cost)  # HiGHS minimises
        highs.run()
        status = highs.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            return _NEG, None
        solution = highs.getSolution()
        duals = np.asarray(solution.row_dual)
        bound = np.inf
        for y in (np.maximum(duals, 0.0), np.maximum(-duals, 0.0)):  # any y >= 0 proves a bound
            reduced = cost - matrix.T @ y
            bound = min(bound, float(np.maximum(reduced * lower, reduced * upper).sum()))
        value = float(table[:, 0].sum()) + bound
        z = np.asarray(solution.col_value).reshape(self.members.size, self.size - 1)
        levels = np.rint(z.sum(axis=1)).astype(np.int64)
        a, b = self.pairs[:, 0], self.pairs[:, 1]
        feasible = (
            np.all(levels >= low)
            and np.all(levels <= high)
            and np.all(levels[a] - levels[b] <= self.steps[a, b])
        )
        return value, levels if feasible else None

    exact = True

    def prove_whole(self, bound: float, deadline: float | None) -> tuple[bool | None, list[np.ndarray]]:
        """``max P (R − bound) <= 0`` over the counted walks (module docstring, "the exact proof")."""
        self.whole = _WholeProof(self, bound)
        return self.whole.attempt(deadline)

    def cancel_whole(self) -> None:
        self.stopping = True
        if self.whole is not None:
            self.whole.cancel()

    def counted(self, walk: np.ndarray) -> bool:
        """Whether ``walk`` keeps every pair and its ranges, with some input at its cap."""
        a, b = self.pairs[:, 0], self.pairs[:, 1]
        positive = self.p > 0.0
        return bool(
            np.all(walk >= self.low)
            and np.all(walk <= self.high)
            and np.all(walk[a] - walk[b] <= self.steps[a, b])
            and np.any(walk[positive] == self.cap[positive])
        )


class _WholeProof:
    """The exact proof of ``R <= bound`` on one graph component: a MIP over the closure's threshold
    variables, "some input at its cap" as a row, and ``−P log P`` bounded by tangents, added where the
    MIP's walk lands, until its dual bound is below zero (proved) or a walk has ``R > bound`` (refuted)."""

    def __init__(self, lattice: _GraphLattice, bound: float) -> None:
        assert lattice.model is not None  # prove_ratio_bound stops at a lattice that is not ok
        _, matrix = lattice.model
        self.lattice, self.bound = lattice, bound
        m, levels = lattice.members.size, lattice.size - 1
        count = m * levels
        self.count = count
        l = np.arange(1, lattice.size)[None, :]
        self.d_p = np.diff(lattice.P, axis=1).ravel()
        d_a = np.diff(lattice.A, axis=1).ravel()
        a0, self.p0 = float(lattice.A[:, 0].sum()), float(lattice.P[:, 0].sum())
        self.offset = a0 - bound * self.p0
        highs = new_highs()
        for option, value in _MIP_OPTIONS.items():
            highs.setOptionValue(option, value)
        rows = matrix.shape[0]
        lower = np.r_[(l <= lattice.low[:, None]).ravel().astype(np.float64), -highspy.kHighsInf]
        upper = np.r_[(l <= lattice.high[:, None]).ravel().astype(np.float64), highspy.kHighsInf]
        model = highs_lp(
            np.r_[d_a - bound * self.d_p, 1.0],
            sp.hstack([matrix, sp.csr_matrix((rows, 1))]),
            (np.full(rows, -highspy.kHighsInf), np.zeros(rows)),
            (lower, upper),
            maximize=True,
            integer=np.arange(count + 1) < count,
        )
        highs.passModel(model)
        positive = lattice.p > 0.0
        if not np.any(positive & (lattice.cap <= 0)):  # no input is always at its cap
            reach = np.flatnonzero(positive & (lattice.cap <= levels))
            flags = (reach * levels + lattice.cap[reach] - 1).astype(np.int32)
            highs.addRow(1.0, highspy.kHighsInf, flags.size, flags, np.ones(flags.size))
        self.highs = highs
        self.index = np.arange(count + 1, dtype=np.int32)
        p_high = float(
            np.where(l <= lattice.high[:, None], 1.0, 0.0).ravel() @ np.maximum(self.d_p, 0.0) + self.p0
        )
        size = float(np.abs(lattice.A).max(axis=1).sum())
        self.margin = CHECK_ROUNDING_RTOL * (1.0 + size + p_high * (abs(bound) + abs(np.log(p_high)) + 1.0))
        rows = np.arange(m)
        low_mass = float(lattice.P[rows, np.clip(lattice.cap, 0, lattice.size - 1)][positive].min())
        for t in np.geomspace(min(low_mass, p_high), p_high, _FIRST_TANGENTS):
            self._tangent(float(t))
        self.tangents = 0
        self.cancelled = False
        highs.HandleUserInterrupt = True  # :meth:`cancel` may stop a MIP

    def cancel(self) -> None:
        """Stop :meth:`attempt` (from another thread): it returns undecided."""
        self.cancelled = True
        self.highs.cancelSolve()

    def _tangent(self, t: float) -> None:
        """``s <= −t log t − (1 + log t)(P − t)``."""
        slope = 1.0 + float(np.log(t))
        self.highs.addRow(
            -highspy.kHighsInf, t - slope * self.p0, self.count + 1, self.index, np.r_[slope * self.d_p, 1.0]
        )

    def attempt(self, deadline: float | None) -> tuple[bool | None, list[np.ndarray]]:
        """Proved (``True``), refuted by a walk returned (``False``) or undecided by ``deadline``."""
        lattice, highs = self.lattice, self.highs
        walks: list[np.ndarray] = []
        while self.tangents < _MAX_TANGENTS and not (self.cancelled or lattice.stopping):
            if deadline is not None:
                left = deadline - time.perf_counter()
                if left <= 0.0:
                    return None, walks
                limit_run(highs, left)
            highs.run()
            if self.cancelled or lattice.stopping:
                return None, walks
            info = highs.getInfo()
            if not mip_bound_holds(highs):
                return None, walks
            if info.mip_dual_bound + self.offset <= -self.margin:
                return True, walks
            if (
                info.primal_solution_status != highspy.SolutionStatus.kSolutionStatusFeasible
                or highs.getModelStatus() != highspy.HighsModelStatus.kOptimal
            ):
                return None, walks
            z = np.asarray(highs.getSolution().col_value)[: self.count].reshape(lattice.members.size, -1)
            walk = np.rint(z.sum(axis=1)).astype(np.int64)
            if not lattice.counted(walk):
                return None, walks
            walks.append(walk)
            a, mass = lattice.totals(walk)
            if a / mass - np.log(mass) > self.bound:
                return False, walks
            self._tangent(mass)
            self.tangents += 1
        return None, walks
