"""Audits: the realized ε of a mechanism under a definition, independently of how it was made.

``report`` holds the values (:class:`AuditReport`, :class:`Witness`); ``exact`` the audit itself
(rows matched by label, each pair audited by the rule that compiled it); ``robust`` the parts of an
audit over sets the compiled rows do not describe exactly (ℓ1 balls for PML, Rényi balls and polytopes
under the rectangular rule).

Audits of an implementation from its reports (docs/sample-audits.md): ``sample_audit``
(``audit_sampler``, ``audit_samples``) on ``sampled_channel`` (counts and their confidence region),
``event_selection`` (the test chosen on separate reports), ``epsilon_tests`` (the exact tests) and
``sampling`` (drawing reports, in parallel, reproducibly); ``sample_size`` (``samples_needed``),
``conformance`` (goodness of fit to a design) and ``clients`` (samplers of mechanisms and of LDP
libraries' clients).
"""

from privopt.audit import clients
from privopt.audit.conformance import ConformanceReport, conformance
from privopt.audit.exact import audit, realized_eps
from privopt.audit.report import AuditReport, SampleAuditReport, SampleWitness, Witness
from privopt.audit.sample_audit import audit_sampler, audit_samples
from privopt.audit.sample_size import samples_needed

__all__ = [
    "AuditReport",
    "ConformanceReport",
    "SampleAuditReport",
    "SampleWitness",
    "Witness",
    "audit",
    "audit_sampler",
    "audit_samples",
    "clients",
    "conformance",
    "realized_eps",
    "samples_needed",
]
