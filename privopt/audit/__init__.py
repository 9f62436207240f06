"""Audits: the realized ε of a mechanism under a definition, independently of how it was made.

``report`` holds the values (:class:`AuditReport`, :class:`Witness`); ``exact`` the audit itself
(rows matched by label, each pair audited by the rule that compiled it); ``robust`` the parts of an
audit over sets the compiled rows do not describe exactly (ℓ1 balls for PML, Rényi balls and polytopes
under the rectangular rule).
"""

from privopt.audit.exact import audit, realized_eps
from privopt.audit.report import AuditReport, Witness

__all__ = ["AuditReport", "Witness", "audit", "realized_eps"]
