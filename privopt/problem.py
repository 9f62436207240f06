"""Mechanism-design problems: a privacy definition plus a utility, compiled and solved.

``Problem(definition, utility).solve()`` compiles the definition into a row cone (DESIGN.md §3),
picks a route, and returns a :class:`Solution` whose mechanism has been re-audited against the
definition, independently of how it was derived.

Routes
------
``"vertex"``
    For sub-convex utilities (mutual information, f-divergences): enumerate the vertices ``v`` of the
    normalised cone slice ``{w >= 0, G w <= 0, Σ_x w_x = 1}``, solve the LP
    ``max Σ_v θ_v μ(v)  s.t.  Σ_v θ_v v = 1_X, θ >= 0`` and read off one output per ``θ_v > 0``
    with column ``θ_v v`` (Kairouz et al. Thm. 4; Entropy paper Thm. 3; privacy-funnel Thms. 2–3).
    Exact for the cone; at most ``|X|`` outputs.
``"cvxpy"``
    For concave utilities (expected gain, minus expected distortion): one convex program over the
    whole channel matrix with every column in the cone.
``"colgen"``
    Column generation (:mod:`privopt.column_generation`): a feasible mechanism and an upper bound; on
    envelope cones with mutual information the bound is certified (:mod:`privopt.pricing`).
``"auto"``
    The closed form when one is registered for the problem, else ``"vertex"`` for sub-convex and
    ``"cvxpy"`` for concave utilities; ``"colgen"`` when the vertex estimate is above
    ``vertex_limit``, or above ``CERTIFIED_COLGEN_BOUND`` on cones with a certified pricing bound.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from privopt.audit import AuditReport, audit
from privopt.column_generation import ColumnGenerationOptions, column_generation, relative_gap
from privopt.cone import CompileOptions, RowCone
from privopt.definitions.base import PrivacyDefinition
from privopt.errors import InfeasibleError, LimitError, PrivoptError, SolverError, ValidationError
from privopt.estimate import DEFAULT_VERTEX_LIMIT, VertexEstimate, format_count
from privopt.mechanism import Mechanism
from privopt.pricing.certificate import PricingCertificate, envelope_pricer
from privopt.solvers.errors import BackendError, BackendTimeout
from privopt.tolerances import AUDIT_EPS_ATOL, CERTIFIED_GAP_RTOL
from privopt.upper_bounds import best_upper_bound
from privopt.utilities import ConcaveUtility, SubConvexUtility, as_utility
from privopt.validation import FloatArray

ROUTES = ("auto", "vertex", "colgen", "cvxpy")

#: Enumerations whose McMullen bound is at most this run in this process, exactly (they are certain
#: to be quick; forking a child to enforce the timeout, or validating a floating-point result, would
#: cost more than the enumeration).
IN_PROCESS_BOUND = 10**5

#: ``route="auto"`` prefers certified column generation to vertex enumeration above this McMullen bound
#: when the cone has a certified pricing bound (measured: 3×4 Rényi ball, n = 1000, ε = 0.5, bound 1.7e8:
#: enumeration 8.3 s, certified colgen 1.5 s to a 4e-7 gap; 3×3, bound 4.9e5: 0.2 s against 1.2 s).
CERTIFIED_COLGEN_BOUND = 10**7

#: θ_v below this (relative to max θ) is treated as zero when reading off the mechanism.
THETA_RTOL = 1e-12

#: Named mechanisms whose columns seed column generation (``nr`` is itself an optimisation; ``oue``
#: has 2^|X| outputs).
_SEED_MECHANISMS = ("grr", "srr", "ir", "cr")

#: Closed forms: functions ``(problem) -> (mechanism, explanation) | None`` tried first by ``route="auto"``.
CLOSED_FORMS: list[Callable[[Problem], tuple[Mechanism, str] | None]] = []


def register_closed_form(
    function: Callable[[Problem], tuple[Mechanism, str] | None],
) -> Callable[[Problem], tuple[Mechanism, str] | None]:
    """Register a closed form (usable as a decorator). It receives the :class:`Problem` and returns
    ``(mechanism, explanation)`` when it applies, else ``None``; the mechanism is audited like any other."""
    if function not in CLOSED_FORMS:
        CLOSED_FORMS.append(function)
    return function


@dataclass(frozen=True)
class Certificate:
    """Evidence that a solution is what it claims.

    Attributes
    ----------
    audit:
        The independent audit of the mechanism against the definition.
    cone_violation:
        Largest relative violation of the compiled cone's rows by the mechanism's columns.
    lp_duals:
        Vertex route: the LP's equality duals ``λ`` (one per input). Since ``μ(v) <= λᵀv`` at every
        vertex and ``μ`` is convex, every mechanism in the cone has utility ``<= Σ_x λ_x``.
    dual_bound:
        ``Σ_x λ_x``, an upper bound on the utility of any mechanism in the cone.
    max_reduced_cost:
        ``max_v μ(v) − λᵀv`` over the enumerated vertices (``<= ~0`` certifies the bound).
    pricing:
        Column generation and vertex route on envelope cones: duals ``λ`` and a *proved* bound
        ``δ̄ >= max μ(w) − λᵀw`` over the whole cone slice ``pᵀw = 1``, so ``OPT <= Σλ + max(0, δ̄)``
        (:mod:`privopt.pricing`; re-check with :func:`privopt.pricing.check_pricing_certificate`).
        On the vertex route it also proves that no vertex was lost by the enumeration.
    """

    audit: AuditReport
    cone_violation: float
    lp_duals: np.ndarray | None = None
    dual_bound: float | None = None
    max_reduced_cost: float | None = None
    tolerance: float = AUDIT_EPS_ATOL
    pricing: PricingCertificate | None = None

    @property
    def passed(self) -> bool:
        return self.audit.satisfied

    def to_dict(self) -> dict[str, Any]:
        return {
            "audit": self.audit.to_dict(),
            "cone_violation": self.cone_violation,
            "lp_duals": None if self.lp_duals is None else [float(v) for v in self.lp_duals],
            "dual_bound": self.dual_bound,
            "max_reduced_cost": self.max_reduced_cost,
            "tolerance": self.tolerance,
            "pricing": None if self.pricing is None else self.pricing.to_dict(),
        }


@dataclass(frozen=True, eq=False)
class Solution:
    """The result of :meth:`Problem.solve`.

    ``value`` is the utility of ``mechanism``; ``route`` says which route produced it and why;
    ``stats`` has counts (vertices, inequalities) and the time of each stage in seconds.
    """

    mechanism: Mechanism
    value: float
    route: str
    stats: dict[str, Any]
    certificate: Certificate

    def __repr__(self) -> str:
        return f"Solution(value={self.value:.6g}, outputs={self.mechanism.n_outputs}, route={self.route!r})"


@dataclass(frozen=True, eq=False)
class CompiledProblem:
    """What :meth:`Problem.compile` produces: the cone, the normalisation and the planned route."""

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
    """Non-zero rows of a float matrix that differ (up to a positive factor) in their first 9 digits."""
    matrix = sparse.toarray()
    scale = np.abs(matrix).max(axis=1)
    nonzero = scale > 0
    normalised = np.round(matrix[nonzero] / scale[nonzero, None], 9)
    return int(np.unique(normalised, axis=0).shape[0])


class Problem:
    """Maximise a utility over the mechanisms that satisfy a privacy definition.

    Parameters
    ----------
    definition:
        A privacy definition (``po.LDP``, ``po.SensitiveLDP``, ``po.LIP``, ``po.PML``, ...).
    utility:
        A sub-convex utility (``po.MutualInformation``, ``po.FDivergence``) for the vertex route, or a
        concave one (``po.ExpectedGain``, ``po.ExpectedDistortion``) for the cvxpy route.
    envelope, self_pairs:
        Compile options (:class:`~privopt.cone.CompileOptions`).
    vertex_limit:
        Refuse a vertex enumeration whose McMullen bound exceeds this.
    timeout:
        Seconds allowed for the vertex enumeration (it runs in a child process and is stopped).
    backend:
        Vertex enumeration back end: ``"auto"`` (default: floating-point cdd, validated, else exact
        ppl), ``"cdd"`` (on failure retried with ``"ppl"``) or ``"ppl"`` (exact).
    colgen:
        Budgets of the column-generation route (:class:`~privopt.column_generation.ColumnGenerationOptions`).
    """

    def __init__(
        self,
        definition: PrivacyDefinition,
        utility: SubConvexUtility | ConcaveUtility,
        *,
        envelope: str = "lower",
        self_pairs: bool = False,
        vertex_limit: int = DEFAULT_VERTEX_LIMIT,
        timeout: float | None = 600.0,
        backend: str = "auto",
        colgen: ColumnGenerationOptions | dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(definition, PrivacyDefinition):
            raise ValidationError(
                "definition", "a privacy definition such as po.LDP(eps)", type(definition).__name__
            )
        self.definition = definition
        self.utility = as_utility(utility)
        self.options = CompileOptions(envelope=envelope, self_pairs=self_pairs)
        if not (isinstance(vertex_limit, (int, float)) and vertex_limit > 0):
            raise ValidationError("vertex_limit", "a positive number", repr(vertex_limit))
        self.vertex_limit = vertex_limit
        if timeout is not None and not timeout > 0:
            raise ValidationError("timeout", "a positive number of seconds or None", repr(timeout))
        self.timeout = timeout
        if backend not in ("auto", "cdd", "ppl"):
            raise ValidationError("backend", "'auto', 'cdd' or 'ppl'", repr(backend))
        self.backend = backend
        if colgen is None:
            colgen = ColumnGenerationOptions()
        elif isinstance(colgen, dict):
            colgen = ColumnGenerationOptions(**colgen)
        elif not isinstance(colgen, ColumnGenerationOptions):
            raise ValidationError(
                "colgen", "ColumnGenerationOptions or a dict of its fields", type(colgen).__name__
            )
        self.colgen = colgen
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

    # ------------------------------------------------------------------ compile
    def compile(self) -> CompiledProblem:
        cone = self.definition.row_cone(self.n_inputs, options=self.options)
        estimate = VertexEstimate.for_slice(self.n_inputs, cone.n_rows)
        route, reason = self._plan()
        return CompiledProblem(cone, "Σ_x w_x = 1 (each column rescaled to sum 1)", estimate, route, reason)

    def describe(self) -> str:
        """The compiled form, readably: cone blocks with their rules, normalisation, estimate, route."""
        return self.compile().describe()

    def _plan(self, requested: str = "auto") -> tuple[str, str]:
        if requested not in ROUTES:
            raise ValidationError("route", f"one of {', '.join(map(repr, ROUTES))}", repr(requested))
        if requested in ("vertex", "colgen") and not isinstance(self.utility, SubConvexUtility):
            raise ValidationError(
                "utility",
                "a sub-convex utility on the vertex route (the LP over vertices is exact only for those)",
                f"{self.utility!r}, which is concave: use route='cvxpy'",
            )
        if requested == "cvxpy" and not isinstance(self.utility, ConcaveUtility):
            raise ValidationError(
                "utility",
                "a concave utility on the cvxpy route (maximising a convex utility is not a convex program)",
                f"{self.utility!r}, which is sub-convex: use route='vertex'",
            )
        if requested != "auto":
            return requested, "requested"
        if isinstance(self.utility, ConcaveUtility):
            return "cvxpy", "the utility is concave: one convex program"
        cone = self.definition.row_cone(self.n_inputs, options=self.options)
        estimate = VertexEstimate.for_slice(self.n_inputs, cone.n_rows)
        if estimate.bound > self.vertex_limit:
            return (
                "colgen",
                f"the vertex estimate ({format_count(estimate.bound)}) is above vertex_limit={self.vertex_limit:.3g}: column generation, with an upper bound",
            )
        if estimate.bound > CERTIFIED_COLGEN_BOUND and not isinstance(
            envelope_pricer(self.utility, cone), str
        ):
            return (
                "colgen",
                f"the vertex estimate ({format_count(estimate.bound)}) is large and the cone has a certified pricing bound: "
                f"certified column generation (gap <= {self.colgen.gap_tolerance:.0e})",
            )
        return "vertex", "the utility is sub-convex: vertex enumeration + LP is exact"

    # ------------------------------------------------------------------ solve
    def solve(self, route: str = "auto") -> Solution:
        """Solve the problem; see the module docstring for the routes."""
        planned, reason = self._plan(route)
        if route == "auto":
            for closed_form in CLOSED_FORMS:
                found = closed_form(self)
                if found is not None:
                    mechanism, why = found
                    return self._finish(mechanism, "closed form: " + why, {"seconds": {}}, None, None)
        stats: dict[str, Any] = {"seconds": {}}
        start = time.perf_counter()
        cone = self.definition.row_cone(self.n_inputs, options=self.options)
        stats["seconds"]["compile"] = time.perf_counter() - start
        stats["cone_rows"] = cone.n_rows
        if planned == "vertex":
            return self._solve_vertex(cone, stats, reason)
        if planned == "colgen":
            return self._solve_colgen(cone, stats, reason)
        return self._solve_cvxpy(cone, stats, reason)

    def _solve_colgen(self, cone: RowCone, stats: dict[str, Any], reason: str) -> Solution:
        assert isinstance(self.utility, SubConvexUtility)
        self.utility.check(self.n_inputs)
        start = time.perf_counter()
        result = column_generation(self.utility, cone, self.colgen, initial_columns=self._seed_columns())
        stats["seconds"]["column_generation"] = time.perf_counter() - start
        upper, upper_source = result.upper, f"column generation: {result.bound_method}"
        theorem = best_upper_bound(self)
        if theorem is not None and theorem[0] < upper:
            upper, upper_source = max(theorem[0], result.lower), theorem[1]
        gap = relative_gap(result.lower, upper)
        stats.update(
            lower=result.lower,
            upper=upper,
            upper_source=upper_source,
            gap=gap,
            stopped=result.stopped,
            iterations=result.iterations,
            columns=result.columns_generated,
            pricing_lps=result.pricing_lps,
            bound_nodes=result.bound_nodes,
            bound_complete=result.bound_complete,
            trace=result.trace.tolist(),
        )
        mechanism = self._mechanism_from_columns(result.columns, result.weights, "colgen")
        verdict = "optimal (bound closed)" if gap <= 1e-9 else f"certified gap {gap:.3g}"
        return self._finish(
            mechanism,
            f"colgen ({reason}; stopped: {result.stopped}; {verdict})",
            stats,
            result.duals,
            None,
            cone,
            pricing=result.certificate,
        )

    def _seed_columns(self) -> FloatArray | None:
        """Columns of the papers' low-complexity mechanisms for this definition (GRR, SRR, IR, CR).

        Column generation starts from them (those in the cone), so its value is never below the best
        of them. A mechanism that cannot be built here (a definition it does not apply to, a
        calibration that fails) is skipped: the seeds are a head start, not a requirement.
        """
        from privopt.compare import as_mechanism
        from privopt.named_mechanisms import available

        builders = available(self)
        columns = []
        for name in _SEED_MECHANISMS:
            if name not in builders:
                continue
            try:
                matrix = as_mechanism(builders[name](), name).matrix
            except PrivoptError:
                continue
            if matrix.shape[0] == self.n_inputs:
                columns.append(matrix)
        return np.hstack(columns) if columns else None

    def _mechanism_from_columns(self, columns: FloatArray, weights: FloatArray, name: str) -> Mechanism:
        """The mechanism with columns ``θ_j v_j`` (``Σ_j θ_j v_j = 1``), rows renormalised.

        An LP solver meets ``Σ_j θ_j v_j = 1`` only to its feasibility tolerance (~1e-9 relative), and
        renormalising the rows then moves every likelihood ratio by as much: at ε = 12 on Adult
        (marital-status → relationship, entries ~5e-7) the audit saw ε + 7.8e-7. The weights are
        re-solved on their support by least squares (exact to rounding when the support is a
        basis), and kept only if they stay non-negative and fit better.
        """
        polished, *_ = np.linalg.lstsq(columns, np.ones(columns.shape[0]), rcond=None)
        residual = np.abs(columns @ weights - 1.0).max()
        if np.all(polished >= 0.0) and np.abs(columns @ polished - 1.0).max() < residual:
            weights = polished
        matrix = columns * weights[None, :]
        return Mechanism(
            matrix / matrix.sum(axis=1, keepdims=True), self.definition.input_labels(), None, name=name
        )

    def _refuse_above_limit(self, estimate: VertexEstimate) -> None:
        if estimate.bound > self.vertex_limit:
            raise LimitError(
                f"vertex enumeration refused: the cone slice has {estimate}, above vertex_limit={self.vertex_limit:.3g}. "
                "Remedies: route='colgen' (near-optimal, with an upper bound), a coarser envelope "
                "(envelope='lower'), self_pairs=False, a larger vertex_limit= (and timeout=), or a "
                "low-complexity mechanism (po.mechanisms.srr, independent reporting)."
            )

    def _solve_vertex(self, cone: RowCone, stats: dict[str, Any], reason: str) -> Solution:
        from privopt.solvers.lp import solve_lp
        from privopt.solvers.vertex_enumeration import polytope_vertices

        assert isinstance(self.utility, SubConvexUtility)
        n = self.n_inputs
        self.utility.check(n)  # a user μ must be sublinear for the vertex LP to be exact
        # Refuse before the exact (rational) rows are built: that alone takes minutes on Adult's
        # occupation × education. Merging float rows that agree to 9 digits merges at least the
        # exact duplicates, so this estimate never exceeds the exact one.
        if VertexEstimate.for_slice(n, cone.n_rows).bound > self.vertex_limit:
            self._refuse_above_limit(VertexEstimate.for_slice(n, _distinct_float_rows(cone.matrix())))
        rows = _dedupe_rows(cone.exact_matrix())
        estimate = VertexEstimate.for_slice(n, rows.shape[0])
        stats.update(inequalities=estimate.inequalities, mcmullen_bound=estimate.bound)
        self._refuse_above_limit(estimate)
        start = time.perf_counter()
        a_ub = np.vstack([rows, -np.eye(n, dtype=int).astype(object)])
        b_ub = np.zeros(a_ub.shape[0], dtype=int)
        description = f"vertex enumeration ({n} inputs, {a_ub.shape[0]} inequalities)"
        small = estimate.bound <= IN_PROCESS_BOUND
        timeout = None if small else self.timeout
        # Small polytopes: exact arithmetic is as fast as validating a floating-point result.
        backend = "ppl" if small and self.backend == "auto" else self.backend
        try:
            result = polytope_vertices(
                a_ub,
                b_ub,
                np.ones((1, n)),
                [1.0],
                backend=backend,
                timeout=timeout,
                description=description,
            )
        except BackendTimeout as exc:
            raise LimitError(
                f"{exc}. Remedies: a larger timeout=, a coarser envelope, or a low-complexity mechanism."
            ) from exc
        except BackendError as exc:
            if self.backend != "cdd":
                raise SolverError(f"vertex enumeration failed: {exc}") from exc
            # A failed floating-point enumeration never yields a mechanism: retry exactly.
            stats["retried_with"] = "ppl"
            result = polytope_vertices(
                a_ub,
                b_ub,
                np.ones((1, n)),
                [1.0],
                backend="ppl",
                timeout=timeout,
                description=description,
            )
        stats["seconds"]["enumerate"] = time.perf_counter() - start
        vertices = result.vertices
        if vertices.size and vertices.min() < -1e-7:
            raise SolverError(
                f"vertex enumeration ({result.backend}) returned a point with a negative entry {vertices.min():.3g}"
            )
        # Floating-point back ends leave entries like -1e-17 where the exact vertex has 0.
        vertices = np.clip(vertices, 0.0, None)
        vertices = vertices / vertices.sum(axis=1, keepdims=True)
        stats.update(vertices=len(vertices), vertices_before_merge=result.raw_count, backend=result.backend)
        if len(vertices) == 0:
            raise InfeasibleError(
                f"{self.definition}: the cone contains no non-zero column (the slice Σw = 1 is empty)"
            )

        start = time.perf_counter()
        mu = self.utility.mu(vertices.T)
        if not np.all(np.isfinite(mu)):
            raise ValidationError(
                "utility",
                "finite values μ(v) at every vertex of the cone",
                "an infinite value (e.g. KL with a zero in P1)",
            )
        try:
            lp = solve_lp(mu, a_eq=vertices.T, b_eq=np.ones(n), bounds=(0.0, None))
        except BackendError as exc:
            if "infeasible" in str(exc):
                raise InfeasibleError(
                    f"{self.definition}: no mechanism has all its columns in the cone (the LP Σθ_v v = 1 is infeasible)"
                ) from exc
            raise SolverError(f"the vertex LP failed: {exc}") from exc
        stats["seconds"]["lp"] = time.perf_counter() - start
        theta = lp.x
        keep = theta > THETA_RTOL * max(float(theta.max()), 1e-300)
        if keep.sum() > n:
            lp = solve_lp(
                mu[keep], a_eq=vertices[keep].T, b_eq=np.ones(n), bounds=(0.0, None), methods=("highs-ds",)
            )
            index = np.flatnonzero(keep)
            theta = np.zeros_like(theta)
            theta[index] = lp.x
            keep = theta > THETA_RTOL * float(theta.max())
        mechanism = self._mechanism_from_columns(vertices[keep].T, theta[keep], "optimal")
        reduced = float(np.max(mu - vertices @ lp.eq_duals)) if lp.eq_duals.size else None
        stats["lp_value"] = lp.objective
        pricing, note = self._certify_vertex(cone, lp.eq_duals, lp.objective, stats)
        return self._finish(
            mechanism, f"vertex ({reason}{note})", stats, lp.eq_duals, reduced, cone, pricing=pricing
        )

    def _certify_vertex(
        self, cone: RowCone, duals: np.ndarray, value: float, stats: dict[str, Any]
    ) -> tuple[PricingCertificate | None, str]:
        """Check the vertex LP's duals against the whole cone with the certified pricing bound.

        The LP only sees the enumerated vertices; ``OPT <= Σλ + max(0, δ̄)`` with ``δ̄`` proved over the
        cone (:mod:`privopt.pricing`) shows that no vertex the enumeration lost could do better. Returns
        the certificate (``None`` when the cone has no such bound) and a note for the route string.
        """
        assert isinstance(self.utility, SubConvexUtility)
        pricer = envelope_pricer(self.utility, cone)
        if isinstance(pricer, str):
            stats["certified"] = None
            stats["certificate_reason"] = pricer
            return None, ""
        start = time.perf_counter()
        tolerance = 0.5 * CERTIFIED_GAP_RTOL * max(1.0, abs(value))
        remaining = None if self.timeout is None else start + self.timeout
        outcome = pricer.price(
            duals, tolerance=tolerance, deadline=remaining, max_nodes=self.colgen.bound_nodes
        )
        certificate = PricingCertificate.from_outcome(duals, outcome)
        stats["seconds"]["certify"] = time.perf_counter() - start
        certified = bool(certificate.upper - value <= CERTIFIED_GAP_RTOL * max(1.0, abs(value)))
        stats["certified"] = certified
        stats["certified_upper"] = certificate.upper
        if certified:
            return certificate, "; certified optimal by the pricing bound"
        return certificate, (
            f"; NOT certified: the pricing bound allows up to {certificate.upper:.6g} > LP value {value:.6g} "
            "(the enumeration may have lost vertices)"
        )

    def _solve_cvxpy(self, cone: RowCone, stats: dict[str, Any], reason: str) -> Solution:
        import cvxpy as cp

        from privopt.solvers.conic import solve

        assert isinstance(self.utility, ConcaveUtility)
        n, k = self.n_inputs, self.utility.n_outputs
        W = cp.Variable((n, k), nonneg=True)
        constraints = [cp.sum(W, axis=1) == 1]
        if cone.n_rows:
            constraints.append(cone.matrix() @ W <= 0)
        problem = cp.Problem(cp.Maximize(self.utility.expression(W)), constraints)
        start = time.perf_counter()
        try:
            stats["solver"] = solve(problem, description=f"{self.utility!r} over {self.definition}")
        except BackendError as exc:
            if problem.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
                raise InfeasibleError(
                    f"{self.definition}: no mechanism with {k} outputs satisfies it"
                ) from exc
            raise SolverError(str(exc)) from exc
        stats["seconds"]["solve"] = time.perf_counter() - start
        matrix = np.clip(np.asarray(W.value), 0.0, None)
        mechanism = Mechanism(
            matrix / matrix.sum(axis=1, keepdims=True), self.definition.input_labels(), None, name="optimal"
        )
        return self._finish(mechanism, f"cvxpy ({reason})", stats, None, None, cone)

    def _finish(
        self,
        mechanism: Mechanism,
        route: str,
        stats: dict[str, Any],
        duals: np.ndarray | None,
        reduced: float | None,
        cone: RowCone | None = None,
        *,
        pricing: PricingCertificate | None = None,
    ) -> Solution:
        start = time.perf_counter()
        report = audit(mechanism, self.definition)
        stats["seconds"]["audit"] = time.perf_counter() - start
        cone = cone or self.definition.row_cone(self.n_inputs, options=self.options)
        certificate = Certificate(
            audit=report,
            cone_violation=cone.violation(mechanism.matrix),
            lp_duals=duals,
            dual_bound=None if duals is None else float(np.sum(duals)),
            max_reduced_cost=reduced,
            pricing=pricing,
        )
        if not report.satisfied:
            raise SolverError(f"the designed mechanism fails its own audit — {report}")
        stats["outputs"] = mechanism.n_outputs
        return Solution(mechanism, self.utility.value(mechanism), route, stats, certificate)
