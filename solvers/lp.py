"""Linear programs through HiGHS (scipy's interface), with status checks and dual values."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from .errors import BackendError

_STATUS = {0: "optimal", 1: "iteration limit", 2: "infeasible", 3: "unbounded", 4: "numerical difficulties"}


@dataclass(frozen=True)
class LPResult:
    """Solution of ``max cᵀx`` (or min) with primal ``x``, objective and duals.

    ``eq_duals`` are the marginals of the equality constraints for the *maximisation* (the change of
    the optimum per unit increase of ``b_eq``); ``reduced_costs`` those of the lower bounds.
    """

    x: np.ndarray
    objective: float
    eq_duals: np.ndarray
    ub_duals: np.ndarray
    reduced_costs: np.ndarray
    method: str
    status: str


def solve_lp(
    c,  # type: ignore[no-untyped-def]
    *,
    a_ub=None,
    b_ub=None,
    a_eq=None,
    b_eq=None,
    bounds=(0.0, None),
    maximize: bool = True,
    methods: tuple[str, ...] = ("highs-ds", "highs-ipm"),
) -> LPResult:
    """Solve an LP with HiGHS; a non-optimal status is retried with the next method, then raised.

    The dual simplex (``"highs-ds"``) comes first because it returns a *basic* solution, which the
    vertex route relies on (at most as many non-zeros as equality constraints).
    """
    sign = -1.0 if maximize else 1.0
    cost = sign * np.asarray(c, dtype=np.float64)
    failures = []
    for method in methods:
        result = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method=method)
        if result.status == 0:
            eq = getattr(result, "eqlin", None)
            ub = getattr(result, "ineqlin", None)
            lower = getattr(result, "lower", None)
            return LPResult(
                x=np.asarray(result.x),
                objective=float(sign * result.fun),
                eq_duals=sign * np.asarray(eq.marginals) if eq is not None else np.zeros(0),
                ub_duals=sign * np.asarray(ub.marginals) if ub is not None else np.zeros(0),
                reduced_costs=sign * np.asarray(lower.marginals) if lower is not None else np.zeros(0),
                method=method,
                status="optimal",
            )
        failures.append(f"{method}: {_STATUS.get(result.status, result.status)} ({result.message})")
        if result.status in (2, 3):  # infeasible or unbounded: another method will not change that
            break
    raise BackendError("LP not solved to optimality — " + "; ".join(failures))
