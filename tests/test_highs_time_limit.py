"""HiGHS's ``time_limit`` on a reused model (:func:`privopt.solvers.lp.limit_run`)."""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp
from privopt.solvers.lp import limit_run, new_highs


def _model():
    import highspy

    highs = new_highs()
    n, m = 60, 400
    highs.addCols(n, np.zeros(n), np.zeros(n), np.ones(n), 0, [], [], [])
    rows = sp.random(m, n, density=0.3, format="csr", random_state=0)
    highs.addRows(
        m, np.full(m, -highspy.kHighsInf), np.ones(m), rows.nnz, rows.indptr[:-1], rows.indices, rows.data
    )
    return highs, n


def test_the_limit_counts_from_the_clock_so_far():
    """HiGHS's run clock adds up over the runs of one model, so a limit of "``s`` more seconds" is the
    clock so far plus ``s``; every LP of a reused model then solves (none stops at the sum of the others'
    times)."""
    import highspy

    highs, n = _model()
    rng = np.random.default_rng(0)
    clocks = []
    for _ in range(5):
        highs.changeColsCost(n, np.arange(n, dtype=np.int32), -rng.random(n))
        limit_run(highs, 30.0)
        assert highs.getOptionValue("time_limit")[1] - highs.getRunTime() >= 30.0 - 1e-9
        highs.run()
        assert highs.getModelStatus() == highspy.HighsModelStatus.kOptimal
        clocks.append(highs.getRunTime())
    assert all(later > earlier for earlier, later in itertools.pairwise(clocks))
