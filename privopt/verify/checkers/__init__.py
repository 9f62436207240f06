"""The checkers, tried in this order (issue #6): symbolic, optimality certificate, numerical.

Each returns an :class:`~privopt.verify.verdicts.Attempt` naming itself, or ``None`` when it does not
apply to the statement. :func:`privopt.verify.verify` runs them and keeps the first decisive outcome.
"""

from privopt.verify.checkers.certificate import certificate_attempt
from privopt.verify.checkers.numerical import numerical_attempt
from privopt.verify.checkers.symbolic import symbolic_attempt

__all__ = ["certificate_attempt", "numerical_attempt", "symbolic_attempt"]
