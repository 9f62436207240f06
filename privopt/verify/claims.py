"""Claims: a paper's statement as data, ready for the checkers.

A :class:`Claim` names a statement, says where it comes from (paper and equation), declares its
symbols with their assumptions (:class:`~privopt.verify.region.Region`) and says whether it is
*expected* to hold. Known misprints ship as claims expected to fail: ``privopt verify`` exits
non-zero only when an expectation is not met (or a check errors), so the library documents the
misprints it has found instead of hiding them.

Example — Lemma 1 of the Entropy paper, ``ξ⁺`` is a root of its quadratic::

    import sympy as sp
    from privopt.verify import Claim, Identity, Param, Region

    rho, E = sp.symbols("rho E", real=True)
    xi = (E + 2 * rho - 1 + sp.sqrt((E - 1) * (E - (2 * rho - 1) ** 2))) / (2 * E * rho)
    claim = Claim(
        "my.lemma1",
        "Entropy paper Lemma 1",
        Identity(E * rho * xi**2 - (E + 2 * rho - 1) * xi + rho, 0),
        Region((Param("rho", 0, 1, lower_open=True), Param("E", 1, None))),
    )
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from privopt.errors import ValidationError
from privopt.verify.region import Region, free_names
from privopt.verify.statements import (
    AllOf,
    Identity,
    Inequality,
    Numerical,
    Optimality,
    Printed,
    Statement,
)
from privopt.verify.verdicts import Attempt

EXPECTATIONS = ("holds", "fails")
CHECKERS = ("symbolic", "certificate", "numerical")

#: A comparison with privopt's own implementation: ``(rng, points) -> Attempt`` with checker
#: ``"library"`` and outcome ``"agrees"``, ``"disagrees"`` or ``"skipped"``.
LibraryCheck = Callable[[np.random.Generator, int], Attempt]


@dataclass(frozen=True)
class Claim:
    """A statement from a paper, with its symbols, validity region and expected outcome.

    Parameters
    ----------
    name:
        A unique dotted name (``"pml.thm5.optimal"``).
    source:
        Paper and equation (``"PML paper Theorem 5, eq. (41)"``).
    statement:
        An :class:`~privopt.verify.statements.Identity`, ``Inequality``, ``AllOf``, ``Optimality``,
        ``Numerical`` or ``Printed``.
    region:
        The parameters with their assumptions and extra constraints (empty for a closed statement).
    expect:
        ``"holds"`` or ``"fails"`` (a misprint kept in the library to document it).
    description:
        One sentence on what is claimed.
    note:
        Commentary for the report (why a claim fails, what the evidence is).
    points:
        Sample points of the numerical checker (CI mode); ``full_points`` with ``PRIVOPT_FULL=1``.
    library:
        An optional comparison with privopt's implementation (it never decides the verdict).
    checkers:
        The checkers allowed to run, a subset of ``("symbolic", "certificate", "numerical")`` (always in
        that order); e.g. ``("symbolic",)`` for a claim that should only count as settled if proved.
    """

    name: str
    source: str
    statement: Statement
    region: Region = field(default_factory=lambda: Region(()))
    expect: str = "holds"
    description: str = ""
    note: str = ""
    points: int = 200
    full_points: int | None = None
    library: LibraryCheck | None = None
    checkers: tuple[str, ...] = CHECKERS

    def __post_init__(self) -> None:
        if (
            not isinstance(self.checkers, tuple)
            or not self.checkers
            or any(c not in CHECKERS for c in self.checkers)
        ):
            raise ValidationError(
                "checkers", f"a non-empty tuple, a subset of {CHECKERS}", repr(self.checkers)
            )
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValidationError("name", "a non-empty claim name", repr(self.name))
        if self.expect not in EXPECTATIONS:
            raise ValidationError("expect", "'holds' or 'fails'", repr(self.expect))
        allowed = (Identity, Inequality, AllOf, Optimality, Numerical, Printed)
        if not isinstance(self.statement, allowed):
            raise ValidationError(
                "statement",
                "an Identity, Inequality, AllOf, Optimality, Numerical or Printed statement",
                type(self.statement).__name__,
            )
        if not isinstance(self.region, Region):
            raise ValidationError("region", "a privopt.verify.Region", type(self.region).__name__)
        if not (isinstance(self.points, int) and self.points >= 1):
            raise ValidationError("points", "a positive number of sample points", repr(self.points))
        declared = set(self.region.names)
        used = free_names(self.statement.expressions())
        unknown = sorted(used - declared)
        if unknown:
            shown = ", ".join(sorted(declared)) or "none"
            raise ValidationError(
                f"claim {self.name!r}",
                f"expressions in its declared symbols ({shown})",
                f"unknown symbol(s) {', '.join(unknown)}",
            )
        if self.region.params:
            try:
                self.region.check_nonempty()
            except ValidationError as exc:
                raise ValidationError(f"claim {self.name!r}: region", exc.expected, exc.got) from exc

    def sample_points(self, full: bool) -> int:
        """Number of numerical sample points (``full``: the ``PRIVOPT_FULL=1`` count)."""
        if not self.region.params and not isinstance(self.statement, Numerical):
            return 1
        return (self.full_points or 5 * self.points) if full else self.points
