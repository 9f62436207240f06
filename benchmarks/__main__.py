"""Run the benchmark modules: ``python -m benchmarks [bench_NAME ...] [--quick]`` (``make bench``).

Names select modules (all by default); flags such as ``--quick`` are passed on (each module reads
``sys.argv``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main() -> None:
    only = {arg for arg in sys.argv[1:] if not arg.startswith("-")}
    folder = Path(__file__).parent
    for module in sorted(m.name for m in pkgutil.iter_modules([str(folder)]) if m.name.startswith("bench_")):
        if only and module not in only:
            continue
        importlib.import_module(f"benchmarks.{module}").main()


if __name__ == "__main__":
    main()
