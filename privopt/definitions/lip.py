"""ε-local information privacy w.r.t. a sensitive attribute S (privacy-funnel paper Definition 2).

For all ``y`` and ``s``::

    e^-ε <= P(Y=y | S=s) / P(Y=y) <= e^ε,

i.e. the posterior of ``S`` after seeing ``y`` is within a factor ``e^ε`` of its prior (eq. 4). In
column form (DESIGN.md §3): ``e^-ε Pᵀw <= P(·|s)ᵀw <= e^ε Pᵀw``. LIP is affine in the conditionals
but not in the joint ``P``; over a finite set the vertex rule does not apply, so each member is a
separate constraint family (the set is then a union, not a hull).
"""

from __future__ import annotations

from dataclasses import dataclass

from privopt.definitions.base import DistributionalDefinition
from privopt.definitions.ratio_pairs import PairLabel, RatioPairs, Term
from privopt.distribution import JointDistribution


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

    def pairs_for(self, distribution: JointDistribution, member: int | None) -> RatioPairs:
        conditional = distribution.conditional(self.on)
        marginal = distribution.marginal(self.on)
        numerators, denominators, labels = [], [], []
        for i, s in enumerate(distribution.s_labels):  # type: ignore[arg-type]
            numerators += [conditional[i], marginal]
            denominators += [marginal, conditional[i]]
            labels += [
                PairLabel(Term("s", s), Term("P", None), member),
                PairLabel(Term("P", None), Term("s", s), member),
            ]
        return RatioPairs.from_dense(numerators, denominators, labels)  # type: ignore[arg-type]
