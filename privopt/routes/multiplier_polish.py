"""A first-order point's multipliers made exact output by output (docs/compiler.md, "First-order solves").

A first-order method (PDLP) meets the dual rows of ``max Σ_y C_yᵀ w_y`` s.t. ``R w_y <= 0``,
``Σ_y w_y = 1``, ``w >= 0`` only to its tolerance, and the bound its multipliers ``β`` prove,
``Σ_x max_y (C − Rᵀβ_y)_{x,y}`` (:func:`~privopt.routes.row_generation.multipliers_bound`), pays for
every violation. With the multipliers ``λ`` of the rows ``Σ_y w_y = 1`` held fixed, the LP splits by
output into

    φ_y(λ) = max (C_y − λ)ᵀ w   s.t.   R w <= 0,   0 <= w <= 1

(``w_{x,y} <= 1`` holds on every mechanism), one small LP each, whose multipliers ``β_y`` are exact for
that ``λ``: by LP duality ``φ_y = Σ_x (r_{x,y} − λ_x)⁺`` for the reduced costs ``r_y = C_y − Rᵀβ_y``, and
``max_y r_{x,y} <= λ_x + Σ_y (r_{x,y} − λ_x)⁺``, so the bound of these ``β`` is at most the Lagrangian
``Σ_x λ_x + Σ_y max(φ_y, 0)``. A pass then moves each ``λ_x`` to the middle of its two largest reduced
costs (every ``λ_x`` between them gives these ``β`` the same bound; the middle leaves both outputs
room) and prices again: block coordinate descent on a convex function that is not smooth, which can
stall but never loses, because the better multipliers are kept. The passes stop when one improves the
bound by less than the run's gap tolerance, after ``POLISH_PASSES``, or at the time given.

At the best prices, each output's best *ray* of the relaxation, ``max (C_y − λ)ᵀw`` over ``R w <= 0``,
``Σ_x w_x = 1``, ``w >= 0`` (one more LP per output; the box's best point is 0 wherever ``φ_y = 0``, a
ray is a direction even there), closed into the cone (:class:`~privopt.routes.pair_repair.PairGraph`),
is one more column for the repair's re-mixing: the columns of a near-optimal design at near-optimal
prices, where the closure of a first-order point of a loose relaxation is far from the cone.

Measured (2 cores; ``benchmarks/RESULTS.md``): on a 20×20 Euclidean grid after 480 s of PDLP over 24
pairs per input, the bound went from ``−3.1586`` (PDLP's ``β``) to ``−3.1681`` (one pass, 9 s) and
``−3.1710`` (two); on 100 random points in a 10×10 square after 16 s of PDLP, whose 24 pairs per input
leave the relaxation's optimum 1.2 % below the optimum, the repaired loss went from 3.145 (the better of
the closed columns and their re-mixing, 3.79) to 2.363 with the rays (the optimum 2.341).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from privopt.routes.row_generation import multipliers_bound
from privopt.solvers.lp import highs_lp, new_highs
from privopt.validation import FloatArray

#: The most passes of pricing LPs (measured: the first gives most of the gain, the third almost none).
POLISH_PASSES = 3


@dataclass(frozen=True)
class Polished:
    """The best multipliers found (outputs × rows of ``R``), their bound and the prices ``λ`` they were
    found at, the passes completed, and the rays (inputs × rays, the ray ``j`` for output ``labels[j]``)."""

    weights: FloatArray
    bound: float
    prices: FloatArray
    passes: int
    rays: FloatArray
    labels: np.ndarray


def polish(
    rows: sp.csr_matrix,
    C: FloatArray,
    weights: FloatArray,
    sums: FloatArray,
    gap_tolerance: float,
    seconds: float | None,
) -> Polished:
    """Tighter multipliers than ``weights`` (outputs × rows, ``>= 0``) for the LP over ``rows`` (the
    cone's rows over ``w``), from ``sums``, the multipliers of ``Σ_y w_y = 1``, then the rays at the best
    prices (module docstring). Within ``seconds``, a pass starts only while twice the last one's time is
    left (the rays take about one); a pass cut short proves nothing, rays cut short are kept."""
    import highspy

    n, k = C.shape
    m = rows.shape[0]
    stop = None if seconds is None else time.perf_counter() + seconds
    bound = multipliers_bound(rows, C, weights)
    best = (weights, bound, np.asarray(sums, dtype=float))
    prices = best[2]
    passes, took = 0, 0.0
    box = _pricing(rows, (np.zeros(n), np.ones(n)), None)
    every = np.arange(n, dtype=np.int32)
    while passes < POLISH_PASSES and (stop is None or time.perf_counter() + 2.0 * took < stop):
        began = time.perf_counter()
        found = np.zeros((k, m))
        for y in range(k):
            if stop is not None and time.perf_counter() >= stop:
                break
            box.changeColsCost(n, every, C[:, y] - prices)
            box.run()
            if box.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                break
            found[y] = np.clip(np.asarray(box.getSolution().row_dual), 0.0, None)
        else:
            passes += 1
            took = time.perf_counter() - began
            bound = multipliers_bound(rows, C, found)
            gain = best[1] - bound
            if gain > 0.0:
                best = (found, bound, prices)
            if gain <= gap_tolerance * abs(best[1]):
                break
            reduced = np.sort(C - np.asarray(rows.T @ found.T), axis=1)
            prices = reduced[:, -1] if k == 1 else 0.5 * (reduced[:, -1] + reduced[:, -2])
            continue
        break  # out of time, or an LP HiGHS did not solve: the pass proves nothing
    rays, labels = _rays(rows, C, best[2], stop)
    return Polished(best[0], best[1], best[2], passes, rays, labels)


def _pricing(rows: sp.csr_matrix, bounds: tuple[FloatArray, FloatArray], total: float | None) -> Any:
    """A HiGHS model ``max cᵀw`` s.t. ``rows @ w <= 0``, ``w`` within ``bounds`` and, given a ``total``,
    ``Σ w = total``; the costs are set per output."""
    import highspy

    n = rows.shape[1]
    m = rows.shape[0]
    matrix, lower, upper = rows, np.full(m, -highspy.kHighsInf), np.zeros(m)
    if total is not None:
        matrix = sp.vstack([rows, sp.csr_matrix(np.ones((1, n)))])
        lower, upper = np.append(lower, total), np.append(upper, total)
    highs = new_highs()
    highs.setOptionValue("output_flag", False)
    highs.passModel(highs_lp(np.zeros(n), matrix.tocsc(), (lower, upper), bounds, maximize=True))
    return highs


def _rays(
    rows: sp.csr_matrix, C: FloatArray, prices: FloatArray, stop: float | None
) -> tuple[FloatArray, np.ndarray]:
    """Each output's best ray of the relaxation at ``prices``, ``max (C_y − λ)ᵀw`` over ``Σ w = 1`` (a
    direction even where the best box point is 0), until ``stop``."""
    import highspy

    n, k = C.shape
    highs = _pricing(rows, (np.zeros(n), np.full(n, highspy.kHighsInf)), 1.0)
    every = np.arange(n, dtype=np.int32)
    rays: list[FloatArray] = []
    labels: list[int] = []
    for y in range(k):
        if stop is not None and time.perf_counter() >= stop:
            break
        highs.changeColsCost(n, every, C[:, y] - prices)
        highs.run()
        if highs.getModelStatus() == highspy.HighsModelStatus.kOptimal:
            rays.append(np.asarray(highs.getSolution().col_value))
            labels.append(y)
    return (np.column_stack(rays) if rays else np.zeros((n, 0))), np.asarray(labels, dtype=int)
