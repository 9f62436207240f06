"""Conditional reporting (CR), RLDP form: ISIT paper Protocol 2, Theorems 5 and 6.

On input ``(s, u)``: draw ``S̃ = GRR^{ε1}(s)``. If ``S̃ = s`` output ``(s, R^s(u))``; otherwise draw
``Ũ ~ P̂(·|S̃)`` and output ``(S̃, R^{S̃}(Ũ))``. With ``g = e^{ε1}/(e^{ε1} + |S| − 1)`` and
``h = 1/(e^{ε1} + |S| − 1)`` the exact channel on ``X = S × U`` (s-major) is

    W[(s, u), (t, y)] = g · R^t[u, y]                 if t = s,
                        h · (P̂(·|t)ᵀ R^t)[y]          if t != s.

**Privacy (Theorem 5).** If each ``R^s`` is δ_s-LDP with ``δ_s = log(1 + 2(e^{ε2} − 1)/d_s)`` and
``d_s >= rad_s``, CR is (ε1 + ε2, F)-RLDP. Derivation (the ISIT paper omits its proofs): for an
output ``(t, y)`` only the inputs with ``s = t`` see ``R^t`` applied to the true ``U``, so
``P(t, y | S=t) / P(t, y | S=s') = e^{ε1} · (P(·|t)ᵀR^t)[y] / (P̂(·|t)ᵀR^t)[y]`` for every ``s' != t``,
and Lemma 3 of the Entropy paper bounds the last ratio by ``1 + (e^{δ_t} − 1)/2 · ||P(·|t) − P̂(·|t)||₁
<= 1 + (e^{δ_t} − 1) d_t / 2 = e^{ε2}``; ratios between two ``s, s' != t`` are 1. The bound uses one
conditional at a time, so it holds over the product of the projections ``F_{U|s}``.

*Misprint:* the ISIT paper prints ``δ_s = log(1 + 2(ε2 − 1)/d_s)``; the derivation above needs
``e^{ε2} − 1`` (with ``ε2 − 1`` the level is undefined for ``ε2 < 1``).

**Utility (Theorem 6).** Under ``P̂``,
``I(X; Y) = I(GRR^{ε1}(S); S) + g · Σ_s P̂_s I_{U ~ P̂(·|s)}(R^s(U); U)`` — the printed ``ε0`` is the GRR
parameter ``ε1`` (and ``G^ε`` in the first term is ``G^{ε1}``). Given ``S̃ = t``, the second
coordinate is ``R^t`` applied to ``U`` when ``S = t`` and to an independent draw from ``P̂(·|t)``
otherwise, which carries no information about ``X``; under ``P̂`` both have law ``P̂(·|t)``.

With ``R^s = GRR^{δ_s}`` only ``ε2 ∈ [0, ε]`` is free: the same 1-D search as independent reporting.
``d_s = rad_s`` as in :func:`~privopt.mechanisms.independent_reporting.projection_l1_radii` (ISIT
eq. 11 is its closed form for χ² sets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privopt.audit import AuditReport
from privopt.data.mechanism import Mechanism
from privopt.errors import CallableError, PrivoptError, ValidationError
from privopt.mechanisms.independent_reporting import (
    DEFAULT_SCAN_POINTS,
    FACTORY,
    ComponentFactory,
    check_design,
    check_renyi_ball,
    check_split,
    component,
    labelled_grr,
    maximise_on_interval,
    projection_l1_radii,
    relaxed_eps,
)
from privopt.mechanisms.randomized_response import grr_matrix
from privopt.sets.renyi import RenyiBall
from privopt.utilities import ConcaveUtility, MutualInformation, SubConvexUtility, as_utility
from privopt.validation import FloatArray, check_eps


@dataclass(frozen=True, eq=False)
class ConditionalReporting:
    """A CR design: the exact channel on ``X = S × U`` and how it was chosen.

    Attributes
    ----------
    mechanism:
        The channel; outputs ``(s̃, y)`` with ``y`` an output of ``R^{s̃}``.
    eps, eps1, eps2:
        The budget and its split (``eps1`` for the GRR on ``S``).
    deltas:
        ``δ_s``, the LDP level of each ``R^s`` (Theorem 5).
    radii:
        ``d_s = rad_s``.
    value:
        The utility of ``mechanism``.
    audit:
        The robust audit against ``(eps, F)``-RLDP (``None`` if not requested).
    evaluations:
        Objective evaluations spent by the 1-D search.
    """

    mechanism: Mechanism
    eps: float
    eps1: float
    eps2: float
    deltas: FloatArray
    radii: FloatArray
    value: float
    audit: AuditReport | None
    evaluations: int


def _cr_mechanism(F: RenyiBall, eps: float, eps2: float, radii: FloatArray, R: ComponentFactory) -> Mechanism:
    P = F.center
    n_s, n_u = P.shape
    conditional = P.conditional_u_given_s()
    deltas = relaxed_eps(eps2, radii)
    components = [component(R, "R", n_u, float(delta)) for delta in np.atleast_1d(deltas)]
    for t, channel in enumerate(components):
        if channel.n_inputs != n_u:
            raise ValidationError(
                "R", f"components on |U| = {n_u} symbols", f"{channel.n_inputs} inputs (s = {t})"
            )
    rr = grr_matrix(n_s, eps - eps2)
    blocks = []
    for t, channel in enumerate(components):
        decoy = conditional[t] @ channel.matrix  # law of R^t(Ũ), Ũ ~ P̂(·|t)
        block = np.repeat(rr[:, t, None] * decoy[None, :], n_u, axis=0)  # rows (s, u), s != t
        block[t * n_u : (t + 1) * n_u] = rr[t, t] * channel.matrix
        blocks.append(block)
    labels = [(P.s_labels[t], y) for t, c in enumerate(components) for y in c.output_labels]
    name = f"CR(eps={eps:.4g}, eps2={eps2:.4g})"
    return Mechanism(np.hstack(blocks), P.x_labels, labels, name=name)


def _component(F: RenyiBall, R: ComponentFactory | None) -> ComponentFactory:
    factory = R if R is not None else labelled_grr(F.center.u_labels)
    if not callable(factory):
        raise ValidationError("R", FACTORY, type(factory).__name__)
    return factory


def conditional_reporting_at(
    F: RenyiBall, eps: float, eps2: float, *, R: ComponentFactory | None = None
) -> Mechanism:
    """CR at a fixed split: ``GRR^{ε − ε2}`` on ``S``, ``R^s = R(|U|, δ_s)`` (default GRR); not audited."""
    F = check_renyi_ball(F)
    eps, eps2 = check_split(eps, eps2)
    return _cr_mechanism(F, eps, eps2, projection_l1_radii(F), _component(F, R))


def conditional_reporting(
    F: RenyiBall,
    eps: float,
    *,
    R: ComponentFactory | None = None,
    utility: SubConvexUtility | ConcaveUtility | None = None,
    scan_points: int = DEFAULT_SCAN_POINTS,
    verify_audit: bool = True,
) -> ConditionalReporting:
    """The best CR mechanism for ``(ε, F)``-RLDP (ISIT paper §IV-C).

    Maximises ``utility`` (default ``I_P̂(X;Y)``) over ``ε2 ∈ [0, ε]`` with
    :func:`~privopt.mechanisms.independent_reporting.maximise_on_interval`. Unless
    ``verify_audit=False`` the result is audited against ``SensitiveLDP(ε, F)`` and a failure raises
    :class:`~privopt.errors.SolverError`.
    """
    F = check_renyi_ball(F)
    eps = check_eps(eps)
    factory = _component(F, R)
    utility = as_utility(utility) if utility is not None else MutualInformation(F.center)
    radii = projection_l1_radii(F)

    def objective(eps2: float) -> float | None:
        try:
            mechanism = _cr_mechanism(F, eps, eps2, radii, factory)
        except CallableError:  # the user's factory failed: say so, never skip the split silently
            raise
        except PrivoptError:  # a component refused this level: an infeasible split
            return None
        return utility.value(mechanism)

    best = maximise_on_interval(objective, 0.0, eps, scan_points=scan_points, what="ε2")
    mechanism = _cr_mechanism(F, eps, best.argmax, radii, factory)
    report = check_design(mechanism, F, eps, "conditional reporting") if verify_audit else None
    return ConditionalReporting(
        mechanism=mechanism,
        eps=eps,
        eps1=eps - best.argmax,
        eps2=best.argmax,
        deltas=np.atleast_1d(relaxed_eps(best.argmax, radii)),
        radii=radii,
        value=best.value,
        audit=report,
        evaluations=best.evaluations,
    )
