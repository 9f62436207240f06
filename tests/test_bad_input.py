"""Every bad input gets a privopt error that names the argument (issue: foundation, 'Bad input')."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import privopt as po


@pytest.mark.parametrize(
    ("matrix", "pattern"),
    [
        ([[0.5, 0.6], [0.5, 0.5]], r"matrix: expected rows summing to 1.*row 0 sums to 1\.1"),
        ([[1.2, -0.2], [0.5, 0.5]], r"matrix: expected non-negative entries, got -0\.2"),
        ([[np.nan, 1.0], [0.5, 0.5]], r"matrix: expected finite entries \(no NaN or inf\)"),
        ([[np.inf, 1.0], [0.5, 0.5]], r"matrix: expected finite entries"),
        ([0.5, 0.5], r"matrix: expected a 2-D array"),
        ([["a", "b"]], r"matrix: expected an array of real numbers"),
    ],
)
def test_bad_mechanism(matrix, pattern):
    with pytest.raises(po.ValidationError, match=pattern):
        po.Mechanism(matrix)


@pytest.mark.parametrize(
    ("table", "pattern"),
    [
        ([[0.5, 0.6], [0.1, 0.1]], r"probabilities: expected probabilities summing to 1"),
        ([[1.1, -0.1]], r"probabilities: expected non-negative probabilities"),
        ([0.5, np.nan, 0.5], r"probabilities: expected finite entries"),
        (np.ones((2, 2, 2)) / 8, r"probabilities: expected a 1-D or 2-D array"),
    ],
)
def test_bad_distribution(table, pattern):
    with pytest.raises(po.ValidationError, match=pattern):
        po.JointDistribution(table)


@pytest.mark.parametrize("eps", [-0.1, np.nan, np.inf, "one", None])
def test_bad_eps(eps):
    with pytest.raises(po.ValidationError, match=r"eps: expected a finite number >= 0"):
        po.LDP(eps)
    with pytest.raises(po.ValidationError, match=r"eps: expected"):
        po.mechanisms.grr(3, eps)


def test_bad_eps_in_distributional_definitions(example1):
    for cls in (po.SensitiveLDP, po.LIP, po.PML):
        with pytest.raises(po.ValidationError, match="eps"):
            cls(-1.0, example1)


def test_shape_mismatch_mechanism_and_distribution(example1):
    W = po.mechanisms.grr(3, 1.0)
    with pytest.raises(po.ShapeError, match=r"mechanism: expected 4 inputs to match SensitiveLDP, got 3"):
        po.audit(W, po.SensitiveLDP(1.0, example1))
    with pytest.raises(po.ShapeError, match="mechanism: expected 4 inputs to match the utility"):
        po.MutualInformation(example1).value(W)
    with pytest.raises(po.ShapeError, match=r"p: expected a distribution over the mechanism's 3 inputs"):
        W.output_distribution(example1)
    # A mechanism that reads U only gets a hint.
    with pytest.raises(po.ShapeError, match=r"on='u'"):
        po.audit(po.mechanisms.grr(2, 1.0), po.LIP(1.0, example1))


def test_unknown_dataframe_column():
    frame = pd.DataFrame({"sex": ["F", "M"], "race": ["a", "b"]})
    with pytest.raises(
        po.ValidationError, match=r"sensitive: expected a column of the frame \(sex, race\), got 'gender'"
    ):
        po.JointDistribution.from_frame(frame, sensitive="gender")
    with pytest.raises(po.ValidationError, match=r"public: expected a column"):
        po.JointDistribution.from_frame(frame, sensitive="sex", public="age")
    with pytest.raises(po.ValidationError, match=r"columns: expected columns of the frame"):
        po.mechanisms.grr(2, 1.0, ["F", "M"]).apply(frame, columns="gender")


def test_zero_probability_sensitive_value():
    P = po.JointDistribution([[0.0, 0.0], [0.4, 0.6]], s_labels=["rare", "common"])
    with pytest.raises(po.ValidationError, match=r"P: expected P\(S=s\) > 0.*got P\(S='rare'\) = 0"):
        P.conditional_u_given_s()
    with pytest.raises(po.ValidationError, match=r"P\(S='rare'\) = 0"):
        po.audit(po.mechanisms.grr(4, 1.0), po.SensitiveLDP(1.0, P))
    with pytest.raises(po.ValidationError, match=r"P\(S='rare'\) = 0"):
        po.mechanisms.grr_lip(P, 1.0)


def test_oue_too_large_says_why_and_how_large():
    with pytest.raises(po.LimitError, match=r"k=28 needs 2\^28 = 268,435,456 outputs × 232 bytes = 58 GiB"):
        po.mechanisms.oue(28, 1.0)


def test_other_arguments():
    with pytest.raises(po.ValidationError, match=r"k: expected an integer >= 1, got 0"):
        po.mechanisms.grr(0, 1.0)
    with pytest.raises(po.ValidationError, match=r"k: expected an integer in \[1, n=3\], got 4"):
        po.mechanisms.k_singular(3, 4)
    with pytest.raises(po.ValidationError, match=r"on: expected 'x'"):
        po.LIP(1.0, [[0.5, 0.5]], on="s")
    with pytest.raises(
        po.ValidationError, match=r"uncertainty: expected a JointDistribution, a probability array"
    ):
        po.SensitiveLDP(1.0, "not a distribution")
    with pytest.raises(po.ValidationError, match=r"distributions: expected at least one distribution"):
        po.FiniteSet([])
    with pytest.raises(po.ShapeError, match=r"distributions\[1\]: expected shape \(2, 2\)"):
        po.FiniteSet([np.full((2, 2), 0.25), np.full((1, 4), 0.25)])
    with pytest.raises(po.ValidationError, match=r"mechanism: expected a privopt.Mechanism"):
        po.audit(np.eye(2), po.LDP(1.0))
    with pytest.raises(po.ValidationError, match=r"definition: expected a privacy definition"):
        po.audit(po.mechanisms.grr(2, 1.0), "LDP")
    with pytest.raises(po.ValidationError, match=r"s_labels: expected distinct labels"):
        po.JointDistribution([[0.5], [0.5]], s_labels=["a", "a"])
    with pytest.raises(po.ShapeError, match=r"input_labels: expected 2 labels, got 3"):
        po.Mechanism(np.eye(2), input_labels=["a", "b", "c"])
    with pytest.raises(po.ValidationError, match=r"x: expected integer input indices in \[0, 2\)"):
        po.mechanisms.grr(2, 1.0).sample(np.array([0, 5]))
    with pytest.raises(po.NotSupportedError, match="LIP over Simplex"):
        po.audit(po.mechanisms.grr(4, 1.0), po.LIP(1.0, po.Simplex((2, 2))))
