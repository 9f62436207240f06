"""Linear-ratio constraints on the columns of a mechanism: the common form of every definition.

Each privacy notion in the papers is a family of inequalities that are linear and homogeneous in one
column ``w = W[:, y]`` of the channel matrix (DESIGN.md §3)::

    a_iᵀ w  <=  e^ε · b_iᵀ w        for every pair i and every output y,

with non-negative vectors ``a_i`` ("numerator") and ``b_i`` ("denominator") that may depend on a
distribution. :class:`RatioPairs` stores the ``a_i`` and ``b_i`` as sparse matrices with a label per
pair, and computes the leakage of a mechanism exactly: the smallest ``ε >= 0`` for which all
inequalities hold, with the pair and output that attain it.

Zero conventions (as in the definitions): when ``a_iᵀw = 0`` the inequality holds for every ε (this
covers outputs of probability zero, the ``0/0`` case); when ``a_iᵀw > 0 = b_iᵀw`` it holds for no
finite ε. Linear statistics at or below :data:`~privopt.tolerances.ZERO_ATOL` count as zero.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from privopt.data.terms import PairLabel, Term
from privopt.errors import ShapeError
from privopt.tolerances import ZERO_ATOL
from privopt.validation import FloatArray

#: Columns are processed in chunks so that ``pairs × chunk`` stays below this many entries.
_CHUNK_ENTRIES = 4_000_000


@dataclass(frozen=True, eq=False)
class RatioPairs:
    """Constraints ``A w <= e^ε B w`` on every column ``w``, with one label per row.

    ``numerators`` (``A``) and ``denominators`` (``B``) are sparse CSR matrices of shape
    ``(pairs, inputs)`` with non-negative entries.
    """

    numerators: sp.csr_matrix
    denominators: sp.csr_matrix
    labels: tuple[PairLabel, ...]

    def __post_init__(self) -> None:
        if self.numerators.shape != self.denominators.shape or self.numerators.shape[0] != len(self.labels):
            raise ShapeError(
                "pairs",
                "numerators, denominators and labels of equal length",
                f"{self.numerators.shape}, {self.denominators.shape}, {len(self.labels)}",
            )

    @property
    def n_pairs(self) -> int:
        return self.numerators.shape[0]

    @property
    def n_inputs(self) -> int:
        return self.numerators.shape[1]

    @classmethod
    def from_dense(
        cls, numerators: FloatArray, denominators: FloatArray, labels: Sequence[PairLabel]
    ) -> RatioPairs:
        return cls(sp.csr_matrix(numerators), sp.csr_matrix(denominators), tuple(labels))

    @classmethod
    def unit(
        cls, mask: np.ndarray, kind: str, labels: Sequence[Hashable] | None = None, rule: str = ""
    ) -> RatioPairs:
        """Pairs ``(e_a, e_b)`` of unit vectors for every ``(a, b)`` with ``mask[a, b]``.

        ``labels[a]`` names input ``a`` in the witness (default: the index).
        """
        a, b = np.nonzero(mask)
        n_inputs = mask.shape[1]
        m = a.size
        ones, rows = np.ones(m), np.arange(m)
        name = labels if labels is not None else range(n_inputs)
        return cls(
            sp.csr_matrix((ones, (rows, a)), shape=(m, n_inputs)),
            sp.csr_matrix((ones, (rows, b)), shape=(m, n_inputs)),
            tuple(
                PairLabel(Term(kind, name[i]), Term(kind, name[j]), rule=rule)
                for i, j in zip(a.tolist(), b.tolist(), strict=True)
            ),
        )

    @classmethod
    def concatenate(cls, parts: Sequence[RatioPairs]) -> RatioPairs:
        """Stack several families of pairs (e.g. one per member of a finite set)."""
        return cls(
            sp.vstack([p.numerators for p in parts], format="csr"),
            sp.vstack([p.denominators for p in parts], format="csr"),
            tuple(label for p in parts for label in p.labels),
        )

    def log_ratios(self, columns: FloatArray) -> FloatArray:
        """``log(a_iᵀw / b_iᵀw)`` for every pair ``i`` (rows) and column ``w`` (columns).

        Entries are ``-inf`` where the numerator is zero (no constraint) and ``+inf`` where only the
        denominator is zero.
        """
        num = np.asarray(self.numerators @ columns)
        den = np.asarray(self.denominators @ columns)
        out = np.full(num.shape, -np.inf)
        active = num > ZERO_ATOL
        finite = active & (den > ZERO_ATOL)
        out[finite] = np.log(num[finite] / den[finite])
        out[active & ~finite] = np.inf
        return out

    def leakage(self, matrix: FloatArray) -> tuple[FloatArray, np.ndarray]:
        """Per-output leakage of a channel matrix and the pair attaining it.

        Returns ``(eps_per_output, pair_index)``: ``eps_per_output[y] = max(0, max_i log ratio)``
        and ``pair_index[y]`` the maximising pair (``-1`` when no pair is active for that output).
        """
        if matrix.shape[0] != self.n_inputs:
            raise ShapeError("mechanism", f"{self.n_inputs} inputs", f"{matrix.shape[0]}")
        n_out = matrix.shape[1]
        eps = np.zeros(n_out)
        arg = np.full(n_out, -1, dtype=np.int64)
        if self.n_pairs == 0:
            return eps, arg
        chunk = max(1, _CHUNK_ENTRIES // self.n_pairs)
        for start in range(0, n_out, chunk):
            block = self.log_ratios(matrix[:, start : start + chunk])
            best = np.argmax(block, axis=0)
            values = block[best, np.arange(block.shape[1])]
            active = values > -np.inf
            arg[start : start + chunk] = np.where(active, best, -1)
            eps[start : start + chunk] = np.where(active, np.maximum(values, 0.0), 0.0)
        return eps, arg
