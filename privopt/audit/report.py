"""What an audit reports: the realized ε (or an interval), pass/fail and the witness.

``audit(mechanism, definition)`` computes the *realized* privacy parameter: the smallest ε for which
the mechanism satisfies the definition (for a set of distributions, over the whole set), says whether
the definition's own ε is met, and names the witness — the output ``y`` and the two sides of the
likelihood ratio (``x``/``x'``, ``s``/``s'``, or ``s``/marginal) that attain it.

Exact audits (finite sets, points, the simplex) have ``lower == upper``. Audits over sets that cannot
be enumerated (Rényi balls) report an interval ``[lower, upper]``; ``satisfied`` is decided by the
upper end, so it is never optimistic.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from privopt.tolerances import AUDIT_EPS_ATOL

if TYPE_CHECKING:
    from privopt.data.terms import PairLabel


@dataclass(frozen=True)
class Witness:
    """Where the realized ε is attained: output ``y``, the pair of conditionals compared, and the ε it
    needs (``log_ratio`` is the log-ratio divided by the pair's scale, 1 unless per-pair levels)."""

    output: Hashable
    pair: PairLabel
    log_ratio: float

    def __str__(self) -> str:
        member = f" at member {self.pair.member}" if self.pair.member is not None else ""
        rule = f" [{self.pair.rule}]" if self.pair.rule else ""
        ratio = f"log {self.pair.numerator}/{self.pair.denominator}"
        if np.isclose(self.pair.scale, 1.0, rtol=0.0, atol=1e-15):
            value = f"{self.log_ratio:.6g}"
        else:
            value = f"{self.log_ratio * self.pair.scale:.6g} = {self.pair.scale:.6g}·ε with ε = {self.log_ratio:.6g}"
        return f"y={self.output!r}: {ratio} = {value}{member}{rule}"


@dataclass(frozen=True, eq=False)
class AuditReport:
    """The result of :func:`audit`.

    Attributes
    ----------
    definition:
        Text of the definition audited (e.g. ``"SensitiveLDP(eps=0.693, Point)"``).
    target:
        The definition's ε.
    lower, upper:
        Bounds on the realized ε (equal when ``exact``).
    satisfied:
        ``upper <= target + tolerance``.
    witness:
        Output and pair attaining ``upper`` (``None`` when no output leaks at all).
    per_output:
        Realized ε of each output (upper bounds for inexact audits).
    tolerance:
        Slack allowed on ε, in nats.
    method:
        How the numbers were computed (``"exact: ratio pairs"``, ...).
    """

    definition: str
    target: float
    lower: float
    upper: float
    satisfied: bool
    witness: Witness | None
    per_output: np.ndarray = field(repr=False)
    tolerance: float = AUDIT_EPS_ATOL
    method: str = "exact"
    details: dict[str, object] = field(default_factory=dict, repr=False)

    @property
    def eps(self) -> float:
        """The realized ε (the upper end for inexact audits)."""
        return self.upper

    @property
    def exact(self) -> bool:
        return bool(np.isclose(self.lower, self.upper, rtol=0.0, atol=self.tolerance))  # inf, inf: True

    @property
    def interval(self) -> tuple[float, float]:
        return (self.lower, self.upper)

    def __str__(self) -> str:
        verdict = "PASS" if self.satisfied else "FAIL"
        realized = f"{self.upper:.6g}" if self.exact else f"[{self.lower:.6g}, {self.upper:.6g}]"
        head = f"{verdict}: {self.definition}: realized eps {realized} vs target {self.target:.6g}"
        lines = [f"{head} ({self.method})"]
        if self.witness is not None:
            lines.append(f"  witness: {self.witness}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        """A JSON-friendly summary (floats, strings and lists only)."""
        return {
            "definition": self.definition,
            "target": self.target,
            "lower": self.lower,
            "upper": self.upper,
            "satisfied": self.satisfied,
            "tolerance": self.tolerance,
            "method": self.method,
            "witness": None if self.witness is None else str(self.witness),
            "per_output": [float(v) for v in self.per_output],
        }
