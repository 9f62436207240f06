"""The papers' figures as experiments: ``FIGURES[name]`` is a :class:`FigureExperiment`."""

from privopt.experiments.figures import entropy, funnel, isit, pml, variants
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
        funnel.FIG3,
        funnel.FIG5,
        funnel.FIG6,
        funnel.FIG7,
        pml.FIG3,
        pml.FIG4,
        pml.FIG5,
        pml.FIG6,
        variants.VARIANTS_FIGURE,
    )
}

__all__ = ["FIGURES", "ClaimCheck", "FigureExperiment", "RunOptions", "checks_frame"]
