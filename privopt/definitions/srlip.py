"""Side-channel resistant LIP for multi-attribute data (privacy-funnel paper §VI, Definition 3).

The public data is ``U = X^1 × ... × X^m`` (privopt's ``U`` is the paper's ``X``; ``S`` is latent and
the mechanism reads ``U``). A mechanism is ε-SRLIP when it is ε-LIP w.r.t. the attacker's updated
prior ``p_{S,X | x^J}`` for every subset ``J`` of attributes the attacker may know and every value
``x^J`` (eq. 22)::

    e^-ε <= P(Y=y | S=s, X^J=x^J) / P(Y=y | X^J=x^J) <= e^ε.

Both sides are linear in a column ``w`` of the channel: ``P(y|s,x^J) = Σ_x w_x P(x|s,x^J)`` over the
``x`` consistent with ``x^J``. So SRLIP is a finite family of LIP constraints, one per slice
``(J, x^J)`` (``J = ∅`` is plain LIP; ``J`` = all attributes is vacuous). Slices or pairs ``(s, x^J)``
of probability zero impose nothing (the conditional does not exist).

:class:`SRLIPComponent` is the per-attribute condition of Theorem 4 (eqs. 23–26): ``Q^j`` on ``X^j``
must be ε_j-LIP w.r.t. ``p_{S,X^j | x^J}`` for every ``J ∌ j``; the product of such components is
(Σ ε_j)-SRLIP.

Both compile through :class:`~privopt.RatioConstraints`: SRLIP as pairs of conditionals on events
(``P(Y=y | X ∈ {S=s, X^J=x^J})`` against ``P(Y=y | X ∈ {X^J=x^J})``) at the known distribution, a
component as constant pairs (the conditionals of ``X^j`` are fixed vectors).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from privopt.compiler.ratio_pairs import RatioPair
from privopt.data.distribution import JointDistribution, as_distribution
from privopt.data.statistics import Statistic, weights
from privopt.definitions.ratio_constraints import RatioConstraints
from privopt.errors import ShapeError, ValidationError
from privopt.validation import check_positive_int


def _attribute_table(P: JointDistribution, attributes: Sequence[int]) -> np.ndarray:
    if isinstance(attributes, (str, bytes)) or not isinstance(attributes, Sequence):
        raise ValidationError(
            "attributes", "the sizes (|X^1|, ..., |X^m|) of the public attributes", repr(attributes)
        )
    sizes = tuple(check_positive_int(a, f"attributes[{i}]") for i, a in enumerate(attributes))
    if not sizes:
        raise ValidationError(
            "attributes", "the sizes (|X^1|, ..., |X^m|) of the public attributes", repr(attributes)
        )
    if int(np.prod(sizes)) != P.n_u:
        raise ShapeError(
            "attributes", f"sizes whose product is |U| = {P.n_u} (U flattened row-major)", repr(sizes)
        )
    return P.probabilities.reshape((P.n_s, *sizes))


def _slices(sizes: tuple[int, ...], known: tuple[int, ...]) -> list[tuple[tuple[int, ...], np.ndarray]]:
    """Each value ``x^J`` of the known attributes with the mask of the ``u`` (row-major) consistent with it."""
    grid = np.indices(sizes).reshape(len(sizes), -1)
    out = []
    for values in itertools.product(*(range(sizes[a]) for a in known)):
        mask = np.ones(grid.shape[1], dtype=bool)
        for axis, value in zip(known, values, strict=True):
            mask &= grid[axis] == value
        out.append((values, mask))
    return out


def _event(records: list[Hashable]) -> Statistic:
    """``P(Y=y | X ∈ records)`` (never collapsed to a single input: the mechanism reads ``U``)."""
    return Statistic(((1.0, "event", tuple(records)),))


class SRLIP(RatioConstraints):
    """ε-SRLIP of a mechanism on ``U = X^1 × ... × X^m`` w.r.t. the latent ``S`` (Definition 3).

    ``attributes`` are the sizes ``(|X^1|, ..., |X^m|)``; ``U`` is their row-major flattening (the
    order of ``JointDistribution.from_frame(..., public=[...])`` when every combination occurs, or
    of ``P.reshape(|S|, |U|)`` for an array of shape ``(|S|, |X^1|, ..., |X^m|)``).
    """

    def __init__(self, eps: float, P: JointDistribution | ArrayLike, attributes: Sequence[int]) -> None:
        self.distribution = as_distribution(P, "P")
        self.table = _attribute_table(self.distribution, attributes)
        self.attributes = tuple(self.table.shape[1:])
        super().__init__(
            _srlip_pairs(self.distribution, self.attributes), eps, self.distribution, on="u", name="SRLIP"
        )

    def __str__(self) -> str:
        return f"SRLIP(eps={self.eps:.6g}, attributes={self.attributes})"


def _srlip_pairs(P: JointDistribution, sizes: tuple[int, ...]) -> list[RatioPair]:
    """LIP pairs w.r.t. ``p_{S,X | x^J}`` for every ``J`` (not all attributes) and every ``x^J``
    (eq. 22); slices and pairs of probability zero impose nothing."""
    joint = P.probabilities
    records = P.x_labels
    n_u = P.n_u
    pairs: list[RatioPair] = []
    for size in range(len(sizes)):  # J = all attributes is vacuous
        for known in itertools.combinations(range(len(sizes)), size):
            for values, mask in _slices(sizes, known):
                if joint[:, mask].sum() <= 0:
                    continue
                where = f"x^J={dict(zip(known, values, strict=True))}" if known else "no side channel"
                prior = _event([records[s * n_u + u] for s in range(P.n_s) for u in np.flatnonzero(mask)])
                for s, s_label in enumerate(P.s_labels):
                    if joint[s, mask].sum() <= 0:
                        continue
                    given_s = _event([records[s * n_u + u] for u in np.flatnonzero(mask)])
                    rule = f"SRLIP, J={known}, {where}"
                    pairs.append(
                        RatioPair.of(given_s, prior, f"{rule}: P(Y=y|S={s_label!r}, x^J) <= e^ε P(Y=y|x^J)")
                    )
                    pairs.append(
                        RatioPair.of(prior, given_s, f"{rule}: P(Y=y|x^J) <= e^ε P(Y=y|S={s_label!r}, x^J)")
                    )
    return pairs


class SRLIPComponent(RatioConstraints):
    """Theorem 4's condition on the component ``Q^j : X^j → Y^j``: ε-LIP w.r.t. ``p_{S,X^j|x^J}``
    for every ``J ⊆ {1..m} \\ {j}`` and every ``x^J`` (eqs. 23–26, with ε = ε_j)."""

    def __init__(
        self, eps: float, P: JointDistribution | ArrayLike, attributes: Sequence[int], attribute: int
    ) -> None:
        self.distribution = as_distribution(P, "P")
        self.table = _attribute_table(self.distribution, attributes)
        self.attributes = tuple(self.table.shape[1:])
        if (
            isinstance(attribute, bool)
            or not isinstance(attribute, (int, np.integer))
            or not 0 <= int(attribute) < len(self.attributes)
        ):
            raise ValidationError(
                "attribute", f"an attribute index in [0, {len(self.attributes)})", repr(attribute)
            )
        self.attribute = int(attribute)
        super().__init__(
            self._component_pairs(),
            eps,
            n_inputs=self.attributes[self.attribute],
            name="SRLIPComponent",
        )

    def _component_pairs(self) -> list[RatioPair]:
        j = self.attribute
        table = self.table
        others = tuple(a for a in range(len(self.attributes)) if a != j)
        pairs: list[RatioPair] = []
        for size in range(len(others) + 1):
            for known in itertools.combinations(others, size):
                for values in itertools.product(*(range(self.attributes[a]) for a in known)):
                    index: list[int | slice] = [slice(None)] * table.ndim
                    for axis, value in zip(known, values, strict=True):
                        index[1 + axis] = value
                    piece = np.zeros_like(table)
                    piece[tuple(index)] = table[tuple(index)]
                    summed = tuple(1 + a for a in others)
                    joint = piece.sum(axis=summed) if summed else piece  # (S, X^j)
                    total = joint.sum()
                    if total <= 0:
                        continue
                    rule = f"Thm. 4 component, J={known}, x^J={values}"
                    prior = weights(joint.sum(axis=0) / total)
                    for s, s_label in enumerate(self.distribution.s_labels):
                        mass = joint[s].sum()
                        if mass <= 0:
                            continue
                        given_s = weights(joint[s] / mass)
                        pairs.append(RatioPair.of(given_s, prior, f"{rule}: S={s_label!r} (upper)"))
                        pairs.append(RatioPair.of(prior, given_s, f"{rule}: S={s_label!r} (lower)"))
        return pairs

    def __str__(self) -> str:
        return f"SRLIPComponent(eps={self.eps:.6g}, attribute={self.attribute}, attributes={self.attributes})"
