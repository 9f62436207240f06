"""``Sweep``: a function evaluated on every point of a parameter grid, in parallel, resumable.

    >>> from privopt.experiments import Sweep
    >>> def cell(c):
    ...     return {"square": c["k"] ** 2}
    >>> Sweep(cell, {"k": [1, 2, 3]}, backend="serial", progress=False).run()["square"].tolist()
    [1, 4, 9]

The grid is the Cartesian product of its axes, in the order given. Each cell gets a stable key (a
hash of its parameters and the seed) and random streams that depend only on the seed and the
parameter values it names (:meth:`Cell.rng`), so the serial, joblib and Dask backends return the
same table. With ``store=`` the rows are written to parquet as cells finish; running the same sweep
again skips the stored cells, so an interrupted sweep resumes where it stopped. A cell that raises is
recorded (``status == "failed"`` and the exception in ``error``) and the sweep goes on.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from privopt.errors import ValidationError
from privopt.experiments.backends import check_backend, execute
from privopt.experiments.cell import Cell, Outcome, stable_words
from privopt.experiments.store import KEY, STATUS, ResultStore

#: Seconds between two writes of finished cells to the store (and at most ``flush_every`` cells).
FLUSH_SECONDS = 30.0


def _check_grid(grid: object) -> dict[str, tuple[Any, ...]]:
    if not isinstance(grid, Mapping) or not grid:
        raise ValidationError("grid", "a non-empty mapping {parameter: sequence of values}", repr(grid))
    axes: dict[str, tuple[Any, ...]] = {}
    for name, values in grid.items():
        if not isinstance(name, str) or not name:
            raise ValidationError("grid", "parameter names that are non-empty strings", repr(name))
        if isinstance(values, str | bytes) or not isinstance(values, Sequence | range):
            raise ValidationError(
                f"grid[{name!r}]", "a sequence of values (list, tuple, range)", repr(values)
            )
        if len(values) == 0:
            raise ValidationError(f"grid[{name!r}]", "at least one value", "an empty sequence")
        axes[name] = tuple(v.item() if hasattr(v, "item") else v for v in values)  # numpy scalars → Python
    return axes


def _check_positive_int(value: object, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(argument, "a positive integer", repr(value))
    return value


class Sweep:
    """Evaluate ``function(cell)`` on every point of ``grid``.

    Parameters
    ----------
    function:
        ``function(cell) -> dict | list[dict] | DataFrame | None``: the row(s) of one cell. It must be
        picklable (a module-level function, or a closure cloudpickle can ship) for the parallel
        backends. Read parameters with ``cell["eps"]`` and random numbers from ``cell.rng(...)``.
    grid:
        ``{parameter: values}``; the cells are the Cartesian product, in the order given.
    seed:
        Base seed of every cell's random streams.
    backend:
        ``"joblib"`` (default: local processes, ``n_jobs`` of them, all cores by default),
        ``"serial"`` (this process) or ``"dask"`` (the ``client``'s cluster; without ``client`` the
        default client of ``distributed.get_client()``).
    store:
        A folder for the parquet parts; cells already stored there are skipped, so a sweep that was
        interrupted or killed resumes where its last flush left it. One sweep writes to a folder at a
        time: another one started on it meanwhile is refused. ``None`` keeps the results in memory only.
    retry_failed:
        Re-run the cells stored as failed (default: a failure is a result and is kept).
    progress:
        Show a tqdm bar over the cells still to do.
    quiet:
        Discard what cells write to stderr (their solvers' own progress bars).
    flush_every:
        Write to the store after at most this many finished cells (and every 30 s).
    """

    def __init__(
        self,
        function: Callable[[Cell], Any],
        grid: Mapping[str, Sequence[Any]],
        *,
        seed: int = 0,
        backend: str = "joblib",
        n_jobs: int = -1,
        client: Any = None,
        store: str | Path | None = None,
        retry_failed: bool = False,
        progress: bool = True,
        quiet: bool = True,
        flush_every: int = 100,
        description: str = "sweep",
    ) -> None:
        if not callable(function):
            raise ValidationError("function", "a callable taking a Cell", type(function).__name__)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValidationError("seed", "a non-negative integer", repr(seed))
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
            raise ValidationError("n_jobs", "a non-zero integer (-1: all cores)", repr(n_jobs))
        self.function = function
        self.grid = _check_grid(grid)
        self.seed = seed
        self.backend = check_backend(backend, client)
        self.n_jobs = n_jobs
        self.client = client
        self.store = None if store is None else Path(store)
        self.retry_failed = bool(retry_failed)
        self.progress = bool(progress)
        self.quiet = bool(quiet)
        self.flush_every = _check_positive_int(flush_every, "flush_every")
        self.description = description

    def __repr__(self) -> str:
        axes = ", ".join(f"{name}: {len(values)}" for name, values in self.grid.items())
        return f"Sweep({axes}; {len(self)} cells, backend={self.backend!r})"

    def __len__(self) -> int:
        total = 1
        for values in self.grid.values():
            total *= len(values)
        return total

    def manifest(self) -> dict[str, Any]:
        """What identifies the sweep's results in a store: the grid, the seed and the privopt version
        (a store is never resumed by another release). The cell function is not part of it: a
        wrapper around the same cell (logging, a retry) may resume its store."""
        from privopt._version import __version__

        return {
            "grid": {name: list(values) for name, values in self.grid.items()},
            "seed": self.seed,
            "privopt": __version__,
        }

    def cells(self) -> list[Cell]:
        """Every grid point, in order."""
        names = list(self.grid)
        out = []
        for index, values in enumerate(itertools.product(*self.grid.values())):
            params = dict(zip(names, values, strict=True))
            key = "".join(f"{w:08x}" for w in stable_words({"params": params, "seed": self.seed}))
            out.append(Cell(params, self.seed, index, key))
        return out

    def run(self) -> pd.DataFrame:
        """Run the cells not yet in the store and return the whole table in grid order.

        Columns: the grid parameters, the function's columns, ``status`` (``"ok"``/``"failed"``),
        ``error``, ``seconds`` (the cell's wall time) and ``cell`` (its key). With a store, the run holds
        its lock: a second sweep on the same folder meanwhile is refused
        (:meth:`~privopt.experiments.store.ResultStore.locked`).
        """
        cells = self.cells()
        opened = (
            contextlib.nullcontext(None)
            if self.store is None
            else ResultStore.locked(self.store, self.manifest())
        )
        with opened as store:
            table = self._run(cells, store)
        return self._ordered(table, cells)

    def _run(self, cells: list[Cell], store: ResultStore | None) -> pd.DataFrame:
        """Run the cells not yet in ``store`` (none without one); the stored or collected rows."""
        done = set() if store is None else store.finished(include_failed=not self.retry_failed)
        todo = [cell for cell in cells if cell.key not in done]
        collected: list[dict[str, Any]] = []
        pending: list[Outcome] = []
        last_flush = time.monotonic()

        def flush() -> None:
            nonlocal last_flush
            rows = [row for outcome in pending for row in outcome.records()]
            if store is not None:
                store.append(rows)
            else:
                collected.extend(rows)
            pending.clear()
            last_flush = time.monotonic()

        bar = tqdm(total=len(todo), desc=self.description, disable=not self.progress or not todo)
        outcomes = execute(
            self.backend, self.function, todo, quiet=self.quiet, n_jobs=self.n_jobs, client=self.client
        )
        failures = 0
        try:
            for outcome in outcomes:
                pending.append(outcome)
                failures += not outcome.ok
                bar.update(1)
                bar.set_postfix(failed=failures, refresh=False)
                if len(pending) >= self.flush_every or time.monotonic() - last_flush > FLUSH_SECONDS:
                    flush()
        finally:  # an interrupted sweep keeps what it finished
            flush()
            bar.close()
            close = getattr(outcomes, "close", None)
            if close is not None:
                close()
        return store.load() if store is not None else pd.DataFrame(collected)

    def _ordered(self, table: pd.DataFrame, cells: list[Cell]) -> pd.DataFrame:
        if table.empty:
            return table
        order = {cell.key: cell.index for cell in cells}
        table = table[table[KEY].isin(order)]
        position = table[KEY].map(order)
        table = table.iloc[position.argsort(kind="stable")].reset_index(drop=True)
        ending = ["status", "error", "seconds", KEY]
        columns = [*self.grid, *(c for c in table.columns if c not in self.grid and c not in ending), *ending]
        return table[columns]


def failed(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of failed cells in a sweep's table."""
    return table[table[STATUS] != "ok"]
