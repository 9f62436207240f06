"""What a reproduced paper figure is: a sweep, a plot, and the paper's claims checked against it."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from privopt.experiments.cell import Cell
from privopt.experiments.sweep import Sweep


@dataclass(frozen=True)
class RunOptions:
    """How to run a figure's sweep: its grid size (``full``) and where (backend, store)."""

    full: bool = False
    backend: str = "joblib"
    n_jobs: int = -1
    client: Any = None
    store: Path | None = None
    progress: bool = True

    def sweep(
        self, name: str, function: Callable[[Cell], Any], grid: Mapping[str, Sequence[Any]], seed: int = 0
    ) -> pd.DataFrame:
        """Run ``function`` over ``grid`` with these options (stored under ``store/name``)."""
        return Sweep(
            function,
            grid,
            seed=seed,
            backend=self.backend,
            n_jobs=self.n_jobs,
            client=self.client,
            store=None if self.store is None else self.store / name,
            progress=self.progress,
            description=name,
        ).run()


def full_from_environment() -> bool:
    """``PRIVOPT_FULL=1`` selects the papers' full grids (notebooks and ``privopt reproduce``)."""
    return os.environ.get("PRIVOPT_FULL") == "1"


@dataclass(frozen=True)
class ClaimCheck:
    """One of a paper's claims beside what privopt found.

    ``reproduced`` is the verdict; ``observed`` states privopt's numbers, ``note`` explains a claim that
    does not reproduce (or how the comparison was made).
    """

    claim: str
    observed: str
    reproduced: bool
    note: str = ""

    def sentence(self) -> str:
        verdict = "REPRODUCED" if self.reproduced else "NOT REPRODUCED"
        text = f"[{verdict}] Paper: {self.claim}\n    privopt: {self.observed}"
        return text + (f"\n    note: {self.note}" if self.note else "")


def checks_frame(checks: Sequence[ClaimCheck]) -> pd.DataFrame:
    """The checks as a table (claim, observed, reproduced, note)."""
    return pd.DataFrame(
        [vars(check) for check in checks], columns=["claim", "observed", "reproduced", "note"]
    )


@dataclass(frozen=True)
class FigureExperiment:
    """A paper figure: ``run`` its sweep, ``plot`` the table, ``check`` the paper's claims on it.

    ``grid`` describes the reduced and the full grid in words (the reduced one runs in CI).
    """

    name: str
    source: str
    title: str
    claim: str
    grid: str
    run: Callable[[RunOptions], pd.DataFrame] = field(repr=False)
    plot: Callable[[pd.DataFrame], Figure] = field(repr=False)
    check: Callable[[pd.DataFrame], list[ClaimCheck]] = field(repr=False)
    needs_adult: bool = False
