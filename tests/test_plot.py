"""privopt.app.plot: the drawn data is the table's summary, figures save to PNG and PDF, bad input is named."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privopt.app.plot import quantile_curves, time_vs_size, utility_curves
from privopt.errors import ValidationError


@pytest.fixture
def table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [
        {"panel": panel, "eps": eps, "mechanism": m, "nmi": rng.uniform(), "eps_star": eps * rng.uniform(0.5, 2),
         "size": size, "seconds": rng.uniform(0.1, 1) * size, "status": "ok"}
        for panel in ("A", "B")
        for eps in (0.5, 1.0, 2.0)
        for m in ("polyopt", "grr")
        for size in (4, 9)
        for _ in range(5)
    ]  # fmt: skip
    rows.append({"panel": "A", "eps": 0.5, "mechanism": "grr", "nmi": 100.0, "status": "failed"})
    return pd.DataFrame(rows)


def _line(ax, label: str):
    return next(line for line in ax.get_lines() if line.get_label() == label)


def test_utility_curves_draw_the_means_per_facet(table: pd.DataFrame) -> None:
    figure = utility_curves(table, facet="panel")
    assert [ax.get_title() for ax in figure.axes] == ["A", "B"]
    ok = table[table["status"] == "ok"]  # the failed row (nmi = 100) is not drawn
    expected = ok[(ok["panel"] == "B") & (ok["mechanism"] == "grr")].groupby("eps")["nmi"].mean()
    x, y = _line(figure.axes[1], "grr").get_data()
    assert np.allclose(x, expected.index)
    assert np.allclose(y, expected.to_numpy())
    assert len(figure.axes[0].collections) == 2  # one quantile band per mechanism


def test_quantile_curves_draw_the_quantiles_and_the_diagonal(table: pd.DataFrame) -> None:
    figure = quantile_curves(table[table["panel"] == "A"], quantiles=(0.25, 0.75))
    ax = figure.axes[0]
    ok = table[(table["panel"] == "A") & (table["status"] == "ok") & (table["mechanism"] == "polyopt")]
    expected = ok.groupby("eps")["eps_star"].quantile(0.75)
    assert np.allclose(_line(ax, "polyopt 75%").get_ydata(), expected.to_numpy())
    x, y = _line(ax, "y = x").get_data()
    assert np.allclose(x, y)


def test_time_vs_size_uses_log_axes_and_medians(table: pd.DataFrame) -> None:
    figure = time_vs_size(table)
    ax = figure.axes[0]
    assert ax.get_xscale() == "log"
    assert ax.get_yscale() == "log"
    ok = table[(table["status"] == "ok") & (table["mechanism"] == "grr")]
    assert np.allclose(_line(ax, "grr").get_ydata(), ok.groupby("size")["seconds"].median().to_numpy())


@pytest.mark.parametrize(("suffix", "magic"), [(".png", b"\x89PNG"), (".pdf", b"%PDF")])
def test_figures_save_to_png_and_pdf(table: pd.DataFrame, tmp_path: Path, suffix: str, magic: bytes) -> None:
    target = tmp_path / f"figure{suffix}"
    utility_curves(table, title="t").savefig(target)
    assert target.read_bytes().startswith(magic)


def test_bad_input_is_named(table: pd.DataFrame) -> None:
    with pytest.raises(
        ValidationError,
        match=r"^y: expected a column of the table \(its columns: .*\): pass y=, got 'utility'",
    ):
        utility_curves(table, y="utility")
    # The default y is "nmi": a table without it says to pass y=, and a missing hue says it may be None.
    with pytest.raises(ValidationError, match=r"^y: .*pass y=, got 'nmi'"):
        utility_curves(table.drop(columns="nmi"))
    with pytest.raises(
        ValidationError, match=r"^hue: expected a column of the table, or None .*got 'mechanism'"
    ):
        utility_curves(table.drop(columns="mechanism"))
    with pytest.raises(ValidationError, match=r"^band"):
        utility_curves(table, band=(0.8, 0.2))
    with pytest.raises(ValidationError, match=r"^quantiles"):
        quantile_curves(table, quantiles=(1.5,))
    with pytest.raises(ValidationError, match=r"^table: expected a pandas DataFrame"):
        time_vs_size([1, 2])
    with pytest.raises(ValidationError, match="at least one successful row"):
        utility_curves(table[table["status"] == "failed"])
