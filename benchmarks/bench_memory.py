"""Memory budgets and timeouts at the edge: ``SensitiveLDP`` on large point estimates.

- 200 × 200 and 500 × 500 (40,000 and 250,000 inputs): the time to the ``LimitError`` (from building
  the definition, and of ``solve()`` alone) and the peak resident memory — goals: within 5 s, under
  1 GiB (the refusal of docs/design.md, "Contracts": estimated before any compilation).
- 30 × 30 (900 inputs): the wall time of ``solve()`` against its ``timeout`` (goal: a result or a
  ``LimitError`` within it) and the peak resident memory of the run.

Each case runs in a fresh process, so that its peak memory is its own. ``--quick``: 30 × 30 at one timeout.
"""

from __future__ import annotations

import json
import subprocess
import sys

from benchmarks.timing import report

CASE = """
import json, resource, sys, time
start = time.perf_counter()
import numpy as np
import privopt as po

n, timeout = int(sys.argv[1]), float(sys.argv[2])
counts = np.random.default_rng(0).integers(1, 20, size=(n, n))
P = po.JointDistribution.from_counts(counts)
built = time.perf_counter()
problem = po.Problem(po.SensitiveLDP(1.0, P), po.MutualInformation(P), time_limit=timeout,
                     colgen={"progress": False})
solving = time.perf_counter()
try:
    solution = problem.solve()
    outcome = {"result": f"{solution.status.value}, value {solution.value:.6g}, gap {solution.gap:.3g}"}
except po.LimitError as exc:
    outcome = {"result": "LimitError: " + str(exc)[:90] + "..."}
end = time.perf_counter()
outcome.update(
    definition_and_solve=end - built, solve=end - solving,
    peak_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
)
print(json.dumps(outcome))
"""


def run(n: int, timeout: float) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-c", CASE, str(n), str(timeout)], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    quick = "--quick" in sys.argv
    rows = []
    for n in (200, 500):
        outcome = run(n, 600.0)
        rows.append(
            (
                f"{n} × {n}",
                f"definition + solve {outcome['definition_and_solve']:5.2f} s, solve {outcome['solve']:5.2f} s "
                f"(goal < 5 s), peak {outcome['peak_mib']:5.0f} MiB (goal < 1024); {outcome['result']}",
            )
        )
    for timeout in (10.0,) if quick else (10.0, 30.0, 60.0):
        outcome = run(30, timeout)
        ratio = float(outcome["solve"]) / timeout  # type: ignore[arg-type]
        rows.append(
            (
                f"30 × 30, timeout {timeout:g} s",
                f"solve {outcome['solve']:6.2f} s ({ratio:4.2f} × the timeout, goal <= 1), "
                f"peak {outcome['peak_mib']:5.0f} MiB; {outcome['result']}",
            )
        )
    report("Memory budget and timeout: SensitiveLDP on large point estimates", rows)


if __name__ == "__main__":
    main()
