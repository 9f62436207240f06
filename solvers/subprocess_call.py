"""Run a computation in a child process so that it can be stopped at a time budget.

Vertex enumeration runs inside C++ libraries that cannot be interrupted from Python; a forked child
can. While waiting, :class:`~privopt.solvers.progress.Progress` shows the elapsed time (not for short calls,
and never inside :func:`progress_disabled`).

The child runs in a process group of its own, with its standard streams on ``/dev/null`` (so it
never holds the parent's output open), and on Linux it is killed when the parent dies. With a
``memory_limit`` it may grow its address space by at most that many bytes (``RLIMIT_AS``, enforced
where the kernel supports it, e.g. Linux): a C++ library that cannot allocate raises ``MemoryError``
there instead of exhausting the machine, and the caller gets :class:`BackendMemoryError`. Whatever
ends the wait — the result, an error, the time limit, ``KeyboardInterrupt`` or any exception raised
by a signal handler — the whole group is killed before this returns.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import multiprocessing as mp
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import BackendError, BackendMemoryError, BackendTimeout
from .progress import Progress

#: ``prctl(PR_SET_PDEATHSIG, ...)``: the signal a Linux child receives when its parent dies.
_PR_SET_PDEATHSIG = 1


def _detach() -> None:
    """In the child: own process group, streams on /dev/null, die with the parent (Linux)."""
    os.setpgid(0, 0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2):
        os.dup2(devnull, stream)
    os.close(devnull)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    # The parent decides when to stop; the child ignores the terminal's interrupt.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _address_space() -> int:
    """Bytes of address space this process maps (Linux ``/proc``; 0 where unknown)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def _limit_memory(extra: int) -> None:
    """In the child: allow ``extra`` bytes of address space beyond what it maps now."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = _address_space() + extra
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    with contextlib.suppress(OSError, ValueError):  # e.g. a platform without RLIMIT_AS
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _child(
    connection: Any, function: Callable[..., Any], args: tuple[Any, ...], memory_limit: int | None
) -> None:
    try:
        _detach()
        if memory_limit is not None:
            _limit_memory(memory_limit)
        connection.send(("ok", function(*args)))
    except BaseException as exc:  # report every failure to the parent
        last = traceback.format_exc().strip().splitlines()[-3:]  # where it was raised
        connection.send(
            ("error", f"{type(exc).__name__}: {exc} [{' | '.join(line.strip() for line in last)}]")
        )
    finally:
        connection.close()


def _kill_group(process: Any) -> None:
    """SIGKILL the child's process group (the child itself and anything it started)."""
    if process.pid is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(process.pid, signal.SIGKILL)  # if it was killed before it could call setpgid


def _died(description: str, exitcode: int | None, limited: str) -> BackendError:
    """The error for a child that died without a result: killed by a signal under a memory limit, it
    most likely failed to allocate (a C library that aborts or crashes on a failed ``malloc``)."""
    if limited and exitcode is not None and exitcode < 0:
        return BackendMemoryError(
            f"{description}: the worker process died (signal {-exitcode}), most likely out of memory{limited}"
        )
    return BackendError(f"{description}: the worker process died (exit code {exitcode})")


def call_with_timeout(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    timeout: float,
    description: str,
    poll: float = 0.2,
    progress: bool | None = None,
    memory_limit: int | None = None,
) -> Any:
    """``function(*args)`` in a forked child; :class:`BackendTimeout` after ``timeout`` seconds.

    ``progress=False`` never shows the bar (callers that make many short calls, e.g. privopt.verify);
    ``None`` shows it unless inside :func:`progress_disabled`. ``memory_limit``: bytes the child may
    allocate (module docstring); :class:`BackendMemoryError` when it runs out of them.
    """
    total = timeout if math.isfinite(timeout) else None  # no time limit: only the memory limit
    progress_display = Progress(description, total, unit="s", enabled=progress is not False)
    context = mp.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(child, function, args, memory_limit), daemon=True)
    limited = "" if memory_limit is None else f" (it was allowed {memory_limit / 2**30:.3g} GiB)"
    start = time.perf_counter()
    try:
        process.start()
        if process.pid is not None:  # also here, so that the group exists before any kill
            with contextlib.suppress(OSError):
                os.setpgid(process.pid, process.pid)
        child.close()
        while True:
            if parent.poll(poll):
                try:
                    status, payload = parent.recv()
                except EOFError as exc:
                    process.join(timeout=5)
                    raise _died(description, process.exitcode, limited) from exc
                if status == "error":
                    if memory_limit is not None and payload.startswith("MemoryError"):
                        raise BackendMemoryError(f"{description} ran out of memory{limited}")
                    raise BackendError(f"{description} failed: {payload}")
                return payload
            elapsed = time.perf_counter() - start
            progress_display.update(done=min(round(elapsed), timeout))
            if not process.is_alive() and not parent.poll(0):
                raise _died(description, process.exitcode, limited)
            if elapsed > timeout:
                raise BackendTimeout(f"{description} did not finish within {timeout:g} s and was stopped")
    finally:
        _kill_group(process)
        progress_display.close()
        if process.pid is not None:
            process.join(timeout=5)
        parent.close()
