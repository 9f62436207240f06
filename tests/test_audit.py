"""The exact audit: realized ε, pass/fail, witnesses, zero conventions, finite sets."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import privopt as po
from tests.conftest import random_distribution, random_mechanism


@pytest.mark.parametrize("k", [2, 3, 7, 16])
@pytest.mark.parametrize("eps", [0.0, 0.1, np.log(2), 3.0])
def test_grr_audit_is_exactly_eps(k, eps):
    # GRR_ε has ratio e^ε between its diagonal and off-diagonal entries, so LDP is exactly ε.
    report = po.audit(po.mechanisms.grr(k, eps), po.LDP(eps))
    assert report.eps == pytest.approx(eps, abs=1e-12)
    assert report.satisfied
    assert report.exact
    # ... and it fails at any smaller ε beyond the tolerance.
    if eps > 0:
        assert not po.audit(po.mechanisms.grr(k, eps), po.LDP(eps - 1e-6)).satisfied


def test_ldp_witness_names_inputs_and_output():
    W = po.Mechanism([[0.5, 0.5], [0.2, 0.8]], input_labels=["a", "b"], output_labels=["no", "yes"])
    report = po.audit(W, po.LDP(1.0))
    # Largest ratio: output "no", 0.5 / 0.2.
    assert report.eps == pytest.approx(np.log(2.5))
    assert report.witness.output == "no"
    assert report.witness.pair.numerator == po.definitions.Term("x", "a")
    assert report.witness.pair.denominator == po.definitions.Term("x", "b")
    assert "0.916291" in str(report)


def test_zero_entries_give_infinite_ldp():
    W = po.Mechanism([[1.0, 0.0], [0.5, 0.5]])
    report = po.audit(W, po.LDP(5.0))
    assert report.eps == np.inf
    assert not report.satisfied
    # Output 1 has W[1, 1] = 0.5 > 0 = W[0, 1].
    assert report.witness.output == 1
    assert report.witness.pair.denominator == po.definitions.Term("x", 0)


def test_zero_probability_output_does_not_leak_pml():
    # Output 2 is never produced: PML is defined on supp(P_Y) only (PML paper Def. 2), so it is ignored.
    W = po.Mechanism([[0.6, 0.4, 0.0], [0.3, 0.7, 0.0]])
    report = po.audit(W, po.PML(1.0, [0.5, 0.5]))
    p_y = np.array([0.45, 0.55])
    expected = np.log(max(0.6 / p_y[0], 0.7 / p_y[1]))
    assert report.eps == pytest.approx(expected)
    assert report.per_output[2] == 0.0


def test_pml_ignores_zero_prior_symbols():
    # A symbol with P_X(x) = 0 has posterior 0 and cannot leak (eq. 3 is over P_X(x) > 0).
    W = po.Mechanism([[0.9, 0.1], [0.5, 0.5], [0.0, 1.0]])
    report = po.audit(W, po.PML(1.0, [0.5, 0.5, 0.0]))
    p_y = 0.5 * W.matrix[0] + 0.5 * W.matrix[1]
    assert report.eps == pytest.approx(np.log(np.max(W.matrix[:2] / p_y)))


def test_sensitive_ldp_point_matches_direct_formula(rng):
    P = random_distribution(rng, (3, 4))
    W = random_mechanism(rng, 12, 5)
    report = po.audit(W, po.SensitiveLDP(1.0, P))
    p_y_given_s = P.conditional_x_given_s() @ W.matrix  # (|S|, |Y|)
    ratios = np.log(p_y_given_s[:, None, :] / p_y_given_s[None, :, :])
    assert report.eps == pytest.approx(ratios.max(), abs=1e-12)


def test_lip_point_matches_direct_formula(rng):
    P = random_distribution(rng, (3, 4))
    W = random_mechanism(rng, 12, 6)
    report = po.audit(W, po.LIP(1.0, P))
    p_y_given_s = P.conditional_x_given_s() @ W.matrix
    p_y = P.p_x @ W.matrix
    assert report.eps == pytest.approx(np.abs(np.log(p_y_given_s / p_y)).max(), abs=1e-12)


def test_lip_on_u_reads_public_part_only(rng):
    P = random_distribution(rng, (2, 5))
    W = random_mechanism(rng, 5, 3)
    report = po.audit(W, po.LIP(1.0, P, on="u"))
    p_y_given_s = P.conditional_u_given_s() @ W.matrix
    p_y = P.p_u @ W.matrix
    assert report.eps == pytest.approx(np.abs(np.log(p_y_given_s / p_y)).max(), abs=1e-12)
    # The same channel lifted to X = S × U (it ignores s) has the same LIP.
    lifted = po.Mechanism(np.tile(W.matrix, (2, 1)))
    assert po.audit(lifted, po.LIP(1.0, P)).eps == pytest.approx(report.eps, abs=1e-12)


def _point_mass_pairs(n_s: int, n_u: int) -> list[np.ndarray]:
    """P = ½ on (s,u) and ½ on (s',u') for s != s' (the distributions in the proof of Prop. 3)."""
    out = []
    for (s, u), (t, v) in itertools.permutations(itertools.product(range(n_s), range(n_u)), 2):
        if s < t:
            p = np.zeros((n_s, n_u))
            p[s, u] = p[t, v] = 0.5
            out.append(p)
    return out


@pytest.mark.parametrize(("n_u", "eps"), [(2, np.log(2)), (3, 0.3), (4, 1.7)])
def test_srr_is_rldp_over_the_simplex(n_u, eps):
    # Entropy paper Lemma 2: SRR is (ε, P_X)-RLDP. Check it with Prop. 3's condition (the Simplex
    # audit) and independently over the finite set of point-mass-pair distributions of Prop. 3's proof.
    W = po.mechanisms.srr(2, n_u, eps)
    by_prop3 = po.audit(W, po.SensitiveLDP(eps, po.Simplex((2, n_u))))
    by_pairs = po.audit(W, po.SensitiveLDP(eps, po.FiniteSet(_point_mass_pairs(2, n_u))))
    assert by_prop3.satisfied
    assert by_pairs.satisfied
    assert by_prop3.eps == pytest.approx(eps, abs=1e-12)  # the bound is attained
    assert by_pairs.eps == pytest.approx(by_prop3.eps, abs=1e-12)
    assert by_pairs.witness.pair.member is not None
    # SRR is not ε-LDP: same-s ratios reach e^{2ε}.
    assert po.audit(W, po.LDP(eps)).eps == pytest.approx(2 * eps, abs=1e-12)


def test_simplex_audit_equals_worst_vertex_distribution(rng):
    # For |S| = 3, the simplex's worst case is attained where each P(u|s) is a point mass: the
    # FiniteSet of all such distributions (uniform P(s)) must give the same realized ε as Prop. 3.
    n_s, n_u = 3, 2
    W = random_mechanism(rng, n_s * n_u, 4)
    members = []
    for choice in itertools.product(range(n_u), repeat=n_s):
        p = np.zeros((n_s, n_u))
        p[np.arange(n_s), choice] = 1 / n_s
        members.append(p)
    finite = po.audit(W, po.SensitiveLDP(1.0, po.FiniteSet(members)))
    simplex = po.audit(W, po.SensitiveLDP(1.0, po.Simplex((n_s, n_u))))
    assert finite.eps == pytest.approx(simplex.eps, abs=1e-12)


def test_finite_set_is_worst_member(rng):
    members = [random_distribution(rng, (2, 3)) for _ in range(4)]
    W = random_mechanism(rng, 6, 4)
    each = [po.audit(W, po.LIP(0.5, p)).eps for p in members]
    report = po.audit(W, po.LIP(0.5, po.FiniteSet(members)))
    assert report.eps == pytest.approx(max(each), abs=1e-12)
    assert report.witness.pair.member == int(np.argmax(each))


def test_pml_over_simplex_is_ldp(rng):
    W = random_mechanism(rng, 5, 3)
    assert po.audit(W, po.PML(1.0, po.Simplex(5))).eps == pytest.approx(po.audit(W, po.LDP(1.0)).eps)


def test_report_serialises():
    report = po.audit(po.mechanisms.grr(3, 1.0), po.LDP(1.0))
    data = report.to_dict()
    assert data["satisfied"] is True
    assert data["upper"] == pytest.approx(1.0)
    assert len(data["per_output"]) == 3
