"""Audits over sets that are not finite: ℓ1 balls (exact), Rényi balls and polytopes (intervals)."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from tests.conftest import random_distribution, random_mechanism


def test_pml_l1_audit_equals_vertex_audit(rng):
    # With β < 2 min P̂ the ball is the polytope with vertices P̂ + β/2(e_j − e_i): the exact greedy
    # audit and the vertex audit are two routes to the same number.
    for _ in range(10):
        p = rng.dirichlet(np.full(4, 2.0))
        ball = po.L1Ball(p, float(rng.uniform(0, 1.9 * p.min())))
        W = random_mechanism(rng, 4, 3)
        greedy = po.audit(W, po.PML(1.0, ball)).eps
        vertices = po.audit(W, po.PML(1.0, po.Polytope(ball.vertices()))).eps
        assert greedy == pytest.approx(vertices, abs=1e-12)


def test_pml_l1_audit_large_radius_matches_sampling(rng):
    # Any β: no distribution sampled in the ball leaks more than the audit says.
    p = rng.dirichlet(np.ones(4))
    ball = po.L1Ball(p, 0.8)
    W = random_mechanism(rng, 4, 3)
    bound = po.audit(W, po.PML(1.0, ball)).eps
    for _ in range(2000):
        q = rng.dirichlet(np.ones(4))
        if ball.contains(q):
            assert po.audit(W, po.PML(1.0, q)).eps <= bound + 1e-12


def _points_in_ball(F: po.RenyiBall, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Distributions in F: mixtures of P̂ with random points, pulled in until they are inside."""
    out = []
    while len(out) < count:
        q = rng.dirichlet(np.full(F.n_x, 0.5))
        for t in (1.0, 0.5, 0.25, 0.1, 0.05, 0.02):
            candidate = (1 - t) * F.center.p_x + t * q
            if F.contains(candidate):
                out.append(candidate)
                break
    return out


def test_renyi_interval_brackets_sampled_distributions(rng):
    for _ in range(3):
        P = po.JointDistribution.from_counts(
            rng.multinomial(200, rng.dirichlet(np.ones(6))).reshape(2, 3) + 1
        )
        F = po.RenyiBall.confidence(P)
        W = random_mechanism(rng, 6, 4)
        report = po.audit(W, po.SensitiveLDP(1.0, F))
        assert report.lower <= report.upper + 1e-12
        sampled = max(
            po.audit(W, po.SensitiveLDP(1.0, q.reshape(2, 3))).eps for q in _points_in_ball(F, rng, 150)
        )
        # Points of F can never exceed the upper end; the lower end is attained inside F, so it is at
        # least as good as sampling (local search beats random points).
        assert sampled <= report.upper + 1e-9
        assert report.lower >= sampled - 1e-9
        # Without the local search: the same upper end and verdict, a lower end that is still attained
        # in F (at least the candidates'), and no better than the searched one.
        quick = po.audit(W, po.SensitiveLDP(1.0, F), search=False)
        assert quick.upper == pytest.approx(report.upper, rel=1e-15)
        assert quick.satisfied == report.satisfied
        assert 0.0 <= quick.lower <= report.lower + 1e-12
        assert quick.lower >= po.audit(W, po.SensitiveLDP(1.0, F.center)).eps - 1e-12  # P̂ is a candidate
        # Without a lower end at all: the same upper end and verdict, and the lower end 0.
        bare = po.audit(W, po.SensitiveLDP(1.0, F), lower=False)
        assert bare.upper == pytest.approx(report.upper, rel=1e-15)
        assert bare.satisfied == report.satisfied
        assert bare.lower == 0.0
        assert bare.method.endswith("; lower end not looked for")


def test_audit_search_and_lower_take_bools():
    with pytest.raises(po.ValidationError, match="search"):
        po.audit(np.eye(2), po.LDP(1.0), search="no")
    with pytest.raises(po.ValidationError, match="lower"):
        po.audit(np.eye(2), po.LDP(1.0), lower=None)


def test_designed_polyopt_passes_robust_audit(example1):
    F = po.RenyiBall.confidence(example1)
    for self_pairs in (True, False):
        for envelope in ("lower", "box"):
            solution = po.Problem(
                po.SensitiveLDP(np.log(2), F),
                po.MutualInformation(example1),
                self_pairs=self_pairs,
                envelope=envelope,
            ).solve()
            assert solution.certificate.audit.upper <= np.log(2) + 1e-7


def test_box_envelope_never_loses_utility(rng):
    for _ in range(3):
        P = po.JointDistribution.from_counts(
            rng.multinomial(150, rng.dirichlet(np.ones(4))).reshape(2, 2) + 1
        )
        F = po.RenyiBall.confidence(P)
        mi = po.MutualInformation(P)
        lower = po.Problem(po.SensitiveLDP(0.7, F), mi).solve().value
        box = po.Problem(po.SensitiveLDP(0.7, F), mi, envelope="box").solve().value
        assert box >= lower - 1e-9


def test_conditional_bounds_set_is_exact(rng):
    L = np.array([[0.2, 0.1, 0.3], [0.05, 0.4, 0.1]])
    F = po.ConditionalBounds(L)
    W = random_mechanism(rng, 6, 4)
    report = po.audit(W, po.SensitiveLDP(1.0, F))
    assert report.exact
    # The worst case is at vertices of D_s1 × D_s2: compare with conditionals at those vertices.
    worst = 0.0
    envelopes = [F.conditional_envelope(s) for s in range(2)]
    for s1, s2 in ((0, 1), (1, 0)):
        top = envelopes[s1] @ W.matrix[3 * s1 : 3 * s1 + 3]
        bottom = envelopes[s2] @ W.matrix[3 * s2 : 3 * s2 + 3]
        worst = max(worst, float(np.max(np.log(top.max(axis=0) / bottom.min(axis=0)))))
    assert report.eps == pytest.approx(worst, abs=1e-12)


def test_polytope_interval(rng):
    members = [random_distribution(rng, (2, 2), alpha=2.0).p_x for _ in range(3)]
    polytope = po.Polytope(members, shape=(2, 2))
    W = random_mechanism(rng, 4, 3)
    report = po.audit(W, po.SensitiveLDP(1.0, polytope))
    at_vertices = po.audit(W, po.SensitiveLDP(1.0, po.FiniteSet([m.reshape(2, 2) for m in members]))).eps
    assert report.lower == pytest.approx(at_vertices, abs=1e-12)
    assert report.upper >= report.lower
    assert report.method.endswith("; lower = polytope vertices")
    bare = po.audit(W, po.SensitiveLDP(1.0, polytope), lower=False)
    assert bare.upper == pytest.approx(report.upper, rel=1e-15)
    assert bare.lower == 0.0
    assert bare.method.endswith("vertices; lower end not looked for")


def test_realized_eps_against_true_distribution(example1):
    # Entropy paper §8.3, eq. 85: ε* of a mechanism under the true P*.
    p_star = po.JointDistribution([[0.1, 0.1], [0.2, 0.6]])
    W = po.mechanisms.srr(2, 2, np.log(2))
    report = po.realized_eps(W, po.SensitiveLDP(np.log(2), po.RenyiBall.confidence(example1)), p_star)
    cond = p_star.conditional_x_given_s() @ W.matrix
    assert report.eps == pytest.approx(np.max(np.abs(np.log(cond[0] / cond[1]))), abs=1e-12)


def test_frontier_lower_end_matches_the_local_search(rng, monkeypatch):
    # On small balls (local search) and with the frontier forced: the frontier is the exact reduction of
    # a pair to one share of the budget, so it is at least the local search's lower end (to the grid's
    # precision) and never above the upper end.
    import importlib

    robust = importlib.import_module("privopt.audit.robust")
    for trial in range(12):
        shape = [(2, 3), (3, 3), (2, 5)][trial % 3]
        P = po.JointDistribution(rng.dirichlet(np.ones(shape[0] * shape[1])).reshape(shape), n=400)
        F = po.RenyiBall.confidence(P) if trial % 2 else po.RenyiBall(P, 0.05, order=1.0)
        W = random_mechanism(rng, P.n_x, 4)
        local = po.audit(W, po.SensitiveLDP(1.0, F))
        monkeypatch.setattr(robust, "_LOCAL_SEARCH_MAX_INPUTS", 0)
        frontier = po.audit(W, po.SensitiveLDP(1.0, F))
        monkeypatch.undo()
        assert frontier.upper == local.upper
        assert local.lower - 1e-6 <= frontier.lower <= frontier.upper + 1e-12
