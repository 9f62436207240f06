"""Recognising the *envelope-block* structure of a row cone (the Γ cone and its relatives).

The pricing bound of :mod:`privopt.routes.pricing.envelope` needs a cone of the form (Entropy paper
Definition 3, Γ cone)::

    a_s(w) <= F · b_{s'}(w)     for every ordered pair s != s'   (and s = s' with self pairs),

where the inputs are partitioned into blocks ``X_s`` and, on its block, group ``s`` holds the
vectors ``L_s + c_s e_u`` (``u ∈ X_s``, ``c_s = 1 − Σ_u L_{s,u} > 0``): the vertices of the lower
envelope ``D_s = {R ∈ Δ : R >= L_s}`` (Entropy paper eq. 42). Then
``a_s = L_sᵀw_s + c_s max_u w_{s,u}`` and ``b_s = L_sᵀw_s + c_s min_u w_{s,u}``.

LDP itself is the case of one group ``{e_x}`` with its self pair (``L = 0``, ``c = 1``); the Γ cone
of a Rényi ball with the ``"lower"`` envelope is the case of one group per sensitive value. Two
relatives are recognised too: a *star* (one hub group paired both ways with every other group, and no
other pairs: Pufferfish's discriminative pairs against one secret), and inputs in no group (*free*
inputs, unconstrained: Pufferfish's non-secret values).
:func:`envelope_structure` recognises these cones exactly (within :data:`ENVELOPE_STRUCTURE_RTOL`) and says
why when a cone is not one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privopt.compiler.cone import RowCone
from privopt.routes.pricing.contract import Refusal, RefusalReason
from privopt.tolerances import ENVELOPE_STRUCTURE_RTOL, PROBABILITY_ATOL
from privopt.validation import FloatArray


@dataclass(frozen=True, eq=False)
class EnvelopeCone:
    """A cone ``a_s <= factor · b_{s'}`` over envelope blocks (module docstring).

    Attributes
    ----------
    blocks:
        For each block ``s``, the input indices ``X_s`` (disjoint, covering every input).
    lower:
        For each block, ``L_s`` on its inputs (same order as ``blocks[s]``).
    slack:
        ``c_s = 1 − Σ_u L_{s,u}`` per block.
    factor:
        ``F = e^{ε + shift}``.
    self_pairs:
        Whether the pairs ``s = s'`` are imposed too (then ``max_s a_s <= F min_s b_s``).
    hub:
        For a star, the block paired with every other one (``None``: every ordered pair).
    free:
        The inputs in no group (none may be in ``blocks``).
    """

    blocks: tuple[np.ndarray, ...]
    lower: tuple[FloatArray, ...]
    slack: FloatArray
    factor: float
    self_pairs: bool
    hub: int | None = None
    free: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))

    @property
    def n_blocks(self) -> int:
        return len(self.blocks)

    @property
    def stars(self) -> list[int]:
        """The blocks ``s*`` of the union over ``(s*, ρ)`` (``[-1]``: self pairs, one product).

        With every ordered pair, ``s*`` is the block of the smallest ``b_s`` (any block). In a star,
        scaled so that the hub's ``b_h = 1``, with ``ρ = a_h/F``: the hub is in ``B(1, Fρ)`` and every
        other block in ``B(ρ, F)`` (``a_h <= F b_s`` and ``a_s <= F b_h``), so ``s*`` is the hub.
        """
        if self.self_pairs:
            return [-1]
        return [self.hub] if self.hub is not None else list(range(self.n_blocks))

    @property
    def rho_low(self) -> float:
        """The smallest ``ρ``: 1 (``ρ = min_{s≠s*} b_s >= b_{s*} = 1``), or ``1/F`` in a star (``a_h >= b_h``)."""
        return 1.0 / self.factor if self.hub is not None else 1.0


def envelope_structure(cone: RowCone) -> EnvelopeCone | Refusal:
    """The envelope-block form of ``cone``, or a sentence saying why it has none."""
    if not cone.blocks:
        return Refusal(RefusalReason.CONE, "the cone has no ratio blocks")
    factors = {block.factor for block in cone.blocks}
    if max(factors) - min(factors) > ENVELOPE_STRUCTURE_RTOL * max(factors):
        return Refusal(RefusalReason.CONE, "its blocks have different privacy factors e^{ε+shift}")
    used = sorted({b.numerator for b in cone.blocks} | {b.denominator for b in cone.blocks})
    pairs = {(b.numerator, b.denominator) for b in cone.blocks}
    distinct = {(g, h) for g in used for h in used if g != h}
    selfs = {(g, g) for g in used}
    hub = None
    if pairs == distinct | selfs:
        self_pairs = True
    elif pairs == distinct and len(used) >= 2:
        self_pairs = False
    else:
        hubs = [
            g for g in used if pairs == {(g, h) for h in used if h != g} | {(h, g) for h in used if h != g}
        ]
        if len(used) < 3 or not hubs:
            return Refusal(
                RefusalReason.CONE,
                "its blocks are neither all ordered pairs of the same groups (the Γ pattern) nor a star",
            )
        self_pairs, hub = False, used.index(hubs[0])
    blocks, lowers, slacks = [], [], []
    covered = np.zeros(cone.n_inputs, dtype=bool)
    for g in used:
        parsed = _envelope_group(cone.groups[g].vectors)
        if isinstance(parsed, Refusal):
            return Refusal(RefusalReason.CONE, f"group '{cone.groups[g].name}' {parsed.message}")
        support, lower, slack = parsed
        if np.any(covered[support]):
            return Refusal(RefusalReason.CONE, "two groups share an input (the blocks are not disjoint)")
        covered[support] = True
        blocks.append(support)
        lowers.append(lower)
        slacks.append(slack)
    free = np.flatnonzero(~covered)
    return EnvelopeCone(
        tuple(blocks), tuple(lowers), np.array(slacks), float(max(factors)), self_pairs, hub, free
    )


def _envelope_group(vectors: FloatArray) -> tuple[np.ndarray, FloatArray, float] | Refusal:
    """``(X_s, L_s, c_s)`` when the rows are ``L_s + c_s e_u`` for ``u ∈ X_s``, else a reason."""
    support = np.flatnonzero(np.any(vectors > 0.0, axis=0))
    sub = vectors[:, support]
    if sub.shape[0] != support.size:
        return Refusal(
            RefusalReason.CONE,
            "does not have one statistic per input of its block (not a lower envelope D_s)",
        )
    scale = float(np.max(np.abs(sub)))
    lower = sub.min(axis=0)
    excess = sub - lower[None, :]
    diagonal = np.argmax(excess, axis=1)
    if np.unique(diagonal).size != support.size:
        return Refusal(RefusalReason.CONE, "is not of the form L_s + c_s e_u")
    order = np.argsort(diagonal)
    excess = excess[order]
    slack = float(np.mean(np.diag(excess)))
    if not slack > ENVELOPE_STRUCTURE_RTOL * scale:
        return Refusal(
            RefusalReason.CONE, "has c_s = 0 (a point distribution): not handled by the envelope bound"
        )
    if np.max(np.abs(excess - slack * np.eye(support.size))) > ENVELOPE_STRUCTURE_RTOL * max(scale, 1.0):
        return Refusal(RefusalReason.CONE, "is not of the form L_s + c_s e_u")
    if abs(lower.sum() + slack - 1.0) > PROBABILITY_ATOL:
        return Refusal(RefusalReason.CONE, "is not a lower envelope of distributions (Σ L_s + c_s != 1)")
    return support, lower, slack
