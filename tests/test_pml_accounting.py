"""(ε, δ)-PML accounting (PML paper eqs. 37–39), leakage capacity and sensitivity (Defs. 5–6), and
Theorems 3–4 reported as bound against exact."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt.mechanisms.pml_accounting import (
    beta_star,
    delta_min,
    eps_prime,
    leakage_capacity,
    leakage_sensitivity,
    max_divergence_sensitivity,
    pml_level,
    privacy_region,
    theorem3_check,
    theorem4_check,
)
from tests.conftest import random_mechanism

# PML paper Example 1 (eq. 34): optimal for ε = log(9/8), P = (2/5, 1/5, 1/5, 1/5), first privacy region.
EXAMPLE1 = np.array(
    [
        [0.325, 0.225, 0.225, 0.225],
        [0.45, 0.1, 0.225, 0.225],
        [0.45, 0.225, 0.1, 0.225],
        [0.45, 0.225, 0.225, 0.1],
    ]
)
EXAMPLE1_PRIOR = np.array([0.4, 0.2, 0.2, 0.2])


# ------------------------------------------------------------------ eqs. 37–39
def test_beta_star_is_eq37():
    for m, n, delta in ((100, 2, 0.05), (10_000, 20, 1e-5), (32_561, 4, 1e-9)):
        direct = np.sqrt(2.0 / m * (np.log(2.0**n - 2.0) - np.log(delta)))
        assert beta_star(delta, m, n) == pytest.approx(direct, rel=1e-14)


@pytest.mark.parametrize("n_symbols", [2, 4, 20])
def test_corollary3_inverts_eqs_37_38(n_symbols):
    # Cor. 3 (eq. 39) against a direct evaluation of eqs. 37–38: feeding δ_min(ε′) back into eq. 37 gives
    # β = 2(e^{−ε} − e^{−ε′}), and eq. 38 then returns ε′ exactly.
    checked = 0
    for eps in (0.1, np.log(5), 2.0):
        for gap in (0.01, 0.1, 0.5):
            for m in (1_000, 100_000):
                target = eps + gap
                delta = delta_min(target, eps, m, n_symbols)
                if not 1e-300 < delta < 1.0:
                    continue  # vacuous (Fig. 3a clips these at 1) or below double precision
                assert beta_star(delta, m, n_symbols) == pytest.approx(
                    2 * (np.exp(-eps) - np.exp(-target)), rel=1e-9
                )
                assert eps_prime(eps, delta, m, n_symbols) == pytest.approx(target, abs=1e-9)
                checked += 1
    assert checked >= 5


def test_delta_min_decreases_with_samples_and_gap():
    # Cor. 3's qualitative claims (PML paper §IV-D): more samples or a larger ε′ − ε, smaller δ.
    assert delta_min(1.2, 1.0, 20_000, 4) < delta_min(1.2, 1.0, 10_000, 4)
    assert delta_min(1.3, 1.0, 10_000, 4) < delta_min(1.2, 1.0, 10_000, 4)


# ------------------------------------------------------------------ Defs. 5 and 6
def test_capacity_over_l1_ball_equals_max_over_vertices(rng):
    # With β < 2 min P̂ the ball's extreme points are P̂ + β/2 (e_j − e_i) (L1Ball.vertices); PML is
    # convex in the prior (Prop. 1), so the max over them is C (Cor. 1) — a second, independent route.
    for _ in range(20):
        n = int(rng.integers(2, 6))
        p = rng.dirichlet(np.ones(n))
        ball = po.L1Ball(p, rng.uniform(0.0, 2 * p.min()))
        W = random_mechanism(rng, n, int(rng.integers(2, 6))).matrix
        by_vertices = max(pml_level(W, v) for v in ball.vertices())
        assert leakage_capacity(W, ball) == pytest.approx(by_vertices, abs=1e-12)
        # random priors inside the ball never exceed it
        for _ in range(20):
            step = rng.normal(size=n)
            step -= step.mean()
            q = p + step / np.abs(step).sum() * ball.radius * rng.uniform()
            assert pml_level(W, q) <= leakage_capacity(W, ball) + 1e-12


def test_capacity_over_finite_set_equals_pml_audit(rng):
    # Over a finite set C is the worst member's ε_min — the exact PML audit (ratio pairs) agrees.
    for _ in range(10):
        members = [rng.dirichlet(np.ones(4)) for _ in range(3)]
        W = random_mechanism(rng, 4, 3)
        expected = po.audit(W, po.PML(0.0, po.FiniteSet(members))).eps
        assert leakage_capacity(W, po.FiniteSet(members)) == pytest.approx(expected, abs=1e-12)
        assert pml_level(W, members[0]) == pytest.approx(po.audit(W, po.PML(0.0, members[0])).eps, abs=1e-12)


def test_sensitivity_ordering_and_strict_gap(rng):
    # Def. 6's S_P <= max D_∞(W∘P || W∘Q) (Remark 2) <= Theorem 4's bound; the first inequality is strict
    # for some mechanisms (the paper's "S_P = max D_∞" does not hold in general).
    strict = 0
    for _ in range(40):
        n = 3
        p = rng.dirichlet(np.full(n, 2.0))
        ball = po.L1Ball(p, rng.uniform(0.0, 1.9 * p.min()))
        W = random_mechanism(rng, n, 3)
        s = leakage_sensitivity(W, p, ball)
        d = max_divergence_sensitivity(W, p, ball)
        check = theorem4_check(W, p, ball.radius)
        assert s <= d + 1e-12
        assert d <= check.bound + 1e-12
        assert check.holds
        strict += d > s + 1e-3
    assert strict > 0


# ------------------------------------------------------------------ Theorems 3 and 4
@pytest.mark.parametrize("beta", [0.02, 0.1, 0.2, 0.39])
def test_theorem4_equality_first_region_example1(beta):
    # PML paper Example 1 (first privacy region, extremal): Theorem 4 holds with equality (k = 1).
    assert pml_level(EXAMPLE1, EXAMPLE1_PRIOR) == pytest.approx(np.log(9 / 8), abs=1e-14)
    check = theorem4_check(EXAMPLE1, EXAMPLE1_PRIOR, beta)
    assert check.details["region"] == 1
    assert check.exact == pytest.approx(check.bound, abs=1e-12)
    assert check.bound == pytest.approx(-np.log(1 - beta / 2 * (9 / 8 - 1) / 0.2), abs=1e-14)


@pytest.mark.parametrize("beta", [0.02, 0.1, 0.19])
def test_theorem4_equality_k_singular_example2(beta):
    # PML paper Example 2: the 2-singular mechanism on N = 10 uniform symbols is log 5-PML and has a zero
    # in every column, so Theorem 4 (k > 1) holds with equality: −log(1 − 5β/2).
    W = po.mechanisms.k_singular(10, 2)
    prior = np.full(10, 0.1)
    check = theorem4_check(W, prior, beta)
    assert check.details["region"] > 1
    assert check.exact == pytest.approx(-np.log(1 - 5 * beta / 2), abs=1e-12)
    assert check.bound == pytest.approx(check.exact, abs=1e-12)


def test_theorem3_holds(rng):
    for _ in range(20):
        p = rng.dirichlet(np.full(4, 2.0))
        ball = po.L1Ball(p, 1.5 * p.min())
        W = random_mechanism(rng, 4, 4)
        step = rng.normal(size=4)
        step -= step.mean()
        q = p + step / np.abs(step).sum() * ball.radius
        check = theorem3_check(W, p, q, ball)
        assert check.holds
        assert check.exact == pytest.approx(abs(pml_level(W, p) - pml_level(W, q)), abs=1e-15)


def test_privacy_region():
    # Def. 4 for P = (0.4, 0.3, 0.2, 0.1): ε_1 = −log 0.9, ε_2 = −log 0.7, ε_3 = −log 0.4.
    p = [0.4, 0.3, 0.2, 0.1]
    assert privacy_region(p, 0.0) == 1
    assert privacy_region(p, -np.log(0.9) - 1e-9) == 1
    assert privacy_region(p, -np.log(0.9) + 1e-9) == 2
    assert privacy_region(p, -np.log(0.7) + 1e-9) == 3
    assert privacy_region(p, -np.log(0.4) + 1e-9) == 4


# ------------------------------------------------------------------ bad input
def test_bad_input():
    for delta in (0.0, 1.0, 1.5, -0.1):
        with pytest.raises(po.ValidationError, match=r"delta: expected a probability in \(0, 1\)"):
            eps_prime(1.0, delta, 100, 4)
    with pytest.raises(po.ValidationError, match=r"delta: expected β\*\(δ\)·e\^ε < 2 for eq\. 38"):
        eps_prime(2.0, 0.01, 10, 4)
    with pytest.raises(po.ValidationError, match=r"eps_target: expected ε′ > ε"):
        delta_min(1.0, 1.0, 100, 4)
    with pytest.raises(po.ValidationError, match=r"beta: expected β < 2·min P = 0\.4"):
        theorem4_check(EXAMPLE1, EXAMPLE1_PRIOR, 0.5)
    with pytest.raises(po.ValidationError, match=r"eps: expected the mechanism's PML at P or more"):
        theorem4_check(EXAMPLE1, EXAMPLE1_PRIOR, 0.1, eps=0.05)
    with pytest.raises(po.ValidationError, match=r"Q: expected a distribution in F"):
        theorem3_check(EXAMPLE1, EXAMPLE1_PRIOR, [0.1, 0.3, 0.3, 0.3], po.L1Ball(EXAMPLE1_PRIOR, 0.1))
    with pytest.raises(po.ShapeError, match=r"F: expected priors over the mechanism's 4 inputs"):
        leakage_capacity(EXAMPLE1, po.L1Ball([0.5, 0.5], 0.1))
