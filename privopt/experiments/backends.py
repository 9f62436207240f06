"""Where a sweep's cells run: in this process, on local cores (joblib) or on a Dask cluster.

Each backend takes the cells still to do and yields their :class:`~privopt.experiments.cell.Outcome`
as they finish (in any order); the sweep writes them to its store and puts the rows back in grid
order, so every backend returns the same table for the same seed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

from privopt.errors import ValidationError
from privopt.experiments.cell import Cell, Outcome, run_cell

BACKENDS = ("serial", "joblib", "dask")


def check_backend(backend: object, client: object) -> str:
    if backend not in BACKENDS:
        raise ValidationError("backend", f"one of {', '.join(map(repr, BACKENDS))}", repr(backend))
    if client is not None and backend != "dask":
        raise ValidationError("client", "None unless backend='dask'", f"a client with backend={backend!r}")
    return str(backend)


def serial(task: Callable[[Cell], Outcome], cells: Sequence[Cell]) -> Iterator[Outcome]:
    for cell in cells:
        yield task(cell)


def joblib_parallel(task: Callable[[Cell], Outcome], cells: Sequence[Cell], n_jobs: int) -> Iterator[Outcome]:
    """joblib's loky processes; outcomes stream back as they finish (``return_as="generator_unordered"``)."""
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    yield from parallel(delayed(task)(cell) for cell in cells)


def _default_client() -> Any:
    try:
        from distributed import get_client
    except ImportError as exc:  # pragma: no cover - dask is an optional dependency
        raise ValidationError(
            "backend", "'dask' with dask.distributed installed (pip install 'privopt[dist]')", "'dask'"
        ) from exc
    try:
        return get_client()
    except ValueError as exc:
        raise ValidationError(
            "client",
            "a distributed.Client (Client(LocalCluster()) or Client('scheduler-address:8786')) for backend='dask'",
            "None, and no default client is running",
        ) from exc


def dask_distributed(
    task: Callable[[Cell], Outcome], cells: Sequence[Cell], client: Any
) -> Iterator[Outcome]:
    """One Dask task per cell on ``client``'s cluster; unfinished tasks are cancelled if the sweep stops.

    A worker that dies mid-cell (a crash, ``os._exit``, the out-of-memory killer) is replaced by its
    nanny and the scheduler runs the cell again elsewhere; a cell whose attempts killed
    ``distributed.scheduler.allowed-failures`` + 1 workers is recorded as failed
    (``KilledWorker``) and the sweep goes on.
    """
    from distributed import KilledWorker, as_completed

    client = client if client is not None else _default_client()
    futures = client.map(task, list(cells), pure=False)
    cell_of = {future.key: cell for future, cell in zip(futures, cells, strict=True)}
    try:
        for future in as_completed(futures):
            try:
                yield future.result()
            except KilledWorker as exc:
                yield Outcome(
                    cell_of[future.key],
                    error=f"KilledWorker: every worker that ran this cell died ({exc}); a crash, os._exit or "
                    "the out-of-memory killer",
                )
    finally:
        client.cancel([future for future in futures if not future.done()])


def execute(
    backend: str,
    function: Callable[[Cell], Any],
    cells: Sequence[Cell],
    *,
    quiet: bool,
    n_jobs: int,
    client: Any,
) -> Iterator[Outcome]:
    """The outcomes of ``function`` on ``cells`` from ``backend`` (see :data:`BACKENDS`)."""
    task = partial(run_cell, function, quiet=quiet)
    if backend == "serial":
        return serial(task, cells)
    if backend == "joblib":
        return joblib_parallel(task, cells, n_jobs)
    return dask_distributed(task, cells, client)
