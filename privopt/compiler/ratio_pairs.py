"""Ratio pairs: the common form of every privacy definition, declared and expanded.

Each privacy notion in the papers is a family of inequalities that are linear and homogeneous in one
column ``w = W[:, y]`` of the channel matrix (docs/design.md, "One solve", item 3)::

    a_iᵀ w  <=  e^{c_i ε} · b_iᵀ w        for every pair i and every output y,

with non-negative vectors ``a_i`` ("numerator") and ``b_i`` ("denominator") that may depend on a
distribution, and a scale ``c_i > 0`` (1 for every built-in definition but metric privacy, where
``c_i = d(x, x')``).

- :class:`RatioPair` is the *declared* form: two groups of :mod:`privopt.data.statistics`
  (``max over left <= e^{cε} min over right``), still a function of the distribution.
- :class:`RatioPairs` is the *expanded* form: the ``a_i`` and ``b_i`` as sparse matrices with a label
  and a scale per pair, for one distribution (or one vertex of a set). It computes the leakage of a
  mechanism exactly: the smallest ``ε >= 0`` for which all inequalities hold, with the pair and output
  that attain it.

Zero conventions (as in the definitions): when ``a_iᵀw = 0`` the inequality holds for every ε (this
covers outputs of probability zero, the ``0/0`` case); when ``a_iᵀw > 0 = b_iᵀw`` it holds for no
finite ε. A numerator at or below :data:`~privopt.tolerances.ZERO_RTOL` times the column's largest entry
is rounding noise of a zero and leaks nothing; a denominator is zero only when it is exactly 0.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from privopt.data.statistics import Statistic
from privopt.data.terms import PairLabel, Term
from privopt.errors import ShapeError, ValidationError
from privopt.tolerances import ZERO_RTOL
from privopt.validation import FloatArray

#: Columns are processed in chunks so that ``pairs × chunk`` stays below this many entries.
_CHUNK_ENTRIES = 4_000_000


@dataclass(frozen=True)
class RatioPair:
    """``max over left <= e^{scale·ε} · min over right`` (both groups of statistics), with a label.

    Build one with :meth:`of`, which accepts a single statistic or an iterable for each side and
    validates them; ``scale`` is the pair's privacy level in units of ε (metric privacy).
    """

    left: tuple[Statistic, ...]
    right: tuple[Statistic, ...]
    label: str = ""
    scale: float = 1.0

    def __post_init__(self) -> None:
        for side, name in ((self.left, "left"), (self.right, "right")):
            if not side or not all(isinstance(st, Statistic) for st in side):
                raise ValidationError(
                    "pairs", f"statistics on the {name} side (po.given, po.marginal, ...)", repr(side)
                )
            for st in side:
                st.dependence  # noqa: B018 - validates the statistic
        if not isinstance(self.label, str):
            raise ValidationError("label", "a string naming the pair (or '')", repr(self.label))
        if isinstance(self.scale, bool) or not isinstance(self.scale, (int, float, np.floating)):
            raise ValidationError("scale", "a finite number > 0", repr(self.scale))
        if not (math.isfinite(self.scale) and self.scale > 0):
            raise ValidationError("scale", "a finite number > 0", repr(self.scale))

    @classmethod
    def of(
        cls,
        left: Statistic | Iterable[Statistic],
        right: Statistic | Iterable[Statistic],
        label: str = "",
        scale: float = 1.0,
    ) -> RatioPair:
        """The pair ``max over left <= e^{scale·ε} · min over right``, each side one statistic or an
        iterable of them (a group), checked.

        ``label`` names the pair in witnesses (default: the pair written out); ``scale`` is its level in
        units of ε (``c`` in ``e^{cε}``; 1 but for per-pair levels such as metric privacy's ``d(x, x')``).
        ``po.RatioConstraints`` also takes ``(left, right)`` and ``(left, right, scale)`` tuples.

        Examples
        --------
        >>> import privopt as po
        >>> print(po.RatioPair.of(po.given(x=0), po.given(x=1), scale=2.0))
        P(Y=y|X=0) <= e^(2·ε)·P(Y=y|X=1)
        """
        lhs = (left,) if isinstance(left, Statistic) else tuple(left)
        rhs = (right,) if isinstance(right, Statistic) else tuple(right)
        return cls(lhs, rhs, label, float(scale) if isinstance(scale, (int, np.integer)) else scale)

    def __str__(self) -> str:
        def side(group: tuple[Statistic, ...], word: str) -> str:
            return str(group[0]) if len(group) == 1 else f"{word} of {len(group)} statistics"

        level = (
            "e^ε" if math.isclose(self.scale, 1.0, rel_tol=0.0, abs_tol=1e-15) else f"e^({self.scale:.6g}·ε)"
        )
        return self.label or f"{side(self.left, 'max')} <= {level}·{side(self.right, 'min')}"


@dataclass(frozen=True, eq=False)
class RatioPairs:
    """Constraints ``a_iᵀw <= e^{c_i ε} b_iᵀw`` on every column ``w``, with one label per row.

    ``numerators`` (``A``) and ``denominators`` (``B``) are sparse CSR matrices of shape
    ``(pairs, inputs)`` with non-negative entries; the scales ``c_i`` are the labels' ``scale``.
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
    def scales(self) -> FloatArray:
        """``c_i`` of every pair."""
        return np.array([label.scale for label in self.labels], dtype=np.float64)

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

    def log_ratios(self, columns: FloatArray, denominator_columns: FloatArray | None = None) -> FloatArray:
        """``log(a_iᵀw / b_iᵀw)`` for every pair ``i`` (rows) and column ``w`` (columns).

        Entries are ``-inf`` where the numerator is zero (no constraint) and ``+inf`` where only the
        denominator is zero. ``denominator_columns`` (default: ``columns``) evaluates the denominators
        on other columns of the same shape (the lower corner of a confidence region).
        """
        num = np.asarray(self.numerators @ columns)
        den = np.asarray(
            self.denominators @ (columns if denominator_columns is None else denominator_columns)
        )
        out = np.full(num.shape, -np.inf)
        scale = np.asarray(columns).max(axis=0, initial=0.0)[None, :]
        active = num > ZERO_RTOL * scale
        finite = active & (den > 0.0)
        out[finite] = np.log(num[finite] / den[finite])
        out[active & ~finite] = np.inf
        return out

    def leakage(
        self, matrix: FloatArray, denominator_matrix: FloatArray | None = None
    ) -> tuple[FloatArray, np.ndarray]:
        """Per-output leakage of a channel matrix and the pair attaining it.

        Returns ``(eps_per_output, pair_index)``: ``eps_per_output[y] = max(0, max_i log ratio_i / c_i)``
        (the smallest ε that pair ``i`` allows) and ``pair_index[y]`` the maximising pair (``-1`` when
        no pair is active for that output). ``denominator_matrix`` evaluates the denominators on another
        matrix (see :meth:`log_ratios`).
        """
        if matrix.shape[0] != self.n_inputs:
            raise ShapeError("mechanism", f"{self.n_inputs} inputs", f"{matrix.shape[0]}")
        bottom = matrix if denominator_matrix is None else denominator_matrix
        n_out = matrix.shape[1]
        eps = np.zeros(n_out)
        arg = np.full(n_out, -1, dtype=np.int64)
        if self.n_pairs == 0:
            return eps, arg
        chunk = max(1, _CHUNK_ENTRIES // self.n_pairs)
        inverse_scales = 1.0 / self.scales[:, None]
        for start in range(0, n_out, chunk):
            block = (
                self.log_ratios(matrix[:, start : start + chunk], bottom[:, start : start + chunk])
                * inverse_scales
            )
            best = np.argmax(block, axis=0)
            values = block[best, np.arange(block.shape[1])]
            active = values > -np.inf
            arg[start : start + chunk] = np.where(active, best, -1)
            eps[start : start + chunk] = np.where(active, np.maximum(values, 0.0), 0.0)
        return eps, arg
