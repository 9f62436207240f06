"""The slice LPs of column generation and exact pricing: ``max cᵀv`` over ``{v ∈ K, Σ v = 1}``.

:class:`SliceLP` keeps one HiGHS model of the lifted cone (:meth:`~privopt.compiler.cone.RowCone.lifted`)
whose objective changes between calls, so the simplex restarts from the previous basis;
:meth:`SliceLP.maximise_bounded` also bounds the LP's maximum from above by its duals, rigorously
(docs/compiler.md, "Piecewise-linear utilities"). :class:`ConeRepair` moves the
columns these LPs return into the cone (HiGHS meets rows to an absolute tolerance).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from privopt.compiler.cone import RowCone
from privopt.errors import InfeasibleError, SolverError
from privopt.solvers.lp import new_highs
from privopt.tolerances import DUAL_BOUND_RTOL, REPAIR_MARGIN, REPAIR_RTOL
from privopt.validation import FloatArray

#: ``scipy.optimize.linprog``'s status for an infeasible problem.
_LINPROG_INFEASIBLE = 2

#: Largest step towards the uniform column that :class:`ConeRepair` takes to bring a priced column
#: into the cone (a larger one is not rounding: the column is dropped); the margin added to it is
#: :data:`~privopt.tolerances.REPAIR_MARGIN`.
REPAIR_MAX_STEP = 1e-3


class SliceLP:
    """LPs over the lifted slice ``{v >= 0, lifted cone rows <= 0, νᵀv = 1}``: ``max cᵀv`` (``ν = weights
    > 0``, ones by default).

    One HiGHS model is built once; each call only changes the objective, so the simplex restarts
    from the previous basis (pricing solves thousands of these LPs).
    """

    def __init__(self, cone: RowCone, weights: FloatArray | None = None) -> None:
        import highspy

        lifted, total = cone.lifted()
        self.n, self.total = cone.n_inputs, total
        self.weights = np.ones(self.n) if weights is None else np.asarray(weights, dtype=np.float64)
        self.a_ub = lifted
        self.b_ub = np.zeros(lifted.shape[0])
        sum_row = sp.csr_matrix(np.concatenate([self.weights, np.zeros(total - self.n)])[None, :])
        matrix = sp.vstack([lifted, sum_row], format="csc")
        inf = highspy.kHighsInf
        model = highspy.HighsLp()
        model.num_col_ = total
        model.num_row_ = matrix.shape[0]
        model.col_cost_ = np.zeros(total)
        model.col_lower_ = np.concatenate([np.zeros(self.n), np.full(total - self.n, -inf)])
        model.col_upper_ = np.full(total, inf)
        model.row_lower_ = np.concatenate([np.full(lifted.shape[0], -inf), [1.0]])
        model.row_upper_ = np.concatenate([np.zeros(lifted.shape[0]), [1.0]])
        model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        model.a_matrix_.start_ = matrix.indptr
        model.a_matrix_.index_ = matrix.indices
        model.a_matrix_.value_ = matrix.data
        self.highs = new_highs()
        self.highs.passModel(model)
        self.indices = np.arange(self.n, dtype=np.int32)
        self.calls = 0
        self.upper_bounds = cone.lifted_upper_bounds(self.weights)
        # For maximise_bounded: the cone rows transposed (and their magnitudes), the costs' padding and ν
        # on the lifted variables, built once (thousands of bounded LPs per run).
        self._rows_t = lifted.T.tocsr()
        self._abs_rows_t = abs(self._rows_t)
        self._padding = np.zeros(total - self.n)
        self._lifted_weights = np.concatenate([self.weights, self._padding])

    def maximise_bounded(self, c: FloatArray, what: str = "pricing LP") -> tuple[FloatArray, float]:
        """The LP's maximiser (normalised, as :meth:`maximise`) and a rigorous upper bound on
        ``max cᵀv`` over the slice, from the LP's duals.

        For any ``y >= 0`` on the cone rows ``A v <= 0`` and any ``t`` on ``νᵀw = 1``, with the residual
        ``r = c − Aᵀy − t·ν_w`` (``ν`` on the ``w`` variables), every point of the slice has ``cᵀv = yᵀAv +
        t + rᵀv <= t + Σ_j max(r_j, 0) U_j``, where ``U`` bounds the variables
        (:meth:`~privopt.compiler.cone.RowCone.lifted_upper_bounds`; all are ``>= 0``). HiGHS's row
        duals, sign-corrected and clipped at 0, are such a ``y``; any error in them only loosens the
        bound. A rounding margin of :data:`~privopt.tolerances.DUAL_BOUND_RTOL` is added."""
        v = self.maximise(c, what)
        row_dual = -np.asarray(self.highs.getSolution().row_dual, dtype=np.float64)  # HiGHS minimises
        y = np.clip(row_dual[:-1], 0.0, None)
        t = float(row_dual[-1])
        cost = np.concatenate([np.asarray(c, dtype=np.float64), self._padding])
        residual = cost - self._rows_t @ y - t * self._lifted_weights
        bound = t + float(np.clip(residual, 0.0, None) @ self.upper_bounds)
        magnitude = abs(t) + float((np.abs(cost) + self._abs_rows_t @ y) @ self.upper_bounds)
        return v, bound + DUAL_BOUND_RTOL * magnitude

    def maximise(self, c: FloatArray, what: str = "pricing LP") -> FloatArray:
        import highspy

        self.highs.changeColsCost(self.n, self.indices, -np.asarray(c, dtype=np.float64))
        for attempt in range(2):  # a failed solve is retried once from scratch, then it is an error
            self.calls += 1
            self.highs.run()
            status = self.highs.getModelStatus()
            if status == highspy.HighsModelStatus.kOptimal:
                v = np.clip(np.asarray(self.highs.getSolution().col_value[: self.n]), 0.0, None)
                if v.sum() > 0.0:  # HiGHS can call a point optimal that misses νᵀv = 1 (badly scaled rows)
                    return v / v.sum()
                status = highspy.HighsModelStatus.kSolveError
            if status == highspy.HighsModelStatus.kInfeasible:
                raise InfeasibleError(f"the {what} is infeasible: the cone contains no non-zero column")
            if attempt == 0:
                self.highs.clearSolver()
        raise SolverError(f"the {what} failed twice (HiGHS status: {self.highs.modelStatusToString(status)})")

    def point_in_simplex(self, vertices: FloatArray, c: FloatArray) -> tuple[FloatArray | None, bool]:
        """The point of the slice in ``conv(rows of vertices)`` maximising ``cᵀv`` (LP in α), and whether
        they are proved not to meet (HiGHS reports the LP infeasible). Any other failure returns no point
        and ``False``: a piece the LP could not decide is kept (dropping it could invalidate the bound)."""
        k = vertices.shape[0]
        # Variables (α ∈ Δ_k, auxiliaries); v = Vᵀα.
        lifted_v = self.a_ub[:, : self.n] @ vertices.T
        a_ub = sp.hstack([sp.csr_matrix(lifted_v), self.a_ub[:, self.n :]], format="csr")
        a_eq = sp.csr_matrix(np.concatenate([np.ones(k), np.zeros(self.total - self.n)])[None, :])
        bounds = [(0.0, None)] * k + [(None, None)] * (self.total - self.n)
        self.calls += 1
        cost = np.concatenate([-(vertices @ c), np.zeros(self.total - self.n)])
        result = linprog(
            cost, A_ub=a_ub, b_ub=self.b_ub, A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs-ds"
        )
        if result.status != 0:
            return None, result.status == _LINPROG_INFEASIBLE
        alpha = np.clip(result.x[:k], 0.0, None)
        v = vertices.T @ (alpha / alpha.sum())
        return np.clip(v, 0.0, None) / max(v.sum(), 1e-300), False


class ConeRepair:
    """Columns the pricing LPs return, moved into the cone: HiGHS meets the rows to an absolute
    tolerance, which on cones with large factors is a large *relative* violation of small entries
    (``MetricLDP(0.3)`` on a 40-point line: 0.16 %, and the design failed its audit). A column ``w``
    with violated rows is moved towards the uniform column ``u`` (inside the cone, every row of ``Gu``
    negative where ``Gw`` is positive) just far enough that ``G((1 − t)w + tu) <= 0``, for
    ``t <= REPAIR_MAX_STEP``; a column that needs more, or whose violated rows ``u`` does not satisfy
    strictly, is dropped."""

    def __init__(self, cone: RowCone) -> None:
        self.matrix = cone.matrix()
        self.magnitudes = abs(self.matrix)
        self.uniform = np.full(cone.n_inputs, 1.0 / cone.n_inputs)
        self.at_uniform = self.matrix @ self.uniform

    def violated(self, columns: FloatArray) -> np.ndarray:
        """Per row and column, whether the row is violated beyond rounding. A row violated by rounding
        only is met (at ε = 0, a cone of equalities, the uniform column cannot repair such a column: it
        meets the rows with equality); a positive side against an exactly zero one is always violated
        (an infinite ratio to an exact audit)."""
        rows = self.matrix @ columns
        return np.asarray(rows > REPAIR_RTOL * (self.magnitudes @ columns))

    def __call__(self, columns: FloatArray) -> FloatArray:
        """The columns kept, in order, each moved into the cone (:meth:`kept`)."""
        kept = self.kept(columns)
        return np.column_stack([column for _, column in kept]) if kept else np.zeros((columns.shape[0], 0))

    def kept(self, columns: FloatArray) -> list[tuple[int, FloatArray]]:
        """``(index, column moved into the cone)`` for each column of ``columns`` that is kept."""
        columns = columns / columns.sum(axis=0, keepdims=True)
        rows = self.matrix @ columns
        flags = self.violated(columns)
        kept = []
        for j in range(columns.shape[1]):
            violated = flags[:, j]
            if not violated.any():
                kept.append((j, columns[:, j]))
                continue
            inside = self.at_uniform[violated]
            if np.any(inside >= 0.0):
                continue
            step = float(np.max(rows[violated, j] / (rows[violated, j] - inside))) * (1.0 + REPAIR_MARGIN)
            if step <= REPAIR_MAX_STEP:
                kept.append((j, (1.0 - step) * columns[:, j] + step * self.uniform))
        return kept


def into_cone(rows: sp.csr_matrix | FloatArray, matrix: FloatArray) -> FloatArray:
    """Each column of ``matrix`` moved into ``{w : rows @ w <= 0}``, keeping its mass: an interior-point
    solution meets the rows to an absolute tolerance, a large *relative* violation on an output of small
    mass. A column with violated rows is mixed with the uniform column ``u`` (strictly inside every row
    ``a − F b`` with ``F > 1``) just far enough, ``(1 − t) v + t u`` for ``v`` the column normalised
    (``t = 1``, the uniform column itself, where ``u`` is not strictly inside a violated row)."""
    n = matrix.shape[0]
    uniform = np.full(n, 1.0 / n)
    inside = rows @ uniform
    repaired = matrix.copy()
    for y in np.flatnonzero(matrix.sum(axis=0) > 0.0):
        mass = float(matrix[:, y].sum())
        v = matrix[:, y] / mass
        values = rows @ v
        violated = values > REPAIR_RTOL * (abs(rows) @ v)  # rounding is no violation
        if not violated.any():
            continue
        if np.any(inside[violated] >= 0.0):
            step = 1.0
        else:
            ratios = values[violated] / (values[violated] - inside[violated])
            step = min(1.0, float(ratios.max()) * (1.0 + REPAIR_MARGIN))
        repaired[:, y] = mass * ((1.0 - step) * v + step * uniform)
    return repaired
