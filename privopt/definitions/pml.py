"""ε-pointwise maximal leakage (PML paper Definition 2 and Theorem 1).

The leakage of ``X`` to an outcome ``y`` is ``ℓ(X→y) = log max_x P(Y=y|X=x) / P(Y=y)`` (eq. 4); a
mechanism satisfies ε-PML w.r.t. ``P_X`` when ``ℓ(X→y) <= ε`` for every ``y`` with ``P(Y=y) > 0``.
In column form (DESIGN.md §3): ``w[x] <= e^ε Pᵀw`` for every ``x`` in the support of ``P_X``.
Over a set of priors it must hold for each of them (eq. 10). PML is affine in the prior, so on a
polytope the vertex rule is exact (Cor. 1); on an ℓ1 ball with ``β < 2 min P̂`` it is the
ε′ transform of Prop. 2.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from privopt.cone import CompileOptions, ConeBuilder
from privopt.definitions.base import DistributionalDefinition
from privopt.distribution import JointDistribution
from privopt.ratio_pairs import Term
from privopt.sets.base import UncertaintySet
from privopt.sets.l1 import L1Ball

if TYPE_CHECKING:
    from privopt.audit import AuditReport
    from privopt.mechanism import Mechanism


def pml_shift(eps: float, beta: float) -> float:
    """``ε′ − ε`` with ``e^{ε′} = e^ε / (1 + β e^ε / 2)`` (PML paper eq. 43)."""
    return float(-np.log1p(beta * np.exp(eps) / 2.0))


@dataclass(frozen=True, eq=False, init=False)
class PML(DistributionalDefinition):
    """ε-PML of the mechanism input ``X`` w.r.t. a prior ``P_X`` (or every prior in a set).

    ``uncertainty`` is a distribution over the mechanism's inputs (a 1-D array, or a
    :class:`~privopt.JointDistribution`, whose flat s-major vector is used) or a set of them: a
    :class:`~privopt.FiniteSet`, :class:`~privopt.Polytope`, :class:`~privopt.L1Ball` or
    :class:`~privopt.Simplex` (where PML becomes LDP).
    """

    def __init__(self, eps: float, uncertainty: UncertaintySet | JointDistribution | ArrayLike) -> None:
        super().__init__(eps, uncertainty, "x")

    def with_eps(self, eps: float) -> PML:
        return PML(eps, self.uncertainty)

    def member_blocks(
        self,
        builder: ConeBuilder,
        distribution: JointDistribution,
        member: int | None,
        labels: tuple[Hashable, ...],
    ) -> None:
        self._vertex_rule(
            builder, distribution.p_x[None, :], labels, member, "PML at a known prior: w[x] <= e^eps Pᵀw"
        )

    def _vertex_rule(
        self,
        builder: ConeBuilder,
        priors: np.ndarray,
        labels: tuple[Hashable, ...],
        member: int | None,
        rule: str,
    ) -> None:
        support = np.flatnonzero(np.any(priors > 0.0, axis=0))
        units = builder.group(
            np.eye(builder.n_inputs)[support], [Term("x", labels[x]) for x in support], "point masses e_x"
        )
        where = "" if member is None else f" (member {member})"
        terms = (
            [Term("P", None, f"prior {k}") for k in range(priors.shape[0])]
            if priors.shape[0] > 1
            else [Term("P", None)]
        )
        prior = builder.group(priors, terms, f"priors{where}")
        builder.block(units, prior, rule, member)

    def set_blocks(self, builder: ConeBuilder, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        if isinstance(self.uncertainty, L1Ball):
            ball = self.uncertainty
            ball.check_paper_condition()
            n = builder.n_inputs
            units = builder.group(np.eye(n), [Term("x", x) for x in labels], "point masses e_x")
            shifted = ball.center.p_x[None, :] + ball.radius / 2.0 * np.eye(n)
            terms = [Term("P", None, f"P̂ + β/2·e_{x!r}") for x in labels]
            group = builder.group(shifted, terms, "P̂ + β/2 e_x'")
            builder.block(
                units,
                group,
                "PML paper Prop. 2 (ε′ transform, exact on the ℓ1 ball)",
                log_shift=pml_shift(self.eps, ball.radius),
            )
            return True
        vertices = getattr(self.uncertainty, "vertices", None)
        if vertices is None:
            return super().set_blocks(builder, labels, options)
        self._vertex_rule(
            builder, vertices(), labels, None, "vertex rule: PML is affine in the prior (PML paper Cor. 1)"
        )
        return True

    def audit(self, mechanism: Mechanism, *, tolerance: float) -> AuditReport:
        if isinstance(self.uncertainty, L1Ball):
            from privopt.robust_audit import audit_pml_over_l1_ball

            self.check_mechanism(mechanism)
            return audit_pml_over_l1_ball(self, mechanism, tolerance)
        return super().audit(mechanism, tolerance=tolerance)

    def __str__(self) -> str:
        return f"PML(eps={self.eps:.6g}, F={self.uncertainty!r})"
