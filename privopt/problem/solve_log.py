"""What ``Problem.solve(verbose=True)`` prints around the route's own output: the problem, its
compiled cone and the route before the solve; the status, bounds, times and audit after it.

Like cvxpy's ``verbose=True``, it goes to standard output, beside the solver's log (HiGHS's for the
vertex LP, the cvxpy solver's on the cvxpy route); the route's progress goes to standard error.
"""

from __future__ import annotations

from privopt._version import __version__
from privopt.problem.solution import Solution
from privopt.routes.base import ProblemData

_RULE = "-" * 78


def header(data: ProblemData, route: str, reason: str, solver: str | None) -> None:
    """The problem, its compiled cone, the route and the solver, before the solve."""
    lines = [
        _RULE,
        f"privopt {__version__}: {data.definition}",
        f"  utility: {data.utility!r}; {data.n_inputs} inputs",
        *(f"  {line}" for line in data.describe().splitlines()),
        f"  route: {route} ({reason})",
        f"  solver: {solver or 'the route default'}",
        _RULE,
    ]
    print("\n".join(lines), flush=True)


def footer(solution: Solution) -> None:
    """The status, bounds, stage times and the audit, after the solve."""
    stats = solution.stats
    times = ", ".join(f"{stage} {seconds:.3g} s" for stage, seconds in stats.seconds.items())
    counts = {
        "vertices": stats.vertices,
        "iterations": stats.iterations,
        "columns": stats.columns,
        "solver": stats.solver,
        "backend": stats.backend,
    }
    shown = ", ".join(f"{name} {value}" for name, value in counts.items() if value is not None)
    lines = [
        _RULE,
        f"status: {solution.status.value}; value {solution.value:.10g} (lower {solution.lower:.10g}, "
        f"upper {solution.upper:.10g}, gap {solution.gap:.3g})",
        f"  route: {solution.route} ({solution.reason})",
        f"  time: {times}",
        *([f"  {shown}"] if shown else []),
        f"  audit: {solution.certificate.audit}",
        _RULE,
    ]
    print("\n".join(lines), flush=True)
