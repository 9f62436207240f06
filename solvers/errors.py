"""Exceptions of the numerical back ends (translated into privopt errors by the compiler)."""

from __future__ import annotations


class BackendError(RuntimeError):
    """A back end failed, returned a non-optimal status, or produced an inconsistent result."""


class BackendTimeout(BackendError):
    """A back end did not finish within its time budget and was stopped."""


class BackendMemoryError(BackendError):
    """A back end ran out of the memory it was allowed (in a child process with a memory limit)."""


class BackendInputError(BackendError, ValueError):
    """A back end was handed arrays of the wrong shape or with non-finite entries (a caller's bug,
    reported with the shapes instead of the back end's own traceback)."""
