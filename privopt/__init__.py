"""privopt: design and verify local privacy mechanisms on finite alphabets.

The public API (DESIGN.md §7)::

    import privopt as po
    P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]])   # rows: s, columns: u
    W = po.mechanisms.srr(2, 2, eps)                          # secret randomized response
    po.MutualInformation(P).value(W)                          # I_P(X;Y) in nats
    po.audit(W, po.SensitiveLDP(eps, po.Simplex((2, 2))))     # realized ε, pass/fail, witness
"""

from privopt import datasets, mechanisms
from privopt.audit import AuditReport, Witness, audit
from privopt.definitions import LDP, LIP, PML, PrivacyDefinition, RatioPairs, SensitiveLDP
from privopt.distribution import JointDistribution
from privopt.errors import (
    InfeasibleError,
    LimitError,
    NotSupportedError,
    PrivoptError,
    ShapeError,
    SolverError,
    ValidationError,
)
from privopt.information import entropy, mutual_information
from privopt.mechanism import Mechanism
from privopt.sets import FiniteSet, Point, Simplex, UncertaintySet
from privopt.utilities import FDivergence, MutualInformation, NormalizedMutualInformation, SubConvexUtility

__version__ = "0.1.0"

__all__ = [
    "LDP",
    "LIP",
    "PML",
    "AuditReport",
    "FDivergence",
    "FiniteSet",
    "InfeasibleError",
    "JointDistribution",
    "LimitError",
    "Mechanism",
    "MutualInformation",
    "NormalizedMutualInformation",
    "NotSupportedError",
    "Point",
    "PrivacyDefinition",
    "PrivoptError",
    "RatioPairs",
    "SensitiveLDP",
    "ShapeError",
    "Simplex",
    "SolverError",
    "SubConvexUtility",
    "UncertaintySet",
    "ValidationError",
    "Witness",
    "audit",
    "datasets",
    "entropy",
    "mechanisms",
    "mutual_information",
]
