"""ε-pointwise maximal leakage (PML paper Definition 2 and Theorem 1).

The leakage of ``X`` to an outcome ``y`` is ``ℓ(X→y) = log max_x P(Y=y|X=x) / P(Y=y)`` (eq. 4); a
mechanism satisfies ε-PML w.r.t. ``P_X`` when ``ℓ(X→y) <= ε`` for every ``y`` with ``P(Y=y) > 0``.
In privopt's terms it is the pair ``(max_x given(x=x), marginal())`` over the support of ``P_X`` —
constant against affine in the joint ``P``, so over a polytope the vertex rule is exact (PML paper
Cor. 1). Over an ℓ1 ball with ``β < 2 min P̂`` the vertex rule's ``|X|·|X|(|X|−1)`` rows compress to
the ``|X|²`` rows of Prop. 2's ε′ transform: the ball's own rule
(:class:`~privopt.sets.counterparts.L1TransformRule`). Over a set, the support is the
union of the members' supports (the PML paper assumes one known support, eq. 9).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from privopt.compiler.cone import CompileOptions
from privopt.compiler.ratio_pairs import RatioPair
from privopt.data.statistics import given, marginal
from privopt.definitions.ratio_constraints import RatioConstraints
from privopt.sets.l1 import L1Ball
from privopt.sets.polytope import Polytope
from privopt.sets.simplex import Simplex
from privopt.validation import FloatArray


class PML(RatioConstraints):
    """ε-PML of the mechanism input ``X`` w.r.t. a prior ``P_X`` (or every prior in a set).

    ``uncertainty`` is a distribution over the mechanism's inputs (a 1-D array, or a
    :class:`~privopt.JointDistribution`, whose flat s-major vector is used) or a set of them: a
    :class:`~privopt.FiniteSet`, :class:`~privopt.Polytope`, :class:`~privopt.L1Ball`,
    :class:`~privopt.Simplex` (where PML becomes LDP) or :class:`~privopt.RenyiBall` (every input
    against the vertices of ``D = {P >= L} ⊇ F``: a sound inner approximation, docs/compiler.md §1).
    """

    _set_argument = "uncertainty"

    def __init__(self, eps: float, uncertainty: Any) -> None:
        super().__init__((), eps, uncertainty, name="PML")

    def _support(self) -> np.ndarray:
        F = self.uncertainty
        assert F is not None
        members = F.members()
        reference = F.reference()
        if members is not None:
            priors = np.vstack([p.p_x for p in members])
        elif isinstance(F, (Polytope, Simplex)):
            priors = np.vstack([p.p_x for p in F.vertex_distributions()])
        elif isinstance(F, L1Ball) and reference is not None:  # the support of its centre (eq. 9)
            priors = reference.p_x[None, :]
        else:  # a Rényi ball holds priors with more support than its centre: every input
            priors = np.ones((1, F.n_x))
        return np.any(priors > 0.0, axis=0)

    def pml_ball(self) -> tuple[float, FloatArray, float] | None:
        """``(ε, P̂_X, β)`` when the definition is ε-PML over an ℓ1 ball of radius β around ``P̂`` (the
        setting of the PML paper's Theorem 5), else ``None``."""
        F = self.uncertainty
        ball = None if F is None else F.l1_ball()
        return None if ball is None else (self.eps, ball[0].p_x, ball[1])

    def pairs_for(self, labels: tuple[Hashable, ...], options: CompileOptions) -> tuple[RatioPair, ...]:
        units = tuple(given(x=labels[x]) for x in np.flatnonzero(self._support()))
        return (RatioPair(units, (marginal(),), "PML: w[x] <= e^ε Pᵀw for x in the support"),)

    def __str__(self) -> str:
        return f"PML(eps={self.eps:.6g}, F={self.uncertainty!r})"
