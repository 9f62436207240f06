"""Metric local differential privacy (d-privacy, geo-indistinguishability).

A mechanism is ε·d-private (Chatzikokolakis et al., "Broadening the scope of differential privacy
using metrics", 2013; geo-indistinguishability for locations) when, for every output ``y`` and every
pair of inputs::

    P(Y=y | X=x) <= e^{ε·d(x, x')} · P(Y=y | X=x').

With ``d(x, x') = 1`` for every ``x != x'`` it is ε-LDP. In privopt's terms it is the pairs
``(given(x=x), given(x=x'))`` with per-pair scale ``d(x, x')``, compiled by the constant rule (no
distribution is involved) and audited with the smallest ε that every pair allows,
``max_{x, x', y} log(W[x,y] / W[x',y]) / d(x, x')``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from privopt.callables import call, returned
from privopt.compiler.cone import CompileOptions
from privopt.compiler.implied import implied_pairs
from privopt.compiler.ratio_pairs import RatioPair
from privopt.data.statistics import given
from privopt.definitions.ratio_constraints import RatioConstraints
from privopt.errors import ShapeError, ValidationError
from privopt.validation import FloatArray, check_labels

Distance = ArrayLike | Callable[[Hashable, Hashable], float]


def _distance(d: Callable[[Hashable, Hashable], float], a: Hashable, b: Hashable) -> float:
    """A user distance between two labels: a number, or an error naming it (:mod:`privopt.callables`)."""
    expected = "a function of two input labels returning a number"
    value = call(d, "d", expected, a, b)
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise returned(d, "d", f"{expected} (at {a!r}, {b!r})", value) from exc


def _distance_matrix(d: Distance, labels: tuple[Hashable, ...]) -> FloatArray:
    if callable(d):
        matrix = np.array([[0.0 if a == b else _distance(d, a, b) for b in labels] for a in labels])
    else:
        try:
            # a copy: the definition's matrix is made read-only, the caller's array stays as it was
            matrix = np.array(d, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValidationError("d", "a square matrix of distances", repr(d)) from exc
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise ShapeError("d", "a square matrix of distances (one row per input)", f"shape {matrix.shape}")
        if matrix.shape[0] != len(labels):
            raise ShapeError(
                "d", f"a {len(labels)}×{len(labels)} matrix (one row per input label)", f"{matrix.shape}"
            )
    off = ~np.eye(matrix.shape[0], dtype=bool)
    if np.any(np.isnan(matrix)) or np.any(matrix[off] <= 0.0):
        raise ValidationError(
            "d",
            "distances d(x, x') > 0 between distinct inputs (inf: no constraint), no NaN",
            repr(matrix.tolist()),
        )
    return matrix


class MetricLDP(RatioConstraints):
    """ε·d-privacy: ``W[x, y] <= e^{ε·d(x, x')} W[x', y]`` for all inputs ``x != x'`` and outputs ``y``.

    Parameters
    ----------
    eps:
        Privacy parameter per unit of distance (nats).
    d:
        The distances between inputs: a square matrix (rows and columns in the order of ``labels``) or a
        function of two labels. Distinct inputs need ``d > 0``; ``inf`` leaves a pair unconstrained. It
        need not be symmetric, nor a metric: every pair is imposed at its own level, so a pair longer
        than a chain of pairs through other inputs is implied by the chain, and the mechanisms allowed
        are those of the shortest-path closure of ``d`` (a policy graph's ``inf`` entries included).
        This is on purpose — per-pair levels that are not distances (policy graphs, per-input budgets)
        are definitions researchers state — and the solvers leave such implied pairs out
        (docs/compiler.md, "LP route").
    labels:
        The input labels (default ``0, 1, ...``; required when ``d`` is a function).

    Examples
    --------
    Geo-indistinguishability on a line of four points:

    >>> import numpy as np, privopt as po
    >>> line = np.abs(np.subtract.outer(np.arange(4), np.arange(4)))
    >>> solution = po.Problem(po.MetricLDP(0.5, line), po.MutualInformation(np.full(4, 0.25))).solve()
    >>> round(po.audit(solution.mechanism, po.MetricLDP(0.5, line)).eps, 6)
    0.5
    """

    def __init__(self, eps: float, d: Distance, labels: Sequence[Hashable] | None = None) -> None:
        if labels is None:
            if callable(d):
                raise ValidationError("labels", "the input labels when d is a function", "None")
            size = np.shape(d)[0] if np.ndim(d) == 2 else 0
            labels = range(size)
        self.labels = check_labels(labels, len(list(labels)), "labels")
        self.distances = _distance_matrix(d, self.labels)
        self.distances.setflags(write=False)
        super().__init__((), eps, n_inputs=len(self.labels), name="MetricLDP")

    def input_labels(self) -> tuple[Hashable, ...]:
        return self.labels

    def pairs_for(self, labels: tuple[Hashable, ...], options: CompileOptions) -> tuple[RatioPair, ...]:
        """The pair ``(x, x')`` for every finite ``d(x, x')`` but those implied by a chain of other pairs
        (:func:`~privopt.compiler.implied.implied_pairs`: ``d(x, x') >= d(x, y) + d(y, x')`` along shorter
        legs): they add nothing to the cone, nor to the audit — a ratio over a chain is at most the
        product of its legs' ratios, so ``log ratio / d`` of an implied pair is at most its legs' largest.
        On a Manhattan grid only the four neighbours remain, on a path the consecutive inputs."""
        position = [self.labels.index(label) for label in labels]
        distances = self.distances[np.ix_(position, position)]
        implied = implied_pairs(distances)
        pairs = []
        for i, a in enumerate(labels):
            for j, b in enumerate(labels):
                distance = float(distances[i, j])
                if i != j and np.isfinite(distance) and not implied[i, j]:
                    pairs.append(
                        RatioPair.of(
                            given(x=a), given(x=b), f"w[{a!r}] <= e^(ε·{distance:.6g}) w[{b!r}]", distance
                        )
                    )
        return tuple(pairs)

    def __str__(self) -> str:
        off = self.distances[~np.eye(len(self.labels), dtype=bool)]
        span = f", d in [{off.min():.4g}, {off.max():.4g}]" if off.size else ""
        return f"MetricLDP(eps={self.eps:.6g}, {len(self.labels)} inputs{span})"
