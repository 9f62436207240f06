"""The memory budget: large allocations are estimated before they are made and refused beyond it.

A solve holds a budget in bytes (``Problem(memory_limit=...)``; by default :func:`default_memory_limit`,
half of the machine's memory). :meth:`privopt.Problem.solve` makes it the *current* limit for the
duration of the solve (:func:`limited`, a context variable: a thread started inside a solve begins
with the default; a vertex enumeration in a child process gets the limit as its ``RLIMIT_AS``), and
every large allocation first calls :func:`require` with its estimated
size (docs/design.md, "Contracts"): a dense cone expansion, a vertex set, the column pool of column
generation, the tables of a branch and bound, a cvxpy problem. Above the limit it raises
:class:`~privopt.errors.LimitError` naming the size, the limit and the remedies — before the work,
not as numpy's ``MemoryError`` after minutes. Searches that can stop early with a valid result (a
branch and bound's bound, a cache) stay within the limit instead of refusing.

Estimates count the arrays privopt holds, not the interpreter or the libraries' own overhead: a
budget is a bound on what a solve adds, to be compared with the machine's memory.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from privopt.errors import LimitError, ValidationError

#: Share of the machine's memory (physical memory, or a container's cgroup limit when lower) that the
#: default budget allows.
DEFAULT_SHARE = 0.5

#: The default budget when the machine's memory cannot be read.
FALLBACK_BYTES = 4 * 1024**3

#: Units accepted in a budget written as text (``"8 GiB"``, ``"500MB"``, ``"2e9"``), case-insensitive.
UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}

#: cgroup files holding a container's memory limit (v2, then v1); "max" or a huge value means none.
_CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")

P = ParamSpec("P")
R = TypeVar("R")
B = TypeVar("B", bound="Budgeted")

_CURRENT: ContextVar[int | None] = ContextVar("privopt_memory_limit", default=None)


@functools.cache
def machine_memory() -> int | None:
    """Bytes of memory this process may use: the physical memory, or the cgroup limit when lower
    (``None`` when neither can be read)."""
    found: list[int] = []
    with contextlib.suppress(AttributeError, OSError, ValueError):
        found.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    for name in _CGROUP_LIMITS:
        with contextlib.suppress(OSError, ValueError):
            text = Path(name).read_text().strip()
            if text != "max" and int(text) < 2**60:  # v1 writes ~2^63 for "no limit"
                found.append(int(text))
    positive = [value for value in found if value > 0]
    return min(positive) if positive else None


def default_memory_limit() -> int:
    """:data:`DEFAULT_SHARE` of :func:`machine_memory` (:data:`FALLBACK_BYTES` if it is unknown)."""
    total = machine_memory()
    return FALLBACK_BYTES if total is None else int(DEFAULT_SHARE * total)


def parse_memory_limit(value: object, argument: str = "memory_limit") -> int:
    """A budget in bytes from ``None`` (the default), a positive number of bytes, or text with a unit
    of :data:`UNITS` (``"16 GiB"``, ``"500MB"``)."""
    expected = (
        "a number of bytes > 0, a size such as '16 GiB' or '500MB', or None (half the machine's memory)"
    )
    if value is None:
        return default_memory_limit()
    number: float
    if isinstance(value, str):
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*", value)
        unit = "" if match is None else match.group(2).lower()
        if match is None or unit not in UNITS:
            raise ValidationError(argument, expected, repr(value))
        number = float(match.group(1)) * UNITS[unit]
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    else:
        raise ValidationError(argument, expected, type(value).__name__)
    if not (math.isfinite(number) and number >= 1):
        raise ValidationError(argument, expected, repr(value))
    return int(number)


def format_bytes(nbytes: float) -> str:
    """``nbytes`` in binary units to three significant digits (``11.9 GiB``, ``512 MiB``)."""
    if not math.isfinite(nbytes):
        return "an unbounded amount of memory"
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{nbytes:.0f} bytes"


def current_limit() -> int:
    """The budget in force: the innermost :func:`limited`, else :func:`default_memory_limit`."""
    limit = _CURRENT.get()
    return default_memory_limit() if limit is None else limit


@contextlib.contextmanager
def limited(limit: int | str | None) -> Iterator[int]:
    """Make ``limit`` (see :func:`parse_memory_limit`) the current budget inside the ``with`` block."""
    value = parse_memory_limit(limit)
    token = _CURRENT.set(value)
    try:
        yield value
    finally:
        _CURRENT.reset(token)


class Budgeted(Protocol):
    """An object whose methods run under its own budget (:func:`budgeted`)."""

    @property
    def memory_limit(self) -> int: ...


def budgeted(method: Callable[Concatenate[B, P], R]) -> Callable[Concatenate[B, P], R]:
    """Decorate a method so that it runs under its object's ``memory_limit`` (:func:`limited`)."""

    @functools.wraps(method)
    def run(self: B, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with limited(self.memory_limit):
            return method(self, *args, **kwargs)

    return run


def dense_bytes(*shape: int, itemsize: int = 8) -> int:
    """Bytes of a dense array of ``shape`` (exact integer arithmetic: no overflow for huge shapes)."""
    return math.prod(int(size) for size in shape) * itemsize


def require(nbytes: float, what: str, remedies: str) -> None:
    """Refuse ``what`` (an allocation of about ``nbytes``) when it exceeds the current budget.

    The :class:`~privopt.errors.LimitError` reads ``"{what} needs about 11.9 GiB, more than the memory
    limit of 11.7 GiB. Remedies: {remedies}, or a larger memory_limit= ..."``.
    """
    limit = current_limit()
    if nbytes > limit:
        raise LimitError(
            f"{what} needs about {format_bytes(nbytes)}, more than the memory limit of {format_bytes(limit)}. "
            f"Remedies: {remedies}, or a larger memory_limit= (e.g. Problem(..., memory_limit='64 GiB') on a "
            "machine that has it)"
        )


def fits(nbytes: float, share: float = 1.0) -> bool:
    """Whether ``nbytes`` fits within ``share`` of the current budget (for searches that stop early
    with a valid result rather than refuse)."""
    return nbytes <= share * current_limit()
