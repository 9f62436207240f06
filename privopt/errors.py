"""Exceptions raised by privopt.

Every error a user can trigger with bad input is a :class:`PrivoptError`. Errors about an argument
name the argument and say what was expected, so that a message such as::

    privopt.errors.ValidationError: eps: expected a finite number >= 0, got -1.0

is enough to fix the call without reading a traceback.
"""

from __future__ import annotations


class PrivoptError(Exception):
    """Base class of all privopt errors."""


class ValidationError(PrivoptError, ValueError):
    """An argument does not have the value or form that was expected.

    Attributes
    ----------
    argument:
        The name of the offending argument (as the caller wrote it).
    expected:
        What would have been accepted.
    got:
        A short description of what was received (may be empty).
    """

    def __init__(self, argument: str, expected: str, got: str = "") -> None:
        self.argument = argument
        self.expected = expected
        self.got = got
        message = f"{argument}: expected {expected}"
        if got:
            message += f", got {got}"
        super().__init__(message)


class CallableError(ValidationError):
    """A function the user supplied (a utility's ``μ``, a factory, a predicate, a sweep's cell function)
    raised, or returned a value of the wrong kind.

    ``argument`` is the argument the function was given as and ``got`` names the function and what it
    raised or returned; the original exception, if any, is the ``__cause__``.
    """


class ShapeError(ValidationError):
    """Two objects that must share an alphabet do not (a mechanism and a distribution, ...)."""


class LimitError(PrivoptError):
    """A computation would exceed a configured limit (memory, vertex count, time)."""


class InfeasibleError(PrivoptError):
    """An optimisation problem or a calibration has no feasible point."""


class SolverError(PrivoptError):
    """A numerical back end failed or returned a status that is not 'optimal'."""


class NotSupportedError(PrivoptError):
    """The combination of definition, set and utility is not handled (and why)."""


def failure_status(exc: BaseException) -> str:
    """The ``status`` of a table row whose computation raised ``exc`` (``po.compare``, curves):
    ``"infeasible"``, ``"limit"``, ``"not_supported"``, or ``"error"`` for anything else."""
    for kind, status in (
        (InfeasibleError, "infeasible"),
        (LimitError, "limit"),
        (NotSupportedError, "not_supported"),
    ):
        if isinstance(exc, kind):
            return status
    return "error"


def failure_text(exc: BaseException) -> str:
    """``"Type: message"`` on one line: the ``error`` of such a row."""
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
