"""Exact pricing on small envelope cones: every product of block vertices, at every event of ``ρ``.

On an envelope cone (:mod:`privopt.routes.pricing.structure`) the pricing ratio ``R(w) = (μ(w) −
λᵀw)/pᵀw`` is quasi-convex, and the cone is the union over ``(s*, ρ ∈ [1, F])`` of products of block
polytopes (:mod:`privopt.routes.pricing.envelope`). Between two *events* (``ρ`` where a block's vertex
set changes kind, :class:`~privopt.routes.pricing.envelope.EnvelopePricer`'s event lists) every
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

import functools
from dataclasses import dataclass

import numpy as np

from privopt.memory import require
from privopt.routes.pricing.blocks import xlogx
from privopt.routes.pricing.columns import distinct_columns
from privopt.routes.pricing.envelope import EnvelopePricer
from privopt.validation import FloatArray

#: Largest number of combinations (summed over every ``(s*, ρ)``) the enumeration takes on.
MAX_WORK = 3_000_000


@dataclass(frozen=True, eq=False)
class _Configuration:
    """One ``(s*, ρ)``: each block's vertices (rows, on the block's inputs)."""

    points: tuple[FloatArray, ...]

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(points) for points in self.points)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


@functools.lru_cache(maxsize=256)
def _grid(shape: tuple[int, ...]) -> np.ndarray:
    """Every combination of ``shape`` (one row per block: the vertex each takes), read-only: the same
    shapes recur across the ``(s*, ρ)`` of a cone and across a curve's points."""
    grid = np.indices(shape, dtype=np.int32).reshape(len(shape), -1)
    grid.flags.writeable = False
    return grid


@dataclass(frozen=True, eq=False)
class _Combinations:
    """Every combination of every configuration, flat: per block ``s`` the configurations' vertices
    stacked (``points[s]``, with their ``λ``-free term ``Σ p w log w`` in ``entropy[s]``) and, per
    combination, the row it takes in each block (``index[s]``, 32-bit: half the memory a pricing
    streams through); the combinations' ``pᵀw`` enter as ``1/pᵀw`` and ``log pᵀw``, which do not depend
    on the duals. Configuration ``k`` holds the combinations ``starts[k]:starts[k+1]``. A pricing is
    then one product per block and one gather per block, whatever the number of configurations."""

    points: tuple[FloatArray, ...]
    entropy: tuple[FloatArray, ...]
    index: tuple[np.ndarray, ...]
    inverse_mass: FloatArray
    log_mass: FloatArray
    starts: np.ndarray

    @classmethod
    def of(cls, configurations: list[_Configuration], weights: tuple[FloatArray, ...]) -> _Combinations:
        n_blocks = len(weights)
        points = tuple(np.vstack([c.points[s] for c in configurations]) for s in range(n_blocks))
        shapes = np.array([configuration.shape for configuration in configurations], dtype=np.int32)
        offsets = np.cumsum(shapes, axis=0, dtype=np.int32) - shapes
        chosen = [_grid(tuple(shape)) for shape in shapes.tolist()]
        flat = tuple(
            np.concatenate([grid[s] + offset for grid, offset in zip(chosen, offsets[:, s], strict=True)])
            for s in range(n_blocks)
        )
        mass = np.zeros(flat[0].size)
        for s in range(n_blocks):
            mass += (points[s] @ weights[s])[flat[s]]
        with np.errstate(divide="ignore"):
            inverse, log_mass = 1.0 / mass, np.log(mass)
        sizes = [c.size for c in configurations]
        return cls(
            points,
            tuple(xlogx(points[s]) @ weights[s] for s in range(n_blocks)),
            flat,
            inverse,
            log_mass,
            np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp),
        )

    def ratios(self, terms: tuple[FloatArray, ...], out: FloatArray, scratch: FloatArray) -> FloatArray:
        """``R`` of every combination into ``out``: the blocks' ``terms`` (one per stacked vertex)
        gathered and summed, then ``A/pᵀw − log pᵀw``; in place (``scratch`` as large as ``out``), so
        that the rounds of one pricer reuse the same memory instead of faulting in fresh pages."""
        # mode="clip": the indices are in range by construction, and "raise" would buffer ``out``.
        np.take(terms[0], self.index[0], out=out, mode="clip")
        for s in range(1, len(terms)):
            np.take(terms[s], self.index[s], out=scratch, mode="clip")
            out += scratch
        out *= self.inverse_mass
        out -= self.log_mass
        return out


class ProductPricer:
    """Exact pricing by enumeration (module docstring) for the cone and objective of ``pricer``."""

    #: The slice's normalisation ``ν = p``; its name and what :attr:`work` counts, in reports.
    normalisation = "prior"
    name = "block-vertex products"
    unit = "combinations"

    def __init__(self, pricer: EnvelopePricer) -> None:
        self.pricer = pricer
        structure = pricer.structure
        factor = structure.factor
        stars = [-1] if structure.self_pairs else list(range(structure.n_blocks))
        events = [(star, rho) for star in stars for rho in self._events(star)]
        per_block = []
        for s, table in enumerate(pricer.tables):
            bounds = [
                (1.0, factor) if star < 0 else ((1.0, factor * rho) if s == star else (rho, factor))
                for star, rho in events
            ]
            D, T = np.array(bounds).T
            per_block.append(table.points(D, T))
        self.configurations = [_Configuration(points) for points in zip(*per_block, strict=True)]

    @functools.cached_property
    def _combinations(self) -> _Combinations:
        """Built at the first pricing: the route reads :attr:`work` first and refuses above
        :data:`MAX_WORK` without the allocation."""
        weights = self.pricer.objective.weights
        blocks = self.pricer.structure.blocks
        # Per combination: a 32-bit row index per block, 1/pᵀw and log pᵀw, and the two buffers.
        require(
            self.work * (4 * len(blocks) + 4 * 8),
            f"exact pricing over {self.work:,} block-vertex combinations",
            "route='colgen' (column generation with a certified bound)",
        )
        return _Combinations.of(self.configurations, tuple(weights[block] for block in blocks))

    @functools.cached_property
    def _buffers(self) -> tuple[FloatArray, FloatArray]:
        """Two arrays of one value per combination that every pricing of this pricer writes into
        (:meth:`_Combinations.ratios`): a pricer serves one column generation at a time."""
        size = self._combinations.log_mass.size
        return np.empty(size), np.empty(size)

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

    @functools.cached_property
    def work(self) -> int:
        """Combinations one pricing evaluates."""
        return sum(configuration.size for configuration in self.configurations)

    def price(self, duals: FloatArray, limit: int, threshold: float) -> tuple[float, list[FloatArray]]:
        """``(max R, columns)``: the largest ratio over the cone at ``duals`` (in the utility's units)
        and up to ``limit`` columns (``Σ w = 1``) of ratio above ``threshold``: the best of each
        ``(s*, ρ)``, best first (columns from many ``ρ`` cut the rounds column generation needs)."""
        blocks = self.pricer.structure.blocks
        scale = self.pricer.objective.scale
        lam = np.asarray(duals, dtype=np.float64) / scale
        flat = self._combinations
        terms = tuple(flat.entropy[s] - flat.points[s] @ lam[block] for s, block in enumerate(blocks))
        ratio = flat.ratios(terms, *self._buffers)
        tops = np.maximum.reduceat(ratio, flat.starts)
        stops = np.append(flat.starts[1:], ratio.size)
        chosen = [k for k in np.argsort(-tops)[:limit] if scale * tops[k] > threshold]
        combinations = np.array(
            [int(flat.starts[k]) + int(np.argmax(ratio[flat.starts[k] : stops[k]])) for k in chosen],
            dtype=np.intp,
        )
        return scale * float(tops.max()), distinct_columns(self._columns(combinations))

    def _columns(self, combinations: np.ndarray) -> FloatArray:
        """The columns (inputs × combinations, each summing to 1) of combinations (indices into
        :attr:`_combinations`)."""
        flat = self._combinations
        columns = np.zeros((self.pricer.n_inputs, combinations.size))
        for s, block in enumerate(self.pricer.structure.blocks):
            columns[block] = flat.points[s][flat.index[s][combinations]].T
        return columns / columns.sum(axis=0)
