"""Routes: the algorithms that solve a compiled problem.

Each route module holds one route with ``accepts(data) -> (bool, reason)`` and
``solve(data, deadline) -> RouteResult`` (:mod:`privopt.routes.base`): the closed forms
(:mod:`~privopt.routes.closed_form`, with Theorem 5 registered from :mod:`~privopt.routes.binary_pml_closed_form`
and the identity from :mod:`~privopt.routes.identity`),
vertex enumeration + LP (:mod:`~privopt.routes.vertex`), column generation
(:mod:`~privopt.routes.colgen_route` over the algorithm of :mod:`~privopt.routes.colgen`), one linear
program for affine utilities (:mod:`~privopt.routes.linear_program`) and cvxpy
(:mod:`~privopt.routes.cvxpy_route`).
"""

from privopt.routes import binary_pml_closed_form, identity
from privopt.routes.base import ProblemData, Route, RouteResult, SolveOptions, SolveStats, Status
from privopt.routes.closed_form import ClosedFormRoute, register_closed_form
from privopt.routes.colgen_route import ColumnGenerationRoute
from privopt.routes.cvxpy_route import CvxpyRoute
from privopt.routes.linear_program import LinearProgramRoute
from privopt.routes.vertex import VertexRoute

#: Every route by its short name (``Problem.solve(route=...)``).
ROUTES: dict[str, Route] = {
    route.name: route
    for route in (
        ClosedFormRoute(),
        VertexRoute(),
        ColumnGenerationRoute(),
        LinearProgramRoute(),
        CvxpyRoute(),
    )
}

__all__ = [
    "ROUTES",
    "ClosedFormRoute",
    "ColumnGenerationRoute",
    "CvxpyRoute",
    "LinearProgramRoute",
    "ProblemData",
    "Route",
    "RouteResult",
    "SolveOptions",
    "SolveStats",
    "Status",
    "VertexRoute",
    "binary_pml_closed_form",
    "identity",
    "register_closed_form",
]
