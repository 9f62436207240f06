"""Exact pricing on small envelope cones: every product of block vertices, at every event of ``ρ``.

On an envelope cone (:mod:`privopt.routes.pricing.structure`) the pricing ratio ``R(w) = (μ(w) −
λᵀw)/pᵀw`` is quasi-convex, and the cone is the union over ``(s*, ρ ∈ [1, F])`` of products of block
polytopes (:mod:`privopt.routes.pricing.bound`). Between two *events* (``ρ`` where a block's vertex
set changes kind, :class:`~privopt.routes.pricing.bound.EnvelopePricer`'s event lists) every
combination of block vertices moves affinely in ``ρ``, so ``R`` is largest at the events. When the
products are small (3×3 and 2×5 alphabets: a few thousand combinations at a few dozen events), their
enumeration prices exactly and faster than a branch and bound: :class:`ProductPricer` keeps, for each
``(s*, ρ)``, each block's vertices (:meth:`~privopt.routes.pricing.blocks.BlockTable.points`) with
their ``λ``-free terms, and per dual vector adds the blocks' terms by broadcasting.

The vertex route uses it on envelope cones without self pairs (the default cone, where the lifted
enumeration does not apply) as column generation with exact pricing: no vertex enumeration at all
(docs/compiler.md, "Routes").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privopt.routes.pricing.blocks import xlogx
from privopt.routes.pricing.bound import EnvelopePricer
from privopt.validation import FloatArray

#: Largest number of combinations (summed over every ``(s*, ρ)``) the enumeration takes on.
MAX_WORK = 3_000_000


@dataclass(frozen=True, eq=False)
class _Configuration:
    """One ``(s*, ρ)``: each block's vertices (rows, on the block's inputs) and their ``pᵀw`` and
    ``Σ p w log w``, which do not depend on the duals."""

    points: tuple[FloatArray, ...]
    mass: tuple[FloatArray, ...]
    entropy: tuple[FloatArray, ...]

    @property
    def size(self) -> int:
        return int(np.prod([len(points) for points in self.points]))


class ProductPricer:
    """Exact pricing by enumeration (module docstring) for the cone and objective of ``pricer``."""

    #: The slice's normalisation: ``ν = p``.
    normalisation = "prior"

    def __init__(self, pricer: EnvelopePricer) -> None:
        self.pricer = pricer
        structure = pricer.structure
        factor = structure.factor
        weights = pricer.objective.weights
        self.configurations: list[_Configuration] = []
        stars = [-1] if structure.self_pairs else list(range(structure.n_blocks))
        for star in stars:
            for rho in self._events(star):
                points, mass, entropy = [], [], []
                for s, table in enumerate(pricer.tables):
                    D, T = (
                        (1.0, factor) if star < 0 else ((1.0, factor * rho) if s == star else (rho, factor))
                    )
                    block = table.points(D, T)
                    p = weights[structure.blocks[s]]
                    points.append(block)
                    mass.append(block @ p)
                    entropy.append(xlogx(block) @ p)
                self.configurations.append(_Configuration(tuple(points), tuple(mass), tuple(entropy)))

    def _events(self, star: int) -> FloatArray:
        """``ρ`` in ``[1, F]`` where some block's vertex kinds change when ``star`` is ``s*``, with 1 and F."""
        if star < 0:
            return np.ones(1)
        factor = self.pricer.structure.factor
        found = [np.array([1.0, factor])]
        for s in range(self.pricer.structure.n_blocks):
            rho, _, _ = self.pricer.events[s == star][s]
            found.append(rho[np.isfinite(rho)])
        rho = np.unique(np.concatenate(found))
        return rho[(rho >= 1.0) & (rho <= factor)]

    @property
    def weights(self) -> FloatArray:
        """The slice's normalisation ``ν = p`` (the pricer's prior)."""
        return self.pricer.objective.weights

    @property
    def work(self) -> int:
        """Combinations one pricing evaluates."""
        return sum(configuration.size for configuration in self.configurations)

    def price(self, duals: FloatArray, limit: int, threshold: float) -> tuple[float, list[FloatArray]]:
        """``(max R, columns)``: the largest ratio over the cone at ``duals`` (in the utility's units)
        and up to ``limit`` columns (``Σ w = 1``) of ratio above ``threshold``: the best of each
        ``(s*, ρ)``, best first (columns from many ``ρ`` cut the rounds column generation needs)."""
        structure = self.pricer.structure
        scale = self.pricer.objective.scale
        lam = np.asarray(duals, dtype=np.float64) / scale
        tops = np.empty(len(self.configurations))
        where = np.empty(len(self.configurations), dtype=np.intp)
        for k, configuration in enumerate(self.configurations):
            A = P = np.zeros(1)
            for s, points in enumerate(configuration.points):
                a = configuration.entropy[s] - points @ lam[structure.blocks[s]]
                A = (A[:, None] + a[None, :]).reshape(-1)
                P = (P[:, None] + configuration.mass[s][None, :]).reshape(-1)
            ratio = A / P - np.log(P)
            where[k] = int(np.argmax(ratio))
            tops[k] = ratio[where[k]]
        order = np.argsort(-tops)
        columns: list[FloatArray] = []
        for k in order[:limit]:
            if scale * tops[k] <= threshold:
                break
            column = self._column(self.configurations[k], int(where[k]))
            if not any(np.max(np.abs(column - kept)) < 1e-12 for kept in columns):
                columns.append(column)
        return scale * float(tops.max()), columns

    def _column(self, configuration: _Configuration, index: int) -> FloatArray:
        """The column (``Σ w = 1``) of combination ``index`` of ``configuration``."""
        structure = self.pricer.structure
        column = np.zeros(self.pricer.n_inputs)
        shape = [len(points) for points in configuration.points]
        for s, chosen in enumerate(np.unravel_index(index, shape)):
            column[structure.blocks[s]] = configuration.points[s][chosen]
        return column / column.sum()
