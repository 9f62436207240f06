"""Piecewise-linear utilities on any cone: one LP for the design, one LP per piece for its bound.

When ``μ(w) = max_k a_kᵀw`` (:meth:`~privopt.utilities.SubConvexUtility.linear_pieces`; total
variation ``½|P0ᵀw − P1ᵀw|`` has the two pieces ``±½(P0 − P1)``):

- **The design is one LP.** Group a mechanism's outputs by the piece attaining ``μ`` and merge each
  group into one output: the merged column is in the cone (a sum of columns of a convex cone) and
  ``U(W) = Σ_y a_{k(y)}ᵀw_y = Σ_k a_kᵀW_k``. So the optimum is ``max Σ_k a_kᵀw_k`` over ``K`` columns of
  the cone with ``Σ_k w_k = 1`` — an LP over ``K`` copies of the cone's lifted rows
  (:meth:`~privopt.compiler.cone.RowCone.lifted`) — and its solution, as a mechanism with ``K`` outputs,
  attains it (``μ(w_k) >= a_kᵀw_k``). Total variation's optimum is a binary mechanism (Kairouz et al.).
- **Its bound.** With ``λ`` the LP's duals on ``Σ_k w_k = 1``, ``OPT <= Σλ + |X|·max(0, δ̄)`` with ``δ̄ =
  max_k max {(a_k − λ)ᵀw : w ∈ K, Σ w = 1}``: one LP per piece, each bounded from above by its own duals
  (:meth:`~privopt.routes.pricing.slice_lp.SliceLP.maximise_bounded`), so ``δ̄`` is proved, not
  estimated (docs/compiler.md, "Piecewise-linear utilities").
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from privopt.compiler.cone import RowCone
from privopt.errors import SolverError
from privopt.routes.pricing.slice_lp import ConeRepair, SliceLP
from privopt.solvers.errors import BackendError
from privopt.solvers.lp import solve_lp
from privopt.validation import FloatArray

#: A column of the design with less total mass than this is dropped (an output never used).
EMPTY_COLUMN_MASS = 1e-12


def piecewise_design(cone: RowCone, pieces: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(columns, weights, duals)``: the optimal design's columns (``Σ w = 1`` each, in the cone), their
    masses and the LP's duals ``λ`` on ``Σ_k w_k = 1`` (module docstring)."""
    lifted, total = cone.lifted()
    n, k = cone.n_inputs, pieces.shape[0]
    a_ub = sp.block_diag([lifted] * k, format="csr")
    select = sp.hstack([sp.eye(n), sp.csr_matrix((n, total - n))])
    a_eq = sp.hstack([select] * k, format="csr")
    cost = np.concatenate([np.concatenate([piece, np.zeros(total - n)]) for piece in pieces])
    bounds = ([(0.0, None)] * n + [(None, None)] * (total - n)) * k
    try:
        result = solve_lp(
            cost, a_ub=a_ub, b_ub=np.zeros(a_ub.shape[0]), a_eq=a_eq, b_eq=np.ones(n), bounds=bounds
        )
    except BackendError as exc:
        raise SolverError(f"the LP over one column per linear piece failed: {exc}") from exc
    x = result.x.reshape(k, total)[:, :n].T
    x = np.clip(x, 0.0, None)
    mass = x.sum(axis=0)
    used = mass > EMPTY_COLUMN_MASS
    columns = ConeRepair(cone)(x[:, used])
    if columns.shape[1] != int(used.sum()):
        raise SolverError("a column of the LP over one column per linear piece lies outside the cone")
    return columns, mass[used], np.asarray(result.eq_duals, dtype=np.float64)


def piecewise_delta(cone: RowCone, pieces: FloatArray, duals: FloatArray) -> float:
    """A proved upper bound on ``max_k max {(a_k − λ)ᵀw : w ∈ K, Σ w = 1}`` (module docstring)."""
    lam = np.asarray(duals, dtype=np.float64)
    lp = SliceLP(cone)
    return max(lp.maximise_bounded(piece - lam)[1] for piece in pieces)
