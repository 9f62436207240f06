"""The checker's proof of ``max (μ(w) − λᵀw)/pᵀw`` on LIP cones at a known distribution.

``LIP(ε, P)`` compiles to single-statistic groups: one per ``s``, the conditional ``q_s = P(·|s)`` on its
block ``X_s``, and the marginal ``r = P_X``, paired both ways with a factor ``F``: ``q_sᵀw <= F rᵀw`` and
``rᵀw <= F q_sᵀw``. The checker reads that shape from the compiled groups (independently of the
route's recogniser) and derives, for mutual information under ``P`` (``p = r``; NMI divides by
``H(X)``) and the normalisation ``ν = p``:

- On ``pᵀw = 1`` the rows are ``m_s = q_sᵀw ∈ [1/F, F]``, and ``Σ_s P(s) m_s = pᵀw = 1`` (``r`` restricted
  to ``X_s`` is ``P(s) q_s``). Inputs outside every block (``P(x) = 0``) appear in no row: the ratio is
  unbounded along them unless ``λ_x >= 0``, and then they stay at 0.
- ``R(w) = Σ_x p_x w_x log w_x − λᵀw`` there (Entropy paper eq. 45) is convex, so its maximum over the
  slice is at a vertex. A vertex is a vertex of each block's set ``{w_s >= 0 : q_sᵀw_s = m_s}`` — the
  points ``(m_s/q_{s,u}) e_{(s,u)}`` — for ``m`` a vertex of ``{m ∈ [1/F, F]^S : Σ P(s) m_s = 1}``. At
  such a point the block contributes ``P(s) m_s log m_s + m_s (−P(s) log q_{s,u} − λ_{s,u}/q_{s,u})``:
  the best ``u`` does not depend on ``m_s``.
- A vertex of that box cut by a hyperplane has every ``m_s`` at a bound but at most one, which the
  hyperplane fixes; the checker evaluates all of them, ``|S|·2^(|S|−1)`` points, by broadcasting.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from privopt.certificates.objective import entropy_prior, entropy_scale, xlogx
from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.compiler.cone import RowCone
from privopt.tolerances import (
    CHECK_FEASIBILITY_ATOL,
    CHECK_LIP_FORM_RTOL,
    CHECK_ROUNDING_RTOL,
    PROBABILITY_ATOL,
)
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: Largest ``|S|`` whose box vertices the checker enumerates.
MAX_SENSITIVE = 20


@dataclass(frozen=True, eq=False)
class LipForm:
    """The LIP cone as the checker reads it (module docstring)."""

    blocks: tuple[np.ndarray, ...]
    conditionals: tuple[FloatArray, ...]
    prior: FloatArray
    marginal: FloatArray
    factor: float


def lip_form(cone: RowCone) -> LipForm | NotProved:
    """The cone's LIP form, or why it has none."""
    groups = cone.groups
    if len(groups) < 2 or any(group.vectors.shape[0] != 1 for group in groups):
        return NotProved(NotProvedReason.CONE, "its groups are not single statistics")
    factors = [block.factor for block in cone.blocks]
    if not factors or max(factors) - min(factors) > CHECK_LIP_FORM_RTOL * max(factors):
        return NotProved(NotProvedReason.CONE, "its blocks do not share one factor")
    pairs = [(block.numerator, block.denominator) for block in cone.blocks]
    degree = np.zeros(len(groups), dtype=int)
    for a, b in pairs:
        degree[a] += 1
        degree[b] += 1
    hub = int(np.argmax(degree))
    others = [g for g in range(len(groups)) if g != hub]
    if sorted(pairs) != sorted([(g, hub) for g in others] + [(hub, g) for g in others]):
        return NotProved(
            NotProvedReason.CONE, "its blocks are not each conditional against one marginal, both ways"
        )
    r = groups[hub].vectors[0]
    owner = np.full(cone.n_inputs, -1)
    blocks, conditionals, prior = [], [], []
    for g in others:
        q = groups[g].vectors[0]
        inputs = np.flatnonzero(q != 0.0)
        if np.any(q < 0.0) or inputs.size == 0 or np.any(owner[inputs] >= 0):
            return NotProved(
                NotProvedReason.CONE, "its conditionals are not distributions on disjoint blocks"
            )
        owner[inputs] = g
        mass = float(np.sum(r[inputs]))
        if not mass > 0.0 or abs(float(np.sum(q[inputs])) - 1.0) > PROBABILITY_ATOL:
            return NotProved(
                NotProvedReason.CONE, "a conditional is not a distribution of positive probability"
            )
        if np.max(np.abs(r[inputs] - mass * q[inputs])) > CHECK_LIP_FORM_RTOL * max(1.0, float(np.max(r))):
            return NotProved(NotProvedReason.CONE, "the marginal is not the mixture of the conditionals")
        blocks.append(inputs)
        conditionals.append(q[inputs])
        prior.append(mass)
    if np.any(r[owner < 0] != 0.0):
        return NotProved(NotProvedReason.CONE, "the marginal has mass outside the conditionals")
    return LipForm(tuple(blocks), tuple(conditionals), np.array(prior), r, float(max(factors)))


@dataclass(frozen=True)
class LipMaximum:
    """``max R`` (``value``; ``margin`` bounds its rounding) and a column attaining it."""

    value: float
    margin: float
    column: FloatArray
    points: int
    seconds: float


def applicable(form: LipForm, utility: SubConvexUtility, weights: FloatArray) -> NotProved | None:
    """Why the method does not apply to this utility and normalisation (``None``: it does)."""
    p = entropy_prior(utility)
    if p is None:
        return NotProved(NotProvedReason.UTILITY, "the LIP method prices mutual information (and NMI) only")
    if p.shape != form.marginal.shape or np.max(np.abs(p - form.marginal)) > PROBABILITY_ATOL:
        return NotProved(
            NotProvedReason.UTILITY,
            "the utility is measured under another distribution than the definition's",
        )
    if np.max(np.abs(weights - form.marginal)) > PROBABILITY_ATOL:
        return NotProved(NotProvedReason.CLAIM, "the normalisation is not pᵀw = 1")
    if form.prior.size > MAX_SENSITIVE:
        return NotProved(NotProvedReason.SIZE, f"|S| = {form.prior.size} is above {MAX_SENSITIVE}")
    return None


def maximise_ratio(
    form: LipForm, utility: SubConvexUtility, duals: FloatArray, deadline: float | None
) -> LipMaximum | NotProved:
    """``max R`` over the cone (module docstring), or why it could not be found."""
    start = time.perf_counter()
    scale = entropy_scale(utility)
    lam = np.asarray(duals, dtype=np.float64) * scale
    n = form.marginal.size
    inside = np.zeros(n, dtype=bool)
    for inputs in form.blocks:
        inside[inputs] = True
    if np.any(lam[~inside] < 0.0):
        return NotProved(
            NotProvedReason.CLAIM,
            "an input of probability 0 has a negative dual: the ratio is unbounded along it",
        )
    k = form.prior.size
    choice, constant, magnitude = [], np.empty(k), np.empty(k)
    for s, (inputs, q) in enumerate(zip(form.blocks, form.conditionals, strict=True)):
        terms = -form.prior[s] * np.log(q) - lam[inputs] / q
        best = int(np.argmax(terms))
        choice.append(inputs[best])
        constant[s] = terms[best]
        magnitude[s] = abs(form.prior[s] * np.log(q[best])) + abs(lam[inputs][best] / q[best])
    low, high = 1.0 / form.factor, form.factor
    corners = ((np.arange(2 ** (k - 1))[:, None] >> np.arange(k - 1)[None, :]) & 1).astype(bool)
    best_value, best_m, points = -np.inf, np.ones(k), 0
    for free in range(k):
        if deadline is not None and time.perf_counter() > deadline:
            return NotProved(NotProvedReason.DEADLINE, "the time limit was reached")
        rest = np.delete(np.arange(k), free)
        m = np.empty((corners.shape[0], k))
        m[:, rest] = np.where(corners, high, low)
        m[:, free] = (1.0 - m[:, rest] @ form.prior[rest]) / form.prior[free]
        slack = CHECK_FEASIBILITY_ATOL * high
        # A point within ``slack`` of the box is a vertex moved by rounding: it is evaluated where it
        # is, and the margin covers the move (never clipped).
        m = m[(m[:, free] >= low - slack) & (m[:, free] <= high + slack)]
        if not m.size:
            continue
        values = xlogx(m) @ form.prior + m @ constant
        points += len(m)
        index = int(np.argmax(values))
        if values[index] > best_value:
            best_value, best_m = float(values[index]), m[index]
    if points == 0:
        return NotProved(NotProvedReason.CONE, "the cone's slice is empty")
    column = np.zeros(n)
    for s, q in enumerate(form.conditionals):
        position = int(np.flatnonzero(form.blocks[s] == choice[s])[0])
        column[choice[s]] = best_m[s] / q[position]
    slope = form.prior * (np.abs(np.log(np.maximum(best_m, low))) + 1.0) + magnitude
    margin = CHECK_ROUNDING_RTOL * float(np.abs(xlogx(best_m)) @ form.prior + best_m @ magnitude + 1.0)
    margin += CHECK_FEASIBILITY_ATOL * high * float(np.sum(slope))  # the free mass moved by <= slack
    return LipMaximum(
        best_value / scale, margin / scale, column / column.sum(), points, time.perf_counter() - start
    )
