"""ε-local information privacy w.r.t. a sensitive attribute S (privacy-funnel paper Definition 2).

For all ``y`` and ``s``::

    e^-ε <= P(Y=y | S=s) / P(Y=y) <= e^ε,

i.e. the posterior of ``S`` after seeing ``y`` is within a factor ``e^ε`` of its prior (eq. 4). In
privopt's terms, the pairs ``(given(s=s), marginal())`` and ``(marginal(), given(s=s))``.

It is exact for known distributions and finite sets of them. Over a Rényi ball, a polytope or an ℓ1
ball, ``P(Y=y) = Σ_s P(s) P(Y=y|S=s)`` mixes the conditionals with weights that vary with ``P`` (the
constraint is bilinear in the distribution), and privopt compiles a sound inner approximation: each
side ranges independently over an enclosure of its own range — ``P(·|s)`` over a polytope ``D_s ⊇
F_{U|s}``, the joint ``P`` over a polytope ``D ⊇ F`` (the rectangular rule,
:mod:`privopt.sets.counterparts`; docs/compiler.md §1). The compile option
``lip_counterpart="pairwise"`` imposes LDP w.r.t. S's pairs ``P(Y=y|S=s) <= e^ε P(Y=y|S=s')`` instead:
they imply LIP because ``P(Y=y)`` lies between the smallest and the largest conditional of the same
``P``. The default, ``"auto"``, takes it where the rectangular cone would need column generation (whose
bound only the pairwise cone certifies), and the rectangular rule elsewhere
(:class:`~privopt.compiler.cone.CompileOptions`). The audit of a design reports an interval over
the set itself. Over the whole simplex (no ``D`` short of the simplex) the definition is refused.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from privopt.compiler.cone import CompileOptions
from privopt.data.distribution import InputAlphabet
from privopt.data.statistics import given, marginal
from privopt.definitions.ratio_constraints import RatioConstraints, RatioPair, sensitive_value_pairs


class LIP(RatioConstraints):
    """ε-LIP w.r.t. ``S`` for a known distribution, each member of a finite set, or every distribution of
    a ball or polytope (module docstring).

    Parameters
    ----------
    eps:
        Privacy parameter (nats).
    uncertainty:
        A :class:`~privopt.JointDistribution`, a :class:`~privopt.FiniteSet` of them (exact), or a
        :class:`~privopt.RenyiBall`, :class:`~privopt.Polytope` or :class:`~privopt.L1Ball` (inner
        approximation, module docstring).
    on:
        ``"x"`` if the mechanism reads ``X = S × U`` (default), ``"u"`` if it reads ``U`` only.
    """

    _set_argument = "uncertainty"

    def __init__(self, eps: float, uncertainty: Any, on: InputAlphabet = "x") -> None:
        super().__init__((), eps, uncertainty, on=on, name="LIP")

    def pairs_for(self, labels: tuple[Hashable, ...], options: CompileOptions) -> tuple[RatioPair, ...]:
        pairs = self._lip_pairs()
        if options.lip_counterpart == "pairwise" and not self._exact(pairs, labels, options):
            return tuple(sensitive_value_pairs(self.s_labels(), False))
        return tuple(pairs)  # "rectangular", and "auto" before the problem resolves it

    def counterpart_choice(self, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        return not self._exact(self._lip_pairs(), labels, options)

    def _lip_pairs(self) -> list[RatioPair]:
        pairs = []
        for s in self.s_labels():
            pairs.append(RatioPair.of(given(s=s), marginal(), f"LIP upper: P(Y=y|S={s!r}) <= e^ε P(Y=y)"))
            pairs.append(RatioPair.of(marginal(), given(s=s), f"LIP lower: P(Y=y) <= e^ε P(Y=y|S={s!r})"))
        return pairs

    def _exact(self, pairs: list[RatioPair], labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        """Whether the set compiles every pair exactly (``lip_counterpart`` is then not used)."""
        return all(rule.exact for rule in self.rules_for(pairs, labels, options))
