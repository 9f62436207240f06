"""Mechanism-design problems: plan a route, dispatch, and return a :class:`Solution`."""

from privopt.problem.check import check_certificate
from privopt.problem.problem import CompiledProblem, Problem
from privopt.problem.solution import Certificate, Solution
from privopt.routes.base import SolveStats, Status

__all__ = [
    "Certificate",
    "CompiledProblem",
    "Problem",
    "Solution",
    "SolveStats",
    "Status",
    "check_certificate",
]
