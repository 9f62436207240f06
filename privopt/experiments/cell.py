"""One point of a sweep's grid, and what running it produced."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privopt.callables import call, describe, returned
from privopt.errors import CallableError, ValidationError


def stable_words(value: Any) -> tuple[int, ...]:
    """Four 32-bit words of a SHA-256 of ``value``'s JSON text: the same on every machine and run."""
    text = json.dumps(value, sort_keys=True, default=repr)
    digest = hashlib.sha256(text.encode()).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


@dataclass(frozen=True)
class Cell:
    """A grid point: the parameter values, the sweep's seed, its position and its stable key.

    ``cell["eps"]`` reads a parameter. :meth:`rng` gives the random stream of a *subset* of the
    parameters, so that cells sharing those values draw the same numbers: in the ISIT paper's Fig. 2
    every ε and every mechanism sees the same 200 distributions, which is ``cell.rng("draw")``.
    """

    params: Mapping[str, Any]
    seed: int
    index: int
    key: str

    def __getitem__(self, name: str) -> Any:
        if name not in self.params:
            raise ValidationError("name", f"a grid parameter ({', '.join(self.params)})", repr(name))
        return self.params[name]

    def rng(self, *names: str) -> np.random.Generator:
        """A generator seeded by the sweep seed and the values of ``names`` (all parameters if none)."""
        chosen = names or tuple(self.params)
        values = {name: self[name] for name in chosen}
        sequence = np.random.SeedSequence(entropy=self.seed, spawn_key=stable_words(values))
        return np.random.default_rng(sequence)


@dataclass(frozen=True)
class Outcome:
    """The rows one cell produced (or the failure it raised) and how long it took."""

    cell: Cell
    rows: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.error

    def records(self) -> list[dict[str, Any]]:
        """Tidy rows: the parameters, the function's columns, status, error, seconds and the cell key."""
        rows = self.rows or [{}]
        status = "ok" if self.ok else "failed"
        return [
            {**self.cell.params, **row, "status": status, "error": self.error, "seconds": self.seconds,
             "cell": self.cell.key}
            for row in rows
        ]  # fmt: skip


#: What a sweep's cell function must do (named in the errors of failed cells).
CELL_FUNCTION = "a cell function returning a dict, a list of dicts, a DataFrame or None"


def as_rows(result: Any, function: Callable[[Cell], Any]) -> list[dict[str, Any]]:
    """A cell function's return value as a list of row dicts (dict, list of dicts, DataFrame or None);
    a :class:`~privopt.errors.CallableError` naming ``function`` otherwise."""
    if result is None:
        return []
    if isinstance(result, pd.DataFrame):
        return [{str(k): v for k, v in row.items()} for row in result.to_dict("records")]
    if isinstance(result, Mapping):
        return [dict(result)]
    if isinstance(result, list | tuple) and all(isinstance(row, Mapping) for row in result):
        return [dict(row) for row in result]
    raise returned(function, "function", CELL_FUNCTION, result)


def run_cell(function: Callable[[Cell], Any], cell: Cell, quiet: bool) -> Outcome:
    """Run ``function(cell)``; an exception becomes a failed :class:`Outcome` instead of propagating.

    The error says what was raised and where: a privopt error as itself (``LimitError: ...``), another
    exception as raised by the function (``nmi_of_grr raised RuntimeError: boom (at cells.py:12)``); a
    return value that is not rows is a :class:`~privopt.errors.CallableError` naming the function
    (:mod:`privopt.callables`). ``quiet`` discards what the cell writes to stderr (the progress bars of
    the solvers it calls), which would otherwise interleave with the sweep's own bar.
    ``KeyboardInterrupt`` still stops the sweep: it is not an ``Exception``.
    """
    start = time.perf_counter()
    sink = contextlib.redirect_stderr(io.StringIO()) if quiet else contextlib.nullcontext()
    try:
        with sink:
            rows = as_rows(call(function, "function", CELL_FUNCTION, cell), function)
    except Exception as exc:  # a failed cell is a result of the sweep, recorded with its reason
        raised = isinstance(exc, CallableError) and exc.__cause__ is not None
        origin = exc.__cause__ if raised and exc.__cause__ is not None else exc
        frames = traceback.extract_tb(origin.__traceback__)
        where = f" (at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno})" if frames else ""
        what = (
            f"{describe(function)} raised {type(origin).__name__}: {origin}"
            if raised
            else f"{type(exc).__name__}: {exc}"
        )
        return Outcome(cell, error=f"{what}{where}", seconds=time.perf_counter() - start)
    return Outcome(cell, rows, seconds=time.perf_counter() - start)
