"""Independent reporting (IR): Entropy paper §7, Theorems 5 and 6 (ISIT paper Protocol 1, Theorem 3).

IR reports ``S`` and ``U`` through two separate LDP mechanisms, ``Y = (R1(S), R2(U))``; on
``X = S × U`` (s-major) its channel is the Kronecker product ``R1 ⊗ R2``.

**Privacy (Theorem 5).** If ``R1`` is ε1-LDP and ``R2`` is δ2-LDP with

    d  = min{2, max_s 2 d_s + max_{s,s'} ||P̂(·|s) − P̂(·|s')||₁},    d_s >= rad_s(F),
    δ2 = log(1 + 2(e^{ε2} − 1)/d),

then IR is (ε1 + ε2, F)-RLDP. The proof only uses ``||P(·|s) − P̂(·|s)||₁ <= d_s`` for each ``s``
separately, so the guarantee holds over the product of the conditional projections ``F_{U|s}`` —
exactly the set whose worst case the robust audit's upper end measures.

**Utility (Theorem 6).** ``I(X; Y) = I(R1(S); S) + I(R2(U); U | R1(S))``. With ``R1 = GRR^{ε−ε2}`` and
``R2 = GRR^{δ2}`` (the paper's choice) only the split ``ε2 ∈ [0, ε]`` is left: a 1-D problem, solved by
:func:`maximise_on_interval` (the objective can have a boundary optimum and an interior local
minimum, as in Example 5, so a coarse scan precedes the bounded refinements).

``d_s``: ISIT eq. (11) is the closed form of ``rad_s`` for ``χ²`` sets — with
``a_s = e^{B_s} − 1`` it is Prop. 2.2's ``2P̂_{u_s|s}(ξ⁺(P̂_{u_s|s}) − 1)`` when ``a_s >= 1`` and the
bound ``√a_s`` of Prop. 2.3 otherwise. privopt takes ``d_s = rad_s`` from
:meth:`~privopt.RenyiBall.l1_radius` (exact for ``|U| <= 16``), which is never larger than eq. (11).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from privopt.audit import AuditReport, audit
from privopt.callables import call, returned
from privopt.data.mechanism import Mechanism
from privopt.definitions import SensitiveLDP
from privopt.errors import CallableError, InfeasibleError, PrivoptError, SolverError, ValidationError
from privopt.mechanisms.randomized_response import grr
from privopt.sets.renyi import RenyiBall
from privopt.tolerances import COMPONENT_EPS_MAX, SPLIT_XTOL
from privopt.utilities import ConcaveUtility, MutualInformation, SubConvexUtility, as_utility
from privopt.validation import FloatArray, check_eps, check_positive_int

#: A component mechanism: ``factory(k, eps)`` returns an eps-LDP mechanism on ``k`` symbols.
ComponentFactory = Callable[[int, float], Mechanism]

#: Default number of points of the coarse scan that precedes the bounded 1-D refinements.
DEFAULT_SCAN_POINTS = 33


# ---------------------------------------------------------------------------------------------
# the 1-D search shared by independent and conditional reporting
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class IntervalMaximum:
    """The result of :func:`maximise_on_interval`: the best point, its value and the effort spent."""

    argmax: float
    value: float
    evaluations: int
    refined: int


def maximise_on_interval(
    objective: Callable[[float], float | None],
    low: float,
    high: float,
    *,
    scan_points: int = DEFAULT_SCAN_POINTS,
    xtol: float = SPLIT_XTOL,
    what: str = "t",
) -> IntervalMaximum:
    """Maximise a continuous ``objective`` on ``[low, high]``; ``None`` or a non-finite value marks an
    infeasible point.

    1. Evaluate a uniform scan of ``scan_points`` points, endpoints included (so boundary optima are
       seen directly).
    2. Around every local maximum of the scan — interior or at an endpoint — run Brent's bounded
       method on the bracket formed by its scan neighbours (this finds each of several local optima,
       and an interior optimum next to a boundary).
    3. Return the best point among the scan and the refinements.

    Raises :class:`~privopt.errors.InfeasibleError` when no scanned point is feasible.
    """
    scan_points = check_positive_int(scan_points, "scan_points", 2)
    count = 0

    def value(t: float) -> float:
        nonlocal count
        count += 1
        result = objective(t)
        return -np.inf if result is None or not np.isfinite(result) else float(result)

    if high - low <= xtol:
        best = value(low)
        if not np.isfinite(best):
            raise InfeasibleError(f"the 1-D search over {what} = {low:.6g} found no feasible point")
        return IntervalMaximum(low, best, count, 0)
    grid = np.linspace(low, high, scan_points)
    values = np.array([value(t) for t in grid])
    feasible = np.isfinite(values)
    if not feasible.any():
        raise InfeasibleError(
            f"the 1-D search over {what} ∈ [{low:.6g}, {high:.6g}] found no feasible point "
            f"among {scan_points} scanned values"
        )
    # Infeasible points enter Brent's method as a finite value below every feasible one.
    floor = float(values[feasible].min()) - 1.0
    # A local maximum is at least its neighbours and strictly above one of them (a flat stretch has
    # nothing to refine).
    peaks = []
    for position in np.flatnonzero(feasible).tolist():
        neighbours = values[max(position - 1, 0) : position + 2]
        neighbours = np.delete(neighbours, min(position, 1))
        if np.all(values[position] >= neighbours) and np.any(values[position] > neighbours):
            peaks.append(position)
    candidates = [(float(values[i]), float(grid[i])) for i in np.flatnonzero(feasible)]
    for i in peaks:
        bracket = (float(grid[max(i - 1, 0)]), float(grid[min(i + 1, scan_points - 1)]))
        result = minimize_scalar(
            lambda t: -max(value(t), floor), bounds=bracket, method="bounded", options={"xatol": xtol}
        )
        refined = value(float(result.x))
        if np.isfinite(refined):
            candidates.append((refined, float(result.x)))
    best_value, best_t = max(candidates)
    return IntervalMaximum(best_t, best_value, count, len(peaks))


# ---------------------------------------------------------------------------------------------
# Theorem 5's ingredients
# ---------------------------------------------------------------------------------------------
def check_renyi_ball(F: object) -> RenyiBall:
    """``F`` must be a :class:`~privopt.RenyiBall` (Theorem 5 needs the ℓ1 radii of its projections)."""
    if not isinstance(F, RenyiBall):
        raise ValidationError(
            "F",
            "a po.RenyiBall (the theorems need the ℓ1 radii rad_s of its conditional projections)",
            type(F).__name__,
        )
    return F


def projection_l1_radii(F: RenyiBall, method: str = "auto") -> FloatArray:
    """``rad_s = max_{R ∈ F_{U|s}} ||R − P̂(·|s)||₁`` for every ``s`` (Entropy paper eq. 20, Prop. 1),
    from :meth:`~privopt.RenyiBall.l1_radius` (exact up to |U| = 16, including conditionals with zeros,
    where mass can move onto the zero set; a valid upper bound beyond)."""
    F = check_renyi_ball(F)
    return np.array([min(F.l1_radius(s, method), 2.0) for s in range(F.n_s)])


def independent_reporting_d(F: RenyiBall, method: str = "auto") -> float:
    """Theorem 5's ``d = min{2, max_s 2 rad_s + max_{s,s'} ||P̂(·|s) − P̂(·|s')||₁}``."""
    F = check_renyi_ball(F)
    conditional = F.center.conditional_u_given_s()
    spread = np.abs(conditional[:, None, :] - conditional[None, :, :]).sum(axis=2).max()
    return float(min(2.0, 2.0 * projection_l1_radii(F, method).max() + spread))


def relaxed_eps(eps2: float, d: float | FloatArray) -> float | FloatArray:
    """``δ = log(1 + 2(e^{ε2} − 1)/d)`` (Theorem 5's δ2; ISIT Theorem 5's δ_s with ``d = d_s``).

    The privacy level a component on ``U`` may have so that it leaks at most ``ε2`` about ``S`` (Lemma
    3). ``d = 0`` gives ``∞`` (capped at :data:`~privopt.tolerances.COMPONENT_EPS_MAX`) when ``ε2 > 0``.
    """
    d = np.asarray(d, dtype=np.float64)
    growth = 2.0 * np.expm1(eps2)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(d > 0.0, np.log1p(growth / np.where(d > 0.0, d, 1.0)), np.inf if growth > 0 else 0.0)
    value = np.minimum(value, COMPONENT_EPS_MAX)
    return float(value) if value.ndim == 0 else value


def check_split(eps: float, eps2: float) -> tuple[float, float]:
    """``ε >= 0`` and ``ε2 ∈ [0, ε]``."""
    eps = check_eps(eps)
    eps2 = check_eps(eps2, "eps2")
    if eps2 > eps:
        raise ValidationError("eps2", f"a split 0 <= ε2 <= ε = {eps:.6g}", repr(eps2))
    return eps, eps2


def labelled_grr(labels: tuple[object, ...]) -> ComponentFactory:
    """GRR whose inputs and outputs carry ``labels`` (the paper's component for IR and CR)."""
    return lambda k, eps: grr(k, eps, labels)


def check_design(mechanism: Mechanism, F: RenyiBall, eps: float, family: str) -> AuditReport:
    """Audit a designed mechanism against ``(ε, F)``-RLDP; raise :class:`SolverError` if it fails."""
    report = audit(mechanism, SensitiveLDP(eps, F))
    if not report.satisfied:
        raise SolverError(f"{family} fails its own robust audit — {report}")
    return report


# ---------------------------------------------------------------------------------------------
# independent reporting
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class IndependentReporting:
    """An IR design: the mechanism ``R1 ⊗ R2`` on ``X = S × U`` and how it was chosen.

    Attributes
    ----------
    mechanism:
        The channel, inputs in s-major order, outputs ``(y1, y2)``.
    eps, eps1, eps2:
        The budget and its split (``eps1 = eps − eps2`` for ``R1``).
    delta2:
        The LDP level of ``R2`` (Theorem 5).
    d:
        Theorem 5's ``d``.
    value:
        The utility of ``mechanism``.
    audit:
        The robust audit of ``mechanism`` against ``(eps, F)``-RLDP (``None`` if not requested).
    evaluations:
        Objective evaluations spent by the 1-D search.
    """

    mechanism: Mechanism
    eps: float
    eps1: float
    eps2: float
    delta2: float
    d: float
    value: float
    audit: AuditReport | None
    evaluations: int


#: What a component factory must do (named in errors).
FACTORY = "a factory (k, eps) -> Mechanism such as po.mechanisms.grr"


def component(factory: ComponentFactory, argument: str, k: int, eps: float) -> Mechanism:
    """``factory(k, eps)``: a :class:`~privopt.Mechanism`, or a :class:`~privopt.errors.CallableError`
    naming the factory (:mod:`privopt.callables`)."""
    mechanism = call(factory, argument, FACTORY, k, eps)
    if not isinstance(mechanism, Mechanism):
        raise returned(factory, argument, FACTORY, mechanism)
    return mechanism


def _components(
    F: RenyiBall, R1: ComponentFactory | None, R2: ComponentFactory | None
) -> tuple[ComponentFactory, ComponentFactory]:
    P = F.center
    first = R1 if R1 is not None else labelled_grr(P.s_labels)
    second = R2 if R2 is not None else labelled_grr(P.u_labels)
    for name, factory in (("R1", first), ("R2", second)):
        if not callable(factory):
            raise ValidationError(name, FACTORY, type(factory).__name__)
    return first, second


def _ir_mechanism(
    F: RenyiBall, eps: float, eps2: float, d: float, R1: ComponentFactory, R2: ComponentFactory
) -> Mechanism:
    P = F.center
    delta2 = relaxed_eps(eps2, d)
    product = component(R1, "R1", P.n_s, eps - eps2).kron(component(R2, "R2", P.n_u, float(delta2)))
    if product.n_inputs != P.n_x:
        raise ValidationError(
            "R1, R2", f"components on |S| = {P.n_s} and |U| = {P.n_u} symbols", f"{product.n_inputs} inputs"
        )
    name = f"IR(eps={eps:.4g}, eps2={eps2:.4g})"
    return Mechanism(product.matrix, P.x_labels, product.output_labels, name=name)


def independent_reporting_at(
    F: RenyiBall,
    eps: float,
    eps2: float,
    *,
    R1: ComponentFactory | None = None,
    R2: ComponentFactory | None = None,
) -> Mechanism:
    """IR at a fixed split: ``R1(|S|, ε − ε2) ⊗ R2(|U|, δ2)`` with Theorem 5's ``δ2`` (not audited).

    ``R1``, ``R2`` are factories ``(k, eps) -> Mechanism`` of eps-LDP mechanisms (default: GRR).
    """
    F = check_renyi_ball(F)
    eps, eps2 = check_split(eps, eps2)
    first, second = _components(F, R1, R2)
    return _ir_mechanism(F, eps, eps2, independent_reporting_d(F), first, second)


def independent_reporting(
    F: RenyiBall,
    eps: float,
    *,
    R1: ComponentFactory | None = None,
    R2: ComponentFactory | None = None,
    utility: SubConvexUtility | ConcaveUtility | None = None,
    scan_points: int = DEFAULT_SCAN_POINTS,
    verify_audit: bool = True,
) -> IndependentReporting:
    """The best IR mechanism for ``(ε, F)``-RLDP (Entropy paper §7, eq. 81).

    Maximises ``utility`` (default ``I_P̂(X;Y)``) over the split ``ε2 ∈ [0, ε]`` with
    :func:`maximise_on_interval`; ``R1 = R1(|S|, ε − ε2)``, ``R2 = R2(|U|, δ2)`` (default: GRR, the
    paper's choice). Unless ``verify_audit=False`` the result is audited against
    ``SensitiveLDP(ε, F)`` and a failure raises :class:`~privopt.errors.SolverError` — the guarantee is
    checked, not taken from the theorem.

    Examples
    --------
    Entropy paper Example 5 (``d = 1.4591``, optimum at the boundary ``ε2 = log 2``, ``I = 0.0755``)::

        >>> import numpy as np, privopt as po
        >>> P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100)
        >>> design = po.mechanisms.independent_reporting(po.RenyiBall.confidence(P), np.log(2))
        >>> round(design.d, 4), round(design.eps2, 4), round(design.value, 4)
        (1.4591, 0.6931, 0.0755)
    """
    F = check_renyi_ball(F)
    eps = check_eps(eps)
    first, second = _components(F, R1, R2)
    utility = as_utility(utility) if utility is not None else MutualInformation(F.center)
    d = independent_reporting_d(F)

    def objective(eps2: float) -> float | None:
        try:
            mechanism = _ir_mechanism(F, eps, eps2, d, first, second)
        except CallableError:  # the user's factory failed: say so, never skip the split silently
            raise
        except PrivoptError:  # a component refused this level: an infeasible split
            return None
        return utility.value(mechanism)

    best = maximise_on_interval(objective, 0.0, eps, scan_points=scan_points, what="ε2")
    mechanism = _ir_mechanism(F, eps, best.argmax, d, first, second)
    report = check_design(mechanism, F, eps, "independent reporting") if verify_audit else None
    return IndependentReporting(
        mechanism=mechanism,
        eps=eps,
        eps1=eps - best.argmax,
        eps2=best.argmax,
        delta2=float(relaxed_eps(best.argmax, d)),
        d=d,
        value=best.value,
        audit=report,
        evaluations=best.evaluations,
    )
