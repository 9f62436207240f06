"""``po.conformance``: does the code implement the design? Goodness of fit of a sampler to a mechanism.

For each input ``x`` of the mechanism (the sampler is called with its label) the reports are counted
by output label and compared with the row ``W[x, ·]`` by Pearson's χ² statistic
``X²_x = Σ_y (c_y − n W[x,y])² / (n W[x,y])`` over the outputs the row can produce. A report the row
cannot produce (an output of probability 0, or no output of the mechanism at all) refutes the row:
its p-value is 0. Otherwise the p-value is ``P(χ²_{df} >= X²_x)`` (``df`` = outputs of the row − 1)
when every expected count is at least :data:`MIN_EXPECTED` (Cochran's rule), and else a Monte Carlo
p-value ``(1 + #{X²* >= X²}) / (1 + B)`` from ``B`` multinomial draws of the row, exact in the sense of
a Monte Carlo test (Davison & Hinkley 1997, §4.2). The inputs are independent, so the overall
statistic is ``Σ_x X²_x`` with ``Σ_x df_x`` degrees of freedom (the χ² test of the whole table; Monte
Carlo on the sum when any expected count is small).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import chi2

from privopt.audit.sampled_channel import SampledChannel
from privopt.audit.sampling import Stream, as_seed_sequence, check_parallel, check_sampler, child_seed, draw
from privopt.data.mechanism import Mechanism
from privopt.errors import ShapeError, ValidationError
from privopt.validation import FloatArray

#: Expected counts below which the χ² approximation is replaced by a Monte Carlo p-value.
MIN_EXPECTED = 5.0
#: Multinomial draws simulated at once (per chunk of a Monte Carlo p-value).
_SIMULATION_ENTRIES = 4_000_000


@dataclass(frozen=True, eq=False)
class ConformanceReport:
    """The result of :func:`privopt.conformance`.

    Attributes
    ----------
    p_value:
        Of the whole table (module docstring): small values refute the hypothesis that the sampler
        draws from the mechanism's rows.
    p_values, statistics:
        Per input label: the p-value and Pearson's statistic of its row.
    worst_input:
        The input with the smallest p-value.
    statistic, df:
        The overall statistic and its degrees of freedom.
    n_per_input:
        Reports drawn per input.
    unexpected:
        Per input, the reports its row cannot produce (at most a few of them), if any.
    method:
        ``"chi-square"`` or ``"Monte Carlo (B draws)"`` for the overall p-value.
    """

    p_value: float
    p_values: dict[Hashable, float]
    worst_input: Hashable
    statistic: float
    df: int
    statistics: dict[Hashable, float] = field(repr=False)
    n_per_input: dict[Hashable, int] = field(repr=False)
    unexpected: dict[Hashable, tuple[Hashable, ...]] = field(default_factory=dict, repr=False)
    method: str = "chi-square"

    def __str__(self) -> str:
        lines = [
            f"conformance: p = {self.p_value:.4g} (X² = {self.statistic:.4g}, df = {self.df}, {self.method}); "
            f"worst input {self.worst_input!r}: p = {self.p_values[self.worst_input]:.4g}"
        ]
        for x, reports in self.unexpected.items():
            lines.append(f"  input {x!r} reported {', '.join(map(repr, reports))}: impossible under its row")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        """A JSON-friendly summary."""
        return {
            "p_value": self.p_value,
            "statistic": self.statistic,
            "df": self.df,
            "method": self.method,
            "worst_input": str(self.worst_input),
            "p_values": {str(x): p for x, p in self.p_values.items()},
            "unexpected": {str(x): [str(y) for y in ys] for x, ys in self.unexpected.items()},
        }


def _pearson(counts: np.ndarray, expected: FloatArray) -> FloatArray:
    """Pearson's statistic of each row of ``counts`` (last axis) against ``expected``."""
    return np.asarray(np.sum((counts - expected) ** 2 / expected, axis=-1))


def _simulated(
    probabilities: list[FloatArray], sizes: list[int], draws: int, rng: np.random.Generator
) -> FloatArray:
    """Pearson's statistics of ``draws`` multinomial tables (rows ``probabilities``, ``sizes``), per row."""
    out = np.zeros((len(sizes), draws))
    for i, (p, n) in enumerate(zip(probabilities, sizes, strict=True)):
        step = max(1, _SIMULATION_ENTRIES // max(p.size, 1))
        for start in range(0, draws, step):
            block = rng.multinomial(n, p, size=min(step, draws - start))
            out[i, start : start + block.shape[0]] = _pearson(block, n * p)
    return out


def conformance(
    sampler: Callable[..., Any],
    mechanism: Mechanism,
    *,
    n: int,
    rng: object = None,
    resamples: int = 9999,
    vectorized: bool | None = None,
    n_jobs: int = 1,
    client: Any = None,
    progress: bool = True,
) -> ConformanceReport:
    """Test whether ``sampler`` draws its reports from the rows of ``mechanism`` (module docstring).

    The sampler is called with the mechanism's input labels (``n`` reports in all, in equal numbers);
    its reports are matched to the output labels. ``resamples`` is the number of Monte Carlo draws when
    expected counts are small; ``rng``, ``vectorized``, ``n_jobs``, ``client`` and ``progress`` are those
    of :func:`privopt.audit_sampler`.

    Examples
    --------
    >>> import privopt as po
    >>> W = po.mechanisms.grr(3, 1.0)
    >>> result = po.conformance(po.clients.mechanism_sampler(W), W, n=30_000, rng=0, progress=False)
    >>> result.p_value > 0.01
    True
    """
    if not isinstance(mechanism, Mechanism):
        raise ValidationError("mechanism", "a privopt.Mechanism (the design)", type(mechanism).__name__)
    is_vectorized = check_sampler(sampler, vectorized)
    jobs = check_parallel(n_jobs, client)
    labels = mechanism.input_labels
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2 * len(labels):
        raise ValidationError("n", f"at least 2 reports per input ({2 * len(labels)} in all)", repr(n))
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 99:
        raise ValidationError("resamples", "an int >= 99 (Monte Carlo draws)", repr(resamples))
    root = as_seed_sequence(rng)
    sizes = [int(n) // len(labels) + (1 if i < int(n) % len(labels) else 0) for i in range(len(labels))]
    counters = draw(
        sampler,
        [Stream((x,)) for x in labels],
        sizes,
        seed=root,
        phase=0,
        vectorized=is_vectorized,
        n_jobs=jobs,
        client=client,
        progress=progress,
        description=f"sampling {len(labels)} inputs",
    )
    channel = SampledChannel.from_counters(labels, counters, mechanism.output_labels)
    n_outputs = mechanism.n_outputs
    if channel.n_outputs > n_outputs and not channel.counts[:, :n_outputs].any():
        raise ShapeError(
            "sampler",
            f"reports among the mechanism's output labels ({', '.join(map(repr, mechanism.output_labels[:5]))}, ...)",
            f"none of them, e.g. {channel.outputs[n_outputs]!r}",
        )
    W = mechanism.matrix
    statistics: dict[Hashable, float] = {}
    p_values: dict[Hashable, float] = {}
    unexpected: dict[Hashable, tuple[Hashable, ...]] = {}
    rows: list[tuple[int, FloatArray, np.ndarray]] = []  # (input, probabilities, counts) of possible rows
    small = False
    for i, x in enumerate(labels):
        counts = channel.counts[i]
        support = W[i] > 0
        impossible = np.flatnonzero(counts[:n_outputs] * ~support)
        extra = np.flatnonzero(counts[n_outputs:]) + n_outputs
        if impossible.size or extra.size:
            unexpected[x] = tuple(channel.outputs[j] for j in [*impossible.tolist(), *extra.tolist()][:3])
            statistics[x], p_values[x] = float("inf"), 0.0
            continue
        p = W[i, support] / W[i, support].sum()
        c = counts[:n_outputs][support].astype(np.float64)
        statistics[x] = float(_pearson(c, sizes[i] * p))
        rows.append((i, p, c))
        small = small or bool((sizes[i] * p < MIN_EXPECTED).any())
    simulation_rng = np.random.default_rng(child_seed(root, 9))
    simulated = None
    if small and rows:
        simulated = _simulated(
            [p for _, p, _ in rows], [sizes[i] for i, _, _ in rows], int(resamples), simulation_rng
        )
    for k, (i, p, _) in enumerate(rows):
        x = labels[i]
        if simulated is None or not (sizes[i] * p < MIN_EXPECTED).any():
            p_values[x] = float(chi2.sf(statistics[x], p.size - 1)) if p.size > 1 else 1.0
        else:
            p_values[x] = float((1 + np.sum(simulated[k] >= statistics[x])) / (1 + int(resamples)))
    df = sum(p.size - 1 for _, p, _ in rows)
    total = float(sum(statistics.values()))
    if unexpected:
        overall, method = 0.0, "an impossible report"
    elif simulated is not None:
        overall = float((1 + np.sum(simulated.sum(axis=0) >= total)) / (1 + int(resamples)))
        method = f"Monte Carlo ({int(resamples)} draws)"
    else:
        overall, method = (float(chi2.sf(total, df)) if df > 0 else 1.0), "chi-square"
    worst = min(labels, key=lambda x: p_values[x])
    return ConformanceReport(
        p_value=overall,
        p_values=p_values,
        worst_input=worst,
        statistic=total,
        df=df,
        statistics=statistics,
        n_per_input=dict(zip(labels, sizes, strict=True)),
        unexpected=unexpected,
        method=method,
    )
