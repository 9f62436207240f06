"""The closed-form route: mechanisms a theorem gives directly, tried first by ``route="auto"``.

A closed form is a function ``(data) -> (matrix, explanation) | None`` of the compiled problem
(:class:`~privopt.routes.base.ProblemData`), registered with :func:`register_closed_form` from its own
module (the binary PML mechanism of the PML paper's Theorem 5: :mod:`privopt.routes.binary_pml_closed_form`). Its
mechanism is audited like any other and reported optimal: the theorem is the certificate.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from privopt.certificates import SliceBound
from privopt.routes.base import ProblemData, RouteResult, SolveStats, Status
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

ClosedForm = Callable[[ProblemData], "tuple[FloatArray, str] | None"]

#: Registered closed forms, tried in order.
CLOSED_FORMS: list[ClosedForm] = []


def register_closed_form(function: ClosedForm) -> ClosedForm:
    """Register a closed form (usable as a decorator). It must return the *optimal* mechanism's matrix
    (rows in the order of ``data.input_labels``) and the theorem that says so, or ``None``."""
    if function not in CLOSED_FORMS:
        CLOSED_FORMS.append(function)
    return function


class ClosedFormRoute:
    """The first registered closed form that applies (module docstring)."""

    name = "closed_form"

    def _find(self, data: ProblemData) -> tuple[FloatArray, str] | None:
        for function in CLOSED_FORMS:
            found = function(data)
            if found is not None:
                return found
        return None

    def accepts(self, data: ProblemData) -> tuple[bool, str]:
        found = self._find(data)
        if found is None:
            return False, "no registered closed form applies"
        return True, found[1]

    def solve(self, data: ProblemData, deadline: float | None) -> RouteResult:
        found = self._find(data)
        if found is None:
            raise ValueError("ClosedFormRoute.solve called on a problem it does not accept")
        matrix, theorem = found
        value = data.utility.value(matrix)
        bound = _complementary_bound(data, matrix)
        upper = value if bound is None else data.sub_convex().from_core(bound.upper)
        return RouteResult(
            matrix,
            Status.OPTIMAL,
            value,
            upper,
            theorem,
            theorem,
            SolveStats(),
            () if bound is None else (bound,),
        )


def _complementary_bound(data: ProblemData, matrix: FloatArray) -> SliceBound | None:
    """The theorem's optimality as a checkable claim: ``λ`` with ``λᵀv = μ(v)`` at the mechanism's
    normalised columns ``v`` (complementary slackness; least squares when they are not a basis), and
    ``δ̄`` the largest residual ``μ(v) − λᵀv`` there. If the mechanism is optimal, ``λ`` is dual feasible
    for the vertex LP over the whole cone, which the checker verifies (Entropy paper Thm. 3's LP)."""
    utility = data.utility
    if not isinstance(utility, SubConvexUtility):
        return None
    used = matrix[:, matrix.sum(axis=0) > 0.0]
    columns = used / used.sum(axis=0)
    mu = utility.mu(columns)
    duals, *_ = np.linalg.lstsq(columns.T, mu, rcond=None)
    residual = float(np.max(mu - columns.T @ duals))
    return SliceBound.build(
        duals, max(0.0, residual), "sum", np.ones(data.n_inputs), "complementary slackness"
    )
