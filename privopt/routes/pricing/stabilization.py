"""Box-step stabilisation of the dual: where to price when the master's own duals oscillate.

The upper bound ``U(λ) = 1ᵀλ + δ(λ)⁺`` is convex in ``λ`` and its minimum is the optimum; the master's
duals minimise only its cutting-plane model ``Û(λ) = 1ᵀλ + max(0, max_k μ_k − λᵀw_k)`` over the
columns ``w_k`` found so far (normalised to ``pᵀw_k = 1``). Those minimisers (Kelley's iterates) jump
far from the best point seen, and pricing there yields columns that hardly move either bound. The
box step (Marsten, Hogan and Blankenship, 1975) minimises the model only within an ∞-norm box of
radius ``D`` around a stability centre ``λ̂``: pricing at that point gives columns for the master and
an estimate of ``U``; if the estimate falls by a share of what the model predicted, the point becomes
the centre (a serious step) and the box grows, otherwise the new columns refine the model and the box
shrinks (a null step). With an inexact oracle (the stabilised rounds) the certificate is then priced
exactly at the final centre; with an exact one (the bound phase of
:func:`~privopt.routes.pricing.certified_generation.certified_column_generation`) every point is a certificate.

The stabilised rounds' ∞-norm box is at most ``mean_dual_radii`` mean duals (``Û_c/n``) wide: its
absolute radii were tuned where the duals are large, and a curve's small-ε points, whose duals are a
fifth of those, priced far outside the region that matters.

With the exact oracle the box is measured in units of the normalisation (``scaled=True``:
``|λ_x − λ̂_x| <= D·n·ν_x/Σν``; the stabilised rounds keep the ∞-norm box they were tuned with). The duals scale
like ``ν`` (the prior-free duals of mutual information are ``μ*·p``), and a column of ``νᵀw = 1`` can
put a weight of order ``1/ν_x`` on a rare input, so an unscaled box lets the rare inputs' duals move
``U`` by far more than the common ones'. Marital-status × education, ε = 1, exact box steps from
one 100 s run's best certificate (1.3899): 1.3303 after 60 s unscaled (alone), then stuck (the radius
shrinking to its floor on null steps), against 1.3178 after 54 s and 1.3045 after 150 s scaled
(beside another run). Inputs of zero weight keep ``λ_x = 0``.

Occupation × education, ε = 1, 540 s with ``ColumnGenerationOptions.stabilized_fraction`` = 0.6 (the
default): lower 0.560521, certified upper 0.581892 (gap 3.7 %) against 0.548440 / 0.610703 (10.2 %)
without. Where the local search gets stuck early, exact rounds run instead and the box step is not
started: there it did worse (marital-status × education, ε = 1, 300 s: 7.2 % against 1.8 %;
docs/compiler.md, "Certified pricing on envelope cones").
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from privopt.errors import SolverError
from privopt.routes.pricing.tuning import active
from privopt.solvers.lp import new_highs
from privopt.validation import FloatArray


class BoxStep:
    """The cutting-plane model of ``U`` in ``(λ, r)``: ``min 1ᵀλ + r`` s.t. ``λᵀw_k + r >= μ_k``, ``r >= 0``.

    ``weights`` is ``p`` (``Σ p = 1``): columns are scaled to ``pᵀw = 1``, so a shift of ``λ`` by
    ``r·p`` raises every ``λᵀw_k`` by ``r`` and ``1ᵀλ`` by ``r``; a point ``(λ, r)`` is reported as
    ``λ + r·p``.
    """

    def __init__(self, weights: FloatArray, scaled: bool = False) -> None:
        self.weights = weights
        self.n = weights.size
        self.scaled = scaled
        #: Per input, the box's half-width per unit of radius (module docstring; the stabilised
        #: rounds' box shrinks it where the duals are small, ``mean_dual_radii``).
        self.scale = self.n * weights / weights.sum() if scaled else np.ones(self.n)
        self.centre = np.zeros(self.n)
        self.estimate = np.inf  # Û at the centre, with the cuts known when it became the centre
        self.radius = active().initial_radius
        self.serious = 0
        self.cuts = np.zeros((self.n, 0))
        self.values = np.zeros(0)
        self.max_cuts = max(active().cuts_per_input * self.n, active().min_cuts)
        self.highs = new_highs()
        lower = np.append(np.full(self.n, -np.inf), 0.0)
        self.highs.addVars(self.n + 1, lower, np.full(self.n + 1, np.inf))
        self.highs.changeColsCost(self.n + 1, np.arange(self.n + 1, dtype=np.int32), np.ones(self.n + 1))

    def add(self, columns: FloatArray, values: FloatArray) -> None:
        """Cuts ``λᵀw + r >= μ(w)`` for the columns of ``columns`` (any scale) and their utilities.

        Columns of ``νᵀw = 0`` (inputs of zero weight alone, where ``λ = 0`` and ``μ = 0``) give no cut on
        the slice and are skipped."""
        scale = self.weights @ columns
        on_slice = scale > 0.0
        if not np.any(on_slice):
            return
        columns, values, scale = columns[:, on_slice], values[on_slice], scale[on_slice]
        cuts, values = columns / scale, values / scale
        rows = sp.csr_matrix(np.vstack([cuts, np.ones((1, cuts.shape[1]))]).T)
        self.highs.addRows(
            cuts.shape[1],
            values,
            np.full(cuts.shape[1], np.inf),
            rows.nnz,
            rows.indptr[:-1].astype(np.int32),
            rows.indices.astype(np.int32),
            rows.data,
        )
        self.cuts = np.hstack([self.cuts, cuts])
        self.values = np.concatenate([self.values, values])
        if self.values.size > self.max_cuts:
            self.prune(self.max_cuts // 2)

    def prune(self, keep: int) -> None:
        """Keep the ``keep`` cuts tightest at the centre (``μ_k − λ̂ᵀw_k`` largest), dropping the rest
        from the model and its LP.

        The model stays a lower estimate of ``U`` (a subset of valid cuts) and keeps its value at the
        centre (the tightest cut is kept); the dropped cuts are the least likely to matter in a box
        around it, as in bundle methods that drop inactive cuts.
        """
        order = np.argsort(-(self.values - self.centre @ self.cuts), kind="stable")
        drop = np.sort(order[keep:])
        if drop.size:
            self.highs.deleteRows(drop.size, drop.astype(np.int32))
            kept = np.ones(self.values.size, dtype=bool)
            kept[drop] = False
            self.cuts, self.values = self.cuts[:, kept], self.values[kept]

    def model(self, duals: FloatArray) -> float:
        """``Û(λ)``: the model's value at ``duals`` (a lower estimate of ``U``)."""
        return float(duals.sum()) + max(0.0, float(np.max(self.values - duals @ self.cuts, initial=0.0)))

    def point(self) -> tuple[FloatArray, float]:
        """The model's minimiser in the box around the centre, and the model's value there."""
        import highspy

        lower = np.append(self.centre - self.radius * self.scale, 0.0)
        upper = np.append(self.centre + self.radius * self.scale, np.inf)
        self.highs.changeColsBounds(self.n + 1, np.arange(self.n + 1, dtype=np.int32), lower, upper)
        self.highs.run()
        if self.highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            status = self.highs.modelStatusToString(self.highs.getModelStatus())
            raise SolverError(f"the box-step LP failed (HiGHS status: {status})")
        solution = np.asarray(self.highs.getSolution().col_value)
        point = solution[: self.n] + solution[self.n] * self.weights
        return point, float(solution.sum())

    def start(self, centre: FloatArray, estimate: float | None = None) -> None:
        """Centre the box at ``centre`` (zero on inputs of zero weight, after adding the cuts priced
        there), whose value is ``estimate`` (by default the model's), with the first radius again."""
        self.centre = np.where(self.weights > 0.0, centre, 0.0)
        self.radius = active().initial_radius
        self.estimate = self.model(self.centre) if estimate is None else estimate
        if not self.scaled:  # at most mean_dual_radii mean duals (none without a positive value)
            positive = np.isfinite(self.estimate) and self.estimate > 0.0
            mean_dual = self.estimate / self.n if positive else np.inf
            self.scale = np.full(
                self.n, min(1.0, active().mean_dual_radii * mean_dual / active().initial_radius)
            )

    def null_from(self, predicted: float) -> float:
        """The value of ``U`` at the point (whose model value is ``predicted``) from which the step is
        null: the centre's less ``serious_share`` of the predicted decrease."""
        return self.estimate - active().serious_share * (self.estimate - predicted)

    def update(self, point: FloatArray, predicted: float, value: float | None = None) -> None:
        """After adding the cuts priced at ``point`` (the last :meth:`point`, whose model value was
        ``predicted``): move the centre there if ``U`` fell enough, and resize the box. ``value`` is
        ``U(point)`` from an exact oracle; by default the model's value with the new cuts estimates it."""
        estimate = self.model(point) if value is None else value
        if estimate < self.null_from(predicted):
            self.centre, self.estimate = point, estimate
            self.serious += 1
            self.radius *= active().grow
        else:
            self.radius = max(self.radius * active().shrink, active().min_radius)
