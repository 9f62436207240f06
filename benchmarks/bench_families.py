"""Certified gaps past vertex enumeration, one row per family (the table of the certified-gaps issue).

Each row is built as a new user would: the same data (Adult marital-status × education, χ² set at
95 %, unless said), ``solve()`` choosing the route, ``time_limit=`` 120 s per problem. A row reports the
status, the bounds and their relative gap, the seconds, whether the audit passed and whether the
independent checker proved the upper bound — or the error, when the problem is refused.
``--quick`` runs the rows that finish in seconds.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

import privopt as po
from benchmarks.timing import report

TIMEOUT = 120.0


def _adult() -> tuple[po.JointDistribution, po.RenyiBall]:
    from privopt.experiments.figures.adult import adult_joint

    P = adult_joint("marital-status", "education")
    return P, po.RenyiBall.confidence(P, level=0.95)


def _pufferfish(P: po.JointDistribution, F: po.RenyiBall) -> po.Pufferfish:
    # Two discriminative pairs: married against never married, and against divorced.
    by_status = {s: [x for x in P.x_labels if x[0] == s] for s in P.s_labels}
    married, never, divorced = "Married-civ-spouse", "Never-married", "Divorced"
    secrets = {name: by_status[name] for name in (married, never, divorced)}
    return po.Pufferfish(secrets, [(married, never), (married, divorced)], 1.0, F)


def _tree_distance(rng: np.random.Generator, n: int) -> np.ndarray:
    """The path metric of a random tree (each input's parent drawn among the earlier ones, edge
    lengths 1 or 2)."""
    parent = [-1] + [int(rng.integers(0, i)) for i in range(1, n)]
    depth, ancestors = np.zeros(n), [[0]]
    for i in range(1, n):
        depth[i] = depth[parent[i]] + int(rng.integers(1, 3))
        ancestors.append([*ancestors[parent[i]], i])
    common = np.array([[max(set(ancestors[i]) & set(ancestors[j])) for j in range(n)] for i in range(n)])
    return depth[:, None] + depth[None, :] - 2.0 * depth[common]


def _rows(quick: bool) -> list[tuple[str, Callable[[], po.Problem], bool]]:
    P, F = _adult()
    rng = np.random.default_rng(25)
    line = np.abs(np.subtract.outer(np.arange(40), np.arange(40))).astype(float)
    prior40 = rng.dirichlet(np.ones(40))
    tree_rng = np.random.default_rng(3)
    tree = _tree_distance(tree_rng, 60)
    prior60 = tree_rng.dirichlet(np.ones(60))
    options = {"time_limit": TIMEOUT, "colgen": {"progress": False}}
    rows: list[tuple[str, Callable[[], po.Problem], bool]] = [
        ("LIP(1, P̂), MI", lambda: po.Problem(po.LIP(1.0, P), po.MutualInformation(P), **options), True),
        (
            # The default lip_counterpart="auto" compiles the pairwise counterpart here (docs/compiler.md §1).
            "LIP(1, χ² ball), MI",
            lambda: po.Problem(po.LIP(1.0, F), po.MutualInformation(P), **options),
            False,
        ),
        (
            "LIP(1, χ² ball) by the rectangular counterpart, MI",
            lambda: po.Problem(
                po.LIP(1.0, F), po.MutualInformation(P), lip_counterpart="rectangular", **options
            ),
            False,
        ),
        (
            "Pufferfish (two pairs) over the χ² ball, MI",
            lambda: po.Problem(_pufferfish(P, F), po.MutualInformation(P), **options),
            False,
        ),
        (
            "SensitiveLDP(1, χ² ball), TV(P_X, uniform)",
            lambda: po.Problem(
                po.SensitiveLDP(1.0, F), po.FDivergence("tv", P.p_x, np.full(P.n_x, 1.0 / P.n_x)), **options
            ),
            False,
        ),
        (
            "SensitiveLDP(1, χ² ball), KL(P_X, uniform)",
            lambda: po.Problem(
                po.SensitiveLDP(1.0, F), po.FDivergence("kl", P.p_x, np.full(P.n_x, 1.0 / P.n_x)), **options
            ),
            False,
        ),
        (
            "SensitiveLDP(1, χ² ball), NMI",
            lambda: po.Problem(po.SensitiveLDP(1.0, F), po.NormalizedMutualInformation(P), **options),
            False,
        ),
        (
            "MetricLDP(0.3, |i−j|), 40-point line, MI, random prior",
            lambda: po.Problem(po.MetricLDP(0.3, line), po.MutualInformation(prior40), **options),
            True,
        ),
        (
            "MetricLDP(0.5, d), d a random 60-input tree's distance, MI, random prior",
            lambda: po.Problem(po.MetricLDP(0.5, tree), po.MutualInformation(prior60), **options),
            False,
        ),
        (
            "MetricLDP(0.3, |i−j|), 40-point line, TV(random P0, P1)",
            lambda: po.Problem(
                po.MetricLDP(0.3, line), po.FDivergence("tv", prior40, rng.dirichlet(np.ones(40))), **options
            ),
            True,
        ),
        (
            "MetricLDP(0.3, |i−j|), 40-point line, KL(random P0, P1)",
            lambda: po.Problem(
                po.MetricLDP(0.3, line), po.FDivergence("kl", prior40, rng.dirichlet(np.ones(40))), **options
            ),
            True,
        ),
        (
            "Pufferfish (two pairs) over the χ² ball, TV(P_X, uniform)",
            lambda: po.Problem(
                _pufferfish(P, F), po.FDivergence("tv", P.p_x, np.full(P.n_x, 1.0 / P.n_x)), **options
            ),
            True,
        ),
        (
            "LDP(1) on 40 symbols, MI, random prior",
            lambda: po.Problem(po.LDP(1.0), po.MutualInformation(prior40), **options),
            True,
        ),
    ]
    return [row for row in rows if row[2] or not quick]


def _run(build: Callable[[], po.Problem]) -> str:
    start = time.perf_counter()
    try:
        solution = build().solve()
    except po.PrivoptError as error:
        return f"{type(error).__name__} after {time.perf_counter() - start:.1f} s: {str(error)[:160]}"
    seconds = time.perf_counter() - start
    certificate = solution.certificate
    return (
        f"{solution.status.value}, {solution.lower:.6f} <= OPT <= {solution.upper:.6f} "
        f"(gap {100 * solution.gap:.3g} %), {seconds:.1f} s, route {solution.route}, "
        f"audit {'passed' if certificate.audit_passed else 'FAILED'}, "
        f"{'checked' if certificate.checked else 'NOT checked'}"
    )


def main() -> None:
    quick = "--quick" in sys.argv
    rows = []
    for label, build, _ in _rows(quick):
        rows.append((label, _run(build)))
        print(f"  {label}: {rows[-1][1]}", flush=True)
    report(f"certified gaps by family (timeout {TIMEOUT:.0f} s each)", rows)


if __name__ == "__main__":
    main()
