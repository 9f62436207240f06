"""What a solve returns: :class:`Solution` and its :class:`Certificate`.

Every solution carries a typed :class:`~privopt.routes.base.Status`, the value of its mechanism, and
bounds ``lower <= optimum <= upper`` with their relative ``gap`` — on every route (exact routes have
``lower == upper``) — and the evidence: the independent audit of the mechanism and the duals that
certify the upper bound.
"""

from __future__ import annotations

import html
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from privopt.audit.report import AuditReport
from privopt.certificates import Bound, CertificateCheck, SliceBound
from privopt.data.display import fields_html, frame_html
from privopt.data.mechanism import Mechanism
from privopt.routes.base import SolveStats, Status
from privopt.routes.colgen_options import relative_gap
from privopt.tolerances import AUDIT_EPS_ATOL, GAP_OPTIMAL_RTOL


@dataclass(frozen=True, eq=False)
class Certificate:
    """Evidence that a solution is what it claims (docs/compiler.md, "Certificates").

    Attributes
    ----------
    audit:
        The independent audit of the mechanism against the definition (the privacy claim).
    cone_violation:
        Largest relative violation of the compiled cone's rows by the mechanism's columns.
    bound:
        The route's proof of ``solution.upper`` (:mod:`privopt.certificates.claims`): the vertex LP's
        or column generation's duals with a bound on their reduced costs (:class:`SliceBound`), the
        cvxpy route's Lagrange multipliers (:class:`LinearBound`), or a theorem (:class:`TheoremBound`).
    check:
        The independent checker's verdict on ``bound`` (:func:`privopt.certificates.check_bound`,
        which shares no code with the routes).
    upper_source:
        What proves the solution's upper bound, in words.
    tolerance:
        The audit's slack on ε (nats).
    """

    audit: AuditReport
    cone_violation: float
    bound: Bound | None = None
    check: CertificateCheck | None = None
    upper_source: str = ""
    tolerance: float = AUDIT_EPS_ATOL

    @property
    def checked(self) -> bool:
        """Whether the independent checker proved ``upper`` (only then can a solution be optimal)."""
        return self.check is not None and self.check.valid

    @property
    def checked_by(self) -> str:
        """How ``upper`` was proved, or why it was not."""
        if self.check is None:
            return "not checked: the route gave no bound"
        return self.check.method if self.check.valid else f"not checked: {self.check.reason}"

    @property
    def audit_passed(self) -> bool:
        """Whether the mechanism passed its privacy audit (it says nothing about optimality)."""
        return self.audit.satisfied

    @property
    def passed(self) -> bool:
        """Deprecated: whether the *audit* passed; use :attr:`audit_passed` (and :attr:`checked` for
        optimality)."""
        warnings.warn(
            "Certificate.passed is deprecated: it means the audit passed; use Certificate.audit_passed "
            "(and Certificate.checked for the proved bound)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.audit_passed

    @property
    def pricing(self) -> SliceBound | None:
        """Deprecated: the envelope pricing bound (a :class:`SliceBound` on ``pᵀw = 1``); use :attr:`bound`."""
        warnings.warn(
            "Certificate.pricing is deprecated: use Certificate.bound (and Certificate.check)",
            DeprecationWarning,
            stacklevel=2,
        )
        bound = self.bound
        return bound if isinstance(bound, SliceBound) and bound.normalisation == "prior" else None

    @property
    def lp_duals(self) -> np.ndarray | None:
        """The duals ``λ`` of the bound (vertex LP, column generation's master, a closed form)."""
        return self.bound.duals if isinstance(self.bound, SliceBound) else None

    @property
    def dual_bound(self) -> float | None:
        """``Σ_x λ_x``: with :attr:`max_reduced_cost` ``<= 0``, no mechanism in the cone does better."""
        return None if self.lp_duals is None else float(np.sum(self.lp_duals))

    @property
    def max_reduced_cost(self) -> float | None:
        """The bound's ``δ̄ >= max (μ(w) − λᵀw)`` over its normalised slice."""
        return self.bound.delta if isinstance(self.bound, SliceBound) else None

    def _bound_text(self) -> str:
        """Where the upper bound comes from and whether it is proved, in a few words."""
        source = self.upper_source or "no bound"
        return f"{source}, checked" if self.checked else f"{source}, {self.checked_by}"

    def __repr__(self) -> str:
        """One line: the audit's verdict and ε, and what proves the upper bound (``certificate.audit``,
        ``.bound`` and ``.check`` hold the details)."""
        report = self.audit
        return (
            f"Certificate(audit={report.verdict} at eps {report.eps_text} vs {report.target:.6g}, "
            f"upper bound: {self._bound_text()})"
        )

    def _fields(self) -> list[tuple[str, str]]:
        report = self.audit
        return [
            ("audit", f"{report.verdict}: realized ε {report.eps_text} vs target {report.target:.6g}"),
            ("audit method", report.method),
            ("upper bound", self.upper_source or "none"),
            ("checked", self.checked_by if not self.checked else f"yes: {self.checked_by}"),
            ("cone violation", f"{self.cone_violation:.3g}"),
        ]

    def _repr_html_(self) -> str:
        return fields_html("Certificate", self._fields())

    def to_dict(self) -> dict[str, Any]:
        return {
            "audit": self.audit.to_dict(),
            "cone_violation": self.cone_violation,
            "bound": None if self.bound is None else self.bound.to_dict(),
            "check": None if self.check is None else self.check.to_dict(),
            "checked": self.checked,
            "upper_source": self.upper_source,
            "tolerance": self.tolerance,
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
        :class:`~privopt.routes.base.Status`: ``OPTIMAL``, ``OPTIMAL_WITHIN_GAP`` (only with a
        checked certificate), ``LIMIT_REACHED`` or ``FEASIBLE``.
    lower, upper:
        Bounds on the optimum over the compiled cone (``lower`` is ``value``); ``upper`` is proved by
        ``certificate.bound``, and independently checked when ``certificate.checked``.
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
        bounds = (
            f"{self.value:.6g}"
            if self.gap <= GAP_OPTIMAL_RTOL
            else f"{self.value:.6g} ≤ opt ≤ {self.upper:.6g}"
        )
        return (
            f"Solution({self.status.value}, value={bounds}, route={self.route!r}, "
            f"outputs={self.mechanism.n_outputs})"
        )

    def _repr_html_(self) -> str:
        """The status, bounds, route and certificate as a table, the mechanism under it."""
        fields = [
            ("status", self.status.value),
            ("value", f"{self.value:.6g}"),
            ("bounds", f"{self.lower:.6g} ≤ opt ≤ {self.upper:.6g} (gap {self.gap:.3g})"),
            ("route", f"{self.route}: {self.reason}"),
            *self.certificate._fields(),
            ("seconds", f"{sum(self.stats.seconds.values()):.3g}"),
        ]
        mechanism = self.mechanism
        below = f"<p>{html.escape(mechanism.summary)}</p>{frame_html(mechanism.to_frame())}"
        return fields_html("Solution", fields, below)
