"""``μ`` as the checker evaluates it: its own formula for mutual information, the utility's otherwise.

Mutual information (Entropy paper eq. 45) is recomputed here, ``μ(w) = Σ_x p_x w_x log w_x − q log q``
with ``q = pᵀw`` and ``0 log 0 = 0``, so that the checker does not share the solver's evaluation of the
utility it certifies; NMI divides it by ``H(X)``. Any other sub-convex utility is the problem's own
statement, evaluated by its ``mu``.
"""

from __future__ import annotations

import numpy as np

from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray


def xlogx(t: FloatArray) -> FloatArray:
    """``t log t`` elementwise, with ``0 log 0 = 0``."""
    t = np.asarray(t, dtype=np.float64)
    positive = t > 0.0
    return np.where(positive, t * np.log(np.where(positive, t, 1.0)), 0.0)


def entropy_prior(utility: SubConvexUtility) -> FloatArray | None:
    """``p`` of ``μ(w) = Σ_x p_x w_x log(w_x / pᵀw)`` (times a scale) when the utility declares that
    entropy form (mutual information, NMI: :meth:`~privopt.utilities.SubConvexUtility.entropy_form`),
    else ``None``."""
    form = utility.entropy_form()
    return None if form is None else np.asarray(form.p, dtype=np.float64)


def entropy_scale(utility: SubConvexUtility) -> float:
    """``H(X)`` for NMI (``μ = I/H``), else 1: the reciprocal of the entropy form's scale."""
    form = utility.entropy_form()
    return 1.0 if form is None else 1.0 / form.scale


def core_mu(utility: SubConvexUtility, columns: FloatArray) -> FloatArray:
    """``μ`` of each column of ``columns`` (shape ``(|X|, m)``) in the utility's core units, computed
    here from the entropy form where there is one."""
    p = entropy_prior(utility)
    if p is not None:
        return (p @ xlogx(columns) - xlogx(p @ columns)) / entropy_scale(utility)
    return utility.mu(columns)
