"""ε-local differential privacy w.r.t. the whole input X (Entropy paper Definition 2)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

from privopt.definitions.base import PrivacyDefinition
from privopt.definitions.ratio_pairs import RatioPairs
from privopt.validation import check_eps


@dataclass(frozen=True, eq=False)
class LDP(PrivacyDefinition):
    """ε-LDP: ``P(Y=y|X=x) <= e^ε P(Y=y|X=x')`` for all ``x, x'`` and ``y``.

    In column form (DESIGN.md §3): ``w[x] <= e^ε w[x']``. It does not depend on any distribution.
    """

    eps: float

    def __init__(self, eps: float) -> None:
        object.__setattr__(self, "eps", check_eps(eps))

    def with_eps(self, eps: float) -> LDP:
        return LDP(eps)

    def ratio_pairs(self, n_inputs: int, input_labels: tuple[Hashable, ...] | None = None) -> RatioPairs:
        return RatioPairs.unit(~np.eye(n_inputs, dtype=bool), kind="x", labels=input_labels)

    def __str__(self) -> str:
        return f"LDP(eps={self.eps:.6g})"
