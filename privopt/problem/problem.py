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

``time_limit=`` bounds the whole solve, on every route (``timeout=``, its former name, still works
with a ``DeprecationWarning``).
"""

from __future__ import annotations

import contextlib
import enum
import functools
import time
import warnings
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from privopt.audit.exact import audit
from privopt.audit.robust import LowerEnd
from privopt.certificates import (
    Bound,
    CertificateCheck,
    SliceBound,
    check_bound,
    upper_in_units,
    weaker_claim,
)
from privopt.compiler.cone import CompileOptions, RowCone
from privopt.compiler.estimate import DEFAULT_VERTEX_LIMIT, VertexEstimate
from privopt.data.mechanism import Mechanism
from privopt.definitions.base import PrivacyDefinition
from privopt.errors import LimitError, NotSupportedError, SolverError, ValidationError
from privopt.memory import budgeted, limited, parse_memory_limit
from privopt.problem.solution import Certificate, Solution
from privopt.problem.solve_log import footer, header
from privopt.routes import ROUTES
from privopt.routes.base import (
    ProblemData,
    RouteResult,
    SolveOptions,
    Status,
    WarmMaster,
    remaining,
    status_for,
)
from privopt.routes.colgen_options import ColumnGenerationOptions, relative_gap
from privopt.routes.colgen_route import require_master_memory
from privopt.routes.linear_program import LP_SOLVERS
from privopt.routes.pricing import Refusal, certified_pricer
from privopt.routes.vertex_cost import AUTO_VERTEX_SHARE, predicted_vertex_seconds
from privopt.solvers.errors import BackendError
from privopt.solvers.progress import progress_verbose
from privopt.tolerances import BOUND_ORDER_RTOL, GAP_OPTIMAL_RTOL
from privopt.utilities import ConcaveUtility, SubConvexUtility, as_utility
from privopt.validation import FloatArray

#: Route names accepted by :meth:`Problem.solve` (``"auto"`` plans one).
ROUTE_NAMES = ("auto", "vertex", "colgen", "lp", "cvxpy", "closed_form")

#: ``"auto"`` prefers certified column generation to vertex enumeration predicted to take longer than
#: this, on cones with a certified pricing bound (measured: 3×4 Rényi ball, n = 1,000, ε = 0.5:
#: enumeration 8.3 s, certified column generation 1.5 s to a 4e-7 gap; 3×3: 0.2 s against 1.2 s).
CERTIFIED_COLGEN_SECONDS = 2.0

#: The independent check of a route's bound gets as long as the route took, and at least this many
#: seconds, even past the time limit (docs/compiler.md, "Certificates").
MIN_CHECK_SECONDS = 10.0

#: The function ``(problem, path) -> TOML text`` behind :meth:`Problem.to_spec`, registered by
#: ``privopt/__init__.py`` from :mod:`privopt.app.spec_writer` (docs/design.md, "Layers": the spec format
#: lives above this layer).
_SPEC_WRITER: list[Callable[[Problem, str | Path | None], str]] = []


def register_spec_writer(writer: Callable[[Problem, str | Path | None], str]) -> None:
    """Install the function behind :meth:`Problem.to_spec` (the last one registered is used)."""
    _SPEC_WRITER[:] = [writer]


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
    #: How ``lip_counterpart="auto"`` was resolved, when the definition has the choice (else ``""``).
    counterpart: str = ""

    def describe(self) -> str:
        lines = [
            self.cone.describe(),
            f"normalisation: {self.normalisation}",
            f"vertex estimate: {self.estimate}",
            f"route: {self.route} ({self.reason})",
        ]
        if self.counterpart:
            lines.append(f"LIP counterpart: {self.counterpart}")
        return "\n".join(lines)


#: Seconds a solve may take when ``time_limit=`` is not given.
DEFAULT_TIME_LIMIT = 600.0


class _Unset(enum.Enum):
    """A keyword that was not passed (where ``None`` already means something: no limit)."""

    UNSET = "unset"


def _check_time_limit(time_limit: Any, timeout: Any) -> float | None:
    """``time_limit`` in seconds, or ``None`` for no limit; ``timeout`` is its deprecated name."""
    argument = "time_limit"
    if timeout is not _Unset.UNSET:
        warnings.warn(
            "Problem(timeout=) is deprecated: pass time_limit= (the same seconds for the whole solve, the "
            "name curves and column generation use)",
            DeprecationWarning,
            stacklevel=3,
        )
        if time_limit != DEFAULT_TIME_LIMIT:
            raise ValidationError(
                "timeout", "time_limit= or the deprecated timeout=, not both", repr(timeout)
            )
        argument, time_limit = "timeout", timeout
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not time_limit > 0:
        raise ValidationError(argument, "a positive number of seconds or None", repr(time_limit))
    return float(time_limit)


def _check_solver(solver: Any) -> str | None:
    """A solver name, in upper case as cvxpy spells them (each route checks it names one of its own)."""
    if solver is None:
        return None
    if not isinstance(solver, str):
        raise ValidationError("solver", "a solver name such as 'HIGHS' or 'CLARABEL', or None", repr(solver))
    return solver.upper()


def _check_verbose(verbose: Any) -> bool:
    if not isinstance(verbose, bool):
        raise ValidationError("verbose", "True or False", repr(verbose))
    return verbose


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


class _AuditFailure(SolverError):
    """A route's design failed its audit (:meth:`Problem._finish`): :meth:`Problem._run` enumerates a
    floating-point vertex route's cone again exactly, then raises a :class:`SolverError`."""


@contextlib.contextmanager
def _backend_errors(route: str) -> Iterator[None]:
    """A numerical back end's error that a route did not translate is a :class:`SolverError` naming the
    route (never a raw back-end exception)."""
    try:
        yield
    except BackendError as exc:
        raise SolverError(f"the {route} route's back end failed: {exc}") from exc


def _order_floor(utility: SubConvexUtility | ConcaveUtility, mechanism: Mechanism, value: float) -> float:
    """The least upper bound that a design of utility ``value`` leaves to rounding: ``BOUND_ORDER_RTOL``
    below it, relative to the sum the route maximised — ``Σ_y μ(w_y)`` for a sub-convex utility, before
    its increasing transform (Sibson's ``α/(α−1) log t`` turns the LP's rounding of 4e-10 in ``t`` into
    4e-6 at α = 1.0001, a bound 'below the design' at ε = 1e-9, docs/design.md, "Contracts")."""
    if isinstance(utility, SubConvexUtility) and utility.transform is not None:
        core = utility.core(mechanism)
        return utility.from_core(core - BOUND_ORDER_RTOL * max(1.0, abs(core)))
    return value - BOUND_ORDER_RTOL * max(1.0, abs(value))


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
    envelope, self_pairs, lip_counterpart:
        Compile options (:class:`~privopt.compiler.cone.CompileOptions`).
    vertex_limit:
        Refuse a vertex enumeration whose McMullen bound exceeds this.
    time_limit:
        Seconds allowed for the whole solve, on every route (``None``: no limit). ``timeout=`` is its
        deprecated name.
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
        lip_counterpart: str = "auto",
        vertex_limit: float = DEFAULT_VERTEX_LIMIT,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
        backend: str = "auto",
        colgen: ColumnGenerationOptions | dict[str, Any] | None = None,
        memory_limit: int | str | None = None,
        timeout: float | _Unset | None = _Unset.UNSET,
    ) -> None:
        if not isinstance(definition, PrivacyDefinition):
            raise ValidationError(
                "definition", "a privacy definition such as po.LDP(eps)", type(definition).__name__
            )
        definition.check_compilable()  # a set its cone cannot be compiled over (an ℓ1 ball too large)
        self.definition = definition
        self.utility = as_utility(utility)
        self.options = CompileOptions(
            envelope=envelope, self_pairs=self_pairs, lip_counterpart=lip_counterpart
        )
        if isinstance(vertex_limit, bool) or not (
            isinstance(vertex_limit, (int, float)) and vertex_limit > 0
        ):
            raise ValidationError("vertex_limit", "a positive number", repr(vertex_limit))
        if backend not in ("auto", "cdd", "ppl"):
            raise ValidationError("backend", "'auto', 'cdd' or 'ppl'", repr(backend))
        self.solve_options = SolveOptions(
            vertex_limit,
            _check_time_limit(time_limit, timeout),
            backend,
            _check_colgen(colgen),
            memory_limit=parse_memory_limit(memory_limit),
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
    def time_limit(self) -> float | None:
        """Seconds allowed for the whole solve (``None``: no limit)."""
        return self.solve_options.timeout

    @property
    def timeout(self) -> float | None:
        """Deprecated: :attr:`time_limit`."""
        warnings.warn(
            "Problem.timeout is deprecated: use Problem.time_limit", DeprecationWarning, stacklevel=2
        )
        return self.time_limit

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
            options = self.options
            if options.lip_counterpart == "auto" and self.definition.counterpart_choice(labels, options):
                rectangular = self._compiled(labels, replace(options, lip_counterpart="rectangular"))
                exact = self._plan(rectangular, "auto")[0] != "colgen"
                options = replace(options, lip_counterpart="rectangular" if exact else "pairwise")
                self._data.append(rectangular if exact else self._compiled(labels, options))
            else:
                self._data.append(self._compiled(labels, options))
        return self._data[0]

    def _compiled(self, labels: tuple[Hashable, ...], options: CompileOptions) -> ProblemData:
        cone = self.definition.row_cone(self.n_inputs, labels, options=options)
        return ProblemData(
            self.definition,
            self.utility,
            self.n_inputs,
            labels,
            cone,
            NORMALISATION,
            VertexEstimate.for_slice(self.n_inputs, cone.n_rows),
            options,
            self.solve_options,
        )

    def compile(self) -> CompiledProblem:
        """The compiled problem with the route ``"auto"`` would take."""
        data = self.get_problem_data()
        route, reason = self.plan()
        counterpart = ""
        if self.definition.counterpart_choice(data.input_labels, data.compile_options):
            chosen = data.compile_options.lip_counterpart
            counterpart = chosen
            if self.options.lip_counterpart == "auto":
                counterpart += (
                    " (auto: the rectangular cone is solved exactly)"
                    if chosen == "rectangular"
                    else " (auto: the rectangular cone would need column generation, whose bound only the "
                    "pairwise cone certifies)"
                )
        return CompiledProblem(data.cone, data.normalisation, data.estimate, route, reason, counterpart)

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
        if route == "lp" and not (
            isinstance(self.utility, ConcaveUtility) and self.utility.linear_coefficients() is not None
        ):
            raise ValidationError(
                "utility",
                "a utility affine in the mechanism on the lp route (expected gain, minus expected distortion)",
                f"{self.utility!r}: use route='cvxpy' for a concave utility, 'vertex' or 'colgen' for a sub-convex one",
            )
        if route == "cvxpy" and not isinstance(self.utility, ConcaveUtility):
            raise ValidationError(
                "utility",
                "a concave utility on the cvxpy route (maximising a convex utility is not a convex program)",
                f"{self.utility!r}, which is sub-convex: use route='vertex' or 'colgen'",
            )
        return self._plan(self.get_problem_data(), route)

    def _plan(self, data: ProblemData, route: str) -> tuple[str, str]:
        """:meth:`plan` for the compiled ``data`` (``route`` already checked against the utility)."""
        if route != "auto":
            accepted, why = ROUTES[route].accepts(data)
            if route == "closed_form" and not accepted:
                raise ValidationError("route", "a route that applies to the problem", f"'closed_form': {why}")
            return route, "requested"
        for name in ("closed_form", "lp", "cvxpy"):
            accepted, why = ROUTES[name].accepts(data)
            if accepted:
                return name, why
        accepted, why = ROUTES["vertex"].accepts(data)
        if not accepted:
            return "colgen", f"{why}: column generation, with a certified upper bound"
        predicted = predicted_vertex_seconds(data)
        pricer = certified_pricer(data.sub_convex(), data.cone)
        if (
            predicted > CERTIFIED_COLGEN_SECONDS
            and not isinstance(pricer, Refusal)
            and pricer.traits.preferred_to_enumeration
        ):
            return "colgen", (
                f"vertex enumeration is predicted to take about {predicted:.3g} s and the cone has a certified "
                "pricing bound: certified column generation"
            )
        budget = self._vertex_budget(self.time_limit)
        if budget is not None and predicted > budget:
            return "colgen", (
                f"vertex enumeration is predicted to take about {predicted:.3g} s, more than its share of the "
                f"time limit ({budget:.3g} s): column generation, with a certified upper bound"
            )
        return "vertex", f"{why} (predicted about {predicted:.2g} s)"

    @staticmethod
    def _vertex_budget(seconds: float | None) -> float | None:
        """The share of ``seconds`` that ``"auto"`` lets vertex enumeration use before it falls back."""
        return None if seconds is None else AUTO_VERTEX_SHARE * seconds

    # ------------------------------------------------------------------ solve
    def solve(self, route: str = "auto", *, solver: str | None = None, verbose: bool = False) -> Solution:
        """Solve the problem on ``route`` (module docstring); the mechanism is audited before it is
        returned, and :class:`~privopt.errors.SolverError` is raised if it fails its audit.

        ``solver`` is the route's back end, as in cvxpy: ``"HIGHS"`` (the default) on the vertex and
        column-generation routes, the name of an installed cvxpy solver (``"CLARABEL"``, ``"ECOS"``,
        ``"SCS"``, ...) on the cvxpy route; any other name is a :class:`~privopt.errors.ValidationError`
        listing the valid ones. ``verbose=True`` prints the compiled problem and the route before the
        solve, the route's progress and the solver's own log during it, and the bounds, times and
        audit after it.
        """
        return self._run(route, solver=solver, verbose=verbose)[0]

    @budgeted
    def _run(
        self,
        route: str = "auto",
        *,
        solver: str | None = None,
        verbose: bool = False,
        warm_columns: FloatArray | None = None,
        warm_master: WarmMaster | None = None,
        audit_lower_end: LowerEnd = "search",
        time_limit: float | None = None,
        memory_limit: int | None = None,
    ) -> tuple[Solution, RouteResult]:
        """:meth:`solve`, starting from ``warm_columns`` (columns of this cone) or continuing ``warm_master``
        (a restricted master whose columns lie in this cone, :class:`~privopt.routes.base.ProblemData`), with the route's result
        (its final columns start a curve's next point, :mod:`privopt.problem.curve`); ``audit_lower_end``:
        how the audit looks for an interval's lower end (:func:`~privopt.audit`'s ``search`` and ``lower``);
        ``time_limit``: seconds for this solve, below the problem's (a curve's share of its budget);
        ``memory_limit``: bytes for this solve, below ``memory_limit`` (a parallel chunk's share)."""
        smaller = memory_limit is not None and memory_limit < self.memory_limit
        with limited(memory_limit) if smaller else contextlib.nullcontext():
            options = replace(
                self.solve_options, solver=_check_solver(solver), verbose=_check_verbose(verbose)
            )
            start = time.perf_counter()
            limits = [t for t in (self.time_limit, time_limit) if t is not None]
            seconds = min(limits) if limits else None
            deadline = None if seconds is None else start + seconds
            if route in ("auto", "colgen") and isinstance(self.utility, SubConvexUtility):
                # before compiling: auto may fall back to it
                require_master_memory(self.n_inputs, self.colgen)
            planned, reason = self.plan(route)
            if route == "auto" and planned == "lp" and options.solver not in (None, *LP_SOLVERS):
                planned, reason = (
                    "cvxpy",
                    f"the solver {options.solver!r} is a cvxpy solver: one convex program",
                )
            data = self.get_problem_data()
            if options != data.options or warm_columns is not None or warm_master is not None:
                data = replace(data, options=options, warm_columns=warm_columns, warm_master=warm_master)
            compile_seconds = time.perf_counter() - start
            if verbose:
                header(data, planned, reason, options.solver)
            with progress_verbose() if verbose else contextlib.nullcontext(), _backend_errors(planned):
                if route == "auto" and planned == "vertex":
                    budget = self._vertex_budget(seconds)
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
            finish = functools.partial(
                self._finish,
                compile_seconds=compile_seconds,
                deadline=deadline,
                audit_lower_end=audit_lower_end,
            )
            try:
                try:
                    finished = finish(data, planned, reason, result)
                except _AuditFailure:
                    if planned != "vertex" or data.options.backend == "ppl":
                        raise
                    # A floating-point enumeration can keep a point just outside the cone (a row
                    # coefficient near 1e-12, below the back ends' tolerances) whose ratio the audit finds
                    # infinite: such an enumeration never yields a mechanism, so enumerate exactly.
                    data = replace(data, options=replace(data.options, backend="ppl"))
                    with _backend_errors(planned):
                        result = ROUTES["vertex"].solve(data, deadline)
                    reason += "; the floating-point enumeration's design failed its audit: enumerated exactly"
                    finished = finish(data, planned, reason, result)
            except _AuditFailure as exc:
                raise SolverError(str(exc)) from None
            solution = replace(finished, problem=self)
            if verbose:
                footer(solution)
            return solution, result

    def with_definition(self, definition: PrivacyDefinition) -> Problem:
        """The same problem (utility, compile and solve options) for another definition."""
        options = self.solve_options
        return Problem(
            definition,
            self.utility,
            envelope=self.options.envelope,
            self_pairs=self.options.self_pairs,
            lip_counterpart=self.options.lip_counterpart,
            vertex_limit=options.vertex_limit,
            time_limit=options.timeout,
            backend=options.backend,
            colgen=options.colgen,
            memory_limit=options.memory_limit,
        )

    def with_eps(self, eps: float) -> Problem:
        """The same problem at another ``eps`` (``definition.with_eps``). A problem already compiled
        hands its cone on rescaled, not compiled again: the pairs do not change with ε, only the
        blocks' factors (:meth:`~privopt.definitions.base.PrivacyDefinition.rescaled_cone`)."""
        other = self.with_definition(self.definition.with_eps(eps))
        if self._data:
            data = self._data[0]
            cone = other.definition.rescaled_cone(data.cone)
            estimate = VertexEstimate.for_slice(data.n_inputs, cone.n_rows)
            other._data.append(replace(data, definition=other.definition, cone=cone, estimate=estimate))
        return other

    def curve(
        self,
        *,
        eps: Any = None,
        level: Any = None,
        n: Any = None,
        route: str = "auto",
        compare: Sequence[str] = (),
        jobs: int = 1,
        client: Any = None,
        warm: bool = True,
        progress: bool = False,
        time_limit: float | None = None,
    ) -> pd.DataFrame:
        """The optimum along one parameter — ``eps``, or the uncertainty set's confidence ``level`` or
        sample size ``n`` — as a table with certified bands (:func:`privopt.problem.curve.solve_curve`;
        docs/compiler.md, "Curves"); ``time_limit``: seconds for the whole curve, shared by the points."""
        from privopt.problem.curve import solve_curve

        return solve_curve(
            self, eps=eps, level=level, n=n, route=route, compare=compare, jobs=jobs, client=client,
            warm=warm, progress=progress, time_limit=time_limit,
        )  # fmt: skip

    def _finish(
        self,
        data: ProblemData,
        route: str,
        reason: str,
        result: RouteResult,
        compile_seconds: float,
        deadline: float | None,
        audit_lower_end: LowerEnd = "search",
    ) -> Solution:
        mechanism = Mechanism(result.matrix, data.input_labels, None, name="optimal")
        start = time.perf_counter()
        report = audit(
            mechanism, self.definition, search=audit_lower_end == "search", lower=audit_lower_end != "none"
        )
        audit_seconds = time.perf_counter() - start
        if not report.satisfied:
            raise _AuditFailure(f"the designed mechanism fails its own audit — {report}")
        value = self.utility.value(mechanism)
        floor = _order_floor(self.utility, mechanism, value)
        for claimed in [result.upper, *(upper_in_units(b, self.utility) for b in result.bounds)]:
            if not claimed >= floor:  # a claim is refuted by the design itself, before any proof
                raise SolverError(
                    f"the {route} route's upper bound {claimed!r} is below its own mechanism's value {value!r} "
                    f"({result.upper_source}): a bound that contradicts a feasible point is a solver error"
                )
        start = time.perf_counter()
        bound, check = self._checked_bound(data, result, mechanism, deadline)
        check_seconds = time.perf_counter() - start
        upper = result.upper if bound is None else upper_in_units(bound, self.utility)
        if check is not None and check.valid and check.proved_upper is not None:
            upper = max(upper, check.proved_upper)  # the checker's bound, rigorous to its margin
        if not upper >= floor:
            raise SolverError(
                f"the checker's upper bound {upper!r} is below the mechanism's value {value!r}: a proof "
                "that contradicts a feasible point is an error in the checker"
            )
        upper = max(upper, value)  # within BOUND_ORDER_RTOL: rounding between the route's and our value
        status, why = self._status(result, value, upper, check)
        certificate = Certificate(
            audit=report,
            cone_violation=data.cone.violation(mechanism.matrix),
            bound=bound,
            check=check,
            upper_source=result.upper_source,
        )
        seconds = {"compile": compile_seconds, **result.stats.seconds, "audit": audit_seconds}
        if "check" not in seconds:
            seconds["check"] = check_seconds
        stats = replace(
            result.stats, seconds=seconds, cone_rows=data.cone.n_rows, outputs=mechanism.n_outputs
        )
        return Solution(
            mechanism,
            value,
            status,
            value,
            upper,
            route,
            f"{reason}{'' if result.reason == reason else '; ' + result.reason}{why}",
            stats,
            certificate,
        )

    def _checked_bound(
        self, data: ProblemData, result: RouteResult, mechanism: Mechanism, deadline: float | None
    ) -> tuple[Bound | None, CertificateCheck | None]:
        """The best bound the independent checker proves among the route's (best first), with its check.

        A bound the checker proves as claimed ends the search (the bounds after it are weaker claims); a
        check that proves only a weaker bound — a proof the time limit stopped, or one whose rounding
        margin exceeds the claim's slack — is used as that weaker bound (:func:`weaker_claim`), and kept
        where it is below every bound proved after it. With nothing proved: the route's best bound and
        the reason it was not. A refuted bound is a :class:`~privopt.errors.SolverError` (a bound that
        contradicts the checker is a bug)."""
        if not result.bounds:
            return None, None
        first: CertificateCheck | None = None
        best: tuple[Bound, CertificateCheck] | None = None
        for index, bound in enumerate(result.bounds):
            if index == 0 and result.check is not None:
                check = result.check
            else:
                check = check_bound(
                    data.cone,
                    self.utility,
                    bound,
                    mechanism=mechanism.matrix,
                    time_limit=self._check_budget(result, deadline),
                )
            if check.refuted:
                raise SolverError(
                    f"the independent checker refuted the route's certificate ({bound.method if isinstance(bound, SliceBound) else 'bound'}): "
                    f"{check.reason}"
                )
            proved = (bound, check) if check.valid else weaker_claim(bound, check)
            if proved is not None and (
                best is None
                or upper_in_units(proved[0], self.utility) < upper_in_units(best[0], self.utility)
            ):
                best = proved
            if check.valid:
                break
            first = first or check
        return best if best is not None else (result.bounds[0], first)

    @staticmethod
    def _check_budget(result: RouteResult, deadline: float | None) -> float:
        """Seconds for the independent check: as long as the route took (at least
        ``MIN_CHECK_SECONDS``), within the time limit but for ``MIN_CHECK_SECONDS``."""
        route_seconds = sum(result.stats.seconds.values())
        budget = max(MIN_CHECK_SECONDS, route_seconds)
        left = remaining(deadline)
        return budget if left is None else min(budget, left + MIN_CHECK_SECONDS)

    def _status(
        self, result: RouteResult, value: float, upper: float, check: CertificateCheck | None
    ) -> tuple[Status, str]:
        """The solution's status: optimal (or within the gap) only with a checked bound."""
        gap = relative_gap(value, upper)
        limited = result.status is Status.LIMIT_REACHED
        if check is not None and check.valid:
            return status_for(value, upper, self.colgen.gap_tolerance, limited), ""
        demoted = Status.LIMIT_REACHED if limited else Status.FEASIBLE
        why = "the route gave no bound" if check is None else check.reason
        if gap <= max(GAP_OPTIMAL_RTOL, self.colgen.gap_tolerance):
            return (
                demoted,
                f"; the upper bound is not independently checked ({why}), so it is not called optimal",
            )
        return demoted, f"; the upper bound is not independently checked ({why})"

    # ------------------------------------------------------------------ share
    def to_spec(self, path: str | Path | None = None) -> str:
        """The equivalent TOML spec (docs/spec-format.md), which ``privopt design`` solves to the same
        mechanism; written to ``path`` too when one is given. User functions are written by their
        import path ``module:function``; anything a spec cannot hold (a lambda, a label that is not a
        string or an integer, a subclass defined elsewhere) is a :class:`~privopt.errors.ValidationError`.
        ``po.save(problem, "problem.json")`` keeps a problem as JSON instead."""
        if not _SPEC_WRITER:
            raise NotSupportedError("Problem.to_spec needs privopt's spec writer: import privopt first")
        return _SPEC_WRITER[0](self, path)

    def __repr__(self) -> str:
        return f"Problem({self.definition}, {self.utility!r}, inputs={self.n_inputs})"
