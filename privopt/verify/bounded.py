"""Run a computation in a forked child process that is stopped at a time limit.

sympy cannot be interrupted from inside Python reliably; a forked child can be killed. This is the
pattern of :func:`privopt.solvers.subprocess_call.call_with_timeout`, without its progress bar (a
verification run makes dozens of short calls, and their bars would drown the report).
"""

from __future__ import annotations

import multiprocessing as mp
import time
import traceback
from collections.abc import Callable
from typing import Any


class TimeLimit(Exception):
    """The computation did not finish within its time limit and was stopped."""


class ChildError(Exception):
    """The computation raised (or the child died); the message has the child's traceback summary."""


def _child(connection: Any, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        connection.send(("ok", function(*args)))
    except BaseException as exc:  # report every failure to the parent
        last = traceback.format_exc().strip().splitlines()[-3:]
        connection.send(("error", f"{type(exc).__name__}: {exc} [{' | '.join(s.strip() for s in last)}]"))
    finally:
        connection.close()


def call_bounded(
    function: Callable[..., Any], args: tuple[Any, ...], time_limit: float, poll: float = 0.05
) -> Any:
    """``function(*args)`` in a forked child; :class:`TimeLimit` after ``time_limit`` seconds."""
    context = mp.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(child, function, args), daemon=True)
    start = time.perf_counter()
    process.start()
    child.close()
    try:
        while True:
            if parent.poll(poll):
                try:
                    status, payload = parent.recv()
                except EOFError as exc:
                    raise ChildError(f"the worker process died (exit code {process.exitcode})") from exc
                if status == "error":
                    raise ChildError(payload)
                return payload
            if not process.is_alive() and not parent.poll(0):
                raise ChildError(f"the worker process died (exit code {process.exitcode})")
            if time.perf_counter() - start > time_limit:
                raise TimeLimit(f"stopped after the {time_limit:g} s limit")
    finally:
        if process.is_alive():
            process.kill()
        process.join(timeout=5)
        parent.close()
