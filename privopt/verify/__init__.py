"""Symbolic and numerical verification of the papers' closed forms and theorems (issue #6)."""

from privopt.verify.claims import Claim
from privopt.verify.region import Param, Point, Region
from privopt.verify.report import ClaimResult, VerificationReport
from privopt.verify.runner import check_claim, run, verify
from privopt.verify.statements import (
    AllOf,
    Discrepancy,
    Identity,
    Inequality,
    Numerical,
    Optimality,
    OptimalityInstance,
    Printed,
    PrintedNumber,
    UtilitySpec,
    column_constraints,
)

__all__ = [
    "AllOf",
    "Claim",
    "ClaimResult",
    "Discrepancy",
    "Identity",
    "Inequality",
    "Numerical",
    "Optimality",
    "OptimalityInstance",
    "Param",
    "Point",
    "Printed",
    "PrintedNumber",
    "Region",
    "UtilitySpec",
    "VerificationReport",
    "check_claim",
    "column_constraints",
    "run",
    "verify",
]
