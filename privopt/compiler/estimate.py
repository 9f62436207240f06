"""A-priori size of a vertex enumeration: McMullen's upper bound theorem.

A ``d``-dimensional polytope with ``m`` facets has at most

    C(m − ⌈d/2⌉, ⌊d/2⌋) + C(m − ⌊d/2⌋ − 1, ⌈d/2⌉ − 1)

vertices (McMullen 1970, the dual of the cyclic polytope). It is the only bound that holds for every
input, so the compiler refuses enumerations whose bound exceeds a limit. The bound is loose for the
row cones of the papers (the Entropy paper's 2×2 example has 16 vertices against a bound of 28;
measured counts in DESIGN.md §5b are 10³–10⁴ where the bound says 10⁵–10¹¹), so the default limit is
set from measured run times, not from the bound's face value.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil, comb, floor

#: Default refusal threshold on the bound. With pplpy on a 2-core machine, cones whose bound is
#: below this (PolyOpt up to 3×4 and 2×6) enumerate in seconds; 2×8 (bound 2.9e11) did not finish in
#: 40 minutes (measured, ε = 0.5), where column generation takes 11 s.
DEFAULT_VERTEX_LIMIT = 10**9


def mcmullen_bound(dimension: int, facets: int) -> int:
    """Maximum number of vertices of a ``dimension``-polytope with ``facets`` facets."""
    d, m = dimension, facets
    if d <= 0:
        return 1
    if m <= d:
        return 0  # not a bounded d-polytope
    return comb(m - ceil(d / 2), floor(d / 2)) + comb(m - floor(d / 2) - 1, ceil(d / 2) - 1)


def format_count(count: int) -> str:
    """``count`` to three significant digits, also beyond the float range (``about 10^412``)."""
    if count < 10**300:
        return f"{float(count):.3g}"
    return f"about 10^{len(str(count)) - 1}"


@dataclass(frozen=True)
class VertexEstimate:
    """The bound for a normalised cone slice ``{w >= 0, G w <= 0, Σ w = 1}``."""

    dimension: int
    inequalities: int
    bound: int

    @classmethod
    def for_slice(cls, n_inputs: int, cone_rows: int) -> VertexEstimate:
        dimension = n_inputs - 1
        inequalities = cone_rows + n_inputs  # plus w >= 0
        return cls(dimension, inequalities, mcmullen_bound(dimension, inequalities))

    def __str__(self) -> str:
        return f"at most {format_count(self.bound)} vertices (McMullen; dimension {self.dimension}, {self.inequalities} inequalities)"
