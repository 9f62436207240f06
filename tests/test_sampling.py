"""Sampling and applying mechanisms: exact frequencies, reproducibility, labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

import privopt as po


def test_empirical_conditionals_within_clopper_pearson():
    # 200,000 draws from a fixed mechanism (seeded); every empirical P(y|x) must lie in the 99.9%
    # Clopper–Pearson interval around its count, i.e. the true value is inside the interval.
    rng = np.random.default_rng(7)
    W = po.Mechanism([[0.5, 0.3, 0.2, 0.0], [0.1, 0.1, 0.1, 0.7], [0.25, 0.25, 0.25, 0.25]])
    x = rng.integers(0, 3, size=200_000)
    y = W.sample(x, rng=11)
    for i in range(3):
        draws = y[x == i]
        for j in range(4):
            count = int(np.sum(draws == j))
            interval = binomtest(count, draws.size).proportion_ci(confidence_level=0.999, method="exact")
            assert interval.low <= W.matrix[i, j] <= interval.high, (i, j, count, draws.size)
    assert not np.any(y[x == 0] == 3)  # zero-probability outputs are never drawn


def test_sampling_is_reproducible():
    W = po.mechanisms.grr(5, 1.0)
    x = np.arange(1000) % 5
    np.testing.assert_array_equal(W.sample(x, rng=3), W.sample(x, rng=np.random.default_rng(3)))
    assert not np.array_equal(W.sample(x, rng=3), W.sample(x, rng=4))


def test_sample_keeps_shape():
    W = po.mechanisms.grr(3, 1.0)
    assert W.sample(np.zeros((4, 5), dtype=int), rng=0).shape == (4, 5)


def test_apply_on_dataframe_with_tuple_inputs(example1):
    P = po.JointDistribution(example1.probabilities, s_labels=["F", "M"], u_labels=["a", "b"])
    W = po.mechanisms.srr(2, 2, 1.0, P.s_labels, P.u_labels)
    frame = pd.DataFrame({"sex": ["F", "M", "M", "F"] * 50, "race": ["a", "b", "a", "b"] * 50})
    out = W.apply(frame, columns=["sex", "race"], rng=1)
    assert isinstance(out, pd.Series)
    assert out.index.equals(frame.index)
    assert set(out) <= set(W.output_labels)
    pd.testing.assert_series_equal(out, W.apply(frame, columns=["sex", "race"], rng=1))


def test_apply_on_labels():
    W = po.Mechanism(np.eye(3), input_labels=["a", "b", "c"], output_labels=["A", "B", "C"])
    assert list(W.apply(["c", "a", "b"], rng=0)) == ["C", "A", "B"]
    with pytest.raises(po.ValidationError, match="data: expected values among"):
        W.apply(["d"])
