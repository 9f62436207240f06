"""Certified pricing on any cone by a global solver: SCIP's spatial branch and bound.

Column generation needs, at duals ``λ``, a proved ``δ̄ >= δ(λ) = max {μ(w) − λᵀw : w ∈ S}`` over the slice
``S = {w ∈ K : νᵀw = 1}`` of the cone ``K`` (docs/compiler.md §3, "Upper bound"). The specialised
pricers exploit a structure (LDP staircases, envelope products, trees, the f-divergence hull); this one
needs none: it hands the pricing problem to SCIP (Achterberg, *Math. Prog. Comp.* 2009; its nonlinear
handling: Vigerske & Gleixner, *Optim. Methods Softw.* 2018, and the SCIP Optimization Suite 10
report), whose spatial branch and bound maximises a convex function over a polytope to a proved bound.
It is registered last (:data:`GLOBAL_PRIORITY`): every specialised pricer wins where it applies.

**The model.** Variables ``w`` (and the lifted cone's auxiliary variables), the cone's rows with the
single-input pairs that others imply left out (:class:`~privopt.routes.linear_program.ColumnSystem`:
only the four neighbours of a Manhattan grid remain; blocks of several vectors are lifted), ``νᵀw = 1``
and ``z <= μ_S(w)``, the utility's ``μ`` on the slice, maximising ``z − λᵀw``. ``μ_S`` is read from the
utility's declared form (:mod:`privopt.utilities`), with the ``ν`` that makes it simplest:

- entropy form (MI, NMI): ``ν = p``; on ``pᵀw = 1``, ``μ = scale·Σ_x p_x w_x log w_x`` (Entropy paper
  eq. 45), separable: SCIP's entropy expressions, a secant over each ``[l_x, u_x]`` as relaxation;
- power form (Sibson's α-MI): ``ν = c``; ``μ = (Σ_x c_x w_x^α)^{1/α}``, a power of a separable sum;
- perspective form (f-divergences with a built-in ``f``): ``ν = (a + b)/2``; on the slice ``aᵀw + bᵀw =
  2``, so with ``s = aᵀw``, ``μ = φ(s) = (2 − s) f(s/(2 − s))``, one nonlinear variable.

**Why the bound holds for each ν.** ``μ`` is positively homogeneous (every declared form is), ``ν >= 0``
and ``νᵀw > 0`` on ``K \\ {0}`` (here ``ν > 0`` is required, so the slice is bounded). Any column
``w ≠ 0`` is ``c·v`` with ``c = νᵀw > 0`` and ``v ∈ S``, so ``μ(w) − λᵀw = c(μ(v) − λᵀv) <= c·max(0, δ̄)``.
Summing over the columns of a mechanism (``Σ_y w_y = 1``, so ``Σ_y νᵀw_y = Σν``) gives
``Σ_y μ(w_y) <= Σλ + (Σν)·max(0, δ̄)``: the bound of :class:`~privopt.certificates.SliceBound`, for any
such ``ν``. Sibson's ``c`` is its prior ``p``; a user's power form may have any positive ``c`` (``Σν`` is
then not 1, which the bound carries).

**Bounds first.** SCIP's relaxation of a convex term is its secant over the variable's range, so the
range matters: before the first pricing, two LPs per input give ``l_x <= w_x <= u_x`` on the slice
(optimality-based bound tightening from the cone rows), each proved by the LP's duals
(:meth:`~privopt.routes.pricing.slice_lp.SliceLP.maximise_bounded`), so no point of the slice is cut off.
The box does not depend on ``λ``: one model serves every pricing, only its objective changes.

**The bound and its margin.** SCIP's dual bound ``D`` is computed in floating point: LP relaxations
solved to a dual feasibility tolerance (``numerics/dualfeastol``), rows met to ``numerics/feastol``,
nodes pruned to ``numerics/epsilon``. Their effect on ``D`` is at most the tolerance times the
magnitudes the LPs add up — ``M = Σ_x |λ_x| u_x + max |μ_S|`` over the box (and ``|D|``) — so the pricer
claims ``δ̄ = D + GLOBAL_PRICING_RTOL·(1 + |D| + M)``, with
:data:`~privopt.tolerances.GLOBAL_PRICING_RTOL` ten times the tolerances it sets
(:data:`SCIP_FEASTOL`); on 180 random slices checked against exact vertex enumeration SCIP's ``D`` was
never below the maximum by more than ``1e-14`` of that scale.

**No shift of w.** ``w log w`` is stated as ``h(w) = (w + η) log(w + η) − η log η`` (:data:`ENTROPY_SHIFT`):
``h(0) = 0`` and ``h'(w) − (1 + log w) = log(1 + η/w) > 0``, so ``h >= w log w`` on ``w >= 0`` and the model
is a relaxation — its bound holds with nothing added — and ``h(w) − w log w <= η(1 + log(1 + u/η))``
(``∫_0^u log(1 + η/w) dw``), ``3.6e-11`` at ``u = 1000``: the bound is that much looser at most. (The
probe's ``w >= 10^{-9}`` cut points off instead and needed a margin for them.) The independent checker re-proves the claim with a model of its own
(:mod:`privopt.certificates.spatial`).

**Budgets and columns.** A pricing stops at the request's deadline (``limits/time``), node budget
(``limits/nodes``), tolerance (``limits/absgap``), ``target`` (``limits/dual``) and ``ceiling``
(``limits/primal``); a stopped search still has a valid ``D``. The solutions SCIP met (its pool, up to
``max_columns``) are the columns, moved into the cone (:class:`~privopt.routes.pricing.slice_lp.ConeRepair`)
and priced again with the utility's own ``μ``; the best of them start the next pricing.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
import scipy.sparse as sp

from privopt.compiler.cone import RowCone
from privopt.compiler.implied import implied_blocks
from privopt.routes.pricing.contract import (
    CertifiedPricer,
    PricedColumn,
    PricerEntry,
    PricerTraits,
    PricingOutcome,
    PricingRequest,
    Refusal,
    RefusalReason,
    register_pricer,
)
from privopt.routes.pricing.slice_lp import ConeRepair, SliceLP
from privopt.tolerances import COLUMN_DUPLICATE_ATOL, GLOBAL_PRICING_RTOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: How certified column generation's global pricer proves ``δ̄`` (kept in certificates).
GLOBAL_METHOD = (
    "global: SCIP's spatial branch and bound over the slice, its dual bound plus a tolerance margin"
)

#: The registry's priority: after every specialised pricer (staircase 10 … f-divergence hull 40).
GLOBAL_PRIORITY = 90

#: SCIP's ``numerics/feastol`` and ``numerics/dualfeastol`` in the pricer's models (its defaults are 1e-6
#: and 1e-7); :data:`~privopt.tolerances.GLOBAL_PRICING_RTOL` is ten times this.
SCIP_FEASTOL = 1e-9

#: The perspective forms SCIP is given (their ``f`` as an expression); a user's ``f`` is not an expression.
PERSPECTIVE_KINDS = ("kl", "chi2", "hellinger", "tv")

#: Projected rows are stated while they number at most this many times the lifted system's rows
#: (measured: docs/compiler.md, "The global pricer").
LIFT_FACTOR = 4.0

#: ``η`` of the entropy terms ``(w + η) log(w + η) − η log η`` stated instead of ``w log w`` (module
#: docstring): SCIP 10's LP solver aborted the process on ``w log w`` with ``w``'s lower bound at 0 (a
#: cycle of 8 pairs with factors up to e^2.9, a Dirichlet(0.3) prior).
ENTROPY_SHIFT = 1e-12

#: Solutions of earlier pricings given to SCIP as starting points (the best columns found last).
WARM_STARTS = 8

#: SCIP's node limit when the request leaves the budget to the pricer (``max_nodes=None``): in effect
#: none, the deadline and the gap limits stop the search.
DEFAULT_NODES = 10**7

#: Seconds the worker may run past its pricing's deadline before it is taken for hung.
GRACE_SECONDS = 10.0

#: Shortest time limit handed to SCIP (seconds): a pricing whose deadline has passed still solves its root.
MIN_SECONDS = 0.05

#: SCIP's statuses that close the search (to ``absgap``, or below ``target``); ``"gaplimit"`` closes it
#: only when the absolute gap is within the tolerance (a search stopped by the caller's relative
#: ``slack`` has not closed: the run keeps pricing, as after a node limit).
_CLOSED = ("optimal", "duallimit")


@dataclass(frozen=True, eq=False)
class GlobalForm:
    """``μ`` on the slice ``νᵀw = 1`` as the pricer states it to SCIP (module docstring): its ``kind``
    (``"entropy"``, ``"power"`` or ``"perspective"``), ``ν`` and its name, and the form's data."""

    kind: str
    weights: FloatArray
    normalisation: str
    #: ``p`` and the scale (entropy); ``c`` and ``α`` (power); ``a`` and the kind of ``f`` (perspective).
    coefficients: FloatArray
    parameter: float = 1.0
    f: str = ""


def global_form(utility: SubConvexUtility) -> GlobalForm | Refusal:
    """The utility's form on its slice (module docstring), or why it has none the pricer can state."""
    entropy, power, perspective = utility.entropy_form(), utility.power_form(), utility.perspective_form()
    if entropy is not None:
        p = np.asarray(entropy.p, dtype=np.float64)
        return GlobalForm("entropy", p, "prior", p, float(entropy.scale))
    if power is not None:
        c = np.asarray(power.c, dtype=np.float64)
        return GlobalForm("power", c, "prior", c, float(power.alpha))
    if perspective is not None:
        if perspective.kind not in PERSPECTIVE_KINDS:
            return Refusal(RefusalReason.UTILITY, "a user's f is not an expression SCIP can branch on")
        a, b = (np.asarray(v, dtype=np.float64) for v in (perspective.a, perspective.b))
        return GlobalForm("perspective", 0.5 * (a + b), "mixture", a, f=perspective.kind)
    return Refusal(
        RefusalReason.UTILITY,
        f"{utility!r} declares no entropy, power or perspective form (SCIP needs μ as an expression)",
    )


def _shifted(t: FloatArray) -> FloatArray:
    """``h(t) = (t + η) log(t + η) − η log η`` (``η`` = :data:`ENTROPY_SHIFT`), ``>= t log t`` for ``t >= 0``."""
    shifted = np.asarray(t, dtype=np.float64) + ENTROPY_SHIFT
    return shifted * np.log(shifted) - ENTROPY_SHIFT * np.log(ENTROPY_SHIFT)


def _shifted_xlogx(variable: Any) -> Any:
    """``h`` of a SCIP variable (an entropy expression of ``variable + η``, defined at ``variable = 0``)."""
    from pyscipopt import log

    return (variable + ENTROPY_SHIFT) * log(variable + ENTROPY_SHIFT) - ENTROPY_SHIFT * float(
        np.log(ENTROPY_SHIFT)
    )


def _phi(kind: str, s: FloatArray) -> FloatArray:
    """``φ(s) = t f(s/t)`` with ``t = 2 − s`` (the perspective on the mixture slice), ``s ∈ [0, 2]``."""
    t = 2.0 - s
    if kind == "kl":
        with np.errstate(divide="ignore"):
            return np.where(s > 0.0, s * np.log(np.where(s > 0.0, s, 1.0) / np.where(t > 0.0, t, 0.0)), 0.0)
    if kind == "chi2":
        with np.errstate(divide="ignore"):
            return np.where(t > 0.0, (s - t) ** 2 / np.where(t > 0.0, t, 1.0), np.inf)
    if kind == "hellinger":
        return 0.5 * (np.sqrt(s) - np.sqrt(np.clip(t, 0.0, None))) ** 2
    return 0.5 * np.abs(s - t)


def slice_rows(cone: RowCone, weights: FloatArray) -> tuple[sp.csr_matrix, FloatArray]:
    """The rows ``R [w; aux] <= 0`` the model states and upper bounds of the auxiliary variables on the
    slice ``νᵀw = 1`` (they are ``>= 0``): the cone without the single-input pairs others imply
    (:func:`~privopt.compiler.implied.implied_blocks`; the Manhattan grid keeps its four neighbours),
    as projected rows (:meth:`~privopt.compiler.cone.RowCone.matrix`) while they number at most
    :data:`LIFT_FACTOR` times the lifted system's, else lifted (:meth:`~privopt.compiler.cone.RowCone.lifted`)."""
    implied = implied_blocks(cone)
    kept = tuple(block for block, gone in zip(cone.blocks, implied, strict=True) if not gone)
    sub = RowCone(cone.eps, cone.n_inputs, cone.groups, kept, cone.exact, cone.definition)
    lifted_rows = sum(
        len(cone.groups[g].terms) for g in {b.numerator for b in kept} | {b.denominator for b in kept}
    )
    if sub.n_rows <= LIFT_FACTOR * (lifted_rows + len(kept)):
        return sub.matrix().tocsr(), np.zeros(0)
    rows, _ = sub.lifted()
    return rows.tocsr(), sub.lifted_upper_bounds(weights)[cone.n_inputs :]


class _Model:
    """SCIP's model of the slice with ``z <= μ_S(w)`` (module docstring), built once per pricer."""

    def __init__(
        self, cone: RowCone, form: GlobalForm, low: FloatArray, high: FloatArray, s_range: tuple[float, float]
    ) -> None:
        from pyscipopt import Model, quicksum

        self.form, self.low, self.high, self.s_range = form, low, high, s_range
        rows, upper = slice_rows(cone, form.weights)
        n, total = cone.n_inputs, rows.shape[1]
        model = Model()
        model.hideOutput()
        model.setParam("numerics/feastol", SCIP_FEASTOL)
        model.setParam("numerics/dualfeastol", SCIP_FEASTOL)
        self.w = [model.addVar(f"w{x}", lb=float(low[x]), ub=float(high[x])) for x in range(n)]
        auxiliary = [model.addVar(f"a{j}", lb=0.0, ub=float(upper[j])) for j in range(total - n)]
        variables = self.w + auxiliary
        for i in range(rows.shape[0]):
            entries = range(rows.indptr[i], rows.indptr[i + 1])
            model.addCons(quicksum(float(rows.data[k]) * variables[rows.indices[k]] for k in entries) <= 0.0)
        model.addCons(quicksum(float(form.weights[x]) * self.w[x] for x in range(n)) == 1.0)
        expression, self.mu_range, self.evaluate = self._objective(model)
        # z is free below: the smallest value of μ_S need not be known (a KL column's μ is negative
        # where aᵀw < bᵀw); above, μ_S's largest value over the box bounds it.
        self.z = model.addVar("z", lb=None, ub=self.mu_range[1] + _widen(self.mu_range[1]))
        model.addCons(self.z <= expression)
        self.model = model
        self.rows = rows.shape[0]

    def _objective(self, model: Any) -> tuple[Any, tuple[float, float], Callable[[FloatArray], float]]:
        """``μ_S`` as a SCIP expression, its range over the box and its value at a point of the slice."""
        from pyscipopt import log, quicksum, sqrt

        form, low, high, w = self.form, self.low, self.high, self.w
        if form.kind == "entropy":
            p, scale = form.coefficients, form.parameter
            terms = [float(scale * p[x]) * _shifted_xlogx(w[x]) for x in range(len(w))]
            ends = scale * p[:, None] * _shifted(np.column_stack([low, high]))
            turn = np.exp(-1.0) - ENTROPY_SHIFT  # where the shifted term is smallest
            least = np.where(
                (low <= turn) & (high >= turn), scale * p * _shifted(np.array(turn)), ends.min(axis=1)
            )
            return (
                quicksum(terms),
                (float(least.sum()), float(ends.max(axis=1).sum())),
                lambda v: float(scale * (p @ _shifted(v))),
            )
        if form.kind == "power":
            c, alpha = form.coefficients, form.parameter
            inner = quicksum(float(c[x]) * w[x] ** alpha for x in range(len(w)))
            return (
                inner ** (1.0 / alpha),
                (float((c @ low**alpha) ** (1.0 / alpha)), float((c @ high**alpha) ** (1.0 / alpha))),
                lambda v: float((c @ v**alpha) ** (1.0 / alpha)),
            )
        a, kind = form.coefficients, form.f
        s_low, s_high = self.s_range
        s = model.addVar("s", lb=s_low, ub=s_high)
        model.addCons(s == quicksum(float(a[x]) * w[x] for x in range(len(w))))
        t = 2.0 - s
        if kind == "kl":
            expression = _shifted_xlogx(s) - s * log(t)
        elif kind == "chi2":
            expression = (s - t) * (s - t) / t
        elif kind == "hellinger":
            expression = 1.0 - sqrt(s * t)
        else:
            expression = abs(s - t) * 0.5
        # φ is convex: its largest value is at an end; its smallest (for the margin's scale only) is
        # estimated on a grid.
        values = _phi(kind, np.linspace(s_low, s_high, 65))
        return (
            expression,
            (float(values.min()), float(values[[0, -1]].max())),
            lambda v: float(_phi(kind, np.array([a @ v]))[0]),
        )


def _widen(value: float) -> float:
    """Room for the rounding of a range's ends (``z``'s bounds must contain every value of ``μ_S``)."""
    return 1e-9 * (1.0 + abs(value))


class GlobalPricer:
    """Certified pricing by SCIP on any cone (module docstring), as certified column generation's pricer
    (:func:`~privopt.routes.pricing.contract.certified_pricer`); a "node" is a node of SCIP's tree."""

    def __init__(self, cone: RowCone, utility: SubConvexUtility, form: GlobalForm) -> None:
        self.cone, self.utility, self.form = cone, utility, form
        self._weights = form.weights
        self.repair = ConeRepair(cone)
        self._model: _Model | None = None
        self._starts: list[FloatArray] = []
        self._worker: _Worker | None = None
        #: Whether every pricing so far closed its search (then each round prices exactly).
        self.closing = True

    @property
    def weights(self) -> FloatArray:
        """``ν`` of the form's slice (module docstring)."""
        return self._weights

    @property
    def traits(self) -> PricerTraits:
        """Exact every round while its searches close (a small cone), otherwise after the local search
        finds nothing; the run closes to half its ``gap_tolerance``; the checker's model takes about
        as long as the pricing (:data:`CHECK_RATIO`); ``route="auto"`` keeps a vertex enumeration
        predicted to be slow rather than take it (its searches need not close)."""
        return PricerTraits(
            GLOBAL_METHOD,
            self.form.normalisation,
            exact_every_round=self.closing,
            nodes_per_unit=1,
            gap_share=0.5,
            check_ratio=CHECK_RATIO,
            preferred_to_enumeration=False,
        )

    def prior_free_duals(self) -> list[FloatArray]:
        """None: no dual vector is known to certify every prior here."""
        return []

    def session(self, workers: int) -> contextlib.AbstractContextManager[CertifiedPricer]:
        """A run prices in one worker process (SCIP is single-threaded), stopped when the run ends."""
        return self._session()

    @contextlib.contextmanager
    def _session(self) -> Iterator[CertifiedPricer]:
        try:
            yield self
        finally:
            self.close()

    def close(self) -> None:
        """Stop the worker process (a later pricing starts a new one)."""
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def box(self) -> tuple[FloatArray, FloatArray, tuple[float, float]]:
        """``l <= w <= u`` on the slice and the range of ``aᵀw`` (the perspective form's ``s``; ``(0, 0)``
        for the other forms), each end proved by an LP's duals (module docstring)."""
        lp = SliceLP(self.cone, self._weights)
        n = self.cone.n_inputs

        def extremes(c: FloatArray) -> tuple[float, float]:
            high = lp.maximise_bounded(c, "bound-tightening LP")[1]
            return -lp.maximise_bounded(-c, "bound-tightening LP")[1], high

        ends = np.array([extremes(unit) for unit in np.eye(n)]).reshape(n, 2)
        low = np.clip(ends[:, 0], 0.0, None)
        s_range = (0.0, 0.0)
        if self.form.kind == "perspective":
            s_low, s_high = extremes(self.form.coefficients)
            s_range = (max(s_low, 0.0), min(s_high, 2.0))
        return low, np.maximum(ends[:, 1], low), s_range

    def model(self) -> _Model:
        if self._model is None:
            low, high, s_range = self.box()
            self._model = _Model(self.cone, self.form, low, high, s_range)
        return self._model

    def margin(self, duals: FloatArray, dual_bound: float) -> float:
        """The margin added to SCIP's dual bound (module docstring)."""
        model = self.model()
        magnitude = float(np.abs(duals) @ model.high) + max(abs(model.mu_range[0]), abs(model.mu_range[1]))
        return GLOBAL_PRICING_RTOL * (1.0 + abs(dual_bound) + magnitude)

    def price(self, duals: FloatArray, request: PricingRequest) -> PricingOutcome:
        """``δ̄`` at ``duals`` (the request mapped onto SCIP's limits: module docstring), by SCIP in the
        pricer's worker process (:class:`_Worker`)."""
        start = time.perf_counter()
        sent = _Request(
            np.asarray(duals, dtype=np.float64),
            request.tolerance,
            request.target,
            request.slack,
            request.deadline,
            DEFAULT_NODES if request.max_nodes is None else request.max_nodes,
            request.max_columns,
            request.ceiling,
        )
        if self._worker is None or not self._worker.alive():
            self._worker = _Worker(self)
        outcome = self._worker.call(sent)
        if outcome is None:  # the worker died or hung: no bound, and a new worker next time
            self._worker = None
            outcome = PricingOutcome(
                np.inf, -np.inf, (), 0, 0, False, request.tolerance, time.perf_counter() - start
            )
        self.closing = self.closing and outcome.complete
        return outcome

    def solve(self, request: _Request) -> PricingOutcome:
        """One pricing by SCIP in this process (what the worker runs)."""
        from pyscipopt import quicksum

        start = time.perf_counter()
        lam = request.duals
        state = self.model()
        model = state.model
        model.freeTransform()
        model.setObjective(
            state.z - quicksum(float(lam[x]) * state.w[x] for x in range(lam.size)), "maximize"
        )
        seconds = np.inf if request.deadline is None else request.deadline - time.perf_counter()
        model.setParam("limits/time", float(min(max(seconds, MIN_SECONDS), 1e20)))
        model.setParam("limits/nodes", int(max(1, request.max_nodes)))
        model.setParam("limits/absgap", float(max(request.tolerance, 0.0)))
        model.setParam("limits/gap", float(max(request.slack, 0.0)))
        model.setParam("limits/dual", float(request.target) if np.isfinite(request.target) else 1e99)
        model.setParam("limits/primal", float(request.ceiling) if np.isfinite(request.ceiling) else 1e99)
        self._warm_start(state)
        model.optimize()
        status = model.getStatus()
        bound = float(model.getDualbound())
        upper = bound + self.margin(lam, bound) if abs(bound) < 1e19 else np.inf
        found = self._columns(state, lam, request.max_columns)
        return PricingOutcome(
            upper=upper,
            lower=max((c.ratio for c in found), default=-np.inf),
            columns=tuple(found),
            nodes=int(model.getNTotalNodes()),
            point_nodes=0,
            complete=status in _CLOSED
            or (status == "gaplimit" and bound - model.getPrimalbound() <= request.tolerance),
            tolerance=request.tolerance,
            seconds=time.perf_counter() - start,
        )

    def _columns(self, state: _Model, lam: FloatArray, limit: int) -> list[PricedColumn]:
        """SCIP's solutions moved into the cone, with their reduced cost, best first (at most ``limit``)."""
        model = state.model
        points = [np.array([model.getSolVal(sol, v) for v in state.w]) for sol in model.getSols()]
        points = [np.clip(v, 0.0, None) for v in points if np.all(np.isfinite(v)) and v.max() > 0.0]
        if not points:
            return []
        repaired = self.repair(np.column_stack(points))
        if repaired.shape[1] == 0:
            return []
        mass = self._weights @ repaired
        ratios = (self.utility.mu(repaired) - lam @ repaired) / mass
        found: list[PricedColumn] = []
        for k in np.argsort(-ratios, kind="stable"):
            column = repaired[:, k]
            if any(np.allclose(column, c.column, atol=COLUMN_DUPLICATE_ATOL) for c in found):
                continue
            found.append(PricedColumn(column, float(ratios[k])))
            if len(found) == max(limit, WARM_STARTS):
                break
        self._starts = [c.column for c in found[:WARM_STARTS]]
        return found[:limit]

    def _warm_start(self, state: _Model) -> None:
        """The best columns of the last pricing as SCIP's starting solutions (on the slice)."""
        model = state.model
        for column in self._starts:
            v = column / float(self._weights @ column)
            if np.any(v < state.low) or np.any(v > state.high):
                continue
            solution = model.createSol()
            for x, variable in enumerate(state.w):
                model.setSolVal(solution, variable, float(v[x]))
            value = state.evaluate(v)
            model.setSolVal(solution, state.z, value - _widen(value))
            model.addSol(solution, free=True)


@dataclass(frozen=True)
class _Request:
    """One pricing's arguments, as sent to the worker."""

    duals: FloatArray
    tolerance: float
    target: float
    slack: float
    deadline: float | None
    max_nodes: int
    max_columns: int
    ceiling: float


class _Worker:
    """The process that holds the pricer's SCIP model and runs its pricings (forked from this one, so
    it starts in milliseconds with the pricer as it is). SCIP's LP solver writes to the process's own
    streams and once aborted the process (``ENTROPY_SHIFT``): in the worker its streams are
    ``/dev/null`` and an abort costs one pricing's bound (``upper = inf``), not the caller. A worker
    that outlives its pricing's deadline by :data:`GRACE_SECONDS` is killed."""

    def __init__(self, pricer: GlobalPricer) -> None:
        context = multiprocessing.get_context("fork")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, pricer), daemon=True)
        self.process.start()
        child.close()
        self._finalizer = weakref.finalize(self, _stop, self.process, self.connection)

    def alive(self) -> bool:
        return self.process.is_alive()

    def call(self, request: _Request) -> PricingOutcome | None:
        """The worker's outcome of ``request``, or ``None`` if it died or hung (it is then stopped)."""
        wait = None if request.deadline is None else max(request.deadline - time.perf_counter(), 0.0)
        try:
            self.connection.send(request)
            if self.connection.poll(None if wait is None else wait + MIN_SECONDS + GRACE_SECONDS):
                outcome: PricingOutcome = self.connection.recv()
                return outcome
        except (EOFError, OSError):
            pass
        self.close()
        return None

    def close(self) -> None:
        self._finalizer()


def _stop(process: multiprocessing.process.BaseProcess, connection: Connection) -> None:
    with contextlib.suppress(OSError):
        connection.close()
    if process.is_alive():
        process.kill()
    process.join(timeout=5)


def _serve(connection: Connection, pricer: GlobalPricer) -> None:
    """The worker's loop: price each request until the pipe closes."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for stream in (1, 2):
        os.dup2(devnull, stream)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the worker
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return
        connection.send(pricer.solve(request))


#: The checker's time on the pricer's certificates, as a multiple of the pricing's (measured:
#: docs/compiler.md, "The global pricer").
CHECK_RATIO = 1.5


def global_pricer(utility: SubConvexUtility, cone: RowCone) -> GlobalPricer | Refusal:
    """The global pricer of ``(utility, cone)`` (module docstring), or why there is none."""
    form = global_form(utility)
    if isinstance(form, Refusal):
        return form
    if form.weights.size != cone.n_inputs:
        return Refusal(RefusalReason.UTILITY, "the utility's distribution does not match the cone's inputs")
    if not np.all(form.weights > 0.0):
        return Refusal(
            RefusalReason.NUMERICS, "ν has a zero entry: the slice νᵀw = 1 need not bound the cone"
        )
    return GlobalPricer(cone, utility, form)


register_pricer(
    PricerEntry("global", GLOBAL_PRIORITY, global_pricer, proved_by=("spatial", "vertices trial", "vertices"))
)
