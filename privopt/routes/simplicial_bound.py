"""A valid upper bound on the maximum of a convex function over a polytope inside the simplex.

Column generation needs ``R* = max_{v ∈ Q} f(v)`` for the reduced cost ``f(v) = μ(v) − λᵀv`` (convex)
over the normalised cone slice ``Q ⊆ Δ``, or at least an upper bound on it: a convex function's
maximum over a simplex is attained at one of the simplex's vertices. So:

- the *simplex-vertex bound*: ``Q ⊆ Δ = conv{e_x}``, hence ``R* <= max_x f(e_x)``;
- *branch and bound* over a simplicial partition of a simplex containing ``Q``: split a simplex
  along its longest edge; a piece that misses ``Q`` (an LP says so) is dropped, and the bound is the
  largest ``max_{vertices} f`` over the remaining pieces. The LPs also return points of ``Q`` (the
  best along ``f``'s gradient), whose values are lower bounds on ``R*``. The bound only ever
  decreases, and it is valid whenever the search stops (budget of nodes, time — a split starts only if
  one as long as the last fits before the deadline — or memory: every piece
  is a dense ``n × n`` table, and the search stops before the pieces it holds exceed
  :data:`MEMORY_SHARE` of the memory limit, :mod:`privopt.memory`).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privopt.memory import dense_bytes, fits
from privopt.validation import FloatArray

#: Covers with more vertices (rows, before merging duplicates) than this are not returned: the LP over
#: them (:func:`privopt.routes.colgen._cover_bound`) would cost seconds for a bound no better than the
#: branch and bound's own (30 × 30 alphabet: 10,800 rows of 900, 3.5 s to merge them alone).
COVER_MAX_ROWS = 4000

#: Share of the memory limit the pieces of the search may hold (their cover is copied once more).
MEMORY_SHARE = 0.25


def distinct_rows(pieces: list[FloatArray]) -> FloatArray:
    """The distinct rows of ``pieces`` (each a matrix), in order of first appearance.

    Pieces share most of their rows (a child copies its parent's but one); rows are compared by a
    hash of their bytes, confirmed by exact equality. ``np.unique(axis=0)`` sorts the rows instead:
    4.2 s for the 54,000 rows of 900 entries of a 30 × 30 alphabet's search.
    """
    first: dict[int, list[FloatArray]] = {}
    kept: list[FloatArray] = []
    for piece in pieces:
        for row in piece:
            same = first.setdefault(hash(row.tobytes()), [])
            if not any(np.array_equal(row, other) for other in same):
                same.append(row)
                kept.append(row)
    return np.array(kept)


@dataclass(frozen=True)
class BoundResult:
    """``upper >= max_Q f``; ``lower`` is ``f`` at the best point of ``Q`` met; ``complete`` when the
    search closed the gap (to ``tolerance``) rather than running out of budget; ``cover`` holds the
    vertices (rows) of the pieces that meet ``Q`` — ``Q`` lies in the union of their simplices (empty
    above :data:`COVER_MAX_ROWS`)."""

    upper: float
    lower: float
    best_point: FloatArray | None
    nodes: int
    complete: bool
    cover: FloatArray


def convex_max_over_slice(
    f: Callable[[FloatArray], FloatArray],
    root: FloatArray,
    point_in: Callable[[FloatArray, FloatArray], tuple[FloatArray | None, bool]],
    direction: Callable[[FloatArray], FloatArray],
    *,
    lower: float = -np.inf,
    tolerance: float = 1e-9,
    max_nodes: int = 2000,
    deadline: float | None = None,
) -> BoundResult:
    """Upper-bound ``max f`` over ``Q ⊆ conv(root)`` by simplicial branch and bound (module docstring).

    ``root`` holds the vertices (rows) of a simplex containing ``Q`` (e.g. the identity: ``Δ``);
    ``f`` evaluates a convex function on the rows of a matrix; ``point_in(V, c)`` returns the point of
    ``Q ∩ conv(rows of V)`` maximising ``cᵀv`` (an LP) and whether they are proved not to meet (a
    piece is dropped only then: an LP that fails otherwise keeps it, with no point); ``c`` is
    ``direction(v)`` at the piece's best vertex (a gradient of ``f``), so the points found are good
    lower bounds.
    """
    values = f(root)
    heap: list[tuple[float, int, FloatArray, FloatArray]] = [(-float(np.max(values)), 0, root, values)]
    counter, nodes = 1, 1
    best_point = None
    settled: list[FloatArray] = []  # pieces meeting Q whose bound is already below lower + tolerance

    def cover() -> FloatArray:
        pieces = settled + [item[2] for item in heap]
        if sum(len(piece) for piece in pieces) > COVER_MAX_ROWS:  # its LP would cost more than it gives
            return np.zeros((0, root.shape[1]))
        if len(pieces) <= 1:  # nothing to merge (sorting the rows costs seconds for large roots)
            return pieces[0] if pieces else np.zeros((0, root.shape[1]))
        return distinct_rows(pieces)

    piece_bytes = 2 * dense_bytes(*root.shape)  # a piece and its child, while it is split
    split_seconds = 0.0  # of the last split: the next one must fit before the deadline too
    while heap:
        top = -heap[0][0]
        if top <= lower + tolerance:
            return BoundResult(max(lower, top), lower, best_point, nodes, True, cover())
        if (
            nodes >= max_nodes
            or (deadline is not None and time.perf_counter() + split_seconds > deadline)
            or not fits((len(heap) + len(settled) + 1) * piece_bytes, MEMORY_SHARE)
        ):
            return BoundResult(top, lower, best_point, nodes, False, cover())
        started = time.perf_counter()
        _, _, vertices, vertex_values = heapq.heappop(heap)
        # Split the longest edge at its midpoint.
        # Squared distances through the Gram matrix: n² memory, where the pairwise differences took n³
        # (17 s and 5.8 GB for one node on a 30 × 30 alphabet).
        squares = np.einsum("ij,ij->i", vertices, vertices)
        distances = squares[:, None] + squares[None, :] - 2.0 * (vertices @ vertices.T)
        i, j = np.unravel_index(int(np.argmax(distances)), distances.shape)
        midpoint = (vertices[i] + vertices[j]) / 2.0
        mid_value = float(f(midpoint[None, :])[0])
        for replaced in (i, j):
            child = vertices.copy()
            child[replaced] = midpoint
            child_values = vertex_values.copy()
            child_values[replaced] = mid_value
            nodes += 1
            point, empty = point_in(child, direction(child[int(np.argmax(child_values))]))
            if empty:
                continue
            if point is not None:  # None and not empty: the LP failed, the piece stays (unbounded below)
                value = float(f(point[None, :])[0])
                if value > lower:
                    lower, best_point = value, point
            bound = float(np.max(child_values))
            if bound > lower + tolerance:
                heapq.heappush(heap, (-bound, counter, child, child_values))
                counter += 1
            else:
                settled.append(child)
        split_seconds = time.perf_counter() - started
    # Every piece was dropped or bounded by lower + tolerance.
    return BoundResult(lower + tolerance, lower, best_point, nodes, True, cover())
