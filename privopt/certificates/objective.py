"""``μ`` as the checker evaluates it: its own formula for mutual information, the utility's otherwise.

Mutual information (Entropy paper eq. 45) is recomputed here, ``μ(w) = Σ_x p_x w_x log w_x − q log q``
with ``q = pᵀw`` and ``0 log 0 = 0``, so that the checker does not share the solver's evaluation of the
utility it certifies; NMI divides it by ``H(X)``. Any other sub-convex utility is the problem's own
statement, evaluated by its ``mu``.
"""

from __future__ import annotations

import numpy as np

from privopt.utilities import MutualInformation, NormalizedMutualInformation, SubConvexUtility
from privopt.validation import FloatArray


def xlogx(t: FloatArray) -> FloatArray:
    """``t log t`` elementwise, with ``0 log 0 = 0``."""
    t = np.asarray(t, dtype=np.float64)
    positive = t > 0.0
    return np.where(positive, t * np.log(np.where(positive, t, 1.0)), 0.0)


def entropy_scale(utility: SubConvexUtility) -> float:
    """``H(X)`` for NMI (``μ = I/H``), else 1."""
    return float(utility.h) if isinstance(utility, NormalizedMutualInformation) else 1.0


def core_mu(utility: SubConvexUtility, columns: FloatArray) -> FloatArray:
    """``μ`` of each column of ``columns`` (shape ``(|X|, m)``) in the utility's core units."""
    if isinstance(utility, MutualInformation):
        p = utility.p
        return (p @ xlogx(columns) - xlogx(p @ columns)) / entropy_scale(utility)
    return utility.mu(columns)
