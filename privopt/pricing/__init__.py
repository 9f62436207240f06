"""Certified pricing for column generation: exact block vertices, a bound on the best reduced cost."""

from privopt.pricing.bound import (
    EnvelopePricer,
    PricedColumn,
    PricingOutcome,
    SliceObjective,
    slice_objective,
)
from privopt.pricing.structure import EnvelopeCone, envelope_structure

__all__ = [
    "EnvelopeCone",
    "EnvelopePricer",
    "PricedColumn",
    "PricingOutcome",
    "SliceObjective",
    "envelope_structure",
    "slice_objective",
]
