"""The vertex route's strategy for piecewise-linear utilities: the LP over one column per linear piece,
exact on any cone (docs/compiler.md, "Piecewise-linear utilities")."""

from __future__ import annotations

import time

import numpy as np

from privopt.certificates import SliceBound
from privopt.routes.base import ProblemData, RouteResult, SolveStats, matrix_from_columns, status_for
from privopt.routes.pricing.piecewise import piecewise_delta, piecewise_design
from privopt.routes.slice_check import checked
from privopt.routes.vertex_cost import piecewise_pricing
from privopt.utilities import SubConvexUtility


class LinearPiecesStrategy:
    """One LP over a column per piece, where :func:`~privopt.routes.vertex_cost.piecewise_pricing`
    predicts it beats enumeration."""

    name = "linear pieces"

    @staticmethod
    def accepts(data: ProblemData) -> str | None:
        """``None`` when the strategy applies, else why not."""
        if piecewise_pricing(data) is None:
            return "the utility declares no linear pieces, or enumeration is predicted cheaper"
        return None

    @staticmethod
    def solve(
        data: ProblemData, utility: SubConvexUtility, deadline: float | None, seconds: dict[str, float]
    ) -> RouteResult | None:
        """A piecewise-linear utility: the LP over one column per piece, and its duals' bound with ``δ̄``
        proved by one LP per piece (:mod:`privopt.routes.pricing.piecewise`). ``None`` when the
        independent checker refutes it (the caller then prices or enumerates)."""
        pieces = piecewise_pricing(data)
        assert pieces is not None
        start = time.perf_counter()
        columns, weights, duals = piecewise_design(data.cone, pieces)
        matrix = matrix_from_columns(columns, weights)
        delta = piecewise_delta(data.cone, pieces, duals)
        seconds["lp"] = time.perf_counter() - start
        bound = SliceBound.build(
            duals,
            max(0.0, delta),
            "sum",
            np.ones(data.n_inputs),
            "the LP over one column per linear piece; δ̄ by one LP per piece, bounded by its duals",
        )
        check = checked(data, utility, bound, deadline, seconds)
        if check.refuted:
            return None
        core = float(np.sum(utility.mu(matrix)))
        lower, upper = utility.from_core(core), utility.from_core(bound.upper)
        stats = SolveStats(
            seconds=seconds, columns=columns.shape[1], backend="linear pieces (one LP)", lp_value=core
        )
        return RouteResult(
            matrix,
            status_for(lower, upper, data.options.colgen.gap_tolerance, limited=False),
            lower,
            upper,
            f"the LP over one column per linear piece of the utility ({pieces.shape[0]} pieces): exact "
            "for a piecewise-linear μ on any cone",
            "the LP's duals, each piece's LP bounded by its duals",
            stats,
            (bound,),
            check,
        )
