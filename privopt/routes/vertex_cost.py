"""How long vertex enumeration of a cone slice takes: the prediction behind ``route="auto"``.

McMullen's bound (:mod:`privopt.compiler.estimate`) holds for every input but is loose by orders of
magnitude on the papers' cones, so ``"auto"`` decides from *measured* enumeration times instead
(``benchmarks/bench_vertex_cost.py`` re-measures them): the slowest time seen at each dimension
``d = |X| − 1`` of the normalised slice, scaled by the number of rows. Times grow about
exponentially with ``d``, and at one ``d`` they vary by two orders of magnitude with ε and the
sample size (3×4 Γ cones: 7 s at n = 1,000, more than 600 s at n = 32,561), so the prediction is the
upper envelope, not a mean: a problem predicted to be slow goes to column generation, and one that
overruns anyway falls back to it after :data:`AUTO_VERTEX_SHARE` of the timeout.
"""

from __future__ import annotations

import numpy as np

from privopt.routes.base import ProblemData

#: Share of the solve's timeout that ``route="auto"`` gives vertex enumeration before falling back
#: to column generation.
AUTO_VERTEX_SHARE = 0.25

#: Slowest measured enumeration (seconds) of Γ cones by slice dimension, with the rows they had
#: (``benchmarks/bench_vertex_cost.py``; Jeffreys-drawn P̂, n ∈ {1,000, 32,561}, ε ∈ {0.5, 1, 2}, 2 cores).
MEASURED: dict[int, tuple[float, int]] = {
    3: (0.02, 4),
    5: (0.05, 18),
    7: (0.3, 32),
    8: (2.0, 54),
    9: (20.0, 50),
    11: (2000.0, 144),
}


def predicted_vertex_seconds(data: ProblemData) -> float:
    """The predicted wall time of enumerating ``data``'s cone slice (module docstring)."""
    d = data.n_inputs - 1
    dims = np.array(sorted(MEASURED))
    log_seconds = np.log([MEASURED[k][0] for k in dims])
    rows = np.array([MEASURED[k][1] for k in dims], dtype=np.float64)
    if d <= dims[-1]:
        base = float(np.exp(np.interp(d, dims, log_seconds)))
        reference_rows = float(np.interp(d, dims, rows))
    else:  # beyond the measurements: the last measured growth rate per dimension
        slope = (log_seconds[-1] - log_seconds[-2]) / (dims[-1] - dims[-2])
        base = float(np.exp(log_seconds[-1] + slope * (d - dims[-1])))
        reference_rows = float(rows[-1])
    return base * max(1.0, data.cone.n_rows / max(reference_rows, 1.0))
