"""Uncertainty sets of distributions (DESIGN.md §4)."""

from privopt.sets.base import UncertaintySet
from privopt.sets.finite import FiniteSet, Point
from privopt.sets.simplex import Simplex

__all__ = ["FiniteSet", "Point", "Simplex", "UncertaintySet"]
