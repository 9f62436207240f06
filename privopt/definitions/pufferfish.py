"""Pufferfish privacy (Kifer and Machanavajjhala; the Entropy paper §2.1) as ratio constraints.

A Pufferfish definition names *secrets* (events on the record space ``X = S × U``), *discriminative
pairs* of secrets, and the *data-generating distributions* ``F``. It demands, for every pair
``(s_i, s_j)``, every ``P ∈ F`` with both secrets of positive probability, and every output ``y``::

    P(Y=y | s_i) <= e^ε P(Y=y | s_j)      (and the reverse, unless ``directed=True``).

:class:`Pufferfish` is a :class:`~privopt.RatioConstraints` whose pairs are built from the secrets,
recognising the events that make it a known definition, so that the same robust-counterpart rules apply:

- the whole record space: ``P(Y=y | X ∈ X) = P(Y=y)`` (:func:`~privopt.data.statistics.marginal`);
- all records with ``S = s``: ``P(Y=y | S=s)`` (:func:`~privopt.data.statistics.given` with ``s=``);
- a single record (with ``on="u"``: its public value): a column entry, independent of ``P``.

With one secret per record and all pairs it is LDP; with one secret per sensitive value it is LDP
w.r.t. S; pairing each sensitive value with the whole space gives LIP; the *directed* pairs
(record, whole space) give PML.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

import numpy as np

from privopt.callables import call, returned
from privopt.compiler.ratio_pairs import RatioPair
from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.data.statistics import Statistic, given, marginal
from privopt.definitions.base import as_uncertainty_set
from privopt.definitions.ratio_constraints import RatioConstraints, count
from privopt.errors import ValidationError
from privopt.sets.base import UncertaintySet

Secret = Iterable[Hashable] | Callable[[Hashable], bool]


def _record_labels(F: UncertaintySet) -> tuple[tuple[Hashable, ...], JointDistribution | None]:
    reference = F.reference()
    if reference is not None:
        return reference.x_labels, reference
    n_s, n_u = F.shape
    labels = tuple((s, u) for s in range(n_s) for u in range(n_u)) if n_u > 1 else tuple(range(n_s))
    return labels, None


def _statistic(
    event: frozenset[Hashable], records: tuple[Hashable, ...], F: UncertaintySet, on: InputAlphabet
) -> Statistic:
    """The statistic ``P(Y=y | X ∈ event)``, in the most specific form the rules know."""
    if event == frozenset(records):
        return marginal()
    n_s, n_u = F.shape
    reference = F.reference()
    s_labels = reference.s_labels if reference is not None else tuple(range(n_s))
    u_labels = reference.u_labels if reference is not None else tuple(range(n_u))
    for i, s in enumerate(s_labels):
        if event == frozenset(records[i * n_u : (i + 1) * n_u]):
            return given(s=s)
    if len(event) == 1:
        (record,) = event
        index = records.index(record)
        if on == "x":  # the mechanism's input: the record itself, or its index when F has no labels
            return given(x=record if reference is not None else index)
        return given(x=u_labels[index % n_u])
    return given(event=sorted(event, key=records.index))


def _holds(predicate: Callable[[Hashable], object], argument: str, record: Hashable) -> bool:
    """A user predicate on a record: True or False, or an error naming it (:mod:`privopt.callables`)."""
    expected = "a predicate on record labels returning True or False"
    answer = call(predicate, argument, expected, record)
    if not isinstance(answer, bool | np.bool_):
        raise returned(predicate, argument, f"{expected} (at the record {record!r})", answer)
    return bool(answer)


class Pufferfish(RatioConstraints):
    """A Pufferfish privacy definition (module docstring), compiled as ratio constraints.

    Parameters
    ----------
    secrets:
        Name → event on the records ``X = S × U``: an iterable of record labels
        (``JointDistribution.x_labels``) or a predicate on them.
    discriminative_pairs:
        Pairs of secret names that must be indistinguishable.
    eps:
        Privacy parameter (nats).
    distributions:
        The data-generating distributions: a JointDistribution or an uncertainty set.
    on:
        What the mechanism reads: ``"x"`` (the record) or ``"u"`` (its public part).
    directed:
        Impose only ``P(y|s_i) <= e^ε P(y|s_j)`` for each listed pair (not the reverse).
    name:
        Used in reports.

    Attributes
    ----------
    events:
        Secret name → the set of records it stands for (predicates evaluated).
    discriminative_pairs:
        The pairs of secret names, as given.
    directed:
        Whether only one direction is imposed.
    """

    def __init__(
        self,
        secrets: Mapping[Hashable, Secret],
        discriminative_pairs: Iterable[tuple[Hashable, Hashable]],
        eps: float,
        distributions: Any,
        *,
        on: InputAlphabet = "x",
        directed: bool = False,
        name: str = "Pufferfish",
    ) -> None:
        F = as_uncertainty_set(distributions, "distributions")
        records, _ = _record_labels(F)
        if not isinstance(secrets, Mapping):
            raise ValidationError(
                "secrets", "a mapping name → event (records or a predicate)", type(secrets).__name__
            )
        if not secrets:
            raise ValidationError("secrets", "at least one named event", "an empty mapping")
        if not isinstance(directed, bool):
            raise ValidationError("directed", "True or False", repr(directed))
        events: dict[Hashable, frozenset[Hashable]] = {}
        for key, secret in secrets.items():
            if callable(secret):
                members = frozenset(r for r in records if _holds(secret, f"secrets[{key!r}]", r))
            elif isinstance(secret, (str, bytes)) or not isinstance(secret, Iterable):
                raise ValidationError(
                    f"secrets[{key!r}]", "an iterable of record labels or a predicate on them", repr(secret)
                )
            else:
                members = frozenset(secret)
            unknown = [r for r in members if r not in records]
            if unknown:
                shown = ", ".join(map(repr, records[:8]))
                raise ValidationError(f"secrets[{key!r}]", f"record labels among {shown}", repr(unknown))
            if not members:
                raise ValidationError(f"secrets[{key!r}]", "a non-empty event", "no record")
            events[key] = members
        if discriminative_pairs is None or isinstance(discriminative_pairs, (str, bytes)):
            raise ValidationError(
                "discriminative_pairs", "pairs (a, b) of secret names", repr(discriminative_pairs)
            )
        listed = []
        for item in discriminative_pairs:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise ValidationError("discriminative_pairs", "pairs (a, b) of secret names", repr(item))
            a, b = item
            for key in (a, b):
                if key not in events:
                    raise ValidationError(
                        "discriminative_pairs",
                        f"names of secrets ({', '.join(map(repr, events))})",
                        repr(key),
                    )
            listed.append((a, b))
        if not listed:
            raise ValidationError("discriminative_pairs", "at least one pair of secrets", "none")
        self.events = events
        self.discriminative_pairs = tuple(listed)
        self.directed = directed
        pairs = []
        for a, b in listed:
            left, right = (_statistic(events[k], records, F, on) for k in (a, b))
            pairs.append(RatioPair.of(left, right, f"P(Y=y|{a}) <= e^ε P(Y=y|{b})"))
            if not directed:
                pairs.append(RatioPair.of(right, left, f"P(Y=y|{b}) <= e^ε P(Y=y|{a})"))
        super().__init__(pairs, eps, F, on=on, name=name)

    def __str__(self) -> str:
        fields = [] if self.name == "Pufferfish" else [repr(self.name)]
        fields += [
            f"eps={self.eps:.6g}",
            count(len(self.events), "secret"),
            count(len(self.discriminative_pairs), "discriminative pair"),
        ]
        if self.directed:
            fields.append("directed")
        return f"Pufferfish({', '.join(fields + self._set_fields())})"
