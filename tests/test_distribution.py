"""JointDistribution: constructors, marginals, conditionals, entropy; the Adult loader."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import privopt as po


def test_marginals_and_conditionals(example1):
    np.testing.assert_allclose(example1.p_s, [0.17, 0.83])
    np.testing.assert_allclose(example1.p_u, [0.33, 0.67])
    np.testing.assert_allclose(example1.p_x, [0.07, 0.10, 0.26, 0.57])
    # Entropy paper Example 2: P̂(u1|s1) = 0.4118, P̂(u1|s2) = 0.3133.
    np.testing.assert_allclose(example1.conditional_u_given_s()[:, 0], [0.4118, 0.3133], atol=5e-5)
    cond_x = example1.conditional_x_given_s()
    np.testing.assert_allclose(cond_x, [[7 / 17, 10 / 17, 0, 0], [0, 0, 26 / 83, 57 / 83]])
    assert example1.entropy() == pytest.approx(-np.sum(example1.p_x * np.log(example1.p_x)))
    assert example1.x_index(1, 0) == 2


def test_plain_distribution_is_s_only():
    P = po.JointDistribution([0.2, 0.3, 0.5])
    assert P.shape == (3, 1)
    np.testing.assert_allclose(P.conditional_x_given_s(), np.eye(3))
    assert P.x_labels == (0, 1, 2)
    # LDP w.r.t. S of a plain distribution is LDP w.r.t. X.
    W = po.Mechanism([[0.7, 0.3], [0.4, 0.6], [0.5, 0.5]])
    assert po.audit(W, po.SensitiveLDP(1.0, P)).eps == pytest.approx(po.audit(W, po.LDP(1.0)).eps)


def test_from_counts_keeps_n():
    P = po.JointDistribution.from_counts([[7, 10], [26, 57]])
    assert P.n == 100
    np.testing.assert_allclose(P.probabilities, [[0.07, 0.10], [0.26, 0.57]])
    with pytest.raises(po.ValidationError, match="counts: expected non-negative integer counts"):
        po.JointDistribution.from_counts([[1.5, 2]])


def test_from_frame_labels_and_multi_columns():
    frame = pd.DataFrame({"a": list("xxyyy"), "b": [1, 2, 1, 1, 2], "c": list("ppqqq")})
    P = po.JointDistribution.from_frame(frame, sensitive="a", public="b")
    assert P.s_labels == ("x", "y")
    assert P.u_labels == (1, 2)
    assert P.n == 5
    np.testing.assert_allclose(P.probabilities, [[0.2, 0.2], [0.4, 0.2]])
    Q = po.JointDistribution.from_frame(frame, sensitive=["a", "c"], public="b")
    assert Q.s_labels == (("x", "p"), ("y", "q"))
    R = po.JointDistribution.from_frame(frame, sensitive="a", public="b", u_labels=[2, 1, 3])
    np.testing.assert_allclose(R.probabilities, [[0.2, 0.2, 0.0], [0.2, 0.4, 0.0]])
    with pytest.raises(po.ValidationError, match="no missing values"):
        po.JointDistribution.from_frame(frame.assign(b=[1, None, 1, 1, 2]), sensitive="a", public="b")


def test_arrays_are_read_only(example1):
    with pytest.raises(ValueError, match="read-only"):
        example1.probabilities[0, 0] = 1.0


@pytest.mark.data
def test_load_adult(adult_dir):
    train = po.datasets.load_adult(adult_dir)
    # Counts from ../shared/data/adult/README.md.
    assert len(train) == 32_561
    assert (train["sex"] == "Male").sum() == 21_790
    assert train["occupation"].nunique() == 15  # '?' kept as a category, as in the papers
    assert (train["occupation"] == "?").sum() == 1_843
    test = po.datasets.load_adult(adult_dir, ["income"], split="test")
    assert len(test) == 16_281
    assert set(test["income"]) == {"<=50K", ">50K"}
    complete = po.datasets.load_adult(adult_dir, split="train", drop_missing=True)
    assert len(complete) == 30_162
    P = po.JointDistribution.from_frame(train, sensitive="occupation", public="education")
    assert P.shape == (15, 16)
    assert P.n == 32_561
    with pytest.raises(po.ValidationError, match="columns: expected names among"):
        po.datasets.load_adult(adult_dir, ["salary"])
    with pytest.raises(po.ValidationError, match="path: expected a folder"):
        po.datasets.load_adult(adult_dir / "nowhere")
