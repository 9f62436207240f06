"""Every notebook in notebooks/ runs top to bottom in its reduced (CI) mode (marked slow: about six
minutes in all, so CI runs them after the default suite, which stays under ten minutes).

Notebooks read ``PRIVOPT_FULL=1`` to switch to the papers' full grids; CI leaves it unset. Those whose
code reads the Adult data are skipped (like the tests marked ``data``) when the files are not found.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from privopt.experiments.figures.adult import adult_available

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    if "adult" in code.lower() and not adult_available():
        pytest.skip("needs the UCI Adult files (set PRIVOPT_ADULT)")
    env_full = os.environ.pop("PRIVOPT_FULL", None)
    try:
        NotebookClient(
            notebook, timeout=1200, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        ).execute()
    finally:
        if env_full is not None:
            os.environ["PRIVOPT_FULL"] = env_full


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_in_sync_with_its_python_twin(path: Path) -> None:
    """The jupytext pair (``.py`` percent script and ``.ipynb``) holds the same cells."""
    import jupytext

    twin = path.with_suffix(".py")
    assert twin.is_file(), f"{path.name} has no paired {twin.name} (jupytext --set-formats ipynb,py:percent)"
    cells = [(c.cell_type, c.source.strip()) for c in nbformat.read(path, as_version=4).cells]
    twin_cells = [(c.cell_type, c.source.strip()) for c in jupytext.read(twin).cells]
    assert cells == twin_cells, f"{path.name} and {twin.name} differ: run jupytext --sync {twin}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_with_its_outputs(path: Path) -> None:
    """The site shows the stored outputs: every code cell ran, once, top to bottom (`make notebooks`)."""
    cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    counts = [cell.execution_count for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), f"{path.name}: run `make notebooks` ({counts})"
