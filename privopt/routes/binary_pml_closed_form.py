"""The closed form of the PML paper's Theorem 5: the optimal binary mechanism over an ℓ1 ball.

Registered with :func:`~privopt.routes.closed_form.register_closed_form`; the mechanism itself is
:func:`privopt.mechanisms.binary_pml_mechanism` (eq. 41).
"""

from __future__ import annotations

import numpy as np

from privopt.mechanisms.pml_binary import eq41_matrix
from privopt.routes.base import ProblemData
from privopt.routes.closed_form import register_closed_form
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray


@register_closed_form
def theorem5_closed_form(data: ProblemData) -> tuple[FloatArray, str] | None:
    """The closed-form route for ``Problem(PML(ε, L1Ball(P̂, β)), utility)`` on binary X.

    Applies to sub-convex utilities when Theorem 5's conditions hold (after ordering the two symbols
    so that ``x1`` is the more likely); returns ``None`` otherwise, so the vertex route runs.
    """
    declared = data.definition.pml_ball()
    if declared is None or data.n_inputs != 2 or not isinstance(data.utility, SubConvexUtility):
        return None
    eps, p, beta = declared
    first = int(np.argmax(p))
    p1 = float(p[first])
    if not (beta < 2.0 * (1.0 - p1) and p1 < 1.0 and eps <= -np.log(p1 - beta / 2.0)):
        return None
    matrix = eq41_matrix(p1, beta, eps)
    if first == 1:  # the more likely symbol is the second input: reorder rows and outputs alike
        matrix = matrix[::-1, ::-1]
    return np.ascontiguousarray(matrix), "PML paper Theorem 5 (binary X, ℓ1 ball, ε <= −log(p1 − β/2))"
