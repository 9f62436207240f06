"""The column-generation route: a mechanism with a certified upper bound where enumeration cannot go.

The vertex LP needs at most ``|X|`` columns, so the full vertex set is never needed (Entropy paper
Thm. 3): :func:`~privopt.routes.colgen.column_generation` keeps a restricted master over the columns
found so far and prices new ones; its duals give a certified upper bound. The route seeds it with the
columns of the papers' low-complexity mechanisms (:mod:`privopt.mechanisms.catalog`) and tightens the
bound with the theorem bounds of :mod:`privopt.routes.theorem_bounds`. The status says whether the bound closed
the gap (optimal), closed it to ``gap_tolerance`` (optimal within the gap), or a budget stopped the run.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from privopt.certificates import Bound, TheoremBound, upper_in_units
from privopt.compiler.cone import RowCone
from privopt.data.mechanism import as_mechanism
from privopt.errors import LimitError, PrivoptError
from privopt.mechanisms.catalog import available
from privopt.memory import dense_bytes, require
from privopt.routes.base import (
    ProblemData,
    RouteResult,
    SolveStats,
    Status,
    check_highs_solver,
    matrix_from_columns,
    remaining,
    status_for,
)
from privopt.routes.colgen import (
    ColumnGenerationOptions,
    ColumnGenerationResult,
    heuristic_column_generation,
    starting_columns,
)
from privopt.routes.pricing import Refusal, certified_pricer
from privopt.routes.pricing.certified_generation import (
    EARLY_PHASE_STOPS,
    certified_column_generation,
    last_quarter,
)
from privopt.routes.pricing.slice_lp import ConeRepair, into_cone
from privopt.routes.pricing.tuning import active
from privopt.routes.theorem_bounds import best_upper_bound
from privopt.tolerances import SETTLE_RTOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: Named mechanisms whose columns seed column generation (``oue`` has 2^|X| outputs).
SEED_MECHANISMS = ("grr", "srr", "ir", "cr")

#: Copies of the master's columns held at once: privopt's dense columns, HiGHS's sparse copy (a value
#: and an index per entry: 1.5 dense copies) and the dense matrix built when columns are added or the
#: mechanism is read off.
MASTER_COPIES = 3.5


#: Seconds that column generation leaves, of the time left, for what follows it within the timeout:
#: ``|X|³ / FINISH_FLOPS`` for reading off the mechanism (a least-squares fit on up to ``|X|`` columns,
#: :func:`~privopt.routes.base.matrix_from_columns`: 0.3 to 2.5 s for 900 × 900 on a loaded 2-core
#: machine, so ``|X|³ / 2e8`` with a margin), and, without a certified pricing bound (whose run keeps
#: its own reserve), ``FINISH_SHARE`` of the time for its last master solve, its bound's cover and the
#: audit (30 × 30 SensitiveLDP on a point estimate, timeout 10 s: they overran it by 0.3 to 0.7 s).
FINISH_SHARE, FINISH_FLOPS = 0.05, 2e8


def finish_seconds(n_inputs: int, left: float, certified: bool) -> float:
    """Seconds kept, of ``left``, for the steps after column generation (:data:`FINISH_SHARE`)."""
    share = 0.0 if certified else FINISH_SHARE
    return min(0.5 * left, share * left + n_inputs**3 / FINISH_FLOPS)


def master_columns_held(n_inputs: int, options: ColumnGenerationOptions) -> int:
    """Columns the master holds at its largest: the starting basis (``|X| + 1`` around the uniform
    column, GRR's ``|X|``) with the seed mechanisms' outputs (up to ``|X|`` each), or its cap plus one
    round's columns, whichever is more."""
    start = (2 + len(SEED_MECHANISMS)) * n_inputs + 1
    return max(start, options.master_cap(n_inputs) + options.columns_per_round)


def require_master_memory(n_inputs: int, options: ColumnGenerationOptions) -> None:
    r"""Refuse column generation whose master would not fit the memory budget (:mod:`privopt.memory`):
    it holds :func:`master_columns_held` dense columns of ``|X|`` entries (×\ :data:`MASTER_COPIES`)."""
    held = master_columns_held(n_inputs, options)
    require(
        MASTER_COPIES * dense_bytes(n_inputs, held),
        f"column generation on {n_inputs:,} inputs (a restricted master of up to {held:,} columns of "
        f"{n_inputs:,} entries)",
        "fewer inputs (coarser attributes, fewer values of S or U: the master needs about 6·|X|² numbers), "
        "a smaller colgen master_columns=",
    )


def column_generation(
    utility: SubConvexUtility,
    cone: RowCone,
    options: ColumnGenerationOptions,
    initial_columns: FloatArray | None = None,
) -> ColumnGenerationResult:
    """Column generation for ``max Σ_y μ(w_y)`` over mechanisms with columns in ``cone``: certified
    (:mod:`privopt.routes.pricing`) on cones with a certified pricing bound, else with local-search pricing
    and the simplicial bound (:mod:`privopt.routes.colgen`)."""
    start = time.perf_counter()
    columns = starting_columns(cone, initial_columns)
    pricer = certified_pricer(utility, cone)
    if isinstance(pricer, Refusal):
        return heuristic_column_generation(utility, cone, options, columns, start, str(pricer))
    return certified_column_generation(utility, cone, options, pricer, columns, start)


def seed_columns(data: ProblemData) -> FloatArray | None:
    """Columns of the papers' low-complexity mechanisms for this definition (GRR, SRR, IR, CR).

    Column generation starts from them (those in the cone), so its value is never below the best of
    them. A mechanism that cannot be built here (a definition it does not apply to, a calibration that
    fails) is skipped: the seeds are a head start, not a requirement.
    """
    builders = available(data.definition, data.utility, data.n_inputs)
    columns = []
    for name in SEED_MECHANISMS:
        if name not in builders:
            continue
        try:
            matrix = as_mechanism(builders[name](), name).matrix
        except PrivoptError:
            continue
        if matrix.shape[0] == data.n_inputs:
            columns.append(matrix)
    return np.hstack(columns) if columns else None


class ColumnGenerationRoute:
    """Column generation with a certified bound (module docstring)."""

    name = "colgen"

    def accepts(self, data: ProblemData) -> tuple[bool, str]:
        if isinstance(data.utility, SubConvexUtility):
            return (
                True,
                "the utility is sub-convex: column generation gives a mechanism and a certified bound",
            )
        return False, "the utility is concave: use route='cvxpy'"

    def solve(self, data: ProblemData, deadline: float | None) -> RouteResult:
        check_highs_solver(data.options, self.name)
        utility = data.sub_convex()
        options = data.options.colgen
        require_master_memory(data.n_inputs, options)
        utility.check(data.n_inputs)
        if data.options.verbose:
            options = replace(options, progress=True)
        left = remaining(deadline)
        if left is not None:
            if left <= 0.0:
                raise LimitError(
                    f"the timeout was reached before column generation on {data.definition} started"
                )
            certified = not isinstance(certified_pricer(utility, data.cone), Refusal)
            kept = finish_seconds(data.n_inputs, left, certified)
            options = replace(options, time_limit=min(options.time_limit, left - kept))
        start = time.perf_counter()
        seeds = [c for c in (seed_columns(data), data.warm_columns) if c is not None]
        result = column_generation(
            utility, data.cone, options, initial_columns=np.hstack(seeds) if seeds else None
        )
        seconds = {"column_generation": time.perf_counter() - start}
        claims: list[Bound] = list(result.bounds)
        theorem = best_upper_bound(data)
        if theorem is not None:
            claims.append(theorem)
        claims.sort(key=lambda claim: upper_in_units(claim, utility))
        upper = upper_in_units(claims[0], utility) if claims else np.inf
        source = "column generation: " + result.bound_method
        if claims and isinstance(claims[0], TheoremBound):
            source = claims[0].description
        reason = f"column generation stopped: {result.stopped}; its bound: {result.bound_method}"
        if theorem is not None and claims[0] is theorem:
            reason += f"; a tighter theorem bound: {theorem.description}"
        limited = result.stopped in (
            "time limit",
            *EARLY_PHASE_STOPS,  # then the bound phase ran to the time limit
            "iteration limit",
            "column limit",
            "bound budget (node limit)",
        )
        lower = utility.from_core(result.lower)
        status = status_for(lower, upper, options.gap_tolerance, limited)
        side = None
        if (
            status not in (Status.OPTIMAL, Status.OPTIMAL_WITHIN_GAP)
            and len(result.trace)
            and np.isfinite(upper)
        ):
            side, words = limiting_side(result.trace, utility, upper)
            reason += f"; {words}"
        stats = SolveStats(
            seconds=seconds,
            iterations=result.iterations,
            columns=result.columns_generated,
            pricing_lps=result.pricing_lps,
            bound_nodes=result.bound_nodes,
            bound_complete=result.bound_complete,
            stopped=result.stopped,
            trace=tuple((float(t), float(v)) for t, v in result.trace),
            limited_by=side,
        )
        return RouteResult(
            matrix_from_columns(settled(data.cone, result.columns), result.weights),
            status,
            lower,
            upper,
            reason,
            source,
            stats,
            tuple(claims),
        )


def settled(cone: RowCone, columns: FloatArray) -> FloatArray:
    """The design's columns, each in the cone as an exact audit reads it. A pricer's column may carry
    rounding residue — ``6.5e-15`` on a secret's input beside a free input's unit column, a
    Pufferfish pair of secrets then reads an infinite ratio — so a violated column first loses its
    entries below :data:`~privopt.tolerances.SETTLE_RTOL` of its largest (kept when that leaves no
    row violated, as :meth:`~privopt.routes.pricing.slice_lp.ConeRepair.violated` reads it), else is mixed
    with the uniform column just far enough, whatever the step
    (:func:`~privopt.routes.pricing.slice_lp.into_cone`: a column out of the cone in the master — a unit
    column against a secret of exactly zero mass at ε = 7.5, random instance 10918 — costs the design a
    little value, never its audit); its mass is kept."""
    repair = ConeRepair(cone)
    out = columns.copy()
    for j in np.flatnonzero(repair.violated(columns).any(axis=0)):
        column = columns[:, j]
        trimmed = np.where(column < SETTLE_RTOL * float(column.max()), 0.0, column)
        if repair.violated(trimmed[:, None]).any():
            out[:, j] = into_cone(repair.matrix, column[:, None])[:, 0]
        else:
            out[:, j] = trimmed * (float(column.sum()) / float(trimmed.sum()))
    return out


def limiting_side(trace: FloatArray, utility: SubConvexUtility, upper: float) -> tuple[str, str]:
    """Which side keeps a gap open (``SolveStats.limited_by``), and the words for the reason: the master's
    value (``trace``: seconds and value in core units, its last the design's) rose over the last quarter
    of the run by at most ``settled_gap_share`` of the gap to ``upper`` (the utility's units;
    :mod:`~privopt.routes.pricing.tuning`: a tenth of the gap could not have closed it in four times the
    run) — the bound limits — or by more: the master does."""
    then, last = last_quarter(trace)
    lower = utility.from_core(last)
    rise, gap = lower - utility.from_core(then), max(upper - lower, 0.0)
    if rise <= active().settled_gap_share * gap:
        return "bound", (
            f"the master had settled (it rose {rise:.3g} over the last quarter of the run, the gap is "
            f"{gap:.3g}): the pricing bound keeps the gap open"
        )
    return "master", (
        f"the master was still rising ({rise:.3g} over the last quarter of the run, the gap is {gap:.3g}): "
        "more time (or columns) would raise the design"
    )
