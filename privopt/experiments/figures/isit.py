"""ISIT paper §V: Fig. 2 (PolyOpt, GRR, IR, CR on 3×3) and Fig. 3 (GRR, IR, CR on 5×5, varying n).

Both draw ``P*`` from the Jeffreys prior, ``P̂`` from ``n`` samples, and design for the 95% χ² set
around ``P̂`` (α = 0.05); the utility is the NMI ``I_P̂(X;Y)/H_P̂(X)`` averaged over the draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from privopt.app.plot import utility_curves
from privopt.experiments.cell import Cell
from privopt.experiments.figures.base import ClaimCheck, FigureExperiment, RunOptions
from privopt.experiments.figures.rldp import nmi, parse_shape, rldp_mechanism
from privopt.experiments.figures.summary import mean_table, nearest, wins
from privopt.experiments.generators import jeffreys_draw
from privopt.sets.renyi import RenyiBall

#: ε in [0.2, 8] (Fig. 2's axis): 20 values for the full grid.
FULL_EPS = tuple(float(e) for e in np.round(np.linspace(0.2, 8.0, 20), 3))
REDUCED_EPS = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0)


def synthetic_cell(cell: Cell) -> dict[str, float]:
    """One (draw, n, ε, mechanism): NMI at P̂ of the mechanism designed for the χ² set of P̂."""
    draw = jeffreys_draw(parse_shape(cell["shape"]), cell["n"], cell.rng("shape", "n", "draw"))
    F = RenyiBall.confidence(draw.estimate)
    mechanism = rldp_mechanism(cell["mechanism"], F, cell["eps"])
    return {"nmi": nmi(draw.estimate, mechanism), "nmi_true": nmi(draw.true, mechanism)}


def run_fig2(options: RunOptions) -> pd.DataFrame:
    grid: dict[str, Sequence[Any]] = {
        "shape": ["3x3"],
        "n": [1000],
        "draw": list(range(200 if options.full else 8)),
        "eps": list(FULL_EPS if options.full else REDUCED_EPS),
        "mechanism": ["polyopt", "grr", "ir", "cr"],
    }
    return options.sweep("isit-fig2", synthetic_cell, grid)


def plot_fig2(table: pd.DataFrame) -> Figure:
    return utility_curves(table, title="ISIT Fig. 2: |S| = |U| = 3, n = 1000 (mean, 25–75% band)")


def check_fig2(table: pd.DataFrame) -> list[ClaimCheck]:
    means = mean_table(table, "nmi", ["eps"])
    worst = means.drop(columns="polyopt").max(axis=1)
    margin = means["polyopt"] - worst
    n_win, n_eps = wins(means, "polyopt", ["grr", "ir", "cr"])
    at1 = means.loc[nearest(means.index, 1.0)]
    return [
        ClaimCheck(
            "PolyOpt significantly outperforms GRR, IR and CR (mean NMI over the distributions).",
            f"PolyOpt has the highest mean NMI at {n_win} of {n_eps} ε values; its margin over the best other "
            f"mechanism is {margin.min():.3f} to {margin.max():.3f} (at ε = {at1.name:g}: PolyOpt {at1['polyopt']:.3f}, "
            f"GRR {at1['grr']:.3f}, IR {at1['ir']:.3f}, CR {at1['cr']:.3f}).",
            n_win == n_eps,
        ),
        ClaimCheck(
            "PolyOpt stays above GRR at large ε (the paper's curve dips there, which it blames on MPT3's accuracy).",
            f"privopt's exact vertex enumeration keeps PolyOpt above GRR up to ε = {means.index.max():g} "
            f"(PolyOpt {means['polyopt'].iloc[-1]:.4f} vs GRR {means['grr'].iloc[-1]:.4f}); GRR is feasible for "
            "the Γ cone, so PolyOpt >= GRR is a theorem.",
            bool((means["polyopt"] >= means["grr"] - 1e-9).all()),
        ),
    ]


def run_fig3(options: RunOptions) -> pd.DataFrame:
    grid: dict[str, Sequence[Any]] = {
        "shape": ["5x5"],
        "n": [100, 1000, 10_000, 100_000] if options.full else [100, 10_000],
        "draw": list(range(200 if options.full else 6)),
        "eps": list(FULL_EPS if options.full else (0.5, 1.0, 2.0, 4.0, 6.0)),
        "mechanism": ["grr", "ir", "cr"],
    }
    return options.sweep("isit-fig3", synthetic_cell, grid)


def plot_fig3(table: pd.DataFrame) -> Figure:
    return utility_curves(table, facet="n", title="ISIT Fig. 3: |S| = |U| = 5, varying n (mean, 25–75% band)")


def check_fig3(table: pd.DataFrame) -> list[ClaimCheck]:
    means = mean_table(table, "nmi", ["n", "eps"])
    small_n, large_n = means.index.get_level_values("n").min(), means.index.get_level_values("n").max()
    one = nearest(means.index.get_level_values("eps").unique(), 1.0)
    at1 = means.xs(one, level="eps")
    top = means.index.get_level_values("eps").max()
    at_top = means.xs(top, level="eps")
    cross = []
    for n, group in means.groupby(level="n"):
        above = group.droplevel("n")
        beats = above["grr"] > above[["ir", "cr"]].max(axis=1)
        cross.append(f"n = {n}: {beats.idxmax():g}" if beats.any() else f"n = {n}: never (≤ {top:g})")
    cr_gain = at1.loc[large_n, "cr"] - at1.loc[small_n, "cr"]
    return [
        ClaimCheck(
            "At ε ≈ 1, IR and CR clearly outperform GRR.",
            f"mean NMI at ε = {one:g}: "
            + "; ".join(f"n = {n}: GRR {r.grr:.3f}, IR {r.ir:.3f}, CR {r.cr:.3f}" for n, r in at1.iterrows()),
            bool((at1[["ir", "cr"]].min(axis=1) > at1["grr"]).all()),
        ),
        ClaimCheck(
            "GRR outperforms IR and CR for large enough ε, typically around ε = 4.",
            "first ε where GRR's mean NMI exceeds both: " + ", ".join(cross)
            + f"; at ε = {top:g}: " + "; ".join(f"n = {n}: GRR {r.grr:.3f}, IR {r.ir:.3f}, CR {r.cr:.3f}" for n, r in at_top.iterrows()),
            bool((at_top["grr"] > at_top[["ir", "cr"]].max(axis=1)).all()),
        ),
        ClaimCheck(
            "CR performs better for larger n.",
            f"CR's mean NMI at ε = {one:g} grows from {at1.loc[small_n, 'cr']:.3f} (n = {small_n}) to "
            f"{at1.loc[large_n, 'cr']:.3f} (n = {large_n}).",
            bool(cr_gain > 0),
        ),
    ]  # fmt: skip


FIG2 = FigureExperiment(
    name="isit-fig2",
    source="ISIT 2021, §V, Fig. 2",
    title="PolyOpt vs GRR, IR, CR on 3×3 Jeffreys distributions",
    claim="PolyOpt significantly outperforms the other algorithms.",
    grid="full: 200 distributions × 20 ε in [0.2, 8] × 4 mechanisms; reduced: 8 × 6 ε × 4",
    run=run_fig2,
    plot=plot_fig2,
    check=check_fig2,
)
FIG3 = FigureExperiment(
    name="isit-fig3",
    source="ISIT 2021, §V, Fig. 3",
    title="GRR, IR, CR on 5×5 Jeffreys distributions as n varies",
    claim="IR and CR beat GRR at ε ≈ 1, GRR wins from about ε = 4; CR improves with n.",
    grid="full: n in {1e2, 1e3, 1e4, 1e5} × 200 distributions × 20 ε × 3; reduced: n in {1e2, 1e4} × 6 × 5 ε × 3",
    run=run_fig3,
    plot=plot_fig3,
    check=check_fig3,
)
