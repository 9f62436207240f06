"""ε-pointwise maximal leakage (PML paper Definitions 2 and Theorem 1).

The leakage of ``X`` to an outcome ``y`` is ``ℓ(X→y) = log max_x P(Y=y|X=x) / P(Y=y)`` (eq. 4); a
mechanism satisfies ε-PML w.r.t. ``P_X`` when ``ℓ(X→y) <= ε`` for every ``y`` with ``P(Y=y) > 0``.
In column form (DESIGN.md §3): ``w[x] <= e^ε Pᵀw`` for every ``x`` in the support of ``P_X``.
Over a set of priors it must hold for each of them (eq. 10).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from privopt.definitions.base import DistributionalDefinition
from privopt.definitions.ratio_pairs import PairLabel, RatioPairs, Term
from privopt.distribution import JointDistribution
from privopt.sets.base import UncertaintySet
from privopt.sets.simplex import Simplex


@dataclass(frozen=True, eq=False, init=False)
class PML(DistributionalDefinition):
    """ε-PML of the mechanism input ``X`` w.r.t. a prior ``P_X`` (or every prior in a set).

    ``uncertainty`` is a distribution over the mechanism's inputs (a 1-D array, or a
    :class:`~privopt.JointDistribution`, whose flat s-major vector is used) or a set of them.
    """

    def __init__(self, eps: float, uncertainty: UncertaintySet | JointDistribution | ArrayLike) -> None:
        super().__init__(eps, uncertainty, "x")

    def with_eps(self, eps: float) -> PML:
        return PML(eps, self.uncertainty)

    def pairs_for(self, distribution: JointDistribution, member: int | None) -> RatioPairs:
        p = distribution.p_x
        support = np.flatnonzero(p > 0.0)
        m, n = support.size, p.size
        numerators = sp.csr_matrix((np.ones(m), (np.arange(m), support)), shape=(m, n))
        denominators = sp.csr_matrix(np.tile(p, (m, 1)))
        labels = distribution.x_labels
        return RatioPairs(
            numerators,
            denominators,
            tuple(PairLabel(Term("x", labels[x]), Term("P", None), member) for x in support.tolist()),
        )

    def pairs_for_set(self, input_labels: tuple[Hashable, ...] | None) -> RatioPairs:
        if isinstance(self.uncertainty, Simplex):
            # sup over full-support priors of max_x w_x / Pᵀw = max_x w_x / min_x w_x: PML becomes LDP.
            n = self.uncertainty.n_x
            return RatioPairs.unit(
                ~np.eye(n, dtype=bool), "x", input_labels, rule="PML over the simplex = LDP"
            )
        return super().pairs_for_set(input_labels)

    def __str__(self) -> str:
        return f"PML(eps={self.eps:.6g}, F={self.uncertainty!r})"
