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

from privopt.data.display import fields_html
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
    def eps_lower(self) -> float:
        """The lower end of the realized ε (``lower``)."""
        return self.lower

    @property
    def eps_upper(self) -> float:
        """The upper end of the realized ε (``upper``)."""
        return self.upper

    @property
    def exact(self) -> bool:
        return bool(np.isclose(self.lower, self.upper, rtol=0.0, atol=self.tolerance))  # inf, inf: True

    @property
    def interval(self) -> tuple[float, float]:
        return (self.lower, self.upper)

    @property
    def verdict(self) -> str:
        """``"PASS"`` or ``"FAIL"``."""
        return "PASS" if self.satisfied else "FAIL"

    @property
    def eps_text(self) -> str:
        """The realized ε as text: one number when exact, else ``[lower, upper]``."""
        return f"{self.upper:.6g}" if self.exact else f"[{self.lower:.6g}, {self.upper:.6g}]"

    def __str__(self) -> str:
        head = f"{self.verdict}: {self.definition}: realized eps {self.eps_text} vs target {self.target:.6g}"
        lines = [f"{head} ({self.method})"]
        if self.witness is not None:
            lines.append(f"  witness: {self.witness}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        """One line: the verdict, the realized ε, the target and the definition (``print`` shows more)."""
        return (
            f"{type(self).__name__}({self.verdict}, eps={self.eps_text}, target={self.target:.6g}, "
            f"{self.definition})"
        )

    def _fields(self) -> list[tuple[str, str]]:
        fields = [
            ("verdict", self.verdict),
            ("realized ε", self.eps_text),
            ("target ε", f"{self.target:.6g}"),
            ("definition", self.definition),
            ("method", self.method),
        ]
        return fields if self.witness is None else [*fields, ("witness", str(self.witness))]

    def _repr_html_(self) -> str:
        return fields_html(type(self).__name__, self._fields())

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


def _event_text(event: tuple[Hashable, ...], limit: int = 4) -> str:
    shown = ", ".join(map(repr, event[:limit]))
    more = f", ... ({len(event)} outputs)" if len(event) > limit else ""
    return "{" + shown + more + "}"


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


@dataclass(frozen=True)
class SampleWitness(Witness):
    """The test behind a sample audit's lower bound (:func:`privopt.audit_samples`).

    ``output`` is the event: the outputs (reports) compared, chosen on the selection reports.
    ``pair`` names the two sides (stream A draws its inputs from the numerator's weights, stream B
    from the denominator's); ``log_ratio`` is the lower bound on ε the test gives (before the clip at
    0). ``test`` is ``"ratio"`` (conditional binomial test of two Poisson counts) or ``"odds"``
    (conditional test of the odds ratio of the event and its complement, which bounds ε by half its
    logarithm). ``counts`` are the reports of each stream in the event, ``sizes`` the reports of each
    stream, ``estimate`` the plug-in ε of those counts, and ``distribution`` the distribution of the
    definition's set at which the pair is evaluated (robust definitions; flat, s-major), if any.
    """

    test: str = "ratio"
    counts: tuple[int, int] = (0, 0)
    sizes: tuple[int, int] = (0, 0)
    estimate: float | None = None
    distribution: tuple[float, ...] | None = None

    def __str__(self) -> str:
        event = self.output if isinstance(self.output, tuple) else (self.output,)
        where = " at a distribution of the set" if self.distribution is not None else ""
        kind = "odds-ratio test" if self.test == "odds" else "ratio test"
        return (
            f"{self.pair.numerator} vs {self.pair.denominator}{where}, event {_event_text(event)}: "
            f"{self.counts[0]}/{self.sizes[0]} vs {self.counts[1]}/{self.sizes[1]} reports; "
            f"eps >= {self.log_ratio:.4g} ({kind}; estimate {_number(self.estimate)})"
        )


@dataclass(frozen=True, eq=False, repr=False)
class SampleAuditReport(AuditReport):
    """The result of :func:`privopt.audit_sampler` and :func:`privopt.audit_samples`: an
    :class:`AuditReport` whose ``[lower, upper]`` (also ``eps_lower``, ``eps_upper``) holds the realized
    ε of the sampled channel at the stated ``confidence`` (docs/sample-audits.md).

    ``satisfied`` is ``eps_lower <= target + tolerance``: False means the samples show a violation at
    that confidence. ``witness`` is the test behind ``eps_lower`` (a :class:`SampleWitness`) and
    ``per_output`` the upper ends per output of ``outputs``.

    Attributes
    ----------
    confidence:
        The level of the interval (``alternative="two-sided"``) or of the one bound asked for.
    alternative:
        ``"two-sided"``, ``"greater"`` (a lower bound only: ``upper = inf``) or ``"less"`` (an upper
        bound only: ``lower = 0``).
    outputs:
        The outputs the upper end covers (observed, and declared with ``outputs=``).
    samples:
        All reports the audit drew or read.
    per_input:
        Reports of each input drawn (or read) with a size fixed in advance: the reports that choose the
        test and bound ε from above (:func:`~privopt.audit_samples`: every logged report).
    selection, estimation:
        Reports used to choose the test, and reports in the test's two streams.
    notes:
        What the numbers assume or could not use (unseen outputs, an unbounded upper end, ...).
    """

    confidence: float = 0.99
    alternative: str = "two-sided"
    outputs: tuple[Hashable, ...] = ()
    samples: int = 0
    per_input: dict[Hashable, int] = field(default_factory=dict)
    selection: int = 0
    estimation: tuple[int, int] = (0, 0)
    notes: tuple[str, ...] = ()

    @property
    def eps_text(self) -> str:
        """``[eps_lower, eps_upper] at 99 %``."""
        return f"[{self.lower:.6g}, {self.upper:.6g}] at {100 * self.confidence:g} %"

    def _fields(self) -> list[tuple[str, str]]:
        return [*super()._fields(), ("reports", str(self.samples)), *(("note", note) for note in self.notes)]

    def __str__(self) -> str:
        verdict = self.verdict
        level = f"{100 * self.confidence:g} %"
        side = {"two-sided": "", "greater": ", lower bound only", "less": ", upper bound only"}[
            self.alternative
        ]
        shown = "a violation at" if not self.satisfied else "no violation shown at"
        lines = [
            f"{verdict}: {self.definition}: realized eps in [{self.lower:.6g}, {self.upper:.6g}] "
            f"({level}{side}) vs target {self.target:.6g}: {shown} {level} confidence",
        ]
        if self.witness is not None:
            lines.append(f"  witness: {self.witness}")
        lines.append(
            f"  samples: {self.samples} reports ({self.selection} to choose the test, "
            f"{self.estimation[0]} + {self.estimation[1]} in its two streams; {self.method})"
        )
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        """A JSON-friendly summary: :meth:`AuditReport.to_dict` and the sampling fields."""
        out = super().to_dict()
        witness = self.witness
        out.update(
            confidence=self.confidence,
            alternative=self.alternative,
            samples=self.samples,
            selection=self.selection,
            estimation=list(self.estimation),
            per_input={str(label): count for label, count in self.per_input.items()},
            outputs=[str(y) for y in self.outputs],
            notes=list(self.notes),
        )
        if isinstance(witness, SampleWitness):
            event = witness.output if isinstance(witness.output, tuple) else (witness.output,)
            out["test"] = {
                "kind": witness.test,
                "event": [str(y) for y in event],
                "numerator": str(witness.pair.numerator),
                "denominator": str(witness.pair.denominator),
                "counts": list(witness.counts),
                "sizes": list(witness.sizes),
                "estimate": witness.estimate,
                "bound": witness.log_ratio,
            }
        return out
