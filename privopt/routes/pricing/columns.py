"""Priced columns as a matrix: the distinct ones, in order.

An exact pricer meets the same vertex from several of its enumerations (a block vertex shared by two
events, a mass vertex reached from two free coordinates); column generation needs each once.
"""

from __future__ import annotations

import numpy as np

from privopt.tolerances import COLUMN_DUPLICATE_ATOL
from privopt.validation import FloatArray


def distinct_columns(columns: FloatArray) -> list[FloatArray]:
    """The columns of ``columns`` (inputs × candidates, each normalised) that differ from every earlier
    kept one by more than :data:`~privopt.tolerances.COLUMN_DUPLICATE_ATOL` in some entry, in order."""
    k = columns.shape[1]
    if k == 0:
        return []
    apart = np.abs(columns[:, :, None] - columns[:, None, :]).max(axis=0) >= COLUMN_DUPLICATE_ATOL
    kept = np.zeros(k, dtype=bool)
    for j in range(k):
        kept[j] = bool(np.all(apart[kept, j]))
    return list(columns[:, kept].T)
