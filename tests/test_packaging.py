"""The wheel lists every sub-package: a package missing from pyproject.toml imports in a checkout
but not from an installed wheel."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    dirs = {name: ROOT / path for name, path in config["package-dir"].items()}
    found = set()
    for name, root in dirs.items():
        for init in root.rglob("__init__.py"):
            relative = init.parent.relative_to(root).parts
            found.add(".".join((name, *relative)))
    assert found == listed
