"""Values printed in the papers' worked examples."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po


def test_entropy_example4_mutual_information(example1):
    # Entropy paper Example 4 (ε = log 2): I_P̂(X; GRR) = 0.0419, I_P̂(X; SRR) = 0.1005.
    eps = np.log(2)
    mi = po.MutualInformation(example1)
    assert mi.value(po.mechanisms.grr(4, eps)) == pytest.approx(0.0419, abs=5e-5)
    assert mi.value(po.mechanisms.srr(2, 2, eps)) == pytest.approx(0.1005, abs=5e-5)


def test_entropy_example4_true_distribution():
    # Entropy paper Example 4 also prints the utilities under P* = (0.1, 0.1, 0.2, 0.6).
    eps = np.log(2)
    mi = po.MutualInformation(po.JointDistribution([[0.1, 0.1], [0.2, 0.6]]))
    assert mi.value(po.mechanisms.grr(4, eps)) == pytest.approx(0.0412, abs=5e-5)
    assert mi.value(po.mechanisms.srr(2, 2, eps)) == pytest.approx(0.0942, abs=5e-5)


def test_entropy_example4_matrices():
    # The GRR and SRR matrices printed in Example 4 (transposed there: rows are outputs).
    eps = np.log(2)
    grr = np.full((4, 4), 0.2) + 0.2 * np.eye(4)
    np.testing.assert_allclose(po.mechanisms.grr(4, eps).matrix, grr, atol=1e-12)
    srr = (
        np.array([[4, 1, 2, 2], [1, 4, 2, 2], [2, 2, 4, 1], [2, 2, 1, 4]], dtype=float) / 9.0
    )  # 0.444, 0.111, 0.222 = 4/9, 1/9, 2/9
    np.testing.assert_allclose(po.mechanisms.srr(2, 2, eps).matrix, srr, atol=1e-12)


def test_pml_k_singular_uniform_prior():
    # PML paper Example 2 / [15, Thm. 4]: a k-singular mechanism has PML log(N/k) for the uniform prior.
    n, k = 10, 2
    report = po.audit(po.mechanisms.k_singular(n, k), po.PML(np.log(n / k), np.full(n, 1 / n)))
    assert report.eps == pytest.approx(np.log(n / k), abs=1e-12)
    assert report.satisfied


def test_pml_example1_mechanism_is_first_region_extremal():
    # PML paper Example 1 (eq. 34): optimal for ε = log 9/8, P = (2/5, 1/5, 1/5, 1/5); an extremal
    # mechanism leaks exactly ε at every output (eq. 12).
    W = po.Mechanism(
        [
            [0.325, 0.225, 0.225, 0.225],
            [0.45, 0.1, 0.225, 0.225],
            [0.45, 0.225, 0.1, 0.225],
            [0.45, 0.225, 0.225, 0.1],
        ]
    )
    report = po.audit(W, po.PML(np.log(9 / 8), [0.4, 0.2, 0.2, 0.2]))
    np.testing.assert_allclose(report.per_output, np.log(9 / 8), atol=1e-12)
