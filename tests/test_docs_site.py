"""The documentation site a researcher reads: the whole public API, no raw Sphinx roles, notebooks with
their outputs, no placeholder links. The site is built once (``mkdocs build --strict``, ~10 s)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import privopt as po

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "docs" / "reference"
#: A Sphinx cross-reference role as it would show on a page: :class:`X` or :class:<code>X</code>.
RAW_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|data|mod|attr|exc|obj|const):(?:`|<code>)")
DIRECTIVE = re.compile(r"^::: (privopt(?:\.\w+)*)\s*$", flags=re.M)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
        cwd=REPO,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    return folder


def _pages(site: Path) -> dict[Path, str]:
    return {path: path.read_text() for path in site.rglob("*.html")}


def test_the_reference_documents_every_public_name():
    documented = {name for page in REFERENCE.glob("*.md") for name in DIRECTIVE.findall(page.read_text())}
    missing = sorted(name for name in po.__all__ if f"privopt.{name}" not in documented)
    assert not missing, f"not in docs/reference/*.md: {missing}"


@pytest.mark.slow  # builds the site (mkdocs)
def test_every_public_name_is_rendered(site: Path):
    reference = "".join(text for path, text in _pages(site).items() if "reference" in path.parts)
    missing = sorted(name for name in po.__all__ if f'id="privopt.{name}"' not in reference)
    assert not missing, f"no rendered heading for {missing}"


@pytest.mark.slow  # builds the site (mkdocs)
def test_no_page_shows_a_raw_sphinx_role(site: Path):
    raw = {
        str(path.relative_to(site)): RAW_ROLE.findall(text)[:3]
        for path, text in _pages(site).items()
        if RAW_ROLE.search(text)
    }
    assert not raw, f"raw Sphinx roles on {raw}"


def test_roles_become_links_to_documented_objects(site: Path):
    """``:meth:`with_eps``` in PrivacyDefinition's docstring links to the method's entry."""
    page = (site / "reference" / "definitions" / "index.html").read_text()
    assert re.search(
        r'<a class="autorefs autorefs-internal"[^>]*href="#privopt\.PrivacyDefinition\.with_eps"', page
    )


def test_no_placeholder_links(site: Path):
    sources = [REPO / "mkdocs.yml", REPO / "README.md", *(REPO / "docs").rglob("*.md")]
    placeholders = [str(p) for p in sources if "example.invalid" in p.read_text()]
    placeholders += [str(p) for p, text in _pages(site).items() if "example.invalid" in text]
    assert not placeholders


@pytest.mark.parametrize("notebook", sorted((REPO / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebooks_are_shown_with_their_outputs(site: Path, notebook: Path):
    stored = sum(
        len(cell.outputs) for cell in nbformat.read(notebook, as_version=4).cells if cell.cell_type == "code"
    )
    assert stored > 0, f"{notebook.name} has no stored outputs: run `make notebooks`"
    page = (site / "notebooks" / notebook.stem / "index.html").read_text()
    assert page.count('class="jp-OutputArea-child') == stored
