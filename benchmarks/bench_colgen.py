"""Column-generation benchmarks (issue: scale). Ratios against vertex enumeration in the same run.

1. colgen vs exact vertex enumeration on seeded PolyOpt instances (Jeffreys P*, n = 1000, β = 0.05)
   of shape 3×4 and 2×8: time ratio and value ratio (colgen / exact), and whether colgen's upper
   bound is above the exact optimum (it must be).
2. colgen on Adult's three large pairs at ε ∈ {0.5, 1, 2}: seconds, lower/upper/gap, columns,
   audit, and the MI of GRR, SRR, IR and CR beside it (``privopt.experiments.adult_colgen``).
3. Peak memory of the process tree (goal < 4 GiB).

``--quick`` runs one 3×4 instance and Adult at ε = 1 with 30-second budgets.
"""

from __future__ import annotations

import statistics
import sys
import time

import privopt as po
from benchmarks.bench_compiler import polyopt_instances
from benchmarks.timing import peak_mib, report
from privopt.experiments.adult_colgen import BUDGETS, PAIRS, adult_colgen_run
from privopt.experiments.figures.adult import adult_available

#: Vertex enumeration of 2×8 needs a limit above the default (its McMullen bound is 2.9e11).
VERTEX_LIMIT_2X8 = 10**13


def _versus_vertex(
    shape: tuple[int, int], count: int, eps_values: tuple[float, ...], timeout: float
) -> tuple[str, str]:
    time_ratios, value_ratios, bound_ok, vertex_times, unfinished = [], [], [], [], []
    for F in polyopt_instances(shape, count, seed=1):
        for eps in eps_values:
            problem = po.Problem(
                po.SensitiveLDP(eps, F),
                po.MutualInformation(F.center),
                vertex_limit=VERTEX_LIMIT_2X8,
                timeout=timeout,
                colgen={"progress": False},
            )
            start = time.perf_counter()
            colgen = problem.solve(route="colgen")
            colgen_seconds = time.perf_counter() - start
            start = time.perf_counter()
            try:
                exact = problem.solve(route="vertex")
            except po.LimitError:  # the enumeration's timeout
                unfinished.append(
                    f"ε = {eps:g}: colgen {colgen_seconds:.1f} s, MI {colgen.value:.4f} ≤ {colgen.upper:.4f}"
                )
                continue
            vertex_seconds = time.perf_counter() - start
            vertex_times.append(vertex_seconds)
            time_ratios.append(colgen_seconds / vertex_seconds)
            value_ratios.append(colgen.value / exact.value)
            bound_ok.append(colgen.upper >= exact.value * (1 - 1e-9))
    label = f"{shape[0]}×{shape[1]} ({len(time_ratios) + len(unfinished)} runs)"
    parts = []
    if time_ratios:
        parts.append(
            f"time colgen/vertex median {statistics.median(time_ratios):.2f} (vertex median "
            f"{statistics.median(vertex_times):.1f} s); value colgen/exact min {min(value_ratios):.5f}, "
            f"median {statistics.median(value_ratios):.5f}; upper >= exact: {sum(bound_ok)}/{len(bound_ok)}"
        )
    if unfinished:
        parts.append(f"vertex enumeration unfinished after {timeout:.0f} s: " + "; ".join(unfinished))
    return label, " | ".join(parts)


def main() -> None:
    quick = "--quick" in sys.argv
    rows = [_versus_vertex((3, 4), 1 if quick else 2, (1.0,) if quick else (0.5, 2.0), timeout=600.0)]
    if not quick:
        rows.append(_versus_vertex((2, 8), 1, (0.5,), timeout=900.0))  # measured: > 2400 s
    report("Column generation vs exact vertex enumeration (PolyOpt, Jeffreys P*, n = 1000)", rows)

    if not adult_available():
        report("Adult", [("skipped", "no UCI Adult files (set PRIVOPT_ADULT)")])
        return
    rows = []
    for sensitive, public in PAIRS:
        for eps in (1.0,) if quick else (0.5, 1.0, 2.0):
            run = adult_colgen_run(sensitive, public, eps, 30.0 if quick else BUDGETS[(sensitive, public)])
            rows.append(
                (
                    f"{run.pair} ({run.size[0]}×{run.size[1]}), ε = {eps:g}",
                    f"{run.seconds:6.1f} s  MI {run.lower:.4f} ≤ opt ≤ {run.upper:.4f} (gap {run.gap:.1%}), "
                    f"{run.columns} columns, stopped: {run.stopped}, audit {'passed' if run.audit_passed else 'FAILED'}; "
                    f"best baseline {run.best_baseline} {run.utilities[run.best_baseline]:.4f} "
                    f"(×{run.lower / run.utilities[run.best_baseline]:.1f})",
                )
            )
    rows.append(("peak memory (process tree)", f"{peak_mib():.0f} MiB  (goal < 4096 MiB)"))
    report("Column generation on Adult (n = 32,561, β = 0.05, MI in nats)", rows)


if __name__ == "__main__":
    main()
