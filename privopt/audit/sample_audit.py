"""Audits of an implementation from its reports: ``po.audit_sampler`` and ``po.audit_samples``.

The realized ε of the channel a sampler implements is bracketed by ``[eps_lower, eps_upper]`` at a
stated confidence (docs/sample-audits.md has the statistics, their assumptions and references):

- **Lower end** (sample splitting). A fraction of the reports — drawn for every input in equal
  numbers by :func:`audit_sampler`, a random part of each input's logged reports in
  :func:`audit_samples` — chooses a row of the definition, an event and a test
  (:mod:`privopt.audit.event_selection`). Fresh reports then run that one exact test
  (:mod:`privopt.audit.epsilon_tests`) in two streams: stream A's inputs drawn from the row's numerator
  weights, stream B's from its denominator weights, each with a Poisson number of reports (drawn so by
  :func:`audit_sampler`; taken from the logged reports by Poisson thinning in :func:`audit_samples`).
  For a robust definition the row is evaluated at a distribution of the set, found by the exact audit
  of the selection reports' plug-in channel, so the bound holds for the realized ε over the set.
- **Upper end**. A box that holds every entry of the channel at once (:mod:`privopt.audit.sampled_channel`)
  from reports of fixed numbers per input, audited by the exact audit's own parts with numerators at
  its upper corner and denominators at its lower corner (:class:`privopt.audit.robust.Columns`).

``alternative="two-sided"`` spends ``α/2`` on each end, so that ``[eps_lower, eps_upper]`` holds at
``confidence``; ``"greater"`` gives a lower bound at ``confidence`` (``eps_upper = inf``) and
``"less"`` an upper bound (``eps_lower = 0``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privopt.audit.epsilon_tests import (
    log_odds_estimate,
    log_ratio_estimate,
    odds_lower_bound,
    ratio_lower_bound,
)
from privopt.audit.event_selection import Budget, ChosenTest, Rows, choose
from privopt.audit.exact import audit_parts, plain_rows, split_pairs
from privopt.audit.report import SampleAuditReport, SampleWitness
from privopt.audit.robust import Columns
from privopt.audit.sampled_channel import SampledChannel
from privopt.audit.sampling import (
    Stream,
    as_seed_sequence,
    check_parallel,
    check_sampler,
    child_seed,
    draw,
)
from privopt.data.labels import input_mapping
from privopt.data.mechanism import Mechanism
from privopt.definitions.base import PrivacyDefinition
from privopt.errors import ShapeError, ValidationError
from privopt.sets.l1 import L1Ball
from privopt.sets.renyi import RenyiBall
from privopt.tolerances import AUDIT_EPS_ATOL

ALTERNATIVES = ("two-sided", "greater", "less")
#: Reports per input, at least, that choose the test (fewer say nothing about which event leaks).
MIN_SELECTION_PER_INPUT = 1
#: Rounds of the search for a distribution of a robust definition's set (each re-audits the plug-in
#: channel merged to the chosen event).
_ROBUST_ROUNDS = 2
#: Outputs named in a note about an unbounded upper end.
_NOTE_OUTPUTS = 3


@dataclass(frozen=True)
class Levels:
    """What an audit asks for: the error allowed on each end (0: that end is not computed)."""

    confidence: float
    alternative: str
    alpha_lower: float
    alpha_upper: float


def audit_levels(confidence: object, alternative: object) -> Levels:
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 < confidence < 1.0:
        raise ValidationError("confidence", "a number in (0, 1), e.g. 0.99", repr(confidence))
    if alternative not in ALTERNATIVES:
        raise ValidationError(
            "alternative", f"one of {', '.join(map(repr, ALTERNATIVES))}", repr(alternative)
        )
    alpha = 1.0 - float(confidence)
    lower = {"two-sided": alpha / 2, "greater": alpha, "less": 0.0}[str(alternative)]
    upper = {"two-sided": alpha / 2, "greater": 0.0, "less": alpha}[str(alternative)]
    return Levels(float(confidence), str(alternative), lower, upper)


def _check_definition(definition: object) -> PrivacyDefinition:
    if not isinstance(definition, PrivacyDefinition):
        raise ValidationError(
            "definition", "a privacy definition such as po.LDP(eps)", type(definition).__name__
        )
    return definition


def check_fraction(selection: object, default: float) -> float:
    if selection is None:
        return default
    if isinstance(selection, bool) or not isinstance(selection, (int, float)) or not 0.0 < selection < 1.0:
        raise ValidationError(
            "selection", "a fraction in (0, 1) of the reports that choose the test", repr(selection)
        )
    return float(selection)


def _preview(items: Sequence[object], limit: int = 5) -> str:
    shown = ", ".join(map(repr, list(items)[:limit]))
    return shown + (", ..." if len(items) > limit else "")


def _inputs(
    definition: PrivacyDefinition, inputs: Iterable[Hashable] | None
) -> tuple[tuple[Hashable, ...], tuple[Hashable, ...]]:
    """The inputs to audit (the definition's labels, in its order, when it has them) and the value the
    sampler is called with for each: the input as the caller named it — a label, its text or a flat
    index (:func:`~privopt.data.labels.input_mapping`)."""
    own = definition.input_labels()
    if inputs is None:
        if own is None:
            raise ValidationError(
                "inputs",
                f"the input labels to draw reports for ({definition.name} does not fix them)",
                "None",
            )
        return own, own
    if isinstance(inputs, (str, bytes)) or not isinstance(inputs, Iterable):
        raise ValidationError("inputs", "a sequence of input labels", type(inputs).__name__)
    given = tuple(inputs)
    for x in given:
        try:
            hash(x)
        except TypeError:
            raise ValidationError("inputs", "hashable input labels", repr(x)) from None
    if len(set(given)) != len(given):
        raise ValidationError(
            "inputs", "distinct input labels", _preview([x for x in given if given.count(x) > 1])
        )
    if len(given) < 2:
        raise ValidationError("inputs", "at least two input labels", repr(given))
    if own is None:
        return given, given
    called = {label: value for value, label in input_mapping(given, own, "inputs", definition.name).items()}
    missing = [x for x in own if x not in called]
    if missing:
        raise ShapeError(
            "inputs", f"every input of {definition.name} ({_preview(own)})", f"none for {_preview(missing)}"
        )
    return own, tuple(called[x] for x in own)


def _declared(outputs: Iterable[Hashable] | None) -> tuple[Hashable, ...]:
    if outputs is None:
        return ()
    if isinstance(outputs, (str, bytes)) or not isinstance(outputs, Iterable):
        raise ValidationError(
            "outputs", "a sequence of the outputs the sampler can report", type(outputs).__name__
        )
    declared = tuple(outputs)
    try:
        if len(set(declared)) != len(declared):
            raise ValidationError("outputs", "distinct outputs", _preview(declared))
    except TypeError:
        raise ValidationError("outputs", "hashable outputs", _preview(declared)) from None
    return declared


def _check_reports_declared(channel: SampledChannel, declared: tuple[Hashable, ...]) -> None:
    if declared and channel.n_outputs > len(declared):
        extra = channel.outputs[len(declared) :]
        raise ValidationError(
            "outputs", "every report the sampler produced", f"reports not declared: {_preview(extra)}"
        )


# ---------------------------------------------------------------------- candidates
def candidate_rows(
    definition: PrivacyDefinition, labels: tuple[Hashable, ...], channel: SampledChannel
) -> list[Rows]:
    """The rows a test may use: the definition's own rows that are the constraint, and for its robust
    pairs the rows at distributions of its set found by auditing the selection reports' plug-in."""
    layout, plain, l1, interval = split_pairs(definition, labels)
    rows = []
    if plain:
        rows.append(Rows.of(plain_rows(definition, layout, plain)))
    if l1 or interval:
        plug_in = Mechanism(channel.smoothed(), labels, channel.outputs)
        rows.extend(rows_at_worst(definition, labels, plug_in, with_center=True))
    return rows


def rows_at_worst(
    definition: PrivacyDefinition, labels: tuple[Hashable, ...], plug_in: Mechanism, *, with_center: bool
) -> list[Rows]:
    """Rows of the whole definition at the distributions of its set where the exact audit of
    ``plug_in`` finds its lower end (and at the set's centre)."""
    F = definition.uncertainty
    assert F is not None
    found = [
        part.worst for part in audit_parts(Columns.of(plug_in), definition, labels) if part.worst is not None
    ]
    reference = F.reference()
    if with_center and reference is not None:
        found.append(reference.p_x)
    rows = []
    for flat in found:
        # A polytope's part returns one of its vertices; a ball's points are checked to lie in it.
        if isinstance(F, (RenyiBall, L1Ball)) and not F.contains(flat):
            continue
        (P,) = F.labelled(np.asarray(flat)[None, :])
        pairs = definition.with_uncertainty(P).ratio_pairs(input_labels=labels)
        rows.append(Rows.of(pairs, np.asarray(flat, dtype=np.float64)))
    return rows


def _chosen_test(
    definition: PrivacyDefinition,
    labels: tuple[Hashable, ...],
    channel: SampledChannel,
    budget: Budget,
    alpha: float,
) -> ChosenTest | None:
    candidates = candidate_rows(definition, labels, channel)
    chosen = choose(candidates, channel, budget, alpha)
    robust = any(rows.distribution is not None for rows in candidates)
    for _ in range(_ROBUST_ROUNDS - 1):
        if chosen is None or not robust:
            break
        # Re-audit the plug-in channel merged to the chosen event: the worst distribution for it.
        inside = np.array([y in set(chosen.event) for y in channel.outputs])
        smoothed = channel.smoothed()
        merged = np.column_stack([smoothed[:, inside].sum(axis=1), smoothed[:, ~inside].sum(axis=1)])
        plug_in = Mechanism(merged, labels, ("event", "rest"))
        extra = rows_at_worst(definition, labels, plug_in, with_center=False)
        better = choose(extra, channel, budget, alpha) if extra else None
        if better is not None and better.predicted > chosen.predicted:
            chosen = better
    return chosen


# ---------------------------------------------------------------------- the test
@dataclass(frozen=True)
class _Outcome:
    """The lower end and its witness."""

    bound: float
    witness: SampleWitness | None
    streams: tuple[int, int]
    note: str | None = None


def _stream(weights: np.ndarray, labels: tuple[Hashable, ...]) -> Stream:
    support = np.flatnonzero(weights > 0)
    if support.size == 1:
        return Stream((labels[int(support[0])],))
    probabilities = weights[support] / weights[support].sum()
    return Stream(tuple(labels[int(i)] for i in support), tuple(float(p) for p in probabilities))


def _in_event(counter: Counter[Hashable], event: frozenset[Hashable]) -> int:
    return sum(count for report, count in counter.items() if report in event)


def _outcome(
    chosen: ChosenTest,
    counts: tuple[int, int],
    sizes: tuple[int, int],
    means: tuple[float, float],
    alpha: float,
) -> _Outcome:
    """The exact test on the streams' counts (``means``: the Poisson means of the streams)."""
    c_a, c_b = counts
    n_a, n_b = sizes
    scale = chosen.scale
    if chosen.test == "odds":
        log_bound = odds_lower_bound(c_a, n_a, c_b, n_b, alpha) / 2.0
        estimate = log_odds_estimate(c_a, n_a, c_b, n_b)
        estimate = None if estimate is None else estimate / 2.0
    else:
        shift = math.log(chosen.numerator.sum()) - math.log(chosen.denominator.sum())
        log_bound = ratio_lower_bound(c_a, means[0], c_b, means[1], alpha) + shift
        estimate = log_ratio_estimate(c_a, means[0], c_b, means[1])
        estimate = None if estimate is None else estimate + shift
    bound = log_bound / scale
    witness = SampleWitness(
        output=chosen.event,
        pair=chosen.label,
        log_ratio=bound,
        test=chosen.test,
        counts=(c_a, c_b),
        sizes=(n_a, n_b),
        estimate=None if estimate is None else estimate / scale,
        distribution=None if chosen.rows.distribution is None else tuple(chosen.rows.distribution.tolist()),
    )
    return _Outcome(max(0.0, bound), witness, (n_a, n_b))


# ---------------------------------------------------------------------- the upper end
def _upper(
    definition: PrivacyDefinition,
    labels: tuple[Hashable, ...],
    channel: SampledChannel,
    alpha: float,
    declared: bool,
) -> tuple[float, np.ndarray, list[str]]:
    """The upper end over the simultaneous region of ``channel`` (module docstring), per output, and
    notes on what it assumes."""
    low, high = channel.region(alpha)
    parts = audit_parts(Columns(high, low, channel.outputs), definition, labels)
    per_output = np.max(np.vstack([part.upper_per_output for part in parts]), axis=0)
    upper = float(per_output.max()) if per_output.size else 0.0
    notes = []
    if not declared:
        notes.append(
            f"the upper end covers the {channel.n_outputs} outputs seen; an output never seen could leak "
            "more (declare every possible output with outputs=)"
        )
    unbounded = [channel.outputs[j] for j in np.flatnonzero(np.isinf(per_output))]
    if unbounded:
        notes.append(
            f"the upper end is unbounded: output(s) {_preview(unbounded, _NOTE_OUTPUTS)} were never reported "
            "for some input, and a ratio over a probability that may be 0 has no finite bound"
        )
    return upper, per_output, notes


def _report(
    definition: PrivacyDefinition,
    levels: Levels,
    channel: SampledChannel,
    outcome: _Outcome | None,
    upper: tuple[float, np.ndarray, list[str]] | None,
    tolerance: float,
    *,
    samples: int,
    selection: int,
    method: str,
) -> SampleAuditReport:
    lower = 0.0 if outcome is None else outcome.bound
    notes: list[str] = []
    if upper is None:
        high, per_output = math.inf, np.full(channel.n_outputs, np.inf)
    else:
        high, per_output, notes = upper
    if outcome is not None and outcome.note:
        notes = [outcome.note, *notes]
    return SampleAuditReport(
        definition=str(definition),
        target=definition.eps,
        lower=lower,
        upper=max(high, lower) if upper is not None else math.inf,
        satisfied=lower <= definition.eps + tolerance,
        witness=None if outcome is None else outcome.witness,
        per_output=per_output,
        tolerance=tolerance,
        method=method,
        confidence=levels.confidence,
        alternative=levels.alternative,
        outputs=channel.outputs,
        samples=samples,
        per_input={x: int(n) for x, n in zip(channel.inputs, channel.sizes.tolist(), strict=True)},
        selection=selection,
        estimation=(0, 0) if outcome is None else outcome.streams,
        notes=tuple(notes),
    )


def _method(chosen: ChosenTest | None, logged: bool) -> str:
    upper = "upper: simultaneous Clopper–Pearson box"
    if chosen is None:
        return f"sample audit; {upper}"
    test = "conditional odds-ratio test" if chosen.test == "odds" else "conditional binomial ratio test"
    how = "Poisson-thinned logged reports" if logged else "Poisson streams"
    return f"sample audit: {test} on {how}, chosen on separate reports; {upper}"


def _minimum_estimation(alpha: float) -> int:
    """Reports in each stream below which no count can give a bound above 0: all ``t`` reports in the
    event from stream A give ``θ_L = α^{1/t}``, above ½ only when ``t > log α / log ½``."""
    return math.floor(math.log(alpha) / math.log(0.5)) + 1


def _check_tolerance(tolerance: object) -> float:
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not tolerance >= 0.0:
        raise ValidationError("tolerance", "a number >= 0", repr(tolerance))
    return float(tolerance)


def _total_reports(n: object, n_per_input: object, inputs: int) -> int:
    """The reports to draw in all, from ``n`` (in all) or ``n_per_input`` (one of them)."""
    if (n is None) == (n_per_input is None):
        raise ValidationError(
            "n",
            "the reports to draw: n= in all or n_per_input= for each input (as po.samples_needed gives), "
            "one of them",
            "both" if n is not None else "neither",
        )
    argument, value = ("n", n) if n is not None else ("n_per_input", n_per_input)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValidationError(argument, "a positive number of reports", repr(value))
    return int(value) if argument == "n" else int(value) * inputs


# ---------------------------------------------------------------------- po.audit_sampler
def audit_sampler(
    sampler: Callable[..., Any],
    definition: PrivacyDefinition,
    inputs: Iterable[Hashable] | None = None,
    *,
    n: int | None = None,
    n_per_input: int | None = None,
    confidence: float = 0.99,
    alternative: str = "two-sided",
    selection: float | None = None,
    outputs: Iterable[Hashable] | None = None,
    rng: object = None,
    vectorized: bool | None = None,
    n_jobs: int = 1,
    client: Any = None,
    progress: bool = True,
    tolerance: float = AUDIT_EPS_ATOL,
) -> SampleAuditReport:
    """Audit the code of a mechanism: bracket the realized ε of the channel ``sampler`` implements.

    Parameters
    ----------
    sampler:
        ``sampler(x, rng)`` returns one report (any hashable value) for the input labelled ``x``,
        drawing its randomness from the numpy Generator ``rng``; or, with ``vectorized=True`` (or the
        attribute ``sampler.vectorized = True``), ``sampler(xs, rng)`` returns one report per label of
        the array ``xs``.
    definition:
        The privacy definition (robust definitions: ε over their set, as :func:`privopt.audit`).
    inputs:
        What the sampler is called with, one value per input of the definition: its labels, their
        text, or flat indices ``0, ..., |X|−1`` in the definition's order, as :func:`privopt.audit`
        reads a matrix's rows (docs/concepts.md, "Inputs: labels and flat indices"). Default:
        ``sampler.inputs`` when the sampler has them (:func:`privopt.clients.mechanism_sampler`'s are
        its mechanism's labels), else the definition's labels. A definition with labels needs them all.
    n, n_per_input:
        Reports to draw: ``n`` in all, or ``n_per_input`` for each input (``n = n_per_input · |X|``;
        :func:`privopt.samples_needed` returns a number per input). Give one of them. A fraction
        ``selection`` of ``n`` is drawn in equal numbers for every input; it chooses the test and
        bounds ε from above. The rest goes to the test's two streams, whose sizes are Poisson with
        means summing to it (docs/sample-audits.md).
    confidence, alternative:
        ``"two-sided"`` (default): ``[eps_lower, eps_upper]`` holds at ``confidence``;
        ``"greater"``: ``eps_lower`` alone at ``confidence``; ``"less"``: ``eps_upper`` alone.
    selection:
        Fraction of ``n`` that chooses the test (default 0.5 for a two-sided audit, whose upper end
        also uses it; 0.2 for ``"greater"``).
    outputs:
        Every output the sampler can report, if known: the upper end then covers outputs never seen.
    rng:
        Seed of the run (an int, a ``SeedSequence`` or a ``Generator``); the same seed gives the same
        result with any ``n_jobs`` or ``client``.
    n_jobs, client:
        Draw in parallel with joblib (``n_jobs``, -1 for every core) or on a Dask ``client``.
    progress:
        Show progress of long runs.

    Returns
    -------
    SampleAuditReport
        ``eps_lower``, ``eps_upper``, ``satisfied`` (False: a violation shown at ``confidence``), the
        witness test and the sample sizes.

    Examples
    --------
    >>> import numpy as np, privopt as po
    >>> W = po.mechanisms.grr(2, 1.0)
    >>> sampler = po.clients.mechanism_sampler(W)
    >>> report = po.audit_sampler(sampler, po.LDP(1.0), n=20_000, rng=1, progress=False)
    >>> 0.8 < report.eps_lower <= 1.0 <= report.eps_upper, report.satisfied
    (True, True)
    """
    definition = _check_definition(definition)
    levels = audit_levels(confidence, alternative)
    tolerance = _check_tolerance(tolerance)
    is_vectorized = check_sampler(sampler, vectorized)
    jobs = check_parallel(n_jobs, client)
    if inputs is None:
        inputs = getattr(sampler, "inputs", None)
    labels, called = _inputs(definition, inputs)
    declared = _declared(outputs)
    n = _total_reports(n, n_per_input, len(labels))
    wants_lower = levels.alpha_lower > 0
    default = {"two-sided": 0.5, "greater": 0.2, "less": 0.5}[levels.alternative]
    fraction = check_fraction(selection, default) if wants_lower else 1.0
    needed = len(labels) * MIN_SELECTION_PER_INPUT
    if wants_lower:
        streams_min = 2 * _minimum_estimation(levels.alpha_lower)
        needed = max(math.ceil(needed / fraction), math.ceil(streams_min / (1.0 - fraction)))
    if n < needed:
        raise ValidationError(
            "n" if n_per_input is None else "n_per_input",
            f"at least {needed} reports in all ({math.ceil(needed / len(labels))} per input) for {len(labels)} inputs at "
            f"{100 * levels.confidence:g} % (fewer cannot bound ε above 0; po.samples_needed gives the "
            "number per input for a given power)",
            str(n if n_per_input is None else n_per_input),
        )
    root = as_seed_sequence(rng)
    n_first = n if not wants_lower else round(fraction * n)
    per_input = [n_first // len(labels) + (1 if i < n_first % len(labels) else 0) for i in range(len(labels))]
    options = {"vectorized": is_vectorized, "n_jobs": jobs, "client": client, "progress": progress}
    counters = draw(
        sampler,
        [Stream((x,)) for x in called],
        per_input,
        seed=root,
        phase=0,
        description=f"sampling {len(labels)} inputs",
        **options,
    )
    channel = SampledChannel.from_counters(labels, counters, declared)
    _check_reports_declared(channel, declared)
    outcome, chosen = None, None
    drawn = n_first
    if wants_lower:
        chosen = _chosen_test(
            definition, labels, channel, Budget(total=float(n - n_first)), levels.alpha_lower
        )
        if chosen is not None:
            means = chosen.means
            sizes_rng = np.random.default_rng(child_seed(root, 1, 0))
            sizes = (int(sizes_rng.poisson(means[0])), int(sizes_rng.poisson(means[1])))
            streams = [_stream(chosen.numerator, called), _stream(chosen.denominator, called)]
            tested = draw(
                sampler, streams, sizes, seed=root, phase=2, description="sampling the test", **options
            )
            event = frozenset(chosen.event)
            counts = (_in_event(tested[0], event), _in_event(tested[1], event))
            outcome = _outcome(chosen, counts, sizes, means, levels.alpha_lower)
            drawn += sum(sizes)
    upper = (
        _upper(definition, labels, channel, levels.alpha_upper, bool(declared))
        if levels.alpha_upper
        else None
    )
    return _report(
        definition,
        levels,
        channel,
        outcome,
        upper,
        tolerance,
        samples=drawn,
        selection=n_first if wants_lower else 0,
        method=_method(chosen, logged=False),
    )


# ---------------------------------------------------------------------- po.audit_samples
def audit_samples(
    inputs: Sequence[Hashable],
    reports: Sequence[Hashable],
    definition: PrivacyDefinition,
    *,
    confidence: float = 0.99,
    alternative: str = "two-sided",
    selection: float = 0.2,
    outputs: Iterable[Hashable] | None = None,
    rng: object = None,
    tolerance: float = AUDIT_EPS_ATOL,
) -> SampleAuditReport:
    """Bracket the realized ε of a channel from logged ``(input, report)`` pairs.

    ``inputs`` name the definition's inputs as everywhere in privopt: its labels, their text, or flat
    indices ``x = s·|U| + u``, the rows :func:`privopt.audit` reads (docs/concepts.md, "Inputs: labels
    and flat indices"); the report counts them by label.

    The pairs must be independent given their inputs (each report drawn afresh for its input). A random
    fraction ``selection`` of each input's reports chooses the test; the test takes Poisson numbers of
    the other reports (thinning), so that it is exact. The upper end uses every report. The other
    arguments and the result are those of :func:`audit_sampler`; ``rng`` seeds the split and the
    thinning.

    Examples
    --------
    >>> import numpy as np, privopt as po
    >>> W = po.mechanisms.grr(3, 1.0)
    >>> xs = np.repeat([0, 1, 2], 20_000)
    >>> ys = W.apply(xs, rng=2)
    >>> report = po.audit_samples(xs, ys, po.LDP(1.0), rng=3)
    >>> report.eps_lower <= 1.0 <= report.eps_upper
    True
    """
    definition = _check_definition(definition)
    levels = audit_levels(confidence, alternative)
    tolerance = _check_tolerance(tolerance)
    fraction = check_fraction(selection, 0.2)
    pairs = _logged_pairs(inputs, reports)
    own = definition.input_labels()
    if own is None:
        labels = _inputs(definition, dict.fromkeys(x for x, _ in pairs))[0]
    else:
        mapping = input_mapping((x for x, _ in pairs), own, "inputs", definition.name)
        pairs = [(mapping[x], y) for x, y in pairs]
        labels = own
    declared = _declared(outputs)
    generator = np.random.default_rng(as_seed_sequence(rng))
    by_input: dict[Hashable, list[Hashable]] = {x: [] for x in labels}
    for x, y in pairs:
        by_input[x].append(y)
    empty = [x for x, ys in by_input.items() if not ys]
    if empty:
        raise ValidationError(
            "inputs", "reports for every input of the definition", f"none for {_preview(empty)}"
        )
    channel = SampledChannel.from_counters(labels, [Counter(by_input[x]) for x in labels], declared)
    _check_reports_declared(channel, declared)
    outcome, chosen, chosen_reports = None, None, 0
    if levels.alpha_lower > 0:
        shuffled = {x: [ys[i] for i in generator.permutation(len(ys))] for x, ys in by_input.items()}
        cut = {x: math.ceil(fraction * len(ys)) for x, ys in shuffled.items()}
        chosen_reports = sum(cut.values())
        selection_channel = SampledChannel.from_counters(
            labels, [Counter(shuffled[x][: cut[x]]) for x in labels], channel.outputs
        )
        rest = {x: ys[cut[x] :] for x, ys in shuffled.items()}
        available = np.array([len(rest[x]) for x in labels])
        chosen = _chosen_test(
            definition, labels, selection_channel, Budget.logged(available), levels.alpha_lower
        )
        if chosen is not None:
            outcome = _thinned_outcome(chosen, labels, rest, generator, levels.alpha_lower)
    upper = (
        _upper(definition, labels, channel, levels.alpha_upper, bool(declared))
        if levels.alpha_upper
        else None
    )
    return _report(
        definition,
        levels,
        channel,
        outcome,
        upper,
        tolerance,
        samples=len(pairs),
        selection=chosen_reports,
        method=_method(chosen, logged=True),
    )


def _logged_pairs(inputs: Sequence[Hashable], reports: Sequence[Hashable]) -> list[tuple[Hashable, Hashable]]:
    def as_list(values: object, argument: str) -> list[Any]:
        if isinstance(values, np.ndarray):
            return [tuple(row) for row in values.tolist()] if values.ndim == 2 else values.tolist()
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ValidationError(argument, "a sequence (one entry per logged report)", type(values).__name__)
        return list(values)

    xs, ys = as_list(inputs, "inputs"), as_list(reports, "reports")
    if len(xs) != len(ys):
        raise ShapeError("reports", f"one report per input ({len(xs)})", f"{len(ys)} reports")
    for argument, values in (("inputs", xs), ("reports", ys)):
        for position, value in enumerate(values):
            try:
                hash(value)
            except TypeError:
                raise ValidationError(
                    argument,
                    "hashable values (tuples, strings, numbers)",
                    f"{type(value).__name__} at position {position}",
                ) from None
    return list(zip(xs, ys, strict=True))


def _thinned_outcome(
    chosen: ChosenTest,
    labels: tuple[Hashable, ...],
    rest: dict[Hashable, list[Hashable]],
    generator: np.random.Generator,
    alpha: float,
) -> _Outcome:
    """The test on Poisson-thinned logged reports: input ``x`` gives stream A a Poisson(``κ_A a_x``)
    number of its reports (of the first half when stream B also draws on it), stream B likewise; the
    counts are then exactly those of Poisson streams with means ``κ_A |a|`` and ``κ_B |b|``. When an
    input has too few reports for its draw the test says nothing (a bound of 0, always valid)."""
    a, b = chosen.numerator, chosen.denominator
    kappa_a, kappa_b = chosen.means
    event = frozenset(chosen.event)
    counts, sizes = [0, 0], [0, 0]
    short = []
    for position, x in enumerate(labels):
        reports = rest[x]
        shared = a[position] > 0 and b[position] > 0
        half = len(reports) // 2
        for side, (weight, kappa) in enumerate(((a[position], kappa_a), (b[position], kappa_b))):
            if weight <= 0:
                continue
            pool = reports if not shared else (reports[:half] if side == 0 else reports[half:])
            m = int(generator.poisson(kappa * weight))
            if m > len(pool):
                short.append(x)
                continue
            counts[side] += sum(1 for y in pool[:m] if y in event)
            sizes[side] += m
    means = (kappa_a * float(a.sum()), kappa_b * float(b.sum()))
    if short:
        note = (
            f"the test drew more reports than logged for input(s) {_preview(short)} "
            "(probability below 0.1 % per input), so it gives no lower bound"
        )
        return _Outcome(0.0, None, (sizes[0], sizes[1]), note)
    return _outcome(chosen, (counts[0], counts[1]), (sizes[0], sizes[1]), means, alpha)
