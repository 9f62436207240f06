"""Why the checker did not prove something: a typed outcome, never a bare string.

Every step of the checker that can fail — reading a cone's structure, deciding whether a method
applies, proving a slice bound, re-deriving a theorem — returns its result or a :class:`NotProved`: the
kind of failure (:class:`NotProvedReason`) and the words kept in the
:class:`~privopt.certificates.CertificateCheck`'s ``reason`` (docs/design.md, "One solve", step 6, and
"Extension points"). The routes type their refusals the same way with a type of their own: the checker
imports none of them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class NotProvedReason(enum.StrEnum):
    """The kind of a :class:`NotProved`."""

    CONE = "cone"  #: the cone lacks the structure the method needs
    UTILITY = "utility"  #: the utility lacks the capability the method needs
    CLAIM = "claim"  #: the claim's data (its ν, multipliers or values) do not fit or bound the cone
    SIZE = "size"  #: the claim is beyond the method's limits
    OTHER_METHOD = "other method"  #: another registered method takes this claim
    DEADLINE = "deadline"  #: the time ran out
    NUMERICS = "numerics"  #: a solver failed, or a condition the proof needs fails (e.g. pᵀw = 0)


@dataclass(frozen=True)
class NotProved:
    """The checker's typed "not proved": the reason's kind and the words kept in its verdict."""

    reason: NotProvedReason
    message: str

    def __str__(self) -> str:
        return self.message
