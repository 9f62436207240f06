"""Privacy definitions: each compiles to linear-ratio constraints on the mechanism's columns."""

from privopt.compiler.ratio_pairs import RatioPairs
from privopt.data.terms import PairLabel, Term
from privopt.definitions.base import PrivacyDefinition
from privopt.definitions.ldp import LDP
from privopt.definitions.lip import LIP
from privopt.definitions.pml import PML
from privopt.definitions.pufferfish import Pufferfish
from privopt.definitions.ratio_constraints import RatioConstraints, RatioPair
from privopt.definitions.sensitive_ldp import SensitiveLDP
from privopt.definitions.srlip import SRLIP, SRLIPComponent

__all__ = [
    "LDP",
    "LIP",
    "PML",
    "SRLIP",
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
