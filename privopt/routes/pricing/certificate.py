"""Certificates of optimality gaps: duals ``λ``, a pricing bound ``δ̄`` and how it was proved.

For any vector ``λ`` and any ``δ̄ >= max { μ(w) − λᵀw : w ∈ K, νᵀw = 1 }``, every mechanism whose
columns lie in the cone ``K`` has utility at most ``1ᵀλ + (Σν)·max(0, δ̄)`` (Entropy paper Thm. 3's LP
and its dual; :mod:`privopt.routes.pricing.envelope`; ``ν = p`` for mutual information, ``(P0 + P1)/2`` for
an f-divergence on LDP cones, :mod:`privopt.routes.pricing.staircase`). A :class:`PricingCertificate`
stores ``λ`` and ``δ̄``; :func:`check_pricing_certificate` hands it to the independent checker
(:mod:`privopt.certificates`), which re-derives ``δ̄`` from ``λ``, the cone and the utility alone and
refuses a claim it cannot prove. Which pricer proves ``δ̄`` is the registry's choice
(:func:`privopt.routes.pricing.contract.certified_pricer`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from privopt.certificates import CertificateCheck, SliceBound, check_bound
from privopt.compiler.cone import RowCone
from privopt.errors import ValidationError
from privopt.routes.pricing.contract import CertifiedPricer, PricingOutcome, Refusal
from privopt.routes.pricing.envelope import ENVELOPE_METHOD, slice_objective
from privopt.tolerances import CHECK_SECONDS
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray


@dataclass(frozen=True, eq=False)
class PricingCertificate:
    """``OPT <= upper = Σλ + (Σν)·max(0, delta)`` over the cone, with the evidence for ``delta``.

    Attributes
    ----------
    duals:
        ``λ`` (one per input).
    delta:
        ``δ̄``, proved to bound ``max μ(w) − λᵀw`` over the cone's slice ``νᵀw = 1``.
    upper:
        ``Σ λ + (Σν)·max(0, δ̄)``.
    lower:
        The best reduced cost found while proving ``δ̄`` (``δ̄ − lower`` is the bound's own slack).
    method:
        How ``δ̄`` was proved.
    nodes, point_nodes:
        Interval and point nodes of the branch and bound.
    tolerance:
        The absolute tolerance the search closed to (``complete``) or was asked for.
    complete:
        Whether the search closed to ``tolerance`` (``False``: stopped by a budget; ``δ̄`` is still valid).
    normalisation:
        The name of ``ν`` (:data:`privopt.certificates.claims.NORMALISATIONS`): ``"prior"`` (``ν = p``)
        or ``"mixture"`` (``ν = (P0 + P1)/2``).
    """

    duals: FloatArray
    delta: float
    upper: float
    lower: float
    method: str
    nodes: int
    point_nodes: int
    tolerance: float
    complete: bool
    normalisation: str = "prior"

    @classmethod
    def from_outcome(
        cls, duals: FloatArray, outcome: PricingOutcome, pricer: CertifiedPricer | None = None
    ) -> PricingCertificate:
        """The certificate of ``outcome`` (priced at ``duals`` by ``pricer``; the envelope pricer's when
        ``None``, whose ``ν = p`` sums to 1)."""
        duals = np.array(duals, dtype=np.float64)
        mass = 1.0 if pricer is None else float(np.sum(pricer.weights))
        return cls(
            duals=duals,
            delta=outcome.upper,
            upper=float(np.sum(duals)) + mass * max(0.0, outcome.upper),
            lower=outcome.lower,
            method=ENVELOPE_METHOD if pricer is None else pricer.traits.method,
            nodes=outcome.nodes,
            point_nodes=outcome.point_nodes,
            tolerance=outcome.tolerance,
            complete=outcome.complete,
            normalisation="prior" if pricer is None else pricer.traits.normalisation,
        )

    def to_bound(self, weights: FloatArray) -> SliceBound:
        """The claim for the independent checker: ``OPT <= upper`` on the slice ``νᵀw = 1`` (``weights`` is
        ``ν``). ``upper`` is the certificate's own, not recomputed: the checker verifies that it is
        ``Σλ + (Σν)·max(0, δ̄)``, so a tampered ``upper`` is caught."""
        status = "complete" if self.complete else "stopped by its budget"
        method = f"{self.method}; {self.nodes} nodes, {status}"
        return SliceBound(
            np.array(self.duals), self.delta, self.normalisation, np.array(weights), self.upper, method
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "duals": [float(v) for v in self.duals],
            "delta": float(self.delta),
            "upper": float(self.upper),
            "lower": float(self.lower),
            "method": self.method,
            "nodes": int(self.nodes),
            "point_nodes": int(self.point_nodes),
            "tolerance": float(self.tolerance),
            "complete": bool(self.complete),
            "normalisation": self.normalisation,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PricingCertificate:
        return cls(
            duals=np.array(data["duals"], dtype=np.float64),
            delta=float(data["delta"]),
            upper=float(data["upper"]),
            lower=float(data["lower"]),
            method=str(data["method"]),
            nodes=int(data["nodes"]),
            point_nodes=int(data["point_nodes"]),
            tolerance=float(data["tolerance"]),
            complete=bool(data["complete"]),
            normalisation=str(data.get("normalisation", "prior")),
        )


def check_pricing_certificate(
    certificate: PricingCertificate,
    cone: RowCone,
    utility: SubConvexUtility,
    *,
    time_limit: float = CHECK_SECONDS,
) -> CertificateCheck:
    """Re-prove ``certificate`` with the independent checker (:func:`privopt.certificates.check_bound`),
    from its duals, the cone and the utility alone — none of this module's pricing code is used."""
    objective = slice_objective(utility)
    if isinstance(objective, Refusal):
        raise ValidationError(
            "utility", "mutual information (the envelope pricing bound's utility)", objective.message
        )
    return check_bound(cone, utility, certificate.to_bound(objective.weights), time_limit=time_limit)
