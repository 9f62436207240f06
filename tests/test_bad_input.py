"""Every bad input gets a privopt error that names the argument (issue: foundation, 'Bad input')."""

from __future__ import annotations

import cvxpy as cp
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
    with pytest.raises(
        po.ValidationError, match=r"mechanism: expected a privopt.Mechanism, a row-stochastic"
    ):
        po.audit("W.csv", po.LDP(1.0))
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


# ---------------------------------------------------------------------- issue 15's cases
P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100)


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (
            lambda: po.RenyiBall.confidence(P, level="0.95"),
            r"level: expected a confidence level in \(0, 1\).*got str '0\.95'",
        ),
        (
            lambda: po.RenyiBall.confidence(P, level=None),
            r"level: expected a confidence level in \(0, 1\).*got NoneType None",
        ),
        (lambda: po.L1Ball.confidence(P, level="x"), r"level: expected a confidence level in \(0, 1\)"),
        (lambda: po.FiniteSet(5), r"distributions: expected a collection of distributions.*got int"),
        (
            lambda: po.SubConvexUtility(lambda w: w.sum(axis=0), input_size=-3),
            r"input_size: expected an integer >= 1, got -3",
        ),
        (
            lambda: po.ConcaveUtility(lambda W: cp.sum(W), n_outputs=0, input_size=4),
            r"n_outputs: expected an integer >= 1, got 0",
        ),
        (
            lambda: po.from_json(
                '{"type": "Mechanism", "data": {"matrix": [["a", "b"]], "input_labels": [0], "output_labels": [0, 1], "name": "m"}}'
            ),
            r"matrix: expected an array of real numbers",
        ),
        (lambda: po.LDP("1.0"), r"eps: expected a finite number >= 0 and <= 709\.78.*got str '1\.0'"),
        (lambda: po.LDP(True), r"eps: expected .*got bool True"),
        (
            lambda: po.LDP(800.0),
            r"eps: expected a finite number >= 0 and <= 709\.78 \(e\^ε finite\), got 800\.0",
        ),
        (
            lambda: po.mechanisms.grr(3, 1.0, labels=True),
            r"labels: expected a sequence of 3 labels, got True",
        ),
        (lambda: po.mechanisms.grr_lip(P, "x"), r"alpha: expected a finite number >= 0"),
        (lambda: po.mechanisms.oue(3, 1.0, max_bytes="x"), r"max_bytes: expected an integer >= 1"),
        (
            lambda: po.mechanisms.gaussian_mechanism(1e300),
            r"sigma: expected a noise scale in \[1e-100, 1e\+100\]",
        ),
        (lambda: po.load(b"not a path"), r"path: expected a file path"),
    ],
)
def test_issue_15_api_cases(call, pattern):
    with pytest.raises(po.ValidationError, match=pattern):
        call()


def test_numpy_numbers_are_fine_and_inf_is_a_level_for_lip():
    assert po.LDP(np.float32(0.5)).eps == pytest.approx(0.5)
    assert po.mechanisms.grr(np.int64(3), np.float64(1.0)).n_inputs == 3
    assert po.mechanisms.grr_lip(P, np.inf) >= po.mechanisms.grr_lip(P, 5.0)


@pytest.mark.parametrize(
    ("builder", "pattern"),
    [
        (
            lambda W: cp.sum_squares(W),
            r"builder: expected a concave expression \(it is maximised\), got .*which is convex",
        ),
        (
            lambda W: cp.sqrt(W[0, 0]) * cp.sqrt(W[1, 0]),
            r"builder: expected a DCP expression .*got .*W\[0, 0\].*W\[1, 0\].*, which is not DCP",
        ),
        (
            lambda W: cp.sum(W) + cp.sqrt(W[0, 0]) * cp.sqrt(W[1, 0]),
            r"whose sub-expression .*W\[0, 0\].* \* .*W\[1, 0\].* is not DCP",
        ),
        (lambda W: W, r"builder: expected a scalar expression .*got shape \(4, 2\)"),
        (lambda W: cp.Constant(1.0), r"builder: expected an expression of W .*got the constant 1\.0"),
        (
            lambda W: 3.0,
            r"builder: expected a function returning a cvxpy expression, got <lambda> \(test_bad_input.py:\d+\) "
            r"returned float 3.0",
        ),
        (
            lambda W: W[7, 0],
            r"builder: expected a function of a cvxpy Variable W .*\(W of shape \(4, 2\)\), "
            r"got <lambda> \(test_bad_input.py:\d+\) raised IndexError",
        ),
    ],
)
def test_concave_utilities_are_checked_with_cvxpy_dcp_rules(builder, pattern):
    with pytest.raises(po.ValidationError, match=pattern):
        po.ConcaveUtility(builder, n_outputs=2, input_size=4)


def test_a_valid_concave_utility_still_solves():
    utility = po.ConcaveUtility(lambda W: cp.sum(cp.log(W[:, 0] + 1.0)), n_outputs=2, input_size=4)
    solution = po.Problem(po.SensitiveLDP(1.0, P), utility).solve()
    assert solution.certificate.audit_passed


def _contract_cases():
    P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100)
    MI, D = po.MutualInformation(P), po.SensitiveLDP(1.0, P)
    ball = po.RenyiBall.confidence(P)
    secrets = {"a": [(0, 0), (0, 1)], "b": [(1, 0), (1, 1)]}
    return [
        (lambda: po.Problem(D, MI, time_limit="x"), po.ValidationError, "time_limit"),
        (lambda: po.Problem(D, MI, time_limit=True), po.ValidationError, "time_limit"),
        (lambda: po.Problem(D, MI, vertex_limit=True), po.ValidationError, "vertex_limit"),
        (lambda: po.Problem(D, MI, colgen={"bogus": 1}), po.ValidationError, "colgen"),
        (lambda: po.Problem(D, MI, colgen={"time_limit": "x"}), po.ValidationError, r"colgen\.time_limit"),
        (lambda: po.Problem(po.SensitiveLDP(1.0, ball), MI, envelope=None), po.ValidationError, "envelope"),
        (lambda: po.Problem(po.SensitiveLDP(1.0, ball), MI, envelope=5), po.ValidationError, "envelope"),
        (
            lambda: po.Pufferfish(secrets, [("a", "b", "c")], 1.0, P),
            po.ValidationError,
            "discriminative_pairs",
        ),
        (lambda: po.Pufferfish(secrets, None, 1.0, P), po.ValidationError, "discriminative_pairs"),
        (lambda: po.Pufferfish(secrets, [None], 1.0, P), po.ValidationError, "discriminative_pairs"),
        (lambda: po.Pufferfish([["a"]], [("a", "b")], 1.0, P), po.ValidationError, "secrets"),
        (lambda: po.LIP(1.0, po.Simplex((2, 2))), po.NotSupportedError, "LIP over Simplex"),
        (lambda: po.RatioConstraints([], 1.0, over=P), po.ValidationError, "pairs"),
        (lambda: po.audit(po.mechanisms.grr(4, 1.0), D, tolerance="x"), po.ValidationError, "tolerance"),
        (lambda: po.compare(D, MI, 5), po.ValidationError, "mechanisms"),
        (
            lambda: po.RatioConstraints([(po.given(s=0), po.given(s=1))], 1.0, over=P, name=3),
            po.ValidationError,
            "name",
        ),
    ]


@pytest.mark.parametrize("index", range(16))
def test_contract_entry_points_name_their_bad_arguments(index):
    # The cases issue 15's fuzz run found escaping the error contract in Problem, the definitions,
    # po.audit and po.compare.
    call, error, argument = _contract_cases()[index]
    with pytest.raises(error, match=argument):
        call()


def test_extreme_eps_gives_valid_mechanisms():
    # ε = 50 is legal input: its optimum passes its own audit (the audit's zero test is relative).
    solution = po.Problem(po.LDP(50.0), po.MutualInformation([0.5, 0.3, 0.2])).solve()
    assert solution.certificate.audit.satisfied
    assert po.audit(po.mechanisms.grr(3, 50.0), po.LDP(50.0)).satisfied
