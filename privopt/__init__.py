"""privopt: design and verify local privacy mechanisms on finite alphabets.

The public API (docs/getting-started.md)::

    import privopt as po
    P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]])   # rows: s, columns: u
    W = po.mechanisms.srr(2, 2, eps)                          # secret randomized response
    po.MutualInformation(P).value(W)                          # I_P(X;Y) in nats
    po.audit(W, po.SensitiveLDP(eps, po.Simplex((2, 2))))     # realized ε, pass/fail, witness
"""

from privopt import mechanisms
from privopt._version import __version__ as __version__
from privopt.app.serialization import from_json, load, save, to_json
from privopt.audit import AuditReport, Witness, audit
from privopt.audit.exact import realized_eps
from privopt.certificates import CertificateCheck
from privopt.data import datasets, statistics
from privopt.data.distribution import JointDistribution
from privopt.data.grid import Grid
from privopt.data.information import entropy, mutual_information
from privopt.data.mechanism import Mechanism
from privopt.data.statistics import given, joint, marginal, weights
from privopt.definitions import (
    LDP,
    LIP,
    PML,
    SRLIP,
    MetricLDP,
    PrivacyDefinition,
    Pufferfish,
    RatioConstraints,
    RatioPair,
    RatioPairs,
    SensitiveLDP,
)
from privopt.errors import (
    CallableError,
    InfeasibleError,
    LimitError,
    NotSupportedError,
    PrivoptError,
    ShapeError,
    SolverError,
    ValidationError,
)
from privopt.problem import Certificate, Problem, Solution, SolveStats, Status, check_certificate
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

__all__ = [
    "LDP",
    "LIP",
    "PML",
    "SRLIP",
    "AuditReport",
    "CallableError",
    "Certificate",
    "CertificateCheck",
    "ConcaveUtility",
    "ConditionalBounds",
    "ExpectedDistortion",
    "ExpectedGain",
    "FDivergence",
    "FiniteSet",
    "Grid",
    "InfeasibleError",
    "JointDistribution",
    "L1Ball",
    "LimitError",
    "Mechanism",
    "MetricLDP",
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
    "SolveStats",
    "SolverError",
    "Status",
    "SubConvexUtility",
    "UncertaintySet",
    "ValidationError",
    "Witness",
    "audit",
    "check_certificate",
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

from privopt import designs
from privopt.app.spec_writer import problem_to_spec
from privopt.designs import compare
from privopt.mechanisms import pml_accounting
from privopt.problem.problem import register_spec_writer

__all__ += ["compare", "designs", "pml_accounting"]

register_spec_writer(problem_to_spec)

mechanisms.DEPRECATED.update(
    {
        name: (f"privopt.designs.{name}", getattr(designs, name))
        for name in ("nr", "optimal", "polyopt", "srlip_product")
    }
)

from privopt import verify  # noqa: E402  (after the __all__ extension above)

__all__ += ["verify"]

# Audits of an implementation from its reports (docs/sample-audits.md).
from privopt.audit import (  # noqa: E402
    ConformanceReport,
    SampleAuditReport,
    SampleWitness,
    audit_sampler,
    audit_samples,
    clients,
    conformance,
    samples_needed,
)

__all__ += [
    "ConformanceReport",
    "SampleAuditReport",
    "SampleWitness",
    "audit_sampler",
    "audit_samples",
    "clients",
    "conformance",
    "samples_needed",
]
