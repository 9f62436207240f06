"""ε-LDP w.r.t. a sensitive attribute S, for a known distribution or a set of them (RLDP).

Entropy paper Definition 1 and privacy-funnel paper Definition 1: for all ``s, s'``, ``y`` and every
``P`` in the set ``F``::

    P(Y=y | S=s) <= e^ε P(Y=y | S=s'),   with  P(Y=y|S=s) = Σ_x P(x|s) W[x, y].

In column form: ``P(·|s)ᵀw <= e^ε P(·|s')ᵀw`` (DESIGN.md §3). With ``F`` a single point this is the
non-robust mechanism NR's constraint; with ``F`` a set it is (ε, F)-RLDP.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

from privopt.definitions.base import DistributionalDefinition
from privopt.definitions.ratio_pairs import PairLabel, RatioPairs, Term
from privopt.distribution import JointDistribution
from privopt.sets.simplex import Simplex


@dataclass(frozen=True, eq=False, init=False)
class SensitiveLDP(DistributionalDefinition):
    """ε-LDP w.r.t. ``S`` for every distribution in ``F`` ((ε, F)-RLDP).

    Parameters
    ----------
    eps:
        Privacy parameter (nats).
    uncertainty:
        A :class:`~privopt.JointDistribution` (the non-robust case), or an uncertainty set.
    on:
        ``"x"`` if the mechanism reads ``X = S × U`` (default), ``"u"`` if it reads ``U`` only.
    """

    def pairs_for(self, distribution: JointDistribution, member: int | None) -> RatioPairs:
        conditional = distribution.conditional(self.on)
        a, b = np.nonzero(~np.eye(distribution.n_s, dtype=bool))
        s = distribution.s_labels
        labels = [
            PairLabel(Term("s", s[i]), Term("s", s[j]), member)
            for i, j in zip(a.tolist(), b.tolist(), strict=True)
        ]  # type: ignore[index]
        return RatioPairs.from_dense(conditional[a], conditional[b], labels)

    def pairs_for_set(self, input_labels: tuple[Hashable, ...] | None) -> RatioPairs:
        if isinstance(self.uncertainty, Simplex):
            n_s, n_u = self.uncertainty.shape
            if self.on == "u":
                # Every P(u|s) ranges over the whole simplex: the worst ratio is max_u w / min_u w.
                return RatioPairs.unit(~np.eye(n_u, dtype=bool), "u", input_labels, rule="simplex: LDP on U")
            s_of_x = np.repeat(np.arange(n_s), n_u)
            mask = s_of_x[:, None] != s_of_x[None, :]
            return RatioPairs.unit(mask, "x", input_labels, rule="Entropy Prop. 3 (simplex)")
        return super().pairs_for_set(input_labels)
