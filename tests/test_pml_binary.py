"""PML paper Theorem 5 (eq. 41): the closed-form optimal binary mechanism over an ℓ1 ball; Remark 3."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt.mechanisms import binary_pml_mechanism, binary_pml_valid_range, randomized_response_limit

GRID = [(p1, beta) for p1 in (0.5, 0.6, 0.75, 0.9) for beta in (0.02, 0.1, 0.19)]


def _eps_grid(p1: float, beta: float) -> np.ndarray:
    _, high = binary_pml_valid_range(p1, beta)
    return np.linspace(0.02, high, 4)


@pytest.mark.parametrize(("p1", "beta"), GRID)
def test_theorem5_equals_compiler_optimum(p1, beta):
    # The compiler's vertex route over PML(ε, L1Ball) (Prop. 2's exact cone) is an independent route.
    prior = np.array([p1, 1.0 - p1])
    for eps in _eps_grid(p1, beta):
        W = binary_pml_mechanism(p1, beta, eps)
        problem = po.Problem(po.PML(eps, po.L1Ball(prior, beta)), po.MutualInformation(prior))
        optimum = problem.solve(route="vertex")
        assert po.MutualInformation(prior).value(W) == pytest.approx(optimum.value, abs=1e-8)
        # The optimum is unique up to the order of the outputs (the two non-trivial vertices).
        found = optimum.mechanism.matrix
        if found.shape[1] == 2:
            np.testing.assert_allclose(
                found[:, np.argsort(found[0])], W.matrix[:, np.argsort(W.matrix[0])], atol=1e-8
            )


@pytest.mark.parametrize(("p1", "beta"), GRID)
def test_theorem5_leaks_exactly_eps_at_both_extreme_points(p1, beta):
    # Both PML constraints are tight: the leakage over {π+, π−} (exact ratio pairs) and over the ball
    # (exact worst prior per output) are ε.
    prior = np.array([p1, 1.0 - p1])
    shift = beta / 2.0 * np.array([1.0, -1.0])
    for eps in _eps_grid(p1, beta):
        W = binary_pml_mechanism(p1, beta, eps)
        extremes = po.FiniteSet([prior + shift, prior - shift])
        assert po.audit(W, po.PML(eps, extremes)).eps == pytest.approx(eps, abs=1e-12)
        assert po.audit(W, po.PML(eps, po.L1Ball(prior, beta))).eps == pytest.approx(eps, abs=1e-12)


def test_closed_form_route_and_symbol_order():
    # Problem.solve() takes the registered closed form, for either order of the two symbols.
    for prior in ([0.7, 0.3], [0.3, 0.7]):
        problem = po.Problem(po.PML(0.4, po.L1Ball(prior, 0.1)), po.MutualInformation(prior))
        closed = problem.solve()
        assert closed.route == "closed_form"
        assert closed.status is po.Status.OPTIMAL
        assert "Theorem 5" in closed.reason
        assert closed.value == pytest.approx(problem.solve(route="vertex").value, abs=1e-10)
        assert closed.certificate.audit.eps == pytest.approx(0.4, abs=1e-12)


def test_closed_form_serves_other_subconvex_utilities():
    # Theorem 5 holds for every sub-convex utility: total variation between two priors' outputs.
    prior = np.array([0.65, 0.35])
    utility = po.FDivergence("tv", [0.9, 0.1], [0.2, 0.8])
    problem = po.Problem(po.PML(0.5, po.L1Ball(prior, 0.2)), utility)
    closed = problem.solve()
    assert closed.route == "closed_form"
    assert closed.value == pytest.approx(problem.solve(route="vertex").value, abs=1e-10)


def test_closed_form_declines_outside_its_range():
    # ε above −log(p1 − β/2) (= 0.511 here) and non-binary X fall through to the vertex route.
    prior = [0.7, 0.3]
    solution = po.Problem(po.PML(0.6, po.L1Ball(prior, 0.2)), po.MutualInformation(prior)).solve()
    assert solution.route == "vertex"
    three = [0.5, 0.3, 0.2]
    solution = po.Problem(po.PML(0.5, po.L1Ball(three, 0.1)), po.MutualInformation(three)).solve()
    assert solution.route == "vertex"


def test_remark3_randomized_response():
    # At p1 = 1/2, β = 1 eq. 41 is Warner's randomized response (eq. 42), and the mechanism of
    # Theorem 5 tends to it as β → 1.
    for eps in (0.1, 1.0, 3.0):
        rr = po.mechanisms.randomized_response(eps).matrix
        np.testing.assert_allclose(randomized_response_limit(eps).matrix, rr, atol=1e-15)
        np.testing.assert_allclose(binary_pml_mechanism(0.5, 1.0 - 1e-9, eps).matrix, rr, atol=1e-8)
    # There the guarantee is ε-LDP (PML for every prior).
    assert po.audit(randomized_response_limit(1.0), po.LDP(1.0)).eps == pytest.approx(1.0, abs=1e-12)


def test_valid_range():
    # ε <= −log(p1 − β/2): at the upper end the entry W[x2, y1] = 1 − e^ε (p1 − β/2) is exactly 0.
    low, high = binary_pml_valid_range(0.8, 0.1)
    assert (low, high) == (0.0, pytest.approx(-np.log(0.75), abs=1e-15))
    assert binary_pml_mechanism(0.8, 0.1, high).matrix[1, 0] == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        ((0.4, 0.1, 0.2), r"p1: expected P̂\(x1\) with 1/2 <= p1 < 1"),
        ((1.0, 0.0, 0.2), r"p1: expected"),
        ((0.7, 0.7, 0.2), r"beta: expected 0 <= β < 2·p2 = 0\.6"),
        ((0.7, -0.1, 0.2), r"beta: expected"),
        ((0.7, 0.2, 0.6), r"eps: expected ε <= −log\(p1 − β/2\) = 0\.5108"),
        ((0.7, 0.2, -0.5), r"eps: expected a finite number >= 0"),
    ],
)
def test_bad_input(args, pattern):
    with pytest.raises(po.ValidationError, match=pattern):
        binary_pml_mechanism(*args)
