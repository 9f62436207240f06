"""Joint distributions over X = S × U.

The data of one user is ``X = (S, U)`` with ``S`` sensitive and ``U`` public (Entropy paper §3,
privacy-funnel paper §III). A :class:`JointDistribution` stores ``P[s, u]`` and derives every
quantity the privacy definitions need: marginals, the conditionals ``P(u|s)`` and ``P(x|s)``, the
flat s-major vector ``P_X`` with ``x = s·|U| + u`` (docs/concepts.md) and the entropy in nats.

A plain distribution over an alphabet X with no S/U split is the case ``|S| = |X|, |U| = 1``: pass a
1-D array.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from privopt.data.information import entropy
from privopt.errors import ValidationError
from privopt.validation import (
    FloatArray,
    as_float_array,
    check_labels,
    check_probability_table,
    index_of,
)

#: Which alphabet a mechanism reads: the whole ``X = S × U`` or only the public part ``U``.
InputAlphabet = Literal["x", "u"]


def _readonly(array: FloatArray) -> FloatArray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


def _counts(value: ArrayLike) -> bool:
    """Whether ``value`` looks like a table of counts: non-negative integers summing to more than 1."""
    try:
        table = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    finite = bool(np.all(np.isfinite(table))) and table.size > 0
    return finite and bool(np.all(table >= 0) and np.all(table == np.round(table)) and table.sum() > 1)


class JointDistribution:
    """A probability distribution ``P[s, u]`` on ``X = S × U``.

    Parameters
    ----------
    probabilities:
        A 2-D array with rows indexed by ``s`` and columns by ``u`` (it must sum to 1), or a 1-D
        array for a plain distribution over X (then ``|S| = |X|`` and ``|U| = 1``).
    s_labels, u_labels:
        Distinct labels of the sensitive and public values (default ``0, 1, ...``).
    n:
        Sample size the distribution was estimated from, if it is empirical.
    sensitive, public:
        Names of the attributes (for display; set by :meth:`from_frame`).

    Examples
    --------
    The Entropy paper's Example 1 estimate::

        >>> P = JointDistribution([[0.07, 0.10], [0.26, 0.57]])
        >>> P.p_s
        array([0.17, 0.83])
    """

    def __init__(
        self,
        probabilities: ArrayLike,
        s_labels: Sequence[Hashable] | None = None,
        u_labels: Sequence[Hashable] | None = None,
        n: int | None = None,
        sensitive: str | None = None,
        public: str | None = None,
    ) -> None:
        try:
            table = check_probability_table(probabilities, "probabilities")
        except ValidationError as exc:
            if _counts(probabilities):
                raise ValidationError(
                    "probabilities",
                    "probabilities summing to 1 (a table of counts is read by "
                    "po.JointDistribution.from_counts(counts), which keeps n)",
                    exc.got,
                ) from None
            raise
        if table.ndim == 1:
            table = table[:, None]
        if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1):
            raise ValidationError("n", "a positive integer sample size or None", repr(n))
        self._probabilities = _readonly(table)
        self._s_labels = check_labels(s_labels, table.shape[0], "s_labels")
        self._u_labels = check_labels(u_labels, table.shape[1], "u_labels")
        self._n = None if n is None else int(n)
        self._sensitive = sensitive
        self._public = public
        self._cache: dict[str, FloatArray] = {}

    @property
    def probabilities(self) -> FloatArray:
        """The table ``P[s, u]`` (read-only)."""
        return self._probabilities

    @property
    def s_labels(self) -> tuple[Hashable, ...]:
        return self._s_labels

    @property
    def u_labels(self) -> tuple[Hashable, ...]:
        return self._u_labels

    @property
    def n(self) -> int | None:
        """The sample size the distribution was estimated from, if it is empirical."""
        return self._n

    @property
    def sensitive(self) -> str | None:
        return self._sensitive

    @property
    def public(self) -> str | None:
        return self._public

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_counts(
        cls,
        counts: ArrayLike,
        *,
        s_labels: Sequence[Hashable] | None = None,
        u_labels: Sequence[Hashable] | None = None,
        sensitive: str | None = None,
        public: str | None = None,
    ) -> JointDistribution:
        """The empirical (maximum-likelihood) distribution of a table of counts; keeps ``n``."""
        table = as_float_array(counts, "counts", (1, 2))
        if np.any(table < 0) or np.any(np.abs(table - np.round(table)) > 1e-9):
            raise ValidationError("counts", "non-negative integer counts", f"{table!r}")
        total = round(float(table.sum()))
        if total == 0:
            raise ValidationError("counts", "at least one observation", "all counts are zero")
        return cls(
            table / total,
            s_labels=None if s_labels is None else tuple(s_labels),
            u_labels=None if u_labels is None else tuple(u_labels),
            n=total,
            sensitive=sensitive,
            public=public,
        )

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        sensitive: str | Sequence[str],
        public: str | Sequence[str] | None = None,
        s_labels: Sequence[Hashable] | None = None,
        u_labels: Sequence[Hashable] | None = None,
    ) -> JointDistribution:
        """The empirical distribution of columns of a DataFrame.

        ``sensitive`` and ``public`` are column names (or lists of names, whose values are then
        tuples). Without ``public`` the result is a plain distribution of the sensitive column(s).
        Labels are sorted unless ``s_labels``/``u_labels`` fix the order (and may then include
        values that were not observed). Missing values (NaN) are an error: drop or recode them.
        """
        if not isinstance(frame, pd.DataFrame):
            raise ValidationError("frame", "a pandas DataFrame", type(frame).__name__)
        s_cols = [sensitive] if isinstance(sensitive, str) else list(sensitive)
        u_cols = [] if public is None else ([public] if isinstance(public, str) else list(public))
        for argument, columns in (("sensitive", s_cols), ("public", u_cols)):
            for column in columns:
                if column not in frame.columns:
                    shown = ", ".join(map(str, frame.columns))
                    raise ValidationError(argument, f"a column of the frame ({shown})", repr(column))
        if not s_cols:
            raise ValidationError("sensitive", "at least one column name", "an empty list")
        if len(frame) == 0:
            raise ValidationError("frame", "at least one row", "an empty DataFrame")
        used = frame[s_cols + u_cols]
        if used.isna().to_numpy().any():
            bad = used.columns[used.isna().any()].tolist()
            raise ValidationError("frame", "no missing values in the selected columns", f"NaN in {bad}")

        def keys(columns: list[str]) -> pd.Series:
            if len(columns) == 1:
                return frame[columns[0]]
            return pd.Series(list(zip(*(frame[c] for c in columns), strict=True)), index=frame.index)

        s_keys = keys(s_cols)
        u_keys = keys(u_cols) if u_cols else pd.Series(0, index=frame.index)
        s_order = tuple(s_labels) if s_labels is not None else tuple(sorted(s_keys.unique(), key=str))
        u_order = tuple(u_labels) if u_labels is not None else tuple(sorted(u_keys.unique(), key=str))
        s_index = pd.Index(s_order)
        u_index = pd.Index(u_order)
        s_codes = s_index.get_indexer(s_keys)
        u_codes = u_index.get_indexer(u_keys)
        if (s_codes < 0).any():
            raise ValidationError(
                "s_labels", "every observed sensitive value", repr(s_keys[s_codes < 0].iloc[0])
            )
        if (u_codes < 0).any():
            raise ValidationError(
                "u_labels", "every observed public value", repr(u_keys[u_codes < 0].iloc[0])
            )
        counts = np.zeros((len(s_order), len(u_order)))
        np.add.at(counts, (s_codes, u_codes), 1.0)
        return cls.from_counts(
            counts,
            s_labels=s_order,
            u_labels=u_order if u_cols else None,
            sensitive="×".join(s_cols),
            public="×".join(u_cols) if u_cols else None,
        )

    # ------------------------------------------------------------------ shapes and labels
    @property
    def shape(self) -> tuple[int, int]:
        """``(|S|, |U|)``."""
        n_s, n_u = self.probabilities.shape
        return n_s, n_u

    @property
    def n_s(self) -> int:
        return self.probabilities.shape[0]

    @property
    def n_u(self) -> int:
        return self.probabilities.shape[1]

    @property
    def n_x(self) -> int:
        return self.probabilities.size

    @property
    def x_labels(self) -> tuple[Hashable, ...]:
        """Labels of X in s-major order: ``(s, u)`` pairs, or the ``s`` labels when ``|U| = 1``."""
        if self.n_u == 1:
            return self.s_labels
        return tuple((s, u) for s in self.s_labels for u in self.u_labels)

    def x_index(self, s: Hashable, u: Hashable | None = None) -> int:
        """Flat s-major index ``x = s·|U| + u`` of a pair of labels."""
        i = index_of(self.s_labels, s, "s")
        j = 0 if u is None and self.n_u == 1 else index_of(self.u_labels, u, "u")
        return i * self.n_u + j

    # ------------------------------------------------------------------ marginals
    @property
    def p_x(self) -> FloatArray:
        """The flat s-major vector ``P_X`` (length ``|S|·|U|``)."""
        return self.probabilities.reshape(-1)

    @property
    def p_s(self) -> FloatArray:
        """Marginal of the sensitive attribute, ``P_S``."""
        return self._cached("p_s", lambda: _readonly(self.probabilities.sum(axis=1)))

    @property
    def p_u(self) -> FloatArray:
        """Marginal of the public attribute, ``P_U``."""
        return self._cached("p_u", lambda: _readonly(self.probabilities.sum(axis=0)))

    def marginal(self, on: InputAlphabet = "x") -> FloatArray:
        """Distribution of a mechanism's input: ``P_X`` (``on="x"``) or ``P_U`` (``on="u"``)."""
        return self.p_x if _check_on(on) == "x" else self.p_u

    # ------------------------------------------------------------------ conditionals
    def _require_positive_s(self) -> None:
        zero = np.flatnonzero(self.p_s <= 0.0)
        if zero.size:
            label = self.s_labels[zero[0]]
            raise ValidationError(
                "P",
                "P(S=s) > 0 for every sensitive value s (a conditional given S is needed)",
                f"P(S={label!r}) = 0",
            )

    def conditional_u_given_s(self) -> FloatArray:
        """The matrix ``P(u|s)`` of shape ``(|S|, |U|)`` (Entropy paper eq. 16)."""

        def compute() -> FloatArray:
            self._require_positive_s()
            return _readonly(self.probabilities / self.p_s[:, None])

        return self._cached("u_given_s", compute)

    def conditional_x_given_s(self) -> FloatArray:
        """The matrix ``P(x|s)`` of shape ``(|S|, |X|)``: row ``s`` is ``P(u|s)`` on its own block."""

        def compute() -> FloatArray:
            cond = self.conditional_u_given_s()
            out = np.zeros((self.n_s, self.n_x))
            for s in range(self.n_s):
                out[s, s * self.n_u : (s + 1) * self.n_u] = cond[s]
            return _readonly(out)

        return self._cached("x_given_s", compute)

    def conditional(self, on: InputAlphabet = "x") -> FloatArray:
        """``P(input|s)`` for a mechanism reading ``X`` (``on="x"``) or only ``U`` (``on="u"``)."""
        return self.conditional_x_given_s() if _check_on(on) == "x" else self.conditional_u_given_s()

    # ------------------------------------------------------------------ information
    def entropy(self) -> float:
        """``H(X)`` in nats."""
        return entropy(self.p_x)

    def input_size(self, on: InputAlphabet = "x") -> int:
        """Size of a mechanism's input alphabet: ``|X|`` or ``|U|``."""
        return self.n_x if _check_on(on) == "x" else self.n_u

    def input_labels(self, on: InputAlphabet = "x") -> tuple[Hashable, ...]:
        """Labels of a mechanism's input alphabet."""
        return self.x_labels if _check_on(on) == "x" else self.u_labels

    def _cached(self, key: str, compute: Callable[[], FloatArray]) -> FloatArray:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def __repr__(self) -> str:
        names = f", sensitive={self.sensitive!r}, public={self.public!r}" if self.sensitive else ""
        n = f", n={self.n}" if self.n is not None else ""
        return f"JointDistribution(shape={self.shape}{n}{names})"


def as_distribution(value: JointDistribution | ArrayLike, argument: str = "P") -> JointDistribution:
    """Accept a :class:`JointDistribution` or an array (1-D plain, 2-D joint)."""
    if isinstance(value, JointDistribution):
        return value
    try:
        return JointDistribution(value)
    except ValidationError as exc:
        raise ValidationError(argument, exc.expected, exc.got) from exc


def _check_on(on: str) -> InputAlphabet:
    if on == "x":
        return "x"
    if on == "u":
        return "u"
    raise ValidationError("on", "'x' (the mechanism reads X = S×U) or 'u' (it reads U only)", repr(on))
