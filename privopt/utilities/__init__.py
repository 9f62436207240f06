"""Utilities of a mechanism: sub-convex ones (vertex and column-generation routes) and concave ones
(the cvxpy route)."""

from privopt.utilities.concave import ConcaveUtility, ExpectedDistortion, ExpectedGain, as_utility
from privopt.utilities.subconvex import (
    FDivergence,
    MutualInformation,
    NormalizedMutualInformation,
    SibsonMutualInformation,
    SubConvexUtility,
)

__all__ = [
    "ConcaveUtility",
    "ExpectedDistortion",
    "ExpectedGain",
    "FDivergence",
    "MutualInformation",
    "NormalizedMutualInformation",
    "SibsonMutualInformation",
    "SubConvexUtility",
    "as_utility",
]
