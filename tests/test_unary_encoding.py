"""OUE/SUE: exact MI and LIP without the 2^k matrix, checked against brute force."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt.mechanisms import (
    optimised_unary_encoding,
    symmetric_unary_encoding,
    unary_lip,
    unary_mutual_information,
)
from tests.conftest import random_distribution


def test_oue_matrix_matches_eq31():
    # Privacy-funnel paper eq. 31: OUE^α(y|x) = e^{(a−#y)α} / (2 (e^α+1)^{a−1}) if x ∈ y,
    # and e^{(a−#y−1)α} / (2 (e^α+1)^{a−1}) otherwise.
    k, alpha = 4, 0.8
    W = po.mechanisms.oue(k, alpha).matrix
    for x in range(k):
        for y in range(2**k):
            size = bin(y).count("1")
            exponent = (k - size) if (y >> x) & 1 else (k - size - 1)
            expected = np.exp(exponent * alpha) / (2 * (np.exp(alpha) + 1) ** (k - 1))
            assert W[x, y] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("code", [optimised_unary_encoding, symmetric_unary_encoding])
def test_unary_is_ldp(code):
    k, eps = 5, 1.3
    W = po.Mechanism(po.mechanisms.unary_matrix(code(k, eps)))
    assert po.audit(W, po.LDP(eps)).eps == pytest.approx(eps, abs=1e-12)


@pytest.mark.parametrize("code", [optimised_unary_encoding, symmetric_unary_encoding])
def test_oue_mutual_information_k4_equals_brute_force(rng, code):
    # Independent routes: the grouped formula vs the generic MI over all 16 columns of the matrix.
    for _ in range(5):
        p = rng.dirichlet(np.full(4, 0.5))
        eps = rng.uniform(0.1, 4.0)
        encoding = code(4, eps)
        brute = po.mutual_information(p, po.mechanisms.unary_matrix(encoding))
        assert unary_mutual_information(encoding, p) == pytest.approx(brute, abs=1e-13)


def test_oue_mutual_information_limits():
    # privacy-funnel paper §VIII-C: OUE's utility tends to H(X)/2 for large ε.
    p = np.array([0.5, 0.2, 0.2, 0.1])
    mi = unary_mutual_information(optimised_unary_encoding(4, 40.0), p)
    assert mi == pytest.approx(po.entropy(p) / 2, abs=1e-12)
    assert unary_mutual_information(optimised_unary_encoding(4, 0.0), p) == pytest.approx(0.0, abs=1e-15)


def test_oue_k16_runs_exactly(rng):
    # The privacy-funnel paper could not compute OUE for the 16-valued education attribute.
    P = random_distribution(rng, (2, 16))
    encoding = optimised_unary_encoding(16, 1.0)
    mi = unary_mutual_information(encoding, P, on="u")
    dense = po.MutualInformation(P, on="u").value(po.Mechanism(po.mechanisms.unary_matrix(encoding)))
    assert mi == pytest.approx(dense, rel=1e-10)
    assert 0 < mi < po.entropy(P.p_u)


def test_unary_lip_prefix_rule_equals_brute_force(rng):
    # The prefix (Dinkelbach) maximisation vs the exact audit of the dense 2^k-output matrix.
    for k in (2, 3, 5, 8):
        for _ in range(4):
            P = random_distribution(rng, (3, k))
            alpha = rng.uniform(0.05, 5.0)
            for code in (optimised_unary_encoding, symmetric_unary_encoding):
                encoding = code(k, alpha)
                brute = po.audit(
                    po.Mechanism(po.mechanisms.unary_matrix(encoding)), po.LIP(alpha, P, on="u")
                ).eps
                assert unary_lip(encoding, P, on="u") == pytest.approx(brute, abs=1e-12)


def test_unary_lip_k16_equals_dense_audit(rng):
    P = random_distribution(rng, (3, 16))
    encoding = optimised_unary_encoding(16, 0.7)
    dense = po.audit(po.mechanisms.oue(16, 0.7), po.LIP(0.7, P, on="u")).eps
    assert unary_lip(encoding, P, on="u") == pytest.approx(dense, abs=1e-12)


def test_oue_beyond_memory_is_refused():
    with pytest.raises(po.LimitError, match=r"2\^30 = 1,073,741,824 outputs.*GiB"):
        po.mechanisms.oue(30, 1.0)
    with pytest.raises(po.LimitError, match="memory budget"):
        po.mechanisms.oue(12, 1.0, max_bytes=1024)
    with pytest.raises(po.LimitError):
        unary_mutual_information(optimised_unary_encoding(40, 1.0), np.full(40, 1 / 40))
