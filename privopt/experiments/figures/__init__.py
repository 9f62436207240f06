"""The papers' figures as experiments: ``FIGURES[name]`` is a :class:`FigureExperiment`."""

from privopt.experiments.figures import entropy, isit
from privopt.experiments.figures.base import ClaimCheck, FigureExperiment, RunOptions, checks_frame

FIGURES: dict[str, FigureExperiment] = {
    experiment.name: experiment
    for experiment in (
        isit.FIG2,
        isit.FIG3,
        entropy.FIG2,
        entropy.FIG3,
        entropy.FIG4,
        entropy.FIG5,
        entropy.TABLE2,
    )
}

__all__ = ["FIGURES", "ClaimCheck", "FigureExperiment", "RunOptions", "checks_frame"]
