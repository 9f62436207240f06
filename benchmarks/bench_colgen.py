"""Column-generation benchmarks (issue: scale). Ratios against vertex enumeration in the same run.

1. colgen vs exact vertex enumeration on seeded PolyOpt instances (Jeffreys P*, n = 1000, β = 0.05)
   of shape 3×4 and 2×8: time ratio and value ratio (colgen / exact), and whether colgen's upper
   bound is above the exact optimum (it must be).
2. colgen on Adult's four pairs (:data:`~privopt.experiments.adult_colgen.PAIRS`) at ε ∈ {0.5, 1, 2}:
   seconds, lower/upper/gap, columns, audit, and the MI of GRR, SRR, IR and CR beside it (``privopt.experiments.adult_colgen``).
3. Peak memory of the process tree (goal < 4 GiB).
4. Certified optimum (issue 13): the table (instance, ε) → lower, certified upper, gap, seconds, peak
   MiB for the Adult pairs sex×race, marital-status×relationship, marital-status×education and
   occupation×education at ε ∈ {0.5, 1, 2} (χ² set at 95 %), and for synthetic Rényi-ball instances
   3×4 (n = 32,561 and 1,000), 3×5, 4×4 and 2×8. Each run is a forked child (its own peak memory).

``--quick`` runs one 3×4 instance and Adult at ε = 1 with 30-second budgets; ``--certified`` runs
only table 4.
"""

from __future__ import annotations

import multiprocessing
import resource
import statistics
import sys
import time
from queue import Empty
from typing import Any

import privopt as po
from benchmarks.bench_compiler import polyopt_instances
from benchmarks.timing import peak_mib, report
from privopt.experiments.adult_colgen import BUDGETS, PAIRS, adult_colgen_run
from privopt.experiments.figures.adult import adult_available

#: Vertex enumeration of 2×8 needs a limit above the default (its McMullen bound is 2.9e11).
VERTEX_LIMIT_2X8 = 10**13

#: The Adult pairs of issue 13 and the column-generation seconds each run gets (< 10 minutes in all).
CERTIFIED_PAIRS: tuple[tuple[str, str, float], ...] = tuple((s, u, BUDGETS[(s, u)]) for s, u in PAIRS)

#: Synthetic instances ``(shape, n, seed)``: Jeffreys P*, the 95 % χ² set around P̂ (120 s each).
CERTIFIED_SYNTHETIC: tuple[tuple[tuple[int, int], int, int], ...] = (
    ((3, 4), 32_561, 1),
    ((3, 4), 1000, 1),
    ((3, 5), 1000, 1),
    ((4, 4), 1000, 1),
    ((2, 8), 1000, 1),
)


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
                time_limit=timeout,
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


def _certified_child(spec: tuple[Any, ...], eps: float, time_limit: float, queue: Any) -> None:
    """Solve one instance by certified column generation in this (forked) process; report to ``queue``."""
    if spec[0] == "adult":
        from privopt.experiments.figures.adult import adult_joint

        P = adult_joint(spec[1], spec[2])
    else:
        (F,) = polyopt_instances(spec[1], 1, seed=spec[3], n=spec[2])
        P = F.center
    F = po.RenyiBall.confidence(P, level=0.95)
    problem = po.Problem(
        po.SensitiveLDP(eps, F), po.MutualInformation(P), colgen={"time_limit": time_limit, "progress": False}
    )
    start = time.perf_counter()
    solution = problem.solve(route="colgen")
    seconds = time.perf_counter() - start
    queue.put(
        {
            "lower": solution.lower, "upper": solution.upper, "gap": solution.gap, "seconds": seconds,
            "stopped": solution.stats.stopped, "audit": solution.certificate.audit_passed,
            "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
            "certified": solution.certificate.checked,
        }
    )  # fmt: skip


def certified_result(spec: tuple[Any, ...], eps: float, time_limit: float) -> dict[str, Any] | str:
    """One certified run in a forked child: its bounds, seconds, stop reason, audit and peak MiB, or a
    line saying why there is no result."""
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_certified_child, args=(spec, eps, time_limit, queue))
    child.start()
    give_up = time.monotonic() + 2 * time_limit + 300  # the budget, the audit and a margin
    while True:  # a child that dies never reports: notice it instead of waiting forever
        try:
            result: dict[str, Any] = queue.get(timeout=1.0)
            break
        except Empty:
            if not child.is_alive() or time.monotonic() > give_up:
                child.kill()
                child.join()
                return f"no result (the run's process ended with code {child.exitcode})"
    child.join()
    return result


def _certified_row(label: str, spec: tuple[Any, ...], eps: float, time_limit: float) -> tuple[str, str]:
    result = certified_result(spec, eps, time_limit)
    if isinstance(result, str):
        return f"{label}, ε = {eps:g}", result
    row = (
        f"lower {result['lower']:.6f}  upper {result['upper']:.6f}  gap {result['gap']:.2e}  "
        f"{result['seconds']:6.1f} s  {result['peak']:6.0f} MiB  stopped: {result['stopped']}, "
        f"audit {'passed' if result['audit'] else 'FAILED'}"
        + ("" if result["certified"] else ", no certificate")
    )
    print(f"  {label}: {row}", flush=True)
    return f"{label}, ε = {eps:g}", row


def certified_table(quick: bool) -> None:
    """Table 4 of the module docstring."""
    rows = []
    for shape, n, seed in CERTIFIED_SYNTHETIC[:1] if quick else CERTIFIED_SYNTHETIC:
        for eps in (0.5,) if quick else (0.5, 1.0, 2.0):
            label = f"synthetic {shape[0]}×{shape[1]} n = {n:,}"
            rows.append(_certified_row(label, ("synthetic", shape, n, seed), eps, 30.0 if quick else 120.0))
    if adult_available():
        for sensitive, public, budget in CERTIFIED_PAIRS:
            for eps in (1.0,) if quick else (0.5, 1.0, 2.0):
                label = f"Adult {sensitive} × {public}"
                rows.append(
                    _certified_row(label, ("adult", sensitive, public), eps, 30.0 if quick else budget)
                )
    report("Certified column generation (lower, certified upper, relative gap; MI in nats)", rows)


def main() -> None:
    quick = "--quick" in sys.argv
    if "--certified" in sys.argv:
        certified_table(quick)
        return
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
    certified_table(quick)


if __name__ == "__main__":
    main()
