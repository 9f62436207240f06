"""Uncertainty sets: the distributions a robust privacy definition must hold for.

A set ``F`` of distributions on ``X = S × U`` (Entropy paper §3, PML paper §III). Finite sets
(:class:`~privopt.sets.Point`, :class:`~privopt.sets.FiniteSet`) are handled exactly member by member;
for a constraint that is affine in ``P`` (PML) that is also exact on their convex hull (docs/concepts.md,
the vertex rule).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from privopt.data.distribution import JointDistribution
from privopt.sets.counterparts import CounterpartRule, MemberRule


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

    @property
    def contains_reference(self) -> bool:
        """Whether :meth:`reference` is itself a member of the set (a point, a finite set's first member,
        a ball's centre); ``False`` unless a set says so (the chain-rule bound needs it)."""
        return False

    def l1_ball(self) -> tuple[JointDistribution, float] | None:
        """``(centre, radius)`` when the set is an ℓ1 ball (PML paper Prop. 2), else ``None``."""
        return None

    def check_compilable(self) -> None:
        """Raise, with the remedy, when a pair that depends on the distribution cannot be compiled over
        this set (an ℓ1 ball beyond PML paper Prop. 2's ``β < 2 min P̂``); nothing by default.
        ``Problem`` calls it, through the definition, when it is made (docs/concepts.md, "Sets of
        distributions")."""
        return

    def counterpart_rules(self) -> tuple[CounterpartRule, ...]:
        """The robust-counterpart rules this set supports, in order of preference
        (:mod:`privopt.sets.counterparts`); a finite set imposes each pair at each member."""
        members = self.members()
        return () if members is None else (MemberRule(members),)

    def labelled(self, flat: np.ndarray) -> tuple[JointDistribution, ...]:
        """Rows of ``flat`` (s-major distributions on ``X``) as distributions with the set's labels."""
        reference = self.reference()
        if reference is None:
            return tuple(JointDistribution(row.reshape(self.shape)) for row in flat)
        return tuple(
            JointDistribution(
                row.reshape(self.shape), s_labels=reference.s_labels, u_labels=reference.u_labels
            )
            for row in flat
        )
