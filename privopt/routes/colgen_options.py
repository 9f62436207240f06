"""Column generation's options (:class:`ColumnGenerationOptions`) and the relative gap every route
reports: what :mod:`privopt.routes.base` needs of column generation, without its implementation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privopt.errors import ValidationError
from privopt.tolerances import GAP_TOLERANCE, ZERO_OPTIMUM_ATOL
from privopt.validation import check_positive_int, check_real

#: Default cap of the restricted master: this many columns per input, and at least
#: ``MASTER_MIN_COLUMNS`` (small instances never prune). Measured in
#: :attr:`ColumnGenerationOptions.master_columns`.
MASTER_COLUMNS_PER_INPUT = 4
MASTER_MIN_COLUMNS = 1000


#: The :class:`ColumnGenerationOptions` that say how this machine runs or shows a run, not what to
#: solve: problem files do not store them.
MACHINE_OPTIONS = frozenset({"progress", "workers"})


@dataclass(frozen=True)
class ColumnGenerationOptions:
    """Budgets and knobs of :func:`column_generation`.

    time_limit:
        Seconds for the whole run, bound included (honoured within a few percent: every LP is
        short, and the budget is checked between them).
    max_iterations:
        Master/pricing rounds (the time budget normally stops a large run first).
    starts:
        Random local searches per pricing round, besides the previous round's columns and the
        linear part. One is best at scale (occupation × education, ε = 1: master value 0.506 after
        120 s with one start, 0.27 with six); a round that finds nothing escalates to
        ``16 × starts`` before the branch and bound is consulted, which keeps small instances exact.
    columns_per_round:
        Improving columns added per round (the best distinct ones).
    bound_fraction:
        Share of the time budget reserved for the upper bound; with a certified pricer, up to half of
        it once the master has settled, and at least 0.3 while no search has completed a bound
        (docs/compiler.md, the bound phase).
    stabilized_fraction:
        Share of the time budget, just before the bound's (all of the search if it is larger), in
        which stabilised rounds may run on envelope cones, once the master's value has stalled and
        while no exact round has certified a bound: pricing (local search and a few branch-and-bound
        nodes) at a box-step point around the best dual point so far rather than at the master's
        duals (:mod:`privopt.routes.pricing.stabilization`). Occupation × education, ε = 1, 540 s:
        gap 3.7 % with the default 0.6 against 10.2 % with 0 (off); pairs whose local search gets
        stuck early run exact rounds instead and are unchanged (docs/compiler.md). Pricing falls back
        to the master's duals whenever the stabilised columns do not improve the master, so small
        instances still converge.
    bound_nodes:
        Node budget of the branch and bound (per pricing round on envelope cones).
    gap_tolerance:
        Stop when the certified relative gap ``(upper − lower)/upper`` is at most this; a result within
        it but above ``GAP_OPTIMAL_RTOL`` is ``Status.OPTIMAL_WITHIN_GAP``.
    max_columns:
        Columns generated in all (the master's size beyond its starting basis).
    master_columns:
        Columns the restricted master keeps; above it, the non-basic columns with the most negative
        reduced costs are deleted down to half of it (the value and duals do not change). ``None``:
        ``max(4·|X|, 1000)``. Every simplex pivot prices every column kept, so an unpruned master
        slows down as it grows (occupation × education, ε = 1, 300 s: master value 0.5442 with the
        default against 0.5386 unpruned; 0.5314 with 480 columns, 0.5421 with 1,920).
    seed:
        Seed of the random starts.
    workers:
        Processes for the exact pricing searches on large envelope cones (split by ``s*``,
        :mod:`privopt.routes.pricing.workers`; blocks of at least ``2^14`` subsets in all, such as
        Adult's education blocks), once a pricing has taken 2 s. ``None``: the cores this process may use (one inside a worker
        process: a curve's chunk, a sweep's cell); 1: this process only. Occupation × education at
        ε = 2: a 10.8 s pricing in 5.4 s on 2 cores. It belongs to the machine, not to the problem:
        problem files do not store it.
    progress:
        Show progress (iterations, lower and upper bounds, gap; :class:`~privopt.solvers.progress.Progress`).
    """

    time_limit: float = 600.0
    max_iterations: int = 100_000
    starts: int = 1
    columns_per_round: int = 8
    bound_fraction: float = 0.1
    stabilized_fraction: float = 0.6
    bound_nodes: int = 2000
    gap_tolerance: float = GAP_TOLERANCE
    max_columns: int = 100_000
    master_columns: int | None = None
    seed: int = 0
    workers: int | None = None
    progress: bool = True

    def master_cap(self, n_inputs: int) -> int:
        """The master's column cap for ``n_inputs`` inputs (``master_columns`` or its default)."""
        if self.master_columns is not None:
            return self.master_columns
        return max(MASTER_COLUMNS_PER_INPUT * n_inputs, MASTER_MIN_COLUMNS)

    def __post_init__(self) -> None:
        check_real(
            self.time_limit,
            "colgen.time_limit",
            low=0.0,
            open_low=True,
            expected="a positive number of seconds",
        )
        for name in ("max_iterations", "starts", "columns_per_round", "bound_nodes", "max_columns"):
            check_positive_int(getattr(self, name), f"colgen.{name}")
        if self.master_columns is not None:
            check_positive_int(self.master_columns, "colgen.master_columns", minimum=2)
        check_real(self.bound_fraction, "colgen.bound_fraction", low=0.0, high=1.0, open_high=True)
        check_real(self.stabilized_fraction, "colgen.stabilized_fraction", low=0.0, high=1.0)
        check_real(self.gap_tolerance, "colgen.gap_tolerance", low=0.0)
        check_positive_int(self.seed, "colgen.seed", minimum=0)
        if self.workers is not None:
            check_positive_int(self.workers, "colgen.workers")
        if not isinstance(self.progress, bool):
            raise ValidationError("colgen.progress", "True or False", repr(self.progress))


def relative_gap(lower: float, upper: float) -> float:
    """``(upper − lower) / |upper|``, clipped at 0 (``inf`` without a finite upper bound; 0 when both
    bounds are within ``ZERO_OPTIMUM_ATOL`` of 0, where the ratio is undefined)."""
    if not np.isfinite(upper):
        return np.inf
    if max(abs(lower), abs(upper)) <= ZERO_OPTIMUM_ATOL:
        return 0.0
    return max(0.0, (upper - lower) / max(abs(upper), 1e-300))
