"""Labels are the truth: match a mechanism's rows to the inputs a definition or a utility is about.

**One convention for inputs** (docs/concepts.md, "Inputs: labels and flat indices"). An input of a
definition is named by its *label* (``(s, u)`` for ``X = S × U``, as ``JointDistribution.x_labels``)
or by its *flat index* ``x = s·|U| + u``, its position in the definition's order (s-major). Every
tool takes both: the rows of a matrix or of an unlabelled mechanism are flat indices
(:func:`align_rows`), and logged or sampled inputs (``po.audit_samples``, ``po.audit_sampler``, the
CLI's ``--inputs``) are labels, their text (a CSV), or flat indices (:func:`input_mapping`).

A mechanism's row ``x`` means the input labelled ``input_labels[x]``. Whenever a mechanism meets
something that knows its own inputs (a definition's alphabet, a utility's distribution), the rows are
aligned by label, in any order (docs/design.md, "Contracts"):

- the same labels, in any order: the rows are permuted to the other side's order;
- either side *unlabelled* (its labels are the default ``0, 1, ..., n−1``): rows keep their position;
- labels written as text (a CSV round trip turns ``('a', 'u1')`` into ``"('a', 'u1')"``): matched by
  their text when that is unambiguous;
- anything else is a :class:`~privopt.errors.ShapeError` naming the labels that match nothing.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import numpy as np

from privopt.data.mechanism import Mechanism
from privopt.errors import ShapeError


def unlabelled(labels: tuple[Hashable, ...]) -> bool:
    """Whether ``labels`` are the default ``0, 1, ..., n−1`` (positions, not names)."""
    return labels == tuple(range(len(labels)))


def _preview(labels: tuple[Hashable, ...] | list[Hashable], limit: int = 6) -> str:
    shown = ", ".join(map(repr, list(labels)[:limit]))
    return shown + (", ..." if len(labels) > limit else "")


def align_rows(mechanism: Mechanism, labels: tuple[Hashable, ...], argument: str = "mechanism") -> Mechanism:
    """``mechanism`` with its rows in the order of ``labels`` (module docstring for the rules)."""
    own = mechanism.input_labels
    if own == labels:
        return mechanism
    if mechanism.n_inputs != len(labels):
        raise ShapeError(
            argument, f"{len(labels)} inputs ({_preview(labels)})", f"{mechanism.n_inputs} inputs"
        )
    if unlabelled(own) or unlabelled(labels):  # positions are kept; the rows take the requested labels
        return Mechanism(mechanism.matrix, labels, mechanism.output_labels, name=mechanism.name)
    index = {label: i for i, label in enumerate(own)}
    if set(index) != set(labels):
        text = {str(label): i for i, label in enumerate(own)}
        wanted = [str(label) for label in labels]
        if len(text) == len(own) and len(set(wanted)) == len(wanted) and set(text) == set(wanted):
            order = [text[key] for key in wanted]
            return Mechanism(mechanism.matrix[order], labels, mechanism.output_labels, name=mechanism.name)
        unmatched = [label for label in own if label not in set(labels) and str(label) not in set(wanted)]
        raise ShapeError(
            argument,
            f"input labels that match the definition's inputs ({_preview(labels)}) in any order, "
            "or none (the default 0, 1, ... are flat indices: they keep their position)",
            f"labels that match nothing: {_preview(unmatched)}",
        )
    order = [index[label] for label in labels]
    return Mechanism(mechanism.matrix[order], labels, mechanism.output_labels, name=mechanism.name)


def _flat_index(value: object, n: int) -> int | None:
    """``value`` as a flat index ``0 ≤ x < n`` (an integer, not a bool), else ``None``."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool) and 0 <= int(value) < n:
        return int(value)
    return None


def input_mapping(
    values: Iterable[Hashable], labels: tuple[Hashable, ...], argument: str, owner: str
) -> dict[Hashable, Hashable]:
    """Each distinct one of ``values`` mapped to the input label it names (module docstring): all of
    them labels, all of them the text of labels, or all of them flat indices ``0 ≤ x < n`` — these
    when no label is an integer, or the labels are ``0, ..., n−1`` themselves (otherwise an integer
    is read as a label only: it could mean either). ``owner`` names the definition in the error, a
    :class:`~privopt.errors.ShapeError` naming ``argument``, the values that match nothing and the
    labels expected."""
    distinct = list(dict.fromkeys(values))
    known = set(labels)
    if all(value in known for value in distinct):
        return {value: value for value in distinct}
    text = {str(label): label for label in labels}
    if len(text) == len(labels) and all(isinstance(value, str) and value in text for value in distinct):
        return {value: text[str(value)] for value in distinct}
    n = len(labels)
    positional = unlabelled(labels) or not any(isinstance(label, int | np.integer) for label in labels)
    indices = {value: _flat_index(value, n) if positional else None for value in distinct}
    if all(index is not None for index in indices.values()):
        return {value: labels[index] for value, index in indices.items() if index is not None}
    unmatched = [
        value
        for value in distinct
        if value not in known and str(value) not in text and indices[value] is None
    ]
    flat = f"or flat indices 0 to {n - 1} in that order" if positional else "(integers are read as labels)"
    raise ShapeError(
        argument,
        f"{owner}'s input labels ({_preview(labels)}) {flat}, all given the same way",
        _preview(unmatched or distinct),
    )
