"""The checker's proof of a concave utility's bound (the cvxpy route): Lagrangian duality, recomputed.

For a concave ``U`` with supergradient ``G`` at the design ``W*`` (cvxpy's own derivative of the
utility's expression, exact for the linear built-ins), ``U(W) <= U(W*) + ⟨G, W − W*⟩``. Over channels
(``Σ_y w_y = 1``, ``w_y >= 0``) whose columns satisfy the cone rows ``R w_y <= 0``, weak duality with
multipliers ``β_y >= 0`` gives ``⟨G, W⟩ = Σ_y (G_y − Rᵀβ_y)ᵀw_y + Σ_y β_yᵀ R w_y <= Σ_x max_y
(G_y − Rᵀβ_y)_x``: the inner sum is at most ``Σ_x α_x Σ_y w_{x,y} = 1ᵀα`` for ``α_x = max_y (G_y − Rᵀβ_y)_x``.
The checker takes only ``β`` from the certificate (negative entries are set to 0: any ``β >= 0`` gives
a valid bound), and computes ``G`` and ``α`` itself.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.compiler.cone import RowCone
from privopt.tolerances import CHECK_ROUNDING_RTOL
from privopt.utilities import ConcaveUtility
from privopt.validation import FloatArray


def supergradient(utility: ConcaveUtility, mechanism: FloatArray) -> tuple[FloatArray, float] | NotProved:
    """``(G, U(W*))``: the utility's gradient at ``W*`` (cvxpy) and its value, or why there is none."""
    import cvxpy as cp

    W = cp.Variable(mechanism.shape)
    W.value = mechanism
    expression = utility.expression(W)
    gradient = expression.grad.get(W)
    if gradient is None:
        return NotProved(
            NotProvedReason.UTILITY,
            "the utility is not differentiable at the design (cvxpy gives no gradient there)",
        )
    dense = gradient.toarray() if sp.issparse(gradient) else gradient  # a number for a 1 × 1 channel
    G = np.asarray(dense, dtype=np.float64).reshape(mechanism.shape, order="F")
    return G, float(expression.value)


def linear_bound(
    cone: RowCone, utility: ConcaveUtility, mechanism: FloatArray, cone_duals: FloatArray | sp.spmatrix
) -> tuple[float, float] | NotProved:
    """``(bound, rounding margin)`` proved from ``β`` (module docstring; dense or sparse, as the LP route
    gives it), or why it cannot be."""
    found = supergradient(utility, mechanism)
    if isinstance(found, NotProved):
        return found
    G, value = found
    n, k = mechanism.shape
    if cone_duals.shape != (cone.n_rows, k):
        return NotProved(
            NotProvedReason.CLAIM,
            f"cone multipliers of shape {(cone.n_rows, k)} expected, got {cone_duals.shape}",
        )
    offset = value - float(np.sum(G * mechanism))
    if cone.n_rows == 0:
        return offset + float(G.max(axis=1).sum()), CHECK_ROUNDING_RTOL * (
            abs(value) + float(np.abs(G).sum()) + 1.0
        )
    R = cone.matrix()
    if sp.issparse(cone_duals):
        beta = sp.csr_matrix(cone_duals).maximum(0.0)
        pushed, size = np.asarray((R.T @ beta).todense()), np.asarray((abs(R).T @ beta).todense())
    else:
        beta = np.clip(cone_duals, 0.0, None)
        pushed, size = np.asarray(R.T @ beta), np.asarray(abs(R).T @ beta)
    alpha = (G - pushed).max(axis=1)
    bound = offset + float(alpha.sum())
    magnitude = abs(value) + float(np.abs(G).sum()) + float(np.abs(size).sum())
    return bound, CHECK_ROUNDING_RTOL * (magnitude + 1.0) * max(n, k)
