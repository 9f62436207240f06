"""The checker's proof for any cone: exact vertex enumeration of the slice, then every ratio.

The cone ``K = {w >= 0 : a − F b <= 0 for every block's pairs}`` is rebuilt here from the compiled
groups and blocks in rational arithmetic (every double is a dyadic rational, so ``Fraction(x)`` is
exact; a block's exact factor is used when the compiler knows it), independently of the solver's
row construction. The vertices of ``K ∩ {Σ_x w_x = 1}`` are the cone's extreme rays, enumerated
exactly by the Parma Polyhedra Library (double description in GMP rationals, so none is lost), in a
child process stopped at the time limit. The ratio ``R(w) = (μ(w) − λᵀw)/νᵀw`` is quasi-convex and
scale-invariant, so its maximum over the cone is its maximum over these vertices.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privopt.certificates.objective import core_mu
from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.compiler.cone import RowCone
from privopt.compiler.estimate import VertexEstimate
from privopt.solvers.errors import BackendError, BackendTimeout
from privopt.solvers.subprocess_call import call_with_timeout
from privopt.tolerances import CHECK_ROUNDING_RTOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: The checker enumerates only slices whose McMullen bound on the vertex count is at most 10^this
#: (the vertex route's default ``vertex_limit``; actual counts are far below it: 2,133 of 4.9e5 on a
#: 3×3 Γ cone).
MAX_LOG10_VERTICES = 9.0

#: Enumerations with at most this many rows and a McMullen bound of at most 10^IN_PROCESS_LOG10 vertices
#: run in this process (a fork costs more than they do); the others in a child stopped at the time limit.
#: Rows alone were not enough: a 2×6 Euclidean grid's metric cone has 92 rows and a bound of 10^8.1, and
#: ppl ran past 30 s in this process, where nothing stops it — column generation with a 3 s budget took
#: minutes in the check (fuzzing). Measured on grid metric cones: 10^4.5 0.13 s, 10^5.7 0.75 s.
IN_PROCESS_ROWS = 120
IN_PROCESS_LOG10 = 6.0


def exact_rows(cone: RowCone) -> list[list[Fraction]]:
    """Every row ``a − F b`` of the cone in exact arithmetic (vacuous ``a <= F a``, ``F >= 1``, dropped)."""
    vectors = [[[Fraction(float(x)) for x in row] for row in group.vectors] for group in cone.groups]
    rows: list[list[Fraction]] = []
    for block in cone.blocks:
        factor = block.exact_factor if block.exact_factor is not None else Fraction(float(block.factor))
        for a in vectors[block.numerator]:
            for b in vectors[block.denominator]:
                if a == b and factor >= 1:
                    continue
                rows.append([x - factor * y for x, y in zip(a, b, strict=True)])
    return rows


def enumerate_slice(rows: list[list[Fraction]], n: int) -> FloatArray:
    """The vertices (rows, ``Σ = 1``) of ``{w >= 0, rows·w <= 0, Σ_x w_x = 1}``, exactly, as floats."""
    import ppl

    variables = [ppl.Variable(i) for i in range(n)]
    system = ppl.Constraint_System()

    def expression(coefficients: list[int]) -> ppl.Linear_Expression:
        total = ppl.Linear_Expression(0)
        for variable, c in zip(variables, coefficients, strict=True):
            if c:
                total += c * variable
        return total

    for row in rows:
        if not any(row):
            continue
        scale = math.lcm(*(x.denominator for x in row))
        system.insert(expression([int(x * scale) for x in row]) <= 0)
    for variable in variables:
        system.insert(variable >= 0)
    system.insert(expression([1] * n) == 1)
    points = []
    for generator in ppl.C_Polyhedron(system).minimized_generators():
        divisor = int(generator.divisor())
        points.append([int(c) / divisor for c in generator.coefficients()])
    return np.array(points, dtype=np.float64).reshape(-1, n)


@dataclass(frozen=True)
class VertexMaximum:
    """``max R`` over the exact vertices (``value``; ``margin`` bounds its rounding), its column."""

    value: float
    margin: float
    column: FloatArray
    vertices: int
    seconds: float


def maximise_ratio(
    cone: RowCone,
    utility: SubConvexUtility,
    duals: FloatArray,
    weights: FloatArray,
    time_limit: float,
) -> VertexMaximum | NotProved:
    """``max_w (μ(w) − λᵀw)/νᵀw`` over the cone through its exact vertices, or why it was not found."""
    start = time.perf_counter()
    n = cone.n_inputs
    estimate = VertexEstimate.for_slice(n, cone.n_rows)
    if estimate.log10_bound > MAX_LOG10_VERTICES:
        return NotProved(
            NotProvedReason.SIZE,
            f"the slice may have {estimate.bound_text} vertices, too many to enumerate exactly",
        )
    rows = exact_rows(cone)
    try:
        if len(rows) <= IN_PROCESS_ROWS and estimate.log10_bound <= IN_PROCESS_LOG10:
            vertices = enumerate_slice(rows, n)
        else:
            vertices = call_with_timeout(
                enumerate_slice, (rows, n), time_limit, "certificate check: exact vertices", progress=False
            )
    except BackendTimeout:
        return NotProved(
            NotProvedReason.DEADLINE, f"the exact enumeration did not finish within {time_limit:.3g} s"
        )
    except BackendError as exc:
        return NotProved(NotProvedReason.NUMERICS, f"the exact enumeration failed: {exc}")
    if len(vertices) == 0:
        return NotProved(NotProvedReason.CONE, "the cone contains no non-zero column")
    mu = core_mu(utility, vertices.T)
    if not np.all(np.isfinite(mu)):
        return NotProved(NotProvedReason.NUMERICS, "μ is not finite at a vertex of the cone")
    N = vertices @ weights
    if not np.all(N > 0.0):
        return NotProved(
            NotProvedReason.CLAIM,
            "a non-zero column of the cone has νᵀw = 0: the normalisation does not bound the cone",
        )
    f = mu - vertices @ duals
    ratio = f / N
    index = int(np.argmax(ratio))
    margin = CHECK_ROUNDING_RTOL * (abs(mu[index]) + vertices[index] @ np.abs(duals) + 1.0) / N[index]
    return VertexMaximum(
        float(ratio[index]), float(margin), vertices[index], len(vertices), time.perf_counter() - start
    )
