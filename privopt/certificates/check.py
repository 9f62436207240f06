"""The independent certificate checker: re-derive a route's bound from the problem data alone.

:func:`check_bound` receives the compiled cone, the utility and a bound a route claims
(:mod:`privopt.certificates.claims`), never the route's code or its intermediate results, and proves
the bound by methods of its own (docs/compiler.md, "Certificates"):

- :class:`~privopt.certificates.claims.SliceBound` — the largest ratio ``(μ(w) − λᵀw)/νᵀw`` over the
  cone, by the first registered method that applies (:mod:`privopt.certificates.methods`): on envelope cones through their union-of-products structure and its finite
  event set (:mod:`privopt.certificates.envelope`); on LDP cones too large for that by a search over
  their staircase columns (:mod:`privopt.certificates.staircase`); on other envelope cones too large to
  enumerate by Lagrangian bounds and branch and bound (:mod:`privopt.certificates.lagrangian`); on LIP
  cones through their block masses (:mod:`privopt.certificates.lip`); for piecewise-linear utilities
  on any cone by one LP per piece, proved by its duals (:mod:`privopt.certificates.piecewise`); for
  f-divergences on any cone by the upper hull of a two-dimensional projection, each of its lines
  proved by LP duals (:mod:`privopt.certificates.fdivergence`); on any
  cone by exact rational enumeration (:mod:`privopt.certificates.vertices`);
- :class:`~privopt.certificates.claims.LinearBound` — weak Lagrangian duality with the checker's own
  supergradient (:mod:`privopt.certificates.linear`);
- :class:`~privopt.certificates.claims.TheoremBound` — the chain rule, re-derived
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

from privopt.certificates.claims import Bound, LinearBound, SliceBound, TheoremBound
from privopt.certificates.linear import linear_bound
from privopt.certificates.methods import Proof, SliceContext, attempt, methods_for
from privopt.certificates.objective import core_mu
from privopt.certificates.outcome import NotProved
from privopt.certificates.theorem import chain_rule_bound
from privopt.compiler.cone import RowCone
from privopt.tolerances import (
    CERTIFICATE_ATOL,
    CHECK_COLUMN_RTOL,
    CHECK_ROUNDING_RTOL,
    CHECK_SECONDS,
    CHECK_THEOREM_RTOL,
)
from privopt.utilities import ConcaveUtility, SubConvexUtility
from privopt.validation import FloatArray


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
        view = utility.pieces_view()  # an affine utility: its piecewise-linear sub-convex view
        if view is None:
            return _refuse("a slice bound needs a sub-convex (or affine) utility", method, start)
        utility = view
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
    limit = bound.delta + CERTIFICATE_ATOL * max(1.0, abs(float(np.sum(duals))))
    context = SliceContext(cone, utility, duals, weights, bound.delta, limit, start + time_limit)
    chosen, refusals = methods_for(context)
    if not chosen:
        return _refuse("no checker method applies — " + "; ".join(refusals), method, start)
    failures: list[str] = []
    for candidate in chosen:
        if failures and time.perf_counter() >= context.deadline:
            break
        proof = attempt(candidate, context)
        if isinstance(proof, NotProved):  # not proved in its time: the next method that applies tries
            failures.append(f"{candidate.name}: {proof}")
            continue
        return _verdict(cone, utility, bound, limit, proof, f"{candidate.description} ({proof.work})", start)
    return CertificateCheck(
        False,
        "not proved: " + "; ".join(failures),
        chosen[len(failures) - 1].description,
        time.perf_counter() - start,
    )


def _verdict(
    cone: RowCone,
    utility: SubConvexUtility,
    bound: SliceBound,
    limit: float,
    proof: Proof,
    method: str,
    start: float,
) -> CertificateCheck:
    """The check of a method's :class:`~privopt.certificates.methods.Proof` of ``max R <= proof.bound``:
    refuted by its column when that column's ratio, recomputed here, exceeds ``limit`` (the claim plus the
    comparison's tolerance) and it lies in the cone; proved when ``proof.bound <= limit``; otherwise not
    proved, with the weaker ``δ̄`` it did prove as ``proved_delta`` (:func:`weaker_claim`)."""
    duals, weights = np.asarray(bound.duals), np.asarray(bound.weights)
    seconds = time.perf_counter() - start

    def total(delta: float) -> float:
        return utility.from_core(float(np.sum(duals)) + float(np.sum(weights)) * max(0.0, delta))

    proved = total(proof.bound) if np.isfinite(proof.bound) else None
    if proof.column is not None:
        column = proof.column
        mass = float(weights @ column)
        if mass > 0.0:
            mu = float(core_mu(utility, column[:, None])[0])
            ratio = (mu - float(duals @ column)) / mass
            margin = CHECK_ROUNDING_RTOL * (abs(mu) + float(np.abs(duals) @ column) + 1.0) / mass
            if ratio - margin > limit and cone.violation(column[:, None]) <= CHECK_COLUMN_RTOL:
                return CertificateCheck(
                    False,
                    f"refuted: a column of the cone has (μ(w) − λᵀw)/νᵀw = {ratio:.9g} > the claimed "
                    f"δ̄ = {bound.delta:.9g}",
                    method,
                    seconds,
                    proved,
                    column,
                    refuted=True,
                )
    if proved is not None and proof.bound <= limit:
        return CertificateCheck(
            True, f"proved δ̄ <= {proof.bound:.6g}: OPT <= {proved:.9g}", method, seconds, proved, None
        )
    if proved is not None:
        why = f" ({proof.reason})" if proof.reason else ""
        return CertificateCheck(
            False,
            f"not proved: the proof reaches only δ̄ <= {proof.bound:.9g} against the claimed "
            f"{bound.delta:.9g}{why} (OPT <= {proved:.9g})",
            method,
            seconds,
            proved,
            proved_delta=float(proof.bound),
        )
    return CertificateCheck(False, f"not proved: {proof.reason or 'no bound'}", method, seconds)


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
    if isinstance(found, NotProved):
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
    if isinstance(found, NotProved):
        return CertificateCheck(False, f"not proved: {found}", method, seconds)
    if not found <= bound.value + CHECK_THEOREM_RTOL * max(1.0, abs(bound.value)):
        return CertificateCheck(
            False, f"not proved: the theorem gives only {found:.9g} > the claimed {bound.value:.9g}",
            method, seconds, found,
        )  # fmt: skip
    return CertificateCheck(True, f"proved OPT <= {found:.9g}", method, seconds, found)
