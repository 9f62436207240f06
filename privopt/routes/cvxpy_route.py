"""The cvxpy route: a concave utility over the cone is one convex program.

For concave utilities (expected gain, minus expected distortion): maximise ``U(W)`` over channel
matrices with rows summing to 1 and every column in the cone ``G w <= 0`` (docs/design.md, "One
solve", item 4).
The solver's optimum is reported with ``lower = upper`` (to the solver's tolerance).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from scipy import sparse

from privopt.certificates import LinearBound
from privopt.errors import InfeasibleError, LimitError, SolverError, ValidationError
from privopt.memory import require
from privopt.routes.base import ProblemData, RouteResult, SolveStats, Status, clean_channel
from privopt.solvers.errors import BackendError, BackendTimeout
from privopt.utilities import ConcaveUtility
from privopt.validation import FloatArray

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

        from privopt.solvers.conic import DEFAULT_SOLVERS, LP_SOLVERS, solve

        requested = data.options.solver
        if requested is not None and requested not in cp.installed_solvers():
            raise ValidationError(
                "solver",
                f"a cvxpy solver installed here ({', '.join(map(repr, sorted(cp.installed_solvers())))}) "
                "on the cvxpy route",
                repr(requested),
            )
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
        if requested is not None:
            solvers: tuple[str, ...] = (requested,)
        else:  # a linear utility: a simplex solver first (solvers.conic.LP_SOLVERS)
            solvers = (*LP_SOLVERS, *DEFAULT_SOLVERS) if problem.is_lp() else DEFAULT_SOLVERS
        start = time.perf_counter()
        try:
            solver = solve(
                problem,
                solvers,
                description=f"{utility!r} over {data.definition}",
                deadline=deadline,
                verbose=data.options.verbose,
            )
        except BackendTimeout as exc:
            raise LimitError(f"{exc}. Remedies: a larger timeout=, or fewer outputs") from exc
        except BackendError as exc:
            if problem.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
                raise InfeasibleError(
                    f"{data.definition}: no mechanism with {k} outputs satisfies it"
                ) from exc
            raise SolverError(str(exc)) from exc
        seconds = {"solve": time.perf_counter() - start}
        matrix = clean_channel(np.asarray(W.value))
        value = utility.value(matrix)
        bound = self._dual_bound(data, utility, matrix, constraints, solver)
        return RouteResult(
            matrix,
            Status.OPTIMAL,
            value,
            bound.upper,
            f"one convex program ({solver})",
            f"the solver's Lagrange multipliers of the cone rows ({solver})",
            SolveStats(seconds=seconds, solver=solver),
            (bound,),
        )

    @staticmethod
    def _dual_bound(
        data: ProblemData, utility: ConcaveUtility, matrix: FloatArray, constraints: list[Any], solver: str
    ) -> LinearBound:
        """``OPT <= U(W*) − ⟨G, W*⟩ + Σ_x max_y (G − Rᵀβ)_{x,y}`` from the solver's multipliers ``β >= 0`` of
        the cone rows ``R`` and the utility's gradient ``G`` at the design (concavity and weak duality:
        :mod:`privopt.certificates.linear`, which the checker re-derives)."""
        import cvxpy as cp

        k = matrix.shape[1]
        rows = data.cone.matrix()
        beta = (
            np.clip(
                np.asarray(constraints[1].dual_value, dtype=np.float64).reshape(rows.shape[0], k), 0.0, None
            )
            if data.cone.n_rows
            else np.zeros((0, k))
        )
        W = cp.Variable(matrix.shape)
        W.value = matrix
        expression = utility.expression(W)
        gradient = expression.grad.get(W)
        if gradient is None:  # not differentiable at the design: the multipliers alone prove nothing
            return LinearBound(beta, np.inf, f"{solver} (no gradient at the design)")
        # cvxpy gives a sparse matrix, or a plain number for a 1 × 1 channel
        dense = gradient.toarray() if sparse.issparse(gradient) else gradient
        G = np.asarray(dense, dtype=np.float64).reshape(matrix.shape, order="F")
        reduced = G - np.asarray(rows.T @ beta) if data.cone.n_rows else G
        upper = float(expression.value) - float(np.sum(G * matrix)) + float(reduced.max(axis=1).sum())
        return LinearBound(beta, upper, solver)
