"""ε-LDP w.r.t. a sensitive attribute S, for a known distribution or a set of them (RLDP).

Entropy paper Definition 1 and privacy-funnel paper Definition 1: for all ``s, s'``, ``y`` and every
``P`` in the set ``F``::

    P(Y=y | S=s) <= e^ε P(Y=y | S=s'),   with  P(Y=y|S=s) = Σ_x P(x|s) W[x, y].

In privopt's terms (:mod:`privopt.definitions.ratio_constraints`) it is the pairs
``(given(s=s), given(s=s'))`` for ``s != s'``. With ``F`` a single point this is the non-robust
mechanism NR's constraint; over a finite set each member is imposed; over the simplex, a Rényi ball,
conditional bounds or a polytope the rectangular rule applies (Entropy paper eqs. 40–41, Theorem 2;
Prop. 3 for the simplex).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from privopt.compiler.cone import CompileOptions
from privopt.data.distribution import InputAlphabet
from privopt.definitions.ratio_constraints import RatioConstraints, RatioPair, sensitive_value_pairs


class SensitiveLDP(RatioConstraints):
    """ε-LDP w.r.t. ``S`` for every distribution in ``F`` ((ε, F)-RLDP).

    Parameters
    ----------
    eps:
        Privacy parameter (nats).
    uncertainty:
        A :class:`~privopt.JointDistribution` (non-robust), a :class:`~privopt.FiniteSet` (each member),
        :class:`~privopt.Simplex` (every distribution), :class:`~privopt.RenyiBall`,
        :class:`~privopt.ConditionalBounds` or :class:`~privopt.Polytope`.
    on:
        ``"x"`` if the mechanism reads ``X = S × U`` (default), ``"u"`` if it reads ``U`` only.

    The compile option ``self_pairs=True`` adds the pairs ``s = s'``: vacuous for the definition, but
    not under the rectangular rule, where they reproduce the published PolyOpt's Γ cone.
    """

    _set_argument = "uncertainty"

    def __init__(self, eps: float, uncertainty: Any, on: InputAlphabet = "x") -> None:
        super().__init__((), eps, uncertainty, on=on, name="SensitiveLDP")

    def sensitive_ldp_eps(self) -> float | None:
        """Its own ``ε``, over ``X = S × U`` (``on="x"``)."""
        return self.eps if self.on == "x" else None

    def pairs_for(self, labels: tuple[Hashable, ...], options: CompileOptions) -> tuple[RatioPair, ...]:
        return tuple(sensitive_value_pairs(self.s_labels(), options.self_pairs))
