"""The RLDP mechanisms of the ISIT and Entropy papers by name, for one χ² set and one ε.

=================  ====================================================================
``polyopt``        PolyOpt as published: lower envelope, ``s1 = s2`` pairs kept (Entropy §5)
``polyopt-noself`` PolyOpt without the vacuous ``s1 = s2`` pairs (same guarantee)
``polyopt-box``    PolyOpt with the ``"box"`` envelope (upper bounds too: a smaller D_s)
``nr``             the non-robust optimum at the point P̂ (Entropy §8)
``ir`` / ``cr``    the best independent / conditional reporting split (Entropy §7, ISIT §IV)
``srr`` / ``grr``  secret randomized response (Entropy Def. 4) / GRR on X (ISIT eq. 10)
=================  ====================================================================

IR and CR are built with ``verify_audit=False``: their guarantee is the papers' Theorems (5 and 3),
and the audit over a Rényi ball costs more than the design; the compiler's mechanisms are audited by
``Problem.solve`` as always.
"""

from __future__ import annotations

from collections.abc import Callable

from privopt.data.distribution import JointDistribution
from privopt.data.information import entropy, mutual_information
from privopt.data.mechanism import Mechanism
from privopt.definitions.sensitive_ldp import SensitiveLDP
from privopt.errors import ValidationError
from privopt.mechanisms import conditional_reporting, grr, independent_reporting, srr
from privopt.problem import Problem
from privopt.sets.renyi import RenyiBall
from privopt.utilities import MutualInformation

#: Seconds allowed to one vertex enumeration inside a sweep cell (a slower one is a failed cell).
CELL_TIMEOUT = 120.0


def _polyopt(F: RenyiBall, eps: float, *, self_pairs: bool = True, envelope: str = "lower") -> Mechanism:
    problem = Problem(
        SensitiveLDP(eps, F),
        MutualInformation(F.center),
        self_pairs=self_pairs,
        envelope=envelope,
        time_limit=CELL_TIMEOUT,
    )
    return problem.solve(route="vertex").mechanism


def _nr(P: JointDistribution, eps: float) -> Mechanism:
    problem = Problem(SensitiveLDP(eps, P), MutualInformation(P), time_limit=CELL_TIMEOUT)
    return problem.solve(route="vertex").mechanism


BUILDERS: dict[str, Callable[[RenyiBall, float], Mechanism]] = {
    "polyopt": lambda F, eps: _polyopt(F, eps),
    "polyopt-noself": lambda F, eps: _polyopt(F, eps, self_pairs=False),
    "polyopt-box": lambda F, eps: _polyopt(F, eps, envelope="box"),
    "nr": lambda F, eps: _nr(F.center, eps),
    "ir": lambda F, eps: independent_reporting(F, eps, verify_audit=False).mechanism,
    "cr": lambda F, eps: conditional_reporting(F, eps, verify_audit=False).mechanism,
    "srr": lambda F, eps: srr(F.center.n_s, F.center.n_u, eps),
    "grr": lambda F, eps: grr(F.center.n_x, eps),
}


def rldp_mechanism(name: str, F: RenyiBall, eps: float) -> Mechanism:
    """The mechanism ``name`` (see the module docstring) for ``(ε, F)``-RLDP."""
    if name not in BUILDERS:
        raise ValidationError("mechanism", f"one of {', '.join(BUILDERS)}", repr(name))
    return BUILDERS[name](F, eps)


def parse_shape(text: str) -> tuple[int, int]:
    """``"3x5"`` → ``(3, 5)``: grid values are plain strings, so that they survive a parquet round trip."""
    n_s, n_u = text.split("x")
    return int(n_s), int(n_u)


def nmi(P: JointDistribution, mechanism: Mechanism) -> float:
    """``I_P(X;Y) / H_P(X)``, the papers' normalised mutual information (NMI)."""
    return mutual_information(P.p_x, mechanism.matrix) / entropy(P.p_x)
