"""Privacy mechanisms on finite alphabets: channel matrices with labels.

A mechanism is a row-stochastic matrix ``W`` of shape ``(|X|, |Y|)`` with
``W[x, y] = P(Y = y | X = x)`` (docs/concepts.md, "Row cones"; this is the transpose of the RLDP papers' ``Q``). Its
column ``W[:, y]`` is the papers' "row ``Q_y``": every privacy definition in privopt is a set of
linear inequalities on such columns.

A mechanism behaves like its matrix wherever numpy expects an array (docs/getting-started.md,
"Mechanisms"): ``np.asarray(W)`` is the float matrix, ``W[0]`` its first row, ``W[:, y]`` a column,
``len(W)`` the number of inputs, and arithmetic (``W * 0.5``, ``p @ W``, ``np.log(W)``, ``W > 0``)
gives plain arrays — a scaled or summed channel is in general no channel. ``==`` keeps its Python
meaning (the same object), so that a mechanism stays hashable: compare matrices with
``np.array_equal(W, V)``. Printed, a mechanism shows its matrix with its labels, like a DataFrame.
"""

from __future__ import annotations

import html
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.lib.mixins import NDArrayOperatorsMixin
from numpy.typing import ArrayLike, DTypeLike

from privopt.data.display import frame_html, frame_text
from privopt.errors import ShapeError, ValidationError
from privopt.validation import (
    FloatArray,
    check_labels,
    check_probability_vector,
    check_stochastic_matrix,
)


def _readonly(array: FloatArray) -> FloatArray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


class Mechanism(NDArrayOperatorsMixin):
    """A channel ``P(Y|X)`` given as a row-stochastic matrix; numpy reads it as that matrix (module
    docstring).

    Parameters
    ----------
    matrix:
        Shape ``(|X|, |Y|)``; row ``x`` is the output distribution for input ``x``.
    input_labels, output_labels:
        Distinct labels of inputs and outputs (default ``0, 1, ...``).
    name:
        A short name used in reports.
    """

    def __init__(
        self,
        matrix: ArrayLike,
        input_labels: Sequence[Hashable] | None = None,
        output_labels: Sequence[Hashable] | None = None,
        name: str = "",
    ) -> None:
        w = check_stochastic_matrix(matrix, "matrix")
        if not isinstance(name, str):
            raise ValidationError("name", "a string", repr(name))
        self._matrix = _readonly(w)
        self._input_labels = check_labels(input_labels, w.shape[0], "input_labels")
        self._output_labels = check_labels(output_labels, w.shape[1], "output_labels")
        self._name = name
        self._cdf: list[FloatArray] = []

    @property
    def matrix(self) -> FloatArray:
        """The channel ``W[x, y] = P(Y = y | X = x)`` (read-only)."""
        return self._matrix

    @property
    def input_labels(self) -> tuple[Hashable, ...]:
        return self._input_labels

    @property
    def output_labels(self) -> tuple[Hashable, ...]:
        return self._output_labels

    @property
    def name(self) -> str:
        return self._name

    # ------------------------------------------------------------------ basic facts
    @property
    def n_inputs(self) -> int:
        return self.matrix.shape[0]

    @property
    def n_outputs(self) -> int:
        return self.matrix.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        n_inputs, n_outputs = self.matrix.shape
        return n_inputs, n_outputs

    def _check_input_distribution(self, p: ArrayLike, argument: str) -> FloatArray:
        from privopt.data.distribution import JointDistribution

        vector = p.p_x if isinstance(p, JointDistribution) else check_probability_vector(p, argument)
        if vector.size != self.n_inputs:
            raise ShapeError(
                argument,
                f"a distribution over the mechanism's {self.n_inputs} inputs",
                f"{vector.size} symbols",
            )
        return vector

    def output_distribution(self, p: ArrayLike) -> FloatArray:
        """``P_Y = P_Xᵀ W`` for an input distribution ``p`` (vector or JointDistribution)."""
        return self._check_input_distribution(p, "p") @ self.matrix

    def posterior(self, p: ArrayLike) -> FloatArray:
        """Posteriors ``P(X = x | Y = y)`` as a matrix of shape ``(|Y|, |X|)``.

        An output with ``P_Y(y) = 0`` has no posterior; its row is all zeros (see :meth:`support`).
        """
        prior = self._check_input_distribution(p, "p")
        joint = prior[:, None] * self.matrix
        p_y = joint.sum(axis=0)
        out = np.zeros((self.n_outputs, self.n_inputs))
        positive = p_y > 0.0
        out[positive] = (joint[:, positive] / p_y[positive]).T
        return out

    def support(self, p: ArrayLike) -> np.ndarray:
        """Boolean mask of the outputs with positive probability under input distribution ``p``."""
        return self.output_distribution(p) > 0.0

    # ------------------------------------------------------------------ composition
    def kron(self, other: Mechanism) -> Mechanism:
        """Independent reporting ``(X1, X2) ↦ (Y1, Y2)``: the Kronecker product of the channels.

        Inputs and outputs are ordered first-major, matching the s-major order of ``X = S × U``
        (Entropy paper Definition 5).
        """
        if not isinstance(other, Mechanism):
            raise ValidationError("other", "a Mechanism", type(other).__name__)
        return Mechanism(
            np.kron(self.matrix, other.matrix),
            input_labels=[(a, b) for a in self.input_labels for b in other.input_labels],
            output_labels=[(a, b) for a in self.output_labels for b in other.output_labels],
            name=f"{self.name or 'W1'}⊗{other.name or 'W2'}",
        )

    def then(self, post: Mechanism | ArrayLike) -> Mechanism:
        """Post-processing: the channel ``X → Y → Z`` with ``post`` of shape ``(|Y|, |Z|)``."""
        post = post if isinstance(post, Mechanism) else Mechanism(np.asarray(post, dtype=float))
        if post.n_inputs != self.n_outputs:
            raise ShapeError("post", f"a channel with {self.n_outputs} inputs", f"{post.n_inputs}")
        return Mechanism(
            self.matrix @ post.matrix, self.input_labels, post.output_labels, name=f"{self.name}∘post"
        )

    def permute_outputs(self, order: Sequence[int]) -> Mechanism:
        """The same channel with outputs reordered: new output ``j`` is old output ``order[j]``."""
        index = np.asarray(order)
        if sorted(index.tolist()) != list(range(self.n_outputs)):
            raise ValidationError("order", f"a permutation of range({self.n_outputs})", repr(index.tolist()))
        labels = [self.output_labels[i] for i in index]
        return Mechanism(self.matrix[:, index], self.input_labels, labels, name=self.name)

    # ------------------------------------------------------------------ sampling
    def _flat_cdf(self) -> FloatArray:
        """Row CDFs laid end to end, row ``x`` shifted by ``x`` (for one ``searchsorted`` call)."""
        if not self._cdf:
            cdf = np.cumsum(self.matrix, axis=1)
            cdf[:, -1] = 1.0
            self._cdf.append((cdf + np.arange(self.n_inputs)[:, None]).ravel())
        return self._cdf[0]

    def sample(self, x: ArrayLike, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """Draw one output index per input index in ``x`` (vectorised inverse-CDF sampling).

        ``rng`` is a :class:`numpy.random.Generator` or a seed; the same seed reproduces a run.
        All rows' CDFs are laid end to end (row ``x`` shifted by ``x``) so one ``searchsorted`` call
        serves every record; an output whose probability is below the float spacing at ``x``
        (about ``x·2⁻⁵²``) is never drawn.
        """
        generator = np.random.default_rng(rng)
        idx = np.asarray(x)
        if idx.size and (
            not np.issubdtype(idx.dtype, np.integer) or idx.min() < 0 or idx.max() >= self.n_inputs
        ):
            raise ValidationError(
                "x",
                f"integer input indices in [0, {self.n_inputs})",
                f"dtype {idx.dtype}, range [{idx.min()}, {idx.max()}]",
            )
        flat_idx = idx.reshape(-1)
        offset = flat_idx.astype(np.float64)
        target = generator.random(flat_idx.size) + offset
        # u + x rounds up to x + 1 (the next row) only when u is within an ulp of 1: keep it below.
        np.minimum(target, np.nextafter(offset + 1.0, 0.0), out=target)
        position = np.searchsorted(self._flat_cdf(), target, side="right")
        return (position - flat_idx * self.n_outputs).reshape(idx.shape)

    def apply(
        self,
        data: pd.DataFrame | pd.Series | Sequence[Hashable] | np.ndarray,
        columns: str | Sequence[str] | None = None,
        rng: np.random.Generator | int | None = None,
        output: str = "y",
    ) -> Any:
        """Privatise records given by their input *labels*; returns output labels.

        - A DataFrame with ``columns`` naming the input column(s) gives a Series named ``output``
          (several columns form tuple labels, as for ``X = S × U``).
        - A Series or sequence of labels gives a Series / numpy array of output labels.
        """
        if isinstance(data, pd.DataFrame):
            if columns is None:
                raise ValidationError("columns", "the input column name(s) when data is a DataFrame", "None")
            names = [columns] if isinstance(columns, str) else list(columns)
            for name in names:
                if name not in data.columns:
                    raise ValidationError(
                        "columns", f"columns of the frame ({', '.join(map(str, data.columns))})", repr(name)
                    )
            keys = (
                data[names[0]]
                if len(names) == 1
                else pd.Series(list(zip(*(data[c] for c in names), strict=True)), index=data.index)
            )
            return pd.Series(self._apply_labels(keys, rng), index=data.index, name=output)
        if isinstance(data, pd.Series):
            return pd.Series(self._apply_labels(data, rng), index=data.index, name=output)
        return self._apply_labels(pd.Series(list(data) if not isinstance(data, np.ndarray) else data), rng)

    def _apply_labels(self, keys: pd.Series, rng: np.random.Generator | int | None) -> np.ndarray:
        codes = pd.Index(self.input_labels).get_indexer(keys)
        if (codes < 0).any():
            raise ValidationError(
                "data",
                "values among the mechanism's input labels",
                repr(keys.iloc[int(np.flatnonzero(codes < 0)[0])]),
            )
        y = self.sample(codes, rng)
        labels = np.empty(self.n_outputs, dtype=object)
        labels[:] = list(self.output_labels)
        return labels[y]

    # ------------------------------------------------------------------ numpy
    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        """The matrix (read-only; ``np.array(W)`` copies it); ``dtype`` converts it."""
        matrix = self._matrix if dtype is None else self._matrix.astype(dtype, copy=False)
        if copy is False and matrix is not self._matrix:
            raise ValueError(f"a Mechanism's matrix is float64: it cannot be read as {dtype} without a copy")
        return matrix.copy() if copy else matrix

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """Arithmetic and ufuncs on the matrix: plain arrays out (a mechanism is never written into)."""
        if any(isinstance(out, Mechanism) for out in kwargs.get("out", ())):
            raise ValidationError(
                "out",
                "an array to write into (a Mechanism is read-only: write W2 = W * 2, not W *= 2)",
                "a Mechanism",
            )
        arrays = [value._matrix if isinstance(value, Mechanism) else value for value in inputs]
        return getattr(ufunc, method)(*arrays, **kwargs)

    # ``==`` and ``!=`` stay the object's own (module docstring): a mechanism is hashable.
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__

    def __getitem__(self, key: Any) -> Any:
        """``W[x]`` (a row), ``W[:, y]`` (a column), ``W[x, y]``: by position, read-only arrays."""
        return self._matrix[key]

    def __len__(self) -> int:
        return self.n_inputs

    def __iter__(self) -> Iterator[np.ndarray]:
        """The rows, as numpy iterates over a matrix."""
        return iter(self._matrix)

    # ------------------------------------------------------------------ display
    def to_frame(self) -> pd.DataFrame:
        """The matrix as a DataFrame indexed by input labels, columns by output labels."""
        return pd.DataFrame(self.matrix, index=list(self.input_labels), columns=list(self.output_labels))

    @property
    def summary(self) -> str:
        """One line, as errors and tables name the mechanism: ``Mechanism('GRR(eps=1)', shape=(3, 3))``."""
        name = f"{self.name!r}, " if self.name else ""
        return f"Mechanism({name}shape={self.shape})"

    def __repr__(self) -> str:
        """:attr:`summary`, then the matrix with its labels (cut as pandas cuts a large frame)."""
        return f"{self.summary}\n{frame_text(self.to_frame())}"

    def _repr_html_(self) -> str:
        return f"<div><strong>{html.escape(self.summary)}</strong>{frame_html(self.to_frame())}</div>"


def as_mechanism(item: Any, name: str) -> Mechanism:
    """``item`` itself if it is a :class:`~privopt.Mechanism`, else its ``.mechanism`` (a design or a
    Solution); a :class:`~privopt.errors.ValidationError` naming ``mechanisms[name]`` otherwise."""
    found = item if isinstance(item, Mechanism) else getattr(item, "mechanism", None)
    if not isinstance(found, Mechanism):
        raise ValidationError(
            f"mechanisms[{name!r}]",
            "a Mechanism, an object with .mechanism (a Solution or a design), or a callable returning one",
            type(item).__name__,
        )
    return found
