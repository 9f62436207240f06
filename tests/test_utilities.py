"""Utilities: mutual information, NMI and f-divergences against direct formulas."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from tests.conftest import random_mechanism


def _direct_f(q0, q1, f):
    return sum(b * f(a / b) for a, b in zip(q0, q1, strict=True))


def test_mutual_information_equals_entropy_difference(rng):
    for _ in range(10):
        p = rng.dirichlet(np.ones(5))
        W = random_mechanism(rng, 5, 4)
        p_y = p @ W.matrix
        h_y = -np.sum(p_y * np.log(p_y))
        h_y_given_x = -np.sum(p[:, None] * W.matrix * np.log(W.matrix))
        assert po.MutualInformation(p).value(W) == pytest.approx(h_y - h_y_given_x, abs=1e-12)


def test_identity_and_constant_channels():
    p = np.array([0.5, 0.25, 0.25])
    assert po.MutualInformation(p).value(np.eye(3)) == pytest.approx(po.entropy(p))
    assert po.NormalizedMutualInformation(p).value(np.eye(3)) == pytest.approx(1.0)
    assert po.MutualInformation(p).value(np.full((3, 2), 0.5)) == pytest.approx(0.0, abs=1e-15)


def test_mutual_information_with_zero_prior_and_zero_entries():
    p = np.array([0.5, 0.5, 0.0])
    W = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    assert po.MutualInformation(p).value(W) == pytest.approx(np.log(2))


@pytest.mark.parametrize(
    ("kind", "f"),
    [
        ("kl", lambda t: t * np.log(t)),
        ("tv", lambda t: 0.5 * abs(t - 1)),
        ("chi2", lambda t: (t - 1) ** 2),
        ("hellinger", lambda t: 0.5 * (np.sqrt(t) - 1) ** 2),
    ],
)
def test_f_divergences_against_direct_sum(rng, kind, f):
    p0, p1 = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
    W = random_mechanism(rng, 4, 3)
    q0, q1 = p0 @ W.matrix, p1 @ W.matrix
    assert po.FDivergence(kind, p0, p1).value(W) == pytest.approx(_direct_f(q0, q1, f), abs=1e-12)
    # A user-given generator reproduces the built-in.
    user = po.FDivergence(np.vectorize(f), p0, p1)
    assert user.value(W) == pytest.approx(_direct_f(q0, q1, f), abs=1e-12)


def test_f_divergence_zero_conventions():
    p0, p1 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    identity = np.eye(2)
    assert po.FDivergence("tv", p0, p1).value(identity) == pytest.approx(1.0)
    assert po.FDivergence("hellinger", p0, p1).value(identity) == pytest.approx(1.0)
    assert po.FDivergence("kl", p0, p1).value(identity) == np.inf
    assert po.FDivergence("chi2", p0, p1).value(identity) == np.inf
    user = po.FDivergence(lambda t: 0.5 * np.abs(t - 1), p0, p1, slope_at_infinity=0.5)
    assert user.value(identity) == pytest.approx(1.0)
    with pytest.raises(po.ValidationError, match="slope_at_infinity"):
        po.FDivergence(lambda t: 0.5 * np.abs(t - 1), p0, p1).value(identity)
    with pytest.raises(po.ValidationError, match=r"f: expected a generator with f\(1\) = 0"):
        po.FDivergence(lambda t: t, p0, p1)
    with pytest.raises(po.ValidationError, match="f: expected one of kl, tv"):
        po.FDivergence("renyi", p0, p1)


def test_mu_sums_to_value(rng):
    p = rng.dirichlet(np.ones(6))
    W = random_mechanism(rng, 6, 5)
    mi = po.MutualInformation(p)
    assert mi.mu(W.matrix).sum() == pytest.approx(mi.value(W))
    # Sublinearity: μ(2w) = 2μ(w) and μ(w + v) <= μ(w) + μ(v).
    w, v = W.matrix[:, :1], W.matrix[:, 1:2]
    assert mi.mu(2 * w)[0] == pytest.approx(2 * mi.mu(w)[0])
    assert mi.mu(w + v)[0] <= mi.mu(w)[0] + mi.mu(v)[0] + 1e-15


def test_nmi_needs_positive_entropy():
    with pytest.raises(po.ValidationError, match="positive entropy"):
        po.NormalizedMutualInformation([1.0, 0.0])


@pytest.mark.parametrize("cls", [po.MutualInformation, po.NormalizedMutualInformation])
def test_gradient_matches_finite_differences_and_euler(cls, rng):
    # Column generation linearises μ with .gradient; a wrong scale (e.g. NMI's 1/H(X)) would
    # silently misprice columns. Check against central differences and Euler's identity ∇μ(v)ᵀv = μ(v).
    P = rng.dirichlet(np.ones(6))
    utility = cls(P)
    v = rng.uniform(0.1, 1.0, size=6)
    h = 1e-6
    numeric = np.array(
        [
            (utility.mu((v + h * e)[:, None])[0] - utility.mu((v - h * e)[:, None])[0]) / (2 * h)
            for e in np.eye(6)
        ]
    )
    np.testing.assert_allclose(utility.gradient(v), numeric, rtol=1e-6, atol=1e-9)
    assert utility.gradient(v) @ v == pytest.approx(utility.mu(v[:, None])[0], rel=1e-12)


def test_sibson_near_one_at_tiny_eps_solves():
    # α = 1.0001 at ε = 1e-9 on an ID-LDP cone: the vertex LP's bound on t = Σ_y μ(w_y) fell 4e-10 below
    # the design's t = 1, and g(t) = α/(α−1) log t made that 4e-6 below the design's value 0, past the
    # order check's 1e-7: a SolverError (fuzzing). Any ε·c-private channel has I_α <= I_∞ <= ε·max c
    # (I_∞ = log Σ_y max_x W[x, y] and max_x W[x, y] <= e^{ε max c} min_x W[x, y]).
    b = np.array([0.5, 0.5, 2.0, 2.0])
    pairs = [
        (po.given(x=a), po.given(x=c), float(min(b[a], b[c]))) for a in range(4) for c in range(4) if a != c
    ]
    definition = po.RatioConstraints(pairs, eps=1e-9, n_inputs=4, name="ID-LDP")
    prior = np.array([0.22215620029780359, 0.0, 0.7778437997021964, 0.0])
    solution = po.Problem(definition, po.SibsonMutualInformation(prior, 1.0001)).solve()
    assert -1e-12 <= solution.value <= 2e-9
    assert solution.upper >= 0.0
    assert solution.certificate.audit_passed
