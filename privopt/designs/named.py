"""The papers' low-complexity mechanisms by name, built for one problem's definition and data.

Spec files (``[compare] mechanisms = ["grr", "srr", "ir", "optimal"]``) and the CLI name mechanisms
instead of constructing them. Each name resolves to the mechanism the papers pair with the definition:

=========  ===========================================  ============================================
name       SensitiveLDP(ε, F) (RLDP)                     LIP(ε, P)
=========  ===========================================  ============================================
``grr``    GRR_ε on X (ε-LDP, hence RLDP)               GRR calibrated to ε-LIP (funnel eq. 27)
``oue``    OUE_ε on X                                   OUE calibrated to ε-LIP (funnel §VIII-C)
``srr``    SRR_ε (Entropy paper Def. 4)                 —
``ir``     best IR split (Entropy paper §7, eq. 81)     —
``cr``     best CR split (ISIT paper §IV-C)             CR calibrated to ε-LIP (funnel Thm. 2)
``nr``     NR: optimum at the point P̂ (Entropy §8)      —
=========  ===========================================  ============================================

For :class:`~privopt.LDP` the names ``grr`` and ``oue`` are the plain ε-LDP mechanisms. ``optimal``
(or ``optimum``) is the compiler's optimum and is handled by :func:`privopt.designs.compare` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from privopt.data.mechanism import Mechanism
from privopt.definitions.ldp import LDP
from privopt.definitions.lip import LIP
from privopt.definitions.sensitive_ldp import SensitiveLDP
from privopt.errors import ValidationError
from privopt.problem import Problem
from privopt.sets.finite import Point
from privopt.sets.renyi import RenyiBall
from privopt.utilities import SubConvexUtility

#: Names that stand for the compiler's optimum.
OPTIMUM_NAMES = ("optimal", "optimum")

Builder = Callable[[], Any]


def _relabel(mechanism: Mechanism, labels: tuple[Any, ...] | None) -> Mechanism:
    if labels is None:
        return mechanism
    return Mechanism(mechanism.matrix, labels, mechanism.output_labels, name=mechanism.name)


def _ldp_builders(problem: Problem) -> dict[str, Builder]:
    from privopt.mechanisms import grr, oue

    eps, n, labels = problem.definition.eps, problem.n_inputs, problem.definition.input_labels()
    return {
        "grr": lambda: _relabel(grr(n, eps), labels),
        "oue": lambda: _relabel(oue(n, eps), labels),
    }


def _sensitive_builders(problem: Problem) -> dict[str, Builder]:
    from privopt.designs.optimal import nr
    from privopt.mechanisms import conditional_reporting, independent_reporting, srr

    definition = problem.definition
    assert isinstance(definition, SensitiveLDP)
    builders = _ldp_builders(problem)
    eps, F = definition.eps, definition.uncertainty
    reference = F.reference()
    utility = problem.utility if isinstance(problem.utility, SubConvexUtility) else None
    if definition.on == "x" and reference is not None:
        builders["srr"] = lambda: srr(
            reference.n_s, reference.n_u, eps, reference.s_labels, reference.u_labels
        )
    if definition.on == "x" and isinstance(F, RenyiBall):
        # Not audited here: every consumer checks the mechanism itself (po.compare audits each row,
        # column generation keeps only the columns inside the cone).
        builders["ir"] = lambda: independent_reporting(F, eps, utility=utility, verify_audit=False)
        builders["cr"] = lambda: conditional_reporting(F, eps, utility=utility, verify_audit=False)
    if reference is not None:
        builders["nr"] = lambda: nr(reference, eps, utility, on=definition.on)
    return builders


def _lip_builders(problem: Problem) -> dict[str, Builder]:
    from privopt.mechanisms import conditional_reporting_lip, grr_calibrated_lip, oue_calibrated_lip

    definition = problem.definition
    assert isinstance(definition, LIP)
    builders: dict[str, Builder] = {}
    if isinstance(definition.uncertainty, Point):  # the calibrations need the distribution itself
        P, eps, on = definition.uncertainty.distribution, definition.eps, definition.on
        builders["grr"] = lambda: grr_calibrated_lip(P, eps, on)
        builders["oue"] = lambda: oue_calibrated_lip(P, eps, on)
        if on == "x":
            builders["cr"] = lambda: conditional_reporting_lip(P, eps)
    return builders


def available(problem: Problem) -> dict[str, Builder]:
    """The named mechanisms that exist for ``problem``'s definition: name → zero-argument builder."""
    definition = problem.definition
    if isinstance(definition, SensitiveLDP):
        return _sensitive_builders(problem)
    if isinstance(definition, LIP):
        return _lip_builders(problem)
    if isinstance(definition, LDP):
        return _ldp_builders(problem)
    return {}


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
