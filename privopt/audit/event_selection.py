"""Choosing a sample audit's test on the selection reports: the pair, the event and the test.

For a compiled row ``a_iᵀw <= e^{c_i ε} b_iᵀw`` of the definition (at one of its distributions) and an
event ``E`` (a set of outputs), ``log(a_iᵀw_E / b_iᵀw_E) / c_i`` is at most the realized ε: a ratio of
sums is at most the largest of the ratios (the mediant inequality), so merging outputs never
overstates ε. Any row and event, chosen on reports independent of those the test then uses, give a
valid lower bound (sample splitting: the choice cannot bias the test).

Candidates (:func:`choose`): for each row, the outputs ordered by their plug-in ratio (½ added to each
count) and the events made of the first ``k`` of them (``k = 1, ..., K − 1``: the likelihood-ratio
order of Neyman and Pearson); for each, the ratio test and — when the definition also constrains the
reversed row at the same level — the odds test (:mod:`privopt.audit.epsilon_tests`). Each is scored by
the lower bound a normal approximation on the log scale predicts for the test's budget (variance
``1/(μπ)`` of a log Poisson count, ``1/(μπ(1 − π))`` of a log odds), the budget split between the two
streams to minimise the variance. The best score wins; the exact test then decides the bound.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm, poisson

from privopt.audit.sampled_channel import SampledChannel
from privopt.compiler.ratio_pairs import RatioPairs
from privopt.data.terms import PairLabel
from privopt.validation import FloatArray

#: Standard errors of a candidate's estimate on the selection reports subtracted from its score.
SELECTION_PENALTY = 1.0
#: Candidates scored at once (rows × outputs of one chunk).
_CHUNK_ENTRIES = 2_000_000
#: A stream of logged reports takes a Poisson number of them whose mean leaves this probability of
#: needing more reports than there are (the test then reports nothing).
THINNING_SHORTFALL = 1e-3


@dataclass(frozen=True, eq=False)
class Rows:
    """Compiled rows ``a_iᵀw <= e^{c_i ε} b_iᵀw`` as dense weights over the inputs, their labels, the
    index of each row's reverse (``b_i, a_i`` at the same level; ``-1`` when the definition has none)
    and the distribution (flat) they are evaluated at (``None``: the definition's own rows)."""

    numerators: FloatArray
    denominators: FloatArray
    scales: FloatArray
    labels: tuple[PairLabel, ...]
    reverse: np.ndarray
    distribution: FloatArray | None = None

    @classmethod
    def of(cls, pairs: RatioPairs, distribution: FloatArray | None = None) -> Rows:
        """The rows of ``pairs`` with both sides non-zero (a zero side leaks nothing or is the same
        for every channel)."""
        a = np.asarray(pairs.numerators.toarray(), dtype=np.float64)
        b = np.asarray(pairs.denominators.toarray(), dtype=np.float64)
        keep = (a.sum(axis=1) > 0) & (b.sum(axis=1) > 0)
        a, b, scales = a[keep], b[keep], pairs.scales[keep]
        labels = tuple(label for label, k in zip(pairs.labels, keep, strict=True) if k)

        def key(top: FloatArray, bottom: FloatArray, scale: float) -> bytes:
            return np.round(np.concatenate([top, bottom, [scale]]), 12).tobytes()

        index = {key(a[i], b[i], scales[i]): i for i in range(a.shape[0])}
        reverse = np.array(
            [index.get(key(b[i], a[i], scales[i]), -1) for i in range(a.shape[0])], dtype=np.int64
        )
        return cls(a, b, scales, labels, reverse, distribution)

    @property
    def n_rows(self) -> int:
        return self.numerators.shape[0]


@dataclass(frozen=True)
class Budget:
    """The reports a test may use: ``total`` reports of two new streams, split freely between them
    (:func:`privopt.audit_sampler`), or Poisson means ``full[x]`` and ``half[x]`` that the logged
    reports of input ``x`` left for the test can serve whole or halved between the two streams
    (:func:`privopt.audit_samples`)."""

    total: float | None = None
    full: FloatArray | None = None
    half: FloatArray | None = None

    @classmethod
    def logged(cls, available: np.ndarray) -> Budget:
        """The means that ``available[x]`` reports can serve (see :func:`poisson_cap`)."""
        return cls(None, poisson_cap(available), poisson_cap(available // 2))


@dataclass(frozen=True)
class ChosenTest:
    """A row of ``rows``, an event (outputs, in order of their plug-in ratio), the test (``"ratio"`` or
    ``"odds"``), its predicted lower bound and the stream means: the Poisson means ``(μ_A, μ_B)`` of
    new streams, or for logged reports the factors ``(κ_A, κ_B)`` of ``μ_x = κ a_x`` per input."""

    rows: Rows
    index: int
    event: tuple[Hashable, ...]
    test: str
    predicted: float
    means: tuple[float, float]

    @property
    def numerator(self) -> FloatArray:
        return self.rows.numerators[self.index]

    @property
    def denominator(self) -> FloatArray:
        return self.rows.denominators[self.index]

    @property
    def scale(self) -> float:
        return float(self.rows.scales[self.index])

    @property
    def label(self) -> PairLabel:
        return self.rows.labels[self.index]


def poisson_cap(available: np.ndarray) -> FloatArray:
    """The largest Poisson mean ``μ`` with ``P(Poisson(μ) > m) <= THINNING_SHORTFALL`` for each ``m``."""
    m = np.asarray(available, dtype=np.float64)
    low, high = np.zeros_like(m), m.copy()
    for _ in range(60):
        middle = 0.5 * (low + high)
        ok = poisson.sf(m, middle) <= THINNING_SHORTFALL
        low, high = np.where(ok, middle, low), np.where(ok, high, middle)
    return low


def _logged_factors(a: FloatArray, b: FloatArray, budget: Budget) -> tuple[FloatArray, FloatArray]:
    """``κ_A, κ_B`` per row: the largest factors the logged reports serve (inputs in both supports split
    their reports in halves)."""
    assert budget.full is not None
    assert budget.half is not None
    shared = (a > 0) & (b > 0)
    caps_a = np.where(shared, budget.half, budget.full)
    caps_b = np.where(shared, budget.half, budget.full)
    with np.errstate(divide="ignore"):
        kappa_a = np.min(np.where(a > 0, caps_a / np.where(a > 0, a, 1.0), np.inf), axis=1)
        kappa_b = np.min(np.where(b > 0, caps_b / np.where(b > 0, b, 1.0), np.inf), axis=1)
    return kappa_a, kappa_b


def choose(
    candidates: Sequence[Rows], channel: SampledChannel, budget: Budget, alpha: float
) -> ChosenTest | None:
    """The candidate with the best predicted lower bound (module docstring); ``None`` when the
    channel has fewer than two outputs (no event can leak)."""
    n_outputs = channel.n_outputs
    if n_outputs < 2:
        return None
    z = float(norm.ppf(1.0 - alpha))
    frequencies = channel.frequencies()
    sizes = channel.sizes.astype(np.float64)
    best: tuple[float, Rows, int, np.ndarray, int, str, tuple[float, float]] | None = None
    for rows in candidates:
        step = max(1, _CHUNK_ENTRIES // n_outputs)
        for start in range(0, rows.n_rows, step):
            found = _best_in(rows, slice(start, start + step), frequencies, sizes, budget, z)
            if found is not None and (best is None or found[0] > best[0]):
                best = (found[0], rows, *found[1:])
    if best is None:
        return None
    score, rows, index, order, k, test, means = best
    event = tuple(channel.outputs[j] for j in order[: k + 1].tolist())
    return ChosenTest(rows, index, event, test, score, means)


def _best_in(
    rows: Rows, chunk: slice, frequencies: FloatArray, sizes: FloatArray, budget: Budget, z: float
) -> tuple[float, int, np.ndarray, int, str, tuple[float, float]] | None:
    a, b = rows.numerators[chunk], rows.denominators[chunk]
    if a.shape[0] == 0:
        return None
    scales = rows.scales[chunk]
    total_a, total_b = a.sum(axis=1), b.sum(axis=1)
    p_a = (a @ frequencies) / total_a[:, None]
    p_b = (b @ frequencies) / total_b[:, None]
    # Reports behind each side's frequencies: the fewest of its inputs'.
    n_a = np.min(np.where(a > 0, sizes, np.inf), axis=1)[:, None]
    n_b = np.min(np.where(b > 0, sizes, np.inf), axis=1)[:, None]
    score = np.log(p_a * n_a + 0.5) - np.log(n_a) - np.log(p_b * n_b + 0.5) + np.log(n_b)
    order = np.argsort(-score, axis=1, kind="stable")
    cum_a = np.cumsum(np.take_along_axis(p_a, order, axis=1), axis=1)[:, :-1]
    cum_b = np.cumsum(np.take_along_axis(p_b, order, axis=1), axis=1)[:, :-1]
    pi_a = np.clip((cum_a * n_a + 0.5) / (n_a + 1.0), 1e-300, 1.0 - 1e-16)
    pi_b = np.clip((cum_b * n_b + 0.5) / (n_b + 1.0), 1e-300, 1.0 - 1e-16)
    if budget.total is not None:
        root = np.sqrt(budget.total)
        ratio_sd = (1.0 / np.sqrt(pi_a) + 1.0 / np.sqrt(pi_b)) / root
        odds_sd = (1.0 / np.sqrt(pi_a * (1 - pi_a)) + 1.0 / np.sqrt(pi_b * (1 - pi_b))) / root
    else:
        kappa_a, kappa_b = _logged_factors(a, b, budget)
        mu_a, mu_b = (kappa_a * total_a)[:, None], (kappa_b * total_b)[:, None]
        with np.errstate(divide="ignore"):
            ratio_sd = np.sqrt(1.0 / (mu_a * pi_a) + 1.0 / (mu_b * pi_b))
            odds_sd = np.sqrt(1.0 / (mu_a * pi_a * (1 - pi_a)) + 1.0 / (mu_b * pi_b * (1 - pi_b)))
    ratio_noise = np.sqrt(1.0 / (n_a * pi_a) + 1.0 / (n_b * pi_b))
    odds_noise = np.sqrt(1.0 / (n_a * pi_a * (1 - pi_a)) + 1.0 / (n_b * pi_b * (1 - pi_b)))
    log_ratio = np.log(pi_a) - np.log(pi_b) + np.log(total_a / total_b)[:, None]
    ratio_score = (log_ratio - z * ratio_sd - SELECTION_PENALTY * ratio_noise) / scales[:, None]
    log_odds = np.log(pi_a) - np.log1p(-pi_a) - np.log(pi_b) + np.log1p(-pi_b)
    odds_score = np.where(
        (rows.reverse[chunk] >= 0)[:, None],
        (log_odds - z * odds_sd - SELECTION_PENALTY * odds_noise) / (2 * scales[:, None]),
        -np.inf,
    )
    results = []
    for test, values in (("ratio", ratio_score), ("odds", odds_score)):
        flat = int(np.argmax(values))
        i, k = divmod(flat, values.shape[1])
        results.append((float(values[i, k]), i, k, test))
    value, i, k, test = max(results, key=lambda item: item[0])
    if not np.isfinite(value) and value < 0:
        return None
    if budget.total is not None:
        if test == "ratio":
            s_a, s_b = 1.0 / np.sqrt(pi_a[i, k]), 1.0 / np.sqrt(pi_b[i, k])
        else:
            s_a, s_b = (
                1.0 / np.sqrt(pi_a[i, k] * (1 - pi_a[i, k])),
                1.0 / np.sqrt(pi_b[i, k] * (1 - pi_b[i, k])),
            )
        share = float(s_a / (s_a + s_b))
        means = (budget.total * share, budget.total * (1.0 - share))
    else:
        kappa_a, kappa_b = _logged_factors(a[i : i + 1], b[i : i + 1], budget)
        means = (float(kappa_a[0]), float(kappa_b[0]))
    return value, chunk.start + i, order[i], k, test, means
