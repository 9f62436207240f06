"""The checker's proof for any cone too large to enumerate: its own model for SCIP's spatial branch and bound.

A claim ``δ̄ >= max {R(w) : w ∈ K}``, ``R = (μ(w) − λᵀw)/νᵀw``, is ``max {μ(w) − λᵀw : w ∈ K, νᵀw = 1}
<= δ̄``: a convex function maximised over a polytope. For a utility that declares an entropy, power or
perspective form (:mod:`privopt.utilities`), the checker states that problem to SCIP (Achterberg,
*Math. Prog. Comp.* 2009; Vigerske & Gleixner, *Optim. Methods Softw.* 2018), whose spatial branch and
bound proves a dual bound ``D``, and claims ``D`` plus a margin for SCIP's tolerances. It applies only
where the exact rational enumeration (:mod:`privopt.certificates.vertices`) would be costly
(:data:`EXACT_FIRST_LOG10`), and only when ``ν > 0`` (the slice is then bounded by ``w_x <= 1/ν_x``).

**Why it shares no code with the global pricer it checks** (:mod:`privopt.routes.pricing.global_pricer`,
which it does not import — no module of this package imports a route):

- *rows*: re-derived here from the compiled groups and blocks, one auxiliary variable per block
  (``aᵀw <= r_k <= F bᵀw`` for every ``a ∈ A``, ``b ∈ B``; a direct row for a pair of single vectors);
  a pair of single inputs that a detour through another input bounds as tightly is left out, found by
  the checker's own closure of the pairs (:func:`redundant_pairs`, Floyd–Warshall). Leaving any row
  out only enlarges the set maximised over, so it can loosen the bound, never invalidate it (and a
  column the verdict uses to refute must lie in the cone, which it checks). The pricer states the
  projected or the lifted rows, with the implied pairs of the compiler's own test left out;
- *μ*: the whole of ``μ`` at any ``ν`` — ``scale·(Σ_x p_x w_x log w_x − q log q)`` with ``q = pᵀw`` a
  variable, the α-norm through its epigraph ``s^α <= Σ_x c_x w_x^α``, the perspective of ``f`` in the
  two variables ``u = aᵀw``, ``v = bᵀw`` — where the pricer states ``μ`` simplified on its own slice
  (``q = 1``, a power of a sum, a function of ``s = aᵀw`` alone);
- *box*: ``l <= w <= u`` from LPs over the cone's projected rows proved by their duals
  (:class:`~privopt.certificates.piecewise.SliceMaximiser`, the checker's own HiGHS model);
- *margin*: its own, :data:`~privopt.tolerances.CHECK_SPATIAL_RTOL` times ``1 + |D|`` plus the sum of
  the largest magnitudes of the objective's terms over the box (below).

**The margin.** SCIP computes ``D`` in floating point, its LPs solved to the dual feasibility tolerance
and its rows met to the feasibility tolerance set here (:data:`SCIP_TOLERANCE`); the error this makes
in ``D`` is at most that tolerance times the magnitudes its LPs add, ``Σ_x |λ_x| u_x`` for the linear
part and each nonlinear term's largest ``|value|`` over the box. The margin is
:data:`~privopt.tolerances.CHECK_SPATIAL_RTOL` (ten times the tolerance) times ``1 + |D|`` plus those
magnitudes; on 180 random slices checked against exact vertex enumeration, SCIP's ``D`` was never below
the maximum by more than ``7.5e-12`` of that scale. Every ``t log t`` is stated as ``(t + η) log(t + η)
− η log η`` (:data:`XLOGX_SHIFT`), which is ``>= t log t`` for ``t >= 0`` (its derivative exceeds ``1 + log t``
by ``log(1 + η/t) > 0``): the model is a relaxation, so its bound needs nothing added for it, and SCIP's
LP solver is never handed the unbounded slope of ``t log t`` at 0 (it aborted the process there). SCIP is asked to stop once ``D`` plus the margin is at most the claim (``limits/dual``),
so a claim with room is proved early. The best solution SCIP met is the proof's column: the verdict
recomputes its ratio and refutes the claim with it when it exceeds the claim.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from privopt.certificates.objective import xlogx
from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.certificates.piecewise import SliceMaximiser
from privopt.compiler.cone import RowCone
from privopt.compiler.estimate import VertexEstimate
from privopt.solvers.errors import BackendError, BackendTimeout
from privopt.solvers.subprocess_call import call_with_timeout
from privopt.tolerances import CHECK_SPATIAL_RTOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: The checker's SCIP models meet rows and LP reduced costs to this (``numerics/feastol`` and
#: ``numerics/dualfeastol``; SCIP's defaults are 1e-6 and 1e-7).
SCIP_TOLERANCE = 1e-10

#: ``η`` of the over-estimator ``(t + η) log(t + η) − η log η >= t log t`` stated for every ``t log t``
#: term (module docstring).
XLOGX_SHIFT = 1e-12

#: The method applies where the slice's McMullen bound on its vertex count exceeds 10^this: below it
#: the exact rational enumeration (:mod:`privopt.certificates.vertices`) keeps its cones (a 12-input
#: cycle of pairs: 10^2.8; the 6×6 grid: 10^17).
EXACT_FIRST_LOG10 = 6.0

#: Pairs of single inputs are closed under chaining on cones of at most this many inputs (cubic).
MAX_CLOSURE_INPUTS = 600

#: A detour within this (relative) of a pair's length makes the pair redundant (rounding of ``ε·d``).
DETOUR_RTOL = 1e-12

#: Columns at which a declared form is compared with the utility's ``μ``, and the agreement required.
SPOT_CHECKS = 32
FORM_RTOL = 1e-9

#: SCIP settings tried in turn when its LP solver fails on the model ("error in LP solver", seen on a
#: cube norm over per-input budgets): SoPlex without scaling solved every such case met. The
#: tolerances, and so the margin, are the same in every attempt.
LP_RETRIES: tuple[tuple[tuple[str, int], ...], ...] = ((), (("lp/scaling", 0),))

#: Seconds the child process gets past the deadline handed to SCIP (to report its bound, not be killed).
CHILD_GRACE = 2.0

#: Shortest time limit handed to SCIP (seconds).
MIN_SECONDS = 0.05

#: The perspective forms the checker states (``f`` as an expression); a user's ``f`` is not one.
PERSPECTIVE_KINDS = ("kl", "chi2", "hellinger", "tv")


@dataclass(frozen=True)
class SpatialMaximum:
    """SCIP's proved ``D`` on ``max R`` (``value``), the margin for its tolerances, the best column it met
    (``Σ = 1``; ``None`` if none), its tree's nodes and why it stopped short of the claim (if it did)."""

    value: float
    margin: float
    column: FloatArray | None
    nodes: int
    reason: str


def applicable(cone: RowCone, utility: SubConvexUtility, weights: FloatArray) -> NotProved | None:
    """``None`` when the method applies to a claim on ``(cone, utility)`` with ``ν = weights``, else why not."""
    if not np.all(np.asarray(weights) > 0.0):
        return NotProved(NotProvedReason.CLAIM, "the normalisation ν has a zero entry")
    if VertexEstimate.for_slice(cone.n_inputs, cone.n_rows).log10_bound <= EXACT_FIRST_LOG10:
        return NotProved(NotProvedReason.OTHER_METHOD, "the exact vertex enumeration is cheap here")
    return form_disagreement(utility, cone.n_inputs)


def form_value(utility: SubConvexUtility, columns: FloatArray) -> tuple[str, FloatArray] | None:
    """``μ`` of each column by the checker's own formula for the utility's declared form, and the
    form's name (``None``: no form the method states)."""
    entropy, power, perspective = utility.entropy_form(), utility.power_form(), utility.perspective_form()
    if entropy is not None:
        p = np.asarray(entropy.p, dtype=np.float64)
        return "entropy", entropy.scale * (p @ xlogx(columns) - xlogx(p @ columns))
    if power is not None:
        c = np.asarray(power.c, dtype=np.float64)
        return "power", (c @ columns**power.alpha) ** (1.0 / power.alpha)
    if perspective is None or perspective.kind not in PERSPECTIVE_KINDS:
        return None
    u = np.asarray(perspective.a, dtype=np.float64) @ columns
    v = np.asarray(perspective.b, dtype=np.float64) @ columns
    if perspective.kind == "tv":
        return "perspective", 0.5 * np.abs(u - v)
    if perspective.kind == "hellinger":
        return "perspective", 0.5 * (np.sqrt(u) - np.sqrt(v)) ** 2
    if perspective.kind == "chi2":
        return "perspective", (u - v) ** 2 / v
    return "perspective", xlogx(u) - u * np.log(v)


def form_disagreement(utility: SubConvexUtility, n: int) -> NotProved | None:
    """Why the utility's declared form is not one the method states, or does not agree with its ``μ``
    (at the unit columns and :data:`SPOT_CHECKS` random positive ones, within :data:`FORM_RTOL`)."""
    rng = np.random.default_rng(0)
    columns = np.hstack([np.eye(n) + 1e-3, rng.dirichlet(np.ones(n), size=SPOT_CHECKS).T])
    stated = form_value(utility, columns)
    if stated is None:
        return NotProved(
            NotProvedReason.UTILITY, "the utility declares no entropy, power or built-in perspective form"
        )
    name, values = stated
    expected = utility.mu(columns)
    if not np.all(np.abs(values - expected) <= FORM_RTOL * (1.0 + np.abs(expected))):
        return NotProved(NotProvedReason.UTILITY, f"its declared {name} form disagrees with μ")
    return None


def redundant_pairs(cone: RowCone) -> np.ndarray:
    """A boolean per block: a pair of single inputs ``w_a <= e^{L} w_b`` (``L > 0``) that a detour through
    another input, ``w_a <= e^{L_ac} w_c <= e^{L_ac + D_cb} w_b`` with ``D`` the shortest chains of pairs,
    bounds at least as tightly (within :data:`DETOUR_RTOL`); the model leaves them out (module docstring).
    """
    n = cone.n_inputs
    redundant = np.zeros(len(cone.blocks), dtype=bool)
    single: list[tuple[int, int, int, float]] = []
    for k, block in enumerate(cone.blocks):
        tops, bottoms = cone.groups[block.numerator].vectors, cone.groups[block.denominator].vectors
        if tops.shape[0] != 1 or bottoms.shape[0] != 1:
            continue
        top, bottom = np.flatnonzero(tops[0]), np.flatnonzero(bottoms[0])
        if top.size == 1 and bottom.size == 1 and top[0] != bottom[0]:
            length = block.log_factor + float(np.log(bottoms[0, bottom[0]] / tops[0, top[0]]))
            single.append((k, int(top[0]), int(bottom[0]), length))
    if not single or n > MAX_CLOSURE_INPUTS:
        return redundant
    direct = np.full((n, n), np.inf)
    for _, a, b, length in single:
        direct[a, b] = min(direct[a, b], length)
    chains = direct.copy()
    np.fill_diagonal(chains, 0.0)
    for c in range(n):  # Floyd–Warshall
        chains = np.minimum(chains, chains[:, c : c + 1] + chains[c : c + 1, :])
    for k, a, b, length in single:
        if length <= 0.0:
            continue
        detour = direct[a, :] + chains[:, b]
        detour[[a, b]] = np.inf
        if detour.min() <= length + DETOUR_RTOL * (1.0 + abs(length)):
            redundant[k] = True
    return redundant


class _Statement:
    """The checker's SCIP model of ``max μ(w) − λᵀw`` on ``{w ∈ K, νᵀw = 1}`` (module docstring)."""

    def __init__(
        self,
        cone: RowCone,
        utility: SubConvexUtility,
        nu: FloatArray,
        box: FloatArray,
        q_range: tuple[float, float],
    ) -> None:
        from pyscipopt import Model, quicksum

        self.model = model = Model()
        model.hideOutput()
        model.setParam("numerics/feastol", SCIP_TOLERANCE)
        model.setParam("numerics/dualfeastol", SCIP_TOLERANCE)
        low, high = box[:, 0], box[:, 1]
        self.low, self.high, self.q_range = low, high, q_range
        n = cone.n_inputs
        self.w = [model.addVar(f"w{x}", lb=float(low[x]), ub=float(high[x])) for x in range(n)]

        def linear(vector: FloatArray) -> Any:
            return quicksum(float(vector[x]) * self.w[x] for x in np.flatnonzero(vector))

        redundant = redundant_pairs(cone)
        for k, block in enumerate(cone.blocks):
            if redundant[k]:
                continue
            tops, bottoms = cone.groups[block.numerator].vectors, cone.groups[block.denominator].vectors
            factor = float(np.exp(block.log_factor))
            if tops.shape[0] == 1 and bottoms.shape[0] == 1:
                model.addCons(linear(tops[0]) - factor * linear(bottoms[0]) <= 0.0)
                continue
            reach = factor * float(np.min(bottoms @ high))
            r = model.addVar(f"r{k}", lb=0.0, ub=reach * (1.0 + 1e-9) + 1e-12)
            for top in tops:
                model.addCons(linear(top) <= r)
            for bottom in bottoms:
                model.addCons(r <= factor * linear(bottom))
        model.addCons(linear(nu) == 1.0)
        self.mu, self.magnitude = self._mu(utility)

    def _range(self, vector: FloatArray) -> tuple[float, float]:
        """Bounds of ``vectorᵀw`` over the box (``vector >= 0``)."""
        return float(vector @ self.low), float(vector @ self.high)

    def _mu(self, utility: SubConvexUtility) -> tuple[Any, float]:
        """``μ`` as an expression over the model's variables and the sum of its terms' largest
        ``|value|`` over the box."""
        from pyscipopt import log, quicksum, sqrt

        model, w = self.model, self.w
        entropy, power = utility.entropy_form(), utility.power_form()
        if entropy is not None:
            p, scale = np.asarray(entropy.p, dtype=np.float64), float(entropy.scale)
            q_low, q_high = self.q_range
            q = model.addVar("q", lb=q_low, ub=q_high)
            model.addCons(q == quicksum(float(p[x]) * w[x] for x in range(len(w))))
            terms = quicksum(float(p[x]) * _upper_xlogx(w[x]) for x in np.flatnonzero(p))
            ends = np.abs(_upper_xlogx_values(np.column_stack([self.low, self.high])))
            largest = p @ np.maximum(ends.max(axis=1), np.exp(-1.0)) + max(
                np.exp(-1.0), *np.abs(xlogx(np.array([q_low, q_high])))
            )
            return scale * (terms - q * log(q)), scale * float(largest)
        if power is not None:
            c, alpha = np.asarray(power.c, dtype=np.float64), float(power.alpha)
            top = float(c @ self.high**alpha)
            s = model.addVar("s", lb=0.0, ub=top ** (1.0 / alpha) * (1.0 + 1e-9) + 1e-12)
            model.addCons(s**alpha <= quicksum(float(c[x]) * w[x] ** alpha for x in np.flatnonzero(c)))
            return s, top ** (1.0 / alpha) + top
        form = utility.perspective_form()
        assert form is not None
        a, b = np.asarray(form.a, dtype=np.float64), np.asarray(form.b, dtype=np.float64)
        (u_low, u_high), (v_low, v_high) = self._range(a), self._range(b)
        u = model.addVar("u", lb=u_low, ub=u_high)
        v = model.addVar("v", lb=v_low, ub=v_high)
        model.addCons(u == quicksum(float(a[x]) * w[x] for x in range(len(w))))
        model.addCons(v == quicksum(float(b[x]) * w[x] for x in range(len(w))))
        size = max(u_high, v_high, 1.0)
        if v_low <= 0.0 and form.kind in ("kl", "chi2"):
            return 0.0, np.inf  # μ is unbounded where bᵀw reaches 0
        if form.kind == "kl":
            logs = np.abs(np.log([v_low, v_high]))
            largest = float(np.abs(xlogx(np.array([u_low, u_high]))).max())
            return _upper_xlogx(u) - u * log(v), max(largest, np.exp(-1.0)) + u_high * float(logs.max())
        if form.kind == "chi2":
            return (u - v) * (u - v) / v, size**2 / v_low
        if form.kind == "hellinger":
            return 0.5 * (u + v) - sqrt(u * v), 2.0 * size
        return 0.5 * abs(u - v), size


def _upper_xlogx(variable: Any) -> Any:
    """An expression ``>= t log t`` on ``t >= 0``: ``(t + η) log(t + η) − η log η`` (module docstring)."""
    from pyscipopt import log

    return (variable + XLOGX_SHIFT) * log(variable + XLOGX_SHIFT) - XLOGX_SHIFT * float(np.log(XLOGX_SHIFT))


def _upper_xlogx_values(t: FloatArray) -> FloatArray:
    return (t + XLOGX_SHIFT) * np.log(t + XLOGX_SHIFT) - XLOGX_SHIFT * np.log(XLOGX_SHIFT)


def _box(
    cone: RowCone, utility: SubConvexUtility, nu: FloatArray, deadline: float
) -> tuple[FloatArray, tuple[float, float]] | NotProved:
    """``[l_x, u_x]`` per input on the slice (rows of an ``n × 2`` array) and the range of ``pᵀw`` (the
    entropy form's ``q``; ``(0, 0)`` for other forms), each end proved by an LP's duals."""
    lp = SliceMaximiser(cone.matrix(), nu)

    def extremes(c: FloatArray) -> tuple[float, float] | NotProved:
        ends = []
        for sign in (-1.0, 1.0):
            found = lp.maximum(sign * c, deadline - time.perf_counter())
            if isinstance(found, NotProved):
                return found
            ends.append(sign * found[2])
        return ends[0], ends[1]

    n = cone.n_inputs
    box = np.zeros((n, 2))
    for x in range(n):
        found = extremes(np.eye(n)[x])
        if isinstance(found, NotProved):
            return NotProved(found.reason, f"bounding w_{x}: {found}")
        box[x] = found
    box[:, 0] = np.clip(box[:, 0], 0.0, None)
    box[:, 1] = np.maximum(box[:, 1], box[:, 0])
    entropy = utility.entropy_form()
    if entropy is None:
        return box, (0.0, 0.0)
    q_range = extremes(np.asarray(entropy.p, dtype=np.float64))
    if isinstance(q_range, NotProved):
        return NotProved(q_range.reason, f"bounding pᵀw: {q_range}")
    if not q_range[0] > 0.0:
        return NotProved(NotProvedReason.NUMERICS, "pᵀw reaches 0 on the slice")
    return box, q_range


def maximise_ratio(
    cone: RowCone,
    utility: SubConvexUtility,
    duals: FloatArray,
    weights: FloatArray,
    limit: float,
    deadline: float,
) -> SpatialMaximum | NotProved:
    """SCIP's proved bound on ``max R`` over the cone (module docstring), stopping once it proves
    ``<= limit``; or why there is none. SCIP runs in a child process (:func:`~privopt.solvers.subprocess_call.call_with_timeout`):
    stopped at the deadline whatever it is doing, and an abort of its LP solver is a failed proof,
    not a crash of the caller."""
    seconds = deadline - time.perf_counter()
    if seconds <= 0.0:
        return NotProved(NotProvedReason.DEADLINE, "the time limit was reached")
    try:
        found: SpatialMaximum | NotProved = call_with_timeout(
            _maximise,
            (
                cone,
                utility,
                np.asarray(duals, dtype=np.float64),
                np.asarray(weights, dtype=np.float64),
                limit,
                deadline,
            ),
            seconds + CHILD_GRACE,
            "certificate check: spatial branch and bound",
            progress=False,
        )
    except BackendTimeout:
        return NotProved(NotProvedReason.DEADLINE, f"SCIP did not finish within {seconds:.3g} s")
    except BackendError as exc:
        return NotProved(NotProvedReason.NUMERICS, f"SCIP failed: {exc}")
    return found


def _maximise(
    cone: RowCone, utility: SubConvexUtility, lam: FloatArray, nu: FloatArray, limit: float, deadline: float
) -> SpatialMaximum | NotProved:
    from pyscipopt import quicksum

    bounded = _box(cone, utility, nu, deadline)
    if isinstance(bounded, NotProved):
        return bounded
    box, q_range = bounded
    failure = ""
    for settings in LP_RETRIES:
        statement = _Statement(cone, utility, nu, box, q_range)
        magnitude = float(np.abs(lam) @ box[:, 1]) + statement.magnitude
        if not np.isfinite(magnitude):
            return NotProved(NotProvedReason.NUMERICS, "μ is not bounded on the slice (bᵀw reaches 0)")
        model = statement.model
        for name, value in settings:
            model.setParam(name, value)
        z = model.addVar("z", lb=None, ub=None)
        model.addCons(z <= statement.mu)
        model.setObjective(z - quicksum(float(lam[x]) * statement.w[x] for x in range(lam.size)), "maximize")
        # Stop once D + margin(D) <= limit: margin(D) <= margin(limit) while |D| <= |limit|.
        model.setParam("limits/dual", float(limit - _margin(limit, magnitude)))
        model.setParam("limits/time", float(max(deadline - time.perf_counter(), MIN_SECONDS)))
        try:
            model.optimize()
        except Exception as exc:  # pyscipopt raises a bare Exception for SCIP's return codes
            if "LP solver" not in str(exc):
                raise
            failure = str(exc)
            continue
        return _verdict(model, statement, magnitude)
    return NotProved(
        NotProvedReason.NUMERICS, f"SCIP's LP solver failed with every setting tried ({failure})"
    )


def _margin(bound: float, magnitude: float) -> float:
    """The margin on a dual bound ``D`` (module docstring)."""
    return CHECK_SPATIAL_RTOL * (1.0 + abs(bound) + magnitude)


def _verdict(model: Any, statement: _Statement, magnitude: float) -> SpatialMaximum:
    """The proved ``D`` plus its margin, and the best column SCIP met."""
    bound = float(model.getDualbound())
    column = None
    if model.getNSols() > 0:
        best = model.getBestSol()
        point = np.clip(np.array([model.getSolVal(best, v) for v in statement.w]), 0.0, None)
        if point.sum() > 0.0:
            column = point / point.sum()
    status = model.getStatus()
    reason = "" if status in ("optimal", "duallimit") else f"SCIP stopped: {status}"
    if not abs(bound) < 1e19:
        return SpatialMaximum(np.inf, 0.0, column, int(model.getNTotalNodes()), reason or "no bound")
    return SpatialMaximum(bound, _margin(bound, magnitude), column, int(model.getNTotalNodes()), reason)
