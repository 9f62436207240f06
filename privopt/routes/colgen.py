"""Column generation: optimal-quality mechanisms where vertex enumeration cannot go.

The vertex LP ``max Σ_v θ_v μ(v) s.t. Σ_v θ_v v = 1_X, θ >= 0`` needs at most ``|X|`` columns, so the
full vertex set is never needed (Entropy paper Thm. 3's LP). Column generation keeps a *restricted
master* over the columns found so far and adds columns with positive reduced cost
``f(v) = μ(v) − λᵀv``, where ``λ`` are the master's duals:

- **Master**: HiGHS on ``Σ_j θ_j v_j = 1_X``; started from a non-degenerate feasible basis — the
  columns ``(1 − δ)u + δe_x`` around the uniform column ``u`` (in every built-in cone) and GRR_ε's
  when they are in the cone — plus any columns the caller supplies (e.g. SRR's).
- **Pricing**: maximise the convex ``f`` over the normalised slice ``Q = {v >= 0, v ∈ K, Σ v = 1}`` by
  multi-start local vertex search: linearise ``μ`` at ``v`` (``μ(v') >= ∇μ(v)ᵀv'`` for sublinear ``μ``)
  and solve the LP ``max (∇μ(v) − λ)ᵀv'`` over ``Q``, which never decreases ``f``; repeat until it
  stalls. The LPs use the *lifted* cone (docs/compiler.md, "Routes"), with ``Σ|A| + Σ|B| + #blocks`` rows. Starts
  are seeded (deterministic for a seed).
- **Bound**: any mechanism ``W = Σ_y c_y v_y`` (``v_y ∈ Q``, ``Σ_y c_y = |X|``) has utility
  ``Σ_y c_y μ(v_y) <= 1ᵀλ + |X| · max_{v∈Q} f(v)``. The maximum is bounded from above by
  :func:`privopt.routes.simplicial_bound.convex_max_over_slice` (simplex-vertex bound refined by branch and
  bound), so ``1ᵀλ + |X| · max(0, R̄)`` is a valid bound on the optimum over the cone. A second one
  comes from the same search: the vertex LP over the vertices of the simplices that cover ``Q``
  (:func:`_cover_bound`). The smaller is reported as ``upper``, with ``gap = (upper − lower) / upper``.
  A heuristic result is never called optimal: it is optimal only when the bound closes the gap.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from privopt.certificates import SliceBound
from privopt.compiler.cone import RowCone
from privopt.errors import InfeasibleError, SolverError
from privopt.routes.colgen_options import (
    ColumnGenerationOptions,
    relative_gap,
)
from privopt.routes.pricing.certificate import PricingCertificate
from privopt.routes.pricing.slice_lp import ConeRepair, SliceLP
from privopt.routes.simplicial_bound import convex_max_over_slice
from privopt.solvers.errors import BackendError
from privopt.solvers.lp import new_highs, solve_lp
from privopt.solvers.progress import Progress
from privopt.tolerances import MASTER_DUAL_TOL, REDUCED_COST_TOL, THETA_RTOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: ``scipy.optimize.linprog``'s status for a problem proved infeasible.


#: The starting basis steps this fraction short of the largest δ that keeps it in the cone, so that
#: rounding never puts a column outside it.
_STEP_MARGIN = 1e-9

#: Pair entries (rows of a block × support) :func:`_largest_step` forms at once.
_STEP_ENTRIES = 2_000_000

#: A pricing round that finds nothing is repeated with 2, 4, ... times the starts, up to this factor.
_ESCALATION = 16


#: A branch and bound re-run with twice the nodes must close at least this share of the gap it left
#: open, else the search stops ("no improving column"): on a box-envelope NMI cone (2×3) the simplicial
#: bound stayed at 1.3568 from 400 to 6,400 nodes and spent the whole budget.
STALL_SHARE = 0.05


@dataclass(frozen=True)
class ColumnGenerationResult:
    """The master's columns and weights, its value (a lower bound), the upper bound and why it stopped."""

    columns: FloatArray  # (|X|, k): the columns v_j with θ_j > 0
    weights: FloatArray
    lower: float
    upper: float
    duals: FloatArray
    #: "converged" (gap within ``gap_tolerance``), "no improving column" (the search found none but the
    #: bound leaves a gap), "time limit", "iteration limit", "column limit", "bound budget (node limit)";
    #: with a certified pricer also "master settled" and "time limit (no complete bound)" (the bound
    #: phase started early and ran to the time limit).
    stopped: str
    iterations: int
    columns_generated: int
    pricing_lps: int
    bound_nodes: int
    bound_complete: bool
    #: ``(seconds, master value)`` after every master solve: the lower bound's convergence.
    trace: FloatArray
    #: The certificate of ``upper`` when the cone has a certified pricing bound
    #: (:mod:`privopt.routes.pricing`), else ``None``.
    certificate: PricingCertificate | None = None
    #: How ``upper`` was obtained, or why the certified pricing bound does not apply.
    bound_method: str = "simplicial branch and bound over the slice Σw = 1"
    #: The claims behind ``upper`` (core units), best first, for the independent checker.
    bounds: tuple[SliceBound, ...] = ()

    @property
    def gap(self) -> float:
        return relative_gap(self.lower, self.upper)


def _gradient(utility: SubConvexUtility, v: FloatArray) -> FloatArray:
    """A (super)gradient of ``μ`` at ``v``: the utility's own, or central finite differences."""
    if hasattr(utility, "gradient"):
        return np.asarray(utility.gradient(v), dtype=np.float64)
    n = v.size
    h = 1e-7 * max(1.0, float(np.max(v)))
    plus = np.clip(v[:, None] + h * np.eye(n), 0.0, None)
    minus = np.clip(v[:, None] - h * np.eye(n), 0.0, None)
    return (utility.mu(plus) - utility.mu(minus)) / (plus - minus).sum(axis=0)


def starting_columns(cone: RowCone, initial_columns: FloatArray | None) -> list[FloatArray]:
    """The master's first columns: a non-degenerate basis around the uniform column (first), the
    uniform column and GRR's, plus the caller's columns (e.g. the papers' mechanisms) that lie in the
    cone, normalised."""
    columns = _initial_basis(cone)
    if initial_columns is not None:
        seeds = np.asarray(initial_columns, dtype=np.float64)
        seeds = seeds[:, seeds.sum(axis=0) > 0]
        columns += list((seeds / seeds.sum(axis=0))[:, _in_cone(cone, seeds)].T)
    return columns


def heuristic_column_generation(
    utility: SubConvexUtility,
    cone: RowCone,
    options: ColumnGenerationOptions,
    columns: list[FloatArray],
    start: float,
    why_not_certified: str,
) -> ColumnGenerationResult:
    """Column generation with local-search pricing and the simplicial bound (module docstring), for
    cones without a certified pricing bound (``why_not_certified`` says why)."""
    deadline = start + options.time_limit
    pricing_deadline = start + options.time_limit * (1.0 - options.bound_fraction)
    n = cone.n_inputs
    lp = SliceLP(cone)
    into_cone = ConeRepair(cone)
    rng = np.random.default_rng(options.seed)
    master = start_master(utility, columns, options.master_cap(n))

    def f(V: FloatArray, duals: FloatArray) -> FloatArray:  # rows of V
        return utility.mu(V.T) - V @ duals

    bar = Progress("column generation", options.max_iterations, enabled=options.progress)
    stopped, iteration, generated = "iteration limit", 0, 0
    previous: list[FloatArray] = []
    trace: list[tuple[float, float]] = []
    bound = None
    nodes = options.bound_nodes  # doubled while the budget lasts and the bound leaves the gap open
    roots: list[FloatArray] = []

    def root() -> FloatArray:
        """The branch and bound's root simplex, computed once (n LPs), when first needed."""
        if not roots:
            roots.append(_root_simplex(lp, deadline))
        return roots[0]

    try:
        for iteration in range(1, options.max_iterations + 1):  # noqa: B007 - reported after the loop
            value, _, duals = master.solve()
            trace.append((time.perf_counter() - start, value))
            bar.update(advance=1, lower=value, columns=len(master.columns))
            # Stop early enough for the next master solve (it grows with the columns) to fit too.
            if time.perf_counter() + master.seconds > pricing_deadline:
                stopped = "time limit"
                break
            found = _price_escalating(utility, lp, duals, rng, options, previous, f, pricing_deadline)
            last_upper = math.inf
            while not found:
                # Local search found nothing: let the branch and bound look for a positive reduced
                # cost anywhere in the slice. A point it finds seeds a new local search; if none is
                # found, the bound it returns certifies the master's value — or, stopped by its node
                # budget with the gap open, it runs again with twice the nodes while time is left and
                # each doubling closes at least STALL_SHARE of the open gap.
                bound = _slice_bound(utility, f, duals, root(), lp, options, pricing_deadline, nodes)
                upper = float(np.sum(duals)) + n * max(0.0, bound.upper)
                if relative_gap(value, upper) <= options.gap_tolerance:
                    stopped = "converged"
                    break
                if bound.best_point is not None and bound.lower > REDUCED_COST_TOL:
                    found = _ascend(utility, lp, duals, bound.best_point, f, pricing_deadline)
                    if found:
                        break
                if bound.complete or time.perf_counter() >= pricing_deadline:
                    stopped = "no improving column" if bound.complete else "time limit"
                    break
                if math.isfinite(last_upper) and last_upper - upper < STALL_SHARE * (last_upper - value):
                    stopped = "no improving column"  # twice the nodes bought (almost) nothing
                    break
                last_upper = min(last_upper, upper)
                nodes *= 2
            if not found:
                break
            room = options.max_columns - generated
            if room <= 0:
                stopped = "column limit"
                break
            previous = [v for _, v in found]
            bound = None
            new = into_cone(np.column_stack([v for _, v in found][:room]))
            if new.shape[1] == 0:
                stopped = "no improving column"  # every column found lay outside the cone
                break
            master.add(list(new.T), list(utility.mu(new)))
            generated += new.shape[1]
        else:
            stopped = "iteration limit"
    finally:
        bar.close()
    value, theta, duals = master.solve()
    trace.append((time.perf_counter() - start, value))
    if bound is None:  # else it is the bound at these (the last) duals: the master has not changed
        bound = _slice_bound(utility, f, duals, root(), lp, options, deadline, nodes)
    simplicial = SliceBound.build(
        duals, bound.upper, "sum", np.ones(n), "simplicial branch and bound over the slice Σw = 1"
    )
    claims = [simplicial]
    # A cover too large to return (COVER_MAX_ROWS) leaves the root simplex: Σ_x μ(e_x), H(X) for MI.
    cover = _cover_bound(utility, bound.cover if bound.cover.shape[0] else root(), n)
    if cover is not None:
        claims.append(cover)
    claims.sort(key=lambda claim: claim.upper)
    if stopped in ("converged", "no improving column"):  # the cover's bound may close the gap
        closed = relative_gap(value, claims[0].upper) <= options.gap_tolerance
        stopped = "converged" if closed else "no improving column"
    support, weights = master.support(theta)
    return ColumnGenerationResult(
        columns=support,
        weights=weights,
        lower=value,
        upper=claims[0].upper,
        duals=duals,
        stopped=stopped,
        iterations=iteration,
        columns_generated=generated,
        pricing_lps=lp.calls,
        bound_nodes=bound.nodes,
        bound_complete=bound.complete,
        trace=np.array(trace),
        bound_method=f"simplicial branch and bound over the slice Σw = 1 ({why_not_certified})",
        bounds=tuple(claims),
    )


def _in_cone(cone: RowCone, columns: FloatArray) -> np.ndarray:
    """Which columns are in the cone (violation <= 1e-9), checking halves only where needed.

    One :meth:`RowCone.violation` call covers all columns when they all pass (the usual case for
    seed mechanisms); checking columns one by one cost 17 s of a 10 s budget on a 30×30 alphabet.
    """
    if columns.shape[1] == 0:
        return np.zeros(0, dtype=bool)
    if cone.violation(columns) <= 1e-9:
        return np.ones(columns.shape[1], dtype=bool)
    if columns.shape[1] == 1:
        return np.zeros(1, dtype=bool)
    half = columns.shape[1] // 2
    return np.concatenate([_in_cone(cone, columns[:, :half]), _in_cone(cone, columns[:, half:])])


def _slice_bound(
    utility: SubConvexUtility,
    f: Any,
    duals: FloatArray,
    root: FloatArray,
    lp: SliceLP,
    options: ColumnGenerationOptions,
    deadline: float,
    nodes: int,
) -> Any:
    """The simplicial branch and bound on ``max f(v)`` over the slice at these duals (``nodes`` at most)."""

    def objective(V: FloatArray) -> FloatArray:
        return np.asarray(f(V, duals), dtype=np.float64)

    def gradient(v: FloatArray) -> FloatArray:
        return _gradient(utility, v) - duals

    return convex_max_over_slice(
        objective, root, lp.point_in_simplex, gradient,
        lower=0.0, tolerance=REDUCED_COST_TOL, max_nodes=nodes, deadline=deadline,
    )  # fmt: skip


def _cover_bound(utility: SubConvexUtility, cover: FloatArray, n: int) -> SliceBound | None:
    """The vertex LP over the vertices of simplices covering the slice, as a claim: its duals ``λ``.

    Every ``v`` in the slice is a convex combination of one covering simplex's vertices, and ``μ`` is
    convex, so ``μ(v) <= λᵀv`` there (the argument of Entropy paper Thm. 3): ``δ̄ = 0``. With the root
    simplex ``Δ`` alone the bound is ``Σ_x μ(e_x)`` (``H(X)`` for MI). ``None`` when the LP fails.
    """
    if cover.shape[0] == 0:
        return None
    values = utility.mu(cover.T)
    if not np.all(np.isfinite(values)):
        return None
    try:
        lp = solve_lp(values, a_eq=cover.T, b_eq=np.ones(n), bounds=(0.0, None))
    except BackendError:
        return None
    if lp.eq_duals.size != n:
        return None
    return SliceBound.build(
        lp.eq_duals,
        max(0.0, float(np.max(values - cover @ lp.eq_duals))),
        "sum",
        np.ones(n),
        "vertex LP over the vertices of a simplicial cover of the slice",
    )


def _initial_basis(cone: RowCone) -> list[FloatArray]:
    """``n`` columns ``(1 − δ) u + δ e_x`` around the uniform column ``u``, with the largest ``δ`` that
    keeps them in the cone, plus ``GRR_ε``'s columns when they are in it.

    They sum to the all-ones vector with weights 1, a non-degenerate feasible basis: a master with the
    uniform column alone would be degenerate (one column for ``n`` equations), its duals would be
    arbitrary (HiGHS returns 0) and the columns they price could not enter.
    """
    from privopt.mechanisms.randomized_response import grr_matrix

    n = cone.n_inputs
    uniform = np.full(n, 1.0 / n)
    if cone.violation(uniform[:, None]) > 1e-12:
        raise InfeasibleError("column generation starts from the uniform column, which is not in this cone")
    high = _largest_step(cone, uniform)
    columns = []
    if high > 1e-9:  # first, so that the master starts from them as its basis (_start_master)
        columns += list(((1 - high) * uniform[:, None] + high * np.eye(n)).T)
    columns.append(uniform)
    grr = grr_matrix(n, cone.eps)
    if cone.violation(grr) <= 1e-12:
        columns += list((grr / grr.sum(axis=0)).T)
    return columns


def _largest_step(cone: RowCone, uniform: FloatArray) -> float:
    """The largest ``δ <= 1`` with every ``(1 − δ)u + δe_x`` in the cone, read off its rows.

    A row ``r = a − F b`` (``rᵀw <= 0``; ``g = rᵀu <= 0``) holds at ``(1 − δ)u + δe_x`` iff ``δ (r_x − g)
    <= −g``, so it caps ``δ`` at ``−g/(max_x r_x − g)`` when ``max_x r_x > g``; a row equal to 0 at ``u``
    with a positive entry forces ``δ = 0``. Each block's rows are every pair of its groups' vectors,
    taken on the pair's support only: entries off it are 0, which cap ``δ`` at 1 where ``g < 0`` and do
    not bind where ``g = 0``. The pairs a compiled cone drops (``a <= F a`` with ``F >= 1``) hold on the
    whole orthant, so they cap ``δ`` at no less than 1. (A bisection on the cone's violation took 4.2 s
    on a 30 × 30 alphabet; expanding the rows, 1.2 ms of a 3 × 3 solve's 25.)
    """
    step = 1.0
    for block in cone.blocks:
        A = cone.groups[block.numerator].vectors
        B = cone.groups[block.denominator].vectors
        support = np.flatnonzero(np.any(A, axis=0) | np.any(B, axis=0))
        a, b = A[:, support], block.factor * B[:, support]
        at_u = np.minimum((A @ uniform)[:, None] - block.factor * (B @ uniform)[None, :], 0.0)
        chunk = max(1, _STEP_ENTRIES // max(1, b.size))
        for first in range(0, a.shape[0], chunk):
            top = (a[first : first + chunk, None, :] - b[None, :, :]).max(axis=2, initial=0.0)
            g = at_u[first : first + chunk]
            capped = top > g
            if np.any(capped):
                step = min(step, float(np.min(-g[capped] / (top[capped] - g[capped]))))
    return min(1.0, max(0.0, step * (1.0 - _STEP_MARGIN)))


def start_master(utility: SubConvexUtility, columns: list[FloatArray], cap: int) -> RestrictedMaster:
    """The restricted master over ``columns``, started from its first ``n`` columns as the basis when
    they sum to the all-ones vector (the starting basis of :func:`starting_columns`, weights 1): a
    30 × 30 alphabet's first solve took 1.1 s from it against 7.6 s from HiGHS's own start."""
    n = columns[0].size
    master = RestrictedMaster(n, cap)
    master.add(columns, list(utility.mu(np.column_stack(columns))))
    if len(columns) >= n and np.allclose(np.sum(columns[:n], axis=0), 1.0, rtol=0.0, atol=1e-12):
        master.set_basis(n)
    return master


class RestrictedMaster:
    """The restricted master ``max Σ_j θ_j μ(v_j) s.t. Σ_j θ_j v_j = 1_X, θ >= 0`` as one HiGHS model.

    Columns are appended (``addCols``) and the simplex restarts from the previous optimal basis, so a
    round costs a few pivots instead of a solve from scratch. Above ``cap`` columns the least useful
    non-basic ones are deleted (:meth:`_prune`).
    """

    def __init__(self, n: int, cap: int) -> None:
        self.n = n
        self.highs = new_highs()
        # Appended columns leave the optimal basis primal feasible: the primal simplex continues from
        # it (the default dual simplex re-runs ~10× more pivots on the Adult instances).
        self.highs.setOptionValue("simplex_strategy", 4)
        # HiGHS's default dual feasibility tolerance (1e-7) lets it call the master optimal while a
        # column priced above REDUCED_COST_TOL waits to enter: the loop then adds columns that never
        # pivot in (a 3×3 instance added 100,000 in 389 s, stuck 6e-8 below the optimum).
        self.highs.setOptionValue("dual_feasibility_tolerance", MASTER_DUAL_TOL)
        self.highs.addRows(
            n, np.ones(n), np.ones(n), 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0)
        )
        self.columns: list[FloatArray] = []
        self.values: list[float] = []
        self._solution: tuple[float, FloatArray, FloatArray] | None = None  # until columns are added
        self.seconds = 0.0  # of the last solve: the next one's cost, for the time budget
        self.cap = cap
        self.pruned = 0  # columns deleted so far

    def add(self, columns: list[FloatArray], values: list[float]) -> None:
        matrix = np.column_stack(columns)
        # Column-wise sparse form (HiGHS's CSC): the non-zeros of each column in row order.
        col, row = np.nonzero(matrix.T)
        starts = np.searchsorted(col, np.arange(len(columns))).astype(np.int32)
        self.highs.addCols(
            len(columns),
            -np.asarray(values, dtype=np.float64),  # HiGHS minimises
            np.zeros(len(columns)),
            np.full(len(columns), np.inf),
            row.size,
            starts,
            row.astype(np.int32),
            matrix[row, col],
        )
        self.columns += columns
        self.values += list(values)
        self._solution = None

    def set_basis(self, count: int) -> None:
        """Start the simplex from the first ``count`` (= ``n``) columns as the basis."""
        import highspy

        basis = highspy.HighsBasis()
        basis.col_status = [
            highspy.HighsBasisStatus.kBasic if j < count else highspy.HighsBasisStatus.kLower
            for j in range(len(self.columns))
        ]
        basis.row_status = [highspy.HighsBasisStatus.kLower] * self.n
        basis.valid = True
        self.highs.setBasis(basis)

    def solve(self) -> tuple[float, FloatArray, FloatArray]:
        """``(value, θ, λ)``: the master's optimum, weights and equality duals (for the maximisation)."""
        import highspy

        if self._solution is not None:  # nothing changed since the last solve (~1 s on 900 inputs)
            return self._solution
        started = time.perf_counter()
        for attempt in range(2):  # a failed solve is retried once from scratch, then it is an error
            self.highs.run()
            status = self.highs.getModelStatus()
            if status == highspy.HighsModelStatus.kOptimal:
                solution = self.highs.getSolution()
                theta = np.clip(np.asarray(solution.col_value), 0.0, None)
                duals = -np.asarray(solution.row_dual)
                value = float(np.dot(self.values, theta))
                if len(self.columns) > self.cap:
                    theta = self._prune(np.asarray(solution.col_dual), theta)
                self._solution = (value, theta, duals)
                self.seconds = time.perf_counter() - started
                return self._solution
            if status == highspy.HighsModelStatus.kInfeasible:
                raise InfeasibleError("the restricted master is infeasible: no column covers every input")
            if attempt == 0:
                self.highs.clearSolver()
        raise SolverError(
            f"the restricted master LP failed twice (HiGHS status: {self.highs.modelStatusToString(status)})"
        )

    def _prune(self, reduced: FloatArray, theta: FloatArray) -> FloatArray:
        """Delete the non-basic columns with the most negative reduced costs, down to ``cap // 2``.

        Only non-basic columns go, so the basis stays optimal and the value and duals do not change;
        every later pivot prices fewer columns (docs/compiler.md, "Column-generation route").
        Returns ``θ`` on the columns kept.
        """
        import highspy

        basis = self.highs.getBasis().col_status
        basic = np.array([status == highspy.HighsBasisStatus.kBasic for status in basis])
        # HiGHS minimises −μ: a column's reduced cost there is λᵀv − μ(v) >= 0 at the optimum.
        order = np.argsort(np.where(basic, np.inf, -reduced), kind="stable")
        drop = order[: len(self.columns) - self.cap // 2]
        drop = np.sort(drop[~basic[drop]])
        keep = np.ones(len(self.columns), dtype=bool)
        keep[drop] = False
        if drop.size:
            self.highs.deleteCols(drop.size, drop.astype(np.int32))
            self.columns = [column for column, kept in zip(self.columns, keep, strict=True) if kept]
            self.values = [v for v, kept in zip(self.values, keep, strict=True) if kept]
            self.pruned += int(drop.size)
        return theta[keep]

    def support(self, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The columns with non-negligible weight in ``θ`` (as a matrix) and their weights."""
        keep = theta > THETA_RTOL * max(float(theta.max()), 1e-300)
        kept = [self.columns[j] for j in np.flatnonzero(keep)]
        return (np.column_stack(kept) if kept else np.zeros((self.n, 0))), theta[keep]


def _root_simplex(lp: SliceLP, deadline: float) -> FloatArray:
    """The smallest simplex ``{v >= l, Σ v = 1}`` containing the slice (``l_x = min_Q v_x``, n LPs), or
    the unit simplex ``Δ ⊇ Q`` when the deadline comes first (900 LPs take about a second)."""
    n = lp.n
    lower = np.zeros(n)
    for x in range(n):
        if time.perf_counter() > deadline:
            return np.eye(n)
        lower[x] = lp.maximise(-np.eye(n)[x], "bound LP")[x]
    lower = np.clip(lower - 1e-12, 0.0, None)
    return lower[None, :] + (1.0 - lower.sum()) * np.eye(n)


#: Linearisation points ``(1 − δ) v + δ·uniform`` tried at each step of the local search.
_SMOOTHING = (0.0, 0.02, 0.2, 0.6)


def _ascend(
    utility: SubConvexUtility, lp: SliceLP, duals: FloatArray, v: FloatArray, f: Any, deadline: float
) -> list[tuple[float, FloatArray]]:
    """Local vertex search from ``v``: linearise ``μ`` and re-solve until ``f`` stops increasing.

    A sublinear ``μ`` satisfies ``μ(v') >= ∇μ(u)ᵀv'`` for *every* point ``u`` (convexity plus Euler's
    identity ``∇μ(u)ᵀu = μ(u)``), so the LP ``max (∇μ(u) − λ)ᵀv'`` gives a valid ascent step from any
    ``u``. Besides ``u = v``, points pulled towards the uniform column are tried: at a vertex with
    zero entries the gradient of MI is ``−∞`` there, and linearising at ``v`` alone never leaves its face.
    """
    value = float(f(v[None, :], duals)[0])
    uniform = np.full(v.size, 1.0 / v.size)
    for _ in range(50):
        if time.perf_counter() > deadline:
            break
        best, best_value = v, value
        for delta in _SMOOTHING:
            candidate = lp.maximise(_gradient(utility, (1.0 - delta) * v + delta * uniform) - duals)
            candidate_value = float(f(candidate[None, :], duals)[0])
            if candidate_value > best_value + 1e-12:
                best, best_value = candidate, candidate_value
        if best is v:
            break
        v, value = best, best_value
    return [(value, v)] if value > REDUCED_COST_TOL else []


def _price_escalating(
    utility: SubConvexUtility,
    lp: SliceLP,
    duals: FloatArray,
    rng: np.random.Generator,
    options: ColumnGenerationOptions,
    previous: list[FloatArray],
    f: Any,
    deadline: float,
) -> list[tuple[float, FloatArray]]:
    """:func:`_price`, doubling the random starts up to ``_ESCALATION`` times while it finds nothing.

    Local searches from random vertices reach a basin with a probability per start; before concluding
    that no column improves, try more of them.
    """
    found = _price(utility, lp, duals, rng, options.starts, options, previous, f, deadline)
    starts = options.starts
    while not found and starts < options.starts * _ESCALATION and time.perf_counter() < deadline:
        starts *= 2
        found = _price(utility, lp, duals, rng, starts, options, [], f, deadline)
    return found


def _price(
    utility: SubConvexUtility,
    lp: SliceLP,
    duals: FloatArray,
    rng: np.random.Generator,
    n_starts: int,
    options: ColumnGenerationOptions,
    previous: list[FloatArray],
    f: Any,
    deadline: float,
) -> list[tuple[float, FloatArray]]:
    """Columns with positive reduced cost, by multi-start local vertex search (module docstring)."""
    n = lp.n
    starts: list[FloatArray] = list(previous[: max(1, options.starts // 2)])
    starts.append(lp.maximise(-duals))  # the linear part alone
    for _ in range(n_starts):
        starts.append(lp.maximise(rng.normal(size=n)))
    found: list[tuple[float, FloatArray]] = []
    for v in starts:
        for value, w in _ascend(utility, lp, duals, v, f, deadline):
            if not any(np.max(np.abs(w - u)) < 1e-9 for _, u in found):
                found.append((value, w))
        if time.perf_counter() > deadline:
            break
    found.sort(key=lambda item: -item[0])
    return found[: options.columns_per_round]
