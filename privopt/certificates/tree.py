"""The checker's proof of ``max (μ(w) − λᵀw)/pᵀw <= limit`` on tree cones.

A cone whose statistics are single inputs says ``w_a <= e^{D_ab} w_b``. The checker closes these bounds
under composition (``D_ab <= D_ac + D_cb``, Floyd–Warshall) and keeps the *essential* pairs, those no
third input improves: when they form a forest whose paths give every closed bound, the cone is that
forest's cone, and on each edge a ray is tight one way or the other (one tight row per edge; the
entries of a column in a component are all positive). With every edge bound a multiple of one unit
``u`` (found by rational approximation), a ray is a lattice walk ``h = log w = u·k``.

For mutual information under ``p`` (NMI scales ``λ`` and the limit by ``H(X)``), ``R(w) = A/P − log P``
with ``A = Σ e^{h_x}(p_x h_x − λ_x)``, ``P = Σ p_x e^{h_x}`` (Entropy paper eq. 45 on ``pᵀw = 1``), at any
scaling of the ray. Each ray is counted once, at the shift with ``max_x (k_x − c_x) = 0`` where
``c_x = ⌈−log p_x / u⌉`` (so ``p_x e^{h_x} < e^u``, with equality-or-above ``1`` for one input).

``R <= L`` is ``A <= P(L + log P)``. For any ``ν``, ``A <= Φ(ν) + νP`` with ``Φ(ν)`` the largest ``A − νP``
over the walks (a dynamic program, children merged one at a time with a flag "some input of the
subtree is at its cap"), so ``R <= L`` holds on a set of walks whose ``P`` lies in ``[P_lo, P_hi]`` as soon
as ``Φ(ν) <= min_{P ∈ [P_lo, P_hi]} P(L − ν + log P)``. The checker maximises the slack of that inequality
over ``ν`` (it is concave) by golden sections; where no ``ν`` proves it, it bisects the widest level range
of an input on which two maximisers differ, and a walk whose own ``R`` exceeds ``L`` refutes the claim.
"""

from __future__ import annotations

import abc
import math
import threading
import time
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np

from privopt.certificates.objective import entropy_prior, entropy_scale
from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.compiler.cone import RowCone
from privopt.tolerances import CHECK_ROUNDING_RTOL, CHECK_TREE_FORM_RTOL, CHECK_TREE_WEIGHTS_RTOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: Largest number of inputs (the closure is cubic).
MAX_INPUTS = 1000

#: Largest number of lattice levels of one component.
MAX_LEVELS = 4096

#: Largest denominator of an edge bound over the smallest one.
MAX_DENOMINATOR = 16


#: Golden-section steps per node.
GOLDEN_STEPS = 48

#: Nodes of the bisection before a lattice's exact proof, if it has one, starts beside it.
BISECTION_NODES = 64

_NEG = -np.inf
_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


@dataclass(frozen=True, eq=False)
class TreeForm:
    """The cone as a forest on a lattice: per component its inputs in post-order (children first),
    each input's parent (−1 for the root) and how many levels it may rise above or fall below it."""

    unit: float
    components: tuple[np.ndarray, ...]
    parent: np.ndarray
    rise: np.ndarray
    fall: np.ndarray

    def lattice(self, members: np.ndarray, p: FloatArray, lam: FloatArray) -> Lattice:
        return _Lattice(self, members, p, lam)


def tree_form(cone: RowCone) -> TreeForm | NotProved:
    """The checker's reading of ``cone`` as a tree cone, or why it is not one."""
    pairs = closed_pairs(cone)
    if isinstance(pairs, NotProved):
        return pairs
    closed, essential = pairs
    return _forest(closed, essential & essential.T)


def closed_pairs(cone: RowCone) -> tuple[FloatArray, np.ndarray] | NotProved:
    """The cone's bounds ``w_a <= e^{D_ab} w_b`` closed under composition, and the essential ones (no
    third input improves them), when every statistic is one input and every bound holds both ways; or
    why not (module docstring)."""
    n = cone.n_inputs
    if n > MAX_INPUTS:
        return NotProved(
            NotProvedReason.SIZE,
            f"the lattice methods close the bounds of at most {MAX_INPUTS} inputs, not {n}",
        )
    where, weight = [], []
    for group in cone.groups:
        nonzero = np.flatnonzero(group.vectors)
        if group.vectors.shape[0] != 1 or nonzero.size != 1 or group.vectors[0, nonzero[0]] <= 0.0:
            return NotProved(NotProvedReason.CONE, "its statistics are not single inputs")
        where.append(int(nonzero[0]))
        weight.append(float(group.vectors[0, nonzero[0]]))
    closed = np.full((n, n), np.inf)
    np.fill_diagonal(closed, 0.0)
    for block in cone.blocks:
        a, b = where[block.numerator], where[block.denominator]
        closed[a, b] = min(
            closed[a, b], block.log_factor + math.log(weight[block.denominator] / weight[block.numerator])
        )
    if not cone.blocks or np.any(np.diag(closed) < 0.0):
        return NotProved(
            NotProvedReason.CONE, "it has no ratio pairs, or one that bounds an input below itself"
        )
    for c in range(n):
        closed = np.minimum(closed, closed[:, c : c + 1] + closed[c : c + 1, :])
    if np.any(np.diag(closed) < -CHECK_TREE_FORM_RTOL):
        return NotProved(NotProvedReason.CONE, "its pairs admit only the zero column")
    if np.any(np.isfinite(closed) != np.isfinite(closed.T)):
        return NotProved(NotProvedReason.CONE, "a pair is bounded one way only")
    detour = np.full((n, n), np.inf)
    for c in range(n):
        through = closed[:, c : c + 1] + closed[c : c + 1, :]
        through[c, :] = np.inf
        through[:, c] = np.inf
        detour = np.minimum(detour, through)
    margin = CHECK_TREE_FORM_RTOL * (1.0 + np.abs(np.where(np.isfinite(closed), closed, 0.0)))
    essential = np.isfinite(closed) & (detour > closed + margin)
    np.fill_diagonal(essential, False)
    return closed, essential


def _forest(closed: FloatArray, essential: np.ndarray) -> TreeForm | NotProved:
    """The essential pairs as rooted trees, if they form a forest that reproduces ``closed``."""
    n = closed.shape[0]
    parent = np.full(n, -1, dtype=np.intp)
    seen = np.zeros(n, dtype=bool)
    components = []
    for root in range(n):
        if seen[root]:
            continue
        seen[root] = True
        order, queue = [root], deque([root])
        while queue:
            x = queue.popleft()
            for y in np.flatnonzero(essential[x]):
                if y == parent[x]:
                    continue
                if seen[y]:
                    return NotProved(NotProvedReason.CONE, "its essential pairs form a cycle")
                seen[y], parent[y] = True, x
                order.append(int(y))
                queue.append(int(y))
        members = np.array(order, dtype=np.intp)
        if not np.all(np.isfinite(closed[np.ix_(members, members)])):
            return NotProved(NotProvedReason.CONE, "its essential pairs do not join every bounded pair")
        components.append(members[::-1].copy())  # post-order: every child before its parent
    child = np.flatnonzero(parent >= 0)
    unit = lattice_unit(np.concatenate([closed[child, parent[child]], closed[parent[child], child]]))
    if unit is None:
        return NotProved(NotProvedReason.CONE, "its edge bounds are not multiples of one unit")
    rise = np.zeros(n, dtype=np.int64)
    fall = np.zeros(n, dtype=np.int64)
    rise[child] = np.rint(closed[child, parent[child]] / unit)
    fall[child] = np.rint(closed[parent[child], child] / unit)
    form = TreeForm(unit, tuple(components), parent, rise, fall)
    if not _paths_agree(form, closed):
        return NotProved(NotProvedReason.CONE, "its closed bounds are not the sums along the forest's paths")
    return form


def lattice_unit(bounds: FloatArray) -> float | None:
    """The unit of which every bound is an integer multiple (rational approximation), or ``None``."""
    nonzero = np.abs(bounds[bounds != 0.0])
    if nonzero.size == 0:
        return None
    smallest = float(nonzero.min())
    denominator = 1
    for value in bounds:
        fraction = Fraction(float(value) / smallest).limit_denominator(MAX_DENOMINATOR)
        denominator = denominator * fraction.denominator // math.gcd(denominator, fraction.denominator)
    unit = smallest / denominator
    multiples = bounds / unit
    ok = np.abs(multiples - np.rint(multiples)) <= CHECK_TREE_FORM_RTOL * np.maximum(1.0, np.abs(multiples))
    return unit if bool(np.all(ok)) else None


def _paths_agree(form: TreeForm, closed: FloatArray) -> bool:
    """Whether ``closed[y, x]`` is ``u ×`` the levels ``y`` may rise above ``x`` along the forest, for all
    ``x, y`` of a component."""
    kids: dict[int, list[int]] = {}
    for y, x in enumerate(form.parent):
        kids.setdefault(int(x), []).append(y)
    for members in form.components:
        for source in members.tolist():
            rise = {source: 0}
            queue = deque([source])
            while queue:
                x = queue.popleft()
                steps = [(c, int(form.rise[c])) for c in kids.get(x, [])]
                if form.parent[x] >= 0:  # the parent may rise above x by as much as x may fall below it
                    steps.append((int(form.parent[x]), int(form.fall[x])))
                for y, levels in steps:
                    if y not in rise:
                        rise[y] = rise[x] + levels
                        queue.append(y)
            targets = np.array(list(rise))
            expected = closed[targets, source]
            found = form.unit * np.array(list(rise.values()), dtype=np.float64)
            if np.any(
                np.abs(found - expected)
                > CHECK_TREE_FORM_RTOL * (1.0 + np.abs(expected)) * (1.0 + np.abs(found / form.unit))
            ):
                return False
    return True


@dataclass(frozen=True, eq=False)
class TreeProof:
    """The outcome of :func:`prove_ratio_bound`: whether ``max R <= limit`` was proved, the best column met
    (``Σ w = 1``; ``None`` if none) with its ``R``, why the proof stopped, and its size."""

    proved: bool
    column: FloatArray | None
    ratio: float
    reason: str
    nodes: int
    seconds: float


def applicability(utility: SubConvexUtility, weights: FloatArray) -> NotProved | None:
    """Why the tree method does not apply to ``(utility, weights)``, or ``None``."""
    p = entropy_prior(utility)
    if p is None:
        return NotProved(
            NotProvedReason.UTILITY,
            "the tree method needs an entropy form (mutual information: μ separable on pᵀw = 1)",
        )
    if (
        p.shape != np.shape(weights)
        or np.max(np.abs(np.asarray(weights) - p)) > CHECK_TREE_WEIGHTS_RTOL * p.max()
    ):
        return NotProved(
            NotProvedReason.CLAIM, "the tree method needs the normalisation ν = p (the utility's prior)"
        )
    return None


class Lattice(abc.ABC):
    """One component's lattice: levels from ``bottom`` to ``top``, caps, the tables ``A`` and ``P`` and the
    level ranges of its first nodes; subclasses bring :meth:`solve` (module docstring)."""

    def __init__(
        self, members: np.ndarray, p: FloatArray, lam: FloatArray, unit: float, top: int, bottom: int
    ) -> None:
        self.members = members
        self.p = p[members]
        positive = self.p > 0.0
        caps = np.zeros(members.size, dtype=np.int64)
        caps[positive] = np.ceil(-np.log(self.p[positive]) / unit)
        self.size = top - bottom + 1
        self.ok = self.size <= MAX_LEVELS and unit * max(abs(top), abs(bottom)) <= 600.0
        self.bottom = bottom
        self.cap = np.where(positive, caps - bottom, -1)
        self.low = np.zeros(members.size, dtype=np.int64)
        self.high = np.where(positive, self.cap, self.size - 1)
        levels = np.arange(self.size if self.ok else 1) + bottom
        h = unit * levels
        self.e = np.exp(h)
        self.A = self.e[None, :] * (self.p[:, None] * h[None, :] - lam[members][:, None])
        self.P = self.p[:, None] * self.e[None, :]

    @staticmethod
    def caps(p: FloatArray, unit: float) -> np.ndarray:
        """``c_x = ⌈−log p_x / u⌉`` of the inputs of positive ``p`` (module docstring)."""
        return np.ceil(-np.log(p[p > 0.0]) / unit).astype(np.int64)

    def roots(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The level ranges of the first nodes; together they hold every counted walk."""
        return [(self.low.copy(), self.high.copy())]

    @abc.abstractmethod
    def solve(self, table: FloatArray, low: np.ndarray, high: np.ndarray) -> tuple[float, np.ndarray | None]:
        """An upper bound on ``Σ_i table[i, k_i]`` over counted walks within the ranges, and a walk that
        attains it (``-inf`` and ``None`` when there is none)."""

    #: Whether :meth:`prove_whole` is an exact proof (it then runs beside the bisection).
    exact = False

    def prove_whole(self, bound: float, deadline: float | None) -> tuple[bool | None, list[np.ndarray]]:
        """An exact proof of ``R <= bound`` over the whole component, for lattices that have one:
        ``True`` (proved), ``False`` (refuted by a walk returned) or ``None`` (none, or undecided); and
        the walks met. It may run in another thread while :meth:`solve` runs in this one."""
        return None, []

    def cancel_whole(self) -> None:
        """Interrupt a running :meth:`prove_whole` (from another thread); the default has none to stop."""
        return None

    def totals(self, levels: np.ndarray) -> tuple[float, float]:
        rows = np.arange(levels.size)
        return float(self.A[rows, levels].sum()), float(self.P[rows, levels].sum())

    def column(self, levels: np.ndarray, n: int) -> FloatArray:
        w = np.zeros(n)
        w[self.members] = self.e[levels] / self.e[levels].max()
        return w / w.sum()


class _Lattice(Lattice):
    """One tree component and its merge-by-merge dynamic program (module docstring)."""

    def __init__(self, form: TreeForm, members: np.ndarray, p: FloatArray, lam: FloatArray) -> None:
        self.position = {int(x): i for i, x in enumerate(members)}
        m = members.size
        self.parent = np.array([self.position.get(int(form.parent[x]), -1) for x in members])
        self.rise, self.fall = form.rise[members], form.fall[members]
        self.kids: list[list[int]] = [[] for _ in range(m)]
        for i in range(m):
            if self.parent[i] >= 0:
                self.kids[self.parent[i]].append(i)
        caps = self.caps(p[members], form.unit)
        top = int(caps.max()) + int(self.rise.sum())
        bottom = int(caps.min()) - int(self.fall.sum())
        super().__init__(members, p, lam, form.unit, top, bottom)

    def solve(self, table: FloatArray, low: np.ndarray, high: np.ndarray) -> tuple[float, np.ndarray | None]:
        """The largest ``Σ_i table[i, k_i]`` over counted walks within the ranges, and the walk."""
        size = self.size
        index = np.arange(size)
        state: dict[int, tuple[FloatArray, FloatArray]] = {}
        trail: dict[int, list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]] = {}
        for i in range(self.members.size):  # post-order
            own = np.where((index >= low[i]) & (index <= high[i]), table[i], _NEG)
            capped = index == self.cap[i]
            none, some = np.where(capped, _NEG, own), np.where(capped, own, _NEG)
            trail[i] = []
            for c in self.kids[i]:
                c_none, c_some = state.pop(c)
                u0, d0 = _moved(c_none, int(self.rise[c])), _moved(c_none, -int(self.fall[c]))
                u1, d1 = _moved(c_some, int(self.rise[c])), _moved(c_some, -int(self.fall[c]))
                m0, m1 = np.maximum(u0, d0), np.maximum(u1, d1)
                keep = some + np.maximum(m0, m1)  # already flagged: the child either way
                start = none + m1  # the flag comes from this child
                took_keep = keep >= start
                trail[i].append((c, u0 >= d0, u1 >= d1, m1 >= m0, took_keep))
                none, some = none + m0, np.where(took_keep, keep, start)
            state[i] = (none, some)
        root = self.members.size - 1
        _, some = state[root]
        best = int(np.argmax(some))
        if some[best] == _NEG:
            return _NEG, None
        levels = np.zeros(self.members.size, dtype=np.int64)
        flagged = np.zeros(self.members.size, dtype=bool)
        levels[root], flagged[root] = best, True
        for i in range(self.members.size - 1, -1, -1):  # parents before children
            k, flag = int(levels[i]), bool(flagged[i])
            for c, up0, up1, child_some, took_keep in reversed(trail[i]):
                if not flag:
                    child_flag = False
                elif took_keep[k]:  # flagged before this child: it takes its better state
                    child_flag = bool(child_some[k])
                else:  # the flag came from this child; the earlier merges had none
                    child_flag, flag = True, False
                up = (up1 if child_flag else up0)[k]
                levels[c] = k + self.rise[c] if up else k - self.fall[c]
                flagged[c] = child_flag
        return float(some[best]), levels


def _moved(f: FloatArray, d: int) -> FloatArray:
    """``f[k + d]`` at every ``k`` (``-inf`` off the grid)."""
    out = np.full(f.size, _NEG)
    lo, hi = max(0, -d), min(f.size, f.size - d)
    if lo < hi:
        out[lo:hi] = f[lo + d : hi + d]
    return out


class LatticeForm(Protocol):
    """A cone read as walks on a lattice, component by component (a :class:`TreeForm`, a graph form)."""

    @property
    def components(self) -> tuple[np.ndarray, ...]: ...

    def lattice(self, members: np.ndarray, p: FloatArray, lam: FloatArray) -> Lattice: ...


def prove_ratio_bound(
    form: LatticeForm,
    utility: SubConvexUtility,
    duals: FloatArray,
    weights: FloatArray,
    limit: float,
    deadline: float | None,
) -> TreeProof:
    """Prove ``max_{w ∈ K} (μ(w) − λᵀw)/pᵀw <= limit`` on the tree cone ``form``, or find a column above
    ``limit``, or say why neither was done (module docstring; ``deadline`` on ``time.perf_counter``)."""
    start = time.perf_counter()
    refused = applicability(utility, weights)
    prior = entropy_prior(utility)
    if refused is not None or prior is None:
        return TreeProof(False, None, _NEG, str(refused), 0, time.perf_counter() - start)
    scale = entropy_scale(utility)
    p = prior
    lam = scale * np.asarray(duals, dtype=np.float64)
    bound = scale * limit
    best: tuple[float, FloatArray | None] = (_NEG, None)
    nodes = 0

    def stop(proved: bool, reason: str) -> TreeProof:
        return TreeProof(proved, best[1], best[0] / scale, reason, nodes, time.perf_counter() - start)

    for members in form.components:
        if not np.any(p[members] > 0.0):
            if np.any(lam[members] < 0.0):
                return stop(False, "inputs of prior 0 with a negative dual: their columns are not bounded")
            continue
        lattice = form.lattice(members, p, lam)
        if not lattice.ok:
            return stop(False, f"a component spans more than {MAX_LEVELS} levels")
        pending = lattice.roots()
        beside: _Beside | None = None
        try:
            while pending:
                if deadline is not None and time.perf_counter() > deadline:
                    return stop(False, "the time limit was reached")
                if beside is None and lattice.exact and nodes >= BISECTION_NODES:
                    beside = _Beside(lattice, bound, deadline)
                if beside is not None and beside.done.is_set():
                    whole, walks = beside.outcome
                    best = _better(best, lattice, walks, p.size)
                    if whole is not None:
                        if not whole:
                            return stop(False, "refuted: a column of the cone exceeds the limit")
                        break
                low, high = pending.pop()
                nodes += 1
                proved, walks = _examine(lattice, low, high, bound)
                best = _better(best, lattice, walks, p.size)
                if best[0] > bound:
                    return stop(False, "refuted: a column of the cone exceeds the limit")
                if proved:
                    continue
                halves = _bisect(lattice, low, high, walks)
                if halves is None:
                    return stop(
                        False, "a single walk's bound is within rounding of the limit; no column exceeds it"
                    )
                pending.extend(halves)
        finally:
            if beside is not None:
                beside.stop()
    return stop(True, "proved")


class _Beside:
    """A lattice's exact proof (:meth:`Lattice.prove_whole`) in a thread of its own, beside the bisection
    (HiGHS releases the GIL while it solves): ``done`` is set once it has decided or given up, and
    ``outcome`` is then its verdict and the walks it met."""

    def __init__(self, lattice: Lattice, bound: float, deadline: float | None) -> None:
        self.lattice = lattice
        self.done = threading.Event()
        self.outcome: tuple[bool | None, list[np.ndarray]] = (None, [])
        self.failed: list[BaseException] = []
        self.thread = threading.Thread(
            target=self._run, args=(bound, deadline), name="privopt checker exact proof", daemon=True
        )
        self.thread.start()

    def _run(self, bound: float, deadline: float | None) -> None:
        try:
            self.outcome = self.lattice.prove_whole(bound, deadline)
        except BaseException as error:  # raised again in the checker's thread by :meth:`stop`
            self.failed.append(error)
        finally:
            self.done.set()

    def stop(self) -> None:
        """Interrupt the proof if it still runs, and wait for its thread."""
        self.lattice.cancel_whole()
        self.thread.join()
        if self.failed:
            raise self.failed[0]


def _better(
    best: tuple[float, FloatArray | None], lattice: Lattice, walks: list[np.ndarray], n: int
) -> tuple[float, FloatArray | None]:
    """``best`` (a ratio and its column), or the best of ``walks`` if higher."""
    for levels in walks:
        a, mass = lattice.totals(levels)
        ratio = a / mass - math.log(mass)
        if ratio > best[0]:
            best = (ratio, lattice.column(levels, n))
    return best


def _examine(
    lattice: Lattice, low: np.ndarray, high: np.ndarray, bound: float
) -> tuple[bool, list[np.ndarray]]:
    """Whether some ``ν`` proves ``R <= bound`` on the node's walks (golden sections on the concave slack),
    and the maximisers met."""
    p_high, _ = lattice.solve(lattice.P, low, high)
    if np.isneginf(p_high):  # no walk in the ranges
        return True, []
    p_low = -lattice.solve(-lattice.P, low, high)[0]
    index = np.arange(lattice.size)
    allowed = (index[None, :] >= low[:, None]) & (index[None, :] <= high[:, None])
    size = float(np.where(allowed, np.abs(lattice.A), 0.0).max(axis=1).sum())  # rounding scale of the sums
    walks: list[np.ndarray] = []
    tangents: list[tuple[float, float, float]] = []  # (ν, slack, supergradient P_walk − P*)

    def slack(nu: float) -> float:
        value, levels = lattice.solve(lattice.A - nu * lattice.P, low, high)
        mass = min(max(math.exp(min(nu - bound - 1.0, 700.0)), p_low), p_high)
        floor = mass * (bound - nu + math.log(mass))
        margin = CHECK_ROUNDING_RTOL * (
            1.0 + size + abs(nu) * p_high + p_high * (abs(bound) + abs(math.log(mass)))
        )
        if levels is not None:
            walks.append(levels)
            tangents.append((nu, floor - value - margin, lattice.totals(levels)[1] - mass))
        return floor - value - margin

    a, b = bound + 1.0 + math.log(p_low), bound + 1.0 + math.log(p_high)
    x1, x2 = b - _GOLDEN * (b - a), a + _GOLDEN * (b - a)
    s1, s2 = slack(x1), slack(x2)
    for _ in range(GOLDEN_STEPS):
        if s1 >= 0.0 or s2 >= 0.0:
            return True, walks
        if _hopeless(tangents, a, b):
            return False, walks
        if s1 >= s2:
            b, x2, s2 = x2, x1, s1
            x1 = b - _GOLDEN * (b - a)
            s1 = slack(x1)
        else:
            a, x1, s1 = x1, x2, s2
            x2 = a + _GOLDEN * (b - a)
            s2 = slack(x2)
    return s1 >= 0.0 or s2 >= 0.0, walks


def _hopeless(tangents: list[tuple[float, float, float]], a: float, b: float) -> bool:
    """Whether the slack's tangent lines show it negative on all of ``[a, b]`` (it is concave, up to the
    rounding margin's own shape, so this only ends a search early: the node is then split, never
    proved)."""
    if len(tangents) < 2:
        return False
    nu, value, slope = (np.array(column) for column in zip(*tangents, strict=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        crossings = (
            value[None, :] - value[:, None] + slope[:, None] * nu[:, None] - slope[None, :] * nu[None, :]
        ) / (slope[:, None] - slope[None, :])
    points = np.concatenate([[a, b], crossings[np.isfinite(crossings) & (crossings > a) & (crossings < b)]])
    envelope = (value[None, :] + slope[None, :] * (points[:, None] - nu[None, :])).min(axis=1)
    return bool(envelope.max() < -1e-9 * (1.0 + float(np.abs(value).max())))


def _bisect(
    lattice: Lattice, low: np.ndarray, high: np.ndarray, walks: list[np.ndarray]
) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """The node's ranges with one input's range cut in two: between the levels of the last two distinct
    maximisers, on the input where their ``p e^h`` differ most (else the widest range, halved); ``None``
    when every range is a single level."""
    distinct = [walks[-1]] if walks else []
    for levels in reversed(walks):
        if not np.array_equal(levels, distinct[0]):
            distinct.append(levels)
            break
    if len(distinct) == 2:
        first, second = distinct
        gap = lattice.p * np.abs(lattice.e[first] - lattice.e[second])
        i = int(np.argmax(np.where(first != second, gap, -1.0)))
        cut = (int(first[i]) + int(second[i])) // 2
    else:
        spread = np.where(high > low, lattice.p * (lattice.e[high] - lattice.e[low]), -1.0)
        if not np.any(high > low):
            return None
        i = int(np.argmax(spread))
        cut = (int(low[i]) + int(high[i])) // 2
    below, above = high.copy(), low.copy()
    below[i], above[i] = cut, cut + 1
    return [(low.copy(), below), (above, high.copy())]
