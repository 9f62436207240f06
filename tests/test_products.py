"""Exact pricing over block-vertex products (privopt.routes.pricing.products): the vertex route's way
to the LP over every vertex of a small envelope cone without enumerating them."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt.routes.pricing import Refusal
from privopt.routes.pricing.blocks import BlockTable
from tests.test_independent_reporting import random_ball


@pytest.mark.parametrize(("shape", "eps", "seed"), [((3, 3), 0.5, 1), ((3, 3), 2.0, 2), ((2, 5), 1.0, 6)])
def test_product_pricing_reaches_the_exact_enumerations_optimum(shape, eps, seed):
    F = random_ball(np.random.default_rng(seed), shape, 1000)
    problem = po.Problem(po.SensitiveLDP(eps, F), po.MutualInformation(F.center))
    data = problem.get_problem_data()
    from privopt.routes.exact_pricing import ExactPricingStrategy
    from privopt.routes.pricing import envelope_pricer
    from privopt.routes.pricing.products import ProductPricer

    # Built directly: the route itself prices over products only where enumeration is predicted slow.
    pricer = envelope_pricer(problem.utility, data.cone)
    assert not isinstance(pricer, Refusal)
    products = ProductPricer(pricer)
    solution = problem._finish(
        data,
        "vertex",
        "test",
        ExactPricingStrategy.price(data, problem.utility, products, None, {}),
        0.0,
        None,
    )
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.checked
    exact = po.Problem(po.SensitiveLDP(eps, F), po.MutualInformation(F.center), backend="ppl").solve(
        route="vertex"
    )
    assert exact.stats.backend.startswith("ppl")
    assert solution.value == pytest.approx(exact.value, abs=1e-9)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 6)])
def test_mid_size_envelope_cones_are_solved_exactly_without_enumeration(shape):
    # Enumeration is predicted at 3.6-68 s for these shapes; exact pricing solves them, checked by the
    # independent checker's own enumeration of every product (docs/compiler.md), and column
    # generation's certified bounds bracket the value.
    F = random_ball(np.random.default_rng(3), shape, 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen={"progress": False})
    solution = problem.solve()
    assert solution.route == "vertex"
    assert solution.stats.backend == "block-vertex products (exact pricing)"
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.checked
    certified = problem.solve(route="colgen")
    assert certified.lower <= solution.value + 1e-9
    assert solution.value <= certified.upper + 1e-9


def test_a_exact_pricer_that_loses_vertices_falls_back_to_enumeration(monkeypatch):
    # The route's own block vertices made to forget the fractional ones: its LP stops short, the
    # independent checker refutes the duals, and the route enumerates instead — same optimum.
    F = random_ball(np.random.default_rng(5), (3, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center))
    reference = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), backend="ppl").solve()
    points = BlockTable.points

    def subset_vertices_only(self, D, T):
        return [rows[: self.y.size] for rows in points(self, D, T)]

    monkeypatch.setattr(BlockTable, "points", subset_vertices_only)
    solution = problem.solve(route="vertex")
    assert solution.value == pytest.approx(reference.value, abs=1e-9)
    assert solution.certificate.checked
    assert solution.stats.backend != "block-vertex products (exact pricing)"


def test_the_flat_combinations_price_as_each_configuration_enumerated_and_respect_the_budget():
    # The flat pricing against a plain enumeration of every configuration's product at the same duals,
    # and its tables refused (before the allocation) under a memory budget smaller than them.
    from privopt import memory
    from privopt.errors import LimitError
    from privopt.routes.pricing import envelope_pricer
    from privopt.routes.pricing.blocks import xlogx
    from privopt.routes.pricing.products import ProductPricer

    F = random_ball(np.random.default_rng(4), (3, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center))
    pricer = envelope_pricer(problem.utility, problem.get_problem_data().cone)
    assert not isinstance(pricer, Refusal)
    products = ProductPricer(pricer)
    # The layout holds a 32-bit index per block and four 8-byte numbers per combination: a budget a
    # byte short of it is refused, exactly that much is enough, and it is what the arrays hold.
    layout = products.work * (4 * len(pricer.structure.blocks) + 32)
    with memory.limited(layout - 1), pytest.raises(LimitError, match="combinations"):
        products.price(np.zeros(9), 4, 0.0)
    with memory.limited(layout):
        products.price(np.zeros(9), 4, 0.0)
    flat = products._combinations
    held = [*flat.index, flat.inverse_mass, flat.log_mass, *products._buffers]
    assert sum(array.nbytes for array in held) == layout
    p, blocks, scale = pricer.objective.weights, pricer.structure.blocks, pricer.objective.scale
    lam = np.random.default_rng(0).uniform(-0.5, 0.5, 9)
    best = -np.inf
    for configuration in products.configurations:
        for chosen in np.ndindex(*configuration.shape):
            w = np.zeros(9)
            for s, k in enumerate(chosen):
                w[blocks[s]] = configuration.points[s][k]
            mass = p @ w
            best = max(best, (p @ xlogx(w) - lam @ w / scale) / mass - np.log(mass))
    products.price(-lam, 4, -np.inf)  # a pricing before: the next one reuses its arrays
    top, columns = products.price(lam, 4, -np.inf)
    assert top == pytest.approx(scale * best, rel=1e-12)
    w = columns[0]  # the best column first, normalised to Σ w = 1
    assert w.sum() == pytest.approx(1.0)
    assert (p @ xlogx(w) - lam @ w / scale) / (p @ w) - np.log(p @ w) == pytest.approx(best, rel=1e-12)


def test_distinct_columns_drops_repeats_within_the_tolerance_and_keeps_the_order():
    from privopt.routes.pricing.columns import distinct_columns
    from privopt.tolerances import COLUMN_DUPLICATE_ATOL

    a, b = np.array([0.5, 0.25, 0.25]), np.array([0.2, 0.3, 0.5])
    nudge = np.array([1.0, -1.0, 0.0])
    columns = np.column_stack(
        [b, a, b + 0.25 * COLUMN_DUPLICATE_ATOL * nudge, a + 4.0 * COLUMN_DUPLICATE_ATOL * nudge, a]
    )
    kept = distinct_columns(columns)
    # b first; a; the near-copy of b dropped; the column 4·atol from a kept; a again dropped.
    assert len(kept) == 3
    np.testing.assert_array_equal(kept[0], b)
    np.testing.assert_array_equal(kept[1], a)
    np.testing.assert_array_equal(kept[2], columns[:, 3])
    assert distinct_columns(np.zeros((3, 0))) == []


def test_product_pricing_returns_each_configurations_best_column_once():
    """Against a direct evaluation: the columns are the best combination of each configuration above the
    threshold, best first, without repeats, and the maximum is the largest ratio."""
    from privopt.routes.pricing import envelope_pricer
    from privopt.routes.pricing.products import ProductPricer

    F = random_ball(np.random.default_rng(4), (3, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center))
    data = problem.get_problem_data()
    pricer = envelope_pricer(problem.utility, data.cone)
    assert not isinstance(pricer, Refusal)
    products = ProductPricer(pricer)
    duals = np.random.default_rng(5).uniform(0.0, 0.2, data.n_inputs)
    best, columns = products.price(duals, 8, -np.inf)
    p = problem.utility.p

    def ratio(w):
        w = w / (p @ w)
        positive = w > 0
        return float(np.sum(p[positive] * w[positive] * np.log(w[positive])) - duals @ w)

    ratios = [ratio(c) for c in columns]
    assert 1 <= len(columns) <= 8
    assert ratios == sorted(ratios, reverse=True)
    assert abs(ratios[0] - best) <= 1e-9 * max(1.0, abs(best))
    assert all(np.max(np.abs(x - y)) > 1e-12 for i, x in enumerate(columns) for y in columns[:i])
    assert all(abs(c.sum() - 1.0) <= 1e-12 for c in columns)
