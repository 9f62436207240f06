"""Finite sets of distributions and the single point (the non-robust case)."""

from __future__ import annotations

from collections.abc import Iterable

from numpy.typing import ArrayLike

from privopt.data.distribution import JointDistribution, as_distribution
from privopt.errors import ShapeError, ValidationError
from privopt.sets.base import UncertaintySet


class FiniteSet(UncertaintySet):
    """A finite collection of distributions: the definition must hold for each member.

    For PML, which is affine in the prior, holding at every member is the same as holding on their
    convex hull (PML paper Cor. 1). LDP w.r.t. S and LIP are *not* affine in the joint ``P`` (the
    conditional ``P(u|s)`` is a ratio), so there the set means exactly its members, not their hull;
    :func:`~privopt.audit` reports the worst member. All members share one shape.
    """

    #: Its reference distribution is one of its members.
    contains_reference = True

    def __init__(self, distributions: Iterable[JointDistribution | ArrayLike]) -> None:
        if isinstance(distributions, str | bytes | JointDistribution) or not isinstance(
            distributions, Iterable
        ):
            raise ValidationError(
                "distributions", "a collection of distributions (a list of arrays or JointDistributions)",
                type(distributions).__name__,
            )  # fmt: skip
        items = tuple(as_distribution(p, f"distributions[{i}]") for i, p in enumerate(distributions))
        if not items:
            raise ValidationError("distributions", "at least one distribution", "an empty collection")
        first = items[0]
        aligned = []
        for i, p in enumerate(items):
            if p.shape != first.shape:
                raise ShapeError(
                    f"distributions[{i}]", f"shape {first.shape} like distributions[0]", f"{p.shape}"
                )
            if (p.s_labels, p.u_labels) != (first.s_labels, first.u_labels):
                default = (tuple(range(p.n_s)), tuple(range(p.n_u)))
                if (p.s_labels, p.u_labels) != default:
                    raise ShapeError(
                        f"distributions[{i}]",
                        "the labels of distributions[0] (or none)",
                        f"{p.s_labels} × {p.u_labels}",
                    )
                # An unlabelled member takes the set's labels (members share one alphabet).
                p = JointDistribution(
                    p.probabilities, s_labels=first.s_labels, u_labels=first.u_labels, n=p.n
                )
            aligned.append(p)
        self._distributions = tuple(aligned)

    @property
    def distributions(self) -> tuple[JointDistribution, ...]:
        return self._distributions

    @property
    def shape(self) -> tuple[int, int]:
        return self.distributions[0].shape

    def members(self) -> tuple[JointDistribution, ...]:
        return self.distributions

    def __len__(self) -> int:
        return len(self.distributions)

    def __repr__(self) -> str:
        return f"FiniteSet({len(self.distributions)} distributions of shape {self.shape})"


class Point(UncertaintySet):
    """The set ``{P}``: the distribution is known (the non-robust mechanism NR of Entropy §8)."""

    #: Its reference distribution is one of its members.
    contains_reference = True

    def __init__(self, distribution: JointDistribution | ArrayLike) -> None:
        self._distribution = as_distribution(distribution, "distribution")

    @property
    def distribution(self) -> JointDistribution:
        return self._distribution

    @property
    def shape(self) -> tuple[int, int]:
        return self.distribution.shape

    def members(self) -> tuple[JointDistribution, ...]:
        return (self.distribution,)

    def __repr__(self) -> str:
        return f"Point({self.distribution!r})"
