"""The cvxpy route: a concave utility over the cone is one convex program.

For concave utilities (expected gain, minus expected distortion): maximise ``U(W)`` over channel
matrices with rows summing to 1 and every column in the cone ``G w <= 0`` (docs/design.md, "One
solve", item 4).
The solver's optimum is reported with ``lower = upper`` (to the solver's tolerance).
"""

from __future__ import annotations

import time

import numpy as np

from privopt.errors import InfeasibleError, LimitError, SolverError
from privopt.memory import require
from privopt.routes.base import ProblemData, RouteResult, SolveStats, Status
from privopt.solvers.errors import BackendError, BackendTimeout
from privopt.tolerances import SOLVER_COLUMN_RTOL
from privopt.utilities import ConcaveUtility

#: Bytes per constraint entry of the convex program (``nnz(G) · k`` cone entries and ``n · k`` row sums)
#: that cvxpy's canonicalisation and Clarabel hold at their peak: measured 400-550 on LDP cones with
#: ``ExpectedGain`` (n = k = 20, 40, 60; peak RSS of a fresh process minus its size before the solve).
CVXPY_BYTES_PER_ENTRY = 500


class CvxpyRoute:
    """One convex program over the whole channel (module docstring)."""

    name = "cvxpy"

    def accepts(self, data: ProblemData) -> tuple[bool, str]:
        if isinstance(data.utility, ConcaveUtility):
            return True, "the utility is concave: one convex program"
        return False, "the utility is sub-convex: maximising a convex utility is not a convex program"

    def solve(self, data: ProblemData, deadline: float | None) -> RouteResult:
        import cvxpy as cp

        from privopt.solvers.conic import solve

        utility = data.concave()
        n, k = data.n_inputs, utility.n_outputs
        G = data.cone.matrix()
        require(
            CVXPY_BYTES_PER_ENTRY * (G.nnz + n) * k,
            f"the convex program over {n} × {k} mechanisms ({G.shape[0]:,} cone rows for each of {k} outputs)",
            "fewer outputs (n_outputs=), a coarser alphabet",
        )
        W = cp.Variable((n, k), nonneg=True)
        constraints = [cp.sum(W, axis=1) == 1]
        if data.cone.n_rows:
            constraints.append(G @ W <= 0)
        problem = cp.Problem(cp.Maximize(utility.expression(W)), constraints)
        start = time.perf_counter()
        try:
            solver = solve(problem, description=f"{utility!r} over {data.definition}", deadline=deadline)
        except BackendTimeout as exc:
            raise LimitError(f"{exc}. Remedies: a larger timeout=, or fewer outputs") from exc
        except BackendError as exc:
            if problem.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
                raise InfeasibleError(
                    f"{data.definition}: no mechanism with {k} outputs satisfies it"
                ) from exc
            raise SolverError(str(exc)) from exc
        seconds = {"solve": time.perf_counter() - start}
        matrix = np.clip(np.asarray(W.value), 0.0, None)
        unused = matrix.sum(axis=0) <= SOLVER_COLUMN_RTOL * n
        if not np.all(unused):  # outputs the optimum does not use carry only the solver's noise
            matrix[:, unused] = 0.0
        matrix = matrix / matrix.sum(axis=1, keepdims=True)
        value = float(problem.value)
        return RouteResult(
            matrix,
            Status.OPTIMAL,
            value,
            value,
            f"one convex program ({solver})",
            f"the solver's optimum ({solver})",
            SolveStats(seconds=seconds, solver=solver),
        )
