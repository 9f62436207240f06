"""Compiler benchmarks (issue: compiler). Medians over seeded instances; peak memory of the process
tree (this process and its enumeration children) from ``getrusage``.

Goals: optimal LDP w.r.t. S with |S| = 2, |X| = 5, ε = 0.5 < 1 s (privacy-funnel paper: 133 s in
Matlab); optimal LIP on the same instances < 0.02 s (paper: 0.0206 s); PolyOpt 3×3 < 0.5 s per
(P̂, ε); 3×4 < 30 s; 2×6 < 10 s; peak memory < 2 GiB.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import privopt as po
from benchmarks.timing import peak_mib, report


def _time(function) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def privacy_funnel_instances(count: int, seed: int = 0) -> list[po.JointDistribution]:
    """The privacy-funnel paper's §VIII-A setting: c = |S| = 2, a = |X| = 5, p_{s,x} uniform then normalised."""
    rng = np.random.default_rng(seed)
    tables = [rng.random((2, 5)) for _ in range(count)]
    return [po.JointDistribution(t / t.sum()) for t in tables]


def polyopt_instances(shape: tuple[int, int], count: int, seed: int, n: int = 1000) -> list[po.RenyiBall]:
    """Jeffreys-prior distributions and empirical estimates from n samples (ISIT paper §V)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        counts = rng.multinomial(n, rng.dirichlet(np.full(shape[0] * shape[1], 0.5))).reshape(shape)
        if np.all(counts.sum(axis=1) > 0):
            out.append(po.RenyiBall.confidence(po.JointDistribution.from_counts(counts)))
    return out


def main() -> None:
    quick = "--quick" in sys.argv
    instances = privacy_funnel_instances(10)
    ldp = [
        _time(
            lambda P=P: po.Problem(po.SensitiveLDP(0.5, P, on="u"), po.MutualInformation(P, on="u")).solve()
        )
        for P in instances
    ]
    lip = [
        _time(lambda P=P: po.Problem(po.LIP(0.5, P, on="u"), po.MutualInformation(P, on="u")).solve())
        for P in instances
    ]
    lip_enum = []
    for P in instances:
        solution = po.Problem(po.LIP(0.5, P, on="u"), po.MutualInformation(P, on="u")).solve()
        lip_enum.append(sum(v for k, v in solution.stats.seconds.items() if k != "audit"))
    report(
        "Privacy-funnel §VIII-A: |S| = 2, |X| = 5, ε = 0.5, 10 random p_{S,X} (median)",
        [
            (
                "optimal LDP w.r.t. S (solve + audit)",
                f"{statistics.median(ldp) * 1e3:8.1f} ms   (goal < 1 s; paper 133 s)",
            ),
            ("optimal LIP (solve + audit)", f"{statistics.median(lip) * 1e3:8.1f} ms"),
            (
                "optimal LIP (compile + enumerate + LP)",
                f"{statistics.median(lip_enum) * 1e3:8.1f} ms   (goal < 20 ms; paper 20.6 ms)",
            ),
        ],
    )

    rows = []
    plan = [
        ((3, 3), 6, (0.5, 1.0, 2.0), "goal < 0.5 s"),
        ((2, 6), 2, (0.5, 2.0), "goal < 10 s"),
        ((3, 4), 2, (0.5, 2.0), "goal < 30 s"),
    ]
    if quick:
        plan = plan[:1]
    for shape, count, eps_values, goal in plan:
        times, counts = [], []
        for F in polyopt_instances(shape, count, seed=1):
            for eps in eps_values:
                start = time.perf_counter()
                solution = po.Problem(
                    po.SensitiveLDP(eps, F), po.MutualInformation(F.center), self_pairs=True
                ).solve()
                times.append(time.perf_counter() - start)
                counts.append(solution.stats.vertices)
        rows.append(
            (
                f"PolyOpt {shape[0]}×{shape[1]} ({len(times)} runs)",
                f"median {statistics.median(times):7.2f} s, max {max(times):7.2f} s, vertices median {int(statistics.median(counts))}  ({goal})",
            )
        )
    rows.append(("peak memory (process tree)", f"{peak_mib():.0f} MiB  (goal < 2048 MiB)"))
    report("PolyOpt, paper-faithful (Jeffreys P*, n = 1000, β = 0.05)", rows)


if __name__ == "__main__":
    main()
