"""Certificates of optimality and the independent checker that re-derives them.

A route ends with a *claim*, ``OPT <= upper``, and the evidence for it (a :class:`SliceBound`,
:class:`LinearBound` or :class:`TheoremBound`); :func:`check_bound` proves the claim from the compiled
cone and the utility alone, by its own methods, and returns a :class:`CertificateCheck`
(docs/compiler.md, "Certificates"); a step of the checker that fails says why with a
:class:`NotProved` (a :class:`NotProvedReason` and a message). This package sits below the routes in
the layering and imports none of them (docs/design.md, "Layers").
"""

from privopt.certificates.check import CertificateCheck, check_bound, weaker_claim
from privopt.certificates.claims import (
    Bound,
    LinearBound,
    SliceBound,
    TheoremBound,
    bound_from_dict,
    upper_in_units,
)
from privopt.certificates.outcome import NotProved, NotProvedReason

__all__ = [
    "Bound",
    "CertificateCheck",
    "LinearBound",
    "NotProved",
    "NotProvedReason",
    "SliceBound",
    "TheoremBound",
    "bound_from_dict",
    "check_bound",
    "upper_in_units",
    "weaker_claim",
]
