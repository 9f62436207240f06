"""Named mechanisms for one problem: the explicit ones of :mod:`privopt.mechanisms.catalog`, plus NR.

``nr`` is the non-robust optimum at the point ``P̂`` (Entropy paper §8): ε-LDP w.r.t. S at the set's
reference distribution only (for :class:`~privopt.SensitiveLDP` over a set with one). ``optimal`` (or
``optimum``) is the compiler's optimum and is handled by :func:`privopt.compare` itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from privopt.definitions.sensitive_ldp import SensitiveLDP
from privopt.designs.optimal import nr
from privopt.errors import ValidationError
from privopt.mechanisms.catalog import Builder
from privopt.mechanisms.catalog import available as explicit
from privopt.problem import Problem
from privopt.utilities import SubConvexUtility

#: Names that stand for the compiler's optimum.
OPTIMUM_NAMES = ("optimal", "optimum")


def available(problem: Problem) -> dict[str, Builder]:
    """The named mechanisms that exist for ``problem``'s definition: name → zero-argument builder."""
    definition = problem.definition
    builders = explicit(definition, problem.utility, problem.n_inputs)
    F = definition.uncertainty
    reference = None if F is None else F.reference()
    if isinstance(definition, SensitiveLDP) and reference is not None:
        utility = problem.utility if isinstance(problem.utility, SubConvexUtility) else None
        builders["nr"] = lambda: nr(reference, definition.eps, utility, on=definition.on)
    return builders


def resolve(names: Iterable[str], problem: Problem) -> tuple[dict[str, Builder], bool]:
    """Builders for ``names`` (in order) and whether the optimum was asked for.

    Raises :class:`~privopt.errors.ValidationError` naming the mechanisms that exist for the
    definition when a name is unknown.
    """
    builders = available(problem)
    chosen: dict[str, Builder] = {}
    optimum = False
    for name in names:
        key = str(name).lower()
        if key in OPTIMUM_NAMES:
            optimum = True
        elif key in builders:
            chosen[key] = builders[key]
        else:
            known = ", ".join([*builders, *OPTIMUM_NAMES])
            raise ValidationError(
                "compare.mechanisms", f"names among {known} (for {problem.definition})", repr(name)
            )
    return chosen, optimum
