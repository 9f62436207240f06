"""The sweep runner on the ISIT paper's Fig. 2 grid (issue 7's benchmark).

200 Jeffreys distributions × 20 ε in [0.2, 8] × 4 mechanisms (PolyOpt, GRR, IR, CR) on 3×3, n = 1000:
16,000 cells. Reports the wall time with joblib on all cores and serially, and the speed-up; ``--quick``
runs 20 distributions. The machine may be shared, so the speed-up is the number to read.
"""

from __future__ import annotations

import os
import sys
import time

from benchmarks.timing import report
from privopt.experiments.figures import isit
from privopt.experiments.figures.summary import mean_table
from privopt.experiments.sweep import Sweep


def _grid(draws: int) -> dict[str, list]:
    return {
        "shape": ["3x3"],
        "n": [1000],
        "draw": list(range(draws)),
        "eps": list(isit.FULL_EPS),
        "mechanism": ["polyopt", "grr", "ir", "cr"],
    }


def _timed(backend: str, grid: dict[str, list]) -> tuple[float, object]:
    start = time.perf_counter()
    table = Sweep(isit.synthetic_cell, grid, backend=backend, description=f"ISIT Fig. 2 ({backend})").run()
    return time.perf_counter() - start, table


def main() -> None:
    draws = 20 if "--quick" in sys.argv else 200
    grid = _grid(draws)
    cells = draws * len(isit.FULL_EPS) * 4
    parallel_seconds, table = _timed("joblib", grid)
    serial_seconds, serial_table = _timed("serial", grid)
    same = table.drop(columns="seconds").equals(serial_table.drop(columns="seconds"))
    failed = int((table["status"] != "ok").sum())
    report(
        f"Sweep: ISIT Fig. 2 grid, {draws} distributions × 20 ε × 4 mechanisms = {cells:,} cells",
        [
            (f"joblib ({os.cpu_count()} cores)", f"{parallel_seconds:8.1f} s  ({cells / parallel_seconds:6.1f} cells/s)"),
            ("serial", f"{serial_seconds:8.1f} s  ({cells / serial_seconds:6.1f} cells/s)"),
            ("speed-up", f"{serial_seconds / parallel_seconds:8.2f}×"),
            ("identical tables", str(same)),
            ("failed cells", str(failed)),
        ],
    )  # fmt: skip
    print(mean_table(table, "nmi", ["eps"]).round(4).to_string())
    for check in isit.check_fig2(table):
        print(check.sentence())


if __name__ == "__main__":
    main()
