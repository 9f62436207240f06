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

Each ``w_y`` is a point of the cone's relaxation that values output ``y`` most at ``λ``; closed into the
cone (:class:`~privopt.routes.pair_repair.PairGraph`) it is one more column for the repair's re-mixing.

Measured on a 20×20 Euclidean grid after 480 s of PDLP over 24 pairs per input: the bound went from
``−3.1586`` (PDLP's ``β``) to ``−3.1681`` (one pass, 9 s) and ``−3.1710`` (two), and the repaired design
from ``−3.1931`` to ``−3.1928``: a gap of 1.09 % became 0.68 %.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from privopt.routes.row_generation import multipliers_bound
from privopt.solvers.lp import highs_lp, new_highs
from privopt.validation import FloatArray

#: The most passes of pricing LPs (measured: the first gives most of the gain, the third almost none).
POLISH_PASSES = 3


@dataclass(frozen=True)
class Polished:
    """The best multipliers found (outputs × rows of ``R``) and their bound, the pricing LPs' points
    (inputs × points, each for output ``labels[j]``) and the passes completed."""

    weights: FloatArray
    bound: float
    points: FloatArray
    labels: np.ndarray
    passes: int


def polish(
    rows: sp.csr_matrix,
    C: FloatArray,
    weights: FloatArray,
    sums: FloatArray,
    gap_tolerance: float,
    seconds: float | None,
) -> Polished:
    """Tighter multipliers than ``weights`` (outputs × rows, ``>= 0``) for the LP over ``rows`` (the
    cone's rows over ``w``), from ``sums``, the multipliers of ``Σ_y w_y = 1`` (module docstring). A pass
    is started only while ``seconds`` are left, and one cut short by them proves nothing (its points are
    kept)."""
    import highspy

    n, k = C.shape
    m = rows.shape[0]
    stop = None if seconds is None else time.perf_counter() + seconds
    best = Polished(weights, multipliers_bound(rows, C, weights), np.zeros((n, 0)), np.zeros(0, int), 0)
    highs = new_highs()
    highs.setOptionValue("output_flag", False)
    highs.passModel(
        highs_lp(
            C[:, 0] - sums,
            rows.tocsc(),
            (np.full(m, -highspy.kHighsInf), np.zeros(m)),
            (np.zeros(n), np.ones(n)),
            maximize=True,
        )
    )
    every = np.arange(n, dtype=np.int32)
    prices = np.asarray(sums, dtype=float)
    points: list[FloatArray] = []
    labels: list[int] = []
    passes = 0
    while passes < POLISH_PASSES:
        found = np.zeros((k, m))
        for y in range(k):
            if stop is not None and time.perf_counter() >= stop:
                return _with_points(best, points, labels, passes)
            highs.changeColsCost(n, every, C[:, y] - prices)
            highs.run()
            if highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                return _with_points(best, points, labels, passes)
            solution = highs.getSolution()
            found[y] = np.clip(np.asarray(solution.row_dual), 0.0, None)
            if highs.getInfo().objective_function_value > 0.0:
                points.append(np.asarray(solution.col_value))
                labels.append(y)
        passes += 1
        bound = multipliers_bound(rows, C, found)
        gain = best.bound - bound
        if gain > 0.0:
            best = Polished(found, bound, best.points, best.labels, passes)
        if gain <= gap_tolerance * abs(best.bound):
            break
        reduced = np.sort(C - np.asarray(rows.T @ found.T), axis=1)
        prices = reduced[:, -1] if k == 1 else 0.5 * (reduced[:, -1] + reduced[:, -2])
    return _with_points(best, points, labels, passes)


def _with_points(best: Polished, points: list[FloatArray], labels: list[int], passes: int) -> Polished:
    stacked = np.column_stack(points) if points else best.points
    return Polished(best.weights, best.bound, stacked, np.asarray(labels, dtype=int), passes)
