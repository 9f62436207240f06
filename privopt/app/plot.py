"""Plots of sweep results (matplotlib): privacy–utility curves, realized-ε quantiles, time vs size.

Every function takes a tidy table (one row per observation, e.g. from :class:`privopt.experiments.Sweep`),
draws one panel per value of ``facet`` (or a single panel) and returns the
:class:`matplotlib.figure.Figure`, which ``fig.savefig("fig.png")`` or ``"fig.pdf"`` writes.

* :func:`utility_curves` — the mean of ``y`` against ``x`` per ``hue`` with a quantile band
  (ISIT paper Figs. 2–3, Entropy paper Figs. 2–3, privacy-funnel paper Figs. 5–6).
* :func:`quantile_curves` — chosen quantiles of ``y`` against ``x`` per ``hue``, with the diagonal
  ``y = x`` (realized ε* against the design ε: Entropy paper Fig. 4).
* :func:`time_vs_size` — the median run time against a size on log axes (privacy-funnel Fig. 3(a)).
* :func:`curve_band` — a :meth:`privopt.Problem.curve` table: the designs' utility, the certified band
  up to the upper bound, and the named mechanisms it was compared with.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from privopt.errors import ValidationError

#: The papers' mechanisms in a fixed order and colour, so that every figure uses the same legend.
PALETTE = {
    "polyopt": "tab:purple",
    "nr": "tab:gray",
    "ir": "tab:blue",
    "cr": "tab:green",
    "srr": "tab:orange",
    "grr": "tab:red",
    "oue": "tab:brown",
    "opt-lip": "tab:purple",
    "opt-ldp": "tab:pink",
}


#: Axis labels of the columns privopt's tables use; any other column is labelled by its name.
AXIS_LABELS = {
    "eps": "ε",
    "eps_star": "realized ε*",
    "eps_lower": "audited ε (lower)",
    "eps_upper": "audited ε (upper)",
    "nmi": "NMI = I(X;Y)/H(X)",
    "mi": "I(X;Y) (nats)",
    "utility": "utility",
    "seconds": "seconds",
    "audit_seconds": "audit seconds",
    "beta": "β",
    "level": "confidence level",
    "n": "sample size n",
}


def axis_label(column: str, given: str | None = None) -> str:
    """``given`` when there is one, else the label of ``column`` (:data:`AXIS_LABELS`, or its name)."""
    return given if given is not None else AXIS_LABELS.get(column, column)


def _check_columns(value: object, x: str, y: str, hue: str | None, facet: str | None) -> pd.DataFrame:
    """The table's successful rows; an error naming the argument (``y=``, ...) whose column it lacks."""
    if not isinstance(value, pd.DataFrame):
        raise ValidationError("table", "a pandas DataFrame (e.g. Sweep(...).run())", type(value).__name__)
    table = value
    for argument, column in (("x", x), ("y", y), ("hue", hue), ("facet", facet)):
        if column is not None and column not in table.columns:
            optional = ", or None" if argument in ("hue", "facet") else ""
            raise ValidationError(
                argument,
                f"a column of the table{optional} (its columns: {', '.join(map(str, table.columns))}): "
                f"pass {argument}=",
                repr(column),
            )
    if "status" in table.columns:  # failed cells carry no values
        table = table[table["status"] == "ok"]
    if table.empty:
        raise ValidationError("table", "at least one successful row to plot", "no rows")
    return table


def _check_band(band: tuple[float, float] | None) -> tuple[float, float] | None:
    if band is not None and not (len(band) == 2 and 0.0 <= band[0] < band[1] <= 1.0):
        raise ValidationError(
            "band", "a pair of quantiles (low, high) with 0 <= low < high <= 1, or None", repr(band)
        )
    return band


def _panel_title(facet: str, value: object) -> str:
    return str(value) if facet == "panel" else f"{facet} = {value}"


def _panels(
    table: pd.DataFrame, facet: str | None, width: float = 4.2
) -> tuple[Figure, list[tuple[str, pd.DataFrame, Axes]]]:
    groups = (
        [("", table)]
        if facet is None
        else [(_panel_title(facet, k), g) for k, g in table.groupby(facet, sort=False)]
    )
    columns = min(len(groups), 3)
    rows = int(np.ceil(len(groups) / columns))
    figure = Figure(figsize=(max(width * columns, 6.4), 3.4 * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for ax in axes[len(groups) :]:
        ax.set_visible(False)
    return figure, [(title, group, ax) for (title, group), ax in zip(groups, axes, strict=False)]


def _series(table: pd.DataFrame, hue: str | None) -> list[tuple[str, pd.DataFrame]]:
    if hue is None:
        return [("", table)]
    return [(str(k), g) for k, g in table.groupby(hue, sort=False)]


def _finish(figure: Figure, title: str | None, xlabel: str, ylabel: str, legend: bool) -> Figure:
    for ax in figure.axes:
        if not ax.get_visible():
            continue
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        if legend and ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="small")
    if title:
        figure.suptitle(title, fontsize="medium")
    return figure


def _centre_and_band(
    ax: Axes,
    group: pd.DataFrame,
    x: str,
    y: str,
    hue: str | None,
    centre: str,
    band: tuple[float, float] | None,
) -> None:
    """One line per ``hue`` value: the ``centre`` ("mean" or "median") of ``y`` at each ``x``, and the
    shaded band between the ``band`` quantiles."""
    for name, series in _series(group, hue):
        stats = series.groupby(x)[y]
        middle = stats.agg(centre)
        (line,) = ax.plot(
            middle.index, middle.to_numpy(), marker="o", ms=3, label=name, color=PALETTE.get(name)
        )
        if band is not None:
            low, high = stats.quantile(band[0]), stats.quantile(band[1])
            ax.fill_between(middle.index, low.to_numpy(), high.to_numpy(), alpha=0.15, color=line.get_color())


def utility_curves(
    table: pd.DataFrame,
    *,
    x: str = "eps",
    y: str = "nmi",
    hue: str | None = "mechanism",
    facet: str | None = None,
    band: tuple[float, float] | None = (0.25, 0.75),
    logx: bool = False,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> Figure:
    """Mean of ``y`` against ``x``, one line per ``hue`` value and a shaded ``band`` of quantiles.

    ``y`` is the column plotted: ``"nmi"`` unless told, the normalised mutual information that
    privopt's sweeps and figures record (pass ``y="utility"``, or any other column); ``hue`` the
    column whose values get one line each (``"mechanism"``; ``None`` for one line). A column the
    table does not have is an error naming the argument. The axes are labelled from the columns they
    plot (:func:`axis_label`) unless ``xlabel`` or ``ylabel`` is given.
    """
    labels = (title, axis_label(x, xlabel), axis_label(y, ylabel))
    return _banded_figure(table, x, y, hue, facet, band, "mean", logx, False, labels)


def quantile_curves(
    table: pd.DataFrame,
    *,
    x: str = "eps",
    y: str = "eps_star",
    hue: str | None = "mechanism",
    facet: str | None = None,
    quantiles: Sequence[float] = (0.25, 0.75),
    diagonal: bool = True,
    logx: bool = False,
    logy: bool = False,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> Figure:
    """Quantiles of ``y`` against ``x`` per ``hue`` (dashed for the outer quantiles), with ``y = x``;
    axes labelled from their columns unless ``xlabel`` or ``ylabel`` is given."""
    table = _check_columns(table, x, y, hue, facet)
    if not quantiles or not all(0.0 <= q <= 1.0 for q in quantiles):
        raise ValidationError("quantiles", "a non-empty sequence of numbers in [0, 1]", repr(quantiles))
    figure, panels = _panels(table, facet)
    for panel_title, group, ax in panels:
        for name, series in _series(group, hue):
            stats = series.groupby(x)[y]
            color: Any = PALETTE.get(name)
            for k, q in enumerate(sorted(quantiles)):
                values = stats.quantile(q)
                (line,) = ax.plot(
                    values.index, values.to_numpy(), marker="o", ms=3, color=color,
                    linestyle="-" if k == len(quantiles) // 2 else "--",
                    label=f"{name} {q:.0%}" if name else f"{q:.0%}",
                )  # fmt: skip
                color = line.get_color()
        if diagonal:
            grid = np.sort(group[x].unique())
            ax.plot(grid, grid, color="black", linewidth=0.8, label="y = x")
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.set_title(panel_title, fontsize="medium")
    return _finish(figure, title, axis_label(x, xlabel), axis_label(y, ylabel), True)


def time_vs_size(
    table: pd.DataFrame,
    *,
    x: str = "size",
    y: str = "seconds",
    hue: str | None = "mechanism",
    facet: str | None = None,
    band: tuple[float, float] | None = (0.25, 0.75),
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> Figure:
    """Median of ``y`` (a time) against ``x`` on log–log axes, with a quantile band; axes labelled
    from their columns unless ``xlabel`` or ``ylabel`` is given."""
    labels = (title, axis_label(x, xlabel), axis_label(y, ylabel))
    return _banded_figure(table, x, y, hue, facet, band, "median", True, True, labels)


def _banded_figure(
    table: pd.DataFrame,
    x: str,
    y: str,
    hue: str | None,
    facet: str | None,
    band: tuple[float, float] | None,
    centre: str,
    logx: bool,
    logy: bool,
    labels: tuple[str | None, str, str],
) -> Figure:
    """The ``centre`` statistic of ``y`` against ``x`` per ``hue``, with a quantile ``band``, per facet."""
    table = _check_columns(table, x, y, hue, facet)
    band = _check_band(band)
    figure, panels = _panels(table, facet)
    for panel_title, group, ax in panels:
        _centre_and_band(ax, group, x, y, hue, centre, band)
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.set_title(panel_title, fontsize="medium")
    title, xlabel, ylabel = labels
    return _finish(figure, title, xlabel, ylabel, hue is not None)


def curve_band(
    table: pd.DataFrame,
    *,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    logx: bool = False,
) -> Figure:
    """Draw a :meth:`privopt.Problem.curve` table: the designs' utility (``lower``), the band up to the
    certified ``upper`` bound (the optimum lies in it), and one line per named mechanism the curve was
    compared with (``table.attrs["compare"]``). Points whose bound is not independently checked are
    drawn hollow; a point that failed (NaN bounds) leaves a gap."""
    if not isinstance(table, pd.DataFrame):
        raise ValidationError("table", "a DataFrame from Problem.curve", type(table).__name__)
    axis = table.attrs.get("axis")
    if axis not in table.columns or not {"lower", "upper", "checked"} <= set(table.columns):
        raise ValidationError(
            "table", "a DataFrame from Problem.curve (columns lower, upper, checked and its axis)",
            f"columns {', '.join(map(str, table.columns))}",
        )  # fmt: skip
    if table.empty:
        raise ValidationError("table", "at least one point", "no rows")
    figure = Figure(figsize=(6.4, 4.0), layout="constrained")
    ax = figure.subplots()
    x = table[axis].to_numpy(dtype=float)
    ax.fill_between(x, table["lower"], table["upper"], color="tab:purple", alpha=0.25, label="certified band")
    ax.plot(x, table["lower"], color="tab:purple", label="optimal design")
    checked = table["checked"].to_numpy(dtype=bool)
    hollow = ~checked & table["lower"].notna().to_numpy()
    ax.scatter(x[checked], table["lower"][checked], color="tab:purple", s=14, zorder=3)
    ax.scatter(
        x[hollow], table["lower"][hollow], facecolors="none", edgecolors="tab:purple", s=14, zorder=3,
        label="bound not checked" if hollow.any() else None,
    )  # fmt: skip
    for name in table.attrs.get("compare", ()):
        if name in table.columns:
            ax.plot(x, table[name], color=PALETTE.get(name), linestyle="--", label=name)
    if logx:
        ax.set_xscale("log")
    return _finish(figure, title, axis_label(axis, xlabel), axis_label("utility", ylabel), True)
