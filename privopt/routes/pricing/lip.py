"""Exact pricing for ε-LIP w.r.t. S at a known distribution (privacy-funnel paper Definition 2).

The compiled cone of ``LIP(ε, P)`` is ``K = {w >= 0 : F⁻¹ rᵀw <= q_sᵀw <= F rᵀw for every s}`` with
``F = e^ε``, ``q_s = P(·|s)`` supported on the block ``X_s = {(s, u)}`` and ``r = P_X = Σ_s P(s) q_s``.
On the slice ``rᵀw = 1`` write ``m_s = q_sᵀw_s``: the LIP rows say ``m_s ∈ [1/F, F]``, and ``rᵀw = 1``
says ``Σ_s P(s) m_s = 1``. Within a block, ``{w_s >= 0 : q_sᵀw_s = m_s}`` is a simplex with vertices
``(m_s / q_{s,u}) e_{(s,u)}``. For mutual information under ``P`` itself (``p = r``), on the slice
``μ(w) = Σ_x p_x w_x log w_x`` (Entropy paper eq. 45), so at such a vertex the reduced cost is

    Σ_s P(s) m_s log m_s + m_s C_s,     C_s = max_u [−P(s) log q_{s,u} − λ_{s,u} / q_{s,u}],

(the best ``u`` does not depend on ``m_s``), a separable convex function of ``m``: its maximum over
the box ``[1/F, F]^S`` cut by ``Σ_s P(s) m_s = 1`` is at a vertex of that set — every ``m_s`` at a
bound but at most one. :class:`LipPricer` enumerates these ``|S|·2^(|S|−1)`` points: exact pricing, so
the vertex route solves the LP over every vertex of the slice without enumerating them
(docs/compiler.md, "Routes"). Inputs of probability 0 appear in no row: they are priced at 0 when
their dual is non-negative, and make the bound infinite otherwise.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from privopt.compiler.cone import RowCone
from privopt.routes.pricing.blocks import xlogx
from privopt.routes.pricing.columns import distinct_columns
from privopt.routes.pricing.contract import Refusal, RefusalReason
from privopt.routes.pricing.envelope import SliceObjective
from privopt.tolerances import LIP_STRUCTURE_RTOL, PROBABILITY_ATOL
from privopt.validation import FloatArray

#: Largest ``|S|`` priced by enumeration (``|S|·2^(|S|−1)`` points: 1.9 million at 17).
MAX_SENSITIVE = 17


@dataclass(frozen=True, eq=False)
class LipCone:
    """A LIP cone at a known distribution (module docstring)."""

    blocks: tuple[np.ndarray, ...]
    conditionals: tuple[FloatArray, ...]
    prior: FloatArray
    marginal: FloatArray
    factor: float


def lip_structure(cone: RowCone) -> LipCone | Refusal:
    """The cone as ``F⁻¹ rᵀw <= q_sᵀw <= F rᵀw`` on disjoint blocks, or why it is not one."""
    if any(len(group.vectors) != 1 for group in cone.groups) or len(cone.groups) < 2:
        return Refusal(RefusalReason.CONE, "its groups are not single statistics")
    factors = np.array([block.factor for block in cone.blocks])
    if not len(factors) or np.ptp(factors) > LIP_STRUCTURE_RTOL * factors.max():
        return Refusal(RefusalReason.CONE, "its blocks do not share one factor")
    pairs = {(block.numerator, block.denominator) for block in cone.blocks}
    marginals = [
        g
        for g in range(len(cone.groups))
        if all(((h, g) in pairs and (g, h) in pairs) for h in range(len(cone.groups)) if h != g)
    ]
    if len(marginals) != 1 or len(pairs) != 2 * (len(cone.groups) - 1):
        return Refusal(
            RefusalReason.CONE, "its blocks are not every conditional against one marginal and back"
        )
    (m,) = marginals
    r = cone.groups[m].vectors[0]
    blocks, conditionals, prior = [], [], []
    covered = np.zeros(cone.n_inputs, dtype=bool)
    for g, group in enumerate(cone.groups):
        if g == m:
            continue
        q = group.vectors[0]
        support = np.flatnonzero(q > 0.0)
        if np.any(q < 0.0) or support.size == 0 or np.any(covered[support]):
            return Refusal(RefusalReason.CONE, "its conditionals are not distributions on disjoint blocks")
        covered[support] = True
        mass = float(r[support].sum())
        if abs(q[support].sum() - 1.0) > PROBABILITY_ATOL or not mass > 0.0:
            return Refusal(
                RefusalReason.CONE, "a conditional is not a distribution with positive probability"
            )
        if np.max(np.abs(r[support] - mass * q[support])) > LIP_STRUCTURE_RTOL * max(1.0, float(r.max())):
            return Refusal(RefusalReason.CONE, "the marginal is not the mixture of the conditionals")
        blocks.append(support)
        conditionals.append(q[support])
        prior.append(mass)
    if np.any(r[~covered] != 0.0):
        return Refusal(RefusalReason.CONE, "the marginal has mass outside the conditionals' blocks")
    return LipCone(tuple(blocks), tuple(conditionals), np.array(prior), r, float(factors.max()))


class LipPricer:
    """Exact pricing of mutual information (or NMI) under ``P`` on a LIP cone (module docstring)."""

    #: The slice's normalisation ``ν = p``; its name and what :attr:`work` counts, in reports.
    normalisation = "prior"
    name = "LIP block masses"
    unit = "combinations"

    def __init__(self, structure: LipCone, objective: SliceObjective) -> None:
        if structure.prior.size > MAX_SENSITIVE:
            raise ValueError(f"|S| = {structure.prior.size} is above {MAX_SENSITIVE}")
        self.structure = structure
        self.objective = objective
        self.n_inputs = structure.marginal.size
        self.free = ~np.isin(np.arange(self.n_inputs), np.concatenate(structure.blocks))
        self.masses = self._vertices()

    def _vertices(self) -> FloatArray:
        """Every vertex of ``{m ∈ [1/F, F]^S : Σ_s P(s) m_s = 1}`` (rows; possibly repeated)."""
        prior, factor = self.structure.prior, self.structure.factor
        k = prior.size
        low, high = 1.0 / factor, factor
        rows = []
        for free in range(k):
            others = [s for s in range(k) if s != free]
            for bounds in itertools.product((low, high), repeat=len(others)):
                m = np.empty(k)
                m[others] = bounds
                m[free] = (1.0 - float(prior[others] @ np.array(bounds))) / prior[free]
                if low - 1e-12 <= m[free] <= high + 1e-12:
                    m[free] = min(max(m[free], low), high)
                    rows.append(m)
        return np.array(rows).reshape(-1, k)

    @property
    def weights(self) -> FloatArray:
        """The slice's normalisation ``ν = p``."""
        return self.objective.weights

    @property
    def work(self) -> int:
        return int(self.masses.size)

    def price(self, duals: FloatArray, limit: int, threshold: float) -> tuple[float, list[FloatArray]]:
        """``(max R, columns)``: the largest reduced cost over the slice ``pᵀw = 1`` at ``duals`` and up
        to ``limit`` columns (``Σ w = 1``) above ``threshold``, best first (``inf`` when an input of
        probability 0 has a negative dual)."""
        lam = np.asarray(duals, dtype=np.float64) / self.objective.scale
        if np.any(lam[self.free] < 0.0):
            return np.inf, []
        structure = self.structure
        best_u, constants = [], []
        for s, (inputs, q) in enumerate(zip(structure.blocks, structure.conditionals, strict=True)):
            scores = -structure.prior[s] * np.log(q) - lam[inputs] / q
            u = int(np.argmax(scores))
            best_u.append(u)
            constants.append(float(scores[u]))
        m = self.masses
        values = xlogx(m) @ structure.prior + m @ np.array(constants)
        chosen = [i for i in np.argsort(-values)[:limit] if self.objective.scale * values[i] > threshold]
        columns = np.zeros((self.n_inputs, len(chosen)))
        for s, inputs in enumerate(structure.blocks):
            columns[inputs[best_u[s]]] = m[chosen, s] / structure.conditionals[s][best_u[s]]
        return self.objective.scale * float(values.max()), distinct_columns(columns / columns.sum(axis=0))
