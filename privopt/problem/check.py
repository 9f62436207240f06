"""``po.check_certificate(problem, solution)``: re-check a solution from the problem alone.

The solution's claims are ``lower = value <= OPT <= upper`` over the problem's compiled cone. The check
recomputes each from the problem (docs/compiler.md, "Certificates"): the mechanism is a channel whose
columns lie in the cone (so its value is a lower bound), its utility is ``value``, and the
independent checker (:func:`privopt.certificates.check_bound`) proves the certificate's bound, which
must be at most ``upper``.
"""

from __future__ import annotations

import time

import numpy as np

from privopt.certificates import CertificateCheck, check_bound, upper_in_units
from privopt.data.labels import align_rows
from privopt.errors import ValidationError
from privopt.problem.problem import Problem
from privopt.problem.solution import Solution
from privopt.tolerances import (
    BOUND_ORDER_RTOL,
    CERTIFICATE_ATOL,
    CHECK_SECONDS,
    PROBABILITY_ATOL,
    SOLUTION_CONE_RTOL,
)


def check_certificate(
    problem: Problem, solution: Solution, *, time_limit: float = CHECK_SECONDS
) -> CertificateCheck:
    """Check ``solution`` against ``problem`` (module docstring); ``valid`` only if every claim holds."""
    if not isinstance(problem, Problem):
        raise ValidationError("problem", "a privopt Problem", type(problem).__name__)
    if not isinstance(solution, Solution):
        raise ValidationError("solution", "a privopt Solution", type(solution).__name__)
    start = time.perf_counter()
    data = problem.get_problem_data()
    method = "solution check"

    def refuse(reason: str) -> CertificateCheck:
        return CertificateCheck(False, reason, method, time.perf_counter() - start)

    matrix = align_rows(solution.mechanism, data.input_labels).matrix
    if not np.allclose(matrix.sum(axis=1), 1.0, rtol=0.0, atol=PROBABILITY_ATOL) or matrix.min() < 0.0:
        return refuse("the mechanism is not a channel (rows of non-negative entries summing to 1)")
    violation = data.cone.violation(matrix)
    if violation > SOLUTION_CONE_RTOL:
        return refuse(f"the mechanism's columns violate the cone by {violation:.3g} (relative)")
    value = problem.utility.value(matrix)
    if not abs(value - solution.value) <= BOUND_ORDER_RTOL * max(1.0, abs(value)):
        return refuse(f"the mechanism's utility is {value!r}, not the reported {solution.value!r}")
    if not solution.lower <= solution.upper:
        return refuse(f"lower bound {solution.lower!r} above upper bound {solution.upper!r}")
    bound = solution.certificate.bound
    if bound is None:
        return refuse("the certificate carries no bound")
    if upper_in_units(bound, problem.utility) > solution.upper + CERTIFICATE_ATOL * max(
        1.0, abs(solution.upper)
    ):
        return refuse("the certificate's bound is above the solution's upper bound")
    check = check_bound(data.cone, problem.utility, bound, mechanism=matrix, time_limit=time_limit)
    return CertificateCheck(
        check.valid,
        check.reason,
        check.method,
        time.perf_counter() - start,
        check.proved_upper,
        check.column,
        check.refuted,
        check.proved_delta,
    )
