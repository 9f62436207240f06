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
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privopt.compiler.cone import CompileOptions, ConeBuilder
from privopt.data.distribution import JointDistribution, as_distribution
from privopt.data.terms import Term
from privopt.definitions.base import PrivacyDefinition
from privopt.errors import ShapeError, ValidationError
from privopt.validation import check_eps


def _attribute_table(P: JointDistribution, attributes: Sequence[int]) -> np.ndarray:
    sizes = tuple(int(a) for a in attributes)
    if not sizes or any(a < 1 for a in sizes):
        raise ValidationError(
            "attributes", "the sizes (|X^1|, ..., |X^m|) of the public attributes", repr(attributes)
        )
    if int(np.prod(sizes)) != P.n_u:
        raise ShapeError(
            "attributes", f"sizes whose product is |U| = {P.n_u} (U flattened row-major)", repr(sizes)
        )
    return P.probabilities.reshape((P.n_s, *sizes))


def add_slice_lip_blocks(
    builder: ConeBuilder,
    table: np.ndarray,
    input_axes: tuple[int, ...],
    known: tuple[int, ...],
    s_labels: Sequence[Hashable],
    rule: str,
) -> None:
    """LIP blocks w.r.t. ``p_{S, X^{input} | x^known}`` for every value of the known attributes.

    ``table`` has axes ``(S, X^1, ..., X^m)``; the mechanism reads the attributes ``input_axes``
    (flattened row-major) and the attacker knows the attributes ``known``.
    """
    m = table.ndim - 1
    summed = tuple(1 + a for a in range(m) if a not in input_axes)
    for values in itertools.product(*(range(table.shape[1 + a]) for a in known)):
        index: list[object] = [slice(None)] * table.ndim
        for axis, value in zip(known, values, strict=True):
            index[1 + axis] = value
        piece = np.zeros_like(table)
        piece[tuple(index)] = table[tuple(index)]
        joint = (piece.sum(axis=summed) if summed else piece).reshape(table.shape[0], -1)
        total = joint.sum()
        if total <= 0:
            continue
        where = f"x^J={dict(zip(known, values, strict=True))}" if known else "no side channel"
        prior = builder.group(joint.sum(axis=0)[None, :] / total, [Term("P", None, where)], f"P(x|{where})")
        for i, s in enumerate(s_labels):
            mass = joint[i].sum()
            if mass <= 0:
                continue
            group = builder.group(joint[i][None, :] / mass, [Term("s", s, where)], f"P(x|s={s!r}, {where})")
            builder.block(group, prior, rule + " (upper)")
            builder.block(prior, group, rule + " (lower)")


@dataclass(frozen=True, eq=False)
class SRLIP(PrivacyDefinition):
    """ε-SRLIP of a mechanism on ``U = X^1 × ... × X^m`` w.r.t. the latent ``S`` (Definition 3).

    ``attributes`` are the sizes ``(|X^1|, ..., |X^m|)``; ``U`` is their row-major flattening (the
    order of ``JointDistribution.from_frame(..., public=[...])`` when every combination occurs, or
    of ``P.reshape(|S|, |U|)`` for an array of shape ``(|S|, |X^1|, ..., |X^m|)``).
    """

    eps: float
    distribution: JointDistribution
    attributes: tuple[int, ...]

    def __init__(self, eps: float, P: JointDistribution | ArrayLike, attributes: Sequence[int]) -> None:
        object.__setattr__(self, "eps", check_eps(eps))
        P = as_distribution(P, "P")
        object.__setattr__(self, "distribution", P)
        object.__setattr__(self, "attributes", tuple(int(a) for a in attributes))
        _attribute_table(P, self.attributes)

    def with_eps(self, eps: float) -> SRLIP:
        return SRLIP(eps, self.distribution, self.attributes)

    def input_size(self) -> int:
        return self.distribution.n_u

    def input_labels(self) -> tuple[Hashable, ...]:
        return self.distribution.u_labels  # type: ignore[return-value]

    def build_cone(self, builder: ConeBuilder, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        table = _attribute_table(self.distribution, self.attributes)
        m = len(self.attributes)
        axes = tuple(range(m))
        for size in range(m):  # J = all attributes is vacuous
            for known in itertools.combinations(axes, size):
                add_slice_lip_blocks(
                    builder, table, axes, known, self.distribution.s_labels, f"SRLIP, J={known}"
                )  # type: ignore[arg-type]
        return True

    def __str__(self) -> str:
        return f"SRLIP(eps={self.eps:.6g}, attributes={self.attributes})"


@dataclass(frozen=True, eq=False)
class SRLIPComponent(PrivacyDefinition):
    """Theorem 4's condition on the component ``Q^j : X^j → Y^j``: ε-LIP w.r.t. ``p_{S,X^j|x^J}``
    for every ``J ⊆ {1..m} \\ {j}`` and every ``x^J`` (eqs. 23–26, with ε = ε_j)."""

    eps: float
    distribution: JointDistribution
    attributes: tuple[int, ...]
    attribute: int

    def __init__(
        self, eps: float, P: JointDistribution | ArrayLike, attributes: Sequence[int], attribute: int
    ) -> None:
        object.__setattr__(self, "eps", check_eps(eps))
        P = as_distribution(P, "P")
        object.__setattr__(self, "distribution", P)
        object.__setattr__(self, "attributes", tuple(int(a) for a in attributes))
        _attribute_table(P, self.attributes)
        if not 0 <= int(attribute) < len(self.attributes):
            raise ValidationError(
                "attribute", f"an attribute index in [0, {len(self.attributes)})", repr(attribute)
            )
        object.__setattr__(self, "attribute", int(attribute))

    def with_eps(self, eps: float) -> SRLIPComponent:
        return SRLIPComponent(eps, self.distribution, self.attributes, self.attribute)

    def input_size(self) -> int:
        return self.attributes[self.attribute]

    def build_cone(self, builder: ConeBuilder, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        table = _attribute_table(self.distribution, self.attributes)
        others = tuple(a for a in range(len(self.attributes)) if a != self.attribute)
        for size in range(len(others) + 1):
            for known in itertools.combinations(others, size):
                add_slice_lip_blocks(
                    builder,
                    table,
                    (self.attribute,),
                    known,
                    self.distribution.s_labels,
                    f"Thm. 4 component, J={known}",  # type: ignore[arg-type]
                )
        return True

    def __str__(self) -> str:
        return f"SRLIPComponent(eps={self.eps:.6g}, attribute={self.attribute}, attributes={self.attributes})"
