"""Certificates of optimality gaps: duals ``λ``, a pricing bound ``δ̄`` and how it was proved.

For any vector ``λ`` and any ``δ̄ >= max { μ(w) − λᵀw : w ∈ K, νᵀw = 1 }``, every mechanism whose
columns lie in the cone ``K`` has utility at most ``1ᵀλ + (Σν)·max(0, δ̄)`` (Entropy paper Thm. 3's LP
and its dual; :mod:`privopt.routes.pricing.bound`; ``ν = p`` for mutual information, ``(P0 + P1)/2`` for
an f-divergence on LDP cones, :mod:`privopt.routes.pricing.staircase`). A :class:`PricingCertificate`
stores ``λ`` and ``δ̄``; :func:`check_pricing_certificate` hands it to the independent checker
(:mod:`privopt.certificates`), which re-derives ``δ̄`` from ``λ``, the cone and the utility alone and
refuses a claim it cannot prove. :func:`certified_pricer` picks the pricer of a cone: the staircase
pricer on LDP cones, the envelope pricer on other envelope cones, the tree pricer on tree cones, the
f-divergence hull on any other.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from privopt.certificates import CertificateCheck, SliceBound, check_bound
from privopt.compiler.cone import RowCone
from privopt.errors import ValidationError
from privopt.routes.pricing.bound import ENVELOPE_METHOD, EnvelopePricer, PricingOutcome, slice_objective
from privopt.routes.pricing.fdivergence import CertifiedHullPricer, fdivergence_weights
from privopt.routes.pricing.staircase import KnapsackPricer, SlopePricer, staircase_pricer
from privopt.routes.pricing.structure import EnvelopeCone, envelope_structure
from privopt.routes.pricing.tree import TreePricer, tree_pricer
from privopt.tolerances import CHECK_SECONDS
from privopt.utilities import FDivergence, SubConvexUtility
from privopt.validation import FloatArray

#: A pricer certified column generation can use (:func:`certified_pricer`).
CertifiedPricer = EnvelopePricer | KnapsackPricer | SlopePricer | CertifiedHullPricer | TreePricer


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
        The name of ``ν`` (:data:`privopt.certificates.bounds.NORMALISATIONS`): ``"prior"`` (``ν = p``)
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
            method=ENVELOPE_METHOD if pricer is None else pricer.method,
            nodes=outcome.nodes,
            point_nodes=outcome.point_nodes,
            tolerance=outcome.tolerance,
            complete=outcome.complete,
            normalisation="prior" if pricer is None else pricer.normalisation,
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


def envelope_pricer(utility: SubConvexUtility, cone: RowCone) -> EnvelopePricer | str:
    """The certified pricer for ``(utility, cone)``, or the reason there is none (kept in solutions).

    Built once per pair while both live: planning, the vertex route and column generation all ask for
    it (a curve's points each did three times)."""
    key = id(utility)
    cached = _PRICERS.setdefault(cone, {})
    if key not in cached or cached[key][0] is not utility:
        cached[key] = (utility, _build_pricer(utility, cone))
    return cached[key][1]


def certified_pricer(utility: SubConvexUtility, cone: RowCone) -> CertifiedPricer | str:
    """The pricer certified column generation uses for ``(utility, cone)``: exact staircase pricing on
    LDP cones (any size; mutual information, NMI, f-divergences), the envelope pricer on other envelope
    cones, the tree pricer on tree cones (mutual information, NMI;
    :mod:`privopt.routes.pricing.tree`), the hull of an f-divergence on any other cone (``ν = (P0 +
    P1)/2 > 0``), or the reason there is none (built once per pair while both live)."""
    key = id(utility)
    cached = _CERTIFIED.setdefault(cone, {})
    if key not in cached or cached[key][0] is not utility:
        staircase = staircase_pricer(utility, cone)
        found: CertifiedPricer | str = staircase
        if isinstance(staircase, str):
            found = envelope_pricer(utility, cone)
        if isinstance(found, str):
            tree = tree_pricer(utility, cone)
            found = found if isinstance(tree, str) else tree
        if isinstance(found, str) and isinstance(utility, FDivergence):
            weights = fdivergence_weights(utility)
            if weights is not None and weights.size == cone.n_inputs:
                found = CertifiedHullPricer(cone, utility, weights)
        cached[key] = (utility, found)
    return cached[key][1]


#: Pricers already built, per cone (weakly: a cone's entry goes with it) and utility.
_PRICERS: weakref.WeakKeyDictionary[RowCone, dict[int, tuple[SubConvexUtility, EnvelopePricer | str]]] = (
    weakref.WeakKeyDictionary()
)
_CERTIFIED: weakref.WeakKeyDictionary[RowCone, dict[int, tuple[SubConvexUtility, CertifiedPricer | str]]] = (
    weakref.WeakKeyDictionary()
)


def _build_pricer(utility: SubConvexUtility, cone: RowCone) -> EnvelopePricer | str:
    structure = envelope_structure(cone)
    if isinstance(structure, str):
        return f"no certified pricing bound for this cone: {structure}"
    objective = slice_objective(utility)
    if isinstance(objective, str):
        return f"no certified pricing bound: {objective}"
    if objective.weights.size != cone.n_inputs:
        return "no certified pricing bound: the utility's distribution does not match the cone's inputs"
    if not _positive_mass(structure, objective.weights):
        return "no certified pricing bound: the cone has non-zero columns with pᵀw = 0"
    from privopt.routes.pricing.blocks import MAX_BLOCK_INPUTS

    largest = max(block.size for block in structure.blocks)
    if largest > MAX_BLOCK_INPUTS:
        return f"no certified pricing bound: a block has {largest} inputs (limit {MAX_BLOCK_INPUTS})"
    return EnvelopePricer(structure, objective)


def _positive_mass(structure: EnvelopeCone, weights: FloatArray) -> bool:
    """Whether ``pᵀw > 0`` on the whole cone but 0, which the bound ``OPT <= Σλ + δ̄⁺`` needs.

    Every block of a non-zero column has ``b_s > 0``. A block with some ``p > 0`` input and ``L = 0``
    wherever ``p = 0`` then has ``p_sᵀw_s > 0``: if ``w_s`` lived on ``{p = 0}``, ``min_u w_u = 0`` and
    ``b_s = L_sᵀw_s = 0``. (For mutual information at the centre of a Rényi ball this always holds.)
    """
    for inputs, lower in zip(structure.blocks, structure.lower, strict=True):
        p = weights[inputs]
        if np.any(p > 0.0) and np.all(lower[p <= 0.0] <= 0.0):
            return True
    return False


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
    if isinstance(objective, str):
        raise ValidationError(
            "utility", "mutual information (the envelope pricing bound's utility)", objective
        )
    return check_bound(cone, utility, certificate.to_bound(objective.weights), time_limit=time_limit)
