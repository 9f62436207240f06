"""A-priori size of a vertex enumeration: McMullen's upper bound theorem.

A ``d``-dimensional polytope with ``m`` facets has at most

    C(m − ⌈d/2⌉, ⌊d/2⌋) + C(m − ⌊d/2⌋ − 1, ⌈d/2⌉ − 1)

vertices (McMullen 1970, the dual of the cyclic polytope). It is the only bound that holds for every
input, so the compiler refuses enumerations whose bound exceeds a limit. The bound is loose for the
row cones of the papers (the Entropy paper's 2×2 example has 16 vertices against a bound of 28;
measured counts in docs/compiler.md are 10³–10⁴ where the bound says 10⁵–10¹¹), so the default limit
is set from measured run times, not from the bound's face value.

The bound is computed through its logarithm (``lgamma``), so that it never overflows and costs the
same for a 200 × 200 problem (a bound near 10^20000) as for a 2 × 2 one; it is computed exactly, as
an integer, only when it has at most :data:`EXACT_DIGITS` digits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from math import ceil, comb, floor

#: Default refusal threshold on the bound. With pplpy on a 2-core machine, cones whose bound is
#: below this (PolyOpt up to 3×4 and 2×6) enumerate in seconds; 2×8 (bound 2.9e11) did not finish in
#: 40 minutes (measured, ε = 0.5), where column generation takes 11 s.
DEFAULT_VERTEX_LIMIT = 10**9

#: Bounds with at most this many decimal digits are also computed exactly (as Python integers);
#: larger ones only through their logarithm.
EXACT_DIGITS = 300


def mcmullen_bound(dimension: int, facets: int) -> int:
    """Maximum number of vertices of a ``dimension``-polytope with ``facets`` facets (exact).

    Exact integers of very large bounds are slow to build; :func:`log10_mcmullen_bound` is not.
    """
    d, m = dimension, facets
    if d <= 0:
        return 1
    if m <= d:
        return 0  # not a bounded d-polytope
    return comb(m - ceil(d / 2), floor(d / 2)) + comb(m - floor(d / 2) - 1, ceil(d / 2) - 1)


def _log10_comb(n: int, k: int) -> float:
    if k < 0 or k > n:
        return -math.inf
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(10)


def log10_mcmullen_bound(dimension: int, facets: int) -> float:
    """``log10`` of :func:`mcmullen_bound` (``-inf`` when the bound is 0), without big integers."""
    d, m = dimension, facets
    if d <= 0:
        return 0.0
    if m <= d:
        return -math.inf
    first = _log10_comb(m - ceil(d / 2), floor(d / 2))
    second = _log10_comb(m - floor(d / 2) - 1, ceil(d / 2) - 1)
    high, low = max(first, second), min(first, second)
    return high + math.log10(1.0 + 10.0 ** (low - high)) if low > -math.inf else high


def format_log10(log10_count: float) -> str:
    """A count given by its ``log10``, to three significant digits (``1.23e+05``, ``about 10^412``)."""
    if log10_count == -math.inf:
        return "0"
    if log10_count < 300:
        return f"{10.0**log10_count:.3g}"
    return f"about 10^{floor(log10_count)}"


def format_count(count: float) -> str:
    """``count`` to three significant digits, also beyond the float range (``about 10^412``)."""
    if count == math.inf:
        return "more than 10^300"
    if count <= 0:
        return "0"
    return format_log10(math.log10(count))  # exact for big integers: no conversion to float or str


@dataclass(frozen=True)
class VertexEstimate:
    """McMullen's bound for a normalised cone slice ``{w >= 0, G w <= 0, Σ w = 1}``.

    Attributes
    ----------
    dimension, inequalities:
        ``d = |X| − 1`` and ``m`` = cone rows + ``|X|`` (the rows ``w >= 0``).
    log10_bound:
        ``log10`` of the bound (``-inf`` when it is 0); finite for every size.
    """

    dimension: int
    inequalities: int
    log10_bound: float

    @classmethod
    def for_slice(cls, n_inputs: int, cone_rows: int) -> VertexEstimate:
        dimension = n_inputs - 1
        inequalities = cone_rows + n_inputs  # plus w >= 0
        return cls(dimension, inequalities, log10_mcmullen_bound(dimension, inequalities))

    @cached_property
    def bound(self) -> int | float:
        """The bound as an exact integer when it has at most :data:`EXACT_DIGITS` digits, else
        ``math.inf`` (compare with limits freely; print :attr:`bound_text`)."""
        if self.log10_bound > EXACT_DIGITS:
            return math.inf
        return mcmullen_bound(self.dimension, self.inequalities)

    @property
    def bound_text(self) -> str:
        """The bound to three significant digits (``2.9e+11``, ``about 10^19432``)."""
        return format_log10(self.log10_bound)

    def __str__(self) -> str:
        return f"at most {self.bound_text} vertices (McMullen; dimension {self.dimension}, {self.inequalities} inequalities)"
