"""Labels are the truth: match a mechanism's rows to the inputs a definition or a utility is about.

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

from collections.abc import Hashable

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
    if unlabelled(own) or unlabelled(labels):
        return mechanism
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
            "or none (the default 0, 1, ... keep their position)",
            f"labels that match nothing: {_preview(unmatched)}",
        )
    order = [index[label] for label in labels]
    return Mechanism(mechanism.matrix[order], labels, mechanism.output_labels, name=mechanism.name)
