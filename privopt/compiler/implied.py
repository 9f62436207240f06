"""Pair blocks implied by others: the rows a solver may leave out without changing the cone.

A *single-input pair* block is ``c_a w_a <= e^{f} c_b w_b`` (both groups one vector with one non-zero
entry: metric privacy, per-pair levels, policy graphs, LDP), i.e. ``w_a <= e^{L_ab} w_b`` with length
``L_ab = f + log(c_b / c_a)``. Chained, ``w_a <= e^{L_ay} w_y <= e^{L_ay + D_yb} w_b`` for every path of
pairs from ``y`` to ``b`` of total length ``D_yb``; so a pair with ``L_ay + D_yb <= L_ab`` for some other
input ``y`` adds nothing (Bordenabe et al., CCS 2014, §4: for a metric, ``d(x,z) = d(x,y) + d(y,z)``;
on a Manhattan grid only the four neighbours remain, on a path the consecutive inputs). A pair repeated
with a larger length is implied by its shorter copy.

Dropping is done only through legs of positive length, each shorter than the dropped pair, so by
induction on the length every dropped pair is implied by pairs that are kept (two pairs of length 0
between the same inputs never drop each other). Lengths are compared within
:data:`~privopt.tolerances.IMPLIED_PAIR_RTOL` (rounding of ``ε·d`` for Euclidean distances): a kept
solution may exceed a dropped pair's factor by that relative amount in the exponent, far inside every
audit's tolerance.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from privopt.compiler.cone import RowCone
from privopt.memory import require
from privopt.tolerances import IMPLIED_PAIR_RTOL
from privopt.validation import FloatArray

#: Inputs handled per step of the vectorised search for an intermediate input (``CHUNK · n²`` floats).
CHUNK_INPUTS = 16

#: Bytes per entry of the ``n × n`` length and distance tables and one chunk of the search.
TABLE_BYTES = 8 * (3 + CHUNK_INPUTS)


def pair_endpoints(cone: RowCone) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(blocks, a, b, length)``: the single-input pair blocks of ``cone`` (module docstring), by index,
    with their inputs and lengths ``L_ab``."""
    blocks, left, right, lengths = [], [], [], []
    for index, block in enumerate(cone.blocks):
        top, bottom = cone.groups[block.numerator].vectors, cone.groups[block.denominator].vectors
        if top.shape[0] != 1 or bottom.shape[0] != 1:
            continue
        top_support, bottom_support = np.flatnonzero(top[0]), np.flatnonzero(bottom[0])
        if top_support.size != 1 or bottom_support.size != 1:
            continue
        a, b = int(top_support[0]), int(bottom_support[0])
        blocks.append(index)
        left.append(a)
        right.append(b)
        lengths.append(block.log_factor + np.log(bottom[0, b] / top[0, a]))
    return (
        np.array(blocks, dtype=int),
        np.array(left, dtype=int),
        np.array(right, dtype=int),
        np.array(lengths, dtype=np.float64),
    )


def implied_pairs(lengths: FloatArray) -> np.ndarray:
    """A boolean ``n × n`` mask of the pairs ``w_a <= e^{L_ab} w_b`` implied by the others (module
    docstring), for the lengths ``L`` (``inf``: no pair; the diagonal is ignored; every length >= 0).
    Implied-ness does not depend on a common factor of the lengths (``ε``), so a definition can ask it of
    its levels once."""
    n = lengths.shape[0]
    require(
        TABLE_BYTES * n * n,
        f"the search for implied pairs among the pairs of {n:,} inputs",
        "route='cvxpy' (no pair is removed there)",
    )
    direct = np.array(lengths, dtype=np.float64)
    np.fill_diagonal(direct, np.inf)
    a, b = np.nonzero(np.isfinite(direct))
    if a.size == 0:
        return np.zeros((n, n), dtype=bool)
    length = direct[a, b]
    # csgraph drops explicit zeros: a pair of length 0 is stored as the smallest positive double.
    graph = sp.csr_matrix((np.where(length <= 0.0, np.finfo(float).tiny, length), (a, b)), shape=(n, n))
    distance = shortest_path(graph, method="FW" if a.size > n * n // 4 else "D", directed=True)
    np.fill_diagonal(distance, np.inf)  # an intermediate input differs from both ends
    # Legs of length 0 (or within rounding of it) do not count: each leg must be shorter than the pair.
    floor = 2.0 * IMPLIED_PAIR_RTOL * max(float(length.max()), 1.0)
    legs_in = np.where(direct > floor, direct, np.inf)
    legs_out = np.where(distance > floor, distance, np.inf)
    shortest_via = np.empty((n, n))
    for start in range(0, n, CHUNK_INPUTS):
        rows = slice(start, min(start + CHUNK_INPUTS, n))
        shortest_via[rows] = (legs_in[rows, :, None] + legs_out[None, :, :]).min(axis=1)
    implied = np.zeros((n, n), dtype=bool)
    implied[a, b] = shortest_via[a, b] <= length * (1.0 + IMPLIED_PAIR_RTOL) + IMPLIED_PAIR_RTOL
    return implied


def implied_blocks(cone: RowCone) -> np.ndarray:
    """A boolean per block of ``cone``: ``True`` where the block is a single-input pair implied by the
    pairs that are kept (module docstring). Blocks of any other form are never implied; nor is any pair
    of a cone with a negative length (its pairs may force inputs to 0, where chaining says nothing)."""
    implied = np.zeros(len(cone.blocks), dtype=bool)
    blocks, left, right, lengths = pair_endpoints(cone)
    if blocks.size == 0 or np.any(lengths < 0.0) or np.any(left == right):
        return implied
    # The shortest copy of each pair stands for it; longer copies are implied by it.
    order = np.lexsort((lengths, right, left))
    first = np.ones(order.size, dtype=bool)
    first[1:] = (left[order][1:] != left[order][:-1]) | (right[order][1:] != right[order][:-1])
    implied[blocks[order[~first]]] = True
    kept = order[first]
    table = np.full((cone.n_inputs, cone.n_inputs), np.inf)
    table[left[kept], right[kept]] = lengths[kept]
    implied[blocks[kept]] = implied_pairs(table)[left[kept], right[kept]]
    return implied
