"""Certified pricing for column generation: exact block vertices, a bound on the best reduced cost."""

from privopt.routes.pricing.bound import (
    EnvelopePricer,
    PricedColumn,
    PricingOutcome,
    SliceObjective,
    slice_objective,
)
from privopt.routes.pricing.certificate import (
    PricingCertificate,
    check_pricing_certificate,
    envelope_pricer,
)
from privopt.routes.pricing.structure import EnvelopeCone, envelope_structure

__all__ = [
    "EnvelopeCone",
    "EnvelopePricer",
    "PricedColumn",
    "PricingCertificate",
    "PricingOutcome",
    "SliceObjective",
    "check_pricing_certificate",
    "envelope_pricer",
    "envelope_structure",
    "slice_objective",
]
