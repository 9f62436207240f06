"""The checker's proof of ``max (μ(w) − λᵀw)/νᵀw`` over a cone when ``μ`` is piecewise linear.

With ``μ(w) = max_k a_kᵀw``, the maximum over the slice ``{w >= 0, G w <= 0, νᵀw = 1}`` is the largest
of one LP per piece, ``max (a_k − λ)ᵀw``. The checker reads the pieces itself — total variation's
``±½(P0 − P1)`` from the utility's two distributions; a utility that declares its pieces
(:meth:`~privopt.utilities.SubConvexUtility.linear_pieces`) has them tested against ``μ`` at the unit
columns and at random columns first — and solves each LP over the cone's *projected* rows
(:meth:`~privopt.compiler.cone.RowCone.matrix`, not the route's lifted model) with its own HiGHS model
(:class:`SliceMaximiser`).
It then proves the value by weak duality, whatever the LP solver's accuracy: for the LP's row
multipliers ``y >= 0`` (clipped) and ``t`` (on ``νᵀw = 1``), the residual ``r = a_k − λ − Gᵀy − tν``
gives ``(a_k − λ)ᵀw = yᵀGw + t + rᵀw <= t + Σ_x max(r_x, 0)/ν_x`` at every point of the slice
(``w_x <= 1/ν_x`` there, so ``ν > 0`` is required).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from privopt.certificates.objective import core_mu
from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.compiler.cone import RowCone
from privopt.solvers.lp import limit_run
from privopt.tolerances import (
    CHECK_LP_FALLBACK_FEASIBILITY_TOL,
    CHECK_LP_FEASIBILITY_TOL,
    CHECK_PIECES_RTOL,
    CHECK_ROUNDING_RTOL,
)
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: Random columns at which declared pieces are compared with ``μ``.
SPOT_CHECKS = 64


@dataclass(frozen=True)
class PiecewiseMaximum:
    """The largest ratio at an LP's maximiser (``value``), the amount by which the duals' bound exceeds
    it plus rounding (``margin``), that maximiser (``column``) and the number of LPs (``points``)."""

    value: float
    margin: float
    column: FloatArray
    points: int
    seconds: float


def pieces(utility: SubConvexUtility, n: int) -> FloatArray | NotProved:
    """The rows ``a_k`` of ``μ(w) = max_k a_kᵀw`` as the checker reads them, or why it has none."""
    form = utility.perspective_form()
    if form is not None and form.kind == "tv":  # the checker's own pieces of ½|P0ᵀw − P1ᵀw|
        half = 0.5 * (np.asarray(form.a, dtype=np.float64) - np.asarray(form.b, dtype=np.float64))
        return np.vstack([half, -half])
    declared = utility.linear_pieces()
    if declared is None:
        return NotProved(NotProvedReason.UTILITY, "the utility is not piecewise linear")
    found = np.asarray(declared, dtype=np.float64)
    if found.ndim != 2 or found.shape[1] != n or not np.all(np.isfinite(found)):
        return NotProved(
            NotProvedReason.UTILITY, f"its declared pieces are not a finite matrix with {n} columns"
        )
    rng = np.random.default_rng(0)
    columns = np.hstack([np.eye(n), rng.dirichlet(np.full(n, 0.5), size=SPOT_CHECKS).T])
    expected = core_mu(utility, columns)
    declared_values = (found @ columns).max(axis=0)
    if np.any(np.abs(expected - declared_values) > CHECK_PIECES_RTOL * (1.0 + np.abs(expected))):
        return NotProved(NotProvedReason.UTILITY, "its declared pieces disagree with μ")
    return found


class SliceMaximiser:
    """``max {cᵀw : w >= 0, G w <= 0, νᵀw = 1}`` for a sequence of objectives ``c`` over one slice.

    The checker's own HiGHS model of the projected rows is built once and each objective only changes
    its costs, so the primal simplex starts from the previous optimal basis: the f-divergence hull's
    objectives ``−λ − θ·P0`` differ only in ``θ`` (Adult marital-status × education, 10,752 rows: 0.03 s
    per LP against 0.36 s solved cold). Every value is proved by the LP's duals (module docstring), so
    the warm start, like any inaccuracy of the solver, can only loosen a bound.
    """

    def __init__(self, G: sp.csr_matrix, nu: FloatArray) -> None:
        import highspy

        self.G, self.nu = sp.csr_matrix(G), np.asarray(nu, dtype=np.float64)
        m, n = self.G.shape
        self.highs = highspy.Highs()
        self.highs.setOptionValue("output_flag", False)
        self.highs.setOptionValue("simplex_strategy", 4)  # primal: a new objective keeps the basis feasible
        for option in ("dual_feasibility_tolerance", "primal_feasibility_tolerance"):
            self.highs.setOptionValue(option, CHECK_LP_FEASIBILITY_TOL)
        inf = highspy.kHighsInf
        self.highs.addCols(n, np.zeros(n), np.zeros(n), np.full(n, inf), 0, [], [], [])
        rows = sp.vstack([self.G, sp.csr_matrix(self.nu[None, :])], format="csr")
        lower = np.append(np.full(m, -inf), 1.0)
        upper = np.append(np.zeros(m), 1.0)
        self.highs.addRows(m + 1, lower, upper, rows.nnz, rows.indptr[:-1], rows.indices, rows.data)
        self.columns = np.arange(n, dtype=np.int32)
        self.G_t, self.magnitudes_t = self.G.T.tocsr(), abs(self.G).T.tocsr()  # read by every proof

    def maximum(self, c: FloatArray, seconds: float = np.inf) -> tuple[FloatArray, float, float] | NotProved:
        """The maximiser (on ``νᵀw = 1``), its value and the bound its duals prove (``ν > 0``), or why
        the LP failed (``seconds``: HiGHS's time limit)."""
        import highspy

        c = np.asarray(c, dtype=np.float64)
        limit_run(self.highs, seconds)
        self.highs.changeColsCost(c.size, self.columns, -c)
        self.highs.run()
        status = self.highs.getModelStatus()
        if status not in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kTimeLimit):
            # CHECK_LP_FEASIBILITY_TOL may ask more than a badly scaled cone allows: once more from
            # scratch at HiGHS's own tolerances (the duals prove a bound whatever their accuracy).
            self.highs.clearSolver()
            for option in ("dual_feasibility_tolerance", "primal_feasibility_tolerance"):
                self.highs.setOptionValue(option, CHECK_LP_FALLBACK_FEASIBILITY_TOL)
            limit_run(self.highs, seconds)
            self.highs.run()
            status = self.highs.getModelStatus()
            for option in ("dual_feasibility_tolerance", "primal_feasibility_tolerance"):
                self.highs.setOptionValue(option, CHECK_LP_FEASIBILITY_TOL)
        if status == highspy.HighsModelStatus.kTimeLimit:
            return NotProved(NotProvedReason.DEADLINE, "the time limit was reached")
        if status != highspy.HighsModelStatus.kOptimal:
            return NotProved(
                NotProvedReason.NUMERICS,
                f"the LP over the cone's slice failed ({self.highs.modelStatusToString(status)})",
            )
        solution = self.highs.getSolution()
        multipliers = -np.asarray(solution.row_dual, dtype=np.float64)  # HiGHS minimises −cᵀw
        y = np.clip(multipliers[:-1], 0.0, None)
        t = float(multipliers[-1])
        residual = c - self.G_t @ y - t * self.nu
        proved = t + float(np.clip(residual, 0.0, None) @ (1.0 / self.nu))
        magnitude = abs(t) + float((np.abs(c) + self.magnitudes_t @ y) @ (1.0 / self.nu))
        column = np.clip(np.asarray(solution.col_value, dtype=np.float64), 0.0, None)
        column = column / float(self.nu @ column)
        return column, float(c @ column), proved + CHECK_ROUNDING_RTOL * magnitude


def maximise_ratio(
    cone: RowCone, a: FloatArray, duals: FloatArray, weights: FloatArray, deadline: float
) -> PiecewiseMaximum | NotProved:
    """``max_k max {(a_k − λ)ᵀw : w >= 0, G w <= 0, νᵀw = 1}``, proved by each LP's duals (module
    docstring), or why it could not be done."""
    start = time.perf_counter()
    nu = np.asarray(weights, dtype=np.float64)
    lam = np.asarray(duals, dtype=np.float64)
    if not np.all(nu > 0.0):
        return NotProved(
            NotProvedReason.CLAIM, "the normalisation ν has a zero entry: the slice is not bounded by it"
        )
    slice_lp = SliceMaximiser(cone.matrix(), nu)
    best: tuple[float, float, FloatArray] | None = None
    for piece in a:
        if time.perf_counter() > deadline:
            return NotProved(NotProvedReason.DEADLINE, "the time limit was reached")
        found = slice_lp.maximum(piece - lam, deadline - time.perf_counter())
        if isinstance(found, NotProved):
            return found
        column, value, proved = found
        if best is None or proved > best[0] + best[1]:
            best = (value, max(proved - value, 0.0), column)
    if best is None:
        return NotProved(NotProvedReason.UTILITY, "the utility has no pieces")
    value, margin, column = best
    return PiecewiseMaximum(value, margin, column / column.sum(), len(a), time.perf_counter() - start)
