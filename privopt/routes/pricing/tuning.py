"""The tuning of certified column generation in one typed place (issue 52): every knob of the run
(``routes/pricing/certified_generation.py``) and of its stabilised rounds and bound phase
(``routes/pricing/stabilization.py``), with its meaning, unit and the measurements that set it.

The values were set on the Adult pairs and re-validated on the family table
(``python -m benchmarks bench_families --seeds``, benchmarks/RESULTS.md). :func:`tuned` runs a block
under other values — for a benchmark that re-validates a knob across families, or a test that forces a
branch — and :func:`active` is what the run reads::

    with tuned(settled_growth=0.01):
        problem.solve(route="colgen")
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from typing import Any

from privopt.errors import ValidationError


@dataclass(frozen=True)
class ColumnGenerationTuning:
    """The knobs of certified column generation (module docstring); each comment gives its unit."""

    #: A round's search may stop once its bound is within this factor of its best column's reduced cost
    #: (``δ̄ <= (1 + slack)·δ_found``): early rounds need columns, not a tight bound, and ``δ`` shrinks.
    #: Unit: a share of the best column's reduced cost.
    round_slack: float = 0.25

    #: Weight of the stability centre in the smoothed duals (Wentges smoothing); a round whose smoothed
    #: pricing finds no column improving the master is priced again at the master's own duals.
    #: Unit: a weight in [0, 1].
    smoothing: float = 0.7

    #: Node budget of the branch and bound in a stabilised round: at the Adult scale its first nodes
    #: already meet the best column (occupation × education: a 5-node search, 0.8 s, found the column a
    #: complete one, 30 s, did), and the local search alone misses most of ``δ`` off the master's duals
    #: (0.016 where it is 0.062 at the mean duals of a 540 s run).
    #: Unit: branch-and-bound nodes.
    probe_nodes: int = 5

    #: Stabilised rounds start (within ``stabilized_fraction``) once the master's value has grown by less
    #: than this share over the last quarter of the run: before that, rounds at its own duals raise it
    #: faster. Occupation × education, ε = 1: 4.4 % at 150 s, 2.5 % at 180 s, 1.2 % at 240 s; starting at
    #: 150 / 230 / 310 s all gave gaps of 5-5.5 % at 540 s, and starting on a younger master (a slower
    #: machine) 30 %.
    #: Unit: a share of the master's value.
    stall_growth: float = 0.03

    #: The bound phase starts early, once at most this share of the budget is left, when the master has
    #: settled — its value grew by less than ``SETTLED_GROWTH`` over the last quarter of the run — unless
    #: the exact pricer has shown that it cannot complete a pricing (``_State.unfinished``): the steps need
    #: an exact oracle, and at ε = 2 on Adult, where a pricing does not complete in minutes, starting early
    #: only cost the master (6.8 % against 6.4 %).
    #: Marital-status × education, ε = 1 (NMI, 120 s): the master grew 0.09 % between 45 s and 60 s and
    #: 0.4 % in the 60 s after; the exact box steps, from a 100 s run's state, took the bound from 1.3899
    #: to 1.3108 in 55 s (MI units) where the default tenth of 120 s leaves 12 s.
    #: Unit: a share of the time budget.
    early_bound_fraction: float = 0.5

    #: The master counts as settled (for ``early_bound_fraction``) when its value grew by less than this
    #: over the last quarter of the run.
    #: Unit: a share of the master's value.
    settled_growth: float = 0.002

    #: ... and by at most this share of the gap left (``upper − lower``, while a bound is certified): a
    #: master still rising at a rate comparable to the gap is what limits the run, and rounds at its own
    #: duals raise it faster than the bound phase's steps. The same share tells the limiting side in
    #: ``SolveStats.limited_by``. ``bench_families``' random χ² balls at 40 symbols, seed 1, 60 s: LDP
    #: w.r.t. S with MI settled at 30 s by ``settled_growth`` alone (gap 0.16 %, the master still rising
    #: at about the gap's rate) and ended at 0.084 %, its master 0.07 % short; with this rule 0.0032 %
    #: (NMI 0.002 → 0.001 %, LIP 0.058 → 0.0027 %), and with exact box steps between the rounds where
    #: the rule holds the phase back (``_interleave``) 0.00065–0.002 % (NMI 0.0007–0.0014 %, LIP
    #: 0.0003–0.0005 %). The 120 s runs converge either way (in 80–86 s against 72–98 s). The Adult rows
    #: that the early phase was made for (marital-status × education, 120 s): NMI 1.16–1.73 % against
    #: 2.97 %, LIP 1.43–1.69 % against 1.45 %.
    #: Unit: a share of the gap.
    settled_gap_share: float = 0.1

    #: ... and at the latest once this share of the budget is left while no search has completed a bound
    #: (the best certificate comes from a few-node probe or a search stopped by its node budget, or an
    #: exact round has shown it cannot finish: ``_State.complete``, ``_State.unfinished``): the search's
    #: rounds then certify little, while the phase's points, priced to a share of the gap, do complete.
    #: Occupation × education, ε = 2, 540 s (its search prices by 5-node probes only): 1.205818 /
    #: 1.279938 (5.8 %) and 1.208081 / 1.266127 (4.6 %) with the tenth, where the box centre's pricing
    #: (14-18 s) and the check's reserve left one or two steps; 1.201736 / 1.250048 (3.9 %) with the phase
    #: from 368 s (the master 0.3 % lower, the bound 2.3 %). Rows whose exact rounds complete keep the
    #: tenth: there the rounds raise the master fastest (the KL row, 120 s: 12.8-15.2 % with the tenth,
    #: 21.3 % from 82 s).
    #: Unit: a share of the time budget.
    incomplete_bound_fraction: float = 0.3

    #: The bound phase evaluates ``U`` to within this share of the gap left (``upper − lower``; the
    #: run's ``gap_tolerance`` when finer): a bound at most that far above ``U(λ)`` moves the final bound
    #: by no more, and the search proves it far sooner than to the run's tolerance. Marital-status ×
    #: education, LIP(1), MI, one process, warm, at the box centre of a 120 s run (gap 0.165):
    #: 3.9 s to 6e-7, 1.7 s to 1e-4, 1.5 s to 1e-3 (``U`` 7e-4 higher), 0.9 s to 1e-2.
    #: Unit: a share of the gap.
    evaluation_gap_share: float = 0.01

    #: ... and within this share of the descent the box step predicts at the point: an error in ``U`` above
    #: it could take a null step for a serious one, and the coarse columns may not cut the point off, so
    #: the steps would stall (the model proposes the same point again).
    #: Unit: a share of the predicted descent.
    evaluation_descent_share: float = 0.1

    #: ... and within this share of the master's value: while the gap is wide (the search's best bound far
    #: off), a share of it would cost the certificate more than the steps can win back (occupation ×
    #: education, ε = 2, 540 s: the centre priced to 0.012, 1 % of the master's value, in 12.2 s).
    #: Unit: a share of the master's value.
    evaluation_value_share: float = 1e-3

    #: A bound-phase pricing starts while the time before the check's reserve is at least this share of
    #: the best certificate's pricing time, and stops at the reserve: its steps take 0.3-3 s where the
    #: centre took 8-9 s (marital-status × education, LIP(1), 120 s), and waiting for room for a whole
    #: pricing of that time left 9-13 s of the phase unused.
    #: Unit: a share of a pricing's time.
    step_share: float = 0.5

    #: The bound phase ends by re-proving its best certificate to this share of the master's value (the
    #: run's tolerance when finer), stopping as soon as the bound closes the gap to the run's tolerance
    #: (:meth:`_State.refine`). The run's tolerance, half its ``gap_tolerance`` of the value, suits a run
    #: that closes its gap; one stopped by its time limit with the gap open keeps a bound up to that far
    #: above ``U`` at its best duals, which a curve's 4 % makes 2 % of the bound. Occupation × education,
    #: the bound phases of 2-point chunks (360 s a point, 4 %) replayed from their start: ε = 0.5, 1, 1.5
    #: and 2 gave 3.99 / 4.39 / 3.97 / 4.23 % against 5.47 / 5.76 / 4.86 / 5.47 % (at ε = 1 the centre's
    #: 0.594224 re-proved to 0.585749; docs/compiler.md, "Curves").
    #: Unit: a share of the master's value.
    final_share: float = 2.5e-3

    #: ... in the time kept for it at the end of the phase: this many times the best certificate's
    #: pricing time (the re-proofs above took 1.2-2 times as long as the pricing they re-proved).
    #: Unit: pricing times.
    final_reserve: float = 3.0

    #: Share of the time budget kept for the final master solve and the caller's audit.
    #: Unit: a share of the time budget.
    reserve: float = 0.02

    #: The final certificate prices the average of the master's duals over the rounds whose value was
    #: within this share of the last one (:class:`DualAverage`). Occupation × education, ε = 1, the
    #: duals of one 600 s run (upper bounds): 2 %: 0.6090, 5 %: 0.6084, 10 %: 0.6126, every round:
    #: 0.9821, the last round alone: 0.6370.
    #: Unit: a share of the master's value.
    dual_window: float = 0.05

    #: Relative growth of the master's value between two stored partial sums of :class:`DualAverage`.
    #: Unit: a relative growth.
    checkpoint_step: float = 1e-3

    #: ∞-norm radius of the first box around the stability centre.
    #: Unit: ∞-norm radius, in units of the normalisation's weights.
    initial_radius: float = 3e-3

    #: The box grows by this factor after a serious step and shrinks by ``SHRINK`` after a null step,
    #: never below ``MIN_RADIUS``.
    #: Unit: a factor above 1.
    grow: float = 1.5

    #: ... and shrinks by this factor after a null step ...
    #: Unit: a factor in (0, 1).
    shrink: float = 0.7

    #: ... never below this radius.
    #: Unit: ∞-norm radius.
    min_radius: float = 1e-4

    #: ... and the stabilised rounds' box is at most this many mean duals (``Û_c/n``, the model's value at
    #: the centre over the inputs) wide, its floor shrinking with it. The radii above were tuned on
    #: occupation × education at ε = 1, whose mean dual is about 2.5e-3 (0.59 over 240 inputs), where the
    #: cap leaves them; at ε = 0.5 (0.14 over 240) the first box was 5.5 mean duals wide and its floor a
    #: fifth of one, and the curve's point gave 6.9 % (8.5 % in another run) against 5.2 % with the cap;
    #: at ε = 0.25 4.0 % in 342 s against 4.0 % in 178 s (docs/compiler.md, "Curves").
    #: Unit: mean duals.
    mean_dual_radii: float = 1.2

    #: A point becomes the centre when its estimate is below the centre's by this share of the decrease
    #: the model predicted (the usual bundle-method test).
    #: Unit: a share of the predicted decrease.
    serious_share: float = 0.1

    #: The model keeps at most this many cuts per input, and at least ``MIN_CUTS`` (twice the master's
    #: defaults, so that the master's columns fit when the model starts); above it, the cuts most slack
    #: at the centre are dropped down to half of it (:meth:`BoxStep.prune`). Unpruned, the cuts of a
    #: 600-round run on 240 inputs took 27 MB, growing with every round.
    #: Unit: cuts per input.
    cuts_per_input: int = 8

    #: The model keeps at least this many cuts (``cuts_per_input``).
    #: Unit: cuts.
    min_cuts: int = 2000

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if not (isinstance(value, int | float) and not math.isnan(value) and value >= 0):
                raise ValidationError(item.name, "a number >= 0", repr(value))
        for name in ("smoothing", "early_bound_fraction", "incomplete_bound_fraction", "reserve", "shrink"):
            if getattr(self, name) > 1.0:
                raise ValidationError(name, "a share in [0, 1]", repr(getattr(self, name)))
        if self.grow < 1.0:
            raise ValidationError("grow", "a factor >= 1", repr(self.grow))


#: The values the runs use unless :func:`tuned` says otherwise.
DEFAULT = ColumnGenerationTuning()

_ACTIVE: list[ColumnGenerationTuning] = [DEFAULT]


def active() -> ColumnGenerationTuning:
    """The tuning the runs read now."""
    return _ACTIVE[-1]


@contextlib.contextmanager
def tuned(**changes: Any) -> Iterator[ColumnGenerationTuning]:
    """Run the block with these knobs changed (validated; the others as they are)."""
    try:
        changed = replace(active(), **changes)
    except TypeError as exc:
        names = ", ".join(item.name for item in fields(ColumnGenerationTuning))
        raise ValidationError("tuned", f"knobs among {names}", ", ".join(changes)) from exc
    _ACTIVE.append(changed)
    try:
        yield changed
    finally:
        _ACTIVE.pop()
