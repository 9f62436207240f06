"""What every route receives and returns: :class:`ProblemData`, :class:`RouteResult`, :class:`Status`.

A route is an algorithm for a compiled problem (docs/design.md, "One solve", item 4). It declares
whether it applies, ``accepts(data) -> (bool, reason)``, and solves,
``solve(data, deadline) -> RouteResult``.
Routes never see :class:`~privopt.Problem`: :meth:`privopt.Problem.get_problem_data` builds the
:class:`ProblemData` once (the cone is compiled once per solve), and the problem turns the route's
result into a :class:`~privopt.Solution` after the independent audit.
"""

from __future__ import annotations

import functools
import time
import weakref
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, TypeVar

import numpy as np
import scipy.linalg

from privopt.certificates import Bound, CertificateCheck
from privopt.compiler.cone import CompileOptions, RowCone
from privopt.compiler.estimate import VertexEstimate
from privopt.definitions.base import PrivacyDefinition
from privopt.errors import ValidationError
from privopt.memory import default_memory_limit
from privopt.routes.colgen_options import ColumnGenerationOptions, relative_gap
from privopt.tolerances import GAP_OPTIMAL_RTOL, SOLVER_COLUMN_RTOL
from privopt.utilities import ConcaveUtility, SubConvexUtility
from privopt.validation import FloatArray


class WarmMaster(Protocol):
    """A restricted master a route can continue (column generation's, :class:`~privopt.routes.colgen.RestrictedMaster`):
    its inputs ``n``, ``solve() -> (value, θ, duals)``, ``add(columns, values)`` and ``support(θ)``."""

    n: int

    def solve(self) -> tuple[float, FloatArray, FloatArray]: ...

    def add(self, columns: list[FloatArray], values: list[float]) -> None: ...

    def support(self, theta: FloatArray) -> tuple[FloatArray, FloatArray]: ...


class Status(StrEnum):
    """What a solve can say about its mechanism (cvxpy's status constants, as an Enum).

    Every status comes with a mechanism that passed its audit and with ``lower <= optimum <= upper``.
    An infeasible problem raises :class:`~privopt.errors.InfeasibleError` instead of returning.
    """

    #: Certified optimal: ``gap <= GAP_OPTIMAL_RTOL`` (exact routes have ``lower == upper``).
    OPTIMAL = "optimal"
    #: Certified within the requested relative gap (column generation's ``gap_tolerance``).
    OPTIMAL_WITHIN_GAP = "optimal_within_gap"
    #: A budget (time, iterations) stopped the route before the gap closed; the bounds hold.
    LIMIT_REACHED = "limit_reached"
    #: The route finished without closing the gap (its bound is weaker than its mechanism's value).
    FEASIBLE = "feasible"


@dataclass(frozen=True)
class SolveStats:
    """Counts and times of one solve; fields a route does not produce stay ``None``.

    ``seconds`` maps each stage (``compile``, ``enumerate``, ``lp``, ``column_generation``, ``solve``,
    ``audit``) to its wall time.
    """

    seconds: Mapping[str, float] = field(default_factory=dict)
    cone_rows: int | None = None
    outputs: int | None = None
    # the vertex route (``vertices_before_merge``: the back end's raw count; for a lifted slice, the
    # lifted vertices, of which those with both sides tight are the slice's ``vertices``)
    inequalities: int | None = None
    log10_mcmullen_bound: float | None = None
    vertices: int | None = None
    vertices_before_merge: int | None = None
    backend: str | None = None
    lp_value: float | None = None
    # column generation
    iterations: int | None = None
    columns: int | None = None
    pricing_lps: int | None = None
    bound_nodes: int | None = None
    bound_complete: bool | None = None
    stopped: str | None = None
    trace: tuple[tuple[float, float], ...] = ()
    #: With a gap left: ``"bound"`` when the master's value had settled (the pricing bound keeps the gap
    #: open), ``"master"`` when it was still rising (more time or columns would raise the design).
    limited_by: str | None = None
    # the cvxpy route
    solver: str | None = None


@dataclass(frozen=True)
class SolveOptions:
    """The budgets and back ends of a solve (:class:`~privopt.Problem`'s keyword arguments, and
    ``solver`` and ``verbose`` of :meth:`~privopt.Problem.solve`).

    ``solver`` is the back end of the route (``None``: its default): ``"HIGHS"`` on the vertex and
    column-generation routes, a cvxpy solver name on the cvxpy route. ``verbose`` prints the route's
    log and the solver's own output.
    """

    vertex_limit: float
    timeout: float | None
    backend: str
    colgen: ColumnGenerationOptions
    solver: str | None = None
    verbose: bool = False
    #: Bytes a solve may allocate (:mod:`privopt.memory`).
    memory_limit: int = field(default_factory=default_memory_limit)


#: The LP solver of the vertex and column-generation routes (the only ``solver=`` they accept).
HIGHS_SOLVERS = ("HIGHS",)


def check_highs_solver(options: SolveOptions, route: str) -> None:
    """Refuse a ``solver=`` other than HiGHS on a route whose LPs HiGHS solves."""
    if options.solver is not None and options.solver not in HIGHS_SOLVERS:
        raise ValidationError(
            "solver",
            f"one of {', '.join(map(repr, HIGHS_SOLVERS))} on the {route} route (its LPs are solved by HiGHS; "
            "cvxpy's solvers apply to the cvxpy route, for concave utilities)",
            repr(options.solver),
        )


@dataclass(frozen=True, eq=False)
class ProblemData:
    """What a route receives: the compiled problem (``Problem.get_problem_data``).

    Attributes
    ----------
    definition, utility:
        The problem's definition and utility.
    n_inputs, input_labels:
        The mechanism's inputs.
    cone:
        The compiled row cone (every column of the mechanism must lie in it).
    normalisation:
        How columns are normalised for vertex enumeration and pricing.
    estimate:
        McMullen's bound on the vertices of the normalised slice.
    compile_options, options:
        How the cone was compiled; the solve's budgets and back ends.
    """

    definition: PrivacyDefinition
    utility: SubConvexUtility | ConcaveUtility
    n_inputs: int
    input_labels: tuple[Hashable, ...]
    cone: RowCone
    normalisation: str
    estimate: VertexEstimate
    compile_options: CompileOptions
    options: SolveOptions
    #: Columns known to lie in this cone, to start from (a curve passes a neighbouring point's columns:
    #: a column of the cone at ε is in the cone at every larger ε); ``None``: none.
    warm_columns: FloatArray | None = None
    #: A restricted master whose columns all lie in this cone, for the same utility, to continue from
    #: (a curve passes the previous point's: its optimal basis stays feasible); ``None``: a new one.
    warm_master: WarmMaster | None = None

    def sub_convex(self) -> SubConvexUtility:
        """The utility, which must be sub-convex (the vertex and column-generation routes)."""
        if not isinstance(self.utility, SubConvexUtility):
            raise ValidationError("utility", "a sub-convex utility", repr(self.utility))
        return self.utility

    def affine_utility(self) -> tuple[FloatArray, float] | None:
        """``(C, c₀)`` with ``U(W) = Σ C[x, y] W[x, y] + c₀`` when the utility is affine in the mechanism
        (:meth:`~privopt.utilities.ConcaveUtility.linear_coefficients`), else ``None``."""
        if not isinstance(self.utility, ConcaveUtility):
            return None
        return self.utility.linear_coefficients()

    def concave(self) -> ConcaveUtility:
        """The utility, which must be concave (the cvxpy route)."""
        if not isinstance(self.utility, ConcaveUtility):
            raise ValidationError("utility", "a concave utility", repr(self.utility))
        return self.utility

    def describe(self) -> str:
        return "\n".join(
            [
                self.cone.describe(),
                f"normalisation: {self.normalisation}",
                f"vertex estimate: {self.estimate}",
            ]
        )


Result = TypeVar("Result")


def per_problem(function: Callable[[ProblemData], Result]) -> Callable[[ProblemData], Result]:
    """``function(data)`` computed once per :class:`ProblemData` object while it lives (its identity is
    its hash, and the cache holds it weakly): the recognisers that planning, the cost model and a route
    each ask of the same problem build their pricers once."""
    cache: weakref.WeakKeyDictionary[ProblemData, Result] = weakref.WeakKeyDictionary()

    @functools.wraps(function)
    def once(data: ProblemData) -> Result:
        if data not in cache:
            cache[data] = function(data)
        return cache[data]

    return once


@dataclass(frozen=True, eq=False)
class RouteResult:
    """What a route returns: the mechanism's matrix (rows in the order of ``data.input_labels``, not
    yet renormalised), its status and bounds, why, and the route's counts.

    ``bounds`` are the route's claims ``OPT <= upper`` with their evidence
    (:mod:`privopt.certificates.claims`), best first; ``upper`` is the first one's. ``check`` is the
    independent checker's verdict on ``bounds[0]`` when the route already ran it (the vertex route
    does, to recover from a lost vertex); otherwise :meth:`privopt.Problem.solve` runs it.
    """

    matrix: FloatArray
    status: Status
    lower: float
    upper: float
    reason: str
    upper_source: str
    stats: SolveStats
    bounds: tuple[Bound, ...] = ()
    check: CertificateCheck | None = None
    #: The restricted master the route's LP ended in, when the next point of a curve can continue it.
    master: WarmMaster | None = None


class Route(Protocol):
    """A route (module docstring)."""

    #: Short name: ``"vertex"``, ``"colgen"``, ``"cvxpy"``, ``"closed_form"``.
    name: str

    def accepts(self, data: ProblemData) -> tuple[bool, str]:
        """``(True, why it applies)`` or ``(False, why not)``."""
        ...

    def solve(self, data: ProblemData, deadline: float | None) -> RouteResult:
        """Solve ``data`` before ``deadline`` (a :func:`time.perf_counter` value; ``None``: no limit)."""
        ...


def remaining(deadline: float | None) -> float | None:
    """Seconds left before ``deadline`` (``None`` without one), never negative."""
    return None if deadline is None else max(0.0, deadline - time.perf_counter())


def status_for(lower: float, upper: float, gap_tolerance: float, limited: bool) -> Status:
    """The status of a result with these bounds: optimal when the gap closes, within the requested gap,
    else limited by a budget or merely feasible."""
    gap = relative_gap(lower, upper)
    if gap <= GAP_OPTIMAL_RTOL:
        return Status.OPTIMAL
    if gap <= gap_tolerance:
        return Status.OPTIMAL_WITHIN_GAP
    return Status.LIMIT_REACHED if limited else Status.FEASIBLE


def matrix_from_columns(columns: FloatArray, weights: FloatArray) -> FloatArray:
    """The channel with columns ``θ_j v_j`` (``Σ_j θ_j v_j = 1``), rows renormalised (Entropy paper Thm. 3).

    An LP solver meets ``Σ_j θ_j v_j = 1`` only to its feasibility tolerance (~1e-9 relative), and
    renormalising the rows then moves every likelihood ratio by as much: at ε = 12 on Adult
    (marital-status → relationship, entries ~5e-7) the audit saw ε + 7.8e-7. The weights are re-solved
    on their support by least squares (exact to rounding when the support is a basis), and kept only if
    they stay non-negative and fit better.
    """
    # QR with column pivoting (gelsy): a basis's columns are independent, and it is several times faster
    # than the SVD on the 900 × 900 supports of a 30 × 30 alphabet.
    solution, *_ = scipy.linalg.lstsq(columns, np.ones(columns.shape[0]), lapack_driver="gelsy")
    polished = np.asarray(solution, dtype=np.float64)
    residual = np.abs(columns @ weights - 1.0).max()
    if np.all(polished >= 0.0) and np.abs(columns @ polished - 1.0).max() < residual:
        weights = polished
    matrix = columns * weights[None, :]
    normalised: FloatArray = matrix / matrix.sum(axis=1, keepdims=True)
    return normalised


def clean_channel(matrix: FloatArray) -> FloatArray:
    """A solver's channel read off as a mechanism: negative entries (solver noise) set to 0, outputs whose
    total probability is below :data:`~privopt.tolerances.SOLVER_COLUMN_RTOL` times the number of inputs
    (interior-point noise of an unused output, which an exact audit would read as a leaky ratio) set to
    0, and the rows renormalised."""
    cleaned = np.clip(matrix, 0.0, None)
    unused = cleaned.sum(axis=0) <= SOLVER_COLUMN_RTOL * cleaned.shape[0]
    if not np.all(unused):
        cleaned[:, unused] = 0.0
    normalised: FloatArray = cleaned / cleaned.sum(axis=1, keepdims=True)
    return normalised
