"""A first-order LP solution made a mechanism that keeps its value, on a pair cone (docs/compiler.md,
"LP route", "First-order solves").

A first-order method (PDLP) meets the LP's rows only to a tolerance: on a 30×30 Manhattan grid after six
minutes the rows ``Σ_y w_y = 1`` were off by 6·10⁻³ and the cone's rows by as much. Mixing each column
with the uniform one (:func:`~privopt.routes.pricing.slice_lp.into_cone`) then loses 40 % of the value.
On a cone whose rows are all single-input pairs ``w_a <= e^{L_ab} w_b`` with ``L >= 0`` (``ε·d``-privacy
on any metric, per-pair levels, LDP) three exact steps keep it:

1. **Upward closure.** In ``log w`` the pairs are difference constraints, so the least column above a
   point ``v >= 0`` in the cone is ``ŵ_b = max_a v_a e^{−D(a, b)}``, ``D`` the shortest paths of the
   pairs' graph with lengths ``L`` (``a = b`` gives ``ŵ >= v``; the triangle inequality of ``D`` gives
   every pair). It raises only entries below their neighbours' envelope: the solver's noise in the
   tails, not the mass that carries the value.
2. **Re-mixing.** The closed columns' rows sum to ``s_x >= 1``, unevenly. An LP over the weights of the
   closed columns and of the kernels ``K_j(b) = e^{−D(j, b)}`` (the closure of input ``j``'s indicator)
   and the constant column (alone a solution), each kernel labelled with the output that values it
   most, restores ``Σ_y w_y = 1`` at the least loss (``n`` rows, ``2n + 1`` columns). A sum of columns in
   the cone is in the cone.
3. **A deficit column.** That LP meets its rows to its own tolerance (about 10⁻⁸). With the rows sums
   ``s`` and their spread ``δ = 1 − min s / max s``, ``W = α M`` for ``α = (1 − t) / max s`` and
   ``q = 1 − α s`` added to one output give rows of exactly 1, and ``q`` lies in ``[t, t + δ]``, in the
   cone once ``t >= δ / (e^{L_min} − 1)``: a loss of about ``t``. The closed columns themselves, filled
   the same way, are the other candidate, and the better of the two is kept: where the point is
   already close (a spread of 10⁻⁵) they lose less than a re-mixing with too few columns to meet the
   rows (a 6-input optimum with two outputs used).

On that 30×30 grid the three steps kept the value within 0.56 % of PDLP's raw point (which is off the
cone) and 0.84 % of its duals' bound, in 35 s, 30 of them the re-mixing LP (docs/compiler.md, "First-order solves").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from privopt.routes.row_generation import PairRows
from privopt.solvers.lp import highs_lp, new_highs
from privopt.tolerances import DEFICIT_FLOOR, REPAIR_MARGIN
from privopt.validation import FloatArray

#: Bytes of the blocks of ``e^{−D}`` times a chunk of columns held at once by the closure.
CLOSURE_BLOCK_BYTES = 64 * 1024**2


def pairs_only(rows: sp.csr_matrix) -> bool:
    """Whether every row is a single-input pair ``w_a <= e^{L} w_b`` with ``L >= 0`` (module docstring)."""
    return _pairs(PairRows.of(rows))


def _pairs(pairs: PairRows) -> bool:
    return not pairs.general.size and not np.any(pairs.length < 0.0)


@dataclass(frozen=True)
class PairGraph:
    """``decay[a, b] = e^{−D(a, b)}`` for the shortest paths ``D`` of a cone's pairs as edges ``a → b`` of
    length ``L`` (``w_a <= e^{L} w_b``), and the shortest pair's ``L`` (the deficit column's room)."""

    decay: FloatArray
    least_length: float

    @classmethod
    def of(cls, rows: sp.csr_matrix) -> PairGraph | None:
        """The graph of ``rows`` (over ``w`` alone), or ``None`` unless :func:`pairs_only`."""
        pairs = PairRows.of(rows)
        if not _pairs(pairs):
            return None
        n = rows.shape[1]
        loops = pairs.head == pairs.tail  # w_a <= e^{L} w_a with L >= 0 holds for every w
        head, tail, length = pairs.head[~loops], pairs.tail[~loops], pairs.length[~loops]
        # the shortest of each repeated pair (the tightest row): COO duplicates would be summed
        order = np.lexsort((length, tail, head))
        head, tail, length = head[order], tail[order], length[order]
        first = np.ones(head.size, dtype=bool)
        first[1:] = (head[1:] != head[:-1]) | (tail[1:] != tail[:-1])
        graph = sp.csr_matrix((length[first], (head[first], tail[first])), shape=(n, n))
        decay = np.exp(-shortest_path(graph, method="D", directed=True))
        return cls(decay, float(length.min(initial=np.inf)))

    def close(self, columns: FloatArray) -> FloatArray:
        """``ŵ_b = max_a v_a e^{−D(a, b)}`` for every column ``v`` (module docstring, step 1)."""
        n = self.decay.shape[0]
        closed = np.empty_like(columns)
        chunk = max(1, CLOSURE_BLOCK_BYTES // (8 * n * n))
        for start in range(0, columns.shape[1], chunk):
            block = columns[:, start : start + chunk]
            closed[:, start : start + chunk] = (self.decay[:, :, None] * block[:, None, :]).max(axis=0)
        return closed


def repair(
    graph: PairGraph, C: FloatArray, matrix: FloatArray, extra: tuple[FloatArray, np.ndarray] | None = None
) -> FloatArray:
    """A mechanism (inputs × outputs) in the cone of ``graph`` near ``matrix``, a first-order point of
    ``max Σ C ∘ W`` (module docstring): the better of the closed columns and their re-mixing, each with its
    deficit column. ``extra`` (points ``>= 0``, inputs × points, and each one's output) are closed and
    offered to the re-mixing too. A row of ``matrix`` with no mass starts from the uniform row; where
    neither candidate fits (a pair of factor 1 leaves the deficit column no room), the constant column on
    the output that values it most, which every pair cone with ``L >= 0`` holds."""
    n, k = C.shape
    columns = np.clip(matrix, 0.0, None)
    columns[columns.sum(axis=1) <= 0.0] = 1.0 / k
    closed = graph.close(columns / columns.sum(axis=1, keepdims=True))
    offered = None if extra is None else (graph.close(np.clip(extra[0], 0.0, None)), extra[1])
    mixed = _remix(graph, C, closed, offered)
    designs = [_fill(graph, C, found) for found in (closed, mixed) if found is not None]
    valid = [design for design in designs if design is not None]
    if not valid:
        constant = np.zeros((n, k))
        constant[:, int(np.argmax(C.sum(axis=0)))] = 1.0
        return constant
    return max(valid, key=lambda design: float(np.sum(C * design)))


def _remix(
    graph: PairGraph, C: FloatArray, closed: FloatArray, offered: tuple[FloatArray, np.ndarray] | None
) -> FloatArray | None:
    """Step 2: ``max Σ_j c_j C_{label j}ᵀ v_j`` s.t. ``Σ_j c_j v_j = 1``, ``c >= 0``, over the closed columns
    (each with its own output), the ``offered`` closed points (each with its output) and the kernels (each
    with the output that values it most)."""
    import highspy

    n, k = C.shape
    # column j: b ↦ e^{−D(j, b)}; and the constant column, alone a solution of the rows
    kernels = np.hstack([graph.decay.T, np.ones((n, 1))])
    gains = C.T @ kernels
    points, owners = (np.zeros((n, 0)), np.zeros(0, dtype=int)) if offered is None else offered
    labels = np.concatenate([np.arange(k), owners, np.argmax(gains, axis=0)])
    values = np.concatenate(
        [np.einsum("xy,xy->y", C, closed), np.einsum("xj,xj->j", C[:, owners], points), gains.max(axis=0)]
    )
    columns = np.hstack([closed, points, kernels])
    model = highs_lp(
        values,
        sp.csc_matrix(columns),
        (np.ones(n), np.ones(n)),
        (np.zeros(columns.shape[1]), np.full(columns.shape[1], highspy.kHighsInf)),
        maximize=True,
    )
    highs = new_highs()
    highs.passModel(model)
    highs.run()
    if highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    weights = np.clip(np.asarray(highs.getSolution().col_value), 0.0, None)
    mixed = np.zeros((n, k))
    np.add.at(mixed.T, labels, (columns * weights).T)
    return mixed


def _fill(graph: PairGraph, C: FloatArray, mixed: FloatArray) -> FloatArray | None:
    """Step 3: rows of exactly 1 by a near-constant column ``q`` on the output that values it most."""
    sums = mixed.sum(axis=1)
    top = float(sums.max())
    spread = 1.0 - float(sums.min()) / top
    room = float(np.expm1(graph.least_length))
    if room <= 0.0 and spread > 0.0:
        return None
    share = 0.0 if spread <= 0.0 else max(spread * (1.0 + REPAIR_MARGIN) / room, DEFICIT_FLOOR)
    if share >= 1.0:
        return None
    design = mixed * ((1.0 - share) / top)
    deficit = 1.0 - design.sum(axis=1)
    design[:, int(np.argmax(C.T @ deficit))] += deficit
    return design
