"""Certified pricing for column generation: the pricing contract and registry
(:mod:`~privopt.routes.pricing.contract`) and the pricers that register with it — staircase pricing on
LDP cones, the envelope pricer (on several processes, :mod:`~privopt.routes.pricing.workers`), the tree
pricer, the piecewise-linear pricer (one LP per piece), the f-divergence hull and, last, the global pricer (SCIP's spatial branch and bound on any cone)."""

from privopt.routes.pricing import fdivergence, global_pricer, graph, piecewise, staircase, tree, workers
from privopt.routes.pricing.certificate import PricingCertificate, check_pricing_certificate
from privopt.routes.pricing.contract import (
    PRICERS,
    CertifiedPricer,
    PricedColumn,
    PricerEntry,
    PricerTraits,
    PricingOutcome,
    PricingRequest,
    Refusal,
    RefusalReason,
    certified_pricer,
    register_pricer,
    unregister_pricer,
)
from privopt.routes.pricing.envelope import EnvelopePricer, SliceObjective, envelope_pricer, slice_objective
from privopt.routes.pricing.structure import EnvelopeCone, envelope_structure

__all__ = [
    "PRICERS",
    "CertifiedPricer",
    "EnvelopeCone",
    "EnvelopePricer",
    "PricedColumn",
    "PricerEntry",
    "PricerTraits",
    "PricingCertificate",
    "PricingOutcome",
    "PricingRequest",
    "Refusal",
    "RefusalReason",
    "SliceObjective",
    "certified_pricer",
    "check_pricing_certificate",
    "envelope_pricer",
    "envelope_structure",
    "fdivergence",
    "global_pricer",
    "graph",
    "piecewise",
    "register_pricer",
    "slice_objective",
    "staircase",
    "tree",
    "unregister_pricer",
    "workers",
]
