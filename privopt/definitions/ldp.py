"""ε-local differential privacy w.r.t. the whole input X (Entropy paper Definition 2)."""

from __future__ import annotations

from collections.abc import Hashable

from privopt.compiler.cone import CompileOptions
from privopt.compiler.ratio_pairs import RatioPair
from privopt.data.statistics import given
from privopt.definitions.ratio_constraints import RatioConstraints


class LDP(RatioConstraints):
    """ε-LDP: ``P(Y=y|X=x) <= e^ε P(Y=y|X=x')`` for all ``x, x'`` and ``y``.

    One pair of groups: ``max_x w[x] <= e^ε min_x w[x]`` (docs/design.md, "One solve", item 3). No
    distribution is involved, so it applies to a mechanism with any number of inputs.
    """

    def __init__(self, eps: float) -> None:
        super().__init__((), eps, name="LDP")

    def pairs_for(self, labels: tuple[Hashable, ...], options: CompileOptions) -> tuple[RatioPair, ...]:
        units = tuple(given(x=x) for x in labels)
        return (RatioPair(units, units, "LDP: w[x] <= e^ε w[x']"),)

    def _check_constrains(self, pairs: tuple[RatioPair, ...] | None) -> None:
        """LDP constrains every mechanism it is applied to (its pairs are built for its inputs)."""

    def __str__(self) -> str:
        return f"LDP(eps={self.eps:.6g})"
