"""The optimal binary mechanism for PML over an ℓ1 ball: PML paper Theorem 5 (eq. 41) and Remark 3.

For ``X = {x1, x2}`` with ``P̂(x1) = p1 >= p2 = P̂(x2)``, ``β < 2 p2`` and
``0 <= ε <= −log(p1 − β/2)``, the mechanism

    W = 1/(1 + β e^ε) · [[ e^ε (p2 + β/2),      1 − e^ε (p2 − β/2) ],
                         [ 1 − e^ε (p1 − β/2),  e^ε (p1 + β/2)     ]]

(``p2 = 1 − p1``; eq. 41 writes ``1 − p1`` for ``p2``) maximises every sub-convex utility among the
mechanisms that are ε-PML for all priors in the ℓ1 ball ``B_β(P̂)``.

Derivation (recomputed; the ball's extreme points are ``π± = P̂ ± (β/2)(e1 − e2)``): with column 1
favouring ``x1`` its worst prior is ``π−`` and column 2's is ``π+``; making both PML constraints tight,
``W11 = e^ε(π−ᵀ w1)`` and ``W22 = e^ε(π+ᵀ w2)``, and solving the 2×2 linear system gives the matrix
above (its determinant is ``(e^ε − 1)(1 + β e^ε)``). Both columns then leak exactly ε at their worst
prior. The range ``ε <= −log(p1 − β/2)`` is where ``W21 >= 0`` (the first privacy region for every
prior in the ball). The feasible columns form a 2-D cone spanned by ``w1`` and ``w2``; writing any
feasible mechanism's columns in that basis and using sublinearity shows no sub-convex utility can
exceed ``U(W)``.

*Discrepancy in the paper:* Appendix C's eq. (93) prints ``W11 = e^ε(1 − p − β/2)/(1 + βe^ε)``; the
derivation above, eq. (41) and Remark 3 all give ``e^ε(1 − p + β/2)/(1 + βe^ε)``.

Remark 3: at ``p1 = 1/2``, ``β = 1`` (outside Theorem 5's range ``β < 2p2``, as a limit) the ball is the
whole simplex and eq. (41) becomes Warner's randomized response, the ε-LDP optimum.
"""

from __future__ import annotations

import numpy as np

from privopt.data.mechanism import Mechanism
from privopt.errors import ValidationError
from privopt.validation import FloatArray, check_eps, check_real


def eq41_matrix(p1: float, beta: float, eps: float) -> FloatArray:
    """Eq. (41) as written, at any (p1, β, ε) (no range check)."""
    e = np.exp(eps)
    p2 = 1.0 - p1
    matrix = np.array(
        [
            [e * (p2 + beta / 2.0), 1.0 - e * (p2 - beta / 2.0)],
            [1.0 - e * (p1 - beta / 2.0), e * (p1 + beta / 2.0)],
        ]
    )
    return matrix / (1.0 + beta * e)


def _check_p1_beta(p1: float, beta: float) -> tuple[float, float]:
    p1 = check_real(
        p1, "p1", low=0.5, high=1.0, open_high=True,
        expected="P̂(x1) with 1/2 <= p1 < 1 (Theorem 5: x1 is the more likely symbol and P̂ is interior)",
    )  # fmt: skip
    p2 = 1.0 - p1
    beta = check_real(
        beta, "beta", low=0.0, high=2.0 * p2, open_high=True,
        expected=f"0 <= β < 2·p2 = {2.0 * p2:.6g} (Theorem 5: the ℓ1 ball stays inside the simplex)",
    )  # fmt: skip
    return p1, beta


def binary_pml_valid_range(p1: float, beta: float) -> tuple[float, float]:
    """The interval ``[0, −log(p1 − β/2)]`` of ε for which Theorem 5 holds.

    Raises :class:`~privopt.errors.ValidationError` naming the failing condition when ``p1`` or ``β``
    is outside the theorem's range (``1/2 <= p1 < 1``, ``0 <= β < 2 p2``).
    """
    p1, beta = _check_p1_beta(p1, beta)
    return 0.0, float(-np.log(p1 - beta / 2.0))


def binary_pml_mechanism(p1: float, beta: float, eps: float) -> Mechanism:
    """PML paper Theorem 5: the optimal mechanism for ε-PML over the ℓ1 ball of radius β around
    ``(p1, 1 − p1)`` (rows ``x1``, ``x2`` as in eq. 41).

    Raises :class:`~privopt.errors.ValidationError` naming the failing condition outside the range
    ``1/2 <= p1 < 1``, ``0 <= β < 2 p2``, ``0 <= ε <= −log(p1 − β/2)``.
    """
    _low, high = binary_pml_valid_range(p1, beta)
    eps = check_eps(eps)
    if eps > high:
        raise ValidationError(
            "eps",
            f"ε <= −log(p1 − β/2) = {high:.6g} (Theorem 5: ε in the first privacy region for every prior in the ball)",
            repr(eps),
        )
    return Mechanism(
        eq41_matrix(float(p1), float(beta), eps),
        ("x1", "x2"),
        ("y1", "y2"),
        name=f"PML-binary(p1={float(p1):.4g}, beta={float(beta):.4g}, eps={eps:.4g})",
    )


def randomized_response_limit(eps: float) -> Mechanism:
    """Remark 3: eq. (41) at ``p1 = 1/2``, ``β = 1``, where the ball is the whole simplex —
    Warner's randomized response ``[[e^ε, 1], [1, e^ε]] / (1 + e^ε)``."""
    eps = check_eps(eps)
    return Mechanism(
        eq41_matrix(0.5, 1.0, eps), ("x1", "x2"), ("y1", "y2"), name=f"PML-binary limit = RR(eps={eps:.4g})"
    )
