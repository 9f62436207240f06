"""Conic programs through cvxpy, with a solver fallback chain and strict status checks."""

from __future__ import annotations

import warnings

import cvxpy as cp

from .errors import BackendError

#: Tried in this order; a solver that is not installed or fails is skipped.
DEFAULT_SOLVERS: tuple[str, ...] = ("CLARABEL", "ECOS", "SCS")

_OPTIONS = {
    "CLARABEL": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10},
    "ECOS": {"abstol": 1e-10, "reltol": 1e-10, "feastol": 1e-10},
    "SCS": {"eps": 1e-9, "max_iters": 200_000},
}


def solve(
    problem: cp.Problem, solvers: tuple[str, ...] = DEFAULT_SOLVERS, description: str = "conic program"
) -> str:
    """Solve ``problem`` in place with the first solver that reaches status ``optimal``.

    Returns the solver's name. ``optimal_inaccurate`` counts as a failure: the caller gets a result
    it can trust or a :class:`BackendError` listing what each solver said.
    """
    installed = set(cp.installed_solvers())
    failures = []
    for name in solvers:
        if name not in installed:
            failures.append(f"{name}: not installed")
            continue
        try:
            with warnings.catch_warnings():  # statuses are checked below; cvxpy's warnings are noise here
                warnings.simplefilter("ignore")
                problem.solve(solver=name, **_OPTIONS.get(name, {}))
        except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
            failures.append(f"{name}: {exc}")
            continue
        if problem.status == cp.OPTIMAL:
            return name
        failures.append(f"{name}: status {problem.status}")
    raise BackendError(f"{description} not solved to optimality — " + "; ".join(failures))
