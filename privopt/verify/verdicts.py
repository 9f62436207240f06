"""The verdict vocabulary of the verification module, and the record of one checker's attempt.

A verdict says exactly what was established, never more (issue #6):

- ``"proved (symbolic)"``: sympy reduced the claim to an identity ``0 = 0`` or to a sum/product of
  terms of known sign, under the claim's assumptions.
- ``"certified optimal (symbolic)"`` / ``"certified optimal (rational samples)"``: the dual of the
  vertex LP was built (symbolically, or exactly at rational sample points) and dual feasibility and
  complementary slackness were checked.
- ``"no counterexample in N points"``: a numerical search at N points of the validity region found
  none. This is evidence, not proof.
- ``"falsified"``: a counterexample was found; its exact parameter values are reported.
- ``"not proved"``: no checker could decide (a symbolic attempt failed and nothing else applies).
- ``"undecided (time limit)"``: the symbolic attempt hit the per-claim time limit and nothing else
  decided.
- ``"error"``: the claim could not be checked (bad input, a crash); the message says why.

There is deliberately no ``"true"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PROVED = "proved (symbolic)"
CERTIFIED_SYMBOLIC = "certified optimal (symbolic)"
CERTIFIED_RATIONAL = "certified optimal (rational samples)"
FALSIFIED = "falsified"
NOT_PROVED = "not proved"
TIME_LIMIT = "undecided (time limit)"
ERROR = "error"

#: Verdicts that establish the claim (a proof or an optimality certificate).
ESTABLISHED = (PROVED, CERTIFIED_SYMBOLIC, CERTIFIED_RATIONAL)


def no_counterexample(points: int) -> str:
    """``"no counterexample in N points"`` (``"1 point"`` for a single evaluation)."""
    return f"no counterexample in {points} point{'s' if points != 1 else ''}"


def is_no_counterexample(verdict: str) -> bool:
    return verdict.startswith("no counterexample in ")


def is_final(verdict: str) -> bool:
    """Whether a checker's outcome decides the claim (later checkers are then not needed)."""
    return verdict in ESTABLISHED or verdict == FALSIFIED or is_no_counterexample(verdict)


@dataclass(frozen=True)
class Attempt:
    """What one checker did with one claim.

    Attributes
    ----------
    checker:
        ``"symbolic"``, ``"certificate"``, ``"numerical"`` or ``"library"`` (a comparison with
        privopt's own implementation, which never decides the paper's claim).
    outcome:
        A verdict from this module (for ``"library"``: ``"agrees"``, ``"disagrees"`` or ``"skipped"``).
    seconds:
        Wall time of the attempt.
    detail:
        A short human-readable explanation (which step failed, the counterexample, ...).
    counterexample:
        Exact parameter values (as strings such as ``"3/5"`` or ``"log(9/8)"``) when falsified.
    data:
        Extra machine-readable values (e.g. computed vs printed numbers).
    """

    checker: str
    outcome: str
    seconds: float
    detail: str = ""
    counterexample: dict[str, str] | None = None
    data: dict[str, Any] = field(default_factory=dict)
