"""ε-local information privacy w.r.t. a sensitive attribute S (privacy-funnel paper Definition 2).

For all ``y`` and ``s``::

    e^-ε <= P(Y=y | S=s) / P(Y=y) <= e^ε,

i.e. the posterior of ``S`` after seeing ``y`` is within a factor ``e^ε`` of its prior (eq. 4). In
column form (DESIGN.md §3): ``e^-ε Pᵀw <= P(·|s)ᵀw <= e^ε Pᵀw``.

LIP is handled for known distributions and finite sets of them (each member is a separate family of
constraints). Over a polytope or a ball it is refused: ``P(Y=y) = Σ_s P(s) P(Y=y|S=s)`` mixes the
conditionals with weights that vary with ``P``, so the constraint is bilinear in the distribution and
the vertex rule does not give its robust counterpart.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from privopt.cone import CompileOptions, ConeBuilder
from privopt.definitions.base import DistributionalDefinition
from privopt.distribution import JointDistribution
from privopt.errors import NotSupportedError
from privopt.ratio_pairs import Term


@dataclass(frozen=True, eq=False, init=False)
class LIP(DistributionalDefinition):
    """ε-LIP w.r.t. ``S`` for a known distribution (or each member of a finite set).

    Parameters
    ----------
    eps:
        Privacy parameter (nats).
    uncertainty:
        A :class:`~privopt.JointDistribution` or a :class:`~privopt.FiniteSet` of them.
    on:
        ``"x"`` if the mechanism reads ``X = S × U`` (default), ``"u"`` if it reads ``U`` only.
    """

    def member_blocks(
        self,
        builder: ConeBuilder,
        distribution: JointDistribution,
        member: int | None,
        labels: tuple[Hashable, ...],
    ) -> None:
        conditional = distribution.conditional(self.on)
        where = "" if member is None else f" (member {member})"
        marginal = builder.group(
            distribution.marginal(self.on)[None, :], [Term("P", None)], f"P_input{where}"
        )
        for i, s in enumerate(distribution.s_labels):  # type: ignore[arg-type]
            group = builder.group(conditional[i : i + 1], [Term("s", s)], f"P(·|s={s!r}){where}")
            builder.block(group, marginal, "LIP upper: P(y|s) <= e^eps P(y)", member)
            builder.block(marginal, group, "LIP lower: P(y) <= e^eps P(y|s)", member)

    def set_blocks(self, builder: ConeBuilder, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        raise NotSupportedError(
            f"LIP over {self.uncertainty!r} is not supported: LIP is not affine in the distribution "
            "(P(Y=y) mixes the conditionals with weights P(s)), so no vertex rule gives its robust "
            "counterpart. Use a Point or a FiniteSet of distributions."
        )
