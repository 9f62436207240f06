"""The chain-rule bound, re-derived by the checker from the cone and the utility.

For ``X = (S, U)`` (s-major) and mutual information under ``P``, ``I(X;Y) = I(S;Y) + I(U;Y|S) <=
I(S;Y) + H(U|S)``. If every column of the cone satisfies ``q_sᵀw <= F q_{s'}ᵀw`` for ``s ≠ s'``, with
``q_s = P(·|s)`` on block ``s``, the channel ``P(y|s)`` is ``log F``-LDP and ``I(S;Y)`` is at most the
``log F``-LDP optimum for the prior ``P_S``.

The checker proves the ratio from the cone's blocks: a block ``max_{a∈A} aᵀw <= F min_{b∈B} bᵀw`` with
``q_s ∈ conv A`` and ``q_{s'} ∈ conv B`` gives ``q_sᵀw <= max_A aᵀw <= F min_B bᵀw <= F q_{s'}ᵀw``
(membership by a least-squares fit on the simplex, to :data:`~privopt.tolerances.CHECK_MEMBERSHIP_ATOL`).
The LDP optimum is then the vertex LP over the two-level columns ``{1, F}^{|S|}`` (Kairouz et al.
Thm. 4: they contain the vertices of the ε-LDP slice), solved by HiGHS and *bounded* by its duals:
``Σλ + |S|·max(0, max_v μ(v) − λᵀv)`` over every such column, with a rounding margin.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import numpy as np
from scipy.optimize import linprog, nnls

from privopt.certificates.objective import entropy_prior, entropy_scale, xlogx
from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.compiler.cone import RowCone
from privopt.tolerances import CHECK_MEMBERSHIP_ATOL, CHECK_ROUNDING_RTOL
from privopt.utilities import ConcaveUtility, SubConvexUtility

#: Largest ``|S|`` whose ``2^|S|`` two-level columns the checker enumerates.
MAX_SENSITIVE = 16


def _in_hull(vectors: np.ndarray, point: np.ndarray) -> bool:
    """Whether ``point`` is a convex combination of the rows of ``vectors`` (to the membership tolerance)."""
    system = np.vstack([vectors.T, np.ones(vectors.shape[0])])
    target = np.append(point, 1.0)
    _, residual = nnls(system, target)
    return bool(residual <= CHECK_MEMBERSHIP_ATOL)


def ldp_mi_bound(p_s: np.ndarray, factor: float) -> float | NotProved:
    """An upper bound on ``max I(S;Y)`` over ``log F``-LDP channels from ``S ~ p_s`` (module docstring)."""
    k = p_s.size
    patterns = np.array(list(itertools.product((1.0, factor), repeat=k)))
    columns = patterns / patterns.sum(axis=1, keepdims=True)
    q = columns @ p_s
    mu = xlogx(columns) @ p_s - xlogx(q)
    result = linprog(-mu, A_eq=columns.T, b_eq=np.ones(k), bounds=(0.0, None), method="highs")
    if result.status != 0:
        return NotProved(NotProvedReason.NUMERICS, f"the LDP vertex LP failed ({result.message})")
    duals = -np.asarray(result.eqlin.marginals, dtype=np.float64)
    reduced = mu - columns @ duals
    margin = CHECK_ROUNDING_RTOL * (np.abs(xlogx(columns)) @ p_s + np.abs(columns) @ np.abs(duals) + 1.0)
    return float(np.sum(duals)) + k * max(0.0, float(np.max(reduced + margin)))


def chain_rule_bound(
    cone: RowCone,
    utility: SubConvexUtility | ConcaveUtility,
    parameters: dict[str, Any],
    deadline: float,
) -> float | NotProved:
    """The chain-rule bound on the utility (module docstring), or why it does not apply."""
    prior = entropy_prior(utility) if isinstance(utility, SubConvexUtility) else None
    if prior is None:
        return NotProved(NotProvedReason.UTILITY, "the chain rule bounds mutual information (and NMI) only")
    shape = tuple(int(v) for v in parameters.get("shape", ()))
    if len(shape) != 2 or shape[0] * shape[1] != cone.n_inputs:
        return NotProved(NotProvedReason.CONE, f"the inputs are not S × U of the stated shape {shape}")
    n_u = shape[1]
    joint = prior.reshape(shape)
    p_s = joint.sum(axis=1)
    support = [int(s) for s in np.flatnonzero(p_s > 0.0)]
    if len(support) > MAX_SENSITIVE:
        return NotProved(NotProvedReason.SIZE, f"|S| = {len(support)} is above {MAX_SENSITIVE}")
    conditionals = {s: np.zeros(cone.n_inputs) for s in support}
    for s in support:
        conditionals[s][s * n_u : (s + 1) * n_u] = joint[s] / p_s[s]
    member = {
        (g, s): _in_hull(group.vectors, conditionals[s])
        for g, group in enumerate(cone.groups)
        for s in support
    }
    factor = 0.0
    for s, t in itertools.permutations(support, 2):
        if time.perf_counter() > deadline:
            return NotProved(NotProvedReason.DEADLINE, "the time limit was reached")
        usable = [b.factor for b in cone.blocks if member[b.numerator, s] and member[b.denominator, t]]
        if not usable:
            return NotProved(NotProvedReason.CONE, f"no block of the cone bounds P(y|s={s}) by P(y|s={t})")
        factor = max(factor, min(usable))
    if len(support) < 2:
        value = 0.0
    else:
        found = ldp_mi_bound(p_s[support], factor)
        if isinstance(found, NotProved):
            return found
        value = found
    h_s = -float(np.sum(xlogx(p_s)))
    h_x = -float(np.sum(xlogx(prior)))
    assert isinstance(utility, SubConvexUtility)
    return (value + (h_x - h_s)) / entropy_scale(utility)
