"""The vertex route's exact-pricing strategy: the LP over every vertex of the cone slice, by column
generation whose pricing is exact over the whole slice — block-vertex products on envelope cones, LIP's
pricer, or an f-divergence's hull — without enumerating the vertices (docs/compiler.md §3).
"""

from __future__ import annotations

import time
from typing import Protocol

import numpy as np

from privopt.certificates import SliceBound
from privopt.errors import LimitError
from privopt.routes.base import ProblemData, RouteResult, SolveStats, matrix_from_columns, status_for
from privopt.routes.colgen import start_master, starting_columns
from privopt.routes.pricing.fdivergence import FDivergencePricer
from privopt.routes.pricing.products import MAX_WORK, ProductPricer
from privopt.routes.slice_check import checked
from privopt.routes.vertex_cost import fdivergence_pricing, lip_pricing, product_pricing
from privopt.tolerances import REDUCED_COST_TOL
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: Columns the exact product pricing adds per round (the best distinct ones).
PRODUCT_COLUMNS = 16

#: The product pricing's master keeps every column (it needs few).
MASTER_CAP = 10**6


class ExactPricer(Protocol):
    """Exact pricing over a cone's whole slice ``νᵀw = 1`` (:mod:`privopt.routes.pricing.products`,
    :mod:`privopt.routes.pricing.lip`, :mod:`privopt.routes.pricing.fdivergence`)."""

    #: ``"prior"``, ``"mixture"`` or ``"sum"`` (:class:`~privopt.certificates.SliceBound`).
    normalisation: str
    #: What it enumerates and what :attr:`work` counts, in the route's reason.
    name: str
    unit: str

    @property
    def weights(self) -> FloatArray: ...

    @property
    def work(self) -> int:
        """The size of one pricing (the last one's, for a pricer whose work varies)."""
        ...

    def price(self, duals: FloatArray, limit: int, threshold: float) -> tuple[float, list[FloatArray]]: ...


def exact_pricer(data: ProblemData, utility: SubConvexUtility) -> ExactPricer | None:
    """The exact pricer of :func:`~privopt.routes.vertex_cost.exact_pricing`'s cones: block-vertex
    products (``None`` when, once built, they exceed
    :data:`~privopt.routes.pricing.products.MAX_WORK`), LIP's, or an f-divergence's hull."""
    hull = fdivergence_pricing(data)
    if hull is not None:
        return FDivergencePricer(data.cone, *hull)
    pricer = product_pricing(data)
    if pricer is not None:
        products = ProductPricer(pricer)
        return products if products.work <= MAX_WORK else None
    return lip_pricing(data)


class ExactPricingStrategy:
    """The LP over every vertex by exact pricing (module docstring), where
    :func:`~privopt.routes.vertex_cost.exact_pricing` predicts it beats enumeration."""

    name = "exact pricing"

    @staticmethod
    def accepts(data: ProblemData) -> str | None:
        """``None`` when the strategy applies, else why not."""
        if any(found(data) is not None for found in (product_pricing, lip_pricing, fdivergence_pricing)):
            return None
        return "no exact pricer over the whole slice is predicted to beat enumeration"

    def solve(
        self, data: ProblemData, utility: SubConvexUtility, deadline: float | None, seconds: dict[str, float]
    ) -> RouteResult | None:
        """The design, or ``None`` when the pricer is too large once built or the checker refutes it."""
        pricer = exact_pricer(data, utility)
        return None if pricer is None else self.price(data, utility, pricer, deadline, seconds)

    @staticmethod
    def price(
        data: ProblemData,
        utility: SubConvexUtility,
        products: ExactPricer,
        deadline: float | None,
        seconds: dict[str, float],
    ) -> RouteResult | None:
        """The vertex LP by column generation with exact pricing over the whole slice
        (:class:`ExactPricer`): the LP over every vertex, without enumerating them. ``None`` when the
        independent checker refutes the result (the caller then enumerates)."""
        start = time.perf_counter()
        # Unit columns of inputs outside the normalisation (νₓ = 0) when the cone holds them (LIP's
        # inputs of probability 0): with them in the master their duals stay >= 0, as the bound needs.
        warm = data.warm_master
        if warm is not None and warm.n == data.n_inputs:
            master = warm  # its columns lie in this cone (ProblemData.warm_master): continue its LP
        else:
            units = np.eye(data.n_inputs)[:, products.weights <= 0.0]
            seeds = [c for c in (data.warm_columns, units if units.size else None) if c is not None]
            initial = np.hstack(seeds) if seeds else None
            master = start_master(utility, starting_columns(data.cone, initial), MASTER_CAP)
        rounds = generated = 0
        while True:
            value, theta, duals = master.solve()
            best, columns = products.price(duals, PRODUCT_COLUMNS, REDUCED_COST_TOL)
            if not columns:
                break
            block = np.column_stack(columns)
            mu = utility.mu(block)
            improving = mu - duals @ block > REDUCED_COST_TOL * block.sum(axis=0)
            if not np.any(improving):
                break
            if deadline is not None and time.perf_counter() > deadline:
                raise LimitError(
                    f"exact pricing did not converge before the deadline ({rounds} rounds). Remedies: "
                    "route='colgen' (column generation, with a certified upper bound), a larger timeout="
                )
            master.add([c for c, keep in zip(columns, improving, strict=True) if keep], list(mu[improving]))
            rounds += 1
            generated += int(improving.sum())
        support, weights = master.support(theta)
        seconds["lp"] = time.perf_counter() - start
        bound = SliceBound.build(
            duals,
            max(0.0, best),
            products.normalisation,
            products.weights,
            f"column generation, exact pricing ({products.name})",
        )
        check = checked(data, utility, bound, deadline, seconds)
        if check.refuted:
            return None
        lower = utility.from_core(value)
        upper = utility.from_core(bound.upper)
        stats = SolveStats(
            seconds=seconds,
            iterations=rounds,
            columns=generated,
            backend=f"{products.name} (exact pricing)",
            lp_value=value,
        )
        return RouteResult(
            matrix_from_columns(support, weights),
            status_for(lower, upper, data.options.colgen.gap_tolerance, limited=False),
            lower,
            upper,
            f"the LP over every vertex of the cone slice, by exact pricing over its {products.name} "
            f"({rounds} rounds, {products.work} {products.unit} in the last)",
            "the LP's duals, exactly priced",
            stats,
            (bound,),
            check,
            master,
        )
