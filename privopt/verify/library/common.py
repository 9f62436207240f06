"""Helpers shared by the claim modules: symbols, random data, comparisons with privopt's code."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from privopt.tolerances import VERIFY_FLOAT_RTOL
from privopt.verify.claims import LibraryCheck
from privopt.verify.statements import Discrepancy
from privopt.verify.verdicts import Attempt

#: Random points of a comparison with privopt's implementation (it is a cross-check, not a search).
LIBRARY_POINTS = 25


def sym(name: str) -> sp.Symbol:
    """A plain real symbol, as claims are written (the checkers add the assumptions)."""
    return sp.Symbol(name, real=True)


def syms(names: str) -> tuple[sp.Symbol, ...]:
    """Several plain real symbols (space-separated names)."""
    return tuple(sym(name) for name in names.split())


class Missing(Exception):
    """A privopt function that a comparison needs is not available (yet)."""


def optional(module: str, name: str) -> Callable[..., Any]:
    """``module.name`` if privopt has it, else :class:`Missing` (the comparison is then skipped)."""
    try:
        found = importlib.import_module(module)
    except ImportError as exc:
        raise Missing(f"{module} is not available in this version of privopt") from exc
    function = getattr(found, name, None)
    if function is None:
        raise Missing(f"{module}.{name} is not available in this version of privopt")
    return function


def relative(a: float, b: float) -> float:
    """``|a − b| / max(1, |a|, |b|)`` (0 when both are the same infinity)."""
    if a == b:
        return 0.0
    return float(abs(a - b) / max(1.0, abs(a), abs(b)))


def close(a: float, b: float, what: str, rtol: float = VERIFY_FLOAT_RTOL) -> Discrepancy:
    return Discrepancy(relative(a, b), rtol, f"{what}: {a:.12g} vs {b:.12g}")


Comparison = Callable[[np.random.Generator], Discrepancy | None]


def library_check(*comparisons: tuple[str, Comparison]) -> LibraryCheck:
    """Comparisons ``(what, compare)`` with privopt's implementation at random points.

    Each ``compare(rng)`` draws its own point and returns a :class:`Discrepancy` (or ``None`` to skip).
    A comparison needing a function privopt lacks raises :class:`Missing` and is skipped with a note.
    The outcome is ``"disagrees"`` if any comparison disagrees, ``"agrees"`` if at least one agrees and
    none disagrees, ``"skipped"`` if all were skipped.
    """

    def run(rng: np.random.Generator, points: int) -> Attempt:
        start = time.perf_counter()
        notes, outcomes = [], []
        for what, compare in comparisons:
            count, worst = 0, 0.0
            try:
                for _ in range(min(points, LIBRARY_POINTS)):
                    d = compare(rng)
                    if d is None:
                        continue
                    count += 1
                    if not d.holds:
                        return Attempt(
                            "library", "disagrees", time.perf_counter() - start, f"{what}: {d.detail}"
                        )
                    worst = max(worst, d.size)
            except Missing as exc:
                outcomes.append("skipped")
                notes.append(f"{what}: skipped — {exc}")
                continue
            outcomes.append("agrees")
            notes.append(
                f"{what}: agrees at {count} random point(s) (largest relative difference {worst:.2g})"
            )
        outcome = "agrees" if "agrees" in outcomes else "skipped"
        return Attempt("library", outcome, time.perf_counter() - start, "; ".join(notes))

    return run


def rational_distribution(
    rng: np.random.Generator, n: int, alpha: float = 1.0, denominator: int = 1000
) -> list[Fraction]:
    """A random distribution with rational entries ``k / denominator``, all positive."""
    weights = rng.dirichlet(np.full(n, alpha))
    counts = np.maximum(1, np.round(weights * (denominator - n)).astype(int))
    counts[np.argmax(counts)] += denominator - int(counts.sum())
    return [Fraction(int(c), denominator) for c in counts]


def random_distribution(
    rng: np.random.Generator, n: int, alpha: float = 1.0, floor: float = 1e-3
) -> np.ndarray:
    """A Dirichlet(alpha) distribution with entries at least ``floor`` (renormalised)."""
    p = np.maximum(rng.dirichlet(np.full(n, alpha)), floor)
    return p / p.sum()
