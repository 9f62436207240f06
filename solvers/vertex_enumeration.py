"""Vertex enumeration of bounded polyhedra ``{x : A_ub x <= b_ub, A_eq x = b_eq}``.

Back ends (docs/compiler.md, "Routes"):

- ``"ppl"``: the Parma Polyhedra Library through ``pplpy``, in exact rational arithmetic.
  Floating-point input is converted exactly (every double is a dyadic rational), so the vertices
  are those of the polytope the floats describe; they are rounded to double only at the end.
- ``"cdd"``: ``pycddlib``'s floating-point double description. Often much faster (measured on a
  2×6 Γ cone with self pairs: 6.5 s against 72 s for ppl, same 6,046 vertices), but it can stop with
  "numerical inconsistency" on cones with small entries.
- ``"auto"`` (default): redundant inequalities removed (cdd's LP test), ``"cdd"``, then validation
  against the full system — every vertex must satisfy the constraints
  (after rounding noise of exact zeros is snapped to zero) and random linear objectives must reach
  the same optimum over the vertices as an LP over the inequalities — and on any failure the exact
  ``"ppl"``. A failed or partial enumeration never passes silently.

Vertices closer than ``merge_atol`` (max-norm) are merged: a degenerate vertex of the exact
polytope can split into a cluster of nearby vertices once its data is rounded to double.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from .errors import BackendError
from .lp import ObjectiveLP
from .subprocess_call import call_with_timeout

BACKENDS = ("auto", "cdd", "ppl")


@dataclass(frozen=True)
class VertexResult:
    """Vertices (one per row), the back end used and the wall time of the enumeration itself."""

    vertices: np.ndarray
    backend: str
    seconds: float
    raw_count: int  # before merging near-duplicates


def _dense(matrix) -> np.ndarray:  # type: ignore[no-untyped-def]
    """A dense array; object arrays (exact ``Fraction`` entries) are kept as they are."""
    if matrix is None:
        return np.zeros((0, 0))
    if sp.issparse(matrix):
        return matrix.toarray()
    array = np.asarray(matrix)
    return array if array.dtype == object else array.astype(np.float64)


def _integer_row(row: np.ndarray) -> list[int]:
    """An exact integer multiple of a row of doubles or fractions (each double is a dyadic rational)."""
    fractions = [v if isinstance(v, Fraction) else Fraction(float(v)) for v in row]
    scale = math.lcm(*(f.denominator for f in fractions))
    return [int(f * scale) for f in fractions]


def _ppl_vertices(a_ub: np.ndarray, b_ub: np.ndarray, a_eq: np.ndarray, b_eq: np.ndarray) -> np.ndarray:
    import ppl

    n = a_ub.shape[1] if a_ub.size else a_eq.shape[1]
    variables = [ppl.Variable(i) for i in range(n)]
    system = ppl.Constraint_System()

    def expression(coefficients: list[int]):  # type: ignore[no-untyped-def]
        expr = ppl.Linear_Expression(0)
        for variable, c in zip(variables, coefficients, strict=False):
            if c:
                expr += c * variable
        return expr

    for row, rhs in zip(a_ub, b_ub, strict=True):
        coefficients = _integer_row(np.append(row, rhs))
        system.insert(expression(coefficients[:-1]) <= coefficients[-1])
    for row, rhs in zip(a_eq, b_eq, strict=True):
        coefficients = _integer_row(np.append(row, rhs))
        system.insert(expression(coefficients[:-1]) == coefficients[-1])
    polyhedron = ppl.C_Polyhedron(system)
    if polyhedron.is_empty():
        return np.zeros((0, n))
    points = []
    for generator in polyhedron.minimized_generators():
        if generator.is_point():
            divisor = int(generator.divisor())
            points.append([float(Fraction(int(c), divisor)) for c in generator.coefficients()])
        else:
            raise BackendError("the polyhedron is unbounded (it has rays or lines); expected a polytope")
    return np.array(points, dtype=np.float64).reshape(-1, n)


def _cone_slice(a_ub: np.ndarray, b_ub: np.ndarray, a_eq: np.ndarray, b_eq: np.ndarray) -> bool:
    """Whether the polytope is a pointed cone ``{a_ub x <= 0}`` cut by one hyperplane ``cᵀx = b``
    with ``c > 0`` and ``b > 0``: then its vertices are the cone's extreme rays, rescaled."""
    return a_eq.shape[0] == 1 and not np.any(b_ub) and float(b_eq[0]) > 0.0 and bool(np.all(a_eq[0] > 0.0))


#: From this many variables a cone's slice is enumerated as the cone's rays, inserted in order (below
#: it, cdd's default on the slice was as fast or faster: 3×3 Γ cones 0.055–0.086 s against 0.067–0.11 s).
_CONE_MIN_VARIABLES = 10


def _cdd_vertices(a_ub: np.ndarray, b_ub: np.ndarray, a_eq: np.ndarray, b_eq: np.ndarray) -> np.ndarray:
    """Floating-point double description. From :data:`_CONE_MIN_VARIABLES` variables, a slice of a cone
    is enumerated as the cone's extreme rays, inserting the inequalities in the order given (measured on
    PolyOpt cones with the non-negativity rows first: 2×5 0.12 s instead of 0.28 s, 2×6 0.6 s instead
    of 1.6 s; 3×4 unchanged within noise)."""
    import cdd

    a_ub, b_ub, a_eq, b_eq = (np.asarray(v, dtype=np.float64) for v in (a_ub, b_ub, a_eq, b_eq))
    n = a_ub.shape[1] if a_ub.size else a_eq.shape[1]
    cone = n >= _CONE_MIN_VARIABLES and _cone_slice(a_ub, b_ub, a_eq, b_eq)
    if cone:
        rows = np.column_stack([np.zeros(len(b_ub)), -a_ub])
        matrix = cdd.matrix_from_array(rows, rep_type=cdd.RepType.INEQUALITY)
    else:
        rows = (
            np.vstack([np.column_stack([b_ub, -a_ub]), np.column_stack([b_eq, -a_eq])])
            if a_eq.size
            else np.column_stack([b_ub, -a_ub])
        )
        matrix = cdd.matrix_from_array(
            rows, rep_type=cdd.RepType.INEQUALITY, lin_set=set(range(len(b_ub), rows.shape[0]))
        )
    try:
        if cone:
            polyhedron = cdd.polyhedron_from_matrix(matrix, row_order=cdd.RowOrderType.MIN_INDEX)
        else:
            polyhedron = cdd.polyhedron_from_matrix(matrix)
        generators = np.array(cdd.copy_generators(polyhedron).array, dtype=np.float64).reshape(-1, n + 1)
    except RuntimeError as exc:  # e.g. "numerical inconsistency"
        raise BackendError(f"cdd (floating point) failed: {exc}; retry with backend='ppl' (exact)") from exc
    if cone:
        if generators.size and np.any(generators[:, 0] > 0.5):
            raise BackendError("the cone is not pointed at the origin; expected a polyhedral cone")
        rays = generators[:, 1:]
        heights = rays @ a_eq[0]
        if np.any(heights <= 0.0):
            raise BackendError("the cone has a ray outside the normalising hyperplane's positive side")
        vertices = rays * (float(b_eq[0]) / heights)[:, None]
    else:
        if generators.size and np.any(generators[:, 0] < 0.5):
            raise BackendError("the polyhedron is unbounded (it has rays or lines); expected a polytope")
        vertices = generators[:, 1:]
    scale = np.abs(vertices).max(axis=1, keepdims=True)
    vertices[np.abs(vertices) <= _SNAP_TO_ZERO * scale] = 0.0
    return vertices


#: Floating-point vertex entries this small (relative to the vertex's largest entry) are rounding
#: noise of exact zeros and are set to 0; zeros matter, since a privacy ratio x/0 is infinite. If an
#: entry was a genuine tiny value (an e^{-ε} of a large ε), the constraint check that follows fails
#: and the exact back end decides.
_SNAP_TO_ZERO = 1e-12

#: Random objectives used to probe a floating-point vertex set for completeness.
_PROBES_PER_DIMENSION = 3


def _validate(
    vertices: np.ndarray,
    a_ub: np.ndarray,
    b_ub: np.ndarray,
    a_eq: np.ndarray,
    b_eq: np.ndarray,
    tol: float = 1e-8,
) -> str:
    """Why ``vertices`` is not the vertex set of the polytope (empty string if no evidence)."""
    a_ub, b_ub, a_eq, b_eq = (np.asarray(v, dtype=np.float64) for v in (a_ub, b_ub, a_eq, b_eq))
    if len(vertices) == 0:
        return "no vertices"
    scale = (np.abs(a_ub).max(axis=1) + np.abs(b_ub)) * max(1.0, float(np.abs(vertices).max()))
    if np.any(vertices @ a_ub.T - b_ub > tol * scale):
        return "a vertex violates an inequality"
    if a_eq.size and np.any(np.abs(vertices @ a_eq.T - b_eq) > tol):
        return "a vertex violates an equality"
    rng = np.random.default_rng(0)
    n = vertices.shape[1]
    try:
        lp = ObjectiveLP(a_ub, b_ub, a_eq if a_eq.size else None, b_eq if a_eq.size else None)
        for _ in range(_PROBES_PER_DIMENSION * n):
            c = rng.normal(size=n)
            best = lp.maximise(c)
            if best > float(np.max(vertices @ c)) + 1e-7 * (1.0 + abs(best)):
                return "an LP over the inequalities beats every listed vertex (a vertex is missing)"
    except BackendError as exc:
        return f"a validation LP failed ({exc})"
    return ""


def _irredundant(a_ub: np.ndarray, b_ub: np.ndarray, a_eq: np.ndarray, b_eq: np.ndarray) -> np.ndarray:
    """Indices of the inequalities that cdd's LP-based redundancy removal keeps (floating point).

    Measured on 3×4 PolyOpt cones (120 inequalities): 0.1 s; at ε = 0.5 it drops 2–3 rows and the
    enumeration takes 10.1 s instead of 18.6 s (57.7 s instead of 65.7 s on a second instance); at
    ε = 2 nothing is redundant and the time is unchanged. A row dropped by mistake (rounding) cannot
    go unnoticed: the vertices are validated against the full system.
    """
    import cdd

    a_ub, b_ub, a_eq, b_eq = (np.asarray(v, dtype=np.float64) for v in (a_ub, b_ub, a_eq, b_eq))
    rows = np.vstack([np.column_stack([b_ub, -a_ub]), np.column_stack([b_eq, -a_eq])])
    matrix = cdd.matrix_from_array(
        rows, rep_type=cdd.RepType.INEQUALITY, lin_set=set(range(len(b_ub), rows.shape[0]))
    )
    try:
        redundant, _ = cdd.matrix_redundancy_remove(matrix)
    except RuntimeError:
        return np.arange(len(b_ub))
    return np.array([i for i in range(len(b_ub)) if i not in redundant], dtype=np.int64)


#: Redundant inequalities are removed first only from this many variables on: it halves 3×4
#: enumerations (12 variables) and costs more than it saves on smaller ones (0.02 s of 0.1 s at 3×3).
_PRUNE_MIN_VARIABLES = 11


def _auto_vertices(
    a_ub: np.ndarray, b_ub: np.ndarray, a_eq: np.ndarray, b_eq: np.ndarray, validate: bool = True
) -> tuple[np.ndarray, str]:
    floats = [np.asarray(v, dtype=np.float64) for v in (a_ub, b_ub, a_eq, b_eq)]  # exact input kept for ppl
    try:
        if floats[0].shape[1] >= _PRUNE_MIN_VARIABLES:
            kept = _irredundant(*floats)
        else:
            kept = np.arange(floats[0].shape[0])
        vertices = _cdd_vertices(floats[0][kept], floats[1][kept], floats[2], floats[3])
        if not validate:
            return vertices, "cdd"
        problem = _validate(vertices, *floats)
        if not problem:
            return vertices, "cdd (validated)"
        reason = problem
    except BackendError as exc:
        reason = str(exc).split(";")[0]
    return _ppl_vertices(a_ub, b_ub, a_eq, b_eq), f"ppl (cdd: {reason})"


def _named(function, name: str):  # type: ignore[no-untyped-def]
    def run(*args):  # type: ignore[no-untyped-def]
        return function(*args), name

    return run


_IMPLEMENTATIONS = {
    "ppl": _named(_ppl_vertices, "ppl"),
    "cdd": _named(_cdd_vertices, "cdd"),
    "auto": _auto_vertices,
}


def merge_close(vertices: np.ndarray, atol: float) -> np.ndarray:
    """One representative (the first) of each cluster of rows linked by max-norm distance <= ``atol``
    (``atol = 0``: every row kept)."""
    if len(vertices) <= 1 or atol <= 0.0:
        return vertices
    pairs = cKDTree(vertices).query_pairs(r=atol, p=np.inf, output_type="ndarray")
    if pairs.size == 0:
        return vertices
    graph = sp.coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(vertices),) * 2)
    _, labels = connected_components(graph, directed=False)
    _, first = np.unique(labels, return_index=True)
    return vertices[np.sort(first)]


def polytope_vertices(
    a_ub,  # type: ignore[no-untyped-def]
    b_ub,
    a_eq=None,
    b_eq=None,
    *,
    backend: str = "auto",
    merge_atol: float = 1e-9,
    validate: bool = True,
    timeout: float | None = None,
    description: str = "vertex enumeration",
    memory_limit: int | None = None,
) -> VertexResult:
    """All vertices of the bounded polyhedron ``{x : a_ub x <= b_ub, a_eq x = b_eq}``.

    Inputs may be float arrays or object arrays of :class:`fractions.Fraction` (exact data; the
    ``"ppl"`` back end keeps them exact, ``"cdd"`` rounds them to double).

    With ``timeout`` (seconds) the enumeration runs in a child process that is stopped at the
    budget (:class:`BackendTimeout`), and may allocate at most ``memory_limit`` bytes
    (:class:`~privopt.solvers.errors.BackendMemoryError`); without it, it runs in this process.
    ``validate=False`` skips the
    ``"auto"`` back end's checks of a floating-point result, for callers that certify it otherwise.
    """
    if backend not in _IMPLEMENTATIONS:
        raise BackendError(f"unknown vertex-enumeration backend {backend!r}; expected one of {BACKENDS}")
    a_ub, a_eq = _dense(a_ub), _dense(a_eq)
    b_ub = np.asarray(b_ub).reshape(-1)
    b_eq = np.zeros(0) if b_eq is None else np.asarray(b_eq).reshape(-1)
    if a_eq.size == 0:
        a_eq = np.zeros((0, a_ub.shape[1]))
    start = time.perf_counter()
    implementation = _IMPLEMENTATIONS[backend]
    args: tuple[Any, ...] = (a_ub, b_ub, a_eq, b_eq)
    if backend == "auto" and not validate:
        args = (*args, False)
    if timeout is None:
        raw, used = implementation(*args)
    else:
        raw, used = call_with_timeout(implementation, args, timeout, description, memory_limit=memory_limit)
    seconds = time.perf_counter() - start
    return VertexResult(merge_close(raw, merge_atol), used, seconds, len(raw))
