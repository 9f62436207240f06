"""Row and output generation for the LP route: the rows and outputs a linear program needs, found as
it is solved.

On a dense metric (a Euclidean grid: every pair of locations is a row, and few are implied) the LP of
:mod:`privopt.routes.linear_program`,

    max Σ_y C_yᵀ w_y   s.t.   R w_y <= 0 (every output y),   Σ_y w_y = 1,   w >= 0,

has ``k · m`` cone rows (10×10 grid: 100 outputs × ~6,000 pairs), but at its optimum only a few are
tight — a column of an optimal geo-indistinguishable mechanism falls off from its output along rays —
and fewer than half of the outputs carry mass (Bordenabe et al., CCS 2014, §5: the optimal mechanism
reports a subset of the locations). The classical cutting-plane and column-generation scheme solves it
exactly on a restricted LP (Bordenabe et al., §4, use a spanner instead: an approximation this route
does not make):

1. **Rows.** Start from every non-pair row of ``R`` and, per input, its ``INITIAL_PAIRS`` shortest pairs
   out and in (the length ``L`` of a pair row ``w_a <= e^{L} w_b``; on a grid the eight neighbours).
   After each solve, add for every output the rows its column violates (relative to the row's larger
   side, :data:`~privopt.tolerances.ROW_GENERATION_RTOL`), until none is.
2. **Outputs.** After the first solve keep only the outputs that carry mass. An output ``y`` left out
   is priced with the multipliers ``ν`` of ``Σ_y w_y = 1``: ``t_y = max {(C_y − ν)ᵀw : R w <= 0, 1ᵀw = 1,
   w >= 0}`` (one small LP, with its own rows generated the same way, kept between rounds so that a new
   ``ν`` starts from the last optimal basis: :class:`_Pricing`); outputs with ``t_y > 0`` come back,
   with the rows their pricing found.

When no row is violated and no output prices positive, the restricted LP's optimum is the full LP's:
its multipliers ``β_y >= 0`` with ``ν + Rᵀβ_y >= C_y``, and for an output left out the pricing LP's
multipliers (``Rᵀβ_y >= C_y − ν − t_y``, ``t_y <= 0``), are multipliers of the full LP; the
certificate is the same :class:`~privopt.certificates.LinearBound`, checked against all of the cone's
rows. Each restricted LP is solved by Clarabel (per output a sparse system of a few rows per input,
which its sparse LDLᵀ factors cheaply), the pricing LPs by HiGHS, and the last restricted LP's vertex
is read off by HiGHS's crossover from Clarabel's point (:func:`_polish`).

Measured on 10×10 Euclidean grids (ε = 0.5, Dirichlet priors; docs/compiler.md, "LP route"): the flat
LP 130 s (HiGHS); rows alone, HiGHS warm-started, 49–96 s; rows and outputs 10–22 s in all.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from privopt.errors import InfeasibleError, LimitError, SolverError
from privopt.solvers.errors import BackendError
from privopt.solvers.lp import limit_run
from privopt.solvers.subprocess_call import call_with_timeout
from privopt.tolerances import ROW_GENERATION_PRICE_RTOL, ROW_GENERATION_RTOL
from privopt.validation import FloatArray

#: Pairs per input (out and in, ties included) in the first LP: on a grid the eight neighbours
#: (measured on 10×10 Euclidean grids: 4 pairs 26 s, 8 pairs 20 s, 12 pairs 29 s with HiGHS rounds).
INITIAL_PAIRS = 8

#: Outputs in the first LP: all of them up to this many, else this many spread evenly over the labels
#: (on a grid in row-major order, a spatial subsample); pricing brings back any that pay.
FIRST_OUTPUTS = 100

#: Outputs left out are priced once the rows a round adds are at most this share of those held (the
#: restricted LP has nearly settled: its ``ν`` prices as the final one would), not only once none is.
FEW_ROWS = 0.01

#: Bytes per (row, output) of a round's tables: the membership mask and the two sides of every row.
ROUND_TABLE_BYTES = 24

#: Rounds (solves of the restricted LP) before the route gives up: each adds every violated row and every
#: output that prices positive, so the loop ends once no row or output is left (5–9 rounds measured).
MAX_ROUNDS = 100

#: An output carries mass in an interior-point solution when its column's mass exceeds this share of the
#: largest column's (the rest are the solver's noise; a wrong call is undone by pricing).
MASS_SHARE = 1e-7

#: Clarabel's feasibility and gap tolerances in each restricted LP.
CLARABEL_TOLERANCE = 1e-10


@dataclass(frozen=True)
class PairRows:
    """The rows of a column system that are single-input pairs ``w_a <= e^{L} w_b`` (two entries of
    opposite signs), with their inputs and lengths ``L``; every other row is ``general``."""

    index: np.ndarray
    head: np.ndarray
    tail: np.ndarray
    length: FloatArray
    general: np.ndarray

    @classmethod
    def of(cls, rows: sp.csr_matrix) -> PairRows:
        counts = np.diff(rows.indptr)
        two = np.flatnonzero(counts == 2)
        first, second = rows.indptr[two], rows.indptr[two] + 1
        v1, v2 = rows.data[first], rows.data[second]
        c1, c2 = rows.indices[first], rows.indices[second]
        swap = v1 < 0
        positive, negative = np.where(swap, v2, v1), np.where(swap, v1, v2)
        head, tail = np.where(swap, c2, c1), np.where(swap, c1, c2)
        pair = (positive > 0) & (negative < 0)
        index = two[pair]
        general = np.setdiff1d(np.arange(rows.shape[0]), index)
        length = np.log(-negative[pair] / positive[pair])
        return cls(index, head[pair], tail[pair], length, general)

    def initial(self, per_input: int) -> np.ndarray:
        """The rows of the first LP: the general rows and each input's ``per_input`` shortest pairs out
        and in (ties at the cut included)."""
        keep = np.zeros(self.index.size, dtype=bool)
        for ends in (self.head, self.tail):
            if not ends.size:
                continue
            order = np.lexsort((self.length, ends))
            sorted_ends, sorted_lengths = ends[order], self.length[order]
            rank = np.arange(order.size) - np.searchsorted(sorted_ends, sorted_ends, side="left")
            cut = np.full(int(ends.max()) + 1, np.inf)
            last = rank == per_input - 1
            cut[sorted_ends[last]] = sorted_lengths[last]
            keep |= self.length <= cut[ends] + np.abs(cut[ends]) * ROW_GENERATION_RTOL
        return np.union1d(self.general, self.index[keep])


#: A restricted LP's solution as :func:`_restricted` returns it: the columns, ``ν`` and ``β``.
Point = tuple[FloatArray, FloatArray, FloatArray]


@dataclass(frozen=True)
class RowGeneration:
    """What :func:`solve_by_rows` returns: the design (outputs × inputs), the multipliers (outputs ×
    rows, 0 on rows never held), the restricted LPs solved, the pricing LPs solved, the (row, output)
    pairs the last LP held and the outputs it kept."""

    columns: FloatArray
    weights: FloatArray
    rounds: int
    pricing_lps: int
    held: int
    outputs: int


class _Rows:
    """``R`` split into its two sides, and which (row, output) pairs the restricted LP holds."""

    def __init__(self, rows: sp.csr_matrix, k: int) -> None:
        self.rows = rows
        self.positive = rows.maximum(0.0).tocsr()
        self.negative = (-rows.minimum(0.0)).tocsr()
        self.held = np.zeros((rows.shape[0], k), dtype=bool)

    def violated(self, columns: FloatArray, outputs: np.ndarray) -> np.ndarray:
        """``(rows, outputs)`` mask of the rows not held that the columns (outputs × inputs) violate."""
        over = np.asarray(self.positive @ columns.T)
        under = np.asarray(self.negative @ columns.T)
        slack = ROW_GENERATION_RTOL * np.maximum(over, under)
        return (over - under > slack) & ~self.held[:, outputs]


def solve_by_rows(rows: sp.csr_matrix, C: FloatArray, seconds: float | None, verbose: bool) -> RowGeneration:
    """``max Σ_y C_yᵀ w_y  s.t.  rows · w_y <= 0, Σ_y w_y = 1, w >= 0`` by row and output generation
    (module docstring); ``rows`` are over the inputs alone.

    Raises :class:`~privopt.errors.LimitError` at the time limit,
    :class:`~privopt.errors.InfeasibleError` when no design exists and
    :class:`~privopt.errors.SolverError` when a solver fails.
    """
    n, k = C.shape
    deadline = None if seconds is None else time.perf_counter() + seconds
    table = _Rows(rows, k)
    table.held[PairRows.of(rows).initial(INITIAL_PAIRS), :] = True
    outputs = np.arange(k) if k <= FIRST_OUTPUTS else np.unique(np.linspace(0, k - 1, FIRST_OUTPUTS).round())
    outputs = outputs.astype(int)
    pricing = _Pricing(table, deadline)
    left_out: np.ndarray = np.zeros(0, dtype=int)
    priced: list[tuple[float, FloatArray]] = []
    for rounds in range(1, MAX_ROUNDS + 1):
        columns, nu, beta = _restricted(table, C, outputs, deadline, verbose)
        violated = table.violated(columns, outputs)
        chosen, which = np.nonzero(violated)
        table.held[chosen, outputs[which]] = True
        if rounds == 1:
            mass = columns.sum(axis=1)
            outputs = outputs[mass > MASS_SHARE * mass.max()]
            continue
        if chosen.size > FEW_ROWS * table.held[:, outputs].sum():
            continue
        scale = max(float(np.abs(nu).sum()), 1.0)
        left_out = np.setdiff1d(np.arange(k), outputs)
        priced = [pricing.price(C[:, y] - nu, int(y)) for y in left_out]
        back = [
            y for y, (t, _) in zip(left_out, priced, strict=True) if t > ROW_GENERATION_PRICE_RTOL * scale
        ]
        if not back:
            if chosen.size:
                continue
            break
        outputs = np.union1d(outputs, back)
        pricing.drop(back)
    else:
        raise SolverError(f"row generation went on for {MAX_ROUNDS} rounds without settling")
    weights = _multipliers(k, outputs, beta, left_out, priced)
    polished = _polish(table, C, outputs, (columns, nu, beta), deadline)
    if polished is not None and not table.violated(polished[0], outputs).any():
        columns = polished[0]
        # The outputs left out were priced at the restricted LP's ν, and their multipliers certify only
        # with multipliers of the same ν: where the LP's duals are not unique (ε near 0, every column
        # nearly constant) the vertex's have another ν, and the two mixed proved a bound 2 % above the
        # optimum (11 points, ε = 1e-9). The vertex's multipliers are kept where they prove as much.
        vertex = _multipliers(k, outputs, polished[1], left_out, priced)
        if multipliers_bound(rows, C, vertex) <= multipliers_bound(rows, C, weights):
            weights = vertex
    design = np.zeros((k, n))
    design[outputs] = columns
    return RowGeneration(
        design, weights, rounds, pricing.lps, int(table.held[:, outputs].sum()), outputs.size
    )


def _multipliers(
    k: int,
    outputs: np.ndarray,
    beta: FloatArray,
    left_out: np.ndarray,
    priced: list[tuple[float, FloatArray]],
) -> FloatArray:
    """The multipliers of every row for every output (outputs × rows): the restricted LP's ``β`` for the
    outputs it kept, the pricing LPs' for those left out."""
    weights = np.zeros((k, beta.shape[1]))
    weights[outputs] = beta
    for y, (_, multipliers) in zip(left_out, priced, strict=True):
        weights[y] = multipliers
    return weights


def multipliers_bound(rows: sp.csr_matrix, C: FloatArray, weights: FloatArray) -> float:
    """The bound multipliers ``β >= 0`` prove on the LP, ``Σ_x max_y (C − Rᵀβ_y)_x`` (the Lagrangian of
    the rows, maximised over ``Σ_y w_y = 1``, ``w >= 0``; certificates/linear.py)."""
    return float((C - np.asarray(rows.T @ weights.T)).max(axis=1).sum())


def _restricted_rows(
    table: _Rows, n: int, outputs: np.ndarray
) -> tuple[list[np.ndarray], sp.csr_matrix, sp.csr_matrix]:
    """The restricted LP's rows over ``[w_y for y in outputs]``: the rows held for each output, the
    ``n`` rows ``Σ_y w_y`` and the held rows output by output (block-diagonal)."""
    held = [np.flatnonzero(table.held[:, y]) for y in outputs]
    sums = sp.hstack([sp.eye(n)] * outputs.size, format="csr")
    return held, sums, sp.block_diag([table.rows[h] for h in held], format="csr")


def _scatter(held: list[np.ndarray], values: np.ndarray, m: int) -> FloatArray:
    """The multipliers of the held rows (``values``, output by output as :func:`_restricted_rows` orders
    them) as an (outputs × all ``m`` rows) array, clipped at 0."""
    beta = np.zeros((len(held), m))
    start = 0
    for i, rows in enumerate(held):
        beta[i, rows] = np.clip(values[start : start + rows.size], 0.0, None)
        start += rows.size
    return beta


def _restricted(
    table: _Rows, C: FloatArray, outputs: np.ndarray, deadline: float | None, verbose: bool
) -> Point:
    """The LP over ``outputs`` and the rows held for each, by Clarabel: the columns (outputs × inputs),
    ``ν`` and the multipliers ``β`` (outputs × all rows, 0 off the held rows).

    The rows ``Σ_y w_y = 1`` tie the outputs' blocks together; factored after the blocks (a separator),
    their Schur complement is one dense ``n × n`` matrix. Clarabel orders its KKT system by minimum
    degree, which eliminates such a row once its degree (the outputs held) falls below the fill inside a
    block, and then merges every block through it: a 10×10 grid over 50 outputs took 25.6 s (0.43 s an
    iteration) against 5.3 s over 100, and 20×20 over 25 outputs 78 s. ``n`` variables fixed at 0 whose
    entries in those rows are explicit zeros (:func:`_separator`) raise each row's degree by ``n``, so the
    ordering keeps them for last: 1.6 s, 5.7 s and 12 s, the same iterations and optimum.
    """
    import clarabel

    n, count = C.shape[0], outputs.size
    held, sums, blocks = _restricted_rows(table, n, outputs)
    size = n * count
    A = sp.vstack(
        [_separator(sums), sp.hstack([sp.csr_matrix((n, size)), sp.eye(n)]),
         sp.hstack([blocks, sp.csr_matrix((blocks.shape[0], n))]),
         sp.hstack([-sp.eye(size), sp.csr_matrix((size, n))])],
        format="csc",
    )  # fmt: skip
    b = np.concatenate([np.ones(n), np.zeros(n + blocks.shape[0] + size)])
    settings = clarabel.DefaultSettings()
    settings.verbose = verbose
    settings.direct_solve_method = "qdldl"  # one thread: faer's two were 1–4× slower on these systems
    settings.tol_feas = settings.tol_gap_abs = settings.tol_gap_rel = CLARABEL_TOLERANCE
    if deadline is not None:
        settings.time_limit = max(deadline - time.perf_counter(), 1e-3)
    cones = [clarabel.ZeroConeT(2 * n), clarabel.NonnegativeConeT(blocks.shape[0] + size)]
    cost = np.concatenate([-np.ascontiguousarray(C[:, outputs].T).ravel(), np.zeros(n)])
    solution = clarabel.DefaultSolver(
        sp.csc_matrix((size + n, size + n)), cost, A, b, cones, settings
    ).solve()
    status = str(solution.status)
    if "MaxTime" in status:
        raise LimitError("row generation reached the time limit before the LP's optimum")
    if "Infeasible" in status and "Almost" not in status:
        # a relaxation of the LP (fewer rows): the LP itself is infeasible
        raise InfeasibleError("no mechanism with these outputs lies in the cone")
    if status not in ("Solved", "AlmostSolved"):
        raise SolverError(f"Clarabel did not solve a restricted LP of row generation: {status}")
    columns = np.clip(np.asarray(solution.x)[:size].reshape(count, n), 0.0, None)
    z = np.asarray(solution.z)
    return columns, z[:n], _scatter(held, z[2 * n :], table.rows.shape[0])


def _separator(sums: sp.csr_matrix) -> sp.csc_matrix:
    """``[sums, 0]`` with ``n`` more columns (the variables fixed at 0 of :func:`_restricted`) whose
    entries in every row of ``sums`` are explicit zeros: the structure the ordering sees, not values."""
    n = sums.shape[0]
    joined = sp.hstack([sums, sp.csr_matrix((n, n))], format="csc")
    indptr = np.concatenate(
        [joined.indptr[: sums.shape[1] + 1], joined.indptr[sums.shape[1]] + n * np.arange(1, n + 1)]
    )
    indices = np.concatenate([joined.indices, np.tile(np.arange(n), n)])
    data = np.concatenate([joined.data, np.zeros(n * n)])
    return sp.csc_matrix((data, indices, indptr), shape=joined.shape)


def _polish(
    table: _Rows, C: FloatArray, outputs: np.ndarray, point: Point, deadline: float | None
) -> tuple[FloatArray, FloatArray] | None:
    """:func:`_vertex` in a forked child: HiGHS 1.16's ``crossover`` from a given point crashes the
    process on some points (a segmentation fault, seen on restricted LPs before the last; measured in
    this module's tests); ``None`` when the child dies or runs out of time."""
    seconds = np.inf if deadline is None else max(deadline - time.perf_counter(), 1e-3)
    try:
        found: tuple[FloatArray, FloatArray] | None = call_with_timeout(
            _vertex,
            (table, C, outputs, point),
            seconds,
            "HiGHS's crossover",
            progress=False,
        )
    except BackendError:
        return None
    return found


def _vertex(
    table: _Rows, C: FloatArray, outputs: np.ndarray, point: Point
) -> tuple[FloatArray, FloatArray] | None:
    """The last restricted LP's optimal vertex, by HiGHS's crossover from Clarabel's ``point``: the
    columns and multipliers (as :func:`_restricted`), or ``None`` when the crossover does not end optimal
    (the caller, :func:`_polish`, bounds its time).

    An interior point meets the rows to an absolute tolerance, a large relative violation on a column of
    small mass, which moving the column into the cone pays for in value (6×6 grid: 3e-9); the vertex has
    exact zeros and tight rows instead.
    """
    import highspy

    from privopt.solvers.lp import highs_lp, new_highs

    n, count = C.shape[0], outputs.size
    held, sums, blocks = _restricted_rows(table, n, outputs)
    matrix = sp.vstack([sums, blocks], format="csc")
    infinity = highspy.kHighsInf
    cost = np.ascontiguousarray(C[:, outputs].T).ravel()
    free = np.full(blocks.shape[0], -infinity)
    model = highs_lp(
        cost,
        matrix,
        (np.concatenate([np.ones(n), free]), np.concatenate([np.ones(n), np.zeros(blocks.shape[0])])),
        maximize=True,
    )
    highs = new_highs()
    highs.setOptionValue("output_flag", False)
    highs.passModel(model)
    columns, nu, beta = point
    start = highspy.HighsSolution()
    start.col_value = columns.ravel().tolist()
    start.row_value = (matrix @ columns.ravel()).tolist()
    row_duals = np.concatenate([nu] + [beta[i, h] for i, h in enumerate(held)])
    start.row_dual = row_duals.tolist()
    start.col_dual = (cost - matrix.T @ row_duals).tolist()
    start.value_valid = start.dual_valid = True
    highs.crossover(start)
    if highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    solution = highs.getSolution()
    vertex = np.clip(np.asarray(solution.col_value).reshape(count, n), 0.0, None)
    return vertex, _scatter(held, np.asarray(solution.row_dual)[n:], table.rows.shape[0])


class _Pricing:
    """The pricing LPs of the outputs left out, one HiGHS model per output kept between rounds: a new
    ``ν`` changes only its costs, so each pricing starts from the last one's optimal basis, and the rows
    generated for the output stay in its model."""

    def __init__(self, table: _Rows, deadline: float | None) -> None:
        self.table, self.deadline = table, deadline
        self.models: dict[int, tuple[Any, list[np.ndarray]]] = {}
        self.lps = 0

    def drop(self, outputs: Iterable[int]) -> None:
        """Forget the models of ``outputs`` (back in the restricted LP)."""
        for y in outputs:
            self.models.pop(int(y), None)

    def price(self, gain: FloatArray, y: int) -> tuple[float, FloatArray]:
        """``max {gainᵀw : R w <= 0, 1ᵀw = 1, w >= 0}`` for output ``y`` by HiGHS, rows generated from
        those held for ``y`` (which it extends): the maximum and the multipliers of ``R``'s rows."""
        import highspy

        highs, order = self.models[y] if y in self.models else self._model(y, gain.size)
        n, table = gain.size, self.table
        highs.changeColsCost(n, np.arange(n, dtype=np.int32), gain)
        for _ in range(MAX_ROUNDS):
            self.lps += 1
            if self.deadline is not None:
                limit_run(highs, self.deadline - time.perf_counter())
            highs.run()
            status = highs.getModelStatus()
            if status == highspy.HighsModelStatus.kTimeLimit:
                raise LimitError("row generation reached the time limit while pricing an output")
            if status != highspy.HighsModelStatus.kOptimal:
                raise SolverError(f"HiGHS did not solve a pricing LP: {highs.modelStatusToString(status)}")
            column = np.clip(np.asarray(highs.getSolution().col_value), 0.0, None)
            violated = table.violated(column[None, :], np.array([y]))[:, 0]
            if not violated.any():
                break
            self._add(highs, order, y, np.flatnonzero(violated))
        else:
            raise SolverError(f"pricing an output went on for {MAX_ROUNDS} LPs without settling")
        duals = np.asarray(highs.getSolution().row_dual)[1:]  # a maximum: its <= rows' duals are >= 0
        multipliers = np.zeros(table.rows.shape[0])
        multipliers[np.concatenate(order)] = np.clip(duals, 0.0, None)
        return float(highs.getInfo().objective_function_value), multipliers

    def _model(self, y: int, n: int) -> tuple[Any, list[np.ndarray]]:
        """Output ``y``'s model: ``1ᵀw = 1`` and the rows held for ``y``."""
        import highspy

        from privopt.solvers.lp import new_highs

        highs = new_highs()
        highs.setOptionValue("output_flag", False)
        highs.addVars(n, np.zeros(n), np.full(n, highspy.kHighsInf))
        highs.changeObjectiveSense(highspy.ObjSense.kMaximize)
        highs.addRow(1.0, 1.0, n, np.arange(n, dtype=np.int32), np.ones(n))
        order: list[np.ndarray] = []
        self._add(highs, order, y, np.flatnonzero(self.table.held[:, y]))
        self.models[y] = (highs, order)
        return highs, order

    def _add(self, highs: Any, order: list[np.ndarray], y: int, chosen: np.ndarray) -> None:
        """Rows ``chosen`` (``<= 0``) into output ``y``'s model, and held for ``y``."""
        import highspy

        block = self.table.rows[chosen].tocsr()
        size = chosen.size
        highs.addRows(
            size,
            np.full(size, -highspy.kHighsInf),
            np.zeros(size),
            block.nnz,
            block.indptr[:-1].astype(np.int32),
            block.indices.astype(np.int32),
            block.data,
        )
        self.table.held[chosen, y] = True
        order.append(chosen)
