"""Exact extremes of linear functions over a Rényi ball on the simplex.

``max cᵀR  s.t.  R ∈ Δ,  D_α(p || R) <= b`` (and ``min``, as ``−max(−c)``), vectorised over many
vectors ``c``. This is what the robust audit needs for every output and every conditional projection
``F_{U|s}`` (Theorem 1 makes each projection a Rényi ball).

Derivation (KKT). On the support ``S`` of ``p``, stationarity of the Lagrangian gives, for every order
α (α = 1 included),

    R_u(λ) ∝ p_u (λ − c_u)^{−1/α},      λ > max_{u∈S} c_u,

and ``D_α(p || R(λ))`` decreases from its limit at ``λ ↓ max c`` to 0 as ``λ → ∞``; the optimum is the
``λ`` where the constraint is active, found on ``log(λ − max c)`` by regula falsi from a bracket around
a small-budget guess (:func:`_bracket`) (or ``R`` concentrated on
the argmax when even that limit is feasible, which happens only for α < 1). Coordinates outside ``S``
do not enter the divergence, and scaling the support part by ``m`` shifts it by ``−log m``:
``D_α(p || m R̃) = D_α(p || R̃) − log m``. See :func:`linear_maximum` for how that settles them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from privopt.errors import NotSupportedError
from privopt.tolerances import ORDER_ATOL
from privopt.validation import FloatArray

_FIRST_STEP = 0.5  # the bracket around the first guess of log(λ − max c) widens by this, doubled each time
_ILLINOIS_STEPS = 60  # then regula falsi (Illinois), which converges superlinearly, to the bracket's end
# log(λ − max c) is searched in this range (scaled by the spread of c). The low end must reach
# λ − max c ≈ (p_min / R_max)^α, which for a centre entry of 1e-12 at order 3 is 1e-33 (a range
# ending at −60 capped that coordinate's mass at 1e-3 instead of 0.17): down to the double range.
_LOG_GAP_RANGE = (-690.0, 60.0)
_LOW_END_RTOL = 1e-12  # at the range's low end, a maximum short of max c by more than this (× its spread)


def is_order(order: float, value: float) -> bool:
    """Whether a Rényi order is the special ``value`` (1 or 2) up to :data:`ORDER_ATOL`."""
    return abs(order - value) <= ORDER_ATOL


def logsumexp(values: FloatArray, axis: int = -1, keepdims: bool = False) -> FloatArray:
    """``log Σ exp`` along ``axis`` (plain numpy: scipy's version costs ~30× more on small rows)."""
    top = np.max(values, axis=axis, keepdims=True)
    out = top + np.log(np.sum(np.exp(values - top), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


def _divergence(p: FloatArray, R: FloatArray, alpha: float) -> FloatArray:
    """``D_α(p || R)`` for rows of ``R`` (``p`` one centre or one per row, ``R > 0`` on ``p``'s support;
    coordinates off it do not count)."""
    on = p > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p, log_r = np.log(p), np.log(R)
        if is_order(alpha, 1.0):
            return np.sum(np.where(on, p * (log_p - log_r), 0.0), axis=-1)
        terms = np.where(on, alpha * log_p + (1.0 - alpha) * log_r, -np.inf)
    return logsumexp(terms, axis=-1) / (alpha - 1.0)


def _tilted_at(p: FloatArray, c: FloatArray, delta: FloatArray, alpha: float) -> FloatArray:
    """``R(λ) ∝ p (λ − c)^{−1/α}`` with ``λ = max c + delta`` (``delta > 0``), rows normalised (``p`` one
    centre or one per row of ``c``).

    The gaps are formed as ``(max c − c) + delta`` so that they never cancel to zero.
    """
    gaps = (c.max(axis=1, keepdims=True) - c) + delta[:, None]
    with np.errstate(divide="ignore"):  # log 0 = −inf: no mass off p's support
        log_w = np.log(p) - np.log(gaps) / alpha
    log_w -= logsumexp(log_w, axis=1, keepdims=True)
    return np.exp(log_w)


def _bracket(
    p: FloatArray,
    c: FloatArray,
    scale: FloatArray,
    budget: FloatArray,
    alpha: float,
    excess: Callable[[FloatArray, np.ndarray], FloatArray],
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``(lo, hi, excess(lo), excess(hi))`` per row: ``t = log((λ − max c)/scale)`` with the constraint
    violated at ``lo`` and met at ``hi`` (``lo = hi`` at an end of :data:`_LOG_GAP_RANGE` that does not
    change sign).

    The first guess is the small-budget expansion: ``R − p ≈ p (c − pᵀc)/(α (λ − max c))`` near ``p``,
    where ``D_α(p || R) ≈ (α/2) χ²(R || p)``, so ``D ≈ Var_p(c) / (2 α (λ − max c)²)``. From it the
    bracket widens by :data:`_FIRST_STEP`, doubling, until the sign changes (at most 9 widenings
    reach the range's ends).
    """
    low_end, high_end = _LOG_GAP_RANGE
    k = c.shape[0]
    mean = np.sum(c * p, axis=1)
    variance = np.sum((c - mean[:, None]) ** 2 * p, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        guess = 0.5 * np.log(variance / (2.0 * alpha * budget)) - np.log(scale)
    guess = np.clip(np.nan_to_num(guess, nan=high_end, posinf=high_end, neginf=low_end), low_end, high_end)
    lo, hi = np.full(k, np.nan), np.full(k, np.nan)
    g_lo, g_hi = np.full(k, np.nan), np.full(k, np.nan)
    probe, rows, step = guess, np.arange(k), _FIRST_STEP
    while rows.size:
        g = excess(probe, rows)
        violated = g > 0.0
        lo[rows] = np.where(violated, probe, lo[rows])
        g_lo[rows] = np.where(violated, g, g_lo[rows])
        hi[rows] = np.where(violated, hi[rows], probe)
        g_hi[rows] = np.where(violated, g_hi[rows], g)
        stuck = (violated & (probe >= high_end)) | (~violated & (probe <= low_end))
        lo[rows[stuck]], hi[rows[stuck]] = probe[stuck], probe[stuck]  # no sign change in the range
        g_lo[rows[stuck]], g_hi[rows[stuck]] = g[stuck], g[stuck]
        rows = np.flatnonzero(np.isnan(lo) | np.isnan(hi))
        missing_hi = np.isnan(hi[rows])
        probe = np.clip(np.where(missing_hi, lo[rows] + step, hi[rows] - step), low_end, high_end)
        step *= 2.0
    return lo, hi, g_lo, g_hi


def _full_support_max(
    p: FloatArray, c: FloatArray, budget: FloatArray, alpha: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``max cᵀR`` over ``{R ∈ Δ : D_α(p||R) <= budget, R = 0 off p's support}``; rows of ``c``, each
    with its own (finite) budget and its own centre (``p`` of ``c``'s shape), ``c`` off the support at
    most its largest value on it (:func:`linear_maximum` sets it there).

    Returns values, maximisers and the multipliers ``λ`` (``+inf`` where ``c`` is constant).
    """
    k = c.shape[0]
    top = c.max(axis=1)
    scale = top - c.min(axis=1)
    value, arg, lam = np.array(top), np.array(p), np.full(k, np.inf)
    rest = scale > 0
    if not np.any(rest):
        value[:] = c[:, 0]
        return value, arg, lam
    pr, cr, topr, scaler, budgetr = p[rest], c[rest], top[rest], scale[rest], budget[rest]

    def excess(t: FloatArray, rows: np.ndarray) -> FloatArray:
        """``D(p || R(λ)) − budget`` at ``log(λ − max c) = t`` (decreasing in ``t``)."""
        tilted = _tilted_at(pr[rows], cr[rows], np.exp(t) * scaler[rows], alpha)
        return _divergence(pr[rows], tilted, alpha) - budgetr[rows]

    lo, hi, g_lo, g_hi = _bracket(pr, cr, scaler, budgetr, alpha, excess)
    # Illinois regula falsi on the bracket [lo (violated), hi (feasible)], until the bracket or the
    # feasible end's excess is at rounding level.
    side = np.zeros(cr.shape[0], dtype=np.int64)  # which end was kept last (for the Illinois halving)
    tiny = 4.0 * np.finfo(np.float64).eps
    for _ in range(_ILLINOIS_STEPS):
        open_ = ((hi - lo) > tiny * np.maximum(1.0, np.abs(hi))) & (-g_hi > tiny * np.maximum(1.0, budgetr))
        active = np.flatnonzero(open_)
        if active.size == 0:
            break
        a, b, ga, gb = lo[active], hi[active], g_lo[active], g_hi[active]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = b - gb * (b - a) / (gb - ga)
        t = np.where(np.isfinite(t) & (t > a) & (t < b), t, 0.5 * (a + b))
        gt = excess(t, active)
        violated = gt > 0.0
        lo[active] = np.where(violated, t, a)
        g_lo[active] = np.where(violated, gt, ga)
        hi[active] = np.where(violated, b, t)
        g_hi[active] = np.where(violated, gb, gt)
        # Illinois: when the same end stays twice, halve the function value kept at the other end.
        keep = np.where(violated, 1, -1)
        repeated = keep == side[active]
        g_hi[active] = np.where(repeated & violated, 0.5 * g_hi[active], g_hi[active])
        g_lo[active] = np.where(repeated & ~violated, 0.5 * g_lo[active], g_lo[active])
        side[active] = keep
    delta = np.exp(hi) * scaler  # the feasible side of the bracket
    lam[rest] = topr + delta
    R = _tilted_at(pr, cr, delta, alpha)
    value[rest] = np.einsum("ku,ku->k", cr, R)
    gap = topr - value[rest]
    short = (
        (hi <= _LOG_GAP_RANGE[0]) & (g_hi < 0.0) & (gap > _LOW_END_RTOL * np.maximum(scaler, np.abs(topr)))
    )
    if alpha >= 1.0 and np.any(short):
        # For α >= 1 the divergence grows without bound as λ ↓ max c: still slack at the range's end, the
        # maximum lies further (its λ − max c is below double precision: centre entries ~1e-300^(1/α)).
        # Refuse rather than under-report it. (For α < 1 the limit itself can be feasible: see above.)
        raise NotSupportedError(
            f"Rényi ball of order {alpha:g}: a linear extreme lies beyond double precision (λ − max c < "
            f"e^{_LOG_GAP_RANGE[0]:g}; centre entries as small as {float(pr[pr > 0].min()):.3g}); "
            "set the near-zero entries of the centre to 0 or raise them"
        )
    value[~rest] = c[~rest, 0]
    arg[rest] = R
    return value, arg, lam


def linear_maximum(
    p: FloatArray, budget: float | FloatArray, alpha: float, c: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """``max cᵀR`` over ``{R ∈ Δ : D_α(p || R) <= budget}`` for each row of ``c``; values and maximisers.
    ``budget`` is one radius, or one per row (``+inf``: the whole simplex); ``p`` is one centre, or one
    per row (so that many balls are solved in one vectorised pass).

    Off the support of ``p`` only the best coordinate ``u_off`` matters, and by stationarity it gets
    mass only if ``λ = c_off``. So: solve on the support (the coordinates off it are set to the
    support's largest ``c``, where ``p = 0`` gives them no mass); if its ``λ* >= c_off`` that is
    optimal (KKT holds with ``R_off = 0``). Otherwise fix ``λ = c_off``: ``R̃ ∝ p (c_off − c)^{−1/α}``
    on the support with mass ``m = exp(D_α(p || R̃) − budget) < 1``, and ``1 − m`` on ``u_off``.
    """
    c = np.atleast_2d(np.asarray(c, dtype=np.float64))
    k = c.shape[0]
    centres = np.broadcast_to(np.asarray(p, dtype=np.float64), c.shape)
    budgets = np.broadcast_to(np.asarray(budget, dtype=np.float64), (k,))
    value, arg = c.max(axis=1), np.zeros_like(c)
    arg[np.arange(k), np.argmax(c, axis=1)] = 1.0  # an infinite budget: the best coordinate
    point = budgets <= 0.0  # the ball is its centre
    value[point] = np.einsum("ku,ku->k", c[point], centres[point])
    arg[point] = centres[point]
    finite = np.isfinite(budgets) & ~point
    if not np.any(finite):
        return value, arg
    c, budgets, centres = c[finite], budgets[finite], centres[finite]
    support = centres > 0
    ps = np.where(support, centres, 0.0)
    ps /= ps.sum(axis=1, keepdims=True)
    top_s = np.where(support, c, -np.inf).max(axis=1)
    cs = np.where(support, c, top_s[:, None])
    value_s, found, lam = _full_support_max(ps, cs, budgets, alpha)
    off = np.where(support, -np.inf, c)
    c_off = off.max(axis=1)  # −inf on a full support
    switch = (c_off > lam) | ((~np.isfinite(lam)) & (c_off > top_s))
    if np.any(switch):
        rows = np.flatnonzero(switch)
        off_index = np.argmax(off[rows], axis=1)
        tilted = _tilted_at(ps[rows], cs[rows], c_off[rows] - top_s[rows], alpha)
        mass = np.minimum(np.exp(_divergence(ps[rows], tilted, alpha) - budgets[rows]), 1.0)
        found[rows] = mass[:, None] * tilted
        found[rows, off_index] += 1.0 - mass
        value_s[rows] = mass * np.einsum("ku,ku->k", cs[rows], tilted) + (1.0 - mass) * c_off[rows]
    value[finite], arg[finite] = value_s, found
    return value, arg


def linear_extremes(
    p: FloatArray, budget: float | FloatArray, alpha: float, c: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``(min, max, argmin, argmax)`` of ``cᵀR`` over the Rényi ball, for each row of ``c`` (one vectorised
    solve for the rows of ``c`` and ``−c``; ``p`` and ``budget`` as in :func:`linear_maximum`)."""
    rows = np.atleast_2d(np.asarray(c, dtype=np.float64))
    k = rows.shape[0]
    centres = np.broadcast_to(np.asarray(p, dtype=np.float64), rows.shape)
    budgets = np.broadcast_to(np.asarray(budget, dtype=np.float64), (k,))
    values, args = linear_maximum(
        np.vstack([centres, centres]), np.concatenate([budgets, budgets]), alpha, np.vstack([rows, -rows])
    )
    return -values[k:], values[:k], args[k:], args[:k]
