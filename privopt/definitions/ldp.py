"""ε-local differential privacy w.r.t. the whole input X (Entropy paper Definition 2)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

from privopt.cone import CompileOptions, ConeBuilder
from privopt.definitions.base import PrivacyDefinition
from privopt.ratio_pairs import Term
from privopt.validation import check_eps


@dataclass(frozen=True, eq=False)
class LDP(PrivacyDefinition):
    """ε-LDP: ``P(Y=y|X=x) <= e^ε P(Y=y|X=x')`` for all ``x, x'`` and ``y``.

    In column form (DESIGN.md §3): ``max_x w[x] <= e^ε min_x w[x]``. No distribution is involved.
    """

    eps: float

    def __init__(self, eps: float) -> None:
        object.__setattr__(self, "eps", check_eps(eps))

    def with_eps(self, eps: float) -> LDP:
        return LDP(eps)

    def build_cone(self, builder: ConeBuilder, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        units = builder.group(np.eye(builder.n_inputs), [Term("x", x) for x in labels], "point masses e_x")
        builder.block(units, units, "LDP: w[x] <= e^eps w[x']")
        return True

    def __str__(self) -> str:
        return f"LDP(eps={self.eps:.6g})"
