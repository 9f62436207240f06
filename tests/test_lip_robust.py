"""LIP (and other pairs affine in the joint P) over Rényi balls and polytopes: the rectangular rule's
joint envelope ``D ⊇ F`` (privopt.sets.counterparts), and the interval audit over the set.

Each design is checked against facts that do not come from the compiler: the distributions of the set
(drawn at random, or a polytope's vertices and their mixtures) keep the design within ε; the robust
optimum is at most the optimum at the centre (the ball contains it, so its cone is smaller); and the
audit's upper end bounds every ratio found at a distribution of the set.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import privopt as po

P = po.JointDistribution(np.array([[0.2, 0.1, 0.1], [0.15, 0.25, 0.2]]), n=500)


def _lip_leakage(W: np.ndarray, Q: np.ndarray, shape: tuple[int, int]) -> float:
    """``max_{y,s} |log P(y|s) − log P(y)|`` of the mechanism ``W`` (rows ``x = (s, u)``) at ``Q``."""
    joint = Q.reshape(shape)
    p_s = joint.sum(axis=1)
    n_u = shape[1]
    marginal = Q @ W
    worst = 0.0
    for s in range(shape[0]):
        conditional = (joint[s] / p_s[s]) @ W[s * n_u : (s + 1) * n_u]
        worst = max(worst, float(np.max(np.abs(np.log(conditional / marginal)))))
    return worst


def _ball_samples(F: po.RenyiBall, count: int, seed: int) -> list[np.ndarray]:
    """Distributions of the ball: random multiplicative perturbations of its centre, kept if inside."""
    rng = np.random.default_rng(seed)
    center = F.center.p_x
    found = []
    for scale in (0.05, 0.15, 0.3):
        for _ in range(count):
            Q = center * np.exp(rng.normal(0.0, scale, center.size))
            Q /= Q.sum()
            if F.contains(Q):
                found.append(Q)
    return found


@pytest.fixture(scope="module")
def ball() -> po.RenyiBall:
    return po.RenyiBall.confidence(P, level=0.95)


@pytest.fixture(scope="module")
def robust(ball):
    return po.Problem(po.LIP(1.0, ball), po.MutualInformation(P)).solve()


def test_lip_over_a_renyi_ball_is_designed_and_audited(robust, ball):
    assert robust.status is po.Status.OPTIMAL
    assert robust.certificate.audit_passed
    assert robust.certificate.checked
    samples = _ball_samples(ball, 2000, seed=1)
    assert len(samples) > 1000
    W = robust.mechanism.matrix
    worst = max(_lip_leakage(W, Q, P.shape) for Q in samples)
    report = robust.certificate.audit
    assert worst <= report.upper + 1e-9 <= 1.0 + 1e-7
    assert report.lower <= report.upper


def test_the_robust_optimum_is_below_the_optimum_at_the_centre(robust):
    point = po.Problem(po.LIP(1.0, P), po.MutualInformation(P)).solve()
    assert point.status is po.Status.OPTIMAL
    assert robust.value <= point.value + 1e-9
    # The centre's design leaks more than ε somewhere in the ball: the robust counterpart is needed.
    assert not po.audit(point.mechanism, robust.problem.definition).satisfied


def test_the_compiled_rows_use_the_joint_envelope(ball):
    vertices = ball.joint_envelope()
    assert len(vertices) == P.n_x
    lower = np.min([v.p_x for v in vertices], axis=0)
    # L_x = min over the ball of P(x): the ball's own minimiser of P(x) attains it and lies in the ball.
    low, _, arg_low, _ = ball.joint_extremes(np.eye(P.n_x))
    np.testing.assert_allclose(lower, low, atol=1e-12)
    for x in range(P.n_x):
        assert ball.contains(arg_low[x], atol=1e-9)
        assert arg_low[x][x] == pytest.approx(low[x], abs=1e-12)
    cone = po.Problem(po.LIP(1.0, ball), po.MutualInformation(P)).get_problem_data().cone
    assert {block.counterpart for block in cone.blocks} == {"rectangular"}


def test_interval_audit_brackets_random_mechanisms(ball):
    rng = np.random.default_rng(4)
    definition = po.LIP(2.0, ball)
    samples = _ball_samples(ball, 1000, seed=2)
    for _ in range(10):
        W = rng.dirichlet(np.ones(3), size=P.n_x)
        report = po.audit(W, definition)
        sampled = max(_lip_leakage(W, Q, P.shape) for Q in samples)
        assert sampled <= report.upper + 1e-9
        assert report.lower <= report.upper + 1e-12
        # The lower end is attained at a distribution of the ball: no sample may beat the upper end,
        # and the local search finds at least what random sampling finds (up to its own tolerance).
        assert report.lower >= sampled - 0.05


def test_lip_over_a_polytope_holds_at_every_mixture_of_its_vertices():
    vertices = np.array(
        [[0.2, 0.1, 0.1, 0.15, 0.25, 0.2], [0.25, 0.1, 0.05, 0.2, 0.2, 0.2], [0.15, 0.15, 0.1, 0.1, 0.3, 0.2]]
    )
    F = po.Polytope(vertices, shape=(2, 3))
    solution = po.Problem(po.LIP(0.8, F), po.MutualInformation(vertices[0])).solve()
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.audit_passed
    W = solution.mechanism.matrix
    rng = np.random.default_rng(5)
    for mix in rng.dirichlet(np.ones(3), size=500):
        assert _lip_leakage(W, mix @ vertices, (2, 3)) <= 0.8 + 1e-7
    assert solution.certificate.audit.upper <= 0.8 + 1e-7


def test_pml_over_a_renyi_ball_is_sound(ball):
    """A point mass against the output marginal (PML's pairs) over a Rényi ball: the joint envelope."""
    solution = po.Problem(po.PML(1.0, ball), po.MutualInformation(P)).solve()
    assert solution.certificate.audit_passed
    W = solution.mechanism.matrix
    for Q in _ball_samples(ball, 500, seed=3):
        leakage = np.max(np.log(W.max(axis=0) / (Q @ W)))
        assert leakage <= 1.0 + 1e-7


def test_lip_and_sensitive_ldp_over_an_l1_ball_hold_at_its_vertices():
    small = po.JointDistribution(np.array([[0.3, 0.2], [0.15, 0.35]]), n=500)
    F = po.L1Ball(small, 0.1)
    vertices = F.vertices()
    for definition in (po.LIP(1.0, F), po.SensitiveLDP(1.0, F)):
        solution = po.Problem(definition, po.MutualInformation(small)).solve()
        assert solution.status is po.Status.OPTIMAL
        assert solution.certificate.audit_passed
        W = solution.mechanism.matrix
        for Q in vertices:  # every distribution of the ball is a mixture of these
            joint = Q.reshape(small.shape)
            conditionals = [(joint[s] / joint[s].sum()) @ W[2 * s : 2 * s + 2] for s in range(2)]
            if isinstance(definition, po.LIP):
                assert _lip_leakage(W, Q, small.shape) <= 1.0 + 1e-7
            else:
                assert np.max(np.abs(np.log(conditionals[0] / conditionals[1]))) <= 1.0 + 1e-7


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_the_pairwise_counterpart_is_ldp_wrt_s_and_keeps_lip_over_the_ball(eps, ball):
    """``lip_counterpart="pairwise"``: LDP w.r.t. S's cone (the same optimum), which keeps LIP at every
    distribution of the ball (``P(Y=y)`` mixes the conditionals of the same ``P``), as the audit proves."""
    pairwise = po.Problem(po.LIP(eps, ball), po.MutualInformation(P), lip_counterpart="pairwise").solve()
    sensitive = po.Problem(po.SensitiveLDP(eps, ball), po.MutualInformation(P)).solve()
    assert pairwise.status is po.Status.OPTIMAL
    assert pairwise.value == pytest.approx(sensitive.value, abs=1e-9)
    assert pairwise.certificate.audit_passed
    assert pairwise.certificate.checked
    report = pairwise.certificate.audit
    W = pairwise.mechanism.matrix
    worst = max(_lip_leakage(W, Q, P.shape) for Q in _ball_samples(ball, 1000, seed=6))
    assert worst <= report.upper + 1e-9 <= eps + 1e-7
    assert report.lower <= report.upper


def test_the_mixture_bound_proves_what_the_decoupled_bound_cannot(ball, monkeypatch):
    """At ε = 0.5 the pairwise design's decoupled upper end (the joint ``P`` apart from ``P(·|s)``) is
    0.557 > ε; the mixture bound proves it within ε, and random distributions of the ball agree."""
    robust_audit = importlib.import_module("privopt.audit.robust")
    design = po.Problem(po.LIP(0.5, ball), po.MutualInformation(P), lip_counterpart="pairwise").solve()
    with_mixture = po.audit(design.mechanism, po.LIP(0.5, ball))
    monkeypatch.setattr(robust_audit, "_mixture_form", lambda pair, layout: None)
    decoupled = po.audit(design.mechanism, po.LIP(0.5, ball))
    assert decoupled.upper > 0.55
    assert not decoupled.satisfied
    assert with_mixture.satisfied
    assert with_mixture.upper <= 0.5 + 1e-7
    sampled = max(
        _lip_leakage(design.mechanism.matrix, Q, P.shape) for Q in _ball_samples(ball, 1000, seed=7)
    )
    assert sampled <= with_mixture.upper + 1e-9


def test_neither_counterpart_contains_the_other(ball):
    """The measured reason both are offered (docs/compiler.md §1): at ε = 0.5 the pairwise cone gives
    more, at ε = 2 the rectangular one (the vertex route: exact optima of each cone)."""

    def value(eps: float, counterpart: str) -> float:
        problem = po.Problem(po.LIP(eps, ball), po.MutualInformation(P), lip_counterpart=counterpart)
        return problem.solve(route="vertex").value

    assert value(0.5, "pairwise") > value(0.5, "rectangular") + 0.1
    assert value(2.0, "rectangular") > value(2.0, "pairwise") + 0.01


def test_the_pairwise_option_is_not_used_where_lip_is_exact():
    exact = po.Problem(po.LIP(1.0, P), po.MutualInformation(P)).solve()
    pairwise = po.Problem(po.LIP(1.0, P), po.MutualInformation(P), lip_counterpart="pairwise").solve()
    assert pairwise.value == pytest.approx(exact.value, abs=1e-12)


def test_auto_keeps_the_rectangular_cone_where_it_is_solved_exactly(ball):
    """``lip_counterpart="auto"`` (the default) on the 2×3 ball: the rectangular cone takes the vertex
    route, so it is kept (the same cone as asking for it)."""
    auto = po.Problem(po.LIP(1.0, ball), po.MutualInformation(P))
    rectangular = po.Problem(po.LIP(1.0, ball), po.MutualInformation(P), lip_counterpart="rectangular")
    assert auto.options.lip_counterpart == "auto"
    assert auto.get_problem_data().compile_options.lip_counterpart == "rectangular"
    assert np.array_equal(
        auto.get_problem_data().cone.matrix().toarray(),
        rectangular.get_problem_data().cone.matrix().toarray(),
    )
    assert auto.compile().counterpart.startswith("rectangular (auto")
    assert "LIP counterpart: rectangular" in auto.describe()


def test_auto_takes_the_pairwise_cone_where_the_rectangular_one_needs_column_generation():
    """On a 3×4 ball the rectangular cone's enumeration is predicted too long for its share of the
    timeout, and column generation on it has no certified bound; ``"auto"`` compiles the pairwise cone
    (LDP w.r.t. S's, row for row), which the vertex route solves exactly, and the audit proves LIP
    over the ball."""
    joint = po.JointDistribution(
        np.array([[0.08, 0.12, 0.05, 0.1], [0.07, 0.09, 0.11, 0.06], [0.1, 0.05, 0.09, 0.08]]), n=1000
    )
    F = po.RenyiBall.confidence(joint, level=0.95)
    mi = po.MutualInformation(joint)
    rectangular = po.Problem(po.LIP(1.0, F), mi, lip_counterpart="rectangular")
    assert rectangular.plan()[0] == "colgen"
    auto = po.Problem(po.LIP(1.0, F), mi)
    data = auto.get_problem_data()
    assert data.compile_options.lip_counterpart == "pairwise"
    sensitive = po.Problem(po.SensitiveLDP(1.0, F), mi).get_problem_data().cone
    assert np.array_equal(data.cone.matrix().toarray(), sensitive.matrix().toarray())
    assert auto.compile().counterpart.startswith("pairwise (auto")
    solution = auto.solve()
    assert solution.route == "vertex"
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.audit_passed
    assert solution.certificate.checked


@pytest.mark.parametrize("bad", ["joint", 1, None])
def test_a_bad_lip_counterpart_is_refused(bad, ball):
    with pytest.raises(po.ValidationError, match="lip_counterpart"):
        po.Problem(po.LIP(1.0, ball), po.MutualInformation(P), lip_counterpart=bad)


def test_a_small_cone_with_many_rows_is_enumerated_not_column_generated():
    """LIP over a 2 × 2 ℓ1 ball: slice dimension 3, 336 rows. A slice of dimension d has O(m^⌊d/2⌋)
    vertices, so the rows' count grows the prediction linearly here: it takes the vertex route (it
    went to a 25 s column generation when the prediction scaled as rows^3.24)."""
    small = po.JointDistribution(np.array([[0.3, 0.2], [0.15, 0.35]]), n=500)
    problem = po.Problem(po.LIP(1.0, po.L1Ball(small, 0.1)), po.MutualInformation(small))
    assert problem.get_problem_data().cone.n_rows > 300
    assert problem.plan()[0] == "vertex"
    exact = problem.solve()
    assert exact.route == "vertex"
    assert exact.status is po.Status.OPTIMAL
    assert exact.certificate.checked
