"""Column generation with exact pricing and a certified bound after every round (envelope cones).

Each round solves the restricted master (duals ``λ``) and runs the envelope pricer
(:class:`~privopt.pricing.bound.EnvelopePricer`) on ``λ``. The pricer does two jobs at once: the best
combinations of block vertices it meets are the new columns (exact block-wise pricing), and its bound
``δ̄`` certifies ``OPT <= 1ᵀλ + max(0, δ̄)`` for that round's ``λ``. The lower bound is the master's value
(monotone), the upper bound the smallest certified one so far; the run stops when their relative gap
is at most ``gap_tolerance`` or a budget is spent, and keeps the certificate of its best upper bound.
"""

from __future__ import annotations

import time

import numpy as np
from tqdm.auto import tqdm

from privopt.column_generation import (
    REDUCED_COST_TOL,
    ColumnGenerationOptions,
    ColumnGenerationResult,
    _Master,
    relative_gap,
)
from privopt.cone import RowCone
from privopt.pricing.bound import EnvelopePricer
from privopt.pricing.certificate import ENVELOPE_METHOD, PricingCertificate
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: A round's search may stop once its bound is within this factor of its best column's reduced cost
#: (``δ̄ <= (1 + slack)·δ_found``): early rounds need columns, not a tight bound, and ``δ`` shrinks.
ROUND_SLACK = 0.25

#: Share of the time budget kept for the final master solve and the caller's audit.
_RESERVE = 0.02


def certified_column_generation(
    utility: SubConvexUtility,
    cone: RowCone,
    options: ColumnGenerationOptions,
    pricer: EnvelopePricer,
    columns: list[FloatArray],
    start: float,
) -> ColumnGenerationResult:
    """Run column generation from ``columns`` (a feasible basis), pricing with ``pricer`` (module doc)."""
    deadline = start + options.time_limit * (1.0 - _RESERVE)
    master = _Master(cone.n_inputs)
    master.add(columns, list(utility.mu(np.column_stack(columns))))
    best: PricingCertificate | None = None
    trace: list[tuple[float, float]] = []
    stopped, iteration, generated, nodes = "iteration limit", 0, 0, 0
    complete = False
    bar = tqdm(
        total=options.max_iterations, desc="column generation", disable=not options.progress,
        leave=False, delay=2.0, mininterval=1.0,
    )  # fmt: skip
    try:
        for iteration in range(1, options.max_iterations + 1):  # noqa: B007 - reported after the loop
            value, _, duals = master.solve()
            trace.append((time.perf_counter() - start, value))
            if time.perf_counter() > deadline:
                stopped = "time limit"
                break
            tolerance = 0.5 * options.gap_tolerance * max(abs(value), 1e-3)
            outcome = pricer.price(
                duals,
                tolerance=tolerance,
                slack=ROUND_SLACK,
                deadline=deadline,
                max_nodes=options.bound_nodes,
                max_columns=options.columns_per_round,
            )
            nodes += outcome.nodes
            certificate = PricingCertificate.from_outcome(duals, outcome)
            if best is None or certificate.upper < best.upper:
                best, complete = certificate, outcome.complete
            gap = relative_gap(value, best.upper)
            bar.update(1)
            bar.set_postfix(lower=f"{value:.6g}", upper=f"{best.upper:.6g}", gap=f"{gap:.2e}", refresh=False)
            if gap <= options.gap_tolerance:
                stopped = "converged"
                break
            new = [c.column for c in outcome.columns if c.ratio > REDUCED_COST_TOL]
            if not new:
                stopped = "time limit" if time.perf_counter() > deadline else "bound budget (node limit)"
                break
            room = options.max_columns - generated
            if room <= 0:
                stopped = "column limit"
                break
            new = new[:room]
            master.add(new, list(utility.mu(np.column_stack(new))))
            generated += len(new)
        else:
            stopped = "iteration limit"
    finally:
        bar.close()
    value, theta, duals = master.solve()
    trace.append((time.perf_counter() - start, value))
    upper = best.upper if best is not None else np.inf
    keep = theta > 1e-12 * max(float(theta.max()), 1e-300)
    matrix = np.column_stack(master.columns)
    return ColumnGenerationResult(
        columns=matrix[:, keep],
        weights=theta[keep],
        lower=value,
        upper=max(upper, value),
        duals=duals,
        stopped=stopped,
        iterations=iteration,
        columns_generated=generated,
        pricing_lps=0,
        bound_nodes=nodes,
        bound_complete=complete,
        trace=np.array(trace),
        certificate=best,
        bound_method=ENVELOPE_METHOD,
    )
