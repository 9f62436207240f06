"""Labels of the two sides of a likelihood ratio, for witnesses and provenance.

A :class:`Term` names one side (``P(Y=y|X=x)``, ``P(Y=y|S=s)``, the output marginal ``P(Y=y)``); a
:class:`PairLabel` names a compiled ratio constraint: its two sides, the member of a finite set it came
from and the robust-counterpart rule that produced it.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """What one side of a pair measures, e.g. ``Term("x", 3)`` for ``P(Y=y|X=3)`` or
    ``Term("s", "Male")`` for ``P(Y=y|S=Male)``; ``Term("P", None)`` is the output marginal.
    ``detail`` locates a term inside a set, e.g. ``"vertex 2 of D_s"``."""

    kind: str
    label: Hashable
    detail: str = ""

    def __str__(self) -> str:
        text = "P(Y=y)" if self.kind == "P" else f"P(Y=y|{self.kind.upper()}={self.label!r})"
        return f"{text} at {self.detail}" if self.detail else text


@dataclass(frozen=True)
class PairLabel:
    """Provenance of one pair: its two sides, the member of the distribution set it came from, the rule
    that compiled it and its *scale* ``c`` (the pair demands ``numerator <= e^{c·ε} denominator``; ``c``
    is 1 except for per-pair levels such as metric privacy's ``d(x, x')``)."""

    numerator: Term
    denominator: Term
    member: int | None = None
    rule: str = ""
    scale: float = 1.0
