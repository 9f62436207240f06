"""Linear programs through HiGHS (scipy's interface), with status checks and dual values."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linprog

from .errors import BackendError, BackendInputError

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
    cost = sign * _checked_inputs(c, (a_ub, b_ub, "a_ub", "b_ub"), (a_eq, b_eq, "a_eq", "b_eq"))
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


def _checked_inputs(c: Any, *systems: tuple[Any, Any, str, str]) -> np.ndarray:
    """``c`` as a float vector, after checking that it is a non-empty finite vector and that every
    ``(matrix, rhs)`` system has one column per entry of ``c`` and one right-hand side per row
    (:class:`BackendInputError` naming the shapes otherwise)."""
    cost = np.asarray(c, dtype=np.float64)
    if cost.ndim != 1 or cost.size == 0:
        raise BackendInputError(f"LP input: the cost must be a non-empty vector, got shape {cost.shape}")
    if not np.all(np.isfinite(cost)):
        raise BackendInputError(
            f"LP input: the cost has {int(np.sum(~np.isfinite(cost)))} non-finite entries"
        )
    for matrix, rhs, matrix_name, rhs_name in systems:
        if matrix is None:
            continue
        shape = tuple(getattr(matrix, "shape", np.shape(matrix)))
        if len(shape) != 2 or shape[1] != cost.size or np.shape(rhs) != (shape[0],):
            raise BackendInputError(
                f"LP input: expected {matrix_name} of shape (m, {cost.size}) and {rhs_name} of shape (m,) "
                f"for a cost of shape {cost.shape}, got {shape} and {np.shape(rhs)}"
            )
    return cost


def solve_equality_lp(
    c: np.ndarray, a_eq: np.ndarray, b_eq: np.ndarray, *, verbose: bool = False
) -> LPResult:
    """``max cᵀx s.t. a_eq x = b_eq, x >= 0`` straight through ``highspy``, without presolve
    (``verbose``: with HiGHS's log on standard output).

    For small dense LPs (the vertex LP: ``|X|`` rows, thousands of columns) scipy's ``linprog`` and
    HiGHS's presolve cost more than the simplex itself (3×3 PolyOpt, 1,451 columns: 4.1 ms against
    9.7 ms). The dual simplex returns a basic solution. Anything but optimality is retried by
    :func:`solve_lp`, whose error names the status.
    """
    import highspy
    import scipy.sparse as sp

    cost = _checked_inputs(c, (a_eq, b_eq, "a_eq", "b_eq"))
    matrix = sp.csc_matrix(np.asarray(a_eq, dtype=np.float64))
    rhs = np.asarray(b_eq, dtype=np.float64)
    model = highs_lp(-cost, matrix, (rhs, rhs))  # HiGHS minimises
    highs = new_highs()
    highs.setOptionValue("output_flag", verbose)
    highs.setOptionValue("presolve", "off")
    highs.setOptionValue("simplex_strategy", 1)  # dual simplex: a basic solution
    highs.passModel(model)
    highs.run()
    if highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return solve_lp(cost, a_eq=a_eq, b_eq=b_eq, bounds=(0.0, None))
    solution = highs.getSolution()
    x = np.asarray(solution.col_value)
    return LPResult(
        x=x,
        objective=float(cost @ x),
        eq_duals=-np.asarray(solution.row_dual),
        ub_duals=np.zeros(0),
        reduced_costs=-np.asarray(solution.col_dual),
        method="highs-ds",
        status="optimal",
    )


def highs_lp(
    cost: np.ndarray,
    matrix: Any,
    row_bounds: tuple[np.ndarray, np.ndarray],
    col_bounds: tuple[np.ndarray, np.ndarray] | None = None,
    *,
    maximize: bool = False,
    integer: np.ndarray | None = None,
) -> Any:
    """A ``highspy.HighsLp`` for ``max``/``min cᵀx s.t. row_lower <= A x <= row_upper, col_lower <= x <=
    col_upper`` (``col_bounds`` ``None``: ``x >= 0``), its matrix passed column-wise from a scipy sparse
    ``matrix``; ``±highspy.kHighsInf`` marks a free side. ``integer`` (a boolean per column) makes it a
    MIP."""
    import highspy
    import scipy.sparse as sp

    columns = sp.csc_matrix(matrix)
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = columns.shape[1], columns.shape[0]
    model.col_cost_ = np.asarray(cost, dtype=np.float64)
    if col_bounds is None:
        col_bounds = (np.zeros(columns.shape[1]), np.full(columns.shape[1], highspy.kHighsInf))
    model.col_lower_, model.col_upper_ = col_bounds
    model.row_lower_, model.row_upper_ = row_bounds
    if maximize:
        model.sense_ = highspy.ObjSense.kMaximize
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = columns.indptr
    model.a_matrix_.index_ = columns.indices
    model.a_matrix_.value_ = columns.data
    if integer is not None:
        kinds = (highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger)
        model.integrality_ = [kinds[int(flag)] for flag in integer]
    return model


def new_highs() -> Any:
    """A silent ``highspy.Highs`` model.

    HiGHS 1.16 prints its banner on standard output when the first model of a process is made, before
    any option can be set; that would corrupt ``privopt ... --json``. The first construction therefore
    runs with file descriptor 1 pointed at ``/dev/null``.
    """
    import highspy

    global _BANNER_SHOWN
    if _BANNER_SHOWN:
        highs = highspy.Highs()
    else:
        sys.stdout.flush()
        saved = os.dup(1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 1)
            highs = highspy.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            os.close(devnull)
        _BANNER_SHOWN = True
    highs.setOptionValue("output_flag", False)
    # HiGHS refuses a model with an entry above 1e15 (passModel fails and the model stays empty), but a
    # cone's factors e^{ε·d} reach that from ε·d = 34.5 (metric LDP, large ε): take every finite entry.
    highs.setOptionValue("large_matrix_value", highspy.kHighsInf)
    return highs


def limit_run(highs: Any, seconds: float) -> None:
    """Let the next ``highs.run()`` take at most ``seconds`` more.

    HiGHS compares its ``time_limit`` option with the model's run clock, which adds up over every
    ``run()`` of the same ``Highs`` object: a model reused for many LPs and given the time left each
    time would stop once its LPs *together* took that long (a checker given 53 s stopped at 27 s). The
    limit is therefore the clock so far plus ``seconds``."""
    highs.setOptionValue("time_limit", float(highs.getRunTime()) + max(float(seconds), 1e-3))


def mip_bound_holds(highs: Any) -> bool:
    """Whether the last ``highs.run()`` of a MIP left a valid dual bound: it ended optimal, or was stopped
    by its clock or an interrupt (a failed solve proves nothing)."""
    import highspy

    return highs.getModelStatus() in (
        highspy.HighsModelStatus.kOptimal,
        highspy.HighsModelStatus.kTimeLimit,
        highspy.HighsModelStatus.kInterrupt,
    )


#: Whether this process has made its first HiGHS model (and swallowed the banner).
_BANNER_SHOWN = False


class ObjectiveLP:
    """One LP ``{x : a_ub x <= b_ub, a_eq x = b_eq, lower <= x <= upper}`` solved for many objectives.

    The HiGHS model is built once; :meth:`maximise` only changes the costs, so each solve restarts from
    the previous optimal basis (validating a vertex set takes ``3·dim`` such LPs).
    """

    def __init__(
        self,
        a_ub: np.ndarray,
        b_ub: np.ndarray,
        a_eq: np.ndarray | None = None,
        b_eq: np.ndarray | None = None,
        lower: float | None = None,
        upper: float | None = None,
    ) -> None:
        import highspy
        import scipy.sparse as sp

        n = a_ub.shape[1]
        blocks = [sp.csr_matrix(a_ub)]
        row_lower = [np.full(a_ub.shape[0], -highspy.kHighsInf)]
        row_upper = [np.asarray(b_ub, dtype=np.float64)]
        if a_eq is not None and a_eq.size:
            blocks.append(sp.csr_matrix(a_eq))
            row_lower.append(np.asarray(b_eq, dtype=np.float64))
            row_upper.append(np.asarray(b_eq, dtype=np.float64))
        matrix = sp.vstack(blocks, format="csc")
        model = highspy.HighsLp()
        model.num_col_ = n
        model.num_row_ = matrix.shape[0]
        model.col_cost_ = np.zeros(n)
        model.col_lower_ = np.full(n, -highspy.kHighsInf if lower is None else lower)
        model.col_upper_ = np.full(n, highspy.kHighsInf if upper is None else upper)
        model.row_lower_ = np.concatenate(row_lower)
        model.row_upper_ = np.concatenate(row_upper)
        model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        model.a_matrix_.start_ = matrix.indptr
        model.a_matrix_.index_ = matrix.indices
        model.a_matrix_.value_ = matrix.data
        self._highs = new_highs()
        self._highs.passModel(model)
        self._indices = np.arange(n, dtype=np.int32)
        self._optimal = highspy.HighsModelStatus.kOptimal

    def maximise(self, c: np.ndarray) -> float:
        """``max cᵀx`` over the polytope (a :class:`BackendError` if HiGHS does not reach optimality)."""
        self._highs.changeColsCost(len(self._indices), self._indices, -np.asarray(c, dtype=np.float64))
        self._highs.run()
        if self._highs.getModelStatus() != self._optimal:
            raise BackendError(
                f"LP not solved to optimality — {self._highs.modelStatusToString(self._highs.getModelStatus())}"
            )
        return float(-self._highs.getInfo().objective_function_value)
