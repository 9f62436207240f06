"""The independent certificate checker: re-derive a route's bound from the problem data alone.

:func:`check_bound` receives the compiled cone, the utility and a bound a route claims
(:mod:`privopt.certificates.bounds`), never the route's code or its intermediate results, and proves
the bound by methods of its own (docs/compiler.md, "Certificates"):

- :class:`~privopt.certificates.bounds.SliceBound` — the largest ratio ``(μ(w) − λᵀw)/νᵀw`` over the
  cone, from its vertices: on envelope cones through their union-of-products structure and its finite
  event set (:mod:`privopt.certificates.envelope`); on LDP cones too large for that by a search over
  their staircase columns (:mod:`privopt.certificates.staircase`); on other envelope cones too large to
  enumerate by Lagrangian bounds and branch and bound (:mod:`privopt.certificates.lagrangian`); on LIP
  cones through their block masses (:mod:`privopt.certificates.lip`); for piecewise-linear utilities
  on any cone by one LP per piece, proved by its duals (:mod:`privopt.certificates.piecewise`); for
  f-divergences on any cone by the upper hull of a two-dimensional projection, each of its lines
  proved by LP duals (:mod:`privopt.certificates.fdivergence`); on any
  cone by exact rational enumeration (:mod:`privopt.certificates.vertices`);
- :class:`~privopt.certificates.bounds.LinearBound` — weak Lagrangian duality with the checker's own
  supergradient (:mod:`privopt.certificates.linear`);
- :class:`~privopt.certificates.bounds.TheoremBound` — the chain rule, re-derived
  (:mod:`privopt.certificates.theorem`).

Floating-point values are compared with a rounding margin computed from the magnitudes involved
(:data:`~privopt.tolerances.CHECK_ROUNDING_RTOL`), and a claim passes only when the proved bound is at
most the claimed one plus :data:`~privopt.tolerances.CERTIFICATE_ATOL` (relative to ``max(1, |upper|)``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from privopt.certificates import envelope, fdivergence, lagrangian, lip, piecewise, staircase, tree, vertices
from privopt.certificates.bounds import Bound, LinearBound, SliceBound, TheoremBound
from privopt.certificates.linear import linear_bound
from privopt.certificates.objective import core_mu
from privopt.certificates.theorem import chain_rule_bound
from privopt.compiler.cone import RowCone
from privopt.tolerances import CERTIFICATE_ATOL, CHECK_COLUMN_RTOL, CHECK_ROUNDING_RTOL, CHECK_SECONDS
from privopt.utilities import ConcaveUtility, FDivergence, SubConvexUtility
from privopt.validation import FloatArray

#: A theorem bound passes when the checker's rigorous value is within this (relative) of the claimed
#: one: routes compute it by an LP whose feasibility tolerance is ~1e-7, the checker bounds that LP by
#: its duals and every reduced cost (the solution then reports the larger, proved value).
THEOREM_RTOL = 1e-6


@dataclass(frozen=True, eq=False)
class CertificateCheck:
    """The checker's verdict on one bound.

    Attributes
    ----------
    valid:
        Whether the bound is proved (the claimed ``upper`` is at least what the checker proved).
    reason:
        Why it is valid or not (for a refuted claim, the number that refutes it).
    method:
        How the checker proved or refuted it.
    seconds:
        Time the check took.
    proved_upper:
        The bound the checker proved, in the utility's units (``None`` when it proved none); a valid
        check's may exceed the claimed one by the comparison's tolerance.
    column:
        A column of the cone that refutes the claim (``None`` unless one was found).
    refuted:
        Whether the claim is false: ``column`` exceeds the claimed ``δ̄``. A check that only proves a
        larger bound, or none, is not a refutation.
    proved_delta:
        For a slice bound the check did not prove: the larger ``δ̄`` it did prove, in the bound's core
        units (``None`` when it proved none); :func:`weaker_claim` turns it into a claim of its own.
    """

    valid: bool
    reason: str
    method: str
    seconds: float
    proved_upper: float | None = None
    column: FloatArray | None = None
    refuted: bool = False
    proved_delta: float | None = None

    def __bool__(self) -> bool:
        return self.valid

    def to_dict(self) -> dict[str, object]:
        return {
            "valid": self.valid,
            "reason": self.reason,
            "method": self.method,
            "seconds": self.seconds,
            "proved_upper": self.proved_upper,
            "proved_delta": self.proved_delta,
        }


def weaker_claim(bound: Bound, check: CertificateCheck) -> tuple[Bound, CertificateCheck] | None:
    """The weaker bound ``check`` proved instead of ``bound``, with a check that proves it; ``None`` if it
    proved none (docs/compiler.md, "Certificates": a proof of a weaker bound is a proof of that bound).

    A slice bound is weakened to the ``δ̄`` the checker proved (``proved_delta``: a proof the time limit
    stopped, or one whose rounding margin exceeds the claim's slack); a linear or theorem bound to the
    ``upper`` the checker proved (``proved_upper``: the multipliers or the theorem prove that much)."""
    if check.valid or check.refuted:
        return None
    weaker: Bound
    if isinstance(bound, SliceBound):
        if check.proved_delta is None:
            return None
        weaker = SliceBound.build(
            bound.duals,
            check.proved_delta,
            bound.normalisation,
            bound.weights,
            f"{bound.method} (weakened to the δ̄ the checker proved)",
        )
        claim = f"δ̄ <= {check.proved_delta:.6g}, not the claimed {bound.delta:.6g}: OPT <= {check.proved_upper:.9g}"
    else:
        if check.proved_upper is None or not np.isfinite(check.proved_upper):
            return None
        if isinstance(bound, LinearBound):
            weaker = LinearBound(
                bound.cone_duals,
                check.proved_upper,
                f"{bound.method} (weakened to the bound the checker proved)",
            )
        else:
            weaker = TheoremBound(bound.name, check.proved_upper, bound.parameters, bound.description)
        claim = f"OPT <= {check.proved_upper:.9g}, not the claimed {bound.upper:.9g}"
    reason = f"proved {claim} (the proof of the claim: {check.reason})"
    return weaker, CertificateCheck(True, reason, check.method, check.seconds, check.proved_upper)


def _refuse(reason: str, method: str, start: float) -> CertificateCheck:
    return CertificateCheck(False, reason, method, time.perf_counter() - start)


def _close(proved: float, claimed: float) -> bool:
    return proved <= claimed + CERTIFICATE_ATOL * max(1.0, abs(claimed))


def check_bound(
    cone: RowCone,
    utility: SubConvexUtility | ConcaveUtility,
    bound: Bound | None,
    *,
    mechanism: FloatArray | None = None,
    time_limit: float = CHECK_SECONDS,
) -> CertificateCheck:
    """Prove ``bound`` for the problem ``(cone, utility)`` (module docstring).

    ``mechanism`` (rows in the cone's input order) is needed by :class:`LinearBound`, whose
    supergradient is taken at the design. ``time_limit`` bounds the proof; a proof that does not
    finish is not valid (``reason`` says so), it is not a refutation.
    """
    start = time.perf_counter()
    if bound is None:
        return _refuse("the route produced no bound to check", "none", start)
    if isinstance(bound, SliceBound):
        return _check_slice(cone, utility, bound, start, time_limit)
    if isinstance(bound, LinearBound):
        return _check_linear(cone, utility, bound, mechanism, start)
    return _check_theorem(cone, utility, bound, start, time_limit)


def _check_slice(
    cone: RowCone,
    utility: SubConvexUtility | ConcaveUtility,
    bound: SliceBound,
    start: float,
    time_limit: float,
) -> CertificateCheck:
    method = "slice bound"
    if not isinstance(utility, SubConvexUtility):
        return _refuse("a slice bound needs a sub-convex utility", method, start)
    duals, weights = np.asarray(bound.duals), np.asarray(bound.weights)
    n = cone.n_inputs
    if duals.shape != (n,) or weights.shape != (n,):
        return _refuse(f"duals and weights for the cone's {n} inputs expected", method, start)
    numbers = np.concatenate([duals, weights, [bound.delta, bound.upper]])
    if not np.all(np.isfinite(numbers)):
        return _refuse("the certificate holds a value that is not finite (NaN or ±inf)", method, start)
    if np.any(weights < 0.0):
        return _refuse("the normalisation ν has a negative entry", method, start)
    claimed = float(np.sum(duals)) + float(np.sum(weights)) * max(0.0, bound.delta)
    if not abs(claimed - bound.upper) <= CERTIFICATE_ATOL * max(1.0, abs(claimed)):
        return _refuse(f"upper {bound.upper!r} is not Σλ + (Σν)·max(0, δ̄) = {claimed!r}", method, start)
    deadline = start + time_limit
    form = envelope.envelope_form(cone)
    lip_cone = lip.lip_form(cone) if isinstance(form, str) else "an envelope cone"
    found: (
        envelope.EnvelopeMaximum
        | vertices.VertexMaximum
        | lip.LipMaximum
        | staircase.StaircaseMaximum
        | piecewise.PiecewiseMaximum
        | fdivergence.FDivergenceMaximum
        | str
    )
    linear_pieces = piecewise.pieces(utility, n)
    if not isinstance(form, str) and envelope.work_estimate(form) <= envelope.MAX_WORK:
        method = "envelope cone: every product of block vertices at every event of ρ"
        found = envelope.maximise_ratio(form, utility, duals, weights, deadline)
    elif not isinstance(form, str) and staircase.applies(form, utility):
        method = "LDP cone: every staircase column, by the checker's own search"
        limit = bound.delta + CERTIFICATE_ATOL * max(1.0, abs(float(np.sum(duals))))
        found = staircase.maximise_ratio(form, utility, duals, weights, bound.delta, limit, deadline)
    elif not isinstance(form, str) and lagrangian.applicability(form, utility, weights) is None:
        return _check_large_envelope(cone, form, utility, bound, start, deadline)
    elif not isinstance(lip_cone, str) and lip.applicable(lip_cone, utility, weights) is None:
        method = "LIP cone: every vertex of the block masses, the best input of each block"
        found = lip.maximise_ratio(lip_cone, utility, duals, deadline)
    elif tree.applicability(utility, weights) is None and not isinstance(
        tree_cone := tree.tree_form(cone), str
    ):
        return _check_tree(cone, tree_cone, utility, bound, start, deadline)
    elif isinstance(utility, FDivergence) and fdivergence.applicable(utility, weights) is None:
        method = (
            "f-divergence: the upper hull of (P0ᵀw, −λᵀw), lines proved by LP duals over the projected rows"
        )
        found = fdivergence.maximise_ratio(cone, utility, duals, weights, deadline)
    elif not isinstance(linear_pieces, str) and np.all(weights > 0.0):
        method = "piecewise-linear utility: one LP per piece over the projected rows, proved by its duals"
        found = piecewise.maximise_ratio(cone, linear_pieces, duals, weights, deadline)
    else:
        method = "exact vertex enumeration of the slice (pplpy, rational arithmetic)"
        found = vertices.maximise_ratio(
            cone, utility, duals, weights, max(deadline - time.perf_counter(), 0.01)
        )
    seconds = time.perf_counter() - start
    if isinstance(found, str):
        return CertificateCheck(False, f"not proved: {found}", method, seconds)
    delta = found.value + found.margin
    proved = utility.from_core(float(np.sum(duals)) + float(np.sum(weights)) * max(0.0, delta))
    if isinstance(found, envelope.EnvelopeMaximum | lip.LipMaximum):
        method += f" ({found.points} points)"
    elif isinstance(found, piecewise.PiecewiseMaximum | fdivergence.FDivergenceMaximum):
        method += f" ({found.points} LPs)"
    elif isinstance(found, staircase.StaircaseMaximum):
        method += f" ({found.nodes:,} nodes)"
    else:
        method += f" ({found.vertices} vertices)"
    tolerance = CERTIFICATE_ATOL * max(1.0, abs(float(np.sum(duals))))
    if found.value > bound.delta + tolerance:
        return CertificateCheck(
            False,
            f"refuted: a column of the cone has (μ(w) − λᵀw)/νᵀw = {found.value:.9g} > the claimed "
            f"δ̄ = {bound.delta:.9g}",
            method,
            seconds,
            proved,
            found.column,
            refuted=True,
        )
    if delta > bound.delta + tolerance:  # the best column is within the claim, its proof's margin is not
        return CertificateCheck(
            False,
            f"not proved: the best column found has {found.value:.9g}, but the proof reaches only "
            f"δ̄ <= {delta:.9g} against the claimed {bound.delta:.9g}",
            method,
            seconds,
            proved,
            proved_delta=float(delta),
        )
    return CertificateCheck(
        True, f"proved δ̄ <= {delta:.6g}: OPT <= {proved:.9g}", method, seconds, proved, None
    )


def _check_large_envelope(
    cone: RowCone,
    form: envelope.EnvelopeForm,
    utility: SubConvexUtility,
    bound: SliceBound,
    start: float,
    deadline: float,
) -> CertificateCheck:
    """A slice bound on an envelope cone too large to enumerate: proved by
    :func:`~privopt.certificates.lagrangian.prove_ratio_bound` up to the comparison's tolerance, or refuted
    by a column of the cone whose ratio, recomputed here, exceeds the claim."""
    duals, weights = np.asarray(bound.duals), np.asarray(bound.weights)
    limit = bound.delta + CERTIFICATE_ATOL * max(1.0, abs(float(np.sum(duals))))
    proof = lagrangian.prove_ratio_bound(form, utility, duals, weights, limit, deadline)
    method = (
        "envelope cone: Lagrangian bounds, branch and bound over (s*, ρ) and block masses "
        f"({proof.points} points, {proof.intervals} intervals, {proof.nodes} nodes)"
    )
    partial = np.inf if proof.proved else proof.upper
    return _verdict(
        cone,
        utility,
        bound,
        limit,
        (proof.proved, proof.upper, proof.column, proof.reason),
        method,
        start,
        partial,
    )


def _check_tree(
    cone: RowCone,
    form: tree.TreeForm,
    utility: SubConvexUtility,
    bound: SliceBound,
    start: float,
    deadline: float,
) -> CertificateCheck:
    """A slice bound on a tree cone: proved by :func:`~privopt.certificates.tree.prove_ratio_bound` up to
    the comparison's tolerance, or refuted by a column whose ratio, recomputed here, exceeds the claim."""
    duals, weights = np.asarray(bound.duals), np.asarray(bound.weights)
    limit = bound.delta + CERTIFICATE_ATOL * max(1.0, abs(float(np.sum(duals))))
    proof = tree.prove_ratio_bound(form, utility, duals, weights, limit, deadline)
    method = (
        f"tree cone: Lagrangian bounds over lattice walks, bisection of level ranges ({proof.nodes} nodes)"
    )
    return _verdict(
        cone, utility, bound, limit, (proof.proved, limit, proof.column, proof.reason), method, start
    )


def _verdict(
    cone: RowCone,
    utility: SubConvexUtility,
    bound: SliceBound,
    limit: float,
    proof: tuple[bool, float, FloatArray | None, str],
    method: str,
    start: float,
    partial: float = np.inf,
) -> CertificateCheck:
    """The check of a bound-proving method's outcome ``(proved, upper, column, reason)``: proved, or refuted
    by ``column`` when its ratio, recomputed here, exceeds ``limit``, or not proved (with ``partial``, a
    larger ``δ̄`` the method did prove, as ``proved_delta`` when finite)."""
    proved, upper, column, reason = proof
    duals, weights = np.asarray(bound.duals), np.asarray(bound.weights)
    seconds = time.perf_counter() - start
    if proved:
        total = utility.from_core(float(np.sum(duals)) + float(np.sum(weights)) * max(0.0, upper))
        return CertificateCheck(
            True, f"proved δ̄ <= {upper:.6g}: OPT <= {total:.9g}", method, seconds, total, None
        )
    if column is not None:
        mu = float(core_mu(utility, column[:, None])[0])
        mass = float(weights @ column)
        ratio = (mu - float(duals @ column)) / mass
        margin = CHECK_ROUNDING_RTOL * (abs(mu) + float(np.abs(duals) @ column) + 1.0) / mass
        if ratio - margin > limit and cone.violation(column[:, None]) <= CHECK_COLUMN_RTOL:
            return CertificateCheck(
                False,
                f"refuted: a column of the cone has (μ(w) − λᵀw)/νᵀw = {ratio:.9g} > the claimed "
                f"δ̄ = {bound.delta:.9g}",
                method,
                seconds,
                None,
                column,
                refuted=True,
            )
    if np.isfinite(partial):
        total = utility.from_core(float(np.sum(duals)) + float(np.sum(weights)) * max(0.0, partial))
        return CertificateCheck(
            False,
            f"not proved: {reason}; the proof reached δ̄ <= {partial:.6g} (OPT <= {total:.9g})",
            method,
            seconds,
            total,
            proved_delta=float(partial),
        )
    return CertificateCheck(False, f"not proved: {reason}", method, seconds)


def _check_linear(
    cone: RowCone,
    utility: SubConvexUtility | ConcaveUtility,
    bound: LinearBound,
    mechanism: FloatArray | None,
    start: float,
) -> CertificateCheck:
    method = "Lagrangian dual of the linearised utility (the checker's own supergradient)"
    if not isinstance(utility, ConcaveUtility):
        return _refuse("a linear bound needs a concave utility", method, start)
    if mechanism is None:
        return _refuse("the design is needed to check a linear bound", method, start)
    duals = bound.cone_duals
    entries = duals.data if sp.issparse(duals) else np.asarray(duals, dtype=np.float64)
    if not (np.all(np.isfinite(entries)) and np.isfinite(bound.upper)):
        return _refuse("the certificate holds a value that is not finite (NaN or ±inf)", method, start)
    found = linear_bound(cone, utility, np.asarray(mechanism, dtype=np.float64), duals)
    seconds = time.perf_counter() - start
    if isinstance(found, str):
        return CertificateCheck(False, f"not proved: {found}", method, seconds)
    value, margin = found
    proved = value + margin
    if not _close(proved, bound.upper):
        return CertificateCheck(
            False, f"not proved: the multipliers prove only {proved:.9g} > the claimed {bound.upper:.9g}",
            method, seconds, proved,
        )  # fmt: skip
    return CertificateCheck(True, f"proved OPT <= {proved:.9g}", method, seconds, proved)


def _check_theorem(
    cone: RowCone,
    utility: SubConvexUtility | ConcaveUtility,
    bound: TheoremBound,
    start: float,
    time_limit: float,
) -> CertificateCheck:
    method = f"theorem bound ({bound.name}), re-derived"
    if not np.isfinite(bound.value):
        return _refuse("the certificate holds a value that is not finite (NaN or ±inf)", method, start)
    if bound.name != "chain rule":
        return _refuse(f"the checker does not know the theorem {bound.name!r}", method, start)
    found = chain_rule_bound(cone, utility, bound.parameters, start + time_limit)
    seconds = time.perf_counter() - start
    if isinstance(found, str):
        return CertificateCheck(False, f"not proved: {found}", method, seconds)
    if not found <= bound.value + THEOREM_RTOL * max(1.0, abs(bound.value)):
        return CertificateCheck(
            False, f"not proved: the theorem gives only {found:.9g} > the claimed {bound.value:.9g}",
            method, seconds, found,
        )  # fmt: skip
    return CertificateCheck(True, f"proved OPT <= {found:.9g}", method, seconds, found)
