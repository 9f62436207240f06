"""Progress of long computations that behaves on a terminal and in a log.

:class:`Progress` shows *work done* (iterations, elapsed time of a bounded wait, and any fields the
caller reports, e.g. column generation's lower / upper / gap):

- on a terminal, a tqdm bar redrawn at most once per :data:`REDRAW_SECONDS`;
- on anything else (a file, a pipe, CI logs), one plain line at most every :data:`LOG_SECONDS`, and a
  last one when the work ends, so that a 40-second run writes a handful of lines, not hundreds of
  redraws;
- nothing at all inside :func:`progress_disabled` (``privopt --quiet``), when ``enabled=False`` is
  passed (``progress=False`` in privopt's options), or before the work has lasted :data:`QUIET_SECONDS`.

Inside :func:`progress_verbose` (``Problem.solve(verbose=True)``) every task shows its progress from
its start, whatever ``enabled`` says, and a non-terminal stream gets a line every
:data:`REDRAW_SECONDS` (but :func:`progress_disabled` still wins).
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time
from collections.abc import Iterator
from typing import IO, Any

from tqdm import tqdm

#: A terminal bar is redrawn at most this often (seconds).
REDRAW_SECONDS = 1.0
#: A non-terminal stream gets at most one line this often (seconds).
LOG_SECONDS = 10.0
#: Nothing is shown for work shorter than this (seconds).
QUIET_SECONDS = 2.0

_ENABLED: contextvars.ContextVar[bool] = contextvars.ContextVar("privopt_progress", default=True)
_VERBOSE: contextvars.ContextVar[bool] = contextvars.ContextVar("privopt_progress_verbose", default=False)


@contextlib.contextmanager
def progress_verbose() -> Iterator[None]:
    """Every progress display inside this block shows from the start (module docstring)."""
    token = _VERBOSE.set(True)
    try:
        yield
    finally:
        _VERBOSE.reset(token)


@contextlib.contextmanager
def progress_disabled() -> Iterator[None]:
    """No progress output from anything inside this block (``privopt --quiet``)."""
    token = _ENABLED.set(False)
    try:
        yield
    finally:
        _ENABLED.reset(token)


def _fields(values: dict[str, Any]) -> str:
    parts = []
    for key, value in values.items():
        parts.append(f"{key} {value:.6g}" if isinstance(value, float) else f"{key} {value}")
    return ", ".join(parts)


class Progress:
    """One task's progress (module docstring). Use as a context manager, or call :meth:`close`.

    Parameters
    ----------
    description:
        What is running ("column generation", "vertex enumeration (12 inputs)").
    total:
        The amount of work when known (iterations, seconds of a timeout), else ``None``.
    unit:
        What one step of work is ("it", "s").
    enabled:
        ``False`` shows nothing (it is also off inside :func:`progress_disabled`).
    stream:
        Where to write (default: standard error).
    """

    def __init__(
        self,
        description: str,
        total: float | None = None,
        *,
        unit: str = "it",
        enabled: bool = True,
        stream: IO[str] | None = None,
    ) -> None:
        self.description, self.total, self.unit = description, total, unit
        self.verbose = _VERBOSE.get()
        self.enabled = (enabled or self.verbose) and _ENABLED.get()
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0.0
        self.fields: dict[str, Any] = {}
        self._start = time.perf_counter()
        self._last_line = self._start
        self._lines = 0
        self._bar: tqdm | None = None
        self._terminal = bool(getattr(self.stream, "isatty", lambda: False)())

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self._start

    def update(self, done: float | None = None, advance: float = 0.0, **fields: Any) -> None:
        """Record progress: ``done`` (absolute) or ``advance`` (relative), and fields to show."""
        self.done = done if done is not None else self.done + advance
        self.fields.update(fields)
        if not self.enabled or self.elapsed < (0.0 if self.verbose else QUIET_SECONDS):
            return
        if self._terminal:
            if self._bar is None:
                self._bar = tqdm(
                    total=self.total,
                    desc=self.description,
                    unit=self.unit,
                    leave=False,
                    file=self.stream,
                    mininterval=REDRAW_SECONDS,
                )
            self._bar.update(self.done - self._bar.n)
            if self.fields:
                self._bar.set_postfix_str(_fields(self.fields), refresh=False)
        elif time.perf_counter() - self._last_line >= (REDRAW_SECONDS if self.verbose else LOG_SECONDS):
            self._line()

    def _line(self) -> None:
        self._last_line = time.perf_counter()
        self._lines += 1
        amount = f"{self.done:g}" + (f"/{self.total:g}" if self.total is not None else "") + f" {self.unit}"
        extra = f", {_fields(self.fields)}" if self.fields else ""
        print(
            f"[privopt] {self.description}: {amount}{extra} ({self.elapsed:.0f} s)",
            file=self.stream,
            flush=True,
        )

    def close(self) -> None:
        """End the display (a non-terminal log gets a last line if it got any)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.enabled and not self._terminal and self._lines:
            self._line()
