"""The optimal remapping of a mechanism's reports (Bordenabe et al., CCS 2014), against a brute force
over every deterministic remapping, the LP it solves, and the optimal geo-indistinguishable mechanism."""

from __future__ import annotations

import doctest
import importlib
import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

import privopt as po

remap_module = importlib.import_module("privopt.mechanisms.remap")


def _random_channel(rng: np.random.Generator, n_inputs: int, n_outputs: int) -> np.ndarray:
    return rng.dirichlet(np.full(n_outputs, 0.5), size=n_inputs)


def _expected_loss(W: np.ndarray, prior: np.ndarray, loss: np.ndarray) -> float:
    return float(np.sum(prior[:, None] * W * loss))


def test_remap_is_the_best_deterministic_remapping_by_brute_force(rng):
    # Every map from 4 reports to 3 estimates (3⁴ = 81 of them) on random channels, priors and losses.
    for _ in range(20):
        W = _random_channel(rng, 3, 4)
        prior = rng.dirichlet(np.ones(3))
        loss = rng.uniform(-1.0, 2.0, size=(3, 3))
        remap = po.mechanisms.optimal_remap(W, prior, loss)
        best = min(
            _expected_loss(W @ np.eye(3)[list(chosen)], prior, loss)
            for chosen in itertools.product(range(3), repeat=4)
        )
        assert remap.expected_loss == pytest.approx(best, rel=1e-12, abs=1e-15)
        # The reported mechanism is W·R, R deterministic, and its loss is the reported one.
        assert set(np.unique(remap.matrix)) <= {0.0, 1.0}
        np.testing.assert_array_equal(remap.matrix.sum(axis=1), 1.0)
        assert [int(np.argmax(row)) for row in remap.matrix] == list(remap.estimates)
        np.testing.assert_allclose(remap.mechanism.matrix, W @ remap.matrix, rtol=0, atol=1e-15)
        assert _expected_loss(remap.mechanism.matrix, prior, loss) == pytest.approx(
            remap.expected_loss, rel=1e-12
        )


def test_remap_is_the_optimum_of_its_linear_program(rng):
    # min Σ_{x,y,z} p_x W[x,y] R[y,z] loss[x,z] over row-stochastic R (HiGHS): the LP's value is the
    # remap's — the vertex optimum is deterministic, as the module docstring argues.
    W, prior = _random_channel(rng, 4, 5), rng.dirichlet(np.ones(4))
    loss = rng.uniform(0.0, 3.0, size=(4, 6))
    costs = (W.T @ (prior[:, None] * loss)).ravel()  # over R[y, z], row-major
    rows = np.kron(np.eye(5), np.ones(6))
    lp = linprog(costs, A_eq=rows, b_eq=np.ones(5), bounds=(0, None), method="highs")
    assert lp.status == 0
    assert po.mechanisms.optimal_remap(W, prior, loss).expected_loss == pytest.approx(lp.fun, rel=1e-9)


def test_remapping_never_increases_the_loss_and_keeps_the_privacy(rng):
    # R = I is one of the remappings, so when the reports are the estimates the loss cannot grow; and
    # W·R is post-processing, so its audited ε is at most W's.
    grid = po.Grid(3, 3)
    d = grid.distances()
    for eps in (0.3, 0.8, 1.5):
        for _ in range(5):
            prior = rng.dirichlet(np.ones(grid.n))
            for W in (
                po.mechanisms.planar_laplace(grid, eps),
                po.mechanisms.planar_geometric(grid, eps),
                po.mechanisms.grr(grid.n, eps),
                po.Mechanism(_random_channel(rng, grid.n, grid.n)),
            ):
                remap = po.mechanisms.optimal_remap(W, prior, d)
                assert remap.expected_loss <= _expected_loss(W.matrix, prior, d) + 1e-12
                definition = po.MetricLDP(eps, d)
                assert po.audit(remap.mechanism, definition).eps <= po.audit(W, definition).eps + 1e-9


def test_remapped_planar_laplace_lies_between_the_optimum_and_the_plain_one():
    # Bordenabe et al.'s comparison on a 4 × 4 grid, Euclidean d, a seeded Dirichlet prior: the optimal
    # ε·d-private mechanism (the compiler's, certified) is at least as good as any ε·d-private one,
    # the remapped planar Laplace among them, which is strictly better than the plain one here.
    grid = po.Grid(4, 4)
    d = grid.distances()
    prior = np.random.default_rng(0).dirichlet(np.ones(grid.n))
    for eps in (0.5, 1.0):
        solution = po.Problem(po.MetricLDP(eps, d), po.ExpectedDistortion(prior, d)).solve()
        optimal = -solution.upper  # the certified bound on the least expected loss
        W = po.mechanisms.planar_laplace(grid, eps)
        plain = _expected_loss(W.matrix, prior, d)
        remapped = po.mechanisms.optimal_remap(W, prior, d).expected_loss
        assert optimal <= remapped + 1e-9
        assert remapped < plain
        assert -solution.value == pytest.approx(optimal, rel=1e-6)


def test_linear_loss_reads_the_utilities():
    prior = np.array([0.2, 0.3, 0.5])
    loss = np.arange(9.0).reshape(3, 3)
    p, found = remap_module.linear_loss(po.ExpectedDistortion(prior, loss))
    np.testing.assert_array_equal(p, prior)
    np.testing.assert_array_equal(found, loss)
    _, hamming = remap_module.linear_loss(po.ExpectedDistortion(prior))
    np.testing.assert_array_equal(hamming, 1.0 - np.eye(3))
    _, negated = remap_module.linear_loss(po.ExpectedGain(prior, loss))
    np.testing.assert_array_equal(negated, -loss)
    P = po.JointDistribution([[0.1, 0.2], [0.3, 0.4]])
    p_u, _ = remap_module.linear_loss(po.ExpectedDistortion(P, np.ones((2, 2)), on="u"))
    np.testing.assert_allclose(p_u, [0.4, 0.6])
    assert remap_module.linear_loss(po.MutualInformation(prior)) is None


def test_remap_for_a_gain_maximises_it(rng):
    W, prior = _random_channel(rng, 3, 3), rng.dirichlet(np.ones(3))
    gain = np.eye(3)  # the probability of guessing right: the MAP estimate
    remap = po.mechanisms.remap_for(W, po.ExpectedGain(prior, gain))
    posterior_map = np.argmax(prior[:, None] * W, axis=0)
    assert remap.estimates == tuple(int(z) for z in posterior_map)
    assert po.ExpectedGain(prior, gain).value(remap.mechanism) == pytest.approx(
        -remap.expected_loss, rel=1e-12
    )


def test_estimate_labels():
    W = po.Mechanism(np.eye(2), input_labels=["a", "b"])
    assert po.mechanisms.optimal_remap(W, [0.5, 0.5], np.ones((2, 2))).mechanism.output_labels == ("a", "b")
    other = po.mechanisms.optimal_remap(W, [0.5, 0.5], np.ones((2, 3)), estimate_labels=["x", "y", "z"])
    assert other.mechanism.output_labels == ("x", "y", "z")
    assert other.mechanism.name == "remap"


def test_bad_input():
    W = po.mechanisms.grr(3, 1.0)
    with pytest.raises(po.ShapeError, match="prior: expected a distribution over the mechanism's 3 inputs"):
        po.mechanisms.optimal_remap(W, [0.5, 0.5], np.ones((3, 3)))
    with pytest.raises(po.ValidationError, match="prior: expected probabilities summing to 1"):
        po.mechanisms.optimal_remap(W, [0.5, 0.5, 0.5], np.ones((3, 3)))
    with pytest.raises(po.ShapeError, match=r"loss: expected a matrix with 3 rows \(one per input\)"):
        po.mechanisms.optimal_remap(W, np.full(3, 1 / 3), np.ones((2, 3)))
    with pytest.raises(po.ValidationError, match="loss: expected finite entries"):
        po.mechanisms.optimal_remap(W, np.full(3, 1 / 3), np.full((3, 3), np.nan))
    with pytest.raises(po.ShapeError, match="estimate_labels: expected 4 labels"):
        po.mechanisms.optimal_remap(W, np.full(3, 1 / 3), np.ones((3, 4)), estimate_labels=["a", "b"])
    with pytest.raises(po.ValidationError, match="matrix: expected rows summing to 1"):
        po.mechanisms.optimal_remap(np.ones((3, 3)), np.full(3, 1 / 3), np.ones((3, 3)))
    with pytest.raises(po.ValidationError, match="utility: expected a linear utility"):
        po.mechanisms.remap_for(W, po.MutualInformation(np.full(3, 1 / 3)))


def test_docstring_example():
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for test in finder.find(remap_module, remap_module.__name__):
        assert runner.run(test).failed == 0, test.name
