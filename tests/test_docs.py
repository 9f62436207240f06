"""The code in README.md and docs/ runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: Pages whose examples start worker processes (a sweep on a Dask LocalCluster): run with the slow
#: tests, as a script in a fresh interpreter — the workers import it, as they would a reader's script.
SCRIPT_PAGES = {"how-to-sweep.md"}


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_toml_blocks_parse(page):
    for block in re.findall(r"```toml\n(.*?)```", page.read_text(), flags=re.S):
        tomllib.loads(block)


@pytest.mark.parametrize(
    "page",
    [pytest.param(page, marks=pytest.mark.slow) if page.name in SCRIPT_PAGES else page for page in PAGES],
    ids=lambda p: p.name,
)
def test_python_blocks_run(page, tmp_path, monkeypatch):
    # In a folder of their own: a snippet that writes a file (how-to-curve's figure.savefig) must not
    # leave it in the repository.
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(page)
    if page.name in SCRIPT_PAGES:
        script = tmp_path / "page.py"
        script.write_text("\n".join(blocks))
        run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr[-3000:]
        assert "True" in run.stdout  # the comparisons the page prints
        assert "False" not in run.stdout
        return
    namespace: dict[str, object] = {"__name__": "__main__"}  # as in a script or a notebook
    for block in blocks:
        exec(compile(block, str(page), "exec"), namespace)
