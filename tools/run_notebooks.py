"""Execute the notebooks in their reduced (CI) mode and store their outputs, for the documentation site.

The site shows each notebook with the outputs stored in its ``.ipynb`` (mkdocs-jupyter does not run
them, so ``make docs`` stays fast); ``make notebooks`` refreshes them after a change. Third-party
banners that say nothing about the result (HiGHS's licence line, tqdm's note about ipywidgets, which
also shows a local path, the kernel's note that it talks over local TCP) are dropped from the stored
streams.

Usage: ``python tools/run_notebooks.py [NAME ...]`` (default: every notebook in ``notebooks/``).
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

#: Lines of third-party noise in the stored streams.
NOISE = re.compile(
    r"^(Running HiGHS .*|Includes third-party software components.*"
    r"|.*TqdmWarning: IProgress not found.*|\s+from \.autonotebook import tqdm as notebook_tqdm"
    r"|\[IPKernelApp\] WARNING \| Kernel is running over TCP without encryption.*)\n?",
    flags=re.M,
)


def _as_shown(text: str) -> str:
    """A stream as a terminal shows it: of each line redrawn with carriage returns (a progress bar),
    the last drawing."""
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


def clean(notebook: nbformat.NotebookNode) -> None:
    """Merge consecutive outputs of one stream, show them as a terminal would, drop the noise lines and
    the streams left empty."""
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        kept: list[nbformat.NotebookNode] = []
        for output in cell.outputs:
            previous = kept[-1] if kept else None
            if (
                output.output_type == "stream"
                and previous is not None
                and previous.output_type == "stream"
                and previous.name == output.name
            ):
                previous.text += output.text
            else:
                kept.append(output)
        for output in kept:
            if output.output_type == "stream":
                output.text = NOISE.sub("", _as_shown(output.text))
        cell.outputs = [o for o in kept if o.output_type != "stream" or o.text.strip()]


def run(path: Path) -> float:
    """Execute one notebook in place (reduced mode); return the seconds it took."""
    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    client = NotebookClient(
        notebook,
        timeout=1200,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    clean(notebook)
    nbformat.write(notebook, path)
    return time.perf_counter() - start


def main(names: list[str]) -> None:
    os.environ.pop("PRIVOPT_FULL", None)  # the reduced grids, as in CI
    paths = [NOTEBOOKS / f"{name.removesuffix('.ipynb')}.ipynb" for name in names] or sorted(
        NOTEBOOKS.glob("*.ipynb")
    )
    for path in paths:
        print(f"{path.name}: {run(path):.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
