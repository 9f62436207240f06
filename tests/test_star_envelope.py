"""Stars and free inputs on envelope cones: Pufferfish's discriminative pairs against one secret over a
Rényi ball are a *star* of envelope blocks (the hub paired both ways with every other secret) and its
non-secret values are unconstrained inputs. The envelope pricer and both of the checker's envelope
methods take them (``ρ`` from ``1/F``; the free inputs' rays ``e_x``); here against exact enumeration of
the slice's vertices (pplpy, rational arithmetic)."""

from __future__ import annotations

import time

import numpy as np
import pytest

import privopt as po
from privopt.certificates import NotProved, envelope, lagrangian, vertices
from privopt.routes.pricing import PricingRequest, certified_pricer
from privopt.routes.pricing.envelope import EnvelopePricer, _concat, _largest_segment_phi, _segment_phi
from privopt.routes.pricing.structure import EnvelopeCone, envelope_structure


def _pufferfish(
    rng: np.random.Generator, shape: tuple[int, int], eps: float
) -> tuple[po.Problem, np.ndarray]:
    """Secrets: the first three values of S (hub the first); the other values' inputs are free."""
    P = po.JointDistribution(rng.dirichlet(np.ones(shape[0] * shape[1])).reshape(shape), n=300)
    labels = list(P.x_labels)  # S-major: the values of s are consecutive
    by_s = {s: labels[k * shape[1] : (k + 1) * shape[1]] for k, s in enumerate(P.s_labels)}
    names = list(P.s_labels)[:3]
    definition = po.Pufferfish(
        {name: by_s[name] for name in names},
        [(names[0], names[1]), (names[0], names[2])],
        eps,
        po.RenyiBall.confidence(P),
    )
    return po.Problem(definition, po.MutualInformation(P)), np.asarray(P.p_x)


def _cases(seed: int):
    rng = np.random.default_rng(seed)
    for shape in [(4, 2), (3, 2), (3, 3)]:
        for eps in (0.5, 1.5):
            problem, p = _pufferfish(rng, shape, eps)
            cone = problem.get_problem_data().cone
            duals = p * (rng.normal(0.0, 0.4, p.size) + 0.3)
            yield problem, cone, p, duals


def test_pufferfish_is_a_star_with_free_inputs():
    problem, _ = _pufferfish(np.random.default_rng(0), (4, 2), 1.0)
    cone = problem.get_problem_data().cone
    structure = envelope_structure(cone)
    assert isinstance(structure, EnvelopeCone)
    # The hub is the first secret (paired with the other two); the fourth value of S is no secret, so
    # its inputs (S-major: 6 and 7) are free; ρ starts at 1/F = e^{−ε} with ε = 1.
    assert structure.hub == 0
    assert structure.stars == [0]
    assert list(structure.free) == [6, 7]
    assert structure.rho_low == pytest.approx(np.exp(-1.0))
    form = envelope.envelope_form(cone)
    assert not isinstance(form, NotProved)
    assert form.hub == 0
    assert list(form.free) == [6, 7]
    assert isinstance(certified_pricer(problem.utility, cone), EnvelopePricer)


@pytest.mark.parametrize("seed", [1, 2])
def test_star_pricing_and_the_checker_match_exact_enumeration(seed):
    for problem, cone, p, duals in _cases(seed):
        exact = vertices.maximise_ratio(cone, problem.utility, duals, p, 60.0)
        assert not isinstance(exact, NotProved)
        pricer = certified_pricer(problem.utility, cone)
        assert isinstance(pricer, EnvelopePricer)
        outcome = pricer.price(duals, PricingRequest(tolerance=1e-11))
        assert exact.value - 1e-9 <= outcome.upper <= exact.value + 1e-7 * (1.0 + abs(exact.value))
        assert outcome.lower == pytest.approx(exact.value, abs=1e-8)
        assert cone.violation(np.column_stack([c.column for c in outcome.columns])) <= 1e-9
        form = envelope.envelope_form(cone)
        assert not isinstance(form, NotProved)
        enumerated = envelope.maximise_ratio(form, problem.utility, duals, p, None)
        assert not isinstance(enumerated, NotProved)
        assert enumerated.value == pytest.approx(exact.value, abs=1e-9)
        deadline = time.perf_counter() + 60.0
        proof = lagrangian.prove_ratio_bound(form, problem.utility, duals, p, exact.value + 1e-8, deadline)
        assert proof.proved, proof.reason
        lowered = lagrangian.prove_ratio_bound(form, problem.utility, duals, p, exact.value - 1e-4, deadline)
        assert not lowered.proved
        assert lowered.column is not None
        assert cone.violation(lowered.column[:, None]) <= 1e-9


def test_a_free_input_above_the_claim_refutes_it():
    """A very negative dual on a free input makes its ray ``e_x`` the maximiser: both the pricer and the
    checker see it."""
    problem, p = _pufferfish(np.random.default_rng(5), (4, 2), 1.0)
    cone = problem.get_problem_data().cone
    duals = 0.2 * p
    duals[7] = -1.0
    ray = -np.log(p[7]) + 1.0 / p[7]
    exact = vertices.maximise_ratio(cone, problem.utility, duals, p, 60.0)
    assert not isinstance(exact, NotProved)
    assert exact.value == pytest.approx(ray, rel=1e-9)
    outcome = certified_pricer(problem.utility, cone).price(duals, PricingRequest(tolerance=1e-11))
    assert outcome.lower == pytest.approx(ray, rel=1e-9)
    form = envelope.envelope_form(cone)
    assert not isinstance(form, NotProved)
    refuted = lagrangian.prove_ratio_bound(form, problem.utility, duals, p, ray - 1e-3, None)
    assert refuted.reason.startswith("refuted")
    assert refuted.column is not None
    assert refuted.column[7] == 1.0


def test_the_largest_side_is_each_sides_phi_at_its_largest():
    """The one-pass φ of several sides equals the largest of each side's own φ, with that side's slope
    (the first side on a tie), at random ν, sides of different segment counts included."""
    rng = np.random.default_rng(11)
    for _ in range(50):
        sides = [
            _concat(
                [(rng.random(k), rng.normal(0.0, 1.0, k)) for k in rng.integers(1, 12, rng.integers(1, 8))]
            )
            for _ in range(int(rng.integers(1, 4)))
        ]
        one_pass = _largest_segment_phi(sides)
        each = [_segment_phi(*side) for side in sides]
        for nu in rng.normal(0.0, 3.0, 20):
            values = [f(nu) for f in each]
            expected = values[int(np.argmax([v[0] for v in values]))]
            got = one_pass(nu)
            assert got[0] == pytest.approx(expected[0], abs=1e-12)
            assert got[1] == pytest.approx(expected[1], abs=1e-12)
