"""Exact pricing of mutual information on graph cones: ratio pairs of single inputs, any graph.

**The cone.** A cone whose statistics are single inputs, ``w_a <= e^{L_ab} w_b``, in which every pair is
bounded both ways through the pairs (the inputs of a component reach each other in both directions):
``MetricLDP`` with any distance (a grid's Manhattan metric), per-input budgets (ID-LDP), a policy graph
(Blowfish), per-pair levels. In logarithms ``h = log w`` the cone is a system of *difference
constraints* ``h_a − h_b <= L_ab``; its closure (shortest paths, Floyd–Warshall) keeps the *essential*
pairs, those no third input improves. A ray of a component has all its entries positive and a spanning
tree of tight pairs, so with every ``L`` a multiple of one unit ``u`` the rays lie on the lattice
``h = u·k`` (the tree cones' lattice, :mod:`~privopt.routes.pricing.tree`, without the tree).

**The search** is the tree pricer's (``R = A/P − log P`` over representatives, Lagrangian lines in
``ν``, a branch and bound on level ranges), with two changes:

- *the oracle*: ``max Σ_x c_x(k_x)`` over integer levels with ``low <= k <= high`` and ``k_a − k_b <=
  L_ab/u`` is a maximum-weight closure (the threshold variables ``z_{x,l} = [k_x >= l]`` are monotone in
  ``l`` and ``z_{a,l} <= z_{b,l − L_ab/u}``), whose linear program has a totally unimodular matrix, so
  HiGHS's simplex returns an integral vertex: one warm LP per call, where the tree ran a dynamic program;
- *the representatives* (the shift with ``max_x (k_x − T_x) = 0``): the flag "some input is at its cap"
  is not a closure constraint, so the search starts from one root per input ``x*``, the first input at
  its cap (``k_{x*} = T_{x*}``, ``k_y <= T_y − 1`` before it, ``k_y <= T_y`` after it); the roots partition
  the representatives.

**The exact step.** Where the Lagrangian bound is loose (per-input budgets: a complete graph of pairs,
few levels) the search needs thousands of nodes. Dinkelbach's method on ``R`` is exact another way:
``F(r) = max A − rP − P log P`` over the representatives is concave in ``P``, ``F(r) <= F̄`` proves
``R <= r + F̄/P_low``, and ``F(r)`` is solved by outer approximation (a HiGHS MIP over the threshold
variables, "some input at its cap" as a row, ``−P log P`` bounded by tangents added where the MIP's walk
lands). Which method is faster depends on the cone, so after :data:`SEARCH_NODES` nodes the exact step
runs in a thread beside the search (HiGHS releases the GIL while it solves) and the first to close
stops the other. docs/compiler.md, "Graph cones".
"""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import NegativeCycleError, connected_components, csgraph_from_dense, shortest_path

from privopt.compiler.cone import RowCone
from privopt.errors import SolverError
from privopt.routes.pricing.contract import PricerEntry, PricerTraits, Refusal, RefusalReason, register_pricer
from privopt.routes.pricing.envelope import SearchLimits, SliceObjective
from privopt.routes.pricing.tree import (
    LatticeComponent,
    LatticePricer,
    LatticeSearch,
    Walk,
    lattice_pricer,
    lattice_unit,
    single_input_limits,
)
from privopt.solvers.lp import highs_lp, limit_run, mip_bound_holds, new_highs
from privopt.tolerances import TREE_STRUCTURE_RTOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

_NEG = -np.inf

#: How certified column generation's graph pricer proves ``δ̄`` (kept in certificates).
GRAPH_METHOD = (
    "graph cone: closures on the lattice of difference constraints (an integral LP), Lagrangian bounds, "
    "branch and bound, beside MIPs bounding −P log P by tangents"
)

#: Largest number of inputs (the closure is cubic; one root per input).
MAX_GRAPH_INPUTS = 400

#: Nodes of the lattice search before the exact step starts beside it. The two methods' costs differ by
#: family: a late pricing of an 8 × 8 grid closes in 80 nodes (1.8 s) where the exact step's MIPs take
#: 26 s; per-input budgets (a complete graph of pairs, four levels) take 8,700 nodes (51 s) where the
#: exact step takes 1.6 s. Side by side, each pricing takes about as long as the faster one.
SEARCH_NODES = 64

#: Tangents of ``−P log P`` the exact step starts with (geometric over the representatives' ``P``).
TANGENTS = 24

#: Dinkelbach steps and tangents per step of the exact step.
MAX_DINKELBACH = 50
MAX_TANGENTS = 50


@dataclass(frozen=True, eq=False)
class GraphCone:
    """A graph cone (module docstring): its unit, its components' inputs, and per component the closed
    steps ``steps[a, b]`` (levels ``a`` may be above ``b``) and the essential pairs ``(a, b)``."""

    unit: float
    components: tuple[np.ndarray, ...]
    steps: np.ndarray
    pairs: np.ndarray


def graph_structure(cone: RowCone) -> GraphCone | Refusal:
    """The cone as difference constraints on the lattice of one unit, or why it is not one."""
    n = cone.n_inputs
    if n > MAX_GRAPH_INPUTS:
        return Refusal(RefusalReason.SIZE, f"it has {n} inputs (limit {MAX_GRAPH_INPUTS})")
    limit = single_input_limits(cone)
    if isinstance(limit, Refusal):
        return limit
    np.fill_diagonal(limit, np.inf)
    try:  # ``inf`` marks a missing pair, so a pair of level 0 stays an edge
        closed = shortest_path(csgraph_from_dense(limit, null_value=np.inf), method="FW", directed=True)
    except NegativeCycleError:
        return Refusal(
            RefusalReason.CONE, "its pairs admit only the zero column (a cycle of negative length)"
        )
    np.fill_diagonal(closed, 0.0)
    both = np.isfinite(closed) & np.isfinite(closed.T)
    count, labels = connected_components(sp.csr_matrix(both & ~np.eye(n, dtype=bool)), directed=False)
    if np.any(np.isfinite(closed) & (labels[:, None] != labels[None, :])):
        return Refusal(RefusalReason.CONE, "a pair joins two inputs that are not bounded both ways")
    if np.any(both & ~np.eye(n, dtype=bool) & (closed + closed.T <= TREE_STRUCTURE_RTOL)):
        return Refusal(RefusalReason.CONE, "a pair fixes the ratio of two inputs")
    improved = np.full((n, n), np.inf)  # the best bound through a third input
    for c in range(n):
        through = closed[:, c, None] + closed[None, c, :]
        through[c, :] = np.inf
        through[:, c] = np.inf
        np.minimum(improved, through, out=improved)
    off = ~np.eye(n, dtype=bool) & np.isfinite(closed)
    essential = off & (improved > closed + TREE_STRUCTURE_RTOL * (1.0 + np.abs(closed)))
    a, b = np.nonzero(essential)
    unit = lattice_unit(closed[a, b])
    if unit is None:
        return Refusal(RefusalReason.CONE, "its factors are not multiples of one unit")
    steps = np.where(np.isfinite(closed), np.rint(np.where(np.isfinite(closed), closed, 0.0) / unit), 0)
    components = tuple(np.flatnonzero(labels == c) for c in range(count))
    return GraphCone(unit, components, steps.astype(np.int64), np.stack([a, b], axis=1))


def _stars(
    pairs: np.ndarray, steps: np.ndarray
) -> tuple[list[tuple[np.ndarray, np.ndarray, int]], np.ndarray]:
    """The pairs as *stars* and the pairs left: a star ``(A, B, s)`` stands for ``k_a − k_b <= s`` for every
    ``a`` in ``A`` and ``b`` in ``B`` (``b = a`` allowed: ``s >= 0``), kept through a hub ``H`` as ``k_a <= H
    <= k_b + s`` with ``|A| + |B|`` bounds instead of ``|A|·|B|``. Sources of one level are grouped by their
    targets at that level with themselves (cliques), then the pairs left by their targets alone
    (bicliques); a star is kept where it saves bounds. Per-input budgets and mixed levels, whose every
    pair is essential (1,560 at 40 inputs), become a few stars."""
    stars: list[tuple[np.ndarray, np.ndarray, int]] = []
    single: list[np.ndarray] = []
    for s in np.unique(steps[pairs[:, 0], pairs[:, 1]]) if pairs.size else []:
        level = pairs[steps[pairs[:, 0], pairs[:, 1]] == s]
        if s < 0:
            single.append(level)
            continue
        left = level.tolist()
        for with_self in (True, False):  # cliques first (a source among its targets), then bicliques
            targets: dict[int, set[int]] = {}
            for a, b in left:
                targets.setdefault(a, set()).add(b)
            groups: dict[frozenset[int], list[int]] = {}
            for a, out in targets.items():
                groups.setdefault(frozenset(out | {a} if with_self else out), []).append(a)
            left = []
            for key, sources in groups.items():
                kept = [(a, b) for a in sources for b in key if b != a and b in targets[a]]
                if len(sources) + len(key) < len(kept):
                    stars.append((np.array(sources), np.array(sorted(key)), int(s)))
                else:
                    left.extend(kept)
        if left:
            single.append(np.array(left))
    return stars, (np.concatenate(single) if single else np.zeros((0, 2), dtype=np.intp))


class _GraphComponent(LatticeComponent):
    """One component of a graph cone: its closure LP (module docstring), built once and re-solved warm
    with each call's costs and level ranges."""

    def __init__(self, structure: GraphCone, inputs: np.ndarray, p: FloatArray) -> None:
        steps = structure.steps[np.ix_(inputs, inputs)]
        super().__init__(inputs, p, structure.unit, steps)
        self.steps = steps
        local = np.full(structure.steps.shape[0], -1, dtype=np.intp)
        local[inputs] = np.arange(inputs.size)
        pairs = local[structure.pairs]
        self.pairs = pairs[(pairs >= 0).all(axis=1)]
        self.stars, self.single = _stars(self.pairs, self.steps)
        self.input_columns = inputs.size * (self.size - 1)
        self.columns = (inputs.size + len(self.stars)) * (self.size - 1)
        self.highs, self.matrix = self._model()
        # A call's arrays, filled in place (the hubs' ranges: the whole grid, at no cost).
        self._levels = np.arange(1, self.size)
        self._index = np.arange(self.columns, dtype=np.int32)
        self._lower, self._upper = np.zeros(self.columns), np.ones(self.columns)
        self._cost = np.zeros(self.columns)
        shape = (inputs.size, self.size - 1)
        self._lower_z, self._upper_z, self._cost_z = (
            array[: self.input_columns].reshape(shape) for array in (self._lower, self._upper, self._cost)
        )

    def _model(self) -> tuple[highspy.Highs, sp.csr_matrix]:
        """``max Σ_i Σ_l (c_i(l) − c_i(l−1)) z_{i,l}`` over monotone ``z`` closed under the pairs, and its
        matrix (one row ``z_i − z_j <= 0`` each). A star's hub ``H`` has threshold variables of its own,
        with ``k_a <= H <= k_b + s`` for its sources ``a`` and targets ``b`` (:func:`_stars`)."""
        m, levels = self.inputs.size, self.size - 1
        column = np.arange(self.columns).reshape(m + len(self.stars), levels)  # z_{i,l}, l = 1 .. size − 1
        rows: list[np.ndarray] = [np.stack([column[:, 1:].ravel(), column[:, :-1].ravel()], axis=1)]
        l = np.arange(1, self.size)

        def bound(a: int, b: int, s: int) -> None:  # k_a − k_b <= s: z_{a,l} <= z_{b,l−s}
            kept = (l - s >= 1) & (l - s <= levels)
            rows.append(np.stack([column[a, l[kept] - 1], column[b, l[kept] - s - 1]], axis=1))

        for a, b in self.single:
            bound(int(a), int(b), int(self.steps[a, b]))
        for hub, (sources, targets, s) in enumerate(self.stars, start=m):
            for a in sources:
                bound(int(a), hub, 0)
            for b in targets:
                bound(hub, int(b), s)
        pairs = np.concatenate(rows)
        count = pairs.shape[0]
        matrix = sp.csr_matrix(
            (
                np.r_[np.ones(count), -np.ones(count)],
                (np.r_[np.arange(count), np.arange(count)], pairs.T.ravel()),
            ),
            shape=(count, self.columns),
        )
        size = self.columns
        model = highs_lp(
            np.zeros(size), matrix, (np.full(count, -highspy.kHighsInf), np.zeros(count)),
            (np.zeros(size), np.ones(size)), maximize=True,
        )  # fmt: skip
        highs = new_highs()
        highs.passModel(model)
        return highs, matrix

    def roots(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """One root per input that may be the first at its cap (module docstring)."""
        found = []
        for x in np.flatnonzero(self.cap >= 0):
            low, high = self.low0.copy(), self.high0.copy()
            earlier = np.flatnonzero(self.cap[:x] >= 0)
            high[earlier] = np.minimum(high[earlier], self.cap[earlier] - 1)
            low[x] = max(low[x], self.cap[x])
            high[x] = min(high[x], self.cap[x])
            high = np.min(high[None, :] + self.steps, axis=1)  # k_i <= k_j + steps[i, j]
            low = np.max(low[:, None] - self.steps, axis=0)  # k_i >= k_j − steps[j, i]
            if np.all(low <= high):
                found.append((low, high))
        return found

    def best(self, table: FloatArray, low: np.ndarray, high: np.ndarray) -> tuple[float, np.ndarray]:
        """The largest ``Σ_i table[i, k_i]`` over levels within the ranges that satisfy the pairs (the
        ranges of a node below a root hold only representatives), and its levels."""
        if np.any(low > high):
            return _NEG, np.empty(0, dtype=np.intp)
        self._lower_z[...] = self._levels <= low[:, None]
        self._upper_z[...] = self._levels <= high[:, None]
        np.subtract(table[:, 1:], table[:, :-1], out=self._cost_z)
        highs = self.highs
        highs.changeColsBounds(self.columns, self._index, self._lower, self._upper)
        highs.changeColsCost(self.columns, self._index, self._cost)
        highs.run()
        status = highs.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            return _NEG, np.empty(0, dtype=np.intp)
        if status != highspy.HighsModelStatus.kOptimal:  # no node may be dropped on a solver's failure
            raise SolverError(
                f"HiGHS did not solve a graph cone's closure LP: {highs.modelStatusToString(status)}"
            )
        z = np.asarray(highs.getSolution().col_value)[: self.input_columns].reshape(self.inputs.size, -1)
        levels = np.rint(z.sum(axis=1)).astype(np.intp)
        value = float(table[np.arange(levels.size), levels].sum())
        return max(value, float(table[:, 0].sum() + highs.getInfo().objective_function_value)), levels


class _ExactStep:
    """The exact step of one component (module docstring, "the exact step"): Dinkelbach's method on ``R``
    over its representatives, each ``F(r) = max A − rP − P log P`` (concave in ``P``) solved by outer
    approximation, a HiGHS MIP over the closure's threshold variables with "some input at its cap" as a
    row and tangents of ``−P log P`` added where the MIP's ``P`` lands."""

    def __init__(self, component: _GraphComponent, tables: tuple[FloatArray, FloatArray]) -> None:
        self.component = component
        self.a_table, self.p_table = tables
        levels = component.size - 1
        count = component.columns  # the inputs' threshold variables, then the stars' hubs'
        hubs = count - component.input_columns
        l = np.arange(1, component.size)[None, :]
        cap = component.cap
        capped = cap >= 0
        upper = (l <= component.high0[:, None]) & ((l <= cap[:, None]) | ~capped[:, None])
        lower = l <= component.low0[:, None]
        matrix = component.matrix
        highs = new_highs()
        highs.setOptionValue("mip_rel_gap", 0.0)
        self.d_a = np.r_[np.diff(self.a_table, axis=1).ravel(), np.zeros(hubs)]
        self.d_p = np.r_[np.diff(self.p_table, axis=1).ravel(), np.zeros(hubs)]
        rows = matrix.shape[0]
        model = highs_lp(
            np.zeros(count + 1),
            sp.hstack([matrix, sp.csr_matrix((rows, 1))]),
            (np.full(rows, -highspy.kHighsInf), np.zeros(rows)),
            (
                np.r_[lower.ravel(), np.zeros(hubs), -highspy.kHighsInf],
                np.r_[upper.ravel(), np.ones(hubs), highspy.kHighsInf],
            ),
            maximize=True,
            integer=np.arange(count + 1) < component.input_columns,
        )
        highs.passModel(model)
        # some input at its cap: z_{x, cap_x} = 1 (an input whose cap is the grid's first level always is)
        reachable = np.flatnonzero(capped & (cap <= levels))
        if not np.any(capped & (cap == 0)):
            at_cap = (reachable * levels + cap[reachable] - 1).astype(np.int32)
            highs.addRow(1.0, highspy.kHighsInf, at_cap.size, at_cap, np.ones(at_cap.size))
        self.highs, self.count = highs, count
        self.a0, self.p0 = float(self.a_table[:, 0].sum()), float(self.p_table[:, 0].sum())
        # P over representatives: at least the smallest p_x e^h at a cap (every such term is in (e^{−u}, 1])
        self.p_low = float(self.p_table[reachable, cap[reachable]].min()) if reachable.size else np.inf
        p_high, _ = component.best(self.p_table, component.low0, component.high0)
        for t in np.geomspace(self.p_low, max(p_high, self.p_low * 1.001), TANGENTS):
            self._tangent(float(t))
        highs.HandleUserInterrupt = True  # :meth:`cancel` may stop a MIP
        self.cancelled = False
        self.best = -np.inf
        self.walks: list[Walk] = []

    def _tangent(self, t: float) -> None:
        """``s <= −t log t − (1 + log t)(P − t)``, a tangent of the concave ``−P log P``."""
        slope = 1.0 + np.log(t)
        columns = np.arange(self.count + 1, dtype=np.int32)
        self.highs.addRow(
            -highspy.kHighsInf, t - slope * self.p0, self.count + 1, columns, np.r_[slope * self.d_p, 1.0]
        )

    def cancel(self) -> None:
        """Stop :meth:`run` (from another thread): its MIP is interrupted, and it returns its bound."""
        self.cancelled = True
        self.highs.cancelSolve()

    def run(self, search: LatticeSearch, limits: SearchLimits) -> float:
        """Dinkelbach from the best ratio known (the search's, read as it runs, or this step's own) until
        ``limits`` close or stop it, or :meth:`cancel`: the proved bound on this component's ``R``; the
        walks met are kept in ``walks``."""
        if not np.isfinite(self.p_low):
            return np.inf
        columns = np.arange(self.count + 1, dtype=np.int32)
        upper = np.inf
        known = -1  # the walks met before the last step
        for _ in range(MAX_DINKELBACH):
            if len(self.walks) == known:  # the last step met no walk: nothing moves r
                break
            known = len(self.walks)
            found = max(search.incumbent, self.best)
            r = found if np.isfinite(found) else 0.0  # from above at first, when no walk is known
            # F(r) <= allowed proves R <= r + allowed / P_low, enough to close
            enough = max(limits.target, r + limits.tolerance + limits.slack * max(r, 0.0))
            allowed = max(enough - r, 0.5 * limits.tolerance) * self.p_low
            self.highs.changeColsCost(self.count + 1, columns, np.r_[self.d_a - r * self.d_p, 1.0])
            value = self._maximise(r, allowed, limits)
            upper = min(upper, r + max(value, 0.0) / self.p_low)
            found = max(search.incumbent, self.best)
            if self.cancelled or limits.closed(upper, found) or limits.spent(0) or found >= limits.ceiling:
                break
        return upper

    def _maximise(self, r: float, allowed: float, limits: SearchLimits) -> float:
        """A proved upper bound on ``F(r)``: MIPs with tangents added where their walks land, until the
        bound is at most ``allowed`` or a walk has ``R > r`` (then Dinkelbach moves on)."""
        bound = np.inf
        self.highs.setOptionValue("mip_abs_gap", 0.5 * allowed)
        for _ in range(MAX_TANGENTS):
            if self.cancelled:
                break
            if limits.deadline is not None:
                left = limits.deadline - time.perf_counter()
                if left <= 0.0:
                    break
                limit_run(self.highs, left)
            self.highs.run()
            info = self.highs.getInfo()
            if not mip_bound_holds(self.highs):
                break
            bound = min(bound, float(info.mip_dual_bound) + self.a0 - r * self.p0)
            if info.primal_solution_status != highspy.SolutionStatus.kSolutionStatusFeasible:
                break
            z = np.asarray(self.highs.getSolution().col_value)[: self.component.input_columns]
            levels = np.rint(z.reshape(self.component.inputs.size, -1).sum(axis=1)).astype(np.intp)
            walk = self.component.walk(self.a_table, self.p_table, levels)
            self.walks.append(walk)
            self.best = max(self.best, walk.ratio)
            if (
                bound <= allowed
                or walk.ratio > r
                or self.highs.getModelStatus() != highspy.HighsModelStatus.kOptimal
            ):
                break
            self._tangent(walk.p)
        return bound


class GraphPricer(LatticePricer):
    """The lattice search on a graph cone: each component's oracle its closure LP."""

    #: Exact every round; the run closes to half its ``gap_tolerance`` (the checker's own bound may exceed
    #: the route's), as the tree pricer's.
    traits = PricerTraits(GRAPH_METHOD, "prior", exact_every_round=True, gap_share=0.5, check_ratio=4.0)

    def __init__(self, cone: RowCone, structure: GraphCone, objective: SliceObjective) -> None:
        super().__init__(
            cone, structure.components, lambda inputs, p: _GraphComponent(structure, inputs, p), objective
        )

    def search(self, search: LatticeSearch, limits: SearchLimits) -> None:
        """The lattice search and the exact step side by side (module docstring, "the exact step"): after
        :data:`SEARCH_NODES` nodes without closing, the exact step starts on every component in a thread
        of its own (HiGHS releases the GIL while it solves) and the search goes on; whichever closes
        first stops the other, and the bound is the better of the two."""
        search.run(dataclasses.replace(limits, max_nodes=min(limits.max_nodes, SEARCH_NODES)))
        if search.complete or search.incumbent >= limits.ceiling or limits.spent(search.nodes):
            return
        steps = [
            _ExactStep(component, search.tables[index])
            for index, component in enumerate(self.components)
            if isinstance(component, _GraphComponent)
        ]
        bounds: list[float] = []
        closed = threading.Event()

        failed: list[BaseException] = []

        def exact() -> None:
            try:
                bounds.extend(step.run(search, limits) for step in steps)
                if limits.closed(max(bounds), max([search.incumbent] + [step.best for step in steps])):
                    closed.set()
            except BaseException as error:  # raised again in the caller's thread, after the search stops
                failed.append(error)
                closed.set()

        worker = threading.Thread(target=exact, name="privopt graph exact step", daemon=True)
        worker.start()
        search.stop = closed
        try:
            search.resume(limits)
        finally:
            search.stop = None
            for step in steps:
                step.cancel()
            worker.join()
        if failed:
            raise failed[0]
        for index, step in enumerate(steps):
            for walk in step.walks:
                search.met(walk, index)
        if len(bounds) == len(steps):
            exact_upper = max(bounds)
            search.upper = min(search.upper, max(exact_upper, search.incumbent))
            search.complete = search.complete or limits.closed(search.upper, search.incumbent)


def graph_pricer(utility: SubConvexUtility, cone: RowCone) -> LatticePricer | Refusal:
    """The graph pricer of ``(utility, cone)``, or why there is none."""
    return lattice_pricer(utility, cone, graph_structure, GraphPricer, "graph")


register_pricer(PricerEntry("graph", 32, graph_pricer, proved_by=("graph",)))
