"""The LP route: an affine utility over a polyhedral cone is one linear program, built for HiGHS.

For a utility affine in the mechanism, ``U(W) = Σ_{x,y} C[x, y] W[x, y] + c₀``
(:meth:`~privopt.utilities.ConcaveUtility.linear_coefficients`: expected gain, minus expected
distortion — the optimal geo-indistinguishable mechanism of Bordenabe et al., CCS 2014, §3 — or any
affine builder), the design is the LP

    max Σ_y C_yᵀ w_y   s.t.   w_y in the cone for every output y,   Σ_y w_y = 1,   w >= 0,

built directly as a sparse HiGHS model (no cvxpy canonicalisation), one block of rows per output:

- a block with one vector on each side (``aᵀw <= F bᵀw``: single-input pairs, LDP w.r.t. S at a known
  distribution, ...) is one row ``(a − F b)ᵀ w <= 0``, and single-input pairs implied by others are left
  out first (:mod:`privopt.compiler.implied`: on a Manhattan grid only the four neighbours remain);
- a block with several vectors on a side (Rényi-ball envelopes) is the lifted system of
  :meth:`~privopt.compiler.cone.RowCone.lifted`, with its auxiliary variables per output.

HiGHS's interior-point method with crossover solves it (measured on a 10×10 Manhattan grid: 5.4 s
against 208 s for the same LP through cvxpy and Clarabel, docs/compiler.md, "Linear utilities"). The
certificate is the LP's duals as multipliers ``β >= 0`` of the cone's projected rows
(:class:`~privopt.certificates.LinearBound`, sparse): a lifted block's duals ``β_i`` (of ``aᵢᵀw <= t``)
and ``γ_j`` (of ``z <= bⱼᵀw``) are the product form ``β_i γ_j / Σγ`` on the row ``aᵢ − F bⱼ``, which has
the same reduced costs. The independent checker recomputes ``Σ_x max_y (C − Rᵀβ)_{x,y}`` from the full
projected rows, so a pair wrongly left out would be caught there.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from privopt.certificates import LinearBound
from privopt.compiler.cone import RowCone
from privopt.compiler.implied import implied_blocks
from privopt.errors import InfeasibleError, LimitError, SolverError, ValidationError
from privopt.memory import fits
from privopt.routes.base import (
    ProblemData,
    RouteResult,
    SolveStats,
    clean_channel,
    matrix_from_columns,
    remaining,
    status_for,
)
from privopt.routes.colgen_options import relative_gap
from privopt.routes.colgen_route import column_generation
from privopt.routes.multiplier_polish import polish
from privopt.routes.pair_repair import PairGraph, pairs_only, repair
from privopt.routes.pricing.slice_lp import into_cone
from privopt.routes.row_generation import (
    INITIAL_PAIRS,
    ROUND_TABLE_BYTES,
    PairRows,
    RowGeneration,
    multipliers_bound,
    solve_by_rows,
)
from privopt.solvers.lp import highs_lp, limit_run, new_highs
from privopt.tolerances import GAP_OPTIMAL_RTOL, LP_FACTOR_CAP, PDLP_MIN_TOLERANCE
from privopt.utilities import AffinePieces
from privopt.validation import FloatArray

#: Bytes HiGHS's interior-point method and crossover hold per non-zero of the LP (its matrix, the
#: normal equations' factor and the basis): measured 180–260 on metric grids (peak RSS over the nnz).
LP_BYTES_PER_ENTRY = 300

#: The LP's solvers (``solver=`` on the lp route): HiGHS's interior point, Clarabel's, HiGHS's
#: first-order PDLP.
LP_SOLVERS = ("HIGHS", "CLARABEL", "PDLP")

#: An LP over more variables (outputs × inputs) than this, on a cone of single-input pairs, is solved by
#: PDLP (docs/compiler.md, "First-order solves"): an interior point factors one system that couples
#: every output's block through the ``n`` rows ``Σ_y w_y = 1``. Measured (2 cores): a 15×15 Manhattan
#: grid (50,625 variables) Clarabel 21 s, exact; a 30×30 one (810,000) no interior point ended in 9
#: minutes, where PDLP certifies 0.7–1.2 % in 10; a 20×20 Euclidean one (160,000) by row generation had
#: not ended in 20 minutes, PDLP 1.7 % in 10.
FIRST_ORDER_VARIABLES = 100_000

#: Clarabel solves the LP when the cone has at most this many rows per input for each output (sparse
#: per-output systems: pairs of a graph, grids with Manhattan distance), HiGHS otherwise (measured: a
#: 10×10 Manhattan grid, 360 pair rows per output, Clarabel 0.9 s against HiGHS 5.5 s; a 7×7 Euclidean
#: grid, 1,496 rows per output, Clarabel 31 s against HiGHS 3.3 s).
SPARSE_ROWS_PER_INPUT = 8

#: Clarabel's feasibility and gap tolerances on the LP route: its default (1e-8) leaves violations that
#: moving the columns into the cone turns into a loss of ~4e-7 of the optimum on a 10×10 Manhattan grid.
CLARABEL_TOLERANCE = 1e-10

#: A design read off Clarabel's solution whose cone violation (relative, ``RowCone.violation``) exceeds
#: this is solved again by HiGHS: far below the audit's slack on ε (``AUDIT_EPS_ATOL``, 1e-7).
DESIGN_VIOLATION = 1e-9

#: A Clarabel design in the cone with a gap left is solved again by HiGHS with this many times Clarabel's
#: time, and at least ``FALLBACK_MIN_SECONDS`` (its result stands if HiGHS does not finish): a re-solve
#: pays off on small or badly scaled problems (a vertex in seconds) and must not double a large one's time.
FALLBACK_RATIO = 2.0
FALLBACK_MIN_SECONDS = 10.0

#: PDLP's LP holds each input's this many shortest pairs out and in (all of them on a graph metric such
#: as a Manhattan grid; a relaxation on a Euclidean one, whose point the repair moves into the rest):
#: more pairs, a tighter relaxation and a smaller repair, but slower iterations. Measured, the gap of the
#: repaired design to the bound: a 10×10 Euclidean grid after 60 s of PDLP, 8 pairs 10 %, 16 0.74 %,
#: 24 0.41 %, 32 0.21 %; a 20×20 one after 480 s, 24 pairs 1.5 % (1.7 % through the route, 600 s in
#: all), 32 2.4 %.
FIRST_ORDER_PAIRS = 24

#: PDLP is asked for this share of the run's gap tolerance: its own measure (relative residuals and
#: duality gap) leaves the gap between the repaired design and its multipliers' bound larger (a 5×5
#: grid asked for 1e-6: at ratios 0.1 and 0.01 a gap of 1.1·10⁻⁶ and 1.2·10⁻⁶, at 0.001 1.4·10⁻⁷).
PDLP_TOLERANCE_RATIO = 1e-3

#: Share of the time left that an iterative solve gets — column generation when the LP does not fit,
#: PDLP when it is large (the rest: reading off the design, the audit and the independent check).
ITERATIVE_SHARE = 0.8

#: Share of the time left after PDLP that polishing its multipliers gets (the rest: the repair, the audit
#: and the check). Measured after PDLP on saved points: polish and rays 45 s, repair 7 s on a 20×20
#: Euclidean grid; 11 s and 29 s on 30×30 Manhattan. At a limit of 600 s both routes ended 52–75 s early.
POLISH_SHARE = 0.5

#: The remedies every refusal or time limit of the LP route names.
REMEDIES = "route='cvxpy' (the same program through cvxpy), fewer outputs, a coarser alphabet"


@dataclass(frozen=True)
class ColumnSystem:
    """The rows every column ``w_y`` must satisfy, over ``[w; auxiliary]`` (module docstring).

    ``rows`` (``m × (n + auxiliary)``) with ``rows @ [w; aux] <= 0`` and the auxiliary variables free;
    ``direct`` maps each row that is a projected row of the cone to its index in
    :meth:`~privopt.compiler.cone.RowCone.matrix` (``-1`` for lifted rows); ``lifted`` lists, per lifted
    block, the projected row index of its first pair, its numerator rows, its denominator rows and the
    pairs ``(i, j)`` that are projected rows (vacuous ones are not), for the product form of the duals;
    ``dropped`` counts the implied pairs left out; ``projected`` holds rows over ``w`` alone that imply
    every row of the cone (the single rows, and the lifted blocks' projected rows), to move a solver's
    columns into the cone; ``extreme`` counts the single rows whose coefficients span more than
    ``LP_FACTOR_CAP``, in ``projected`` but left out of ``rows`` (the LP is a relaxation without them, and
    the design is moved into them).
    """

    rows: sp.csr_matrix
    projected: sp.csr_matrix
    auxiliary: int
    direct: np.ndarray
    lifted: tuple[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray], ...]
    dropped: int
    extreme: int = 0

    @classmethod
    def of(cls, cone: RowCone) -> ColumnSystem:
        n = cone.n_inputs
        implied = implied_blocks(cone)
        starts = cone.block_starts()
        single: list[FloatArray] = []
        direct: list[int] = []
        multi: list[int] = []
        extreme: list[FloatArray] = []
        for index, block in enumerate(cone.blocks):
            top, bottom = cone.groups[block.numerator].vectors, cone.groups[block.denominator].vectors
            if implied[index]:
                continue
            if top.shape[0] > 1 or bottom.shape[0] > 1:
                multi.append(index)
                continue
            row = top[0] - block.factor * bottom[0]
            if not np.any(row > 0.0):  # a row <= 0 everywhere holds for every w >= 0 (a vacuous pair)
                continue
            if block.factor > LP_FACTOR_CAP * float(top[0].max()) / float(bottom[0].max()):
                extreme.append(row)
                continue
            single.append(row)
            direct.append(int(starts[index]))
        parts: list[sp.csr_matrix] = [sp.csr_matrix(np.array(single).reshape(len(single), n))]
        projected = [parts[0], sp.csr_matrix(np.array(extreme).reshape(len(extreme), n))]
        auxiliary = 0
        lifted: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        if multi:
            sub = RowCone(
                cone.eps, n, cone.groups, tuple(cone.blocks[i] for i in multi), cone.exact, cone.definition
            )
            matrix, total = sub.lifted()
            projected.append(sub.matrix())
            auxiliary = total - n
            parts = [sp.hstack([parts[0], sp.csr_matrix((len(single), auxiliary))], format="csr"), matrix]
            lifted = _lifted_layout(sub, [int(starts[i]) for i in multi], len(single))
        rows = sp.vstack(parts, format="csr")
        full = np.full(rows.shape[0], -1)
        full[: len(direct)] = direct
        return cls(
            rows,
            sp.vstack(projected, format="csr"),
            auxiliary,
            full,
            tuple(lifted),
            int(implied.sum()),
            len(extreme),
        )


def _lifted_layout(
    sub: RowCone, starts: list[int], offset: int
) -> list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per block of ``sub`` (whose first projected rows in the whole cone are ``starts``), in
    :meth:`RowCone.lifted`'s row order after ``offset`` direct rows: its first projected row, the lifted
    rows of its numerator and denominator vectors, and the pairs that are projected rows."""
    numerators = sorted({b.numerator for b in sub.blocks})
    denominators = sorted({b.denominator for b in sub.blocks})
    row = offset
    top_rows, bottom_rows = {}, {}
    for g in numerators:
        size = sub.groups[g].vectors.shape[0]
        top_rows[g] = np.arange(row, row + size)
        row += size
    for g in denominators:
        size = sub.groups[g].vectors.shape[0]
        bottom_rows[g] = np.arange(row, row + size)
        row += size
    layout = []
    for block, first in zip(sub.blocks, starts, strict=True):
        i, j = sub.kept_pairs(block)
        layout.append((first, top_rows[block.numerator], bottom_rows[block.denominator], i, j))
    return layout


class LinearProgramRoute:
    """One LP for an affine utility (module docstring)."""

    name = "lp"

    def accepts(self, data: ProblemData) -> tuple[bool, str]:
        if data.affine_utility() is None:
            return False, "the utility is not affine in the mechanism (no linear program to solve)"
        return True, "the utility is affine in the mechanism: one linear program"

    def solve(self, data: ProblemData, deadline: float | None) -> RouteResult:
        requested = data.options.solver
        if requested is not None and requested not in LP_SOLVERS:
            raise ValidationError(
                "solver", f"one of {', '.join(map(repr, LP_SOLVERS))} on the lp route", repr(requested)
            )
        affine = data.affine_utility()
        if affine is None:
            raise ValueError("LinearProgramRoute.solve called on a problem it does not accept")
        C, offset = affine
        n, k = C.shape
        start = time.perf_counter()
        system = ColumnSystem.of(data.cone)
        m = system.rows.shape[0]
        pair_cone = system.auxiliary == 0 and pairs_only(system.projected)
        if requested == "PDLP" and not pair_cone:
            raise ValidationError(
                "solver",
                "'HIGHS' or 'CLARABEL' for this cone ('PDLP' needs a cone of single-input pairs, whose "
                "design it repairs without loss; this one has rows over several inputs or blocks lifted "
                "with auxiliary variables)",
                repr(requested),
            )
        first_order = requested == "PDLP" or (
            requested is None and k * n > FIRST_ORDER_VARIABLES and pair_cone
        )
        if first_order:
            solver = "PDLP"
        else:
            solver = requested or ("CLARABEL" if m <= SPARSE_ROWS_PER_INPUT * n else "HIGHS")
        by_rows = requested is None and solver == "HIGHS" and system.auxiliary == 0
        if not fits(_first_order_bytes(system, k) if first_order else _bytes(system, k, by_rows)):
            return self._by_columns(data, deadline, start)
        seconds = {"build": time.perf_counter() - start}
        start = time.perf_counter()
        note = ""
        try:
            solved = _read_off(system, C, offset, data, "ROWS" if by_rows else solver, deadline)
        except SolverError as failure:
            # Clarabel's interior point — the whole LP, or row generation's restricted LPs — stops short
            # of a badly scaled LP (ε·d near 30: factors e^30 beside 1 in one row) with a status that is
            # not an optimum. Unless Clarabel was asked for, HiGHS's simplex solves the flat LP instead.
            if requested == "CLARABEL":
                raise SolverError(
                    f"{failure}. Remedies: solver='HIGHS', or no solver (a Clarabel failure then falls back "
                    "to HiGHS)"
                ) from failure
            if requested is not None or not fits(_bytes(system, k, False)):
                raise
            solver, by_rows = "HIGHS", False
            solved = _read_off(system, C, offset, data, solver, deadline)
            note = f" ({failure}; HiGHS solved the LP instead)"
        if solver == "PDLP":
            note = f" (first-order; {solved.note})"
        if solved.generation is not None:
            found = solved.generation
            note = (
                f" (row and output generation: {found.rounds} LPs over {found.outputs} of {k} outputs and "
                f"{found.held:,} of {k * m:,} rows, {found.pricing_lps} pricing LPs)"
            )
        if solver == "CLARABEL" and requested is None and not solved.clean(data.cone):
            # An interior point left noise that no move into the cone removes (an output of noise on a
            # degenerate cone, e.g. ε = 0), or stopped short on a badly scaled one: HiGHS's crossover
            # gives a vertex instead. Where Clarabel's design is in the cone and only a gap is left, HiGHS
            # gets FALLBACK_RATIO times Clarabel's time, and Clarabel's result stands if it runs out.
            inside = data.cone.violation(solved.matrix) <= DESIGN_VIOLATION
            spent = time.perf_counter() - start
            left = remaining(deadline)
            budget = max(FALLBACK_RATIO * spent, FALLBACK_MIN_SECONDS) if inside else None
            limit = budget if left is None else (left if budget is None else min(left, budget))
            try:
                again = _read_off(
                    system, C, offset, data, "HIGHS", None if limit is None else time.perf_counter() + limit
                )
            except LimitError:
                if not inside:
                    raise
                note = " (a gap left; HiGHS's crossover did not finish in the time it was given)"
            else:
                solver, solved = "HIGHS", again
                note = " (Clarabel's solution was not clean: off the cone or a gap left)"
        seconds["lp"] = time.perf_counter() - start
        matrix, value, upper, beta = solved.matrix, solved.value, solved.upper, solved.beta
        method = "row generation" if by_rows else ("first-order" if solver == "PDLP" else "interior point")
        if by_rows:  # Clarabel's restricted LPs, HiGHS's pricing and vertex
            solver = "CLARABEL and HIGHS"
        bound = LinearBound(beta, upper, f"{solver} ({method}): the LP's duals")
        stats = SolveStats(seconds=seconds, solver=solver, inequalities=m, columns=k * (n + system.auxiliary))
        return RouteResult(
            matrix,
            status_for(value, upper, data.options.colgen.gap_tolerance, limited=solved.limited),
            value,
            upper,
            f"one linear program over {k} outputs ({m:,} rows per output, {system.dropped:,} implied pairs "
            f"left out{_extreme_note(system)}), {solver}{note}",
            "the LP's duals as multipliers of the cone's rows",
            stats,
            (bound,),
        )

    def _by_columns(self, data: ProblemData, deadline: float | None, start: float) -> RouteResult:
        """The LP too large for the memory budget: column generation over the utility's pieces view
        (:class:`~privopt.utilities.AffinePieces`), whose pricing is one LP per output over the slice
        (:class:`~privopt.routes.pricing.piecewise.PiecewisePricer`), with its certified bound; the design's
        columns are merged by the output attaining ``μ`` (docs/compiler.md, "LP route")."""
        utility = data.concave()
        view = utility.pieces_view()
        assert view is not None
        options = data.options.colgen
        left = remaining(deadline)
        if left is not None:
            options = replace(options, time_limit=min(options.time_limit, left * ITERATIVE_SHARE))
        if data.options.verbose:
            options = replace(options, progress=True)
        result = column_generation(view, data.cone, options)
        matrix = _labelled(view, result.columns, result.weights, utility.n_outputs)
        value = utility.value(matrix)
        upper = view.from_core(result.upper)
        stats = SolveStats(
            seconds={"column_generation": time.perf_counter() - start},
            iterations=result.iterations,
            columns=result.columns_generated,
            pricing_lps=result.pricing_lps,
            stopped=result.stopped,
            backend="column generation over the outputs' pieces",
        )
        limited = result.stopped not in ("converged", "no improving column")
        return RouteResult(
            matrix,
            status_for(value, upper, options.gap_tolerance, limited=limited),
            value,
            upper,
            f"the linear program over {utility.n_outputs} outputs exceeds the memory budget: column "
            f"generation over its pieces, one LP per output over the slice ({result.stopped})",
            result.bound_method,
            stats,
            result.bounds,
        )


def _extreme_note(system: ColumnSystem) -> str:
    """The reason's words for the rows left out of the LP for their span (``LP_FACTOR_CAP``)."""
    if not system.extreme:
        return ""
    return (
        f", {system.extreme:,} pairs with factors above {LP_FACTOR_CAP:.0e} left out of the LP and the "
        "design moved into them"
    )


@dataclass(frozen=True)
class _Solved:
    """A solver's LP read off: the mechanism, its value, the multipliers' bound and the multipliers."""

    matrix: FloatArray
    value: float
    upper: float
    beta: sp.csr_matrix
    generation: RowGeneration | None = None
    limited: bool = False
    note: str = ""

    def clean(self, cone: RowCone) -> bool:
        """Whether the design lies in the cone to rounding and the bound closes the gap."""
        gap = relative_gap(self.value, self.upper)
        return cone.violation(self.matrix) <= DESIGN_VIOLATION and gap <= GAP_OPTIMAL_RTOL


def _read_off(
    system: ColumnSystem, C: FloatArray, offset: float, data: ProblemData, solver: str, deadline: float | None
) -> _Solved:
    """Solve the LP with ``solver`` and read off the design and the bound of its multipliers."""
    n = C.shape[0]
    generation = None
    first_order: FirstOrder | None = None
    if solver == "ROWS":
        generation = _solve_rows(system, C, data, remaining(deadline))
        x, weights = generation.columns, generation.weights
    elif solver == "PDLP":
        left = remaining(deadline)
        first_order = _solve_pdlp(system, C, data, None if left is None else left * ITERATIVE_SHARE)
        x, weights = first_order.columns, first_order.weights
    else:
        solve = _solve_clarabel if solver == "CLARABEL" else _solve_highs
        x, weights = solve(system, C, data, remaining(deadline))
    weights = np.clip(weights, 0.0, None)
    if first_order is None:
        matrix = clean_channel(into_cone(system.projected, clean_channel(np.ascontiguousarray(x[:, :n].T))))
    else:  # a first-order point, on a cone of pairs (LinearProgramRoute.solve refuses the others)
        graph = PairGraph.of(system.projected)
        if graph is None:
            raise ValueError("PDLP's point read off on a cone that is not of single-input pairs")
        left = remaining(deadline)
        held = first_order.held
        polished = polish(
            system.rows[held],
            C,
            weights[:, held],
            first_order.sums,
            data.options.colgen.gap_tolerance,
            None if left is None else left * POLISH_SHARE,
        )
        weights = np.zeros_like(weights)
        weights[:, held] = polished.weights
        matrix = repair(graph, C, np.ascontiguousarray(x[:, :n].T), (polished.rays, polished.labels))
        first_order = replace(
            first_order,
            note=f"{first_order.note}, its multipliers polished by {_passes(polished.passes)} of one LP per output",
        )
    # The bound of the multipliers (certificates/linear.py), through the system's own rows: a lifted
    # block's product form has the same reduced costs on w as its lifted duals.
    upper = offset + multipliers_bound(system.rows[:, :n], C, weights)
    value = float(np.sum(C * matrix)) + offset
    beta = _projected_duals(system, weights, data.cone.n_rows)
    if first_order is None:
        return _Solved(matrix, value, upper, beta, generation)
    return _Solved(matrix, value, upper, beta, limited=first_order.limited, note=first_order.note)


def _passes(count: int) -> str:
    return f"{count} pass" if count == 1 else f"{count} passes"


def _bytes(system: ColumnSystem, k: int, by_rows: bool) -> int:
    """The memory the LP needs: the flat LP's entries, or row generation's first LP (its initial rows)
    and its per-round tables (rows × outputs)."""
    n = system.rows.shape[1]
    if not by_rows:
        return LP_BYTES_PER_ENTRY * k * (system.rows.nnz + 2 * n)
    first = PairRows.of(system.rows).initial(INITIAL_PAIRS)
    return LP_BYTES_PER_ENTRY * k * (int(np.diff(system.rows.indptr)[first].sum()) + 2 * n) + (
        ROUND_TABLE_BYTES * k * system.rows.shape[0]
    )


def _solve_rows(
    system: ColumnSystem, C: FloatArray, data: ProblemData, seconds: float | None
) -> RowGeneration:
    """The LP by row generation (:mod:`privopt.routes.row_generation`), with the route's messages."""
    try:
        found = solve_by_rows(system.rows, C, seconds, data.options.verbose)
    except InfeasibleError:
        raise _infeasible(data) from None
    except LimitError:
        raise LimitError(
            f"the linear program reached the time limit before its optimum. Remedies: {REMEDIES}"
        ) from None
    return found


@dataclass(frozen=True)
class FirstOrder:
    """PDLP's point: its columns (outputs × ``[w; aux]``), its multipliers (outputs × the system's rows, 0 on
    the rows left out), the rows it held, the multipliers of ``Σ_y w_y = 1``, whether it stopped at a
    limit before its tolerance, and the reason's words."""

    columns: FloatArray
    weights: FloatArray
    held: np.ndarray
    sums: FloatArray
    limited: bool
    note: str


def _first_order_bytes(system: ColumnSystem, k: int) -> int:
    """The memory of :func:`_solve_pdlp`'s LP (its rows held) and of the repair (``e^{−D}``, the closed
    columns, the polish's rays and the re-mixing LP's ``n × (n + 2k + 1)``)."""
    n = system.rows.shape[1]
    held = PairRows.of(system.rows).initial(FIRST_ORDER_PAIRS)
    entries = int(np.diff(system.rows.indptr)[held].sum())
    # e^{−D}; the closed columns, the rays and their closure; the re-mixing LP, dense and sparse
    return LP_BYTES_PER_ENTRY * k * (entries + 2 * n) + 8 * (3 * n * n + 7 * n * k)


def _solve_pdlp(system: ColumnSystem, C: FloatArray, data: ProblemData, seconds: float | None) -> FirstOrder:
    """``max Σ_y C_yᵀ w_y`` by HiGHS's PDLP over each input's ``FIRST_ORDER_PAIRS`` shortest pairs (a
    relaxation where they are not all the rows, whose multipliers still bound the whole LP: 0 on the rows
    left out), stopped at ``seconds`` or at ``PDLP_TOLERANCE_RATIO`` of the run's gap tolerance.

    One run: cut into segments, each warm-started from the last one's point (HiGHS takes it), PDLP lost
    its step sizes and restarts at every cut — on a 20×20 Euclidean grid eight segments ended at a gap of
    2.9 % where one run of the same time (at a tolerance of 10⁻⁴, outside the route) reached 1.5 %."""
    import highspy

    n, k = C.shape
    held = PairRows.of(system.rows).initial(FIRST_ORDER_PAIRS)
    restricted = replace(system, rows=system.rows[held], direct=system.direct[held])
    m = restricted.rows.shape[0]
    tolerance = max(data.options.colgen.gap_tolerance * PDLP_TOLERANCE_RATIO, PDLP_MIN_TOLERANCE)
    highs = _configured(_highs_model(restricted, C), data, solver="pdlp", pdlp_optimality_tolerance=tolerance)
    status = _run(highs, data, seconds)
    stopped = status in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kIterationLimit)
    if status != highspy.HighsModelStatus.kOptimal and not stopped:
        raise SolverError(
            f"HiGHS's PDLP did not solve the linear program: {highs.modelStatusToString(status)}"
        )
    solution = highs.getSolution()
    duals = np.asarray(solution.row_dual)
    weights = np.zeros((k, system.rows.shape[0]))
    weights[:, held] = duals[: k * m].reshape(k, m)
    how = "stopped at the time limit" if stopped else "at its tolerance"
    note = f"HiGHS's PDLP over {m:,} of {system.rows.shape[0]:,} rows per output, {how}"
    return FirstOrder(
        np.asarray(solution.col_value).reshape(k, n + system.auxiliary),
        weights,
        held,
        duals[k * m :],
        stopped,
        note,
    )


def _labelled(view: AffinePieces, columns: FloatArray, weights: FloatArray, k: int) -> FloatArray:
    """The mechanism with ``k`` labelled outputs that merges the design's columns ``θ_j v_j`` by the
    output attaining ``μ`` at each (the pieces view's optimum as a labelled mechanism of the same value)."""
    design = matrix_from_columns(columns, weights)
    merged = np.zeros((design.shape[0], k))
    np.add.at(merged.T, view.labels_of(columns), design.T)
    return merged


def _blocks(system: ColumnSystem, C: FloatArray) -> tuple[sp.csc_matrix, sp.csc_matrix]:
    """The LP's rows in the variables ``[w_0; aux_0; w_1; aux_1; ...]``: the cone's, output by output
    (``<= 0``), and the ``n`` rows ``Σ_y w_y = 1``."""
    n, k = C.shape
    select = sp.hstack([sp.eye(n), sp.csr_matrix((n, system.auxiliary))], format="csr")
    return sp.block_diag([system.rows] * k, format="csc"), sp.hstack([select] * k, format="csc")


def _cost(system: ColumnSystem, C: FloatArray) -> FloatArray:
    n, k = C.shape
    cost = np.zeros((k, n + system.auxiliary))
    cost[:, :n] = C.T
    return cost.ravel()


def _highs_model(system: ColumnSystem, C: FloatArray) -> Any:
    """The LP as a HiGHS model: the cone's rows per output (``<= 0``), ``Σ_y w_y = 1``, ``w >= 0`` and the
    auxiliary variables free."""
    import highspy

    n, k = C.shape
    width, m = n + system.auxiliary, system.rows.shape[0]
    cone_rows, sums = _blocks(system, C)
    matrix = sp.vstack([cone_rows, sums], format="csc")
    lower = np.zeros((k, width))
    lower[:, n:] = -highspy.kHighsInf
    return highs_lp(
        _cost(system, C),
        matrix,
        (
            np.concatenate([np.full(k * m, -highspy.kHighsInf), np.ones(n)]),
            np.concatenate([np.zeros(k * m), np.ones(n)]),
        ),
        (lower.ravel(), np.full(k * width, highspy.kHighsInf)),
        maximize=True,
    )


def _configured(model: Any, data: ProblemData, **options: Any) -> Any:
    """A HiGHS instance holding ``model``, with ``options`` and the run's verbosity."""
    highs = new_highs()
    highs.setOptionValue("output_flag", data.options.verbose)
    for name, value in options.items():
        highs.setOptionValue(name, value)
    highs.passModel(model)
    return highs


def _run(highs: Any, data: ProblemData, seconds: float | None) -> Any:
    """``highs.run()`` for at most ``seconds`` more, its model status; an infeasible LP is the
    definition's ``InfeasibleError``."""
    import highspy

    if seconds is not None:
        limit_run(highs, seconds)
    highs.run()
    status = highs.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        raise _infeasible(data)
    return status


def _solve_highs(
    system: ColumnSystem, C: FloatArray, data: ProblemData, seconds: float | None
) -> tuple[FloatArray, FloatArray]:
    """``max Σ_y C_yᵀ w_y`` by HiGHS's interior-point method with crossover: the solution (outputs ×
    ``[w; aux]``) and the multipliers of the cone's rows (outputs × rows, ``>= 0`` for a maximum)."""
    import highspy

    n, k = C.shape
    width, m = n + system.auxiliary, system.rows.shape[0]
    highs = _configured(_highs_model(system, C), data, solver="ipm")
    status = _run(highs, data, seconds)
    if status == highspy.HighsModelStatus.kTimeLimit:
        raise LimitError(
            f"the linear program reached the time limit before its optimum. Remedies: {REMEDIES}"
        )
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS did not solve the linear program: {highs.modelStatusToString(status)}")
    solution = highs.getSolution()
    x = np.asarray(solution.col_value).reshape(k, width)
    return x, np.asarray(solution.row_dual)[: k * m].reshape(k, m)


def _solve_clarabel(
    system: ColumnSystem, C: FloatArray, data: ProblemData, seconds: float | None
) -> tuple[FloatArray, FloatArray]:
    """The same LP by Clarabel's interior-point method (its sparse LDLᵀ factors a per-output system of
    a few rows per input cheaply, where HiGHS's takes longer: module docstring)."""
    import clarabel

    n, k = C.shape
    width, m = n + system.auxiliary, system.rows.shape[0]
    cone_rows, sums = _blocks(system, C)
    variables = k * width
    w_only = sp.eye(variables, format="csr")[(np.arange(variables) % width) < n]
    A = sp.vstack([sums, cone_rows, -w_only], format="csc")
    b = np.concatenate([np.ones(n), np.zeros(k * m + k * n)])
    settings = clarabel.DefaultSettings()
    settings.verbose = data.options.verbose
    settings.tol_feas = settings.tol_gap_abs = settings.tol_gap_rel = CLARABEL_TOLERANCE
    if seconds is not None:
        settings.time_limit = max(seconds, 1e-3)
    cones = [clarabel.ZeroConeT(n), clarabel.NonnegativeConeT(k * m + k * n)]
    solution = clarabel.DefaultSolver(
        sp.csc_matrix((variables, variables)), -_cost(system, C), A, b, cones, settings
    ).solve()
    status = str(solution.status)
    if "Infeasible" in status and "Almost" not in status:
        raise _infeasible(data)
    if "MaxTime" in status:
        raise LimitError(
            f"the linear program reached the time limit before its optimum. Remedies: {REMEDIES}"
        )
    if status not in ("Solved", "AlmostSolved"):
        raise SolverError(f"Clarabel did not solve the linear program: {status}")
    x = np.asarray(solution.x).reshape(k, width)
    return x, np.asarray(solution.z)[n : n + k * m].reshape(k, m)


def _infeasible(data: ProblemData) -> InfeasibleError:
    return InfeasibleError(
        f"{data.definition}: no mechanism with these outputs satisfies it (the linear program is infeasible)"
    )


def _projected_duals(system: ColumnSystem, weights: FloatArray, n_rows: int) -> sp.csr_matrix:
    """The multipliers ``β >= 0`` (projected rows × outputs) of the LP's multipliers ``weights`` (outputs ×
    the system's rows), the lifted blocks' in product form (module docstring)."""
    k = weights.shape[0]
    rows, cols, values = [], [], []
    direct = np.flatnonzero(system.direct >= 0)
    for y in range(k):
        used = direct[weights[y, direct] > 0.0]
        rows.append(system.direct[used])
        cols.append(np.full(used.size, y))
        values.append(weights[y, used])
        for first, top, bottom, i, j in system.lifted:
            beta, gamma = weights[y, top], weights[y, bottom]
            total = float(gamma.sum())
            if total <= 0.0 or not np.any(beta > 0.0):
                continue
            product = beta[i] * gamma[j] / total
            keep = product > 0.0
            rows.append(first + np.flatnonzero(keep))
            cols.append(np.full(int(keep.sum()), y))
            values.append(product[keep])
    return sp.csr_matrix(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))), shape=(n_rows, k)
    )
