"""Run a computation in a child process so that it can be stopped at a time budget.

Vertex enumeration runs inside C++ libraries that cannot be interrupted from Python; a forked child
can. While waiting, a tqdm bar shows the elapsed time (only once the call has lasted a few seconds).
"""

from __future__ import annotations

import multiprocessing as mp
import time
import traceback
from collections.abc import Callable
from typing import Any

from tqdm.auto import tqdm

from .errors import BackendError, BackendTimeout

#: No progress bar for calls shorter than this (seconds).
_QUIET_SECONDS = 3.0


def _child(connection: Any, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        connection.send(("ok", function(*args)))
    except BaseException as exc:  # report every failure to the parent
        last = traceback.format_exc().strip().splitlines()[-3:]  # where it was raised
        connection.send(
            ("error", f"{type(exc).__name__}: {exc} [{' | '.join(line.strip() for line in last)}]")
        )
    finally:
        connection.close()


def call_with_timeout(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    timeout: float,
    description: str,
    poll: float = 0.2,
    progress: bool = True,
) -> Any:
    """``function(*args)`` in a forked child; :class:`BackendTimeout` after ``timeout`` seconds.

    ``progress=False`` never shows the bar (callers that make many short calls, e.g. privopt.verify).
    """
    context = mp.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(child, function, args), daemon=True)
    start = time.perf_counter()
    process.start()
    child.close()
    bar: tqdm | None = None  # created only once the call has lasted a few seconds
    try:
        while True:
            if parent.poll(poll):
                try:
                    status, payload = parent.recv()
                except EOFError as exc:
                    raise BackendError(
                        f"{description}: the worker process died (exit code {process.exitcode})"
                    ) from exc
                if status == "error":
                    raise BackendError(f"{description} failed: {payload}")
                return payload
            elapsed = time.perf_counter() - start
            if progress and bar is None and elapsed > _QUIET_SECONDS:
                bar = tqdm(total=round(timeout), desc=description, unit="s", leave=False)
            if bar is not None:
                bar.n = min(round(elapsed), bar.total)
                bar.refresh()
            if not process.is_alive() and not parent.poll(0):
                raise BackendError(f"{description}: the worker process died (exit code {process.exitcode})")
            if elapsed > timeout:
                raise BackendTimeout(f"{description} did not finish within {timeout:g} s and was stopped")
    finally:
        if bar is not None:
            bar.close()
        if process.is_alive():
            process.kill()
        process.join(timeout=5)
        parent.close()
