"""Mechanism-design problems: plan a route, dispatch, and return a :class:`Solution`."""

from privopt.problem.problem import Certificate, CompiledProblem, Problem, Solution

__all__ = ["Certificate", "CompiledProblem", "Problem", "Solution"]
