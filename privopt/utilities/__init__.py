"""Utilities of a mechanism: sub-convex ones (vertex and column-generation routes) and concave ones
(the cvxpy route)."""

from privopt.utilities.concave import (
    AffinePieces,
    ConcaveUtility,
    ExpectedDistortion,
    ExpectedGain,
    as_utility,
)
from privopt.utilities.subconvex import (
    EntropyForm,
    FDivergence,
    MutualInformation,
    NormalizedMutualInformation,
    PerspectiveForm,
    PowerForm,
    SibsonMutualInformation,
    SubConvexUtility,
)

__all__ = [
    "AffinePieces",
    "ConcaveUtility",
    "EntropyForm",
    "ExpectedDistortion",
    "ExpectedGain",
    "FDivergence",
    "MutualInformation",
    "NormalizedMutualInformation",
    "PerspectiveForm",
    "PowerForm",
    "SibsonMutualInformation",
    "SubConvexUtility",
    "as_utility",
]
