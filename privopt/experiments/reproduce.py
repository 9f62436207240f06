"""``reproduce(name)``: run one paper figure's experiment, plot it and check the paper's claims.

    >>> from privopt.experiments import FIGURES
    >>> sorted(FIGURES)[:2]
    ['entropy-fig2', 'entropy-fig3']

With ``out=`` the table is written as ``NAME.csv``, the figure as ``NAME.png``, the claim checks as
``NAME-claims.csv``, and the sweep's parquet store goes to ``out/store`` (so a second run, or another
figure of the same sweep, reuses the finished cells). ``privopt reproduce NAME`` is the CLI form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from privopt.app.files import write_together
from privopt.errors import ValidationError
from privopt.experiments.figures import FIGURES, ClaimCheck, FigureExperiment, RunOptions, checks_frame
from privopt.experiments.figures.base import full_from_environment


@dataclass(frozen=True)
class Reproduction:
    """A reproduced figure: the sweep's table, the plot, the claim checks, and the files written."""

    experiment: FigureExperiment
    table: pd.DataFrame = field(repr=False)
    figure: Figure = field(repr=False)
    checks: list[ClaimCheck]
    files: tuple[Path, ...] = ()

    @property
    def reproduced(self) -> bool:
        """Whether every checked claim reproduced."""
        return all(check.reproduced for check in self.checks)

    def claims(self) -> pd.DataFrame:
        return checks_frame(self.checks)

    def summary(self) -> str:
        """The conclusion in words: each claim of the paper beside privopt's numbers."""
        head = f"{self.experiment.source}: {self.experiment.title}"
        return "\n".join([head, *(check.sentence() for check in self.checks)])


def figure(name: str) -> FigureExperiment:
    """The experiment registered as ``name`` (a :class:`ValidationError` lists the known names)."""
    if name not in FIGURES:
        raise ValidationError("name", f"a figure among {', '.join(sorted(FIGURES))}", repr(name))
    return FIGURES[name]


def reproduce(
    name: str,
    *,
    full: bool | None = None,
    out: str | Path | None = None,
    backend: str = "joblib",
    n_jobs: int = -1,
    client: Any = None,
    progress: bool = True,
) -> Reproduction:
    """Run figure ``name``'s sweep (the full grid if ``full``, default ``PRIVOPT_FULL=1``), plot it and
    check the paper's claims; with ``out``, write the CSV, PNG and claims there."""
    experiment = figure(name)
    full = full_from_environment() if full is None else bool(full)
    folder = None if out is None else Path(out)
    if folder is not None:
        if folder.exists() and not folder.is_dir():
            raise ValidationError("out", "a folder for the CSV and PNG files", f"{str(folder)!r} is a file")
        folder.mkdir(parents=True, exist_ok=True)
    options = RunOptions(
        full=full,
        backend=backend,
        n_jobs=n_jobs,
        client=client,
        store=None if folder is None else folder / "store" / ("full" if full else "reduced"),
        progress=progress,
    )
    table = experiment.run(options)
    plot = experiment.plot(table)
    checks = experiment.check(table)
    files: tuple[Path, ...] = ()
    if folder is not None:  # the three files appear together or not at all
        files = write_together(
            {
                folder / f"{name}.csv": lambda path: table.to_csv(path, index=False),
                folder / f"{name}.png": lambda path: plot.savefig(path, dpi=120, format="png"),
                folder / f"{name}-claims.csv": lambda path: checks_frame(checks).to_csv(path, index=False),
            }
        )
    return Reproduction(experiment, table, plot, checks, files)
