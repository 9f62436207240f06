"""Generalized randomized response (GRR) and Warner's binary randomized response."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from privopt.data.mechanism import Mechanism
from privopt.memory import dense_bytes, require
from privopt.validation import check_eps, check_positive_int


def grr_matrix(k: int, alpha: float) -> np.ndarray:
    """The ``k × k`` GRR matrix: ``e^α/(e^α+k−1)`` on the diagonal, ``1/(e^α+k−1)`` elsewhere.

    ``alpha = inf`` gives the identity (no randomisation).
    """
    require(dense_bytes(k, k), f"the dense {k:,} × {k:,} GRR matrix", "fewer symbols")
    if np.isinf(alpha):
        return np.eye(k)
    # Divide through by e^α so that large α does not overflow.
    off = np.exp(-alpha)
    denominator = 1.0 + (k - 1) * off
    matrix = np.full((k, k), off / denominator)
    np.fill_diagonal(matrix, 1.0 / denominator)
    return matrix


def grr(k: int, eps: float, labels: Sequence[Hashable] | None = None) -> Mechanism:
    """Generalized randomized response ``GRR_ε`` on ``k`` symbols (Entropy paper §6, eq. 28 of the
    privacy-funnel paper): report the truth with probability ``e^ε/(e^ε+k−1)``, otherwise one of the
    other ``k−1`` symbols uniformly. It is ε-LDP with equality, and maximises ``I(X;Y)`` among
    ε-LDP mechanisms for large ε (Kairouz et al.).
    """
    k = check_positive_int(k, "k")
    eps = check_eps(eps)
    return Mechanism(grr_matrix(k, eps), labels, labels, name=f"GRR(eps={eps:.4g})")


def randomized_response(eps: float, labels: Sequence[Hashable] | None = None) -> Mechanism:
    """Warner's binary randomized response: ``GRR_ε`` with ``k = 2`` (PML paper eq. 42)."""
    return Mechanism(grr_matrix(2, check_eps(eps)), labels, labels, name=f"RR(eps={eps:.4g})")
