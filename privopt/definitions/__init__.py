"""Privacy definitions: each declares ratio pairs that the compiler turns into a row cone."""

from privopt.compiler.ratio_pairs import RatioPair, RatioPairs
from privopt.data.terms import PairLabel, Term
from privopt.definitions.base import PrivacyDefinition
from privopt.definitions.ldp import LDP
from privopt.definitions.lip import LIP
from privopt.definitions.metric import MetricLDP
from privopt.definitions.pml import PML
from privopt.definitions.pufferfish import Pufferfish
from privopt.definitions.ratio_constraints import RatioConstraints
from privopt.definitions.sensitive_ldp import SensitiveLDP
from privopt.definitions.srlip import SRLIP, SRLIPComponent

__all__ = [
    "LDP",
    "LIP",
    "PML",
    "SRLIP",
    "MetricLDP",
    "PairLabel",
    "PrivacyDefinition",
    "Pufferfish",
    "RatioConstraints",
    "RatioPair",
    "RatioPairs",
    "SRLIPComponent",
    "SensitiveLDP",
    "Term",
]
