"""Loaders for the papers' real data set, the UCI Adult census data.

The data is never shipped with privopt: pass the folder holding ``adult.data`` / ``adult.test`` (the
raw UCI files; see ``../shared/data/adult/README.md`` in the development tree).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from privopt.errors import ValidationError

#: Column names of the UCI files, in order (adult.names).
ADULT_COLUMNS: tuple[str, ...] = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)
_INTEGER_COLUMNS = {"age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"}
_SPLITS = {"train": ("adult.data",), "test": ("adult.test",), "all": ("adult.data", "adult.test")}


def _read_split(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(
        path,
        header=None,
        names=list(ADULT_COLUMNS),
        sep=",",
        skipinitialspace=True,
        comment="|",  # adult.test starts with the marker line '|1x3 Cross validator'
        skip_blank_lines=True,
        dtype=str,
        keep_default_na=False,
    )
    frame = frame.apply(lambda column: column.str.strip())
    frame["income"] = frame["income"].str.rstrip(".")  # adult.test writes '<=50K.'
    for column in _INTEGER_COLUMNS:
        frame[column] = frame[column].astype(int)
    return frame


def load_adult(
    path: str | Path,
    columns: Sequence[str] | None = None,
    *,
    split: str = "train",
    drop_missing: bool = False,
) -> pd.DataFrame:
    """Read the UCI Adult files into a DataFrame.

    Parameters
    ----------
    path:
        A folder containing ``adult.data`` (and ``adult.test`` for ``split="test"``/``"all"``), or the
        path of one of those files.
    columns:
        Columns to keep (names as in :data:`ADULT_COLUMNS`); default all.
    split:
        ``"train"`` (``adult.data``, n = 32,561: the papers' data), ``"test"`` or ``"all"``.
    drop_missing:
        Drop rows with ``'?'`` in the selected columns. The papers keep ``'?'`` as a category of its
        own (e.g. occupation has 15 values), which is the default.
    """
    location = Path(path)
    if location.is_file():
        files = [location]
    elif location.is_dir():
        if split not in _SPLITS:
            raise ValidationError("split", f"one of {', '.join(_SPLITS)}", repr(split))
        files = [location / name for name in _SPLITS[split]]
    else:
        raise ValidationError(
            "path", "a folder with the UCI Adult files or one of the files", f"{str(location)!r} (not found)"
        )
    for file in files:
        if not file.is_file():
            raise ValidationError("path", f"a folder containing {file.name}", f"{str(location)!r}")
    frame = pd.concat([_read_split(file) for file in files], ignore_index=True)
    if columns is not None:
        unknown = [c for c in columns if c not in ADULT_COLUMNS]
        if unknown:
            raise ValidationError("columns", f"names among {', '.join(ADULT_COLUMNS)}", repr(unknown))
        frame = frame[list(columns)]
    if drop_missing:
        frame = frame[~(frame == "?").any(axis=1)].reset_index(drop=True)
    return frame
