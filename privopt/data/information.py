"""Information measures on arrays, in nats, exact on zeros (``0·log 0 = 0``).

These are the numerical kernels behind :mod:`privopt.utilities`. They are vectorised over the
columns of a channel matrix: a mechanism ``W`` of shape ``(|X|, |Y|)`` has columns ``w = W[:, y]``,
and every sub-convex utility is a sum over columns of a sublinear function ``μ(w)`` (docs/concepts.md, "Row cones";
Kairouz et al. 2016, eq. (11) of the PML paper).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import rel_entr

from privopt.validation import FloatArray


def entropy(p: ArrayLike) -> float:
    """Shannon entropy ``H(p) = -Σ p log p`` in nats; zero entries contribute 0."""
    p = np.asarray(p, dtype=np.float64)
    return float(-np.sum(rel_entr(p, 1.0)))


def mutual_information_mu(p_x: FloatArray, columns: FloatArray) -> FloatArray:
    """Per-column mutual-information terms ``μ(w) = Σ_x P_x w_x log(w_x / Pᵀw)`` (Entropy eq. 45).

    ``columns`` has shape ``(|X|, m)``; the result has shape ``(m,)`` and sums to ``I(X;Y)`` when the
    columns are those of a mechanism. Symbols with ``P_x = 0`` contribute nothing, whatever ``w_x``.
    """
    support = p_x > 0.0
    p = p_x[support]
    v = columns[support]
    q = p @ v
    return p @ rel_entr(v, q[None, :])


def mutual_information(p_x: FloatArray, matrix: FloatArray) -> float:
    """``I(X;Y)`` in nats for input distribution ``p_x`` and channel ``matrix`` (rows = inputs)."""
    return float(np.sum(mutual_information_mu(p_x, matrix)))


def perspective(q0: FloatArray, q1: FloatArray, kind: str) -> FloatArray:
    """The perspective ``q1 · f(q0 / q1)`` of a built-in f-divergence generator, exact on zeros.

    ``kind`` is ``"kl"`` (``f = t log t``), ``"tv"`` (``f = |t − 1|/2``), ``"chi2"``
    (``f = (t − 1)²``) or ``"hellinger"`` (``f = (√t − 1)²/2``, the squared Hellinger distance
    ``1 − Σ√(pq)``). With ``q1 = 0 < q0`` the value is ``q0 · f'(∞)`` (``+inf`` for KL and χ²).
    """
    if kind == "kl":
        return rel_entr(q0, q1)
    if kind == "tv":
        return 0.5 * np.abs(q0 - q1)
    if kind == "hellinger":
        return 0.5 * (np.sqrt(q0) - np.sqrt(q1)) ** 2
    if kind == "chi2":
        out = np.zeros(np.broadcast(q0, q1).shape)
        q0b, q1b = np.broadcast_arrays(q0, q1)
        positive = q1b > 0.0
        out[positive] = (q0b[positive] - q1b[positive]) ** 2 / q1b[positive]
        out[(~positive) & (q0b > 0.0)] = np.inf
        return out
    raise ValueError(kind)  # callers validate ``kind``
