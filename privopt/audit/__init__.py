"""Audits: the realized ε of a mechanism under a definition, independently of how it was made.

``report`` holds the values (:class:`AuditReport`, :class:`Witness`); ``exact`` the audit through a
definition's exact ratio pairs; ``robust`` the audits over sets the compiled cone does not describe
exactly (ℓ1 balls for PML, Rényi balls and polytopes under the rectangular rule).
"""

from privopt.audit.exact import audit
from privopt.audit.report import AuditReport, Witness

__all__ = ["AuditReport", "Witness", "audit"]
