"""A sampled channel: counts of reports per input, and a simultaneous confidence region for its rows.

``counts[i, j]`` is the number of reports ``outputs[j]`` among the reports drawn for input
``inputs[i]``; each row is one multinomial sample of a size fixed in advance (the reports of different
inputs are independent).

:meth:`SampledChannel.region` is a box ``low <= W <= high`` that holds for every entry of the channel
at once with probability at least ``1 − α``: two-sided Clopper–Pearson intervals (Clopper & Pearson
1934) at level ``1 − α_row/K`` for the ``K`` entries of a row (Bonferroni within the multinomial row)
and ``α_row = 1 − (1 − α)^{1/|X|}`` per row (Šidák: the rows are independent). A box that holds for
every entry bounds every function of the channel at once, so the realized ε maximised over the box
(numerators at ``high``, denominators at ``low``: :class:`privopt.audit.robust.Columns`) bounds the
realized ε from above whatever output or pair attains it. Each row also sums to 1, so the box is
narrowed to ``low_y >= 1 − Σ_{y'≠y} high_{y'}`` and ``high_y <= 1 − Σ_{y'≠y} low_{y'}`` (a channel with one
output then has ``low = high = 1``). An output never seen under an input has
``low = 0`` there, and any ratio with it in a denominator is unbounded: the upper end is then ``inf``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from privopt.audit.epsilon_tests import clopper_pearson
from privopt.validation import FloatArray


@dataclass(frozen=True, eq=False)
class SampledChannel:
    """Counts of reports per input (module docstring): ``counts`` has shape ``(inputs, outputs)``."""

    inputs: tuple[Hashable, ...]
    outputs: tuple[Hashable, ...]
    counts: np.ndarray

    @classmethod
    def from_counters(
        cls,
        inputs: Sequence[Hashable],
        counters: Sequence[Mapping[Hashable, int]],
        outputs: Iterable[Hashable] = (),
    ) -> SampledChannel:
        """The channel of one counter of reports per input; ``outputs`` (declared outputs) come first,
        then the other reports in the order they are first met."""
        order: dict[Hashable, int] = {}
        for y in outputs:
            order.setdefault(y, len(order))
        for counter in counters:
            for y in counter:
                order.setdefault(y, len(order))
        counts = np.zeros((len(inputs), len(order)), dtype=np.int64)
        for i, counter in enumerate(counters):
            for y, c in counter.items():
                counts[i, order[y]] += c
        return cls(tuple(inputs), tuple(order), counts)

    @classmethod
    def from_pairs(
        cls,
        inputs: Sequence[Hashable],
        pairs: Iterable[tuple[Hashable, Hashable]],
        outputs: Iterable[Hashable] = (),
    ) -> SampledChannel:
        """The channel of logged ``(input, report)`` pairs (inputs outside ``inputs`` are the caller's
        to refuse)."""
        position = {x: i for i, x in enumerate(inputs)}
        counters: list[Counter[Hashable]] = [Counter() for _ in inputs]
        for x, y in pairs:
            counters[position[x]][y] += 1
        return cls.from_counters(inputs, counters, outputs)

    @property
    def sizes(self) -> np.ndarray:
        """Reports per input."""
        return self.counts.sum(axis=1)

    @property
    def n_outputs(self) -> int:
        return len(self.outputs)

    def frequencies(self) -> FloatArray:
        """The plug-in channel ``counts / sizes`` (rows of inputs without reports are 0)."""
        sizes = self.sizes.astype(np.float64)
        return np.divide(
            self.counts, sizes[:, None], out=np.zeros(self.counts.shape), where=sizes[:, None] > 0
        )

    def smoothed(self) -> FloatArray:
        """A row-stochastic plug-in with ½ added to every count (no zero entry): a point to search
        around, never a bound."""
        shifted = self.counts + 0.5
        return shifted / shifted.sum(axis=1, keepdims=True)

    def region(self, alpha: float) -> tuple[FloatArray, FloatArray]:
        """``(low, high)``: a box holding every entry of the channel at once with probability at least
        ``1 − alpha`` (module docstring)."""
        n_inputs, n_outputs = self.counts.shape
        per_row = -np.expm1(np.log1p(-alpha) / max(n_inputs, 1))
        per_cell = per_row / max(n_outputs, 1)
        sizes = np.broadcast_to(self.sizes[:, None], self.counts.shape)
        low, high = clopper_pearson(self.counts, sizes, per_cell)
        narrowed_low = np.maximum(low, 1.0 - (high.sum(axis=1, keepdims=True) - high))
        narrowed_high = np.minimum(high, 1.0 - (low.sum(axis=1, keepdims=True) - low))
        return np.clip(narrowed_low, 0.0, 1.0), np.clip(narrowed_high, 0.0, 1.0)
