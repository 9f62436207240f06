"""Uncertainty sets of distributions (docs/concepts.md, "Sets of distributions")."""

from privopt.sets.base import UncertaintySet
from privopt.sets.conditional_bounds import ConditionalBounds
from privopt.sets.finite import FiniteSet, Point
from privopt.sets.l1 import L1Ball, weissman_radius
from privopt.sets.polytope import Polytope
from privopt.sets.renyi import RenyiBall, renyi_divergence
from privopt.sets.simplex import Simplex

__all__ = [
    "ConditionalBounds",
    "FiniteSet",
    "L1Ball",
    "Point",
    "Polytope",
    "RenyiBall",
    "Simplex",
    "UncertaintySet",
    "renyi_divergence",
    "weissman_radius",
]
