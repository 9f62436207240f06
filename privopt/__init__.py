"""privopt: design and verify local privacy mechanisms on finite alphabets.

The public API (DESIGN.md §7)::

    import privopt as po
    P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]])   # rows: s, columns: u
    W = po.mechanisms.srr(2, 2, eps)                          # secret randomized response
    po.MutualInformation(P).value(W)                          # I_P(X;Y) in nats
    po.audit(W, po.SensitiveLDP(eps, po.Simplex((2, 2))))     # realized ε, pass/fail, witness
"""

from privopt import datasets, mechanisms, statistics
from privopt.audit import AuditReport, Witness, audit
from privopt.definitions import (
    LDP,
    LIP,
    PML,
    SRLIP,
    PrivacyDefinition,
    Pufferfish,
    RatioConstraints,
    RatioPair,
    RatioPairs,
    SensitiveLDP,
)
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
from privopt.problem import Certificate, Problem, Solution
from privopt.robust_audit import realized_eps
from privopt.serialization import from_json, load, save, to_json
from privopt.sets import (
    ConditionalBounds,
    FiniteSet,
    L1Ball,
    Point,
    Polytope,
    RenyiBall,
    Simplex,
    UncertaintySet,
)
from privopt.statistics import given, joint, marginal, weights
from privopt.utilities import (
    ConcaveUtility,
    ExpectedDistortion,
    ExpectedGain,
    FDivergence,
    MutualInformation,
    NormalizedMutualInformation,
    SibsonMutualInformation,
    SubConvexUtility,
)

__version__ = "0.1.0"

__all__ = [
    "LDP",
    "LIP",
    "PML",
    "SRLIP",
    "AuditReport",
    "Certificate",
    "ConcaveUtility",
    "ConditionalBounds",
    "ExpectedDistortion",
    "ExpectedGain",
    "FDivergence",
    "FiniteSet",
    "InfeasibleError",
    "JointDistribution",
    "L1Ball",
    "LimitError",
    "Mechanism",
    "MutualInformation",
    "NormalizedMutualInformation",
    "NotSupportedError",
    "Point",
    "Polytope",
    "PrivacyDefinition",
    "PrivoptError",
    "Problem",
    "Pufferfish",
    "RatioConstraints",
    "RatioPair",
    "RatioPairs",
    "RenyiBall",
    "SensitiveLDP",
    "ShapeError",
    "SibsonMutualInformation",
    "Simplex",
    "Solution",
    "SolverError",
    "SubConvexUtility",
    "UncertaintySet",
    "ValidationError",
    "Witness",
    "audit",
    "datasets",
    "entropy",
    "from_json",
    "given",
    "joint",
    "load",
    "marginal",
    "mechanisms",
    "mutual_information",
    "realized_eps",
    "save",
    "statistics",
    "to_json",
    "weights",
]

from privopt import pml_accounting
from privopt.compare import compare

__all__ += ["compare", "pml_accounting"]

from privopt import verify  # noqa: E402  (after the __all__ extension above)

__all__ += ["verify"]
