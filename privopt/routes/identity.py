"""The identity closed form: when every unit column lies in the cone, releasing the input is optimal.

A sub-convex ``μ`` is sublinear, so every column ``w = Σ_x w_x e_x`` has ``μ(w) <= Σ_x w_x μ(e_x)``;
summed over the columns of any mechanism (rows summing to 1) that is ``Σ_x μ(e_x)``, which the
identity mechanism attains (Entropy paper Thm. 3's LP at the vertices ``e_x``). For mutual information
the value is ``H(X)``. Registered with :func:`~privopt.routes.closed_form.register_closed_form`;
the checker proves the complementary-slackness bound ``λ_x = μ(e_x)`` like any other claim.
"""

from __future__ import annotations

import numpy as np

from privopt.routes.base import ProblemData
from privopt.routes.closed_form import register_closed_form
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray


@register_closed_form
def identity_closed_form(data: ProblemData) -> tuple[FloatArray, str] | None:
    """The identity mechanism when the definition allows releasing the input (every ``e_x`` in the
    cone) and the utility is sub-convex with every ``μ(e_x)`` finite; ``None`` otherwise."""
    if not isinstance(data.utility, SubConvexUtility) or not np.all(data.cone.unit_columns()):
        return None
    if not np.all(np.isfinite(data.utility.mu(np.eye(data.n_inputs)))):
        return None  # an infinite μ(e_x) (KL with a zero in P1): the vertex route names the utility
    return np.eye(data.n_inputs), (
        "the identity mechanism: the definition allows releasing the input (every unit column lies in "
        "the cone), and a sub-convex utility is at most Σ_x μ(e_x) on every mechanism"
    )
