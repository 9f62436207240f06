"""``po.samples_needed``: how many reports an audit of a sampler needs to show a violation.

A claim ``ε`` is violated by a channel whose realized ε is ``ε′ > ε``. The audit shows it when its lower
bound exceeds ``ε``. For the test the audit would choose on the true channel
(:mod:`privopt.audit.event_selection`), the normal approximation of its statistic ``θ̂ ~ N(θ, s²/M)``
(``M`` reports in its two streams, ``s`` the standard error of one report at the best split) gives the
power ``Φ((θ − ε)√M/s − z_{1−α})``; the smallest ``M`` with power at least ``power`` is
``(s (z_{1−α} + z_{power}) / (θ − ε))²``, found as the smallest budget at which the selection's
prediction at level ``1 − Φ(z_{1−α} + z_{power})`` reaches ``ε``. The audit draws ``M / (1 − selection)``
reports in all, ``1/|X|`` of them per input. The selection is assumed to find that test (its reports
are ample when the alternative is clear).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from privopt.audit.event_selection import Budget, choose
from privopt.audit.sample_audit import audit_levels, candidate_rows, check_fraction, rows_at_worst
from privopt.audit.sampled_channel import SampledChannel
from privopt.data.labels import align_rows
from privopt.data.mechanism import Mechanism
from privopt.definitions.base import PrivacyDefinition
from privopt.definitions.ldp import LDP
from privopt.errors import ValidationError
from privopt.validation import check_eps

#: Reports per input of the noiseless channel the test is chosen on (its counts are ``W · this``).
_EXACT_COUNTS = 1e12
#: The largest budget searched (reports in the test's streams).
_MAX_BUDGET = 1e13


def samples_needed(
    eps: float,
    eps_alt: float | None = None,
    *,
    mechanism: Mechanism | None = None,
    definition: PrivacyDefinition | None = None,
    confidence: float = 0.99,
    power: float = 0.9,
    alternative: str = "two-sided",
    selection: float | None = None,
) -> int:
    """Reports per input that :func:`privopt.audit_sampler` needs to show that a claim ``eps`` is
    violated, with probability ``power``, at ``confidence`` (module docstring for the approximation).

    The alternative is either ``eps_alt`` — binary randomized response at ``ε′ = eps_alt``, the channel
    with a given realized ε whose violation is easiest to see — or the channel ``mechanism`` itself,
    audited under ``definition`` (default ``po.LDP(eps)``). ``alternative`` and ``selection`` are those
    of the audit.

    Examples
    --------
    >>> import privopt as po
    >>> po.samples_needed(1.0, 1.2)
    2092
    """
    eps = check_eps(eps)
    if mechanism is None:
        if eps_alt is None:
            raise ValidationError("eps_alt", "the alternative ε′ (or a mechanism)", "None")
        alt = check_eps(eps_alt, "eps_alt")
        if not alt > eps:
            raise ValidationError("eps_alt", f"an alternative ε′ > eps = {eps:.6g}", f"{alt:.6g}")
        mechanism = Mechanism(
            [[math.exp(alt) / (1 + math.exp(alt)), 1 / (1 + math.exp(alt))],
             [1 / (1 + math.exp(alt)), math.exp(alt) / (1 + math.exp(alt))]],
            name=f"RR(eps={alt:.4g})",
        )  # fmt: skip
    elif eps_alt is not None:
        raise ValidationError("eps_alt", "None when a mechanism is the alternative", repr(eps_alt))
    if not isinstance(mechanism, Mechanism):
        raise ValidationError(
            "mechanism", "a privopt.Mechanism (the alternative channel)", type(mechanism).__name__
        )
    definition = LDP(eps) if definition is None else definition.with_eps(eps)
    if not isinstance(definition, PrivacyDefinition):
        raise ValidationError(
            "definition", "a privacy definition such as po.LDP(eps)", type(definition).__name__
        )
    levels = audit_levels(confidence, alternative)
    if levels.alpha_lower <= 0:
        raise ValidationError(
            "alternative", "'two-sided' or 'greater' (a lower bound shows a violation)", repr(alternative)
        )
    if isinstance(power, bool) or not isinstance(power, (int, float)) or not 0.0 < power < 1.0:
        raise ValidationError("power", "a probability in (0, 1), e.g. 0.9", repr(power))
    fraction = check_fraction(selection, {"two-sided": 0.5, "greater": 0.2}[levels.alternative])
    labels = definition.input_labels() or mechanism.input_labels
    aligned = align_rows(mechanism, tuple(labels))
    counts = np.rint(aligned.matrix * _EXACT_COUNTS).astype(np.int64)
    channel = SampledChannel(tuple(labels), aligned.output_labels, counts)
    level = float(norm.sf(norm.isf(levels.alpha_lower) + norm.isf(1.0 - power)))
    candidates = candidate_rows(definition, tuple(labels), channel)
    if any(rows.distribution is not None for rows in candidates):
        candidates += rows_at_worst(definition, tuple(labels), aligned, with_center=False)

    def reaches(budget: float) -> bool:
        chosen = choose(candidates, channel, Budget(total=budget), level)
        return chosen is not None and chosen.predicted > eps

    if not reaches(_MAX_BUDGET):
        raise ValidationError(
            "mechanism",
            f"a channel whose realized ε under {definition} exceeds eps = {eps:.6g} by a margin an audit can see",
            f"{mechanism.summary}",
        )
    low, high = 1.0, _MAX_BUDGET
    while high - low > max(1.0, 1e-4 * low):
        middle = math.sqrt(low * high) if high > 4 * low else 0.5 * (low + high)
        low, high = (low, middle) if reaches(middle) else (middle, high)
    total = math.ceil(high / (1.0 - fraction))
    return math.ceil(total / len(labels))
