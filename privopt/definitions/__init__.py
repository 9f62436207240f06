"""Privacy definitions: each compiles to linear-ratio constraints on the mechanism's columns."""

from privopt.definitions.base import DistributionalDefinition, PrivacyDefinition
from privopt.definitions.ldp import LDP
from privopt.definitions.lip import LIP
from privopt.definitions.pml import PML
from privopt.definitions.ratio_pairs import PairLabel, RatioPairs, Term
from privopt.definitions.sensitive_ldp import SensitiveLDP

__all__ = [
    "LDP",
    "LIP",
    "PML",
    "DistributionalDefinition",
    "PairLabel",
    "PrivacyDefinition",
    "RatioPairs",
    "SensitiveLDP",
    "Term",
]
