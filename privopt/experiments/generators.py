"""Seeded distribution generators of the papers' synthetic experiments.

* :func:`jeffreys` draws a true distribution ``P*`` on ``X = S × U`` from the Jeffreys prior, the
  symmetric Dirichlet(1/2) (ISIT paper §V; Entropy paper §8.2; privacy-funnel paper §VIII-D).
* :func:`empirical` draws ``n`` samples from a distribution and returns their empirical distribution
  ``P̂`` (with ``n`` recorded, so that :meth:`privopt.RenyiBall.confidence` can size the χ² set).
* :func:`uniform_weights` is the privacy-funnel paper's §VIII-A generator: each ``p_{s,x}`` uniform on
  ``[0, 1]``, then normalised.

Every generator takes a :class:`numpy.random.Generator`; :meth:`privopt.experiments.Cell.rng` hands
out generators whose streams depend only on the sweep's seed and the named grid parameters, so the
same distribution is drawn on every backend and in every re-run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privopt.data.distribution import JointDistribution
from privopt.errors import ValidationError

#: The Jeffreys prior on the simplex is the symmetric Dirichlet distribution with this parameter.
JEFFREYS_ALPHA = 0.5


def _check_shape(shape: object) -> tuple[int, int]:
    if (
        not isinstance(shape, tuple | list)
        or len(shape) != 2
        or not all(isinstance(k, int | np.integer) and k >= 1 for k in shape)
    ):
        raise ValidationError("shape", "a pair (|S|, |U|) of positive integers", repr(shape))
    return int(shape[0]), int(shape[1])


def _check_rng(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValidationError("rng", "a numpy.random.Generator (e.g. cell.rng('draw'))", type(rng).__name__)
    return rng


def jeffreys(shape: tuple[int, int], rng: np.random.Generator) -> JointDistribution:
    """A distribution on ``S × U`` drawn from Dirichlet(1/2, …, 1/2) (the Jeffreys prior)."""
    n_s, n_u = _check_shape(shape)
    draw = _check_rng(rng).dirichlet(np.full(n_s * n_u, JEFFREYS_ALPHA))
    return JointDistribution(draw.reshape(n_s, n_u))


def uniform_weights(shape: tuple[int, int], rng: np.random.Generator) -> JointDistribution:
    """Each ``p_{s,x}`` uniform on ``[0, 1]``, then normalised (privacy-funnel paper §VIII-A)."""
    n_s, n_u = _check_shape(shape)
    weights = _check_rng(rng).uniform(size=(n_s, n_u))
    return JointDistribution(weights / weights.sum())


def empirical(P: JointDistribution, n: int, rng: np.random.Generator) -> JointDistribution:
    """The empirical distribution ``P̂`` of ``n`` independent draws from ``P`` (``P̂.n == n``)."""
    if not isinstance(P, JointDistribution):
        raise ValidationError("P", "a JointDistribution", type(P).__name__)
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValidationError("n", "a positive integer number of draws", repr(n))
    counts = _check_rng(rng).multinomial(int(n), P.p_x).reshape(P.shape)
    return JointDistribution.from_counts(counts, s_labels=P.s_labels, u_labels=P.u_labels)


@dataclass(frozen=True)
class Draw:
    """A true distribution and its estimate from ``n`` samples (the papers' synthetic experiments)."""

    true: JointDistribution
    estimate: JointDistribution


def jeffreys_draw(shape: tuple[int, int], n: int, rng: np.random.Generator) -> Draw:
    """``P* ~ Dirichlet(1/2)`` on ``shape`` and ``P̂`` from ``n`` draws of ``P*``, from one stream."""
    true = jeffreys(shape, rng)
    return Draw(true, empirical(true, n, rng))
