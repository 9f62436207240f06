"""The declarative layer: generic ratio constraints and Pufferfish twins of the built-ins, the
DCP-like rejections, user utilities, inspection, JSON round trips and envelopes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import privopt as po
import privopt.data.information
from tests.conftest import random_distribution


@pytest.fixture
def labelled(example1):
    return po.JointDistribution(example1.probabilities, s_labels=["a", "b"], u_labels=["u", "v"], n=100)


def _optimum(definition, P, **options):
    return po.Problem(definition, po.MutualInformation(P), **options).solve().value


def _secrets_by_s(P):
    return {s: [x for x in P.x_labels if x[0] == s] for s in P.s_labels}


@pytest.mark.parametrize("eps", [0.4, 1.0])
def test_twins_give_the_same_optimum(labelled, eps):
    P = labelled
    records = {x: [x] for x in P.x_labels}
    whole = list(P.x_labels)
    by_s = _secrets_by_s(P)
    finite = po.FiniteSet([P, np.array([[0.1, 0.2], [0.3, 0.4]])])
    renyi = po.RenyiBall.confidence(P)
    ball = po.L1Ball(P, 0.1)
    twins = [
        (po.LDP(eps), po.Pufferfish(records, list(itertools.combinations(P.x_labels, 2)), eps, P)),
        (po.SensitiveLDP(eps, P), po.Pufferfish(by_s, [("a", "b")], eps, P)),
        (po.SensitiveLDP(eps, finite), po.Pufferfish(by_s, [("a", "b")], eps, finite)),
        (po.SensitiveLDP(eps, renyi), po.Pufferfish(by_s, [("a", "b")], eps, renyi)),
        (po.LIP(eps, P), po.Pufferfish({**by_s, "all": whole}, [("a", "all"), ("b", "all")], eps, P)),
        (
            po.PML(eps, P),
            po.Pufferfish({**records, "all": whole}, [(x, "all") for x in P.x_labels], eps, P, directed=True),
        ),
        (
            po.PML(eps, ball),
            po.Pufferfish(
                {**records, "all": whole}, [(x, "all") for x in P.x_labels], eps, ball, directed=True
            ),
        ),
        (
            po.SensitiveLDP(eps, renyi),
            po.RatioConstraints(
                [(po.given(s="a"), po.given(s="b")), (po.given(s="b"), po.given(s="a"))], eps, over=renyi
            ),
        ),
        (
            po.PML(eps, P),
            po.RatioConstraints([([po.given(x=x) for x in P.x_labels], po.marginal())], eps, over=P),
        ),
    ]
    for builtin, twin in twins:
        assert _optimum(twin, P) == pytest.approx(_optimum(builtin, P), abs=1e-9), (builtin, twin)


def test_twin_cones_are_equal_up_to_redundancy(labelled):
    # Same set of rows after scaling, for the exact cases (Prop. 2 vs the vertex rule differ in form).
    P = labelled
    by_s = _secrets_by_s(P)
    for builtin, twin in [
        (po.SensitiveLDP(1.0, P), po.Pufferfish(by_s, [("a", "b")], 1.0, P)),
        (
            po.LIP(1.0, P),
            po.Pufferfish({**by_s, "all": list(P.x_labels)}, [("a", "all"), ("b", "all")], 1.0, P),
        ),
    ]:
        rows = [
            {tuple(np.round(r / np.abs(r).max(), 12)) for r in d.row_cone().matrix().toarray()}
            for d in (builtin, twin)
        ]
        assert rows[0] == rows[1]


def test_new_definition_some_pairs_only(rng):
    # "Protect religion vs no religion, not between religions": only pairs (r, none) are discriminative.
    table = rng.dirichlet(np.ones(9)).reshape(3, 3)
    P = po.JointDistribution(table, s_labels=["christian", "muslim", "none"], u_labels=["x", "y", "z"])
    pairs = [(po.given(s=r), po.given(s="none")) for r in ("christian", "muslim")]
    pairs += [(po.given(s="none"), po.given(s=r)) for r in ("christian", "muslim")]
    policy = po.RatioConstraints(pairs, 0.5, over=P, name="ReligionPolicy")
    solution = po.Problem(policy, po.MutualInformation(P)).solve()
    assert solution.certificate.audit.satisfied
    # Fewer constraints than full LDP w.r.t. S: at least as much utility, and here strictly more.
    full = _optimum(po.SensitiveLDP(0.5, P), P)
    assert solution.value >= full - 1e-9
    assert (
        po.audit(solution.mechanism, po.SensitiveLDP(0.5, P)).eps > 0.5
    )  # religions are not protected from each other


def test_rejections_name_the_offending_part(labelled):
    F = po.RenyiBall.confidence(labelled)
    with pytest.raises(
        po.ValidationError,
        match=r"statistic: expected a sum of linear statistics .* adding a constant makes the constraint non-homogeneous",
    ):
        po.given(s="a") + 0.1
    with pytest.raises(po.ValidationError, match=r"multiplication by a finite number >= 0"):
        -1 * po.given(s="a")
    with pytest.raises(
        po.ValidationError, match=r"mixes affine in a conditional P\(·\|event\) and affine in the joint P"
    ):
        po.given(s="a") + po.marginal()
    # Over the whole simplex a conditional against the marginal has no rule (over a ball it has the
    # rectangular rule's joint envelope).
    with pytest.raises(
        po.NotSupportedError,
        match=r"the pair P\(Y=y\|S='a'\) <= e\^ε·P\(Y=y\) is not affine in the distribution in one way",
    ):
        po.RatioConstraints([(po.given(s="a"), po.marginal())], 1.0, over=po.Simplex((2, 2)))
    with pytest.raises(
        po.NotSupportedError, match=r"conditions on the event in .* which is not a value of S"
    ):
        po.RatioConstraints([(po.given(event=[("a", "u"), ("b", "u")]), po.given(s="a"))], 1.0, over=F)
    with pytest.raises(
        po.NotSupportedError, match="depends on the distribution, but no set of distributions was given"
    ):
        po.RatioConstraints([(po.given(s="a"), po.given(s="b"))], 1.0, n_inputs=4)
    with pytest.raises(po.ValidationError, match=r"mu: expected a positively homogeneous function"):
        po.Problem(po.LDP(1.0), po.SubConvexUtility(lambda V: (V**2).sum(axis=0), input_size=3)).solve()
    with pytest.raises(po.ValidationError, match=r"mu: expected a convex function"):
        po.Problem(
            po.LDP(1.0), po.SubConvexUtility(lambda V: np.sqrt(V).sum(axis=0) ** 2, input_size=3)
        ).solve()
    with pytest.raises(po.ValidationError, match="alpha: expected an order α > 1"):
        po.SibsonMutualInformation([0.5, 0.5], 0.5)


def test_user_sublinear_utility_is_accepted_and_exact(rng):
    # A user μ equal to the built-in MI's μ gives the same optimum (the check passes, the LP is exact).
    p = rng.dirichlet(np.ones(4))
    builtin = po.MutualInformation(p)
    user = po.SubConvexUtility(
        lambda V: privopt.data.information.mutual_information_mu(p, V), input_size=4, name="my MI"
    )
    assert po.Problem(po.LDP(0.8), user).solve().value == pytest.approx(
        po.Problem(po.LDP(0.8), builtin).solve().value, abs=1e-12
    )


def test_sibson_mutual_information(rng):
    p = rng.dirichlet(np.ones(3))
    W = po.mechanisms.grr(3, 1.0)
    alpha = 2.0
    direct = alpha / (alpha - 1) * np.log(np.sum((p @ W.matrix**alpha) ** (1 / alpha)))  # Sibson's definition
    assert po.SibsonMutualInformation(p, alpha).value(W) == pytest.approx(direct)
    # α → 1 recovers Shannon's mutual information.
    assert po.SibsonMutualInformation(p, 1 + 1e-7).value(W) == pytest.approx(
        po.MutualInformation(p).value(W), abs=1e-6
    )
    # The optimum over LDP beats GRR (the vertex route maximises the monotone surrogate exactly).
    assert (
        po.Problem(po.LDP(1.0), po.SibsonMutualInformation(p, alpha)).solve().value
        >= po.SibsonMutualInformation(p, alpha).value(W) - 1e-12
    )


def test_compile_describe_and_json_round_trip(tmp_path, labelled):
    problem = po.Problem(
        po.SensitiveLDP(np.log(2), po.RenyiBall.confidence(labelled)),
        po.MutualInformation(labelled),
        self_pairs=True,
    )
    compiled = problem.compile()
    text = compiled.describe()
    assert "rectangular rule" in text
    assert "route: vertex" in text
    loaded = po.load(po.save(compiled, tmp_path / "compiled.json"))
    np.testing.assert_array_equal(loaded.cone.matrix().toarray(), compiled.cone.matrix().toarray())
    solution = problem.solve()
    back = po.load(po.save(solution, tmp_path / "solution.json"))
    np.testing.assert_array_equal(back.mechanism.matrix, solution.mechanism.matrix)
    assert back.mechanism.input_labels == solution.mechanism.input_labels
    assert back.certificate.audit.to_dict() == solution.certificate.audit.to_dict()
    np.testing.assert_array_equal(back.certificate.lp_duals, solution.certificate.lp_duals)
    assert po.to_json(back) == po.to_json(solution)
    with pytest.raises(po.ValidationError, match="text: expected a privopt JSON document"):
        po.from_json("{}")


@pytest.mark.parametrize("envelope", ["box", "facets:2", "facets:5"])
def test_tighter_envelopes_never_lose_and_stay_private(rng, envelope):
    for _ in range(3):
        P = po.JointDistribution.from_counts(
            rng.multinomial(300, rng.dirichlet(np.ones(6))).reshape(2, 3) + 1
        )
        F = po.RenyiBall.confidence(P)
        mi = po.MutualInformation(P)
        lower = po.Problem(po.SensitiveLDP(1.0, F), mi).solve().value
        tight = po.Problem(po.SensitiveLDP(1.0, F), mi, envelope=envelope).solve()
        assert tight.value >= lower - 1e-9
        assert tight.certificate.audit.upper <= 1.0 + 1e-7


def test_envelopes_on_example1_gain_nothing(example1):
    # With |U| = 2 each projection F_{U|s} is an interval [L_{u1|s}, 1 − L_{u2|s}]: the "lower"
    # envelope is already exact, so "box" and "facets:k" cannot add utility on Example 1's data.
    F = po.RenyiBall.confidence(example1)
    values = [
        _optimum(po.SensitiveLDP(np.log(2), F), example1, envelope=e) for e in ("lower", "box", "facets:3")
    ]
    assert max(values) - min(values) <= 1e-12


def test_facets_envelope_contains_the_projection(rng):
    P = random_distribution(rng, (2, 4), alpha=2.0)
    F = po.RenyiBall(P, 0.05)
    for s in range(2):
        vertices = F.conditional_envelope(s, "facets:4")
        # Every boundary point of F_{U|s} in random directions lies in the envelope's hull: check with
        # the support function: max over vertices >= max over the ball, direction by direction.
        directions = rng.normal(size=(50, 4))
        _, ball_max, _, _ = F.projection_extremes(s, directions.T)
        assert np.all((vertices @ directions.T).max(axis=0) >= ball_max - 1e-9)
