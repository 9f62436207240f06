"""Uncertainty sets: the distributions a robust privacy definition must hold for.

A set ``F`` of distributions on ``X = S × U`` (Entropy paper §3, PML paper §III). Finite sets
(:class:`~privopt.sets.Point`, :class:`~privopt.sets.FiniteSet`) are handled exactly member by member;
for a constraint that is affine in ``P`` (PML) that is also exact on their convex hull (DESIGN.md §3,
the vertex rule).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from privopt.data.distribution import JointDistribution


class UncertaintySet(ABC):
    """A set of joint distributions on ``X = S × U`` with a fixed shape ``(|S|, |U|)``."""

    @property
    @abstractmethod
    def shape(self) -> tuple[int, int]:
        """``(|S|, |U|)`` of every distribution in the set."""

    @property
    def n_s(self) -> int:
        return self.shape[0]

    @property
    def n_u(self) -> int:
        return self.shape[1]

    @property
    def n_x(self) -> int:
        return self.shape[0] * self.shape[1]

    def members(self) -> tuple[JointDistribution, ...] | None:
        """The listed distributions of a finite set; ``None`` for sets that are not finite."""
        return None

    def reference(self) -> JointDistribution | None:
        """A distribution that labels the alphabet (the centre or first member), if there is one."""
        members = self.members()
        return members[0] if members else None
