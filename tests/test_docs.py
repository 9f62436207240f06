"""The code in README.md and docs/ runs as written."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: Pages whose examples take more than ~10 s (a sweep with its workers): run with the slow tests.
SLOW_PAGES = {"how-to-sweep.md"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_toml_blocks_parse(page):
    for block in re.findall(r"```toml\n(.*?)```", page.read_text(), flags=re.S):
        tomllib.loads(block)


@pytest.mark.parametrize(
    "page",
    [pytest.param(page, marks=pytest.mark.slow) if page.name in SLOW_PAGES else page for page in PAGES],
    ids=lambda p: p.name,
)
def test_python_blocks_run(page, tmp_path, monkeypatch):
    # In a folder of their own: a snippet that writes a file (how-to-curve's figure.savefig) must not
    # leave it in the repository.
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(page), "exec"), namespace)
