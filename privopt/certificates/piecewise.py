"""The checker's proof of ``max (μ(w) − λᵀw)/νᵀw`` over a cone when ``μ`` is piecewise linear.

With ``μ(w) = max_k a_kᵀw``, the maximum over the slice ``{w >= 0, G w <= 0, νᵀw = 1}`` is the largest
of one LP per piece, ``max (a_k − λ)ᵀw``. The checker reads the pieces itself — total variation's
``±½(P0 − P1)`` from the utility's two distributions; a utility that declares its pieces
(:meth:`~privopt.utilities.SubConvexUtility.linear_pieces`) has them tested against ``μ`` at the unit
columns and at random columns first — and solves each LP over the cone's *projected* rows
(:meth:`~privopt.compiler.cone.RowCone.matrix`, not the route's lifted model) with scipy's ``linprog``.
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
from scipy.optimize import linprog

from privopt.certificates.objective import core_mu
from privopt.compiler.cone import RowCone
from privopt.tolerances import CHECK_ROUNDING_RTOL
from privopt.utilities import FDivergence, SubConvexUtility
from privopt.validation import FloatArray

#: Random columns at which declared pieces are compared with ``μ``.
SPOT_CHECKS = 64

#: Relative agreement required between declared pieces and ``μ`` at those columns.
PIECES_RTOL = 1e-9


@dataclass(frozen=True)
class PiecewiseMaximum:
    """The largest ratio at an LP's maximiser (``value``), the amount by which the duals' bound exceeds
    it plus rounding (``margin``), that maximiser (``column``) and the number of LPs (``points``)."""

    value: float
    margin: float
    column: FloatArray
    points: int
    seconds: float


def pieces(utility: SubConvexUtility, n: int) -> FloatArray | str:
    """The rows ``a_k`` of ``μ(w) = max_k a_kᵀw`` as the checker reads them, or why it has none."""
    if isinstance(utility, FDivergence) and utility.kind == "tv":
        half = 0.5 * (np.asarray(utility.p0, dtype=np.float64) - np.asarray(utility.p1, dtype=np.float64))
        return np.vstack([half, -half])
    declared = utility.linear_pieces()
    if declared is None:
        return "the utility is not piecewise linear"
    found = np.asarray(declared, dtype=np.float64)
    if found.ndim != 2 or found.shape[1] != n or not np.all(np.isfinite(found)):
        return f"its declared pieces are not a finite matrix with {n} columns"
    rng = np.random.default_rng(0)
    columns = np.hstack([np.eye(n), rng.dirichlet(np.full(n, 0.5), size=SPOT_CHECKS).T])
    expected = core_mu(utility, columns)
    declared_values = (found @ columns).max(axis=0)
    if np.any(np.abs(expected - declared_values) > PIECES_RTOL * (1.0 + np.abs(expected))):
        return "its declared pieces disagree with μ"
    return found


def bounded_maximum(G: sp.csr_matrix, nu: FloatArray, c: FloatArray) -> tuple[FloatArray, float, float] | str:
    """``max {cᵀw : w >= 0, G w <= 0, νᵀw = 1}`` by scipy's ``linprog``: the maximiser (on ``νᵀw = 1``),
    its value, and the bound its duals prove (module docstring; ``ν > 0``), or why the LP failed."""
    result = linprog(
        -c, A_ub=G, b_ub=np.zeros(G.shape[0]), A_eq=nu[None, :], b_eq=[1.0], bounds=(0.0, None),
        method="highs",
    )  # fmt: skip
    if result.status != 0:
        return f"the LP over the cone's slice failed ({result.message})"
    y = np.clip(-np.asarray(result.ineqlin.marginals, dtype=np.float64), 0.0, None)
    t = float(-np.asarray(result.eqlin.marginals, dtype=np.float64)[0])
    residual = c - G.T @ y - t * nu
    proved = t + float(np.clip(residual, 0.0, None) @ (1.0 / nu))
    magnitude = abs(t) + float((np.abs(c) + abs(G).T @ y) @ (1.0 / nu))
    column = np.clip(np.asarray(result.x, dtype=np.float64), 0.0, None)
    column = column / float(nu @ column)
    return column, float(c @ column), proved + CHECK_ROUNDING_RTOL * magnitude


def maximise_ratio(
    cone: RowCone, a: FloatArray, duals: FloatArray, weights: FloatArray, deadline: float
) -> PiecewiseMaximum | str:
    """``max_k max {(a_k − λ)ᵀw : w >= 0, G w <= 0, νᵀw = 1}``, proved by each LP's duals (module
    docstring), or why it could not be done."""
    start = time.perf_counter()
    nu = np.asarray(weights, dtype=np.float64)
    lam = np.asarray(duals, dtype=np.float64)
    if not np.all(nu > 0.0):
        return "the normalisation ν has a zero entry: the slice is not bounded by it"
    G = cone.matrix()
    best: tuple[float, float, FloatArray] | None = None
    for piece in a:
        if time.perf_counter() > deadline:
            return "the time limit was reached"
        found = bounded_maximum(G, nu, piece - lam)
        if isinstance(found, str):
            return found
        column, value, proved = found
        if best is None or proved > best[0] + best[1]:
            best = (value, max(proved - value, 0.0), column)
    if best is None:
        return "the utility has no pieces"
    value, margin, column = best
    return PiecewiseMaximum(value, margin, column / column.sum(), len(a), time.perf_counter() - start)
