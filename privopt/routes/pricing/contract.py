"""The pricing contract: what a certifying pricer is, what it says of itself, and the registry that picks one.

Column generation's certified bound (docs/compiler.md §3, "Upper bound") needs, at duals ``λ``, a proved
``δ̄ >= max {μ(w) − λᵀw : w ∈ K, νᵀw = 1}``. A *pricer* is any object with the :class:`CertifiedPricer`
protocol: ``price(λ, ...)`` returns a :class:`PricingOutcome` whose ``upper`` is such a ``δ̄`` (proved, to
the requested tolerance or as far as its budget reached) and whose columns are the best it met;
``traits`` (:class:`PricerTraits`) say how the run should treat it. Which pricer a problem gets is
decided by the registry, like cvxpy's solvers registered by name: each :class:`PricerEntry` has a
``build(utility, cone)`` that recognises what it needs (the cone's structure, the utility's
capabilities) and returns a pricer or a :class:`Refusal`, a priority, and the name of the checker method
(:mod:`privopt.certificates.methods`) that proves its claims independently. :func:`certified_pricer`
tries the entries by priority. A user registers a pricer of their own with :func:`register_pricer`
(docs/custom-definitions.md, "Your own pricer").
"""

from __future__ import annotations

import contextlib
import enum
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from privopt.compiler.cone import RowCone
from privopt.errors import ValidationError
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray


@dataclass(frozen=True)
class PricedColumn:
    """A column met by a pricing (``Σw = 1``) and its reduced cost ``(μ(w) − λᵀw)/νᵀw``."""

    column: FloatArray
    ratio: float


@dataclass(frozen=True)
class PricingOutcome:
    """``upper >= δ(λ) >= lower`` (in the utility's units), the best columns met, and the search size:
    ``nodes`` and ``point_nodes`` of its search, whether it closed to ``tolerance`` (``complete``; else
    a budget stopped it and ``upper`` is still proved) and its wall time."""

    upper: float
    lower: float
    columns: tuple[PricedColumn, ...]
    nodes: int
    point_nodes: int
    complete: bool
    tolerance: float
    seconds: float


@dataclass(frozen=True)
class PricingRequest:
    """What one pricing is asked for: ``δ̄`` to within ``tolerance`` (absolute), stopping early once
    ``δ̄ <= target`` (a re-check of a claimed bound needs no more), once ``δ̄ <= (1 + slack)·δ_found +
    tolerance`` (a looser bound is enough while the columns found improve the master a lot), as soon as a
    column of reduced cost ``>= ceiling`` is met (the caller only needs to know ``δ`` is that large), at
    ``deadline`` (a ``time.perf_counter`` value) or after ``max_nodes`` nodes of its search (``None``: the
    pricer's own budget); at most ``max_columns`` columns come back. Every stop leaves ``δ̄`` valid."""

    tolerance: float
    target: float = -np.inf
    slack: float = 0.0
    deadline: float | None = None
    max_nodes: int | None = None
    max_columns: int = 16
    ceiling: float = np.inf

    def closed(self, bound: float, found: float) -> bool:
        """Whether a search may stop with ``bound`` left against the best reduced cost ``found``: the
        bound is at most ``target``, or within ``tolerance`` and ``slack`` of ``found``."""
        return bound <= max(self.target, found + self.tolerance + self.slack * max(found, 0.0))

    def __post_init__(self) -> None:
        if (
            not self.tolerance >= 0.0
            or self.max_columns < 1
            or (self.max_nodes is not None and self.max_nodes < 1)
        ):
            raise ValidationError(
                "request", "tolerance >= 0, max_columns >= 1 and max_nodes >= 1 (or None)", repr(self)
            )


@dataclass(frozen=True)
class PricerTraits:
    """What a pricer says of itself, read by certified column generation instead of probing classes.

    method:
        How its ``δ̄`` is proved (the certificate's ``method``).
    normalisation:
        The slice ``νᵀw = 1`` it prices: ``"prior"`` (``ν = p``), ``"mixture"`` (``ν = (P0 + P1)/2``) or
        ``"sum"`` (``ν = 1``).
    exact_every_round:
        Whether each pricing closes its search (a round whose columns improve nothing then proves the
        optimum), rather than stopping at a node budget.
    nodes_per_unit:
        Its search nodes per unit of the run's node budget (searches of different pricers differ in cost).
    gap_share:
        The share of the run's gap tolerance its stopping test uses (pricers whose bound carries its own
        slack stop earlier).
    check_ratio:
        The independent checker's time on its certificates, as a multiple of its own pricing time (the
        run reserves it before the deadline).
    preferred_to_enumeration:
        Whether ``route="auto"`` may take certified column generation with this pricer instead of a vertex
        enumeration predicted to be slow (``False`` for a pricer whose searches need not close, such as
        the global one: there the enumeration, exact, keeps the cones it can do).
    """

    method: str
    normalisation: str
    exact_every_round: bool = False
    nodes_per_unit: int = 1
    gap_share: float = 1.0
    check_ratio: float = 1.0
    preferred_to_enumeration: bool = True

    def __post_init__(self) -> None:
        if self.normalisation not in ("prior", "mixture", "sum"):
            raise ValidationError("normalisation", "'prior', 'mixture' or 'sum'", repr(self.normalisation))
        if self.nodes_per_unit < 1 or not 0.0 < self.gap_share <= 1.0 or not self.check_ratio > 0.0:
            raise ValidationError(
                "traits", "nodes_per_unit >= 1, 0 < gap_share <= 1 and check_ratio > 0", repr(self)
            )


class CertifiedPricer(Protocol):
    """A pricer certified column generation can use (module docstring)."""

    @property
    def traits(self) -> PricerTraits:
        """What the pricer says of itself (:class:`PricerTraits`)."""
        ...

    @property
    def weights(self) -> FloatArray:
        """``ν`` of the slice it prices (one per input)."""
        ...

    def price(self, duals: FloatArray, request: PricingRequest) -> PricingOutcome:
        """``δ̄`` at ``duals`` as ``request`` asks (:class:`PricingRequest`)."""
        ...

    def prior_free_duals(self) -> list[FloatArray]:
        """Duals whose bound holds for every prior (priced once at the start; none for most pricers)."""
        ...

    def session(self, workers: int) -> contextlib.AbstractContextManager[CertifiedPricer]:
        """The pricer to use for one run (set up on entry, torn down on exit), on up to ``workers``
        processes where it can share a pricing (:func:`single_session` for a pricer that cannot)."""
        ...


@contextlib.contextmanager
def single_session(pricer: CertifiedPricer) -> Iterator[CertifiedPricer]:
    """A run of a pricer that needs no set-up and prices in this process only."""
    yield pricer


class RefusalReason(enum.StrEnum):
    """Why a registry entry does not price a problem."""

    CONE = "cone"  #: the cone lacks the structure the pricer needs
    UTILITY = "utility"  #: the utility lacks the capability the pricer needs
    SIZE = "size"  #: the problem is beyond the pricer's limits
    NUMERICS = "numerics"  #: a condition the bound needs fails (e.g. pᵀw = 0 on part of the cone)


@dataclass(frozen=True)
class Refusal:
    """An entry's (or the registry's) typed "no": the reason's kind and the words kept in solutions."""

    reason: RefusalReason
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class PricerEntry:
    """One way of pricing: ``build(utility, cone)`` recognises the problem and returns a pricer or a
    :class:`Refusal`; entries are tried by ``priority`` (lowest first); ``proved_by`` names the checker
    methods (:data:`privopt.certificates.methods.METHODS`) that prove its certificates (the one that
    applies depends on the cone's size)."""

    name: str
    priority: int
    build: Callable[[SubConvexUtility, RowCone], CertifiedPricer | Refusal]
    proved_by: tuple[str, ...]


#: The registered pricers, by priority (:func:`register_pricer`).
PRICERS: list[PricerEntry] = []


def register_pricer(entry: PricerEntry) -> PricerEntry:
    """Register ``entry`` (replacing one of the same name); the registry stays sorted by priority."""
    if not isinstance(entry, PricerEntry):
        raise ValidationError(
            "entry", "a PricerEntry(name, priority, build, proved_by)", type(entry).__name__
        )
    PRICERS[:] = sorted([e for e in PRICERS if e.name != entry.name] + [entry], key=lambda e: e.priority)
    _CACHE.clear()
    return entry


def unregister_pricer(name: str) -> None:
    """Remove the entry called ``name`` (a user's, after use; a no-op when there is none)."""
    PRICERS[:] = [e for e in PRICERS if e.name != name]
    _CACHE.clear()


def certified_pricer(utility: SubConvexUtility, cone: RowCone) -> CertifiedPricer | Refusal:
    """The first registered pricer that takes ``(utility, cone)``, or why none does (every entry's
    refusal, joined). Built once per pair while both live: planning, the vertex route and column
    generation all ask for it."""
    per_cone = _CACHE.setdefault(cone, {})
    key = id(utility)
    if key not in per_cone or per_cone[key][0] is not utility:
        per_cone[key] = (utility, _first(utility, cone))
    return per_cone[key][1]


def _first(utility: SubConvexUtility, cone: RowCone) -> CertifiedPricer | Refusal:
    refusals = []
    for entry in PRICERS:
        built = entry.build(utility, cone)
        if not isinstance(built, Refusal):
            return built
        refusals.append(f"{entry.name}: {built.message}")
    return Refusal(RefusalReason.CONE, "no certified pricing bound — " + ("; ".join(refusals) or "no pricer"))


#: Pricers already built, per cone (weakly: a cone's entry goes with it) and utility.
_CACHE: weakref.WeakKeyDictionary[RowCone, dict[int, tuple[SubConvexUtility, CertifiedPricer | Refusal]]] = (
    weakref.WeakKeyDictionary()
)
