"""Closed forms: mechanisms a theorem gives directly, tried first by ``route="auto"``.

A closed form is a function ``(problem) -> (mechanism, explanation) | None``; the mechanism is audited
like any other. Built in: the binary PML mechanism over an ℓ1 ball (PML paper Theorem 5).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privopt.data.mechanism import Mechanism
from privopt.definitions.pml import PML
from privopt.mechanisms.pml_binary import _eq41
from privopt.sets.l1 import L1Ball
from privopt.utilities import SubConvexUtility


def theorem5_closed_form(problem: Any) -> tuple[Mechanism, str] | None:
    """The closed-form route for ``Problem(PML(ε, L1Ball(P̂, β)), utility)`` on binary X.

    Applies to sub-convex utilities when Theorem 5's conditions hold (after ordering the two symbols
    so that ``x1`` is the more likely); returns ``None`` otherwise, so the vertex route runs.
    """
    definition = problem.definition
    if not isinstance(definition, PML) or problem.n_inputs != 2:
        return None
    ball = definition.uncertainty
    if not isinstance(ball, L1Ball) or not isinstance(problem.utility, SubConvexUtility):
        return None
    p = ball.center.p_x
    first = int(np.argmax(p))
    p1, beta, eps = float(p[first]), ball.radius, definition.eps
    if not (beta < 2.0 * (1.0 - p1) and p1 < 1.0 and eps <= -np.log(p1 - beta / 2.0)):
        return None
    matrix = _eq41(p1, beta, eps)
    if first == 1:  # the more likely symbol is the second input: reorder rows and outputs alike
        matrix = matrix[::-1, ::-1]
    mechanism = Mechanism(
        np.ascontiguousarray(matrix), definition.input_labels(), None, name="PML-binary (Theorem 5)"
    )
    return mechanism, "PML paper Theorem 5 (binary X, ℓ1 ball, ε <= −log(p1 − β/2))"
