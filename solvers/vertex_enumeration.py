"""Vertex enumeration of bounded polyhedra ``{x : A_ub x <= b_ub, A_eq x = b_eq}``.

Back ends (DESIGN.md §5b):

- ``"ppl"`` (default): the Parma Polyhedra Library through ``pplpy``, in exact rational arithmetic.
  Floating-point input is converted exactly (every double is a dyadic rational), so the vertices
  are those of the polytope the floats describe; they are rounded to double only at the end.
- ``"cdd"``: ``pycddlib``'s floating-point double description. Faster on some inputs, but it can stop
  with "numerical inconsistency" on cones with small entries; a failure is an error, never a
  partial result.

Vertices closer than ``merge_atol`` (max-norm) are merged: a degenerate vertex of the exact
polytope can split into a cluster of nearby vertices once its data is rounded to double.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from .errors import BackendError
from .subprocess_call import call_with_timeout

BACKENDS = ("ppl", "cdd")


@dataclass(frozen=True)
class VertexResult:
    """Vertices (one per row), the back end used and the wall time of the enumeration itself."""

    vertices: np.ndarray
    backend: str
    seconds: float
    raw_count: int  # before merging near-duplicates


def _dense(matrix) -> np.ndarray:  # type: ignore[no-untyped-def]
    if matrix is None:
        return np.zeros((0, 0))
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix, dtype=np.float64)


def _integer_row(row: np.ndarray) -> list[int]:
    """An exact integer multiple of a row of doubles (each double is a dyadic rational)."""
    fractions = [Fraction(float(v)) for v in row]
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


def _cdd_vertices(a_ub: np.ndarray, b_ub: np.ndarray, a_eq: np.ndarray, b_eq: np.ndarray) -> np.ndarray:
    import cdd

    n = a_ub.shape[1] if a_ub.size else a_eq.shape[1]
    rows = (
        np.vstack([np.column_stack([b_ub, -a_ub]), np.column_stack([b_eq, -a_eq])])
        if a_eq.size
        else np.column_stack([b_ub, -a_ub])
    )
    matrix = cdd.matrix_from_array(
        rows, rep_type=cdd.RepType.INEQUALITY, lin_set=set(range(len(b_ub), rows.shape[0]))
    )
    try:
        polyhedron = cdd.polyhedron_from_matrix(matrix)
        generators = np.array(cdd.copy_generators(polyhedron).array, dtype=np.float64).reshape(-1, n + 1)
    except RuntimeError as exc:  # e.g. "numerical inconsistency"
        raise BackendError(f"cdd (floating point) failed: {exc}; retry with backend='ppl' (exact)") from exc
    if generators.size and np.any(generators[:, 0] < 0.5):
        raise BackendError("the polyhedron is unbounded (it has rays or lines); expected a polytope")
    return generators[:, 1:]


_IMPLEMENTATIONS = {"ppl": _ppl_vertices, "cdd": _cdd_vertices}


def merge_close(vertices: np.ndarray, atol: float) -> np.ndarray:
    """One representative (the first) of each cluster of rows linked by max-norm distance <= ``atol``."""
    if len(vertices) <= 1:
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
    backend: str = "ppl",
    merge_atol: float = 1e-9,
    timeout: float | None = None,
    description: str = "vertex enumeration",
) -> VertexResult:
    """All vertices of the bounded polyhedron ``{x : a_ub x <= b_ub, a_eq x = b_eq}``.

    With ``timeout`` (seconds) the enumeration runs in a child process that is stopped at the
    budget (:class:`BackendTimeout`); without it, it runs in this process.
    """
    if backend not in _IMPLEMENTATIONS:
        raise BackendError(f"unknown vertex-enumeration backend {backend!r}; expected one of {BACKENDS}")
    a_ub, a_eq = _dense(a_ub), _dense(a_eq)
    b_ub = np.asarray(b_ub, dtype=np.float64).reshape(-1)
    b_eq = np.zeros(0) if b_eq is None else np.asarray(b_eq, dtype=np.float64).reshape(-1)
    if a_eq.size == 0:
        a_eq = np.zeros((0, a_ub.shape[1]))
    start = time.perf_counter()
    implementation = _IMPLEMENTATIONS[backend]
    args = (a_ub, b_ub, a_eq, b_eq)
    raw = (
        implementation(*args)
        if timeout is None
        else call_with_timeout(implementation, args, timeout, description)
    )
    seconds = time.perf_counter() - start
    return VertexResult(merge_close(raw, merge_atol), backend, seconds, len(raw))
