"""What a solve returns: :class:`Solution` and its :class:`Certificate`.

Every solution carries a typed :class:`~privopt.routes.base.Status`, the value of its mechanism, and
bounds ``lower <= optimum <= upper`` with their relative ``gap`` — on every route (exact routes have
``lower == upper``) — and the evidence: the independent audit of the mechanism and the duals that
certify the upper bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from privopt.audit.report import AuditReport
from privopt.data.mechanism import Mechanism
from privopt.routes.base import SolveStats, Status
from privopt.routes.colgen import relative_gap
from privopt.routes.pricing.certificate import PricingCertificate
from privopt.tolerances import AUDIT_EPS_ATOL


@dataclass(frozen=True)
class Certificate:
    """Evidence that a solution is what it claims.

    Attributes
    ----------
    audit:
        The independent audit of the mechanism against the definition.
    cone_violation:
        Largest relative violation of the compiled cone's rows by the mechanism's columns.
    lp_duals:
        Vertex and column-generation routes: the LP's equality duals ``λ`` (one per input). Since
        ``μ(v) <= λᵀv`` at every column considered and ``μ`` is sublinear, every mechanism made of
        those columns has utility ``<= Σ_x λ_x``.
    dual_bound:
        ``Σ_x λ_x``.
    max_reduced_cost:
        ``max_v μ(v) − λᵀv`` over the enumerated vertices (``<= ~0`` certifies the bound).
    upper_source:
        What proves the solution's upper bound.
    pricing:
        On envelope cones (the Γ cone, LDP): the duals ``λ`` and a *proved* bound
        ``δ̄ >= max μ(w) − λᵀw`` over the whole cone slice ``pᵀw = 1``, so ``OPT <= Σλ + max(0, δ̄)``;
        re-check it with :func:`privopt.routes.pricing.check_pricing_certificate`. On the vertex route it
        also proves that the enumeration lost no vertex that matters.
    tolerance:
        The audit's slack on ε (nats).
    """

    audit: AuditReport
    cone_violation: float
    lp_duals: np.ndarray | None = None
    dual_bound: float | None = None
    max_reduced_cost: float | None = None
    upper_source: str = ""
    tolerance: float = AUDIT_EPS_ATOL
    pricing: PricingCertificate | None = None

    @property
    def passed(self) -> bool:
        return self.audit.satisfied

    def to_dict(self) -> dict[str, Any]:
        return {
            "audit": self.audit.to_dict(),
            "cone_violation": self.cone_violation,
            "lp_duals": None if self.lp_duals is None else [float(v) for v in self.lp_duals],
            "dual_bound": self.dual_bound,
            "max_reduced_cost": self.max_reduced_cost,
            "upper_source": self.upper_source,
            "tolerance": self.tolerance,
            "pricing": None if self.pricing is None else self.pricing.to_dict(),
        }


@dataclass(frozen=True, eq=False)
class Solution:
    """The result of :meth:`privopt.Problem.solve`.

    Attributes
    ----------
    mechanism:
        The designed mechanism; it passed its audit against the definition.
    value:
        Its utility.
    status:
        :class:`~privopt.routes.base.Status`: ``OPTIMAL``, ``OPTIMAL_WITHIN_GAP``, ``LIMIT_REACHED`` or
        ``FEASIBLE``.
    lower, upper:
        Bounds on the optimum over the compiled cone (``lower`` is ``value``; exact routes have
        ``upper == lower``).
    route:
        Short name of the route that produced it: ``"vertex"``, ``"colgen"``, ``"cvxpy"``,
        ``"closed_form"``.
    reason:
        Why that route, and how it ended.
    stats:
        Counts and the time of each stage (:class:`~privopt.routes.base.SolveStats`).
    certificate:
        The audit and the duals behind the bounds.
    problem:
        The :class:`~privopt.Problem` that was solved (``None`` for a solution made elsewhere, or read
        from a file that does not carry its problem); ``solution.problem.solve()`` solves it again.
    """

    mechanism: Mechanism
    value: float
    status: Status
    lower: float
    upper: float
    route: str
    reason: str
    stats: SolveStats
    certificate: Certificate
    #: A privopt.Problem (typed Any: privopt.problem.problem imports this module).
    problem: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.status, Status):
            raise TypeError(f"status must be a privopt Status, got {self.status!r}")
        if not self.lower <= self.upper:
            raise ValueError(f"lower bound {self.lower} above upper bound {self.upper}")

    @property
    def gap(self) -> float:
        """``(upper − lower) / |upper|`` (0 for exact routes)."""
        return relative_gap(self.lower, self.upper)

    def __repr__(self) -> str:
        bounds = f"{self.value:.6g}" if self.gap == 0.0 else f"{self.value:.6g} ≤ opt ≤ {self.upper:.6g}"
        return (
            f"Solution({self.status.value}, value={bounds}, route={self.route!r}, "
            f"outputs={self.mechanism.n_outputs})"
        )
