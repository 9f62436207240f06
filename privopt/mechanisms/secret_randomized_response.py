"""Secret randomized response (SRR), Entropy paper Definition 4."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from privopt.data.mechanism import Mechanism
from privopt.validation import check_eps, check_positive_int


def srr(
    n_s: int,
    n_u: int,
    eps: float,
    s_labels: Sequence[Hashable] | None = None,
    u_labels: Sequence[Hashable] | None = None,
) -> Mechanism:
    """``SRR_ε : X → X`` on ``X = S × U`` (s-major), Entropy paper Definition 4.

    With ``a2 = |U|``, ``a = |S||U|`` and ``C = e^ε + e^-ε (a2 − 1) + a − a2``::

        SRR[(s,u) → (s,u)]   = e^ε  / C
        SRR[(s,u) → (s,u')]  = e^-ε / C      (u' != u)
        SRR[(s,u) → (s',u')] = 1    / C      (s' != s)

    Ratios between inputs with different ``s`` lie in ``[e^-ε, e^ε]``, so SRR is
    (ε, P_X)-RLDP (Lemma 2) — private for *every* distribution — and it maximises ``I(X;Y)`` among
    such mechanisms for large ε (Theorem 4).
    """
    n_s = check_positive_int(n_s, "n_s")
    n_u = check_positive_int(n_u, "n_u")
    eps = check_eps(eps)
    same_s = np.kron(np.eye(n_s), np.ones((n_u, n_u)))
    # Entries scaled by e^-ε (numerator and C alike) to stay finite for large ε.
    scaled = np.full(same_s.shape, np.exp(-eps))
    scaled[same_s > 0] = np.exp(-2.0 * eps)
    np.fill_diagonal(scaled, 1.0)
    matrix = scaled / scaled.sum(axis=1, keepdims=True)
    labels = None
    if s_labels is not None or u_labels is not None:
        s_names = list(s_labels) if s_labels is not None else list(range(n_s))
        u_names = list(u_labels) if u_labels is not None else list(range(n_u))
        labels = [(s, u) for s in s_names for u in u_names]
    return Mechanism(matrix, labels, labels, name=f"SRR(eps={eps:.4g})")
