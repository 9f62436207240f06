"""Privacy–utility curves (``Problem.curve``) against the solves they replace, in one run.

- A 16-point ε-curve (ε from 0.25 to 4) on a 3×3 Rényi ball (Jeffreys-drawn P*, n = 1,000, 95 %):
  its time against one cold solve at ε = 1 (goal <= 3×, must <= 5×), serially and with 2 joblib
  chunks, and every point's value against a cold solve (exact routes: equal to 1e-7).
- The same curve on a Dask ``LocalCluster`` with 2 workers: the same table as joblib's.
- ``--adult`` (long: about 1 h): Adult occupation × education, 8 points ε ∈ {0.25, 0.5, …, 2}, the
  whole curve in the time of (goal 2×, must 3×) the single ε = 1 solve, every point within 5 %: two
  interleaved chunks, each with the curve's ``time_limit`` shared by its points, which stop at 4 %.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import privopt as po
from benchmarks.bench_compiler import polyopt_instances
from benchmarks.timing import report

EPS = np.linspace(0.25, 4.0, 16)


def _problem(F: po.RenyiBall) -> po.Problem:
    return po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center))


def synthetic_rows(repeat: int = 5) -> list[tuple[str, str]]:
    """The 3×3 rows. The cold solve and both curves are timed in turn, ``repeat`` times, and each ratio
    is of medians: the machine's speed drifts by more than 10 % over a minute, and it then moves both."""
    (F,) = polyopt_instances((3, 3), 1, seed=7)
    runs = {
        "cold": lambda: _problem(F).solve(),
        1: lambda: _problem(F).curve(eps=EPS, jobs=1),
        2: lambda: _problem(F).curve(eps=EPS, jobs=2),
    }
    for run in runs.values():
        run()  # warm the imports, caches and the worker pool
    samples: dict[object, list[float]] = {key: [] for key in runs}
    for _ in range(repeat):
        for key, run in runs.items():
            start = time.perf_counter()
            run()
            samples[key].append(time.perf_counter() - start)
    cold = statistics.median(samples["cold"])
    rows = [("one cold solve (3×3, ε = 1)", f"{cold * 1e3:.0f} ms (median of {repeat})")]
    for jobs in (1, 2):
        table = _problem(F).curve(eps=EPS, jobs=jobs)
        seconds = statistics.median(samples[jobs])
        rows.append(
            (
                f"16-point curve, jobs={jobs}",
                f"{seconds:.3f} s = {seconds / cold:.1f}× one cold solve (goal <= 3, must <= 5); "
                f"{int(table['checked'].sum())}/16 checked, {int((table['status'] == 'optimal').sum())}/16 optimal",
            )
        )
    worst = max(
        abs(row.lower - _problem(F).with_definition(po.SensitiveLDP(float(row.eps), F)).solve().value)
        for row in table.itertuples()
    )
    rows.append(("largest |curve point − cold solve|", f"{worst:.1e} (must <= 1e-7)"))
    rows.append(dask_row(F, table))
    return rows


def dask_row(F: po.RenyiBall, reference) -> tuple[str, str]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        return ("Dask LocalCluster", "distributed is not installed")
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        start = time.perf_counter()
        table = _problem(F).curve(eps=EPS, jobs=2, client=client)
        seconds = time.perf_counter() - start
    same = bool(
        np.allclose(table["lower"], reference["lower"], rtol=0, atol=1e-12)
        and np.allclose(table["upper"], reference["upper"], rtol=0, atol=1e-12)
        and table["status"].tolist() == reference["status"].tolist()
    )
    return ("Dask LocalCluster, 2 workers", f"{seconds:.2f} s; the same table as joblib's: {same}")


def adult_rows(seconds_per_point: float) -> list[tuple[str, str]]:
    from privopt.experiments.figures.adult import adult_joint

    P = adult_joint("occupation", "education")
    F = po.RenyiBall.confidence(P, level=0.95)
    single_budget = 540.0
    problem = po.Problem(
        po.SensitiveLDP(1.0, F), po.MutualInformation(P), time_limit=None,
        colgen={"time_limit": single_budget, "progress": False},
    )  # fmt: skip
    start = time.perf_counter()
    single = problem.solve(route="colgen")
    single_seconds = time.perf_counter() - start
    # The curve's budget: each of the 2 chunks' 4 points an even share of what its chunk has left, so
    # a point that closes to 4 % early leaves its time to the chunk's larger ε. (At the 5 % checked,
    # every point stops at the edge, and the last, short of time, ended above it: docs/compiler.md.)
    budget = 4 * seconds_per_point
    curve_problem = po.Problem(
        po.SensitiveLDP(1.0, F), po.MutualInformation(P), time_limit=None,
        colgen={"time_limit": budget, "gap_tolerance": 0.04, "progress": False},
    )  # fmt: skip
    start = time.perf_counter()
    table = curve_problem.curve(eps=np.arange(0.25, 2.01, 0.25), route="colgen", jobs=2, time_limit=budget)
    seconds = time.perf_counter() - start
    rows = [
        ("single ε = 1 solve", f"{single_seconds:.0f} s, gap {single.gap:.1%}"),
        (
            f"8-point curve (2 chunks, {budget:.0f} s, gap tolerance 4 %)",
            f"{seconds:.0f} s = {seconds / single_seconds:.2f}× the single solve (goal 2, must 3); "
            f"largest gap {table['gap'].max():.1%} (must <= 5 %)",
        ),
    ]
    rows += [
        (f"  ε = {row.eps:g}", f"{row.lower:.6f} / {row.upper:.6f} ({row.gap:.1%}), {row.upper_source}")
        for row in table.itertuples()
    ]
    return rows


def main() -> None:
    report("curves: Problem.curve against cold solves", synthetic_rows())
    if "--adult" in sys.argv:
        report("curves: Adult occupation × education", adult_rows(seconds_per_point=360.0))


if __name__ == "__main__":
    main()
