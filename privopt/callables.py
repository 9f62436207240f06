"""User callables: what they raise or return wrong becomes a privopt error that names them.

privopt calls functions its users write — a utility's ``μ``, an f-divergence's ``f``, a cvxpy
builder, Pufferfish secrets, a metric's distance, component factories, mechanism factories in
:func:`~privopt.compare`, spec-file factories, a sweep's cell function. :func:`call` runs one: an
exception that is not already a privopt error becomes a :class:`~privopt.errors.CallableError` (a
:class:`~privopt.errors.ValidationError`) naming the argument the function was given as, the function itself (``my_mu``, ``<lambda>
(cells.py:12)``) and what it raised, chained to the original (``raise ... from``) so that the
traceback still shows where; a :class:`MemoryError` becomes a :class:`~privopt.errors.LimitError`.
:func:`returned` is the error for a value of the wrong kind. Privopt's own errors raised inside a
user function pass unchanged: they already say what is wrong. ``KeyboardInterrupt`` and
``SystemExit`` are not exceptions of the function and pass too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from privopt.errors import CallableError, LimitError, PrivoptError

R = TypeVar("R")

#: Longest shown part of a message or of a returned value.
_SHOWN = 200


def describe(function: object) -> str:
    """How a callable is named in errors: its qualified name (without the enclosing function of a
    local one), with its file and line for a lambda; the class name for a callable object."""
    if isinstance(function, functools.partial):
        return f"partial({describe(function.func)})"
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None)
    if not isinstance(name, str):
        return f"a {type(function).__name__} object"
    name = name.rsplit(".<locals>.", 1)[-1]  # a function defined in a function: its own name
    code = getattr(function, "__code__", None)
    if name == "<lambda>" and code is not None:
        return f"{name} ({Path(code.co_filename).name}:{code.co_firstlineno})"
    return name


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def call(
    function: Callable[..., R],
    argument: str,
    expected: str,
    *args: Any,
    name: str | None = None,
    **kwargs: Any,
) -> R:
    """``function(*args, **kwargs)``; what it raises is an error naming ``argument`` and the function.

    ``expected`` says what the function should do (``"a function of a (|X|, m) array returning m
    numbers"``); it is the error's ``expected``. ``name`` is how the user wrote the function when that
    says more than :func:`describe` (``'policies:build'`` in a spec file).
    """
    shown = describe(function) if name is None else name
    try:
        return function(*args, **kwargs)
    except PrivoptError:
        raise
    except MemoryError as exc:
        raise LimitError(f"{argument}: {shown} ran out of memory ({_short(str(exc))})") from exc
    except Exception as exc:  # a user function: any failure is reported as its own
        raise CallableError(
            argument, expected, f"{shown} raised {type(exc).__name__}: {_short(str(exc))}"
        ) from exc


def returned(
    function: object, argument: str, expected: str, value: object, name: str | None = None
) -> CallableError:
    """The error for ``function`` (given as ``argument``, written ``name``) returning ``value`` where
    ``expected`` was needed (to raise: ``raise returned(...)``)."""
    shown = describe(function) if name is None else name
    return CallableError(argument, expected, f"{shown} returned {type(value).__name__} {_short(repr(value))}")
