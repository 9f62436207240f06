"""Exact pricing of mutual information on tree cones: ratio pairs of single inputs that form a forest.

**The cone.** A cone whose statistics are single inputs, ``w_a <= e^{L_ab} w_b``, is a *tree cone* when
the pairs bounded both ways contain a spanning forest whose paths imply every other pair
(``Σ_path L <= L_ab``): ``MetricLDP`` with the distance of a line or of a tree, a user's
``RatioConstraints`` along a chain. Components are independent, so the rays of the cone are rays of one
component (an input in no pair is a component alone). In a component every entry of a non-zero column
is positive, and a ray has ``|C| − 1`` tight rows, one per edge: in logarithms ``h = log w`` a ray is a
*walk*, ``h_b − h_a ∈ {L_ba, −L_ab}`` on each edge ``(a, b)``. With every ``L`` a multiple of one unit
``u``, walks live on the lattice ``h = u·k``.

**The ratio.** On ``pᵀw = 1`` mutual information is ``Σ_x p_x w_x log w_x`` (Entropy paper eq. 45), so the
reduced-cost ratio of a ray is ``R = A/P − log P`` with ``A = Σ_x e^{h_x}(p_x h_x − λ_x)`` and ``P = Σ_x p_x
e^{h_x}`` (any scaling of the ray; NMI divides by ``H(X)``). ``δ(λ)`` is the largest ``R`` over walks.

**Representatives.** ``R`` does not change when a walk moves by whole levels, so each ray has one
representative with ``max_x (k_x − T_x) = 0``, ``T_x = ⌊−log p_x / u⌋``: every ``p_x e^{h_x} <= 1``, one in
``(e^{−u}, 1]``. The condition is local (a level cap per input, and a flag "some input is at its cap"),
so a dynamic program over the tree (children before parents, two states per level) maximises any
separable ``Σ_x c_x(k_x)`` over representatives, with any per-input level ranges.

**Bounds.** For any ``ν``, ``A <= Φ(ν) + νP`` with ``Φ(ν) = max (A − νP)`` over representatives (one
dynamic program), and ``P`` lies in ``[P_min, P_max]`` (two more). So with the lines met,
``R <= max_{P ∈ [P_min, P_max]} min_i (Φ_i + ν_i P)/P − log P``, attained at an end, a crossing of two
lines or a line's stationary point ``P = −Φ_i``. The ``ν`` are found as for a ratio (Dinkelbach steps
``ν = A/P + 1`` until the maximisers bracket the minimum, then the crossings of the bracketing lines,
as in the dichotomic search). The bound equals a walk's ``R`` unless the minimum is at a kink between two
walks of different ``P``: a node then splits one input's level range between the two walks' levels
(branch and bound; the lattice is finite, so it closes). docs/compiler.md, "Tree cones".
"""

from __future__ import annotations

import abc
import contextlib
import heapq
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from privopt.compiler.cone import RowCone
from privopt.routes.pricing.contract import (
    CertifiedPricer,
    PricerEntry,
    PricerTraits,
    PricingRequest,
    Refusal,
    RefusalReason,
    register_pricer,
    single_session,
)
from privopt.routes.pricing.envelope import (
    PricedColumn,
    PricingOutcome,
    SearchLimits,
    SliceObjective,
    slice_objective,
)
from privopt.routes.pricing.slice_lp import ConeRepair
from privopt.tolerances import DUAL_BOUND_RTOL, TREE_STRUCTURE_RTOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: How certified column generation's tree pricer proves ``δ̄`` (kept in certificates).
TREE_METHOD = "tree cone: a dynamic program over the walks of the forest, Lagrangian bounds, branch and bound"

#: Largest number of inputs (the structure test compares every pair with its tree path).
MAX_TREE_INPUTS = 1000

#: Largest number of lattice levels in one component.
MAX_LEVELS = 4096

#: The unit is the smallest ``|L|`` divided by at most this.
MAX_DIVISOR = 12


#: Largest ``|h|`` on the lattice (``e^h`` must stay finite with room for sums).
MAX_EXPONENT = 600.0

#: Steps of one node's search for ``ν``.
MAX_NU_STEPS = 60

_NEG = -np.inf

_Structure = TypeVar("_Structure")

#: The states' axis (no input at its cap / some input at its cap), shaped to broadcast over kids and
#: levels.
_STATE_AXIS = np.arange(2)[None, :, None]


@dataclass(frozen=True, eq=False)
class TreeCone:
    """A tree cone (module docstring): per input its parent (−1 for a root), and the levels a child may
    be above (``up``) or below (``down``) its parent, in units of ``unit``; ``components`` lists each
    component's inputs, parents before children."""

    unit: float
    parent: np.ndarray
    up: np.ndarray
    down: np.ndarray
    components: tuple[np.ndarray, ...]


def single_input_limits(cone: RowCone) -> FloatArray | Refusal:
    """``limit[a, b]``: the tightest ``L`` of the cone's pairs ``w_a <= e^L w_b`` (``inf``: none), when every
    statistic is one input; or why they are not."""
    n = cone.n_inputs
    if not cone.blocks:
        return Refusal(RefusalReason.CONE, "it has no ratio pairs")
    inputs = np.empty(len(cone.groups), dtype=np.intp)
    log_scale = np.empty(len(cone.groups))
    for g, group in enumerate(cone.groups):
        row = group.vectors[0] if group.vectors.shape[0] == 1 else np.zeros(0)
        support = np.flatnonzero(row)
        if support.size != 1 or not row[support[0]] > 0.0:
            return Refusal(RefusalReason.CONE, "its statistics are not single inputs")
        inputs[g], log_scale[g] = support[0], np.log(row[support[0]])
    limit = np.full((n, n), np.inf)  # w_a <= e^{limit[a, b]} w_b
    for block in cone.blocks:
        a, b = inputs[block.numerator], inputs[block.denominator]
        bound = block.log_factor + log_scale[block.denominator] - log_scale[block.numerator]
        if a == b:
            if bound < 0.0:
                return Refusal(RefusalReason.CONE, "a pair bounds an input by a smaller multiple of itself")
            continue
        limit[a, b] = min(limit[a, b], bound)
    return limit


def tree_structure(cone: RowCone) -> TreeCone | Refusal:
    """The cone as a forest of ratio pairs on the lattice of one unit, or why it is not one."""
    n = cone.n_inputs
    if n > MAX_TREE_INPUTS:
        return Refusal(RefusalReason.SIZE, f"it has {n} inputs (limit {MAX_TREE_INPUTS})")
    limit = single_input_limits(cone)
    if isinstance(limit, Refusal):
        return limit
    both = np.isfinite(limit) & np.isfinite(limit.T)
    width = np.where(both, limit + limit.T, 0.0)
    if np.any(both & (width <= 0.0)):
        return Refusal(RefusalReason.CONE, "a pair fixes the ratio of two inputs")
    forest = minimum_spanning_tree(sp.csr_matrix(np.triu(width))).tocoo()
    edges = list(zip(forest.row.tolist(), forest.col.tolist(), strict=True))
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    count, labels = connected_components(
        sp.coo_matrix((np.ones(len(edges)), (forest.row, forest.col)), (n, n))
    )
    parent = np.full(n, -1, dtype=np.intp)
    components = []
    for c in range(count):
        root = int(np.flatnonzero(labels == c)[0])
        order = [root]
        for x in order:
            for y in neighbours[x]:
                if y != root and parent[y] < 0 and y != parent[x]:
                    parent[y] = x
                    order.append(y)
        components.append(np.array(order, dtype=np.intp))
    reason = _implied(limit, neighbours, labels)
    if reason is not None:
        return reason
    children = np.flatnonzero(parent >= 0)
    ups, downs = limit[children, parent[children]], limit[parent[children], children]
    unit = lattice_unit(np.concatenate([ups, downs]))
    if unit is None:
        return Refusal(RefusalReason.CONE, "its factors are not multiples of one unit")
    up = np.zeros(n, dtype=np.int64)
    down = np.zeros(n, dtype=np.int64)
    up[children] = np.rint(ups / unit).astype(np.int64)
    down[children] = np.rint(downs / unit).astype(np.int64)
    return TreeCone(unit, parent, up, down, tuple(components))


def _implied(limit: FloatArray, neighbours: list[list[int]], labels: np.ndarray) -> Refusal | None:
    """Why some pair is not implied by the forest's path between its inputs (``None``: all are)."""
    n = limit.shape[0]
    for source in range(n):
        targets = np.flatnonzero(np.isfinite(limit[source]))
        targets = targets[targets != source]
        if targets.size == 0:
            continue
        if np.any(labels[targets] != labels[source]):
            return Refusal(RefusalReason.CONE, "a pair joins two components of its forest")
        path = np.full(n, np.inf)  # w_source <= e^{path[y]} w_y along the forest
        path[source] = 0.0
        queue = deque([source])
        while queue:
            x = queue.popleft()
            for y in neighbours[x]:
                if path[y] == np.inf:
                    path[y] = path[x] + limit[x, y]
                    queue.append(y)
        allowed = limit[source, targets]
        if np.any(path[targets] > allowed + TREE_STRUCTURE_RTOL * (1.0 + np.abs(allowed))):
            return Refusal(
                RefusalReason.CONE,
                "its pairs do not form a forest (a pair is tighter than the path joining its inputs)",
            )
    return None


def lattice_unit(values: FloatArray) -> float | None:
    """The largest ``u`` (the smallest non-zero ``|value|`` over an integer up to ``MAX_DIVISOR``) of which
    every value is an integer multiple, or ``None``."""
    magnitudes = np.abs(values[np.abs(values) > 0.0])
    if magnitudes.size == 0:
        return None
    for divisor in range(1, MAX_DIVISOR + 1):
        unit = float(magnitudes.min()) / divisor
        steps = values / unit
        if np.all(np.abs(steps - np.rint(steps)) <= TREE_STRUCTURE_RTOL * np.maximum(1.0, np.abs(steps))):
            return unit
    return None


@dataclass(frozen=True)
class Walk:
    """A representative on the lattice: its levels (grid indices), ``A``, ``P`` and ``R = A/P − log P``."""

    levels: np.ndarray
    a: float
    p: float

    @property
    def ratio(self) -> float:
        return self.a / self.p - float(np.log(self.p))


@dataclass(frozen=True, eq=False)
class _Generation:
    """The children of the nodes at one depth: ``kids`` grouped by their parents ``owners`` (the groups
    start at ``starts``; ``parents_with_kids`` is ``owners[starts]``)."""

    kids: np.ndarray
    owners: np.ndarray
    starts: np.ndarray
    parents_with_kids: np.ndarray
    #: per kid: its group, its position, its row and its grid index up / down from each parent level
    #: (``rows``, ``above`` and ``below`` broadcast with :data:`_STATE_AXIS` to index the states)
    group: np.ndarray
    positions: np.ndarray
    rows: np.ndarray
    above: np.ndarray
    below: np.ndarray

    @property
    def single(self) -> bool:
        """Whether every parent has one child."""
        return self.starts.size == self.kids.size


class LatticeComponent(abc.ABC):
    """One component's lattice (module docstring): its inputs, caps and level ranges, its tables, and
    :meth:`best`, the largest separable sum over its representatives, for :class:`LatticePricer`.

    ``reach[i, j]`` is the most levels input ``i`` may be above input ``j``."""

    def __init__(self, inputs: np.ndarray, p: FloatArray, unit: float, reach: np.ndarray) -> None:
        self.inputs = inputs
        self.p = p[inputs]
        positive = self.p > 0.0
        cap = np.full(inputs.size, np.iinfo(np.int64).max // 4, dtype=np.int64)
        cap[positive] = np.floor(-np.log(self.p[positive]) / unit).astype(np.int64)
        capped = np.flatnonzero(positive)
        high = (cap[capped][None, :] + reach[:, capped]).min(axis=1)
        low = (cap[capped][None, :] - reach[capped, :].T).min(axis=1)
        self.offset = int(low.min())
        self.size = int(high.max()) - self.offset + 1
        self.cap = np.where(positive, cap - self.offset, -1)  # grid index of the cap (−1: none)
        self.low0, self.high0 = low - self.offset, high - self.offset
        self.unit = unit
        levels = np.arange(self.size if self.size <= MAX_LEVELS else 0) + self.offset
        self.h = unit * levels.astype(np.float64)

    def roots(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The level ranges of the search's first nodes (together they hold every representative)."""
        return [(self.low0.copy(), self.high0.copy())]

    @abc.abstractmethod
    def best(self, table: FloatArray, low: np.ndarray, high: np.ndarray) -> tuple[float, np.ndarray]:
        """The largest ``Σ_i table[i, k_i]`` over representatives with ``low <= k <= high``, and its levels
        (``-inf`` and an empty array when there is none)."""

    def fits(self) -> bool:
        top = self.unit * max(abs(self.offset), abs(self.offset + self.size - 1))
        return self.size <= MAX_LEVELS and top <= MAX_EXPONENT

    def tables(self, lam: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(A, P)`` per input and level: ``e^h (p h − λ)`` and ``p e^h``."""
        e = np.exp(self.h)[None, :]
        return e * (self.p[:, None] * self.h[None, :] - lam[self.inputs][:, None]), self.p[:, None] * e

    def walk(self, a_table: FloatArray, p_table: FloatArray, levels: np.ndarray) -> Walk:
        rows = np.arange(levels.size)
        return Walk(levels, float(a_table[rows, levels].sum()), float(p_table[rows, levels].sum()))

    def column(self, levels: np.ndarray, n: int) -> FloatArray:
        w = np.zeros(n)
        exponent = self.h[levels]
        w[self.inputs] = np.exp(exponent - exponent.max())
        return w / w.sum()


class _Component(LatticeComponent):
    """One component of a tree cone and its dynamic program over representatives (module docstring)."""

    def __init__(self, structure: TreeCone, inputs: np.ndarray, p: FloatArray) -> None:
        self.inputs = inputs
        local = {int(x): i for i, x in enumerate(inputs)}
        self.parent = np.array([local.get(int(structure.parent[x]), -1) for x in inputs], dtype=np.intp)
        self.up, self.down = structure.up[inputs], structure.down[inputs]
        self.children: list[list[int]] = [[] for _ in inputs]
        for i, parent in enumerate(self.parent):
            if parent >= 0:
                self.children[parent].append(i)
        super().__init__(inputs, p, structure.unit, self._reach())
        grid = np.arange(self.h.size)
        # The child's grid index from each parent level, up or down (``size``: off the grid, -inf).
        self.above = np.where(
            grid[None, :] + self.up[:, None] < self.h.size, grid[None, :] + self.up[:, None], self.h.size
        )
        self.below = np.where(
            grid[None, :] - self.down[:, None] >= 0, grid[None, :] - self.down[:, None], self.h.size
        )
        self.at_cap = grid[None, :] == self.cap[:, None]
        self.generations = self._generations()
        self.leaves = np.array([not kids for kids in self.children], dtype=bool)

    def _generations(self) -> list[_Generation]:
        """The children of the nodes at each depth, grouped by parent (in the order of
        ``self.children``), deepest last: the dynamic program moves one generation at a time."""
        depth = np.zeros(self.inputs.size, dtype=np.intp)
        for i in range(1, self.inputs.size):  # parents before children
            depth[i] = depth[self.parent[i]] + 1
        found = []
        for d in range(int(depth.max()) + 1 if depth.size else 0):
            parents = np.flatnonzero(depth == d)
            kids = [c for i in parents for c in self.children[i]]
            if not kids:
                break
            owners = np.array([i for i in parents for _ in self.children[i]], dtype=np.intp)
            kids_array = np.array(kids, dtype=np.intp)
            starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
            group = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, kids_array.size]))
            found.append(
                _Generation(
                    kids_array,
                    owners,
                    starts,
                    owners[starts],
                    group,
                    np.arange(kids_array.size)[:, None],
                    kids_array[:, None, None],
                    self.above[kids_array][:, None, :],
                    self.below[kids_array][:, None, :],
                )
            )
        return found

    def _reach(self) -> np.ndarray:
        """``reach[i, j]``: the most levels input ``i`` may be above input ``j`` (sum of steps on the path)."""
        m = self.inputs.size
        step: list[list[tuple[int, int]]] = [[] for _ in range(m)]  # (neighbour, levels it may be above)
        for i, parent in enumerate(self.parent):
            if parent >= 0:
                step[parent].append((i, int(self.up[i])))
                step[i].append((int(parent), int(self.down[i])))
        reach = np.zeros((m, m), dtype=np.int64)
        for j in range(m):
            seen = np.zeros(m, dtype=bool)
            seen[j] = True
            queue = deque([j])
            while queue:
                x = queue.popleft()
                for y, levels in step[x]:
                    if not seen[y]:
                        seen[y] = True
                        reach[y, j] = reach[x, j] + levels
                        queue.append(y)
        return reach

    def best(self, table: FloatArray, low: np.ndarray, high: np.ndarray) -> tuple[float, np.ndarray]:
        """The largest ``Σ_i table[i, k_i]`` over representatives with ``low <= k <= high``, and its levels
        (``-inf`` and an empty array when there is none).

        Each input's states are a ``(2, size + 1)`` array (no input at its cap in the subtree / some
        input at its cap; the last column ``-inf``, where a move off the grid lands). One generation
        (the children of every node at one depth) moves at a time."""
        m, size = table.shape
        grid = np.arange(size)
        own = np.where((grid[None, :] >= low[:, None]) & (grid[None, :] <= high[:, None]), table, _NEG)
        states = np.full((m, 2, size + 1), _NEG)
        moves = np.zeros((m, 2, size), dtype=bool)  # per child: up taken, per state
        lead = np.full((m, size), -1, dtype=np.intp)  # per node and level: the child carrying the flag
        leaves = self.leaves
        with np.errstate(invalid="ignore"):
            states[leaves, 0, :size] = np.where(self.at_cap[leaves], _NEG, own[leaves])
            states[leaves, 1, :size] = np.where(self.at_cap[leaves], own[leaves], _NEG)
            for generation in reversed(self.generations):
                kids, parents = generation.kids, generation.parents_with_kids
                if kids.size == 1:  # a chain: scalar indices are cheaper
                    self._link(int(kids[0]), int(parents[0]), own, states, moves, lead)
                    continue
                above = states[generation.rows, _STATE_AXIS, generation.above]
                below = states[generation.rows, _STATE_AXIS, generation.below]
                moved = np.maximum(above, below)
                moves[kids] = above >= below
                best_state = np.maximum(moved[:, 0], moved[:, 1])
                extra = np.where(best_state > _NEG, moved[:, 1] - best_state, _NEG)
                if generation.single:  # one child per parent
                    s0, sb, gain = moved[:, 0], best_state, extra
                    lead[parents] = np.where(extra > _NEG, kids[:, None], -1)
                else:
                    s0 = np.add.reduceat(moved[:, 0], generation.starts, axis=0)
                    sb = np.add.reduceat(best_state, generation.starts, axis=0)
                    gain = np.maximum.reduceat(extra, generation.starts, axis=0)
                    # the first child reaching the gain carries the flag
                    first = np.where(
                        (extra == gain[generation.group]) & (extra > _NEG), generation.positions, kids.size
                    )
                    first = np.minimum.reduceat(first, generation.starts, axis=0)
                    lead[parents] = np.where(first < kids.size, kids[np.minimum(first, kids.size - 1)], -1)
                cap = self.at_cap[parents]
                states[parents, 0, :size] = np.where(cap, _NEG, own[parents] + s0)
                states[parents, 1, :size] = np.where(cap, own[parents] + sb, own[parents] + sb + gain)
        start = int(np.argmax(states[0, 1]))
        value = float(states[0, 1, start])
        if value == _NEG:
            return value, np.empty(0, dtype=np.intp)
        levels = np.empty(m, dtype=np.intp)
        flags = np.empty(m, dtype=bool)
        levels[0], flags[0] = start, True
        for generation in self.generations:  # parents before children
            kids, owners = generation.kids, generation.owners
            if kids.size == 1:
                c, i = int(kids[0]), int(owners[0])
                k = int(levels[i])
                targets = np.where(moves[c][:, k], self.above[c, k], self.below[c, k])
                flags[c] = bool(flags[i]) and (
                    (k != self.cap[i] and lead[i, k] == c)
                    or bool(states[c, 1, targets[1]] >= states[c, 0, targets[0]])
                )
                levels[c] = targets[int(flags[c])]
                continue
            k, flag = levels[owners], flags[owners]
            moved_up = moves[kids, :, k]  # (kids, 2)
            up, down = self.above[kids, k], self.below[kids, k]
            targets = np.where(moved_up, up[:, None], down[:, None])
            better = states[kids, 1, targets[:, 1]] >= states[kids, 0, targets[:, 0]]
            carries = (k != self.cap[owners]) & (lead[owners, k] == kids)
            child_flag = flag & (carries | better)
            levels[kids] = np.where(child_flag, targets[:, 1], targets[:, 0])
            flags[kids] = child_flag
        return value, levels

    def _link(
        self, c: int, i: int, own: FloatArray, states: FloatArray, moves: np.ndarray, lead: np.ndarray
    ) -> None:
        """:meth:`best`'s step for a parent ``i`` whose only child is ``c``."""
        size = own.shape[1]
        above, below = states[c][:, self.above[c]], states[c][:, self.below[c]]
        moved = np.maximum(above, below)
        moves[c] = above >= below
        best_state = np.maximum(moved[0], moved[1])
        extra = np.where(best_state > _NEG, moved[1] - best_state, _NEG)
        lead[i] = np.where(extra > _NEG, c, -1)
        cap = self.at_cap[i]
        states[i, 0, :size] = np.where(cap, _NEG, own[i] + moved[0])
        states[i, 1, :size] = np.where(cap, own[i] + best_state, own[i] + best_state + extra)


def envelope_bound(lines: list[tuple[float, float]], low: float, high: float) -> float:
    """``max_{P ∈ [low, high]} min_i (Φ_i + ν_i P)/P − log P`` for lines ``(ν_i, Φ_i)`` (module docstring)."""
    nu = np.array([line[0] for line in lines])
    phi = np.array([line[1] for line in lines])
    with np.errstate(divide="ignore", invalid="ignore"):
        crossings = (phi[None, :] - phi[:, None]) / (nu[:, None] - nu[None, :])
    points = np.concatenate([[low, high], crossings[np.isfinite(crossings)], -phi])
    points = points[(points >= low) & (points <= high) & (points > 0.0)]
    values = (phi[None, :] + nu[None, :] * points[:, None]).min(axis=1) / points - np.log(points)
    return float(values.max())


@dataclass
class _Node:
    """A branch-and-bound node: one component's level ranges, its bound and its two bracketing walks."""

    component: int
    low: np.ndarray
    high: np.ndarray
    upper: float
    nu: float
    left: Walk | None = None
    right: Walk | None = None
    #: The parent's oracle calls (:class:`_Known`), reused where their maximisers lie in this node.
    known: _Known | None = None


@dataclass(frozen=True)
class _Known:
    """A node's oracle calls that its children may reuse, each as ``(value, levels)``: the bounds on
    ``P`` (``max P`` and ``max −P``) and its last probe (at the node's final ``ν``, where each child's
    first probe is). A maximiser over the node that lies in a child's ranges is a maximiser over the
    child (a subset), so the child's own call would return it again: the value is taken as it is."""

    p_max: tuple[float, np.ndarray]
    p_min: tuple[float, np.ndarray]
    probe: tuple[float, np.ndarray]

    @staticmethod
    def within(levels: np.ndarray, low: np.ndarray, high: np.ndarray) -> bool:
        return bool(np.all(levels >= low) and np.all(levels <= high))


class LatticePricer:
    """Exact pricing of mutual information (or NMI) on a cone whose rays lie on a lattice (module
    docstring), as certified column generation's pricer (:func:`~privopt.routes.pricing.contract.certified_pricer`);
    a "node" is one branch-and-bound node. Each component brings its own :meth:`LatticeComponent.best`."""

    traits: PricerTraits

    def __init__(
        self,
        cone: RowCone,
        groups: tuple[np.ndarray, ...],
        build: Callable[[np.ndarray, FloatArray], LatticeComponent],
        objective: SliceObjective,
    ) -> None:
        """``groups``: each component's inputs; ``build(inputs, p)`` makes the component of those with
        mass under the slice's weights ``p`` (the others' columns need no search)."""
        self.n = cone.n_inputs
        self.objective = objective
        self.weights = objective.weights
        p = np.asarray(objective.weights, dtype=np.float64)
        self.components = [build(inputs, p) for inputs in groups if p[inputs].any()]
        self.massless = [inputs for inputs in groups if not p[inputs].any()]
        self.repair = ConeRepair(cone)

    def fits(self) -> bool:
        return all(component.fits() for component in self.components)

    def search(self, search: LatticeSearch, limits: SearchLimits) -> None:
        """Run ``search`` within ``limits`` (a subclass may add an exact step of its own)."""
        search.run(limits)

    def prior_free_duals(self) -> list[FloatArray]:
        """None: no dual vector is known to certify every prior here."""
        return []

    def session(self, workers: int) -> contextlib.AbstractContextManager[CertifiedPricer]:
        """A run needs no set-up; the walk search runs in this process."""
        return single_session(self)

    def price(self, duals: FloatArray, request: PricingRequest) -> PricingOutcome:
        """The arguments of :meth:`~privopt.routes.pricing.envelope.EnvelopePricer.price`."""
        tolerance = request.tolerance
        target = request.target
        slack = request.slack
        deadline = request.deadline
        max_nodes = 10**7 if request.max_nodes is None else request.max_nodes
        max_columns = request.max_columns
        ceiling = request.ceiling
        start = time.perf_counter()
        scale = self.objective.scale
        lam = np.asarray(duals, dtype=np.float64) / scale
        search = LatticeSearch(self, lam)
        if any(np.any(lam[inputs] < 0.0) for inputs in self.massless):
            # Columns with pᵀw = 0 and −λᵀw > 0: no finite δ̄ certifies them.
            search.upper = np.inf
        else:
            self.search(
                search,
                SearchLimits(tolerance / scale, target / scale, slack, deadline, max_nodes, ceiling / scale),
            )
        found = sorted(search.walks, key=lambda item: -item[0])
        columns: list[PricedColumn] = []
        for ratio, component, levels in found[: 4 * max_columns]:
            repaired = self.repair(self.components[component].column(levels, self.n)[:, None])
            if repaired.shape[1] and not any(
                np.allclose(repaired[:, 0], c.column, atol=1e-12) for c in columns
            ):
                columns.append(PricedColumn(repaired[:, 0], scale * ratio))
        return PricingOutcome(
            upper=scale * search.upper,
            lower=scale * search.incumbent,
            columns=tuple(columns[:max_columns]),
            nodes=search.nodes,
            point_nodes=0,
            complete=search.complete,
            tolerance=tolerance,
            seconds=time.perf_counter() - start,
        )


class LatticeSearch:
    """One branch and bound of a :class:`LatticePricer` at duals ``λ`` (MI units): its bound ``upper``, its
    best ratio ``incumbent`` and the walks it met (ratio, component, levels)."""

    def __init__(self, pricer: LatticePricer, lam: FloatArray) -> None:
        self.pricer = pricer
        self.tables = [component.tables(lam) for component in pricer.components]
        self.incumbent = -np.inf
        self.upper = -np.inf
        self.nodes = 0
        self.complete = True
        self.walks: list[tuple[float, int, np.ndarray]] = []
        self.heap: list[tuple[float, int, _Node]] = []
        self.closed = _NEG  # the largest bound of a node closed without a kink
        self.stop: threading.Event | None = None  # set by another method that closed the pricing

    def run(self, limits: SearchLimits) -> None:
        """Bound the roots, then branch until ``limits`` stop the search (:meth:`resume` goes on)."""
        for c, component in enumerate(self.pricer.components):
            for low, high in component.roots():
                node = self._bound(_Node(c, low, high, np.inf, 0.0))
                if node is not None:
                    heapq.heappush(self.heap, (-node.upper, self.nodes, node))
        self.resume(limits)

    def resume(self, limits: SearchLimits) -> None:
        """Branch from the nodes left until ``limits`` stop the search; ``upper`` and ``complete`` say
        where it stands."""
        heap = self.heap
        self.complete = True
        while heap:
            if limits.closed(-heap[0][0], self.incumbent):
                break
            if (
                self.incumbent >= limits.ceiling
                or limits.spent(self.nodes)
                or (self.stop is not None and self.stop.is_set())
            ):
                self.complete = False
                break
            _, _, node = heapq.heappop(heap)
            split = self._split(node)
            if split is None:  # no kink: the bound is a walk's ratio (up to rounding)
                self.closed = max(self.closed, node.upper)
                continue
            for low, high in split:
                child = self._bound(_Node(node.component, low, high, node.upper, node.nu, known=node.known))
                if child is not None:
                    heapq.heappush(heap, (-child.upper, self.nodes, child))
        self.upper = max([self.incumbent, self.closed] + [-item[0] for item in heap])

    def _split(self, node: _Node) -> list[tuple[np.ndarray, np.ndarray]] | None:
        """Two level ranges separating the node's bracketing walks (on the input where their
        contributions to ``P`` differ most), or ``None`` when nothing separates them."""
        if node.left is None or node.right is None:
            return None
        k1, k2 = node.left.levels, node.right.levels
        differ = np.flatnonzero(k1 != k2)
        if differ.size == 0:
            return None
        p_table = self.tables[node.component][1]
        spread = np.abs(p_table[differ, k1[differ]] - p_table[differ, k2[differ]])
        i = int(differ[np.argmax(spread)])
        middle = (int(k1[i]) + int(k2[i])) // 2
        low_high = node.high.copy()
        low_high[i] = middle
        high_low = node.low.copy()
        high_low[i] = middle + 1
        return [(node.low.copy(), low_high), (high_low, node.high.copy())]

    def _bound(self, node: _Node) -> _Node | None:
        """The node with its bound and bracketing walks (``None`` when it holds no representative)."""
        self.nodes += 1
        component = self.pricer.components[node.component]
        a_table, p_table = self.tables[node.component]
        low, high = node.low, node.high
        known = node.known

        def best(table: FloatArray, reuse: tuple[float, np.ndarray] | None) -> tuple[float, np.ndarray]:
            if reuse is not None and _Known.within(reuse[1], low, high):
                return reuse
            return component.best(table, low, high)

        top = best(p_table, None if known is None else known.p_max)
        if top[0] == _NEG:
            return None
        bottom = best(-p_table, None if known is None else known.p_min)
        p_max, p_min = top[0], -bottom[0]
        lines: list[tuple[float, float]] = []
        left: Walk | None = None
        right: Walk | None = None
        last: tuple[float, np.ndarray] | None = None

        def probe(nu: float) -> tuple[Walk, float]:
            nonlocal last
            # the first probe is at the parent's last ν (``node.nu``), where the parent's last probe was
            reuse = None if known is None or last is not None else known.probe
            value, levels = best(a_table - nu * p_table, reuse)
            last = (value, levels)
            walk = component.walk(a_table, p_table, levels)
            lines.append((nu, value))
            self.met(walk, node.component)
            target = min(max(-value, p_min), p_max) if value < 0.0 else p_min
            return walk, walk.p - target  # > 0: the minimum over ν lies to the right

        nu = node.nu
        for _ in range(MAX_NU_STEPS):
            walk, side = probe(nu)
            if any(
                known is not None and np.array_equal(walk.levels, known.levels) for known in (left, right)
            ):
                if left is None or right is None:  # the same walk again: ν is its stationary point
                    left = right = None
                break  # at the crossing of two walks' lines no walk is above them: a kink of the hull
            if side > 0.0:
                left = walk
            elif side < 0.0:
                right = walk
            else:
                left = right = None  # stationary: the bound is this walk's ratio
                break
            if left is not None and right is not None:
                nu = (left.a - right.a) / (left.p - right.p)  # where their lines cross
            else:
                nu = walk.a / walk.p + 1.0  # the walk's own stationary ν (Dinkelbach step)
        bound = envelope_bound(lines, p_min, p_max)
        grid = np.arange(component.size)
        allowed = (grid[None, :] >= low[:, None]) & (grid[None, :] <= high[:, None])
        magnitude = float(np.where(allowed, np.abs(a_table), 0.0).max(axis=1).sum())
        magnitude += max(abs(nu) for nu, _ in lines) * p_max
        bound += DUAL_BOUND_RTOL * (1.0 + magnitude / p_min + abs(np.log(p_min)) + abs(np.log(p_max)))
        node.upper = min(node.upper, bound)
        node.nu, node.left, node.right = lines[-1][0], left, right
        assert last is not None  # the loop probes at least once
        node.known = _Known(top, bottom, last)
        return node

    def met(self, walk: Walk, component: int) -> None:
        """Keep ``walk`` of ``component`` (it may become the incumbent)."""
        ratio = walk.ratio
        self.incumbent = max(self.incumbent, ratio)
        self.walks.append((ratio, component, walk.levels))


class TreePricer(LatticePricer):
    """The lattice search on a tree cone: each component's oracle a dynamic program over its tree."""

    #: Exact every round; the run closes to half its ``gap_tolerance`` (the checker's own bound may exceed
    #: the route's); the checker takes four times the pricing (the 60-input tree of ``bench_families``,
    #: 13.7 s against 4.0 s).
    traits = PricerTraits(TREE_METHOD, "prior", exact_every_round=True, gap_share=0.5, check_ratio=4.0)

    def __init__(self, cone: RowCone, structure: TreeCone, objective: SliceObjective) -> None:
        super().__init__(
            cone, structure.components, lambda inputs, p: _Component(structure, inputs, p), objective
        )


def lattice_pricer(
    utility: SubConvexUtility,
    cone: RowCone,
    read: Callable[[RowCone], _Structure | Refusal],
    make: Callable[[RowCone, _Structure, SliceObjective], LatticePricer],
    kind: str,
) -> LatticePricer | Refusal:
    """The pricer ``make`` builds from the cone's structure (``read``, a ``kind`` of cone) for an entropy
    form of ``utility``, or why there is none."""
    objective = slice_objective(utility)
    if isinstance(objective, Refusal):
        return objective
    if objective.weights.size != cone.n_inputs:
        return Refusal(RefusalReason.UTILITY, "the utility's distribution does not match the cone's inputs")
    structure = read(cone)
    if isinstance(structure, Refusal):
        return Refusal(RefusalReason.CONE, f"the cone is not a {kind} cone: {structure.message}")
    pricer = make(cone, structure, objective)
    if not pricer.fits():
        return Refusal(
            RefusalReason.SIZE,
            f"the {kind} cone's lattice has more than {MAX_LEVELS} levels or exponents above {MAX_EXPONENT}",
        )
    return pricer


def tree_pricer(utility: SubConvexUtility, cone: RowCone) -> LatticePricer | Refusal:
    """The tree pricer of ``(utility, cone)``, or why there is none."""
    return lattice_pricer(utility, cone, tree_structure, TreePricer, "tree")


register_pricer(PricerEntry("tree", 30, tree_pricer, proved_by=("tree",)))
