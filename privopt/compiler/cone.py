"""Row cones: the compiled form of every privacy definition (docs/concepts.md, "Row cones").

A definition over an uncertainty set compiles to *blocks* of the form::

    max_{a ∈ A} aᵀw  <=  e^{ε + shift} · min_{b ∈ B} bᵀw        for every column w,

where ``A`` and ``B`` are finite *groups* of non-negative vectors (linear statistics of a column):
the conditionals ``P(·|s)`` of a known distribution, the vertices of an envelope ``D_s`` of a
Rényi ball's projection, the point masses ``e_x`` for LDP, and so on. A block is the robust
counterpart of one ratio constraint by the vertex rule: a linear function's maximum over a polytope
is attained at a vertex.

Expanding every block into its ``|A|·|B|`` rows ``a − e^{ε+shift} b`` gives the projected cone
``{w >= 0 : G w <= 0}`` used by vertex enumeration (:meth:`RowCone.matrix`). Keeping one variable
for each group's max (``t_A``) and min (``b_B``) gives the much smaller lifted system (docs/compiler.md, "Routes"), for LP-based routes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from privopt.compiler.ratio_pairs import RatioPairs
from privopt.data.terms import PairLabel, Term
from privopt.errors import ShapeError, ValidationError
from privopt.memory import require
from privopt.sets.renyi import facet_count
from privopt.validation import FloatArray

ENVELOPES = ("lower", "box")
#: How LIP is compiled over a set without an exact counterpart (:class:`CompileOptions`).
LIP_COUNTERPARTS = ("auto", "rectangular", "pairwise")


@dataclass(frozen=True)
class CompileOptions:
    """How a definition is compiled.

    envelope:
        Polytope enclosing each conditional projection of a Rényi ball: ``"lower"`` (the Entropy
        paper's ``D_s``, Γ cone of Definition 3), ``"box"`` (lower and upper bounds) or
        ``"facets:k"`` (``"lower"`` cut by ``k`` supporting hyperplanes where they cut most). Smaller
        envelopes give more utility and more vertices.
    self_pairs:
        Keep the pairs ``s1 = s2`` of LDP w.r.t. S over a set. They are vacuous for the true RLDP
        condition (a ratio of a number to itself), but the published PolyOpt keeps them; ``True``
        reproduces the paper, ``False`` (default) gives more utility with the same guarantee.
    lip_counterpart:
        How LIP is compiled over a set where it has no exact counterpart (a Rényi ball, a polytope, an
        ℓ1 ball): ``"rectangular"`` encloses each side of a pair on its own, the conditional ``P(·|s)``
        and the joint ``P``; ``"pairwise"`` imposes LDP w.r.t. S's pairs ``P(Y=y|S=s) <= e^ε
        P(Y=y|S=s')`` instead, which imply LIP because ``P(Y=y)`` mixes the conditionals of the same
        ``P`` (docs/compiler.md §1). Neither contains the other. ``"auto"`` (default) is resolved by
        :meth:`~privopt.Problem.get_problem_data`: rectangular where the rectangular cone's solve is
        exact (the vertex route), pairwise where it would need column generation, whose bound only the
        pairwise cone certifies; a definition compiled on its own (``row_cone``) reads it as
        rectangular. Where LIP is exact this is not used.
    """

    envelope: str = "lower"
    self_pairs: bool = False
    lip_counterpart: str = "auto"

    def __post_init__(self) -> None:
        if not isinstance(self.envelope, str):
            raise ValidationError("envelope", "'lower', 'box' or 'facets:k' with k >= 1", repr(self.envelope))
        if self.envelope not in ENVELOPES:
            facet_count(self.envelope)  # "facets:k", or a ValidationError
        if not isinstance(self.self_pairs, bool):
            raise ValidationError("self_pairs", "True or False", repr(self.self_pairs))
        if self.lip_counterpart not in LIP_COUNTERPARTS:
            raise ValidationError(
                "lip_counterpart", "'auto', 'rectangular' or 'pairwise'", repr(self.lip_counterpart)
            )


@dataclass(frozen=True, eq=False)
class RatioGroup:
    """A finite group of linear statistics of a column (rows of ``vectors``), one term each."""

    vectors: FloatArray
    terms: tuple[Term, ...]
    name: str

    def __post_init__(self) -> None:
        if self.vectors.ndim != 2 or self.vectors.dtype != np.float64:
            raise ShapeError(
                "vectors", "a 2-D float64 array (one statistic per row)", f"{self.vectors.shape}"
            )
        if len(self.terms) != self.vectors.shape[0]:
            raise ShapeError("terms", f"one term per vector ({self.vectors.shape[0]})", f"{len(self.terms)}")


@dataclass(frozen=True)
class RatioBlock:
    """``max_{a ∈ groups[numerator]} aᵀw <= e^{log_factor} min_{b ∈ groups[denominator]} bᵀw``.

    ``log_factor`` is ``scale·ε`` for most rules (``scale`` is the pair's level in units of ε, 1 but for
    metric privacy); ``counterpart`` names the robust-counterpart rule that produced the block
    (:mod:`privopt.sets.counterparts`) and ``rule`` describes the pair.
    """

    numerator: int
    denominator: int
    rule: str
    log_factor: float
    counterpart: str = "constant"
    member: int | None = None
    scale: float = 1.0
    #: The factor as an exact rational, when the rule knows it exactly (the rational rows then keep
    #: coincidences that rounding ``exp`` would break, e.g. at ε = 0).
    exact_factor: Fraction | None = None

    @property
    def factor(self) -> float:
        return float(np.exp(self.log_factor))


@dataclass(frozen=True, eq=False)
class RowCone:
    """The compiled cone of one definition at one ε: groups, blocks, provenance.

    ``exact`` says whether the cone *is* the set of admissible columns (finite sets, the simplex,
    ℓ1 balls for PML, polytopes for PML) or only a sound inner approximation of it (envelopes of Rényi
    balls, rectangular relaxations).
    """

    eps: float
    n_inputs: int
    groups: tuple[RatioGroup, ...]
    blocks: tuple[RatioBlock, ...]
    exact: bool
    definition: str
    _expanded: list[tuple[RatioPairs, FloatArray, list[tuple[int, int, int]]]] = field(
        default_factory=list, repr=False
    )
    _group_facts: dict[int, tuple[list[int], np.ndarray]] = field(default_factory=dict, repr=False)

    def _facts(self, group: int) -> tuple[list[int], np.ndarray]:
        """A group's row hashes (of their bytes, ``-0.0`` as ``0.0``) and non-zeros per row (cached)."""
        if group not in self._group_facts:
            vectors = self.groups[group].vectors
            hashes = [hash((row + 0.0).tobytes()) for row in vectors]
            self._group_facts[group] = (hashes, np.count_nonzero(vectors, axis=1))
        return self._group_facts[group]

    def _vacuous(self, block: RatioBlock) -> tuple[np.ndarray, np.ndarray]:
        """The pairs ``(i, j)`` of a block that are dropped: ``a_i == b_j`` with a factor >= 0, whose row
        ``a <= e^{f} a`` holds for every ``w >= 0`` (found by hashing: no ``|A|·|B|`` table)."""
        if block.log_factor < 0:
            return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
        a, b = self.groups[block.numerator].vectors, self.groups[block.denominator].vectors
        where: dict[int, list[int]] = {}
        for j, key in enumerate(self._facts(block.denominator)[0]):
            where.setdefault(key, []).append(j)
        pairs = [
            (i, j)
            for i, key in enumerate(self._facts(block.numerator)[0])
            for j in where.get(key, ())
            if np.array_equal(a[i], b[j])
        ]
        found = np.array(pairs, dtype=int).reshape(-1, 2)
        return found[:, 0], found[:, 1]

    def _block_size(self, block: RatioBlock) -> tuple[int, int]:
        """Rows of a block and the non-zeros of their numerators and denominators (without expanding)."""
        a_nonzeros, b_nonzeros = self._facts(block.numerator)[1], self._facts(block.denominator)[1]
        i, j = self._vacuous(block)
        rows = a_nonzeros.size * b_nonzeros.size - i.size
        entries = b_nonzeros.size * int(a_nonzeros.sum()) + a_nonzeros.size * int(b_nonzeros.sum())
        return rows, entries - int(a_nonzeros[i].sum() + b_nonzeros[j].sum())

    def block_starts(self) -> np.ndarray:
        """The first row of each block in :meth:`matrix` (counted, without expanding the cone)."""
        sizes = [self._block_size(block)[0] for block in self.blocks]
        return np.concatenate([[0], np.cumsum(sizes[:-1])]).astype(int) if sizes else np.zeros(0, dtype=int)

    def kept_pairs(self, block: RatioBlock) -> tuple[np.ndarray, np.ndarray]:
        """The pairs ``(i, j)`` of a block's vectors that are rows of :meth:`matrix`, in its row order."""
        return self._kept(block)

    def _kept(self, block: RatioBlock) -> tuple[np.ndarray, np.ndarray]:
        """The rows ``(i, j)`` of a block: every pair of its groups' vectors but the vacuous ones."""
        shape = (len(self.groups[block.numerator].terms), len(self.groups[block.denominator].terms))
        keep = np.ones(shape, dtype=bool)
        keep[self._vacuous(block)] = False
        i, j = np.nonzero(keep)
        return i, j

    def _expand(self) -> tuple[RatioPairs, FloatArray, list[tuple[int, int, int]]]:
        """Every block's pairs, each row's log factor, and each block's row range (computed once).

        The rows are gathered from one sparse stack of the groups' vectors in one indexing step; their
        memory (the two sparse matrices and a label per row) is counted and checked against the budget
        first (:mod:`privopt.memory`).
        """
        if self._expanded:
            return self._expanded[0]
        sizes = [self._block_size(block) for block in self.blocks]
        rows, entries = sum(size[0] for size in sizes), sum(size[1] for size in sizes)
        require(
            EXPANDED_BYTES_PER_ENTRY * entries + EXPANDED_BYTES_PER_ROW * rows,
            f"expanding the row cone of {self.definition} into its {rows:,} rows on {self.n_inputs:,} inputs",
            "route='colgen' (its LPs use the lifted cone), a coarser alphabet or envelope",
        )
        kept = [self._kept(block) for block in self.blocks]
        offsets = np.cumsum([0, *(len(group.terms) for group in self.groups)])
        num_index = [offsets[b.numerator] + i for b, (i, _) in zip(self.blocks, kept, strict=True)]
        den_index = [offsets[b.denominator] + j for b, (_, j) in zip(self.blocks, kept, strict=True)]
        labels: list[PairLabel] = []
        ranges: list[tuple[int, int, int]] = []
        row = 0
        for index, (block, (i, j)) in enumerate(zip(self.blocks, kept, strict=True)):
            a_group, b_group = self.groups[block.numerator], self.groups[block.denominator]
            labels.extend(
                PairLabel(a_group.terms[p], b_group.terms[q], block.member, block.rule, block.scale)
                for p, q in zip(i.tolist(), j.tolist(), strict=True)
            )
            ranges.append((index, row, row + i.size))
            row += i.size
        if rows:
            stacked = sp.vstack([sp.csr_matrix(group.vectors) for group in self.groups], format="csr")
            pairs = RatioPairs(
                stacked[np.concatenate(num_index)], stacked[np.concatenate(den_index)], tuple(labels)
            )
        else:
            empty = sp.csr_matrix((0, self.n_inputs))
            pairs = RatioPairs(empty, empty, ())
        factors = [np.full(i.size, block.log_factor) for block, (i, _) in zip(self.blocks, kept, strict=True)]
        result = (pairs, np.concatenate(factors) if factors else np.zeros(0), ranges)
        self._expanded.append(result)
        return result

    def unit_columns(self) -> np.ndarray:
        """Which unit columns ``e_x`` lie in the cone (a boolean per input), read from the blocks without
        expanding them: ``e_x`` satisfies ``max_a aᵀw <= F min_b bᵀw`` iff ``max_a a_x <= F min_b b_x``.
        Dropped vacuous pairs (``a = b``, ``F >= 1``) hold at every ``w``, so they change nothing."""
        inside = np.ones(self.n_inputs, dtype=bool)
        for block in self.blocks:
            top = self.groups[block.numerator].vectors.max(axis=0)
            bottom = self.groups[block.denominator].vectors.min(axis=0)
            inside &= top <= block.factor * bottom
        return inside

    def pairs(self) -> RatioPairs:
        """Every row of every block as a ratio pair (their factors are in :meth:`log_factors`)."""
        return self._expand()[0]

    def log_factors(self) -> FloatArray:
        """``log`` of each row's factor: ``a <= e^{log factor} b``."""
        return self._expand()[1]

    @property
    def plain(self) -> bool:
        """Whether every row is ``a <= e^{cε} b`` with its pair's own scale ``c`` and the cone is exact:
        then the expanded pairs describe the definition exactly and audit it directly."""
        return self.exact and all(
            np.isclose(block.log_factor, block.scale * self.eps, rtol=1e-12, atol=1e-15)
            for block in self.blocks
        )

    def block_rows(self) -> list[tuple[RatioBlock, int, int]]:
        """Each block with the range ``[start, stop)`` of its rows in :meth:`matrix` (provenance)."""
        return [(self.blocks[i], start, stop) for i, start, stop in self._expand()[2]]

    @property
    def n_rows(self) -> int:
        """Rows of :meth:`matrix`, counted without expanding the cone."""
        if self._expanded:
            return self._expanded[0][0].n_pairs
        return sum(self._block_size(block)[0] for block in self.blocks)

    @property
    def n_vacuous(self) -> int:
        """Rows left out as vacuous: ``a <= e^{f} a`` with ``f >= 0``, a statistic against itself (it holds
        for every column), counted without expanding the cone."""
        return sum(self._vacuous(block)[0].size for block in self.blocks)

    def matrix(self) -> sp.csr_matrix:
        """The projected cone ``{w >= 0 : G w <= 0}``: rows ``a − e^{log factor} b``."""
        pairs, log_factors, _ = self._expand()
        factors = sp.diags(np.exp(log_factors)) if log_factors.size else sp.csr_matrix((0, 0))
        return (pairs.numerators - factors @ pairs.denominators).tocsr()

    def exact_matrix(self) -> np.ndarray:
        """The rows ``a − e^{ε+shift} b`` computed exactly in rational arithmetic (an object array).

        Every double is a dyadic rational, so converting the group vectors and the factors exactly and
        forming the rows without rounding gives the cone the floats describe. Rounding each row to
        double first would break the exact coincidences between rows that share a vector (the
        degeneracy of the Γ cone), multiplying the vertex count and the enumeration time (measured: 2×5,
        ε = 0.5: 2,377 vertices in 1.2 s exact, 13,189 in 26 s from rounded rows). Vectors that are
        distributions (sum 1 up to rounding) are rescaled to sum to exactly 1, so that, e.g., the uniform
        column stays feasible at ε = 0, where the cone is a single ray.
        """
        require(
            EXACT_BYTES_PER_ENTRY * self.n_rows * self.n_inputs,
            f"the exact (rational) rows of the row cone of {self.definition} ({self.n_rows:,} rows on "
            f"{self.n_inputs:,} inputs)",
            "route='colgen', backend='cdd' (floating point), a coarser alphabet or envelope",
        )
        vectors = [[_exact_vector(row) for row in group.vectors] for group in self.groups]
        rows: list[list[Fraction]] = []
        for block in self.blocks:
            factor = block.exact_factor if block.exact_factor is not None else Fraction(block.factor)
            a_group, b_group = vectors[block.numerator], vectors[block.denominator]
            same = block.numerator == block.denominator
            for i, a in enumerate(a_group):
                for j, b in enumerate(b_group):
                    if same and i == j:
                        continue
                    if a == b and block.log_factor >= 0:
                        continue
                    rows.append([x - factor * y for x, y in zip(a, b, strict=True)])
        out = np.empty((len(rows), self.n_inputs), dtype=object)
        for k, row in enumerate(rows):
            out[k, :] = row
        return out

    def lifted(self) -> tuple[sp.csr_matrix, int]:
        """The lifted system ``A [w; t; z] <= 0`` (docs/compiler.md, "Routes"), and the number of variables.

        One variable ``t_g`` per group used as a numerator (``aᵀw <= t_g`` for its vectors), one ``z_g``
        per group used as a denominator (``z_g <= bᵀw``), and ``t_A <= e^{ε+shift} z_B`` per block.
        Its projection on ``w`` is exactly :meth:`matrix`'s cone, with ``Σ|A| + Σ|B| + #blocks`` rows
        instead of ``Σ |A|·|B|`` (705 rather than 57,600 for the Γ cone of a 15×16 alphabet).
        """
        n = self.n_inputs
        numerators = sorted({b.numerator for b in self.blocks})
        denominators = sorted({b.denominator for b in self.blocks})
        entries = sum(int(np.count_nonzero(self.groups[g].vectors)) for g in (*numerators, *denominators))
        require(
            LIFTED_BYTES_PER_ENTRY * entries,
            f"the lifted system of the row cone of {self.definition} ({entries:,} entries)",
            "a coarser alphabet or envelope",
        )
        t_index = {g: n + i for i, g in enumerate(numerators)}
        z_index = {g: n + len(numerators) + i for i, g in enumerate(denominators)}
        total = n + len(numerators) + len(denominators)
        rows, cols, vals = [], [], []
        row = 0

        def add(entries: list[tuple[int, float]]) -> None:
            nonlocal row
            for col, val in entries:
                rows.append(row)
                cols.append(col)
                vals.append(val)
            row += 1

        for g in numerators:
            for vector in self.groups[g].vectors:  # aᵀw − t_g <= 0
                add([(int(i), float(vector[i])) for i in np.flatnonzero(vector)] + [(t_index[g], -1.0)])
        for g in denominators:
            for vector in self.groups[g].vectors:  # z_g − bᵀw <= 0
                add([(int(i), -float(vector[i])) for i in np.flatnonzero(vector)] + [(z_index[g], 1.0)])
        for block in self.blocks:  # t_A − e^{log factor} z_B <= 0
            add([(t_index[block.numerator], 1.0), (z_index[block.denominator], -block.factor)])
        return sp.csr_matrix((vals, (rows, cols)), shape=(row, total)), total

    def lifted_upper_bounds(self, weights: FloatArray | None = None) -> FloatArray:
        """Upper bounds of :meth:`lifted`'s variables (in its order) at every point with ``νᵀw = 1``
        (``ν = weights > 0``, ones by default), where all of them are ``>= 0``: ``w_x <= 1/ν_x``;
        ``z_g <= bᵀw <= max_x b_x/ν_x`` over the vectors of ``g``; ``t_g <= e^{log factor} z_h`` for each
        block ``g → h``. (``t_g >= aᵀw >= 0`` and ``z_h >= t_g / e^{log factor} >= 0``: the vectors are
        non-negative.)"""
        nu = np.ones(self.n_inputs) if weights is None else np.asarray(weights, dtype=np.float64)
        numerators = sorted({b.numerator for b in self.blocks})
        denominators = sorted({b.denominator for b in self.blocks})
        z = {g: float((self.groups[g].vectors / nu).max(initial=0.0)) for g in denominators}
        t = {g: np.inf for g in numerators}
        for block in self.blocks:
            t[block.numerator] = min(t[block.numerator], block.factor * z[block.denominator])
        return np.concatenate([1.0 / nu, [t[g] for g in numerators], [z[g] for g in denominators]])

    def single_lift(self) -> tuple[FloatArray, FloatArray, float] | None:
        """``(A, B, F)`` such that the cone is ``{w : aᵀw <= t <= F bᵀw for all a ∈ A, b ∈ B, some t}``,
        or ``None`` when one auxiliary variable cannot describe it (docs/compiler.md, "Routes").

        That holds when the blocks share one factor and pair every numerator group with every
        denominator group (LDP; LDP w.r.t. S with the s1 = s2 pairs): then all rows together say
        ``max_a aᵀw <= F min_b bᵀw``. A block pairing a group with itself needs ``F >= 1`` (its skipped
        rows ``a <= F a`` are then implied by ``w >= 0``). The slice of this system has ``|A| + |B|``
        inequalities instead of ``|A|·|B|``, and its vertices project onto points of the cone's slice
        that include all of that slice's vertices (every vertex of a projection is the image of a
        vertex); those with both sides of ``t`` tight are exactly the slice's vertices, so vertex
        enumeration may run on it.
        """
        log_factors = {block.log_factor for block in self.blocks}
        if len(log_factors) != 1:  # no block, or factors that differ (even by rounding)
            return None
        log_factor = log_factors.pop()
        numerators = {block.numerator for block in self.blocks}
        denominators = {block.denominator for block in self.blocks}
        if {(b.numerator, b.denominator) for b in self.blocks} != {
            (a, b) for a in numerators for b in denominators
        }:
            return None
        if log_factor < 0 and numerators & denominators:
            return None
        A = np.unique(np.vstack([self.groups[g].vectors for g in sorted(numerators)]), axis=0)
        B = np.unique(np.vstack([self.groups[g].vectors for g in sorted(denominators)]), axis=0)
        return A, B, float(np.exp(log_factor))

    def violation(self, columns: FloatArray) -> float:
        """Largest relative violation ``max (Gw)_i / max(aᵀw, e^{ε}bᵀw)`` over rows and columns (0 if none).

        ``(n − d) / max(n, d)`` increases with ``n = aᵀw`` and decreases with ``d = e^{ε+shift} bᵀw``,
        so over a block's pairs it is largest at ``max_a aᵀw`` and ``min_b bᵀw``: one product per group
        instead of one per pair. The pairs a block drops (``a = b``) are never violated when
        ``ε + shift >= 0``; otherwise the pairs are expanded.
        """
        columns = np.asarray(columns, dtype=np.float64)
        if columns.ndim == 1:
            columns = columns[:, None]
        if all(block.log_factor >= 0 for block in self.blocks):
            products: dict[int, FloatArray] = {}

            def product(group: int) -> FloatArray:
                if group not in products:
                    products[group] = self.groups[group].vectors @ columns
                return products[group]

            worst = 0.0
            for block in self.blocks:
                num = product(block.numerator).max(axis=0)
                den = product(block.denominator).min(axis=0) * block.factor
                scale = np.maximum(np.maximum(num, den), 1e-300)
                worst = max(worst, float(np.max((num - den) / scale)))
            return worst
        pairs, log_factors, _ = self._expand()
        if pairs.n_pairs == 0:
            return 0.0
        num = np.asarray(pairs.numerators @ columns)
        den = np.asarray(pairs.denominators @ columns) * np.exp(log_factors)[:, None]
        scale = np.maximum(np.maximum(num, den), 1e-300)
        return float(max(0.0, np.max((num - den) / scale)))

    def describe(self) -> str:
        """Readable provenance: one line per block, with the rows it gives (``row 3``, ``rows 4–9``, or
        none when every row of it is vacuous)."""
        vacuous = self.n_vacuous
        left_out = f" ({vacuous} vacuous ones left out: a statistic against itself)" if vacuous else ""
        lines = [
            f"RowCone for {self.definition}: {self.n_inputs} inputs, {self.n_rows} rows{left_out}, "
            f"exact={self.exact}"
        ]
        for block, start, stop in self.block_rows():
            a, b = self.groups[block.numerator], self.groups[block.denominator]
            rows = {0: "no rows (vacuous)", 1: f"row {start}"}.get(stop - start, f"rows {start}–{stop - 1}")
            lines.append(
                f"  {rows}: max over {a.name} <= {_factor_text(block, self.eps)} min over {b.name} [{block.rule}]"
            )
        return "\n".join(lines)


#: Memory of a rational entry of :meth:`RowCone.exact_matrix` (a ``Fraction`` and its two integers, a
#: list slot), and of an entry of :meth:`RowCone.lifted` while its triplets are collected (Python lists
#: of ints and floats).
EXACT_BYTES_PER_ENTRY, LIFTED_BYTES_PER_ENTRY = 120, 100

#: Memory of an expanded cone (:meth:`RowCone.pairs`): a value and an index per sparse entry, built
#: once and copied once; and a :class:`~privopt.data.terms.PairLabel` with its factor per row.
EXPANDED_BYTES_PER_ENTRY, EXPANDED_BYTES_PER_ROW = 24, 200


def _exact_vector(row: FloatArray) -> list[Fraction]:
    """A row as exact rationals; a distribution (sum within 1e-12 of 1) is rescaled to sum to exactly 1."""
    exact = [Fraction(float(v)) for v in row]
    total = sum(exact, Fraction(0))
    if total != 1 and abs(float(total) - 1.0) <= 1e-12:
        exact = [v / total for v in exact]
    return exact


def _factor_text(block: RatioBlock, eps: float) -> str:
    if np.isclose(block.log_factor, block.scale * eps, rtol=1e-12, atol=1e-15):
        return "e^eps" if np.isclose(block.scale, 1.0, rtol=0.0, atol=1e-15) else f"e^({block.scale:.4g}·eps)"
    return f"e^{block.log_factor:.6g}"


class ConeBuilder:
    """Accumulates groups and blocks while a definition compiles itself."""

    def __init__(self, eps: float, n_inputs: int, definition: str) -> None:
        self.eps, self.n_inputs, self.definition = eps, n_inputs, definition
        self.groups: list[RatioGroup] = []
        self.blocks: list[RatioBlock] = []

    def group(self, vectors: FloatArray, terms: list[Term] | tuple[Term, ...], name: str) -> int:
        self.groups.append(
            RatioGroup(np.atleast_2d(np.asarray(vectors, dtype=np.float64)), tuple(terms), name)
        )
        return len(self.groups) - 1

    def block(self, block: RatioBlock) -> None:
        self.blocks.append(block)

    def build(self, exact: bool) -> RowCone:
        return RowCone(
            self.eps, self.n_inputs, tuple(self.groups), tuple(self.blocks), exact, self.definition
        )
