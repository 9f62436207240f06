"""Mechanism-design problems: a privacy definition plus a utility, compiled, planned and solved.

``Problem(definition, utility).solve()`` runs the chain of docs/design.md ("One solve"):
definition → ratio pairs → row cone (:meth:`Problem.get_problem_data`, compiled once) → route
(:meth:`Problem.plan`) → :class:`~privopt.routes.base.RouteResult` → independent audit →
:class:`~privopt.problem.solution.Solution`.

Routes (:mod:`privopt.routes`)
------------------------------
``"closed_form"``
    A mechanism a theorem gives (PML paper Theorem 5), tried first by ``"auto"``.
``"vertex"``
    Vertex enumeration + LP; exact for sub-convex utilities (Entropy paper Thm. 3).
``"colgen"``
    Column generation; a mechanism with a certified upper bound where enumeration cannot go.
``"cvxpy"``
    One convex program, for concave utilities.
``"auto"``
    The closed form when one applies; else, for sub-convex utilities, vertex enumeration when it is
    predicted to be quick (:mod:`privopt.routes.vertex_cost`) and column generation otherwise — or
    when enumeration overruns its share of the time, and the solution's ``reason`` says so; ``"cvxpy"``
    for concave utilities.

``timeout=`` bounds the whole solve, on every route.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from privopt.audit.exact import audit
from privopt.compiler.cone import CompileOptions, RowCone
from privopt.compiler.estimate import DEFAULT_VERTEX_LIMIT, VertexEstimate
from privopt.data.mechanism import Mechanism
from privopt.definitions.base import PrivacyDefinition
from privopt.errors import LimitError, SolverError, ValidationError
from privopt.memory import budgeted, parse_memory_limit
from privopt.problem.solution import Certificate, Solution
from privopt.routes import ROUTES
from privopt.routes.base import ProblemData, RouteResult, SolveOptions, Status
from privopt.routes.colgen import ColumnGenerationOptions
from privopt.routes.colgen_route import require_master_memory
from privopt.routes.pricing.certificate import envelope_pricer
from privopt.routes.vertex_cost import AUTO_VERTEX_SHARE, predicted_vertex_seconds
from privopt.utilities import ConcaveUtility, SubConvexUtility, as_utility

#: Route names accepted by :meth:`Problem.solve` (``"auto"`` plans one).
ROUTE_NAMES = ("auto", "vertex", "colgen", "cvxpy", "closed_form")

#: ``"auto"`` prefers certified column generation to vertex enumeration predicted to take longer than
#: this, on cones with a certified pricing bound (measured: 3×4 Rényi ball, n = 1,000, ε = 0.5:
#: enumeration 8.3 s, certified column generation 1.5 s to a 4e-7 gap; 3×3: 0.2 s against 1.2 s).
CERTIFIED_COLGEN_SECONDS = 2.0

#: How columns are normalised for vertex enumeration (and what ``normalisation`` reports).
NORMALISATION = "Σ_x w_x = 1 (each column rescaled to sum 1)"


@dataclass(frozen=True, eq=False)
class CompiledProblem:
    """What :meth:`Problem.compile` produces: the cone, the normalisation, the estimate and the plan."""

    cone: RowCone
    normalisation: str
    estimate: VertexEstimate
    route: str
    reason: str

    def describe(self) -> str:
        return "\n".join(
            [
                self.cone.describe(),
                f"normalisation: {self.normalisation}",
                f"vertex estimate: {self.estimate}",
                f"route: {self.route} ({self.reason})",
            ]
        )


def _check_timeout(timeout: Any) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValidationError("timeout", "a positive number of seconds or None", repr(timeout))
    return float(timeout)


def _check_colgen(colgen: Any) -> ColumnGenerationOptions:
    if colgen is None:
        return ColumnGenerationOptions()
    if isinstance(colgen, ColumnGenerationOptions):
        return colgen
    if isinstance(colgen, dict):
        known = ColumnGenerationOptions.__dataclass_fields__
        unknown = [key for key in colgen if key not in known]
        if unknown:
            raise ValidationError("colgen", f"keys among {', '.join(known)}", f"unknown key {unknown[0]!r}")
        return ColumnGenerationOptions(**colgen)
    raise ValidationError("colgen", "ColumnGenerationOptions or a dict of its fields", type(colgen).__name__)


class Problem:
    """Maximise a utility over the mechanisms that satisfy a privacy definition.

    Parameters
    ----------
    definition:
        A privacy definition (``po.LDP``, ``po.SensitiveLDP``, ``po.LIP``, ``po.PML``, ...).
    utility:
        A sub-convex utility (``po.MutualInformation``, ``po.FDivergence``) for the vertex and
        column-generation routes, or a concave one (``po.ExpectedGain``, ``po.ExpectedDistortion``) for
        the cvxpy route.
    envelope, self_pairs:
        Compile options (:class:`~privopt.compiler.cone.CompileOptions`).
    vertex_limit:
        Refuse a vertex enumeration whose McMullen bound exceeds this.
    timeout:
        Seconds allowed for the whole solve, on every route (``None``: no limit).
    backend:
        Vertex enumeration back end: ``"auto"`` (default: floating-point cdd, validated, else exact
        ppl), ``"cdd"`` (on failure retried with ``"ppl"``) or ``"ppl"`` (exact).
    colgen:
        Budgets of the column-generation route (:class:`~privopt.routes.colgen.ColumnGenerationOptions`
        or a dict of its fields).
    memory_limit:
        Bytes the solve may allocate: a number, a size such as ``"16 GiB"`` or ``"500MB"``, or ``None``
        (default: half of the machine's memory, :func:`privopt.memory.default_memory_limit`). Every
        large array is estimated before it is allocated and a solve that would exceed the limit raises
        :class:`~privopt.errors.LimitError` naming the size and the remedies (:mod:`privopt.memory`).
    """

    def __init__(
        self,
        definition: PrivacyDefinition,
        utility: SubConvexUtility | ConcaveUtility,
        *,
        envelope: str = "lower",
        self_pairs: bool = False,
        vertex_limit: float = DEFAULT_VERTEX_LIMIT,
        timeout: float | None = 600.0,
        backend: str = "auto",
        colgen: ColumnGenerationOptions | dict[str, Any] | None = None,
        memory_limit: int | str | None = None,
    ) -> None:
        if not isinstance(definition, PrivacyDefinition):
            raise ValidationError(
                "definition", "a privacy definition such as po.LDP(eps)", type(definition).__name__
            )
        self.definition = definition
        self.utility = as_utility(utility)
        self.options = CompileOptions(envelope=envelope, self_pairs=self_pairs)
        if isinstance(vertex_limit, bool) or not (
            isinstance(vertex_limit, (int, float)) and vertex_limit > 0
        ):
            raise ValidationError("vertex_limit", "a positive number", repr(vertex_limit))
        if backend not in ("auto", "cdd", "ppl"):
            raise ValidationError("backend", "'auto', 'cdd' or 'ppl'", repr(backend))
        self.solve_options = SolveOptions(
            vertex_limit,
            _check_timeout(timeout),
            backend,
            _check_colgen(colgen),
            parse_memory_limit(memory_limit),
        )
        n = self.utility.input_size
        expected = definition.input_size()
        if n is None:
            n = expected
        if n is None:
            raise ValidationError(
                "utility",
                "a utility that fixes the number of inputs (or a definition that does)",
                repr(utility),
            )
        if expected is not None and n != expected:
            raise ValidationError(
                "utility", f"a utility over the definition's {expected} inputs", f"{n} inputs"
            )
        self.n_inputs = int(n)
        self._data: list[ProblemData] = []

    # ------------------------------------------------------------------ options (read-only views)
    @property
    def vertex_limit(self) -> float:
        return self.solve_options.vertex_limit

    @property
    def timeout(self) -> float | None:
        return self.solve_options.timeout

    @property
    def backend(self) -> str:
        return self.solve_options.backend

    @property
    def colgen(self) -> ColumnGenerationOptions:
        return self.solve_options.colgen

    @property
    def memory_limit(self) -> int:
        return self.solve_options.memory_limit

    # ------------------------------------------------------------------ compile
    @budgeted
    def get_problem_data(self) -> ProblemData:
        """What a route receives: the compiled cone, normalisation, estimate and options (compiled
        once per problem, like cvxpy's ``get_problem_data``)."""
        if not self._data:
            labels = self.definition.resolve_inputs(self.n_inputs)
            cone = self.definition.row_cone(self.n_inputs, labels, options=self.options)
            self._data.append(
                ProblemData(
                    self.definition,
                    self.utility,
                    self.n_inputs,
                    labels,
                    cone,
                    NORMALISATION,
                    VertexEstimate.for_slice(self.n_inputs, cone.n_rows),
                    self.options,
                    self.solve_options,
                )
            )
        return self._data[0]

    def compile(self) -> CompiledProblem:
        """The compiled problem with the route ``"auto"`` would take."""
        data = self.get_problem_data()
        route, reason = self.plan()
        return CompiledProblem(data.cone, data.normalisation, data.estimate, route, reason)

    def describe(self) -> str:
        """The compiled form, readably: cone blocks with their rules, normalisation, estimate, route."""
        return self.compile().describe()

    # ------------------------------------------------------------------ plan
    def plan(self, route: str = "auto") -> tuple[str, str]:
        """The route a solve takes, and why (``route`` other than ``"auto"`` is checked, not changed)."""
        if route not in ROUTE_NAMES:
            raise ValidationError("route", f"one of {', '.join(map(repr, ROUTE_NAMES))}", repr(route))
        if route in ("vertex", "colgen") and not isinstance(self.utility, SubConvexUtility):
            raise ValidationError(
                "utility",
                f"a sub-convex utility on the {route} route (the LP over columns is exact only for those)",
                f"{self.utility!r}, which is concave: use route='cvxpy'",
            )
        if route == "cvxpy" and not isinstance(self.utility, ConcaveUtility):
            raise ValidationError(
                "utility",
                "a concave utility on the cvxpy route (maximising a convex utility is not a convex program)",
                f"{self.utility!r}, which is sub-convex: use route='vertex' or 'colgen'",
            )
        data = self.get_problem_data()
        if route != "auto":
            accepted, why = ROUTES[route].accepts(data)
            if route == "closed_form" and not accepted:
                raise ValidationError("route", "a route that applies to the problem", f"'closed_form': {why}")
            return route, "requested"
        for name in ("closed_form", "cvxpy"):
            accepted, why = ROUTES[name].accepts(data)
            if accepted:
                return name, why
        accepted, why = ROUTES["vertex"].accepts(data)
        if not accepted:
            return "colgen", f"{why}: column generation, with a certified upper bound"
        predicted = predicted_vertex_seconds(data)
        if predicted > CERTIFIED_COLGEN_SECONDS and not isinstance(
            envelope_pricer(data.sub_convex(), data.cone), str
        ):
            return "colgen", (
                f"vertex enumeration is predicted to take about {predicted:.3g} s and the cone has a certified "
                "pricing bound: certified column generation"
            )
        budget = self._vertex_budget(self.timeout)
        if budget is not None and predicted > budget:
            return "colgen", (
                f"vertex enumeration is predicted to take about {predicted:.3g} s, more than its share of the "
                f"timeout ({budget:.3g} s): column generation, with a certified upper bound"
            )
        return "vertex", f"{why} (predicted about {predicted:.2g} s)"

    @staticmethod
    def _vertex_budget(seconds: float | None) -> float | None:
        """The share of ``seconds`` that ``"auto"`` lets vertex enumeration use before it falls back."""
        return None if seconds is None else AUTO_VERTEX_SHARE * seconds

    # ------------------------------------------------------------------ solve
    @budgeted
    def solve(self, route: str = "auto") -> Solution:
        """Solve the problem on ``route`` (module docstring); the mechanism is audited before it is
        returned, and :class:`~privopt.errors.SolverError` is raised if it fails its audit."""
        start = time.perf_counter()
        deadline = None if self.timeout is None else start + self.timeout
        if route in ("auto", "colgen") and isinstance(self.utility, SubConvexUtility):
            require_master_memory(self.n_inputs, self.colgen)  # before compiling: auto may fall back to it
        planned, reason = self.plan(route)
        data = self.get_problem_data()
        compile_seconds = time.perf_counter() - start
        if route == "auto" and planned == "vertex":
            budget = self._vertex_budget(self.timeout)
            vertex_deadline = None if budget is None else start + budget
            try:
                result = ROUTES["vertex"].solve(data, vertex_deadline)
            except LimitError as exc:
                if budget is None or "vertex_limit" in str(exc):
                    raise
                planned = "colgen"
                reason = f"vertex enumeration did not finish within {budget:.3g} s: column generation"
                result = ROUTES["colgen"].solve(data, deadline)
        else:
            result = ROUTES[planned].solve(data, deadline)
        return self._finish(data, planned, reason, result, compile_seconds)

    def _finish(
        self, data: ProblemData, route: str, reason: str, result: RouteResult, compile_seconds: float
    ) -> Solution:
        mechanism = Mechanism(result.matrix, data.input_labels, None, name="optimal")
        start = time.perf_counter()
        report = audit(mechanism, self.definition)
        audit_seconds = time.perf_counter() - start
        if not report.satisfied:
            raise SolverError(f"the designed mechanism fails its own audit — {report}")
        value = self.utility.value(mechanism)
        if result.status is Status.OPTIMAL and result.upper <= result.lower:
            lower = upper = value  # exact routes (no gap reported): the bound is the value itself
        else:
            lower, upper = value, max(result.upper, value)
        duals = result.duals
        certificate = Certificate(
            audit=report,
            cone_violation=data.cone.violation(mechanism.matrix),
            lp_duals=duals,
            dual_bound=None if duals is None else float(duals.sum()),
            max_reduced_cost=result.max_reduced_cost,
            upper_source=result.upper_source,
            pricing=result.pricing,
        )
        seconds = {"compile": compile_seconds, **result.stats.seconds, "audit": audit_seconds}
        stats = replace(
            result.stats, seconds=seconds, cone_rows=data.cone.n_rows, outputs=mechanism.n_outputs
        )
        return Solution(
            mechanism,
            value,
            result.status,
            lower,
            upper,
            route,
            f"{reason}; {result.reason}",
            stats,
            certificate,
        )

    def __repr__(self) -> str:
        return f"Problem({self.definition}, {self.utility!r}, inputs={self.n_inputs})"
