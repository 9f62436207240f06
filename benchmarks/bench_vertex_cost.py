"""Measured vertex-enumeration times, the data behind ``privopt.routes.vertex_cost.MEASURED``.

For Γ cones (SensitiveLDP over the χ² set at 95 %, envelope "lower", without the s1 = s2 pairs:
the default) of every shape up to 12 inputs, at n ∈ {1,000, 32,561} and ε ∈ {0.5, 1, 2}, on seeded
Jeffreys-drawn P̂: the enumeration time of ``route="vertex"`` (capped), with the slice's dimension and
rows. The table printed last is the slowest time seen at each dimension (a capped run counts as its
cap), which is what ``route="auto"`` uses to predict (``MEASURED``). The same for the cones with the
s1 = s2 pairs, which the vertex route enumerates through their one-variable lift (``MEASURED_LIFTED``).

``--lifted`` measures only the lifted cones, ``--projected`` only the default ones.

``--quick`` measures one draw per setting and caps each enumeration at 20 s (60 s otherwise).
``--write`` stores the slowest times in ``privopt/routes/vertex_timings.json`` (with the rows exponent
and the growth per dimension fitted to them), from which ``route="auto"`` predicts on this machine.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
from pathlib import Path

import numpy as np

import privopt as po
from benchmarks.timing import report

SHAPES = ((2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (2, 5), (2, 6), (3, 4))


def _instances(shape: tuple[int, int], n: int, count: int, seed: int) -> list[po.JointDistribution]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        counts = rng.multinomial(n, rng.dirichlet(np.full(shape[0] * shape[1], 0.5))).reshape(shape)
        if np.all(counts.sum(axis=1) > 0):
            out.append(po.JointDistribution.from_counts(counts))
    return out


def measure(cap: float, draws: int, self_pairs: bool = False) -> dict[int, tuple[float, int]]:
    slowest: dict[int, tuple[float, int]] = {}
    for shape in SHAPES:
        for n in (1_000, 32_561):
            for eps in (0.5, 1.0, 2.0):
                for P in _instances(shape, n, draws, seed=n + shape[0] * 10 + shape[1]):
                    problem = po.Problem(
                        po.SensitiveLDP(eps, po.RenyiBall.confidence(P)),
                        po.MutualInformation(P),
                        time_limit=cap,
                        vertex_limit=10**15,
                        self_pairs=self_pairs,
                    )
                    rows = problem.get_problem_data().cone.n_rows
                    try:
                        seconds = problem.solve(route="vertex").stats.seconds.get("enumerate", 0.0)
                    except po.LimitError:
                        seconds = cap
                    d = P.n_x - 1
                    if seconds >= slowest.get(d, (0.0, 0))[0]:
                        slowest[d] = (seconds, rows)
                    print(f"  {shape} n={n} eps={eps}: {seconds:.3f} s, {rows} rows", flush=True)
                    if self_pairs:
                        backend = problem.solve(route="vertex").stats.backend if seconds < cap else "capped"
                        print(f"    back end: {backend}", flush=True)
    return slowest


TIMINGS = Path(__file__).resolve().parent.parent / "privopt" / "routes" / "vertex_timings.json"


def write_timings(projected: dict[int, tuple[float, int]], lifted: dict[int, tuple[float, int]]) -> None:
    """Store the slowest times (the kinds not measured keep their stored values), the least-squares slope
    of log(seconds) on log(rows) and the growth per dimension between the two largest dimensions."""
    stored = json.loads(TIMINGS.read_text())
    if projected:
        rows = np.log([r for _, (_, r) in sorted(projected.items())])
        seconds = np.log([max(t, 1e-4) for _, (t, _) in sorted(projected.items())])
        stored["projected"] = [[d, r, round(t, 4)] for d, (t, r) in sorted(projected.items())]
        stored["rows_exponent"] = round(float(np.polyfit(rows, seconds, 1)[0]), 2)
        (d0, (t0, _)), (d1, (t1, _)) = sorted(projected.items())[-2:]
        stored["growth_per_dimension"] = round(float((max(t1, 1e-4) / max(t0, 1e-4)) ** (1.0 / (d1 - d0))), 2)
    if lifted:
        stored["lifted"] = [[d, round(t, 4)] for d, (t, _) in sorted(lifted.items())]
    stored["about"] = (
        "Slowest vertex-enumeration times of the Γ cones by slice dimension, the data route='auto' predicts "
        "from (privopt.routes.vertex_cost). Written by `python -m benchmarks.bench_vertex_cost --write` on "
        f"{datetime.date.today().isoformat()} ({os.cpu_count()} cores)."
    )
    TIMINGS.write_text(json.dumps(stored, indent=1) + "\n")


def main() -> None:
    quick = "--quick" in sys.argv
    cap, draws = (20.0, 1) if quick else (60.0, 2)
    measured: dict[bool, dict[int, tuple[float, int]]] = {False: {}, True: {}}
    for lifted in (False, True):
        if ("--lifted" in sys.argv and not lifted) or ("--projected" in sys.argv and lifted):
            continue
        slowest = measured[lifted] = measure(cap, draws, self_pairs=lifted)
        report(
            f"vertex enumeration{' of lifted slices (s1 = s2 pairs)' if lifted else ''}: slowest measured "
            "time by slice dimension (route='auto' predicts from these)",
            [
                (f"d = {d}", f"{seconds:.3g} s ({rows} rows)")
                for d, (seconds, rows) in sorted(slowest.items())
            ],
        )

    if "--write" in sys.argv:
        write_timings(measured[False], measured[True])
        print(f"written: {TIMINGS}")


if __name__ == "__main__":
    main()
