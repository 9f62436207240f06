"""The repair of a first-order LP point on a pair cone (privopt.routes.pair_repair): the closure is the
least column of the cone above a point (against an LP that finds it), and the repaired design is a
mechanism in the cone that keeps the value (against the exact LP's optimum)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

import privopt as po
from privopt.routes.base import clean_channel
from privopt.routes.linear_program import ColumnSystem
from privopt.routes.pair_repair import PairGraph, repair
from privopt.routes.pricing.slice_lp import into_cone


def _random_metric(rng: np.random.Generator, n: int) -> np.ndarray:
    points = rng.uniform(0.0, 3.0, size=(n, 2))
    return np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))


def _definitions(rng: np.random.Generator, n: int) -> list[tuple[str, po.PrivacyDefinition]]:
    """Pair cones: a metric, LDP (every pair at ε), per-input budgets (pairs at min(ε_a, ε_b)), and
    directed pairs of random levels (some pairs one way only, some not at all)."""
    budgets = rng.choice([0.5, 1.0, 2.0], size=n)
    directed = [
        (po.given(x=a), po.given(x=b), float(rng.uniform(0.2, 2.0)))
        for a in range(n)
        for b in range(n)
        if a != b and rng.uniform() < 0.6
    ]
    return [
        ("metric", po.MetricLDP(float(rng.uniform(0.3, 2.0)), _random_metric(rng, n))),
        ("LDP", po.LDP(float(rng.uniform(0.1, 3.0)))),
        ("LDP at a large ε", po.LDP(12.0)),
        ("per-input budgets", po.MetricLDP(1.0, np.minimum.outer(budgets, budgets) * (1 - np.eye(n)))),
        ("directed levels", po.RatioConstraints(directed, 1.0, n_inputs=n, name="directed levels")),
    ]


def _cases(rng: np.random.Generator, n: int) -> Iterator[tuple[str, Any, PairGraph, sp.csr_matrix]]:
    """Each pair cone of :func:`_definitions` with a random expected-loss utility: its name, problem
    data, pair graph and projected rows."""
    for name, definition in _definitions(rng, n):
        prior = rng.dirichlet(np.ones(n))
        loss = rng.uniform(0.0, 1.0, size=(n, n))
        data = po.Problem(definition, po.ExpectedGain(prior, -loss)).get_problem_data()
        projected = ColumnSystem.of(data.cone).projected
        graph = PairGraph.of(projected)
        assert graph is not None, name
        yield name, data, graph, projected


@pytest.mark.parametrize("seed", range(6))
def test_the_closure_is_the_least_column_of_the_cone_above_a_point(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    for name, data, graph, projected in _cases(rng, n):
        v = rng.exponential(size=n) * (rng.uniform(size=n) < 0.7)  # zeros too
        closed = graph.close(v[:, None])[:, 0]
        # the least w >= v with rows @ w <= 0 minimises Σ w (it lies below every other one)
        least = linprog(
            np.ones(n),
            A_ub=projected.toarray(),
            b_ub=np.zeros(projected.shape[0]),
            bounds=[(low, None) for low in v],
        )
        assert least.status == 0
        np.testing.assert_allclose(closed, least.x, rtol=1e-7, atol=1e-9, err_msg=name)
        assert data.cone.violation(closed[:, None]) <= 1e-12, name


@pytest.mark.parametrize("seed", range(6))
def test_a_noisy_optimum_is_repaired_into_the_cone_keeping_its_value(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    for name, data, graph, _ in _cases(rng, n):
        problem_value = po.Problem(data.definition, data.utility).solve(route="lp")
        C, offset = data.affine_utility()
        optimum = problem_value.mechanism.matrix
        # a first-order solver's point: rows off by ~1e-4, entries off by as much, some negative
        noisy = optimum * (1.0 + rng.normal(scale=1e-4, size=optimum.shape)) + rng.normal(
            scale=1e-5, size=optimum.shape
        )
        design = repair(graph, C, noisy)
        assert data.cone.violation(design) <= 1e-12, name
        assert np.all(design >= 0.0)
        np.testing.assert_allclose(design.sum(axis=1), 1.0, atol=1e-12)
        value = float(np.sum(C * design)) + offset
        assert value <= problem_value.value + 1e-9  # feasible, so not above the optimum
        assert value >= problem_value.value - 1e-3 * max(1.0, abs(problem_value.value)), name


@pytest.mark.parametrize("seed", range(4))
def test_offered_columns_reach_the_re_mixing(seed: int) -> None:
    # The optimum's columns (in the cone: their closure is themselves) offered beside a point far from
    # it (uniform rows with noise): the re-mixing can take them with weight 1, so the optimum comes back.
    rng = np.random.default_rng(50 + seed)
    n = int(rng.integers(2, 9))
    for name, data, graph, _ in _cases(rng, n):
        exact = po.Problem(data.definition, data.utility).solve(route="lp")
        C, offset = data.affine_utility()
        columns = exact.mechanism.matrix
        far = np.full(columns.shape, 1.0 / columns.shape[1]) * rng.uniform(0.5, 1.5, size=columns.shape)
        design = repair(graph, C, far, (columns, np.arange(columns.shape[1])))
        assert data.cone.violation(design) <= 1e-12, name
        np.testing.assert_allclose(design.sum(axis=1), 1.0, atol=1e-12)
        value = float(np.sum(C * design)) + offset
        assert value == pytest.approx(exact.value, abs=1e-6 * max(1.0, abs(exact.value))), name


def test_the_repair_keeps_what_mixing_with_the_uniform_column_loses() -> None:
    # The 15×15-grid effect at a size a test can solve: a 6×6 Manhattan grid's optimum with rows off by
    # 1e-3 (PDLP's at a few minutes on 30×30). Moving columns towards the uniform one loses much more.
    d = po.Grid(6, 6).distances("manhattan")
    rng = np.random.default_rng(0)
    problem = po.Problem(po.MetricLDP(0.5, d), po.ExpectedDistortion(rng.dirichlet(np.ones(36)), d))
    data = problem.get_problem_data()
    C, offset = data.affine_utility()
    exact = problem.solve(route="lp")
    noisy = exact.mechanism.matrix * (1.0 + rng.normal(scale=1e-3, size=(36, 36)))
    system = ColumnSystem.of(data.cone)
    graph = PairGraph.of(system.projected)
    assert graph is not None
    design = repair(graph, C, noisy)
    mixed = clean_channel(into_cone(system.projected, clean_channel(noisy)))
    loss = exact.value - (float(np.sum(C * design)) + offset)
    mixing_loss = exact.value - (float(np.sum(C * mixed)) + offset)
    assert 0.0 <= loss < 0.01 * abs(exact.value)
    assert loss < 0.2 * mixing_loss


def test_cones_that_are_not_pairs_have_no_pair_graph() -> None:
    # LDP w.r.t. S at a known distribution: each row weighs the inputs of one secret by their likelihood
    P = po.JointDistribution(np.random.default_rng(1).dirichlet(np.ones(6)).reshape(2, 3))
    gain = np.eye(P.p_x.size)
    data = po.Problem(po.SensitiveLDP(1.0, P), po.ExpectedGain(P.p_x, gain)).get_problem_data()
    assert PairGraph.of(ColumnSystem.of(data.cone).projected) is None
