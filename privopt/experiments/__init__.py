"""Experiments: parameter sweeps (serial, joblib, Dask), seeded generators, and the papers' figures.

    from privopt.experiments import Sweep, jeffreys_draw

    def cell(c):
        draw = jeffreys_draw((3, 3), n=1000, rng=c.rng("draw"))
        ...
        return {"nmi": ...}

    table = Sweep(cell, {"draw": range(200), "eps": [0.5, 1, 2]}, store="results/fig2").run()

:func:`reproduce` runs one of the papers' figures by name (:data:`FIGURES`), writing its CSV and PNG.
"""

from privopt.experiments.cell import Cell, Outcome
from privopt.experiments.generators import (
    JEFFREYS_ALPHA,
    Draw,
    empirical,
    jeffreys,
    jeffreys_draw,
    uniform_weights,
)
from privopt.experiments.store import ResultStore
from privopt.experiments.sweep import Sweep, failed

__all__ = [
    "JEFFREYS_ALPHA",
    "Cell",
    "Draw",
    "Outcome",
    "ResultStore",
    "Sweep",
    "empirical",
    "failed",
    "jeffreys",
    "jeffreys_draw",
    "uniform_weights",
]

from privopt.experiments.figures import FIGURES, ClaimCheck, FigureExperiment, RunOptions
from privopt.experiments.reproduce import Reproduction, figure, reproduce

__all__ += ["FIGURES", "ClaimCheck", "FigureExperiment", "Reproduction", "RunOptions", "figure", "reproduce"]
