"""Numerical back ends for privopt's compiler, shipped as ``privopt.solvers``.

This package knows nothing about privacy: it takes matrices and returns vertices, LP solutions and
conic solutions, so a back end can be swapped without touching ``privopt`` (docs/design.md, "Layers").
"""

from .errors import BackendError, BackendTimeout
from .lp import LPResult, solve_lp
from .progress import Progress, progress_disabled, progress_verbose
from .vertex_enumeration import BACKENDS, polytope_vertices

__all__ = [
    "BACKENDS",
    "BackendError",
    "BackendTimeout",
    "LPResult",
    "Progress",
    "polytope_vertices",
    "progress_disabled",
    "progress_verbose",
    "solve_lp",
]
