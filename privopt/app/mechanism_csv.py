"""A mechanism read from a CSV file: with its labels, or a bare matrix (``np.savetxt``'s).

A CSV with labels has the output labels in its first row and the input labels in its first column
(``Mechanism.to_frame().to_csv()``, what ``privopt design`` writes; the top-left cell is ignored). A
file whose every cell is a number and whose every row sums to 1 is a bare matrix, read without
labels: its rows are flat indices (docs/concepts.md, "Inputs: labels and flat indices"). Labels that
are all integers are read as integers, others as text (matched to a definition's labels by their text,
:mod:`privopt.data.labels`).
"""

from __future__ import annotations

import io
from collections.abc import Hashable
from pathlib import Path

import numpy as np
import pandas as pd

from privopt.app.files import read_text
from privopt.data.mechanism import Mechanism
from privopt.errors import ValidationError
from privopt.tolerances import PROBABILITY_ATOL

WHAT = (
    "a mechanism CSV: output labels in the first row, input labels in the first column, one row per "
    "input summing to 1; or a bare matrix of numbers whose every row sums to 1 (np.savetxt's)"
)


def _labels(cells: list[str]) -> tuple[Hashable, ...]:
    """Integers when every label is one, else the text."""
    stripped = [cell.strip() for cell in cells]
    if all(cell.lstrip("-").isdigit() for cell in stripped):
        return tuple(int(cell) for cell in stripped)
    return tuple(stripped)


def _bare(grid: pd.DataFrame) -> np.ndarray | None:
    """The grid as a matrix when it is one without labels: every cell a number in [0, 1], every row
    summing to 1."""
    numbers = grid.apply(lambda column: pd.to_numeric(column.str.strip(), errors="coerce"))
    matrix = numbers.to_numpy(dtype=float)
    if np.isnan(matrix).any() or (matrix < 0).any() or (matrix > 1).any():
        return None
    return matrix if np.allclose(matrix.sum(axis=1), 1.0, rtol=0.0, atol=PROBABILITY_ATOL) else None


def read_mechanism_csv(path: Path, argument: str = "mechanism") -> Mechanism:
    """The mechanism in the CSV file ``path`` (module docstring); a named error otherwise."""
    text = read_text(path, argument, "a mechanism CSV (labels in its first row and column, or none)")
    try:
        grid = pd.read_csv(io.StringIO(text), header=None, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise ValidationError(argument, WHAT, f"{str(path)!r}: {' '.join(str(exc).split())}") from exc
    bare = _bare(grid)
    if bare is not None:
        return Mechanism(bare, name=path.stem)
    if grid.shape[0] < 2 or grid.shape[1] < 2:
        raise ValidationError(
            argument, WHAT, f"{str(path)!r}: {grid.shape[0]} row(s) of {grid.shape[1]} cell(s)"
        )
    inputs, outputs = _labels(list(grid.iloc[1:, 0])), _labels(list(grid.iloc[0, 1:]))
    body = grid.iloc[1:, 1:]
    numbers = body.apply(lambda column: pd.to_numeric(column.str.strip(), errors="coerce")).to_numpy(
        dtype=float
    )
    bad = np.argwhere(np.isnan(numbers))
    if bad.size:
        row, column = (int(i) for i in bad[0])
        raise ValidationError(
            argument,
            f"a number in every cell of the mechanism CSV (labels only in its first row and column: {WHAT})",
            f"{body.iat[row, column]!r} at the row labelled {inputs[row]!r}, column {outputs[column]!r} of "
            f"{str(path)!r}",
        )
    sums = numbers.sum(axis=1)
    off = np.flatnonzero(~np.isclose(sums, 1.0, rtol=0.0, atol=PROBABILITY_ATOL))
    if off.size:
        row = int(off[0])
        raise ValidationError(
            argument,
            WHAT,
            f"the row labelled {inputs[row]!r} sums to {sums[row]:.6g} in {str(path)!r} (its first row and "
            "column were read as labels)",
        )
    return Mechanism(numbers, inputs, outputs, name=path.stem)
