"""Uncertainty sets: Rényi balls (Theorem 1, Props. 1–2, Lemma 1), ℓ1 balls, polytopes."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy.optimize import linprog, minimize

import privopt as po
from privopt.sets.renyi import renyi_divergence
from privopt.sets.renyi_extremes import linear_extremes, linear_maximum
from tests.conftest import random_distribution


@pytest.fixture
def ball(example1):
    return po.RenyiBall.confidence(example1, level=0.95)


def test_example1_radius(ball):
    # Entropy paper Example 1: B = log(1 + F⁻¹_{χ²,3}(0.95)/100) = 0.0752.
    assert ball.radius == pytest.approx(0.0752, abs=5e-5)
    # D_2(P̂ || P*) = 0.0281 < B, so P* ∈ F (Example 1).
    assert ball.divergence([[0.1, 0.1], [0.2, 0.6]]) == pytest.approx(0.0281, abs=5e-5)
    assert ball.contains([[0.1, 0.1], [0.2, 0.6]])


def test_example2_theorem1_values(ball):
    # docs/verifying.md, "What the library found": Theorem 1 gives B_s1 ≈ 0.4067 (the paper prints 0.3782) and L_{u1|s1} ≈ 0.1552
    # (printed 0.1620); Examples 3 and 5 were computed with Theorem 1's values.
    np.testing.assert_allclose(ball.projection_radii(), [0.4067, 0.0903], atol=5e-5)
    L = ball.lower_bounds()
    assert L[0, 0] == pytest.approx(0.1552, abs=5e-5)
    # The other printed L's are those of Theorem 1 too (0.2829 is 0.2727 under it; s2 agrees).
    np.testing.assert_allclose(L[1], [0.1921, 0.5334], atol=5e-4)


def _min_conditional_over_ball(ball: po.RenyiBall, s: int, u: int) -> float:
    """Independent route: minimise P(u|s) over the *joint* ball with SLSQP from several starts."""
    shape = ball.shape
    p_hat = ball.center.p_x

    def objective(p):
        joint = np.clip(p, 1e-15, None).reshape(shape)
        return joint[s, u] / joint[s].sum()

    best = np.inf
    rng = np.random.default_rng(0)
    for start in [p_hat, *(0.9 * p_hat + 0.1 * rng.dirichlet(np.ones(p_hat.size)) for _ in range(4))]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = minimize(
                objective,
                start,
                method="SLSQP",
                bounds=[(1e-12, 1)] * p_hat.size,
                constraints=[
                    {"type": "eq", "fun": lambda p: p.sum() - 1},
                    {
                        "type": "ineq",
                        "fun": lambda p: (
                            ball.radius - renyi_divergence(p_hat, np.clip(p, 1e-15, None), ball.order)
                        ),
                    },
                ],
                options={"ftol": 1e-14, "maxiter": 400},
            )
        if ball.contains(result.x / result.x.sum(), atol=1e-9):
            best = min(best, objective(result.x))
    return best


@pytest.mark.parametrize("order", [2.0, 1.0, 0.5, 3.0])
def test_theorem1_lower_bounds_match_joint_optimisation(example1, order):
    # Theorem 1 + Prop. 1: L_{u|s} = min over the joint ball of P(u|s), checked by direct optimisation.
    F = po.RenyiBall(example1, 0.0752, order)
    L = F.lower_bounds()
    for s, u in itertools.product(range(2), range(2)):
        assert L[s, u] == pytest.approx(_min_conditional_over_ball(F, s, u), abs=2e-6)


def test_lemma1_closed_form_equals_bisection(example1):
    F = po.RenyiBall(example1, 0.3, 2.0)
    rho = np.linspace(0.01, 0.99, 50)
    closed = F.xi(rho, 0)
    numeric = F._xi_bisection(rho, F.projection_radius(0))
    np.testing.assert_allclose(closed[0], numeric[0], atol=1e-12)
    np.testing.assert_allclose(closed[1], numeric[1], atol=1e-12)
    # Both roots solve φ = 0 (eq. 26).
    np.testing.assert_allclose(F._phi(rho, closed[0], F.projection_radius(0)), 0.0, atol=1e-10)


def test_l1_radius_methods(example1, ball):
    # Example 5 (with Theorem 1's values): d = 2·max_s rad_s + ||P̂(·|s1) − P̂(·|s2)||₁ = 1.4591.
    rad = [ball.l1_radius(s, "exact") for s in range(2)]
    cond = example1.conditional_u_given_s()
    assert 2 * max(rad) + np.abs(cond[0] - cond[1]).sum() == pytest.approx(1.4591, abs=1e-4)
    # Prop. 2.2 applies to s1 (e^{B_s} − 1 = 0.50 >= (1 − 2 P̂_min)² = 0.031) and equals the subset maximum;
    # for s2 (0.095 < 0.139) it does not, and privopt refuses it.
    assert ball.l1_radius(0, "closed_form") == pytest.approx(rad[0], abs=1e-12)
    with pytest.raises(po.ValidationError, match="closed_form' only when"):
        ball.l1_radius(1, "closed_form")
    for s in range(2):
        assert ball.l1_radius(s, "bound") >= rad[s] - 1e-12


def test_l1_radius_is_the_max_distance(rng):
    # rad_s is attained: the maximiser of ||R − P̂(·|s)||₁ over the projection (sampled on its boundary)
    # never exceeds it, and the bound never undercuts the exact value.
    for _ in range(5):
        P = random_distribution(rng, (2, 4))
        F = po.RenyiBall(P, 0.05, 2.0)
        for s in range(2):
            exact = F.l1_radius(s, "exact")
            center = P.conditional_u_given_s()[s]
            directions = rng.normal(size=(400, 4))
            signs = np.sign(directions)
            _, _high, _, arg = linear_extremes(center, F.projection_radius(s), 2.0, signs)
            assert np.max(np.abs(arg - center).sum(axis=1)) <= exact + 1e-9
            assert F.l1_radius(s, "bound") >= exact - 1e-12


@pytest.mark.parametrize("alpha", [0.2, 0.5, 1.0, 2.0, 3.0])
def test_projection_extremes_are_optimal(rng, alpha):
    # The KKT solution against SLSQP from three starts, including centres with zeros.
    for trial in range(4):
        p = rng.dirichlet(np.ones(5))
        if trial % 2:
            p[:2] = 0
            p /= p.sum()
        b = rng.uniform(0.01, 1.0)
        C = rng.random((3, 5))
        low, high, arg_low, arg_high = linear_extremes(p, b, alpha, C)
        for k, c in enumerate(C):
            for sign, value, arg in ((1, high[k], arg_high[k]), (-1, low[k], arg_low[k])):
                assert renyi_divergence(p, arg, alpha) <= b + 1e-9
                assert c @ arg == pytest.approx(value, abs=1e-12)
                for start in (arg, np.full(5, 0.2)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = minimize(
                            lambda r, c=c, sign=sign: -sign * (c @ r),
                            start,
                            method="SLSQP",
                            bounds=[(0, 1)] * 5,
                            constraints=[
                                {"type": "eq", "fun": lambda r: r.sum() - 1},
                                {
                                    "type": "ineq",
                                    "fun": lambda r, b=b, p=p: (
                                        b - renyi_divergence(p, np.clip(r, 1e-15, None), alpha)
                                    ),
                                },
                            ],
                            options={"ftol": 1e-14, "maxiter": 500},
                        )
                    if renyi_divergence(p, np.clip(res.x, 0, None), alpha) <= b + 1e-10:
                        assert -res.fun <= sign * value + 1e-9


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_many_centres_in_one_pass_match_one_at_a_time(rng, alpha):
    # Rows with their own centre and radius give each row's own ball's extremes, supports mixed (a
    # centre with a zero, whose coordinate c favours or not), and a projection per s at once equals
    # the projections one by one.
    P = rng.dirichlet(np.ones(4), size=4)
    P[2:, 0] = 0.0
    P /= P.sum(axis=1, keepdims=True)
    budgets = rng.uniform(0.01, 0.5, size=4)
    C = rng.normal(size=(4, 4))
    C[2, 0], C[3, 0] = C[2].max() + 1.0, C[3].min() - 1.0
    low, high, arg_low, arg_high = linear_extremes(P, budgets, alpha, C)
    for k in range(4):
        alone = linear_extremes(P[k], budgets[k], alpha, C[k : k + 1])
        for got, want in zip((low, high, arg_low, arg_high), alone, strict=True):
            np.testing.assert_allclose(got[k], want[0], rtol=0, atol=1e-12)
        # Against the one-support formula: drop the zero coordinate, solve there, then compare.
        if k >= 2 and C[k, 0] < C[k, 1:].max():
            value, _ = linear_maximum(P[k, 1:], budgets[k], alpha, C[k : k + 1, 1:])
            assert high[k] == pytest.approx(value[0], abs=1e-12)
    joint = np.vstack([0.5 * P[0], 0.3 * P[2], 0.2 * P[1]])
    F = po.RenyiBall(joint, 0.05, alpha)
    columns = [rng.random((4, 1 + s)) for s in range(F.n_s)]
    together = F.projections_extremes(columns)
    assert len(together) == F.n_s
    for s in range(F.n_s):
        for got, want in zip(together[s], F.projection_extremes(s, columns[s]), strict=True):
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_projection_extremes_reproduce_bounds(ball):
    # min_{R ∈ F_{U|s}} R_u = L_{u|s} and max = the upper bound: two routes to the same numbers.
    for s in range(2):
        low, high, _, _ = ball.projection_extremes(s, np.eye(2))
        np.testing.assert_allclose(low, ball.lower_bounds()[s], atol=1e-10)
        np.testing.assert_allclose(high, ball.upper_bounds()[s], atol=1e-10)


def test_envelopes(ball):
    lower = ball.conditional_envelope(0, "lower")
    np.testing.assert_allclose(lower.sum(axis=1), 1.0)
    assert np.all(lower >= ball.lower_bounds()[0] - 1e-15)
    box = ball.conditional_envelope(0, "box")
    assert np.all(box <= ball.upper_bounds()[0] + 1e-12)
    assert np.all(box >= ball.lower_bounds()[0] - 1e-12)


def test_weissman_radius():
    # PML paper eq. 37.
    m, n, delta = 10_000, 4, 1e-6
    expected = np.sqrt(2 / m * (np.log(2**n - 2) - np.log(delta)))
    assert po.sets.weissman_radius(n, m, delta) == pytest.approx(expected)
    G = po.L1Ball.confidence(po.JointDistribution([0.4, 0.2, 0.2, 0.2], n=m), level=1 - delta)
    assert G.radius == pytest.approx(expected, rel=1e-12)
    assert G.level == pytest.approx(1 - delta, abs=1e-15)
    assert po.L1Ball.confidence(po.JointDistribution([0.4, 0.2, 0.2, 0.2], n=m)).radius == G.radius


def test_l1_confidence_level_is_renyi_convention_and_delta_is_deprecated():
    # One convention for confidence sets: level = 1 − δ; the old failure probability still works,
    # with a DeprecationWarning, and gives exactly the old radius.
    P = po.JointDistribution([0.4, 0.2, 0.2, 0.2], n=500)
    with pytest.warns(DeprecationWarning, match="level=1 - delta"):
        old = po.L1Ball.confidence(P, None, 0.05)  # the old positional spelling
    assert old.radius == po.sets.weissman_radius(4, 500, 0.05)
    new = po.L1Ball.confidence(P, level=0.95)
    assert new.radius == pytest.approx(old.radius, rel=1e-13)
    assert new.level == 0.95
    with pytest.warns(DeprecationWarning, match="level=1 - delta"):
        assert po.L1Ball(P, 0.1, delta=0.05).level == pytest.approx(0.95)
    with pytest.warns(DeprecationWarning, match="L1Ball.level"):
        assert new.delta == pytest.approx(0.05)
    with (
        pytest.raises(po.ValidationError, match="level"),
        pytest.warns(DeprecationWarning, match="deprecated"),
    ):
        po.L1Ball.confidence(P, delta=0.05, level=0.95)
    with pytest.raises(po.ValidationError, match="level: expected a confidence level"):
        po.L1Ball.confidence(P, level=1.5)
    assert po.RenyiBall.confidence(P, level=0.95).level == new.level  # the same keyword and meaning


def test_l1_min_linear_equals_lp(rng):
    # The greedy worst prior against an LP over {Q ∈ Δ : ||Q − P̂||₁ <= β} (split Q − P̂ = d⁺ − d⁻).
    for _ in range(10):
        p = rng.dirichlet(np.ones(5))
        beta = rng.uniform(0.0, 1.5)
        w = rng.random(5)
        ball = po.L1Ball(p, beta)
        n = 5
        c = np.concatenate([w, -w])
        a_eq = np.concatenate([np.ones(n), -np.ones(n)])[None, :]
        a_ub = np.vstack([np.ones(2 * n), np.hstack([-np.eye(n), np.eye(n)])])
        b_ub = np.concatenate([[beta], p])
        lp = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[0.0], bounds=(0, None))
        assert ball.min_linear(w[:, None])[0] == pytest.approx(p @ w + lp.fun, abs=1e-10)


def test_l1_vertices():
    ball = po.L1Ball([0.4, 0.3, 0.3], 0.2)
    vertices = ball.vertices()
    assert vertices.shape == (6, 3)
    np.testing.assert_allclose(np.abs(vertices - ball.center.p_x).sum(axis=1), 0.2)


def test_polytope_h_and_v():
    # {P ∈ Δ_3 : P_0 <= 0.5, P_1 <= 0.5} has vertices (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5), (0, 0, 1).
    H = po.Polytope(A=[[1, 0, 0], [0, 1, 0]], b=[0.5, 0.5])
    expected = {(0.5, 0.5, 0.0), (0.5, 0.0, 0.5), (0.0, 0.5, 0.5), (0.0, 0.0, 1.0)}
    assert {tuple(np.round(v, 12)) for v in H.vertices()} == expected
    V = po.Polytope(vertices=sorted(expected))
    assert len(V.vertices()) == 4


def test_bad_sets(example1):
    with pytest.raises(po.ValidationError, match=r"radius: expected a finite number >= 0, got -0.1"):
        po.RenyiBall(example1, -0.1)
    with pytest.raises(po.ValidationError, match="order"):
        po.RenyiBall(example1, 0.1, order=0)
    with pytest.raises(po.ValidationError, match=r"level: expected a confidence level in \(0, 1\)"):
        po.RenyiBall.confidence(example1, level=95)
    with pytest.raises(po.ValidationError, match="n: expected the sample size"):
        po.RenyiBall.confidence(po.JointDistribution([[0.5, 0.5]]))
    with pytest.raises(po.NotSupportedError, match="order 2 only"):
        po.RenyiBall.confidence(example1, order=1.0)
    with pytest.raises(po.ValidationError, match=r"L: expected rows summing to less than 1 \(row 1"):
        po.ConditionalBounds([[0.2, 0.3], [0.5, 0.5]])
    with pytest.raises(po.ValidationError, match=r"U: expected upper bounds >= L"):
        po.ConditionalBounds([[0.2, 0.3]], [[0.1, 0.9]])
    with pytest.raises(
        po.ValidationError, match=r"A: expected inequalities that some distribution satisfies"
    ):
        po.Polytope(A=[[1, 0], [0, 1]], b=[0.2, 0.2])
    with pytest.raises(po.ValidationError, match="radius"):
        po.L1Ball([0.5, 0.5], -1)
    with pytest.raises(po.ValidationError, match=r"radius: expected β < 2·min P̂ = 0.2"):
        po.L1Ball([0.9, 0.1], 0.3).vertices()
    with pytest.raises(po.ValidationError, match=r"delta: expected a failure probability in \(0, 1\)"):
        po.sets.weissman_radius(4, 100, 1.5)


@pytest.mark.parametrize("order", [0.5, 1.0, 2.0])
def test_shared_radii_meet_the_ball_boundary(rng, order):
    # Two conditionals at the shared radii, the marginal at its minimiser: the joint is on the sphere
    # D_α(P̂ || P) = B (the derivation of Theorem 1 with two conditionals moved); θ = 1 gives the
    # projection radius (Theorem 1 itself) and nothing to the other side.
    for _ in range(6):
        P = po.JointDistribution(rng.dirichlet(np.ones(12)).reshape(3, 4), n=300)
        F = po.RenyiBall(P, 0.03, order=order)
        s, t = rng.choice(3, size=2, replace=False)
        ends = F.shared_radii(int(s), int(t), np.array([1.0, 0.0]))
        assert ends[0][0] == pytest.approx(F.projection_radius(int(s)), rel=1e-12)
        assert ends[0][1] == pytest.approx(0.0, abs=1e-15)
        assert ends[1][0] == pytest.approx(0.0, abs=1e-15)
        theta = rng.uniform(0.05, 0.95)
        radius_s, radius_t = F.shared_radii(int(s), int(t), np.array([theta]))
        conditional = P.conditional_u_given_s()
        _, _, _, R_s = linear_extremes(conditional[s], radius_s[0], order, rng.normal(size=(1, 4)))
        _, _, _, R_t = linear_extremes(conditional[t], radius_t[0], order, rng.normal(size=(1, 4)))
        joint = F.closest_with_conditionals({int(s): R_s[0], int(t): R_t[0]})
        assert F.divergence(joint) == pytest.approx(F.radius, rel=1e-9)
        rows = joint.reshape(3, 4)
        assert rows[s] / rows[s].sum() == pytest.approx(R_s[0], abs=1e-12)
        assert rows[t] / rows[t].sum() == pytest.approx(R_t[0], abs=1e-12)


def test_closest_with_one_conditional_is_theorem1s_construction(rng):
    # P(·, s) = x R, the other rows scaled by (1 − x)/(1 − P̂_s), x = k/(k + 1 − P̂_s) with
    # k = P̂_s e^{(α−1) D_α(P̂(·|s) || R)/α} (Entropy paper Lemma A2).
    P = po.JointDistribution(rng.dirichlet(np.ones(9)).reshape(3, 3), n=300)
    F = po.RenyiBall(P, 0.05, order=2.0)
    R = rng.dirichlet(np.ones(3))
    k = P.p_s[1] * np.exp(renyi_divergence(P.conditional_u_given_s()[1], R, 2.0) / 2.0)
    x = k / (k + 1.0 - P.p_s[1])
    expected = P.probabilities * (1.0 - x) / (1.0 - P.p_s[1])
    expected[1] = x * R
    assert F.closest_with_conditionals({1: R}) == pytest.approx(expected.reshape(-1), abs=1e-15)


def test_linear_maximum_takes_one_radius_per_row(rng):
    # One call with a radius per row (0, finite, +inf; a centre with a zero) equals a call per row.
    p = rng.dirichlet(np.ones(5))
    p[0] = 0.0
    p /= p.sum()
    C = rng.normal(size=(4, 5))
    radii = np.array([0.0, 0.05, 0.4, np.inf])
    values, args = linear_maximum(p, radii, 2.0, C)
    for k in range(4):
        value, arg = linear_maximum(p, float(radii[k]), 2.0, C[k : k + 1])
        assert values[k] == pytest.approx(value[0], abs=1e-12)
        assert args[k] == pytest.approx(arg[0], abs=1e-12)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_linear_maximum_at_small_budgets_follows_the_second_order_expansion(rng, alpha):
    # Near p, D_α(p || R) = (α/2) χ²(R || p) + O(|R − p|³), so max cᵀR = pᵀc + sqrt(2 b Var_p(c) / α)
    # + O(b) (the third-order term: a relative error of order sqrt(b)): the root search starts from
    # this guess, and must land on it as b → 0.
    p = rng.dirichlet(np.ones(6))
    c = rng.normal(size=(3, 6))
    spread = np.sqrt(((c - (c @ p)[:, None]) ** 2) @ p)
    for b in (1e-6, 1e-8):
        value, arg = linear_maximum(p, b, alpha, c)
        rise = value - c @ p
        np.testing.assert_allclose(
            rise, np.sqrt(2.0 * b / alpha) * spread, rtol=10.0 * np.sqrt(b)
        )  # measured: at most 2.2·sqrt(b)
        assert np.all([renyi_divergence(p, r, alpha) <= b * (1.0 + 1e-9) for r in arg])


def test_linear_maximum_of_order_below_one_concentrates_when_the_budget_allows():
    # For α < 1, D_α(p || e_u) = −α/(1 − α) log p_u is finite: with a budget above it the maximiser
    # is the point mass on argmax c (the bracket then stays at the end of its range), and below it not.
    p, alpha = np.array([0.5, 0.3, 0.2]), 0.5
    c = np.array([[0.0, 1.0, 3.0]])
    at_mass = -alpha / (1.0 - alpha) * np.log(p[2])
    value, arg = linear_maximum(p, 1.5 * at_mass, alpha, c)
    assert value[0] == pytest.approx(3.0, abs=1e-9)
    np.testing.assert_allclose(arg[0], [0.0, 0.0, 1.0], atol=1e-9)
    below, _ = linear_maximum(p, 0.5 * at_mass, alpha, c)
    assert below[0] < 3.0 - 1e-3
