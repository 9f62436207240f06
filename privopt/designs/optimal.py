"""Named optimal mechanisms: PolyOpt, the non-robust NR, and the optimum for any definition."""

from __future__ import annotations

from typing import Any

from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.data.mechanism import Mechanism
from privopt.definitions.base import PrivacyDefinition
from privopt.definitions.sensitive_ldp import SensitiveLDP
from privopt.problem import Problem, Solution
from privopt.sets.renyi import RenyiBall
from privopt.utilities import ConcaveUtility, MutualInformation, SubConvexUtility


def optimal(
    definition: PrivacyDefinition, utility: SubConvexUtility | ConcaveUtility, **options: Any
) -> Solution:
    """The optimal mechanism for ``definition`` and ``utility`` (``Problem(...).solve()``)."""
    return Problem(definition, utility, **options).solve()


def polyopt(
    F: RenyiBall,
    eps: float,
    utility: SubConvexUtility | None = None,
    *,
    self_pairs: bool = True,
    **options: Any,
) -> Mechanism:
    """PolyOpt (Entropy paper §5, ISIT paper §III): optimal over the Γ cone of Definition 3.

    Paper-faithful by default: the ``"lower"`` envelope ``D_s = {R >= L_s}`` and the ``s1 = s2`` pairs
    kept. ``self_pairs=False`` drops those vacuous pairs (same guarantee, more utility). The utility
    defaults to ``I_P̂(X;Y)``.
    """
    utility = utility or MutualInformation(F.center)
    return Problem(SensitiveLDP(eps, F), utility, self_pairs=self_pairs, **options).solve().mechanism


def nr(
    P: JointDistribution,
    eps: float,
    utility: SubConvexUtility | None = None,
    on: InputAlphabet = "x",
    **options: Any,
) -> Mechanism:
    """NR, the non-robust optimum (Entropy paper §8): ε-LDP w.r.t. S at the point ``P`` only."""
    utility = utility or MutualInformation(P, on=on)
    return Problem(SensitiveLDP(eps, P, on=on), utility, **options).solve().mechanism
