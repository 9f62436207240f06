"""Summaries of sweep tables used by the claim checks: means per group, win counts, relative changes."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd


def ok_rows(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["status"] == "ok"] if "status" in table.columns else table


def mean_table(table: pd.DataFrame, value: str, by: Sequence[str], across: str = "mechanism") -> pd.DataFrame:
    """Mean of ``value`` per ``by`` (rows) and ``across`` (columns), over the successful cells."""
    return ok_rows(table).pivot_table(index=list(by), columns=across, values=value, aggfunc="mean")


def wins(means: pd.DataFrame, winner: str, others: Sequence[str]) -> tuple[int, int]:
    """In how many rows ``winner`` is strictly above every one of ``others``, and out of how many."""
    beaten = means[winner] > means[list(others)].max(axis=1)
    return int(beaten.sum()), len(means)


def nearest(values: Sequence[float] | pd.Index, target: float) -> float:
    """The value closest to ``target`` (grids such as ε in [0.2, 8] need not contain 1 exactly)."""
    return min(values, key=lambda v: abs(float(v) - target))
