"""ε-pointwise maximal leakage (PML paper Definition 2 and Theorem 1).

The leakage of ``X`` to an outcome ``y`` is ``ℓ(X→y) = log max_x P(Y=y|X=x) / P(Y=y)`` (eq. 4); a
mechanism satisfies ε-PML w.r.t. ``P_X`` when ``ℓ(X→y) <= ε`` for every ``y`` with ``P(Y=y) > 0``.
In privopt's terms it is the pair ``(max_x given(x=x), marginal())`` over the support of ``P_X`` —
constant against affine in the joint ``P``, so over a polytope the vertex rule is exact (PML paper
Cor. 1). Over an ℓ1 ball with ``β < 2 min P̂`` the vertex rule's ``|X|·|X|(|X|−1)`` rows compress to
the ``|X|²`` rows of Prop. 2's ε′ transform, which privopt uses there. Over a set, the support is the
union of the members' supports (the PML paper assumes one known support, eq. 9).
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from privopt.compiler.cone import CompileOptions, ConeBuilder
from privopt.data.statistics import given, marginal
from privopt.data.terms import Term
from privopt.definitions.ratio_constraints import RatioConstraints, RatioPair
from privopt.sets.l1 import L1Ball

if TYPE_CHECKING:
    from privopt.audit import AuditReport
    from privopt.data.mechanism import Mechanism


def pml_shift(eps: float, beta: float) -> float:
    """``ε′ − ε`` with ``e^{ε′} = e^ε / (1 + β e^ε / 2)`` (PML paper eq. 43)."""
    return float(-np.log1p(beta * np.exp(eps) / 2.0))


class PML(RatioConstraints):
    """ε-PML of the mechanism input ``X`` w.r.t. a prior ``P_X`` (or every prior in a set).

    ``uncertainty`` is a distribution over the mechanism's inputs (a 1-D array, or a
    :class:`~privopt.JointDistribution`, whose flat s-major vector is used) or a set of them: a
    :class:`~privopt.FiniteSet`, :class:`~privopt.Polytope`, :class:`~privopt.L1Ball` or
    :class:`~privopt.Simplex` (where PML becomes LDP).
    """

    def __init__(self, eps: float, uncertainty: Any) -> None:
        self._init(eps, uncertainty, "x", None, "PML", ())

    def with_eps(self, eps: float) -> PML:
        return PML(eps, self.uncertainty)

    def _support(self) -> np.ndarray:
        F = self.uncertainty
        assert F is not None
        members = F.members()
        if members is not None:
            priors = np.vstack([p.p_x for p in members])
        elif isinstance(F, L1Ball):
            priors = F.center.p_x[None, :]
        else:
            priors = F.vertices()  # type: ignore[attr-defined]
        return np.any(priors > 0.0, axis=0)

    def pairs_for(self, labels: tuple[Hashable, ...], options: CompileOptions) -> tuple[RatioPair, ...]:
        units = tuple(given(x=labels[x]) for x in np.flatnonzero(self._support()))
        return (RatioPair(units, (marginal(),), "PML: w[x] <= e^ε Pᵀw for x in the support"),)

    def build_cone(self, builder: ConeBuilder, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        if not isinstance(self.uncertainty, L1Ball):
            return super().build_cone(builder, labels, options)
        ball = self.uncertainty
        ball.check_paper_condition()
        n = builder.n_inputs
        units = builder.group(np.eye(n), [Term("x", x) for x in labels], "point masses e_x")
        # Prop. 2's rows w_x <= e^{ε′}(P̂ᵀw + β/2 w_x'), with the right side normalised to a distribution
        # (divided by 1 + β/2) so that exact arithmetic keeps the uniform column feasible at ε = 0.
        shifted = (ball.center.p_x[None, :] + ball.radius / 2.0 * np.eye(n)) / (1.0 + ball.radius / 2.0)
        group = builder.group(shifted, [Term("P", None, f"P̂ + β/2·e_{x!r}") for x in labels], "P̂ + β/2 e_x'")
        e_eps, beta = Fraction(float(np.exp(self.eps))), Fraction(float(ball.radius))
        builder.block(
            units,
            group,
            "PML paper Prop. 2 (ε′ transform, exact on the ℓ1 ball)",
            log_shift=pml_shift(self.eps, ball.radius) + float(np.log1p(ball.radius / 2.0)),
            exact_factor=e_eps * (1 + beta / 2) / (1 + beta * e_eps / 2),  # e^{ε′}(1 + β/2), eq. 43
        )
        return True

    def audit(self, mechanism: Mechanism, *, tolerance: float) -> AuditReport:
        if isinstance(self.uncertainty, L1Ball):
            from privopt.audit.robust import audit_pml_over_l1_ball

            self.check_mechanism(mechanism)
            return audit_pml_over_l1_ball(self, mechanism, tolerance)
        return super().audit(mechanism, tolerance=tolerance)

    def __str__(self) -> str:
        return f"PML(eps={self.eps:.6g}, F={self.uncertainty!r})"
