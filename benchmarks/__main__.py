"""Run every benchmark module: ``python -m benchmarks`` (``make bench``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main() -> None:
    only = set(sys.argv[1:])
    folder = Path(__file__).parent
    for module in sorted(m.name for m in pkgutil.iter_modules([str(folder)]) if m.name.startswith("bench_")):
        if only and module not in only:
            continue
        importlib.import_module(f"benchmarks.{module}").main()


if __name__ == "__main__":
    main()
