"""The vertex route: vertex enumeration of the normalised cone slice, then the vertex LP.

For sub-convex utilities (mutual information, f-divergences): enumerate the vertices ``v`` of the
slice ``{w >= 0, G w <= 0, Σ_x w_x = 1}``, solve the LP ``max Σ_v θ_v μ(v)  s.t.  Σ_v θ_v v = 1_X,
θ >= 0`` and read off one output per ``θ_v > 0`` with column ``θ_v v`` (Kairouz et al. Thm. 4; Entropy
paper Thm. 3; privacy-funnel Thms. 2–3). Exact for the cone; at most ``|X|`` outputs. The LP's equality
duals ``λ`` certify the value: ``μ(v) <= λᵀv`` at every vertex, so every mechanism in the cone has
utility ``<= Σ_x λ_x``.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from privopt.certificates import CertificateCheck, SliceBound
from privopt.compiler.estimate import VertexEstimate
from privopt.errors import InfeasibleError, LimitError, SolverError, ValidationError
from privopt.memory import current_limit, require
from privopt.routes.base import (
    ProblemData,
    RouteResult,
    SolveStats,
    check_highs_solver,
    matrix_from_columns,
    remaining,
    status_for,
)
from privopt.routes.exact_pricing import ExactPricingStrategy
from privopt.routes.slice_check import checked
from privopt.routes.vertex_cost import exact_pricing, lifted_slice, predicted_vertex_seconds
from privopt.routes.vertex_pieces import LinearPiecesStrategy
from privopt.solvers.errors import BackendError, BackendMemoryError, BackendTimeout
from privopt.solvers.lp import solve_equality_lp, solve_lp
from privopt.solvers.vertex_enumeration import VertexResult, merge_close, polytope_vertices
from privopt.tolerances import (
    LIFT_TIGHT_RTOL,
    THETA_RTOL,
    VERTEX_MERGE_ATOL,
    VERTEX_NEGATIVE_ATOL,
)
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: Enumerations predicted (:mod:`privopt.routes.vertex_cost`) to take at most this many seconds run in
#: this process: forking a child to enforce the timeout would cost more than the enumeration.
IN_PROCESS_SECONDS = 1.0

#: Copies of the vertex set the vertex LP holds besides it (its transpose, HiGHS's matrix: a value and
#: an index per entry, the products with the duals).
VERTEX_LP_COPIES = 4


def _child_seconds(deadline: float | None) -> float:
    """The time budget of an enumeration in a child process (unbounded without a deadline: the child
    still enforces the memory limit)."""
    left = remaining(deadline)
    return math.inf if left is None else left


#: The remedies every refusal or timeout of the vertex route names.
REMEDIES = (
    "Remedies: route='colgen' (column generation: a mechanism with a certified upper bound), a coarser "
    "envelope (envelope='lower'), self_pairs=False, a larger vertex_limit= (and timeout=), or a "
    "low-complexity mechanism (po.mechanisms.srr, independent reporting)."
)


def _dedupe_rows(matrix: np.ndarray) -> np.ndarray:
    """Drop zero rows and exact duplicates (rows equal up to a positive factor) of an exact matrix."""
    seen: dict[tuple[Fraction, ...], int] = {}
    for k, row in enumerate(matrix):
        scale = max(abs(v) for v in row)
        if scale == 0:
            continue
        seen.setdefault(tuple(v / scale for v in row), k)
    kept = sorted(seen.values())
    return matrix[kept] if kept else matrix[:0]


def _distinct_float_rows(sparse: Any) -> int:
    """Non-zero rows of a sparse float matrix that differ (up to a positive factor) in their first 9
    digits (row by row: a dense copy of a 200 × 200 problem's cone would take 13 GB)."""
    matrix = sparse.tocsr()
    seen = set()
    for k in range(matrix.shape[0]):
        start, stop = matrix.indptr[k], matrix.indptr[k + 1]
        values = matrix.data[start:stop]
        scale = float(np.abs(values).max()) if values.size else 0.0
        if scale > 0:
            seen.add((matrix.indices[start:stop].tobytes(), np.round(values / scale, 9).tobytes()))
    return len(seen)


def refuse_above_limit(estimate: VertexEstimate, vertex_limit: float) -> None:
    """Raise :class:`~privopt.errors.LimitError` when McMullen's bound exceeds ``vertex_limit``."""
    if estimate.bound > vertex_limit:
        raise LimitError(
            f"vertex enumeration refused: the cone slice has {estimate}, above vertex_limit={vertex_limit:.3g}. "
            + REMEDIES
        )


class VertexStrategy(Protocol):
    """One way of solving the vertex LP exactly without enumerating: ``accepts`` says whether it applies
    (``None``) or why not; ``solve`` returns the design, or ``None`` when it cannot (a pricer too large
    once built) or the independent checker refutes it (the route then goes on)."""

    name: str

    def accepts(self, data: ProblemData) -> str | None: ...

    def solve(
        self, data: ProblemData, utility: SubConvexUtility, deadline: float | None, seconds: dict[str, float]
    ) -> RouteResult | None: ...


class VertexRoute:
    """Vertex enumeration + LP (module docstring): its strategies in turn — one LP over a column per
    linear piece (:mod:`~privopt.routes.vertex_pieces`), the LP over every vertex by exact pricing
    (:mod:`~privopt.routes.exact_pricing`) — and enumeration when none applies or answers."""

    name = "vertex"

    def __init__(self) -> None:
        self.strategies: tuple[VertexStrategy, ...] = (LinearPiecesStrategy(), ExactPricingStrategy())
        self.enumeration = EnumerationStrategy()

    def accepts(self, data: ProblemData) -> tuple[bool, str]:
        if not isinstance(data.utility, SubConvexUtility):
            return (
                False,
                "the utility is concave: the LP over vertices is exact only for sub-convex utilities",
            )
        if data.estimate.bound > data.options.vertex_limit and not exact_pricing(data):
            return False, (
                f"the vertex estimate ({data.estimate.bound_text}) is above "
                f"vertex_limit={data.options.vertex_limit:.3g}"
            )
        return True, "the utility is sub-convex: vertex enumeration + LP is exact"

    def solve(self, data: ProblemData, deadline: float | None) -> RouteResult:
        check_highs_solver(data.options, self.name)
        utility = data.sub_convex()
        utility.check(data.n_inputs)  # a user μ must be sublinear for the vertex LP to be exact
        seconds: dict[str, float] = {}
        for strategy in self.strategies:
            if strategy.accepts(data) is None:
                designed = strategy.solve(data, utility, deadline, seconds)
                if designed is not None:
                    return designed
        return self.enumeration.solve(data, utility, deadline, seconds)


class EnumerationStrategy:
    """Every vertex of the slice, enumerated (the lifted slice in cdd, the projected slice with the
    chosen back end, then exactly in pplpy), and the vertex LP over them; a slice beyond ``vertex_limit``
    is refused with a :class:`~privopt.errors.LimitError`."""

    name = "enumeration"

    def solve(
        self, data: ProblemData, utility: SubConvexUtility, deadline: float | None, seconds: dict[str, float]
    ) -> RouteResult:
        n = data.n_inputs
        limit = data.options.vertex_limit
        # Refuse before the exact (rational) rows are built: that alone takes minutes on Adult's
        # occupation × education. Merging float rows that agree to 9 digits merges at least the
        # exact duplicates, so this estimate never exceeds the exact one.
        if data.estimate.bound > limit:
            refuse_above_limit(VertexEstimate.for_slice(n, _distinct_float_rows(data.cone.matrix())), limit)
        backend = data.options.backend

        @functools.cache
        def projected() -> tuple[np.ndarray, VertexEstimate]:
            """The slice's inequalities in exact arithmetic (non-negativity first: cdd inserts a cone's
            inequalities in this order, solvers docstring), and their vertex estimate."""
            rows = _dedupe_rows(data.cone.exact_matrix())
            estimate = VertexEstimate.for_slice(n, rows.shape[0])
            refuse_above_limit(estimate, limit)
            return np.vstack([-np.eye(n, dtype=int).astype(object), rows]), estimate

        # Every enumeration is checked by the independent checker (privopt.certificates) through the LP's
        # duals, so floating-point vertices need no probes: a lost vertex that matters refutes the
        # certificate, and the next enumeration is tried — the lifted slice (one auxiliary variable,
        # vertex_cost.lifted_slice) in cdd when it exists, the projected slice with ``backend``, then
        # the projected slice exactly in pplpy.
        attempts: list[str] = (["lifted"] if lifted_slice(data) is not None else []) + [backend]
        if backend != "ppl":
            attempts.append("ppl")
        notes: list[str] = []
        for attempt in attempts:
            if attempt == "lifted":
                lift = lifted_slice(data)
                assert lift is not None
                found = self._enumerate_lifted(data, lift, deadline, seconds)
                if found is None:
                    continue
                vertices, result = found
                estimate = VertexEstimate.for_slice(n, _distinct_float_rows(data.cone.matrix()))
            else:
                a_ub, estimate = projected()
                vertices, result = self._enumerate(data, a_ub, attempt, False, deadline, seconds)
            try:
                solved = self._lp(data, utility, vertices, seconds)
            except InfeasibleError:
                if result.backend.startswith("ppl"):
                    raise  # rational vertices: the LP Σθ_v v = 1 is infeasible indeed
                notes.append(f"{result.backend} lost vertices: the vertex LP was infeasible")
                continue
            bound, check = self._certify(data, utility, solved, result.backend, deadline, seconds)
            if check is None or not check.refuted:
                break
            notes.append(f"{result.backend} lost a vertex the checker found ({check.reason})")
        else:
            raise SolverError(
                "vertex enumeration: the independent checker refuted the exact (pplpy) enumeration's "
                f"optimum — {'; '.join(notes)}"
            )
        upper = solved.value if bound is None else utility.from_core(bound.upper)
        note = f" (after {len(notes)} re-enumeration(s): {'; '.join(notes)})" if notes else ""
        stats = SolveStats(
            seconds=seconds,
            inequalities=estimate.inequalities,
            log10_mcmullen_bound=estimate.log10_bound,
            vertices=len(vertices),
            vertices_before_merge=result.raw_count,
            backend=result.backend,
            lp_value=solved.value,
        )
        value = utility.from_core(solved.value)
        return RouteResult(
            solved.matrix,
            status_for(value, upper, data.options.colgen.gap_tolerance, limited=False),
            value,
            upper,
            f"vertex enumeration + LP over every vertex of the cone slice{note}",
            "the vertex LP's duals",
            stats,
            () if bound is None else (bound,),
            check,
        )

    @staticmethod
    def _certify(
        data: ProblemData,
        utility: SubConvexUtility,
        solved: _VertexLP,
        backend: str,
        deadline: float | None,
        seconds: dict[str, float],
    ) -> tuple[SliceBound | None, CertificateCheck | None]:
        """The LP's claim ``OPT <= Σλ + |X|·max(0, max_v μ(v) − λᵀv)`` over the enumerated vertices, and
        the independent checker's verdict on it over the whole cone."""
        if solved.duals is None or solved.max_reduced_cost is None:
            return None, None
        bound = SliceBound.build(
            solved.duals,
            max(0.0, solved.max_reduced_cost),
            "sum",
            np.ones(data.n_inputs),
            f"vertex LP over the vertices enumerated by {backend}",
        )
        return bound, checked(data, utility, bound, deadline, seconds)

    def _enumerate_lifted(
        self,
        data: ProblemData,
        lift: tuple[FloatArray, FloatArray, float],
        deadline: float | None,
        seconds: dict[str, float],
    ) -> tuple[FloatArray, VertexResult] | None:
        """The slice's vertices from the lifted slice ``{w >= 0, aᵀw <= t <= F bᵀw, Σw = 1}`` in
        floating-point cdd, or ``None`` if cdd fails there (the caller then enumerates the projected
        slice). Measured on PolyOpt cones with the s1 = s2 pairs: 3×3 20–34 ms instead of 54–102 ms,
        2×6 0.35–1.8 s instead of 1.9–27 s (benchmarks/bench_vertex_cost.py)."""
        A, B, factor = lift
        n = data.n_inputs
        a_ub = np.vstack(
            [
                np.hstack([-np.eye(n), np.zeros((n, 1))]),
                np.hstack([A, -np.ones((A.shape[0], 1))]),
                np.hstack([-factor * B, np.ones((B.shape[0], 1))]),
            ]
        )
        try:
            vertices, result = self._enumerate(data, a_ub, "cdd", False, deadline, seconds, auxiliary=1)
        except SolverError:
            return None
        # A vertex ``w`` of the slice has n independent active rows among ``w >= 0``, ``Σw = 1`` and the
        # cone's. With both sides of t tight, the lifted vertex's n + 1 active rows give n independent
        # projected ones. With at most one side tight, no cone row is active at ``w``: its active rows
        # are n − 1 coordinates and ``Σw = 1``, so ``w`` is a unit vector inside the cone (every unit
        # vector when releasing the input is allowed). Any other lifted vertex projects into the slice.
        top, bottom = (vertices @ A.T).max(axis=1), factor * (vertices @ B.T).min(axis=1)
        tight = bottom - top <= LIFT_TIGHT_RTOL * np.maximum(np.abs(top), np.abs(bottom))
        unit = vertices.max(axis=1) >= 1.0 - VERTEX_MERGE_ATOL
        vertices = merge_close(
            vertices[tight | unit], VERTEX_MERGE_ATOL
        )  # lifted vertices can share their projection
        return vertices, VertexResult(vertices, "cdd (lifted slice)", result.seconds, result.raw_count)

    @staticmethod
    def _enumerate(
        data: ProblemData,
        a_ub: np.ndarray,
        backend: str,
        validate: bool,
        deadline: float | None,
        seconds: dict[str, float],
        auxiliary: int = 0,
    ) -> tuple[FloatArray, VertexResult]:
        """The normalised vertices of the slice ``{w >= 0, G w <= 0, Σw = 1}`` (rows); with ``auxiliary``
        extra variables (the last columns of ``a_ub``), the projections of the lifted slice's vertices."""
        n = data.n_inputs
        start = time.perf_counter()
        small = predicted_vertex_seconds(data, lifted=auxiliary > 0) <= IN_PROCESS_SECONDS
        description = f"vertex enumeration ({n} inputs, {a_ub.shape[0]} inequalities)"

        def run(chosen: str) -> VertexResult:
            return polytope_vertices(
                a_ub,
                np.zeros(a_ub.shape[0], dtype=int),
                np.concatenate([np.ones(n), np.zeros(auxiliary)])[None, :],
                [1.0],
                backend=chosen,
                timeout=None if small else _child_seconds(deadline),
                description=description,
                memory_limit=current_limit(),
                validate=validate,
                merge_atol=0.0 if auxiliary else VERTEX_MERGE_ATOL,  # a lifted slice is merged once projected
            )

        try:
            try:
                result = run(backend)
            except BackendError as exc:
                if isinstance(exc, BackendTimeout | BackendMemoryError) or backend != "cdd" or auxiliary:
                    raise
                result = run("ppl")  # a failed floating-point enumeration never yields a mechanism
            if len(result.vertices) == 0 and not result.backend.startswith("ppl"):
                result = run("ppl")  # nor does an empty one prove infeasibility (factors e^{εd} ~ 1e15)
        except (BackendTimeout, BackendMemoryError) as exc:
            raise LimitError(f"{exc}. {REMEDIES}") from exc
        except BackendError as exc:
            raise SolverError(f"vertex enumeration failed: {exc}") from exc
        seconds["enumerate"] = seconds.get("enumerate", 0.0) + time.perf_counter() - start
        vertices = result.vertices[:, :n]
        if vertices.size and vertices.min() < -VERTEX_NEGATIVE_ATOL:
            raise SolverError(
                f"vertex enumeration ({result.backend}) returned a point with a negative entry {vertices.min():.3g}"
            )
        if len(vertices) == 0:
            raise InfeasibleError(
                f"{data.definition}: the cone contains no non-zero column (the slice Σw = 1 is empty)"
            )
        # Floating-point back ends leave entries like -1e-17 where the exact vertex has 0.
        vertices = np.clip(vertices, 0.0, None)
        return vertices / vertices.sum(axis=1, keepdims=True), result

    @staticmethod
    def _lp(
        data: ProblemData, utility: SubConvexUtility, vertices: FloatArray, seconds: dict[str, float]
    ) -> _VertexLP:
        """The vertex LP ``max Σ_v θ_v μ(v) s.t. Σ_v θ_v v = 1, θ >= 0`` and the mechanism it gives."""
        n = data.n_inputs
        require(
            VERTEX_LP_COPIES * vertices.nbytes,
            f"the vertex LP over {len(vertices):,} vertices of {n} inputs",
            REMEDIES.removeprefix("Remedies: ").removesuffix("."),
        )
        start = time.perf_counter()
        mu = utility.mu(vertices.T)
        if not np.all(np.isfinite(mu)):
            raise ValidationError(
                "utility",
                "finite values μ(v) at every vertex of the cone",
                "an infinite value (e.g. KL with a zero in P1)",
            )
        try:
            lp = solve_equality_lp(mu, vertices.T, np.ones(n), verbose=data.options.verbose)
        except BackendError as exc:
            if "infeasible" in str(exc):
                raise InfeasibleError(
                    f"{data.definition}: no mechanism has all its columns in the cone (the LP Σθ_v v = 1 is infeasible)"
                ) from exc
            raise SolverError(f"the vertex LP failed: {exc}") from exc
        theta = lp.x
        keep = theta > THETA_RTOL * max(float(theta.max()), 1e-300)
        if keep.sum() > n:  # a basic solution needs at most |X| columns
            lp = solve_lp(
                mu[keep], a_eq=vertices[keep].T, b_eq=np.ones(n), bounds=(0.0, None), methods=("highs-ds",)
            )
            index = np.flatnonzero(keep)
            theta = np.zeros_like(theta)
            theta[index] = lp.x
            keep = theta > THETA_RTOL * float(theta.max())
        seconds["lp"] = seconds.get("lp", 0.0) + time.perf_counter() - start
        duals = lp.eq_duals if lp.eq_duals.size else None
        return _VertexLP(
            matrix_from_columns(vertices[keep].T, theta[keep]),
            float(lp.objective),
            duals,
            None if duals is None else float(np.max(mu - vertices @ duals)),
        )


@dataclass(frozen=True)
class _VertexLP:
    """The vertex LP's mechanism, value, equality duals and largest reduced cost."""

    matrix: FloatArray
    value: float
    duals: FloatArray | None
    max_reduced_cost: float | None
