"""k-singular mechanisms (PML paper §IV-C, Example 2)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from privopt.data.mechanism import Mechanism
from privopt.errors import ValidationError
from privopt.validation import check_positive_int


def k_singular(n: int, k: int, labels: Sequence[Hashable] | None = None) -> Mechanism:
    """A k-singular mechanism on ``n`` symbols: doubly stochastic with entries ``0`` or ``1/k`` (eq. 35).

    Row ``x`` spreads its mass uniformly over the ``k`` outputs ``x, x+1, ..., x+k−1`` (mod ``n``), a
    circulant support, so every column also has ``k`` entries ``1/k``. For the uniform prior it is an
    optimal extremal mechanism with PML ``log(n/k)`` (the PML paper's [15, Thm. 4]).
    """
    n = check_positive_int(n, "n")
    k = check_positive_int(k, "k")
    if k > n:
        raise ValidationError("k", f"an integer in [1, n={n}]", repr(k))
    matrix = np.zeros((n, n))
    rows = np.repeat(np.arange(n), k)
    cols = (rows + np.tile(np.arange(k), n)) % n
    matrix[rows, cols] = 1.0 / k
    return Mechanism(matrix, labels, labels, name=f"{k}-singular")
