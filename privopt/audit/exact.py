"""``po.audit``: the realized ε of a mechanism under a definition, pass/fail and the witness.

The audit is independent of how the mechanism was made. It matches the mechanism's rows to the
definition's inputs *by label* (:mod:`privopt.data.labels`), compiles the definition, and audits each
declared pair by the rule that compiled it:

- pairs whose rows are the constraint itself (constant, member and vertex rules; the rectangular rule
  on rectangular sets): exactly, from the rows (the realized ε of a row is its log-ratio over its scale);
- point masses against the marginal over an ℓ1 ball (ε′ transform): exactly, by the worst prior;
- pairs under the rectangular rule over a Rényi ball or a polytope: an interval
  (:mod:`privopt.audit.robust`).

Exact audits have ``lower == upper``; ``satisfied`` is decided by the upper end, so an interval audit is
never optimistic.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privopt.audit.report import AuditReport, Witness
from privopt.audit.robust import AuditPart, Columns, LowerEnd, l1_marginal_part, rectangular_part
from privopt.compiler.compile import compile_pairs, select_rule
from privopt.compiler.cone import CompileOptions, RowCone
from privopt.compiler.ratio_pairs import RatioPair, RatioPairs
from privopt.data.labels import align_rows
from privopt.data.mechanism import Mechanism
from privopt.definitions.base import PrivacyDefinition
from privopt.errors import NotSupportedError, ShapeError, ValidationError
from privopt.sets.counterparts import L1TransformRule, Layout
from privopt.sets.l1 import L1Ball
from privopt.sets.polytope import Polytope
from privopt.sets.renyi import RenyiBall
from privopt.tolerances import AUDIT_EPS_ATOL


def audit(
    mechanism: Mechanism | ArrayLike | Any,
    definition: PrivacyDefinition,
    *,
    tolerance: float = AUDIT_EPS_ATOL,
    search: bool = True,
    lower: bool = True,
) -> AuditReport:
    """Realized ε of ``mechanism`` under ``definition``, pass/fail, and the witness.

    ``mechanism`` is a :class:`~privopt.Mechanism`, a plain matrix (rows: the definition's inputs in
    its order, as the utilities take it) or an object holding one (a :class:`~privopt.Solution`). The
    mechanism's rows are matched to the definition's inputs by label, in any order; labels that match
    nothing raise a :class:`~privopt.errors.ShapeError` (an unlabelled matrix keeps its positional
    meaning).

    ``search=False`` skips the local search behind the lower end of an interval audit (Rényi balls):
    the lower end is then the best of the candidate distributions (:mod:`privopt.audit.robust`).
    ``lower=False`` does not look for the lower end at all: it is reported as 0, which holds for every
    mechanism (some output's ratio is at least 1). Either way the upper end, and with it
    ``satisfied``, is the same; a curve audits its points with ``lower=False`` (its table reads the
    verdicts).

    Examples
    --------
    >>> import privopt as po, numpy as np
    >>> report = po.audit(po.mechanisms.grr(4, np.log(2)), po.LDP(np.log(2)))
    >>> round(report.eps, 12), report.satisfied
    (0.693147180559945, True)
    """
    mechanism = _as_mechanism(mechanism)
    if not isinstance(definition, PrivacyDefinition):
        raise ValidationError(
            "definition", "a privacy definition such as po.LDP(eps)", type(definition).__name__
        )
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not tolerance >= 0.0:
        raise ValidationError("tolerance", "a number >= 0", repr(tolerance))
    if not isinstance(search, bool):
        raise ValidationError("search", "True or False", repr(search))
    if not isinstance(lower, bool):
        raise ValidationError("lower", "True or False", repr(lower))
    lower_end: LowerEnd = "none" if not lower else "search" if search else "candidates"
    return _audit_aligned(_aligned(mechanism, definition), definition, float(tolerance), lower_end)


def _as_mechanism(value: Any) -> Mechanism:
    """A Mechanism, the ``.mechanism`` of a solution or design, or a matrix as an unlabelled one."""
    if isinstance(value, Mechanism):
        return value
    held = getattr(value, "mechanism", None)
    if isinstance(held, Mechanism):
        return held
    if isinstance(value, (str, bytes)) or value is None:
        raise ValidationError("mechanism", _MECHANISM_FORM, type(value).__name__)
    try:
        matrix = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValidationError("mechanism", _MECHANISM_FORM, f"{type(value).__name__}: {exc}") from exc
    return Mechanism(matrix)


_MECHANISM_FORM = (
    "a privopt.Mechanism, a row-stochastic matrix (rows: the definition's inputs in order) or a Solution"
)


def _aligned(mechanism: Mechanism, definition: PrivacyDefinition) -> Mechanism:
    labels = definition.input_labels()
    expected = definition.input_size()
    if expected is not None and mechanism.n_inputs != expected:
        hint = ""
        F = definition.uncertainty
        if F is not None and definition.on == "x" and F.n_u > 1 and mechanism.n_inputs == F.n_u:
            hint = " (this mechanism reads U only: pass on='u')"
        raise ShapeError(
            "mechanism", f"{expected} inputs to match {definition.name}{hint}", f"{mechanism.n_inputs}"
        )
    return mechanism if labels is None else align_rows(mechanism, labels)


def _audit_aligned(
    mechanism: Mechanism, definition: PrivacyDefinition, tolerance: float, lower_end: LowerEnd = "search"
) -> AuditReport:
    """The audit of a mechanism whose rows are in the order of the definition's inputs: each pair by
    the rule that compiles it (module docstring)."""
    return _report(
        definition,
        audit_parts(Columns.of(mechanism), definition, mechanism.input_labels, lower_end),
        tolerance,
    )


def split_pairs(
    definition: PrivacyDefinition, labels: tuple[Hashable, ...]
) -> tuple[Layout, list[RatioPair], list[RatioPair], list[RatioPair]]:
    """The definition's pairs on inputs ``labels`` by how they are audited: ``(layout, plain, l1,
    interval)`` — rows that are the constraint, point masses against the marginal over an ℓ1 ball,
    and pairs under an inexact rectangular rule (module docstring)."""
    options = CompileOptions()
    layout = definition.layout(labels, options)
    F = definition.uncertainty
    rules = () if F is None else F.counterpart_rules()
    plain: list[RatioPair] = []
    l1: list[RatioPair] = []
    interval: list[RatioPair] = []
    for pair in definition.pairs_for(labels, options):
        rule = select_rule(pair, F, rules, layout, definition.name)
        if isinstance(rule, L1TransformRule):
            l1.append(pair)
        elif not rule.exact:
            interval.append(pair)
        else:
            plain.append(pair)
    return layout, plain, l1, interval


def plain_cone(definition: PrivacyDefinition, layout: Layout, plain: list[RatioPair]) -> RowCone:
    """The cone of the pairs whose compiled rows are the constraint itself."""
    return compile_pairs(plain, definition.eps, definition.uncertainty, layout, str(definition))


def plain_rows(definition: PrivacyDefinition, layout: Layout, plain: list[RatioPair]) -> RatioPairs:
    """The rows of the pairs whose compiled rows are the constraint itself."""
    return plain_cone(definition, layout, plain).pairs()


def audit_parts(
    columns: Columns,
    definition: PrivacyDefinition,
    labels: tuple[Hashable, ...],
    lower_end: LowerEnd = "search",
) -> list[AuditPart]:
    """Each group of the definition's pairs audited on ``columns`` (rows in the order of ``labels``);
    ``lower_end``: how the interval parts look for their lower ends (:func:`audit`)."""
    layout, plain, l1, interval = split_pairs(definition, labels)
    F = definition.uncertainty
    parts = []
    if plain or not (l1 or interval):
        cone = plain_cone(definition, layout, plain)
        parts.append(_rows_part(cone.pairs(), columns, cone.n_vacuous))
    if l1:
        assert isinstance(F, L1Ball)
        parts.append(l1_marginal_part(l1, F, columns, layout))
    if interval:
        if not isinstance(F, (RenyiBall, Polytope, L1Ball)):
            raise NotSupportedError(f"{definition}: no audit for an inexact counterpart over {F!r}")
        parts.append(rectangular_part(F, interval, columns, layout, lower_end))
    return parts


def _rows_part(chosen: RatioPairs, columns: Columns, vacuous: int = 0) -> AuditPart:
    """Exact leakage of the rows that are the constraint itself (``vacuous``: rows of a statistic
    against itself, left out of ``chosen``: the method says so, so that the rows and the definition's
    pairs add up)."""
    per_output, arg = chosen.leakage(columns.numerators, columns.denominators)
    realized = float(per_output.max()) if per_output.size else 0.0
    witness = None
    if per_output.size and arg[int(np.argmax(per_output))] >= 0:
        y = int(np.argmax(per_output))
        witness = Witness(columns.output_labels[y], chosen.labels[arg[y]], float(per_output[y]))
    left_out = f", {vacuous} vacuous ones left out: a statistic against itself" if vacuous else ""
    return AuditPart(realized, per_output, witness, f"exact: {chosen.n_pairs} rows{left_out}")


def _report(definition: PrivacyDefinition, parts: list[AuditPart], tolerance: float) -> AuditReport:
    """The report of a mechanism's audit from its parts."""
    per_output = np.max(np.vstack([part.upper_per_output for part in parts]), axis=0)
    worst = max(
        parts, key=lambda part: float(part.upper_per_output.max()) if part.upper_per_output.size else 0.0
    )
    upper = float(per_output.max()) if per_output.size else 0.0
    lower = min(max(part.lower for part in parts), upper)
    return AuditReport(
        definition=str(definition),
        target=definition.eps,
        lower=lower,
        upper=upper,
        satisfied=upper <= definition.eps + tolerance,
        witness=worst.witness,
        per_output=per_output,
        tolerance=tolerance,
        method="; ".join(part.method for part in parts),
    )


def realized_eps(
    mechanism: Mechanism, definition: PrivacyDefinition, true_distribution: object
) -> AuditReport:
    """The realized ε* of ``mechanism`` under the *true* distribution (Entropy paper §8.3, eq. 85):
    the same definition, audited at the single point ``P*`` instead of its uncertainty set."""
    return audit(mechanism, definition.with_uncertainty(true_distribution))
