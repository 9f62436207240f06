"""``po.audit``: the realized ε of a mechanism under a definition, pass/fail and the witness."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privopt.audit.report import AuditReport
from privopt.tolerances import AUDIT_EPS_ATOL

if TYPE_CHECKING:
    from privopt.data.mechanism import Mechanism
    from privopt.definitions.base import PrivacyDefinition


def audit(
    mechanism: Mechanism, definition: PrivacyDefinition, *, tolerance: float = AUDIT_EPS_ATOL
) -> AuditReport:
    """Realized ε of ``mechanism`` under ``definition``, pass/fail, and the witness.

    Examples
    --------
    >>> import privopt as po, numpy as np
    >>> report = po.audit(po.mechanisms.grr(4, np.log(2)), po.LDP(np.log(2)))
    >>> round(report.eps, 12), report.satisfied
    (0.693147180559945, True)
    """
    from privopt.data.mechanism import Mechanism
    from privopt.definitions.base import PrivacyDefinition
    from privopt.errors import ValidationError

    if not isinstance(mechanism, Mechanism):
        raise ValidationError("mechanism", "a privopt.Mechanism", type(mechanism).__name__)
    if not isinstance(definition, PrivacyDefinition):
        raise ValidationError(
            "definition", "a privacy definition such as po.LDP(eps)", type(definition).__name__
        )
    if not (tolerance >= 0.0):
        raise ValidationError("tolerance", "a number >= 0", repr(tolerance))
    return definition.audit(mechanism, tolerance=tolerance)
