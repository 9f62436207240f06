"""Conic programs through cvxpy, with a solver fallback chain and strict status checks."""

from __future__ import annotations

import time
import warnings

import cvxpy as cp

from .errors import BackendError, BackendTimeout
from .lp import new_highs

#: Tried in this order; a solver that is not installed or fails is skipped.
DEFAULT_SOLVERS: tuple[str, ...] = ("CLARABEL", "ECOS", "SCS")

#: Tried first on a linear program: a simplex solution is a vertex, with exact zeros where an
#: interior-point method leaves ~1e-9 of noise that an exact audit reads as a ratio of noise.
LP_SOLVERS: tuple[str, ...] = ("HIGHS",)

_OPTIONS = {
    "CLARABEL": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10},
    "ECOS": {"abstol": 1e-10, "reltol": 1e-10, "feastol": 1e-10},
    "SCS": {"eps": 1e-9, "max_iters": 200_000},
    # HiGHS drops matrix entries below 1e-9 by default; near-zero priors put 1e-12 in the cone rows
    "HIGHS": {"small_matrix_value": 1e-12},
}


#: The time-limit option of each solver (ECOS has none: it stops at its iteration limit).
_TIME_LIMIT = {"CLARABEL": "time_limit", "SCS": "time_limit_secs", "HIGHS": "time_limit"}


def solve(
    problem: cp.Problem,
    solvers: tuple[str, ...] = DEFAULT_SOLVERS,
    description: str = "conic program",
    deadline: float | None = None,
    verbose: bool = False,
) -> str:
    """Solve ``problem`` in place with the first solver that reaches status ``optimal``.

    Returns the solver's name. ``optimal_inaccurate`` counts as a failure: the caller gets a result
    it can trust or a :class:`BackendError` listing what each solver said. ``deadline`` (a
    :func:`time.perf_counter` value) bounds each solver that has a time limit, and no solver starts after
    it (:class:`BackendTimeout`). ``verbose`` shows each solver's own log (cvxpy's ``verbose=True``).
    """
    installed = set(cp.installed_solvers())
    failures = []
    for name in solvers:
        if name not in installed:
            failures.append(f"{name}: not installed")
            continue
        options = dict(_OPTIONS.get(name, {}))
        if deadline is not None:
            left = deadline - time.perf_counter()
            if left <= 0.0:
                raise BackendTimeout(
                    f"{description} did not finish before its deadline — " + "; ".join(failures)
                )
            if name in _TIME_LIMIT:
                options[_TIME_LIMIT[name]] = left
        if name == "HIGHS":
            new_highs()  # HiGHS prints its banner on stdout at a process's first model: made silently here
        try:
            with warnings.catch_warnings():  # statuses are checked below; cvxpy's warnings are noise here
                warnings.simplefilter("ignore")
                problem.solve(solver=name, verbose=verbose, **options)
        except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
            failures.append(f"{name}: {exc}")
            continue
        if problem.status == cp.OPTIMAL:
            return name
        failures.append(f"{name}: status {problem.status}")
    raise BackendError(f"{description} not solved to optimality — " + "; ".join(failures))
