"""privopt against a user's own prototype on the same cone (issue: one contract).

A researcher without privopt would write the Γ cone of the Entropy paper's Definition 3 by hand, enumerate
its normalised slice with pycddlib (floating point) and solve the vertex LP with HiGHS: :func:`prototype`
below, about 40 lines. privopt does more — it compiles any definition, validates the enumeration, certifies
the LP, checks its certificate independently and audits the mechanism — and must not be slower for it.
Both run on the same seeded PolyOpt instances (Jeffreys-drawn P*, n = 1,000, χ² set at 95 %, ε = 1), on
the cone privopt uses by default (no s1 = s2 pairs) and on the paper-faithful one with them,
interleaved, in one run; the table reports the medians and their ratio (must <= 1, goal 0.5).

``--quick`` uses 3 instances per shape instead of 7.
"""

from __future__ import annotations

import statistics
import sys
import time

import cdd
import highspy
import numpy as np

import privopt as po
from benchmarks.bench_compiler import polyopt_instances
from benchmarks.timing import report

EPS = 1.0


def prototype(F: po.RenyiBall, eps: float, same_s: bool = True) -> tuple[np.ndarray, float]:
    """The hand-written PolyOpt: Γ cone rows, pycddlib (float) vertices, HiGHS vertex LP.

    ``same_s``: with the s1 = s2 pairs of the published PolyOpt; without them, the cone privopt uses by
    default. Returns the mechanism (rows: inputs) and its mutual information ``I_P̂(X; Y)``.
    """
    n_s, n_u = F.shape
    n = n_s * n_u
    L = F.lower_bounds()
    vectors = {}
    for s in range(n_s):
        for u in range(n_u):
            v = np.zeros(n)
            v[s * n_u : (s + 1) * n_u] = L[s]
            v[s * n_u + u] += 1.0 - L[s].sum()
            vectors[s, u] = v
    rows = [
        vectors[a] - np.exp(eps) * vectors[b]
        for a in vectors
        for b in vectors
        if a[0] != b[0] or (same_s and a[1] != b[1])
    ]
    inequalities = np.vstack([np.array(rows), -np.eye(n)])
    system = np.vstack(
        [np.column_stack([np.zeros(len(inequalities)), -inequalities]), np.hstack([[-1.0], np.ones(n)])]
    )
    matrix = cdd.matrix_from_array(system, rep_type=cdd.RepType.INEQUALITY, lin_set={len(inequalities)})
    vertices = np.array(cdd.copy_generators(cdd.polyhedron_from_matrix(matrix)).array)[:, 1:]
    vertices = np.clip(vertices, 0.0, None)
    vertices /= vertices.sum(axis=1, keepdims=True)
    p = F.center.p_x
    q = vertices @ p
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(vertices > 0, p * vertices * np.log(vertices / q[:, None]), 0.0).sum(axis=1)
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    k = len(vertices)
    highs.addVars(k, np.zeros(k), np.full(k, highspy.kHighsInf))
    highs.changeColsCost(k, np.arange(k, dtype=np.int32), -mu)
    columns = vertices.T
    for x in range(n):
        nonzero = np.flatnonzero(columns[x])
        highs.addRow(1.0, 1.0, nonzero.size, nonzero.astype(np.int32), columns[x, nonzero])
    highs.run()
    theta = np.asarray(highs.getSolution().col_value)
    keep = theta > 1e-12
    mechanism = (vertices[keep] * theta[keep, None]).T
    mechanism /= mechanism.sum(axis=1, keepdims=True)
    return mechanism, float(-highs.getInfo().objective_function_value)


def _privopt(F: po.RenyiBall, eps: float, same_s: bool = True) -> po.Solution:
    return po.Problem(po.SensitiveLDP(eps, F), po.MutualInformation(F.center), self_pairs=same_s).solve()


def _compare(shape: tuple[int, int], count: int, same_s: bool) -> tuple[str, str]:
    ours, theirs, gaps = [], [], []
    for F in polyopt_instances(shape, count, seed=7):
        _privopt(F, EPS, same_s), prototype(F, EPS, same_s)  # warm both (imports, caches)
        start = time.perf_counter()
        solution = _privopt(F, EPS, same_s)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        _, value = prototype(F, EPS, same_s)
        theirs.append(time.perf_counter() - start)
        gaps.append(abs(solution.value - value))
    ratio = statistics.median(ours) / statistics.median(theirs)
    cone = "PolyOpt (s1 = s2 pairs)" if same_s else "default cone (no s1 = s2 pairs)"
    return (
        f"{cone} {shape[0]}×{shape[1]} ({count} instances)",
        f"privopt {statistics.median(ours) * 1e3:.0f} ms (audit and checked certificate included) vs "
        f"prototype {statistics.median(theirs) * 1e3:.0f} ms: ratio {ratio:.2f} (goal <= 0.5, must <= 1); "
        f"max |value difference| {max(gaps):.1e}",
    )


def main() -> None:
    count = 3 if "--quick" in sys.argv else 7
    report(
        "contract: privopt vs a pycddlib + HiGHS prototype",
        [_compare(shape, count, same_s) for same_s in (False, True) for shape in ((3, 3), (2, 5))],
    )


if __name__ == "__main__":
    main()
