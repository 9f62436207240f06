"""Column generation with exact pricing and certified bounds (envelope cones, LDP cones).

On LDP cones the staircase pricer (:mod:`privopt.routes.pricing.staircase`) is exact and cheap
(milliseconds at 40 inputs): every round prices with it, at Wentges-smoothed duals then at the master's
(below), and the run first certifies the prior-free duals ``λ = μ*(ε)·p`` for mutual information. On
other envelope cones each round solves the restricted master (duals ``λ``) and prices in two ways:

- the fast multi-start LP local search of :mod:`privopt.routes.colgen` (cheap rounds are what
  moves the master early on);
- the envelope pricer (:class:`~privopt.routes.pricing.envelope.EnvelopePricer`) when the local search finds
  nothing even with escalated starts: the best combinations of block
  vertices it meets are columns (exact block-wise pricing), and its bound ``δ̄`` certifies
  ``OPT <= 1ᵀλ + max(0, δ̄)`` for the ``λ`` it priced. It prices at Wentges-smoothed duals (between
  the master's and those of the best bound so far), which stabilises the bound.

In the ``stabilized_fraction`` of the budget before the bound phase, once the master's value has
stalled and if no exact round has certified a bound yet (:func:`_box_due`), rounds price at the box-step
point of :class:`~privopt.routes.pricing.stabilization.BoxStep` instead (one local search, its starts
not escalated, and a ``probe_nodes``-node branch and bound), and at the master's duals only when none of those columns
improves the master (Wentges' mis-pricing rule, which keeps the master's convergence).

The lower bound is the master's value (monotone), the upper bound the smallest certified one. The
last ``bound_fraction`` of the budget (from half of it once the master has settled — it rose by less
than ``settled_growth`` of its value and ``settled_gap_share`` of the gap over the last quarter of the
run — unless the exact pricer has shown it cannot finish a search: ``early_bound_fraction``; from
``incomplete_bound_fraction`` of it while no search has completed a bound) certifies the
box's centre (after stabilised rounds; the mean of the recent rounds' duals, :class:`DualAverage`,
otherwise), then takes box steps from it with the exact oracle (:class:`_BoundPhase`), all with zeros on inputs of
zero weight (:meth:`_State.evaluate`); their columns keep raising the master. A master settled by its
value but still rising at the rate of the gap gets those exact steps one per round, between its own
rounds, in every round where that holds (:func:`_interleave`; no share of the budget): handing it the
phase would starve it, and the Wentges-smoothed exact rounds lower the bound slowly. The run stops when
the relative gap is at most ``gap_tolerance`` (times the pricer's ``gap_share``) or a budget is spent,
and keeps its best certificate.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Sequence

import numpy as np

from privopt.compiler.cone import RowCone
from privopt.routes.colgen import (
    REDUCED_COST_TOL,
    ColumnGenerationOptions,
    ColumnGenerationResult,
    RestrictedMaster,
    _price,
    _price_escalating,
    relative_gap,
    start_master,
)
from privopt.routes.pricing.certificate import PricingCertificate
from privopt.routes.pricing.contract import CertifiedPricer, PricingRequest
from privopt.routes.pricing.slice_lp import SliceLP
from privopt.routes.pricing.stabilization import BoxStep
from privopt.routes.pricing.tuning import active
from privopt.routes.pricing.workers import pricing_processes
from privopt.solvers.progress import Progress
from privopt.tolerances import PRIOR_FREE_TARGET
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: ``stopped`` when the bound phase started early (then it ran to the time limit).
SETTLED = "master settled"
NO_COMPLETE_BOUND = "time limit (no complete bound)"
EARLY_PHASE_STOPS = (SETTLED, NO_COMPLETE_BOUND)


def certified_column_generation(
    utility: SubConvexUtility,
    cone: RowCone,
    options: ColumnGenerationOptions,
    pricer: CertifiedPricer,
    columns: list[FloatArray],
    start: float,
) -> ColumnGenerationResult:
    """Run column generation from ``columns`` (a feasible basis), pricing with ``pricer`` (module doc);
    the envelope pricer's long searches run on ``options.workers`` processes
    (:mod:`privopt.routes.pricing.workers`)."""
    with pricer.session(pricing_processes(options.workers)) as running:
        return _generate(utility, cone, options, _State(utility, running, options), columns, start)


def _generate(
    utility: SubConvexUtility,
    cone: RowCone,
    options: ColumnGenerationOptions,
    state: _State,
    columns: list[FloatArray],
    start: float,
) -> ColumnGenerationResult:
    pricer = state.pricer
    deadline = start + options.time_limit * (1.0 - active().reserve)
    search_deadline = start + options.time_limit * (1.0 - active().reserve - options.bound_fraction)
    settle_from = start + options.time_limit * (
        1.0 - active().reserve - max(active().early_bound_fraction, options.bound_fraction)
    )
    incomplete_from = start + options.time_limit * (
        1.0 - active().reserve - max(active().incomplete_bound_fraction, options.bound_fraction)
    )
    stabilize_from = search_deadline - options.time_limit * options.stabilized_fraction
    master = start_master(utility, columns, options.master_cap(cone.n_inputs))
    lp = SliceLP(cone)
    rng = np.random.default_rng(options.seed)
    state.certify_prior_free(search_deadline)
    average = DualAverage()
    box: BoxStep | None = None
    between: _BoundPhase | None = None  # exact box steps between the master's rounds (_interleave)
    trace: list[tuple[float, float]] = []
    stopped, iteration, generated = "iteration limit", 0, 0
    previous: list[FloatArray] = []
    bar = Progress("column generation", options.max_iterations, enabled=options.progress)

    def f(V: FloatArray, d: FloatArray) -> FloatArray:
        return utility.mu(V.T) - V @ d

    def priced_at(at: FloatArray) -> list[FloatArray]:
        """Columns from the local search and a few branch-and-bound nodes at ``at`` (stabilised rounds)."""
        found = [v for _, v in _price(utility, lp, at, rng, options.starts, options, [], f, search_deadline)]
        return found + state.probe(at, search_deadline)

    def cut(box: BoxStep, new: list[FloatArray]) -> None:
        if new:
            box.add(np.column_stack(new), utility.mu(np.column_stack(new)))

    try:
        for iteration in range(1, options.max_iterations + 1):  # noqa: B007 - reported after the loop
            value, _, duals = master.solve()
            average.add(value, duals)
            trace.append((time.perf_counter() - start, value))
            if time.perf_counter() + master.seconds > search_deadline:
                stopped = "time limit"
                break
            # The bound phase starts early only where it has room for a step: a phase the check's
            # reserve leaves no step would end the rounds with the budget unspent.
            early = state.room(deadline, value)
            if (
                early
                and time.perf_counter() >= settle_from
                and not state.unfinished
                and _stalled(trace, active().settled_growth)
                and _bound_limits(trace, state.upper)
            ):
                stopped = SETTLED
                break
            if early and time.perf_counter() >= incomplete_from and (state.unfinished or not state.complete):
                stopped = NO_COMPLETE_BOUND
                break
            if early and state.best is not None and _interleave(trace, state):
                if between is None:
                    between = _BoundPhase(
                        utility, state, master, _exact_box(pricer.weights, master, box), search_deadline, 0
                    )
                if state.upper < between.box.estimate:  # a better centre (the first, or an exact round's)
                    between.box.start(state.best.duals, state.upper)
                taken = between.generated
                between.room = options.max_columns - generated + taken  # the run's columns left
                if between.step(options.gap_tolerance * pricer.traits.gap_share):
                    value, _, duals = master.solve()  # the step's columns joined the master
                generated += between.generated - taken
            new: list[FloatArray] = []
            if box is None and time.perf_counter() >= stabilize_from and _box_due(trace, state.best):
                # The master has stalled and no exact round has certified: centre a box at the mean
                # of its recent duals.
                box = BoxStep(pricer.weights)
                box.add(np.column_stack(master.columns), np.asarray(master.values))
                centre = average.mean(value)
                new = priced_at(centre)
                cut(box, new)
                box.start(centre)
            elif box is not None:  # a stabilised round: price in the box around the centre
                point, predicted = box.point()
                new = priced_at(point)
                cut(box, new)
                box.update(point, predicted)
            improving = _improving(utility, new, duals)
            if not any(improving) and pricer.traits.exact_every_round:
                extra = state.exact_round(value, duals, search_deadline)
                if box is not None:
                    cut(box, extra)
                new = new + extra
                improving = improving + _improving(utility, extra, duals)
            elif not any(improving):  # (mis-pricing) price at the master's duals too
                found = _price_escalating(utility, lp, duals, rng, options, previous, f, search_deadline)
                previous = [v for _, v in found]
                # the local search is stuck: exact pricing finds a column or certifies
                extra = previous or state.exact_round(value, duals, search_deadline)
                if box is not None:
                    cut(box, extra)
                new = new + extra
                improving = improving + _improving(utility, extra, duals)
            gap = relative_gap(value, state.upper)
            bar.update(advance=1, lower=value, upper=state.upper, gap=gap)
            if gap <= options.gap_tolerance * pricer.traits.gap_share:
                stopped = "converged"
                break
            if not any(improving):
                if time.perf_counter() > search_deadline:
                    stopped = "time limit"
                    break
                if state.complete and state.closed:
                    stopped = "bound budget (node limit)" if gap > options.gap_tolerance else "converged"
                    break
                # The exact round's branch and bound ran out of nodes with the gap open: spend the
                # budget left on the bound, with twice the nodes.
                state.node_budget *= 2
                continue
            room = options.max_columns - generated
            if room <= 0:
                stopped = "column limit"
                break
            new = new[:room]
            master.add(new, list(utility.mu(np.column_stack(new))))
            generated += len(new)
            if between is not None:
                cut(between.box, new)
        else:
            stopped = "iteration limit"
    finally:
        bar.close()
    value, theta, duals = master.solve()
    trace.append((time.perf_counter() - start, value))
    if stopped != "converged":
        # The interleaved steps' centre; else the stabilised box's centre, or else the mean of the recent
        # duals: where both were priced (six runs, docs/compiler.md §3) the mean lost every time, and its
        # pricing took a step's time.
        if between is not None:
            first, exact_box = between.box.centre, between.box
        else:
            first = average.mean(value) if box is None else box.centre
            exact_box = _exact_box(pricer.weights, master, box)
        phase = _BoundPhase(utility, state, master, exact_box, deadline, options.max_columns - generated)
        # Box steps only spend the time budget: a run stopped by its iteration or column budget
        # certifies its starting points and ends; one whose master settled steps to the deadline.
        steps = stopped in ("time limit", *EARLY_PHASE_STOPS)
        if phase.run(first, options.gap_tolerance * pricer.traits.gap_share, steps=steps):
            stopped = "converged"
        generated += phase.generated
        trace.extend((seconds - start, lower) for seconds, lower in phase.trace)
        value, theta, duals = master.solve()
    support, weights = master.support(theta)
    return ColumnGenerationResult(
        columns=support,
        weights=weights,
        lower=value,
        upper=state.upper,
        duals=duals,
        stopped=stopped,
        iterations=iteration,
        columns_generated=generated,
        pricing_lps=lp.calls,
        bound_nodes=state.nodes,
        bound_complete=state.complete,
        trace=np.array(trace),
        certificate=state.best,
        bound_method=pricer.traits.method,
        bounds=() if state.best is None else (state.best.to_bound(pricer.weights),),
    )


def _box_due(trace: list[tuple[float, float]], best: PricingCertificate | None) -> bool:
    """Whether stabilised rounds should start: the master has stalled and no exact round has certified.

    Where the local search gets stuck, the exact rounds already price at Wentges-smoothed duals (an
    exact oracle, stabilised), and the box step's cheaper probes slow them down: marital-status ×
    education, ε = 1, 300 s, gap 7.2 % with the box step against 1.8 % without (docs/compiler.md).
    """
    return best is None and _stalled(trace, active().stall_growth)


def last_quarter(trace: Sequence[tuple[float, float]] | FloatArray) -> tuple[float, float]:
    """The master's value a quarter of the run before the trace's end (the last point at or before
    three quarters of its time), and at its end; ``trace`` holds (seconds, value) pairs in order. A
    binary search, not a copy: the run asks every round, and its trace grows by one point a round."""
    end = float(trace[-1][0])
    index = bisect.bisect_right(trace, 0.75 * end, key=lambda point: float(point[0])) - 1
    return float(trace[max(index, 0)][1]), float(trace[-1][1])


def _stalled(trace: list[tuple[float, float]], growth: float) -> bool:
    """Whether the master's value grew by less than ``growth`` (a share) over the last quarter of the run."""
    then, value = last_quarter(trace)
    return value - then < growth * max(abs(value), 1e-12)


def _exact_box(weights: FloatArray, master: RestrictedMaster, box: BoxStep | None) -> BoxStep:
    """The exact steps' box (in units of the normalisation ``weights``): cuts from the master's columns
    and the stabilised rounds' ``box`` (already on the slice ``pᵀw = 1``)."""
    exact_box = BoxStep(weights, scaled=True)
    exact_box.add(np.column_stack(master.columns), np.asarray(master.values))
    if box is not None:
        exact_box.add(box.cuts, box.values)
    return exact_box


def _interleave(trace: list[tuple[float, float]], state: _State) -> bool:
    """Whether exact box steps should run between the master's rounds: the master has settled by its
    value (``settled_growth``) but still rises at the rate of the gap (``settled_gap_share``), so the
    bound phase would starve it, while the duals' bound lags (the Wentges-smoothed exact rounds lower it
    slowly); only with an exact oracle (a search has completed, none has stopped unfinished)."""
    return (
        state.complete
        and not state.unfinished
        and _stalled(trace, active().settled_growth)
        and not _bound_limits(trace, state.upper)
    )


def _bound_limits(trace: list[tuple[float, float]], upper: float) -> bool:
    """Whether the master's value rose by at most ``settled_gap_share`` of the gap to ``upper`` over the
    last quarter of the run (any rise while nothing is certified): then the bound, not the master,
    keeps the gap open (the rule of ``SolveStats.limited_by``)."""
    then, value = last_quarter(trace)
    return not np.isfinite(upper) or value - then <= active().settled_gap_share * max(upper - value, 0.0)


def _improving(utility: SubConvexUtility, columns: list[FloatArray], duals: FloatArray) -> list[bool]:
    """Which of ``columns`` have a positive reduced cost at ``duals`` (they raise the master)."""
    if not columns:
        return []
    block = np.column_stack(columns)
    return list(utility.mu(block) - duals @ block > REDUCED_COST_TOL * block.sum(axis=0))


class _State:
    """The best certificate so far (the stability centre) and the exact pricer's rounds."""

    def __init__(
        self,
        utility: SubConvexUtility,
        pricer: CertifiedPricer,
        options: ColumnGenerationOptions,
    ) -> None:
        self.utility, self.pricer, self.options = utility, pricer, options
        self.best: PricingCertificate | None = None
        #: The pricing time of the best certificate (the checker of the largest cones shares its stars
        #: over the cores as the pricing does; docs/compiler.md §4).
        self.best_seconds = 0.0
        self.complete = False
        #: Whether the last search given the whole node budget closed (one that did not, at the master's
        #: duals, may have missed an improving column: the run doubles the budget rather than stop).
        self.closed = True
        #: Whether a search given the whole node budget (no probe, no ceiling) stopped unfinished.
        self.unfinished = False
        self.nodes = 0
        #: Nodes of an exact round's branch and bound (doubled when one stops short of the gap).
        self.node_budget = options.bound_nodes

    @property
    def upper(self) -> float:
        return np.inf if self.best is None else self.best.upper

    def tolerance(self, value: float) -> float:
        """The run's own pricing tolerance at master value ``value`` (absolute, on ``δ``)."""
        return 0.5 * self.options.gap_tolerance * self.pricer.traits.gap_share * max(abs(value), 1e-3)

    def _run(
        self,
        value: float,
        at: FloatArray,
        deadline: float,
        slack: float,
        nodes: int | None = None,
        target: float = -np.inf,
        ceiling: float = np.inf,
        tolerance: float | None = None,
    ) -> tuple[PricingCertificate, list[FloatArray]]:
        """Price at ``at`` to within ``tolerance`` (absolute, on ``δ``; by default the run's)."""
        tolerance = self.tolerance(value) if tolerance is None else tolerance
        budget = self.node_budget if nodes is None else min(nodes, self.node_budget)
        outcome = self.pricer.price(
            at,
            PricingRequest(
                tolerance, target, slack, deadline, budget * self.pricer.traits.nodes_per_unit,
                self.options.columns_per_round, ceiling,
            ),
        )  # fmt: skip
        self.nodes += outcome.nodes
        if nodes is None and not np.isfinite(ceiling) and not outcome.complete:
            self.unfinished = True
        if nodes is None:
            self.closed = outcome.complete
        certificate = PricingCertificate.from_outcome(at, outcome, self.pricer)
        if self.best is None or certificate.upper < self.best.upper:
            self.best, self.complete, self.best_seconds = certificate, outcome.complete, outcome.seconds
        return certificate, [c.column for c in outcome.columns]

    def certify_prior_free(self, deadline: float) -> None:
        """Certify the pricer's prior-free duals (``λ = μ*(ε)·p`` for mutual information on LDP cones,
        :func:`~privopt.routes.pricing.staircase.prior_free_bound`): their bound ``μ*(ε)`` holds for
        every prior, so the search stops as soon as rounding is all that is left of ``δ̄``."""
        for duals in self.pricer.prior_free_duals():
            self._run(0.0, duals, deadline, 0.0, target=PRIOR_FREE_TARGET)

    def probe(self, at: FloatArray, deadline: float) -> list[FloatArray]:
        """Columns from a ``probe_nodes``-node branch and bound at ``at`` (its bound is kept if better)."""
        return self._run(0.0, at, deadline, 0.0, active().probe_nodes)[1]

    def exact_round(self, value: float, duals: FloatArray, deadline: float) -> list[FloatArray]:
        """Columns improving the master (duals ``duals``) from exact pricing at smoothed duals (once, when
        the best certificate's duals are the master's: the two pricings would be the same)."""
        points = [duals]
        if self.best is not None and not np.array_equal(self.best.duals, duals):
            points.insert(0, active().smoothing * self.best.duals + (1.0 - active().smoothing) * duals)
        for at in points:
            _, candidates = self._run(value, at, deadline, active().round_slack)
            improving = _improving(self.utility, candidates, duals)
            new = [c for c, good in zip(candidates, improving, strict=True) if good]
            if new:
                return new
        return []

    def evaluate(
        self,
        value: float,
        at: FloatArray,
        deadline: float,
        ceiling: float = np.inf,
        coarse: float = 0.0,
    ) -> tuple[float, list[FloatArray]]:
        """``U`` at ``at`` (with zeros on inputs of zero weight), bounded as tightly as the time allows
        (to ``coarse``, or the run's tolerance if that is larger), and the columns found; the search may stop
        once it has shown ``U >= ceiling``.

        Where inputs have zero weight ``p_x`` (empty cells of P̂), the master's duals on them are noise
        (±0.01 on Adult) that the pricing bound exploits when negative, so those entries are set to 0
        (any ``λ`` certifies; occupation × education, ε = 1, 23 such inputs: upper 0.7165 instead of
        0.7258 at the final duals of a 400 s run; 0.6370 instead of 0.6409 at 600 s).
        """
        weights = self.pricer.weights
        at = np.where(weights > 0.0, at, 0.0)
        tolerance = max(self.tolerance(value), coarse / float(weights.sum()))
        certificate, columns = self._run(
            value, at, deadline, 0.0, ceiling=self._delta(at, ceiling), tolerance=tolerance
        )
        return certificate.upper, columns

    def fine_tolerance(self, value: float) -> float:
        """The final certificate's tolerance (absolute, on ``δ``) at master value ``value``:
        ``final_share`` of it, or the run's own if finer."""
        return min(self.tolerance(value), active().final_share * max(abs(value), 1e-3))

    def refinable(self, value: float, tolerance: float | None = None) -> bool:
        """Whether the best certificate's bound is more than ``tolerance`` (absolute, on ``δ``; by default
        ``final_share`` of master value ``value``) above the best column its search found (the
        certificate's own slack: the run's tolerance, or an exact round's ``round_slack``), so that
        :meth:`refine` may lower it by more than that."""
        if self.best is None:
            return False
        tolerance = active().final_share * max(abs(value), 1e-3) if tolerance is None else tolerance
        return max(self.best.delta, 0.0) - max(self.best.lower, 0.0) > tolerance

    def refine(self, value: float, deadline: float) -> list[FloatArray]:
        """Re-prove the best certificate's bound at its duals to :meth:`fine_tolerance`, stopping as
        soon as it closes the gap to master value ``value`` to the run's tolerance; the columns found.
        The bound is kept if lower (a search stopped by ``deadline`` is still valid)."""
        if self.best is None:
            return []
        share = self.options.gap_tolerance * self.pricer.traits.gap_share
        duals = self.best.duals
        target = self._delta(duals, value / (1.0 - share)) if share < 1.0 else np.inf
        tolerance = self.fine_tolerance(value)
        return self._run(value, duals, deadline, 0.0, target=target, tolerance=tolerance)[1]

    def until(self, deadline: float, value: float, final: bool = False) -> float:
        """The deadline of a bound-phase pricing in a phase ending at ``deadline`` (master value
        ``value``): ``deadline``, less the time kept for the independent check of the best certificate
        (the pricer's ``check_ratio`` times its pricing time) and, unless the pricing is the ``final``
        re-proof, the time kept for that (``final_reserve`` times it, while the best certificate is
        :meth:`refinable`)."""
        if self.best is None:
            return deadline
        kept = self.pricer.traits.check_ratio
        if not final and self.refinable(value):
            kept += active().final_reserve
        return deadline - kept * self.best_seconds

    def room(self, deadline: float, value: float) -> bool:
        """Whether a bound-phase pricing has ``step_share`` of the best certificate's pricing time before
        :meth:`until` (any time at all while nothing is certified); a pricing that does not finish by
        then stops with a valid, looser bound."""
        return self.until(deadline, value) - time.perf_counter() > active().step_share * self.best_seconds

    def _delta(self, at: FloatArray, upper: float) -> float:
        """The ``δ`` at which the bound at ``at`` is ``upper`` (``U = Σλ + Σν·δ⁺``)."""
        return (upper - float(at.sum())) / float(self.pricer.weights.sum())


class _BoundPhase:
    """The last ``bound_fraction`` of the budget: box steps with the exact oracle.

    It prices ``start`` (the stabilised box's centre, or else the mean of the recent duals) exactly and
    centres the box at the best certificate so far. Then each step minimises the cutting-plane model of
    ``U`` in the box around the centre (:class:`~privopt.routes.pricing.stabilization.BoxStep`) and
    prices that point exactly: its bound is a certificate, its value ``U`` decides the step (the
    serious-step test on exact values), and its columns are cuts of the model and columns of the
    master, whose value keeps rising. Marital-status × education, ε = 1, from one 100 s run's columns
    and best certificate (1.3899; the final duals' gave 1.4432): 1.3108 after 55 s and 1.3054 after
    86 s, where the certified points of the earlier bound phase stopped at 1.3899 (docs/compiler.md,
    "Certified pricing on envelope cones").

    A run whose gap stays open keeps ``final_reserve`` pricing times at the end and re-proves its best
    certificate there to ``final_share`` of the master's value (:meth:`_refine`), or right away when
    no descent is left.
    """

    def __init__(
        self,
        utility: SubConvexUtility,
        state: _State,
        master: RestrictedMaster,
        box: BoxStep,
        deadline: float,
        room: int,
    ) -> None:
        self.utility, self.state, self.master, self.box, self.deadline = utility, state, master, box, deadline
        self.room = room  # columns the master may still take (``max_columns``)
        self.generated = 0
        self.trace: list[tuple[float, float]] = []  # (time, master value) after each step
        self.refined: PricingCertificate | None = None  # the last certificate :meth:`_refine` re-proved

    def _price(self, at: FloatArray, ceiling: float = np.inf, descent: float = np.inf) -> float:
        """``U(at)`` (or a value ``>= ceiling``), to ``evaluation_gap_share`` of the gap left,
        ``evaluation_descent_share`` of the step's predicted ``descent`` (0: to the run's tolerance) and
        ``evaluation_value_share`` of the master's value;
        the columns found become cuts and, where they improve it, master columns."""
        value, _, duals = self.master.solve()
        gap = self.state.upper - value if np.isfinite(self.state.upper) else 0.0
        coarse = min(
            active().evaluation_gap_share * gap,
            active().evaluation_descent_share * descent,
            active().evaluation_value_share * abs(value),
        )
        upper, columns = self.state.evaluate(value, at, self._until(), ceiling, coarse)
        self._take(columns, duals)
        return upper

    def _take(self, columns: list[FloatArray], duals: FloatArray) -> None:
        """``columns`` become cuts of the model and, those improving the master at ``duals`` (as many as
        ``room`` allows), master columns; the master's value is traced."""
        if columns:
            block = np.column_stack(columns)
            values = self.utility.mu(block)
            self.box.add(block, values)
            improving = np.flatnonzero(_improving(self.utility, columns, duals))
            improving = improving[: max(self.room - self.generated, 0)]
            if improving.size:
                self.master.add([columns[i] for i in improving], list(values[improving]))
                self.generated += int(improving.size)
        self.trace.append((time.perf_counter(), self.master.solve()[0]))

    def _until(self, final: bool = False) -> float:
        return self.state.until(self.deadline, self.master.solve()[0], final)

    def _room(self) -> bool:
        return self.state.room(self.deadline, self.master.solve()[0])

    def _closed(self, tolerance: float) -> bool:
        return relative_gap(self.master.solve()[0], self.state.upper) <= tolerance

    def _refine(self) -> None:
        """Re-prove the best certificate to ``final_share`` of the master's value (the run's tolerance if
        finer; :meth:`_State.refine`) if its own slack is larger, once per certificate; the columns
        found are taken as a step's."""
        value, _, duals = self.master.solve()
        best, deadline = self.state.best, self._until(final=True)
        if best is self.refined or not self.state.refinable(value, self.state.fine_tolerance(value)):
            return
        self.refined = best
        if deadline > time.perf_counter():
            self._take(self.state.refine(value, deadline), duals)

    def run(self, start: FloatArray, tolerance: float, steps: bool) -> bool:
        """Certify ``start``, then (if ``steps``) step until the deadline and re-prove the best
        certificate finer if its own slack is larger (:meth:`_refine`); ``True`` when the gap closed
        to ``tolerance``."""
        if not self._room():
            return self._closed(tolerance)
        self._price(start)
        if self._closed(tolerance):
            return True
        best = self.state.best
        if best is None or not steps:
            return self._closed(tolerance)
        self._step(best, tolerance)
        if not self._closed(tolerance):
            self._refine()
        return self._closed(tolerance)

    def step(self, tolerance: float) -> bool:
        """One box step from the centre (priced, its columns taken) if the model predicts a descent of
        more than ``tolerance`` (relative) and the time allows; whether it predicted one."""
        point, predicted = self.box.point()
        if predicted >= self.box.estimate - tolerance * max(abs(predicted), 1e-12):
            return False
        if self._room():
            # A null step needs only a column showing U >= the serious-step threshold, not the bound.
            descent = self.box.estimate - predicted
            self.box.update(point, predicted, self._price(point, self.box.null_from(predicted), descent))
        return True

    def _step(self, best: PricingCertificate, tolerance: float) -> None:
        """Box steps from ``best`` until the time kept for :meth:`_refine`, or until the gap closes."""
        self.box.start(best.duals, best.upper)
        while self._room():
            if not self.step(tolerance):
                # No descent within the box: the centre minimises U (a convex function), so its bound
                # is the optimum's, proved again finer if its slack is larger (``_refine``), and
                # the time left raises the master by exact rounds at its duals.
                self._refine()
                while self._room() and not self._closed(tolerance) and self.generated < self.room:
                    value, _, duals = self.master.solve()
                    new = self.state.exact_round(value, duals, self._until())
                    if not new:
                        break
                    self._take(new, duals)
                return
            if self._closed(tolerance):
                return


class DualAverage:
    """The mean of the master's duals over its recent rounds, for the final certificate.

    The master's duals (Kelley's cutting-plane iterates of the dual) jump between extreme points from
    round to round. The bound ``U(λ) = 1ᵀλ + δ(λ)⁺`` is convex in ``λ`` (``δ`` is a maximum of affine
    functions), so at their mean it is at most their mean bound, and it is far smaller in practice:
    occupation × education, ε = 1, a 600 s run, the duals of the rounds within 5 % of the final
    value (the last 1,656 of 2,296) give 0.6084 against 0.6370 at the final duals
    (docs/compiler.md, "Certified pricing on envelope cones").

    Partial sums are stored each time the value has grown by ``checkpoint_step``, so the memory is
    ``O(n · log(value range) / checkpoint_step)`` whatever the number of rounds.
    """

    def __init__(self) -> None:
        self.total: FloatArray | None = None
        self.count = 0
        self.last: FloatArray | None = None
        self.values: list[float] = []  # of the checkpoints, increasing
        self.checkpoints: list[tuple[FloatArray, int]] = []  # (sum before, count before)

    def add(self, value: float, duals: FloatArray) -> None:
        if self.total is None:
            self.total = np.zeros_like(duals)
        if not self.values or value > self.values[-1] * (1.0 + active().checkpoint_step):
            self.values.append(value)
            self.checkpoints.append((self.total.copy(), self.count))
        self.total = self.total + duals
        self.count += 1
        self.last = duals

    def mean(self, value: float) -> FloatArray:
        """The mean duals of the rounds (from a checkpoint on) whose value is >= ``(1 − dual_window)·value``."""
        if self.total is None or self.last is None:
            raise ValueError("no duals were added")
        first = bisect.bisect_left(self.values, (1.0 - active().dual_window) * value)
        if first == len(self.values):
            return self.last
        before, count = self.checkpoints[first]
        return (self.total - before) / (self.count - count)
