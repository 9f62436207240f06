"""Input checks shared by every public constructor.

Each check raises :class:`~privopt.errors.ValidationError` naming the argument, so bad input never
surfaces as a numpy traceback or a silent NaN.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from privopt.errors import ShapeError, ValidationError
from privopt.tolerances import EPS_MAX, NEGATIVE_ATOL, PROBABILITY_ATOL

FloatArray = NDArray[np.float64]


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def as_float_array(value: ArrayLike, argument: str, ndim: int | tuple[int, ...]) -> FloatArray:
    """Convert ``value`` to a finite float64 array with the given number of dimensions."""
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValidationError(argument, "an array of real numbers", _describe(value)) from exc
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if array.ndim not in allowed:
        wanted = " or ".join(f"{d}-D" for d in allowed)
        raise ValidationError(argument, f"a {wanted} array", f"shape {array.shape}")
    if array.size == 0:
        raise ValidationError(argument, "a non-empty array", f"shape {array.shape}")
    if not np.all(np.isfinite(array)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise ValidationError(
            argument, "finite entries (no NaN or inf)", f"{float(array[bad])} at index {bad}"
        )
    return array


def _clip_rounding_noise(array: FloatArray, argument: str, what: str) -> FloatArray:
    if np.any(array < -NEGATIVE_ATOL):
        index = tuple(int(i) for i in np.argwhere(array < -NEGATIVE_ATOL)[0])
        raise ValidationError(argument, f"non-negative {what}", f"{float(array[index])!r} at index {index}")
    return np.where(array < 0.0, 0.0, array)


def check_probability_vector(value: ArrayLike, argument: str) -> FloatArray:
    """A 1-D probability vector: finite, non-negative and summing to 1 (then renormalised)."""
    p = _clip_rounding_noise(as_float_array(value, argument, 1), argument, "probabilities")
    total = float(p.sum())
    if abs(total - 1.0) > PROBABILITY_ATOL:
        raise ValidationError(argument, "probabilities summing to 1", f"sum {total!r}")
    return p / total


def check_probability_table(value: ArrayLike, argument: str) -> FloatArray:
    """A 1-D or 2-D table of probabilities summing to 1 (over all entries)."""
    p = _clip_rounding_noise(as_float_array(value, argument, (1, 2)), argument, "probabilities")
    total = float(p.sum())
    if abs(total - 1.0) > PROBABILITY_ATOL:
        raise ValidationError(argument, "probabilities summing to 1", f"sum {total!r}")
    return p / total


def check_stochastic_matrix(value: ArrayLike, argument: str) -> FloatArray:
    """A 2-D row-stochastic matrix (rows are conditional distributions), rows renormalised."""
    w = _clip_rounding_noise(as_float_array(value, argument, 2), argument, "entries")
    sums = w.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > PROBABILITY_ATOL)
    if bad.size:
        raise ValidationError(
            argument,
            "rows summing to 1 (a row-stochastic matrix)",
            f"row {bad[0]} sums to {float(sums[bad[0]])!r}",
        )
    # Rows already summing to 1 within a few ulps are left as they are, so that validating a validated
    # matrix again (a JSON round trip) gives the same bits.
    off = np.abs(sums - 1.0) > 4.0 * np.finfo(np.float64).eps
    normalised: FloatArray = w / np.where(off, sums, 1.0)[:, None]
    return normalised


def check_real(
    value: Any,
    argument: str,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    open_low: bool = False,
    open_high: bool = False,
    expected: str | None = None,
) -> float:
    """A finite real number in an interval; strings, bools and None are refused (no coercion).

    Python and numpy ints and floats are accepted; ``open_low``/``open_high`` exclude the ends.
    ``expected`` replaces the generated description of the interval in the message.
    """
    left = "(" if open_low else "["
    right = ")" if open_high else "]"
    wanted = expected or f"a finite number in {left}{low:g}, {high:g}{right}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValidationError(argument, wanted, f"{type(value).__name__} {_describe(value)}")
    number = float(value)
    if not math.isfinite(number):
        raise ValidationError(argument, wanted, repr(number))
    below = number <= low if open_low else number < low
    above = number >= high if open_high else number > high
    if below or above:
        raise ValidationError(argument, wanted, repr(number))
    return number


def check_eps(eps: Any, argument: str = "eps") -> float:
    """A privacy parameter: a real number in ``[0, EPS_MAX]`` (``e^ε`` must be a finite double)."""
    return check_real(
        eps,
        argument,
        low=0.0,
        high=EPS_MAX,
        expected=f"a finite number >= 0 and <= {EPS_MAX:.2f} (e^ε finite)",
    )


def check_eps_or_inf(eps: Any, argument: str = "eps") -> float:
    """A privacy level that may also be ``inf`` (the identity mechanism, no noise)."""
    if isinstance(eps, numbers.Real) and not isinstance(eps, (bool, np.bool_)) and float(eps) == math.inf:
        return math.inf
    return check_eps(eps, argument)


def check_positive_int(value: Any, argument: str, minimum: int = 1) -> int:
    """An integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValidationError(argument, f"an integer >= {minimum}", _describe(value))
    if int(value) < minimum:
        raise ValidationError(argument, f"an integer >= {minimum}", repr(int(value)))
    return int(value)


def check_labels(labels: Iterable[Hashable] | None, size: int, argument: str) -> tuple[Hashable, ...]:
    """Distinct hashable labels, one per symbol; ``None`` gives ``0, 1, ..., size-1``."""
    if labels is None:
        return tuple(range(size))
    if isinstance(labels, str | bytes) or not isinstance(labels, Iterable):
        raise ValidationError(argument, f"a sequence of {size} labels", _describe(labels))
    result = tuple(labels)
    if len(result) != size:
        raise ShapeError(argument, f"{size} labels", f"{len(result)}")
    try:
        distinct = len(set(result))
    except TypeError as exc:
        raise ValidationError(argument, "hashable labels", _describe(result)) from exc
    if distinct != size:
        raise ValidationError(argument, "distinct labels", _describe(result))
    return result


def check_same_size(size: int, expected: int, argument: str, what: str) -> None:
    """Raise a :class:`ShapeError` when two alphabets differ in size."""
    if size != expected:
        raise ShapeError(argument, f"{expected} {what}", f"{size}")


def index_of(labels: Sequence[Hashable], label: Hashable, argument: str) -> int:
    """Position of ``label`` in ``labels``, or a ValidationError listing the valid labels."""
    try:
        return list(labels).index(label)
    except ValueError:
        shown = ", ".join(map(repr, list(labels)[:10])) + (" ..." if len(labels) > 10 else "")
        raise ValidationError(argument, f"one of {shown}", repr(label)) from None
