"""Symbolic and numerical verification of the papers' closed forms and theorems (issue #6).

A :class:`Claim` is a paper's statement as data: its symbols with their assumptions (a
:class:`Region`), the statement (:class:`Identity`, :class:`Inequality`, :class:`AllOf`,
:class:`Optimality`, :class:`Numerical` or :class:`Printed`) and whether it is expected to hold.
:func:`verify` runs the checkers — symbolic (sympy), optimality certificate (the dual of the vertex
LP), numerical falsification (mpmath) — and returns a :class:`VerificationReport`; :func:`run` is the
``privopt verify`` command (text and exit code). The shipped library of claims from the papers is in
:mod:`privopt.verify.library`.

    >>> from privopt import verify
    >>> report = verify.verify(["pml.thm5.pml"])
    >>> report["pml.thm5.pml"].verdict
    'proved (symbolic)'

The heavy imports (sympy, mpmath) happen on first use, so ``import privopt`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Claim": "privopt.verify.claims",
    "Param": "privopt.verify.region",
    "Point": "privopt.verify.region",
    "Region": "privopt.verify.region",
    "ClaimResult": "privopt.verify.report",
    "VerificationReport": "privopt.verify.report",
    "check_claim": "privopt.verify.runner",
    "run": "privopt.verify.runner",
    "verify": "privopt.verify.runner",
    "AllOf": "privopt.verify.statements",
    "Discrepancy": "privopt.verify.statements",
    "Identity": "privopt.verify.statements",
    "Inequality": "privopt.verify.statements",
    "Numerical": "privopt.verify.statements",
    "Optimality": "privopt.verify.statements",
    "OptimalityInstance": "privopt.verify.statements",
    "Printed": "privopt.verify.statements",
    "PrintedNumber": "privopt.verify.statements",
    "UtilitySpec": "privopt.verify.statements",
    "column_constraints": "privopt.verify.statements",
    "shipped_claims": "privopt.verify.library",
    "claim_names": "privopt.verify.library",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'privopt.verify' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
