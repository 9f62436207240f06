"""privopt.verify: the issue's "must show" list, the checkers and the report.

Sources of asserted values: the papers' statements (PML paper Theorem 5 / eq. 41, Entropy paper
Lemma 1, privacy-funnel eq. 29), exact recomputation (sympy, rationals), and the verdict vocabulary
of the issue.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from privopt import verify as pv
from privopt.verify import verdicts
from privopt.verify.checkers.certificate import _rational_point, exact_vertices
from privopt.verify.library.pml import PI1, PI2, theorem5_matrix, theorem5_region
from privopt.verify.prover import prove_sign, prove_zero

p1, beta, eps = sp.symbols("p1 beta eps", real=True)
E = sp.exp(eps)


def _pml_claim(name: str, matrix: sp.Matrix) -> pv.Claim:
    """Eq. (41)'s statement for any 2×2 matrix: a mechanism, ε-PML at both extreme points, tight twice."""
    pairs = [
        (f"PML at π({k}), x{x + 1}", [int(i == x) for i in range(2)], list(pi))
        for k, pi in ((1, PI1), (2, PI2))
        for x in range(2)
    ]
    statement = pv.column_constraints(
        matrix, pairs, E, tight=[("PML at π(2), x1", 0), ("PML at π(1), x2", 1)]
    )
    return pv.Claim(name, "test", statement, theorem5_region(), points=100)


# ---------------------------------------------------------------------- Theorem 5 (PML paper)
def test_theorem5_is_proved_symbolically():
    # Row sums 1, entries >= 0, PML <= ε at both extreme points, = ε at the two tight ones.
    result = pv.verify(["pml.thm5.pml"])["pml.thm5.pml"]
    assert result.verdict == verdicts.PROVED
    assert result.checker == "symbolic"
    assert "all 14 part(s) proved" in result.detail
    assert result.library is not None
    assert result.library.outcome in ("agrees", "skipped")


def test_theorem5_row_sums_and_tight_constraints_reduce_to_zero():
    # The same facts part by part, straight from the prover: 1·(row sum) − 1 and the two tight slacks.
    W, region = theorem5_matrix(), theorem5_region()
    assert prove_zero(W[0, 0] + W[0, 1] - 1, region).proved
    assert prove_zero(W[1, 0] + W[1, 1] - 1, region).proved
    column1 = E * (PI2[0] * W[0, 0] + PI2[1] * W[1, 0]) - W[0, 0]
    column2 = E * (PI1[0] * W[0, 1] + PI1[1] * W[1, 1]) - W[1, 1]
    assert prove_zero(column1, region).proved
    assert prove_zero(column2, region).proved


def test_theorem5_is_certified_optimal_symbolically():
    result = pv.verify(["pml.thm5.optimal"])["pml.thm5.optimal"]
    assert result.verdict == verdicts.CERTIFIED_SYMBOLIC
    assert result.checker == "certificate"
    assert "every sub-convex μ" in result.detail


def test_theorem5_rational_certificate_for_mutual_information():
    # At an exact rational point, eq. (41) against the exact cone: the dual built from complementary
    # slackness is feasible at every vertex (reduced costs enclosed by interval arithmetic).
    point = {p1: sp.Rational(3, 5), beta: sp.Rational(1, 5), eps: sp.log(sp.Rational(3, 2))}
    W = theorem5_matrix().subs(point)
    G = sp.Matrix(
        [
            [int(i == x) - sp.Rational(3, 2) * pi[i].subs(point) for i in range(2)]
            for pi in (PI1, PI2)
            for x in range(2)
        ]
    )
    prior = (sp.Rational(3, 5), sp.Rational(2, 5))
    instance = pv.OptimalityInstance(sp.simplify(W), G, pv.UtilitySpec("mi", p=prior))
    outcome, detail = _rational_point(instance, "the test point")
    assert outcome == verdicts.CERTIFIED_RATIONAL, detail


def test_rational_certificate_refutes_a_suboptimal_mechanism():
    # Randomized response at ε = log(3/2) is feasible for the same cone (RR is ε-LDP, hence ε-PML for
    # every prior) but not optimal for this prior: the complementary-slackness dual must fail.
    e = sp.Rational(3, 2)
    rr = sp.Matrix([[e, 1], [1, e]]) / (1 + e)
    point = {p1: sp.Rational(3, 5), beta: sp.Rational(1, 5)}
    G = sp.Matrix(
        [[int(i == x) - e * pi[i].subs(point) for i in range(2)] for pi in (PI1, PI2) for x in range(2)]
    )
    instance = pv.OptimalityInstance(rr, G, pv.UtilitySpec("mi", p=(sp.Rational(3, 5), sp.Rational(2, 5))))
    outcome, detail = _rational_point(instance, "the test point")
    assert outcome == verdicts.FALSIFIED, detail


def test_exact_vertices_of_a_binary_ldp_slice():
    # ε-LDP on two inputs with e^ε = 2: the slice w1 + w2 = 1 is the segment [(1/3, 2/3), (2/3, 1/3)].
    from fractions import Fraction

    rows = [[Fraction(1), Fraction(-2)], [Fraction(-2), Fraction(1)]]
    assert sorted(exact_vertices(rows, 2)) == [
        (Fraction(1, 3), Fraction(2, 3)),
        (Fraction(2, 3), Fraction(1, 3)),
    ]


def test_wrong_variant_of_eq41_is_falsified_with_a_counterexample():
    # The sign of β/2 flipped in the (1,1) entry: the first row no longer sums to 1.
    W = theorem5_matrix()
    wrong = W.copy()
    wrong[0, 0] = E * (1 - p1 - beta / 2) / (1 + beta * E)
    result = pv.check_claim(_pml_claim("test.eq41_sign_flip", wrong), seed=3)
    assert result.verdict == verdicts.FALSIFIED
    assert result.checker == "numerical"
    values = {name: sp.sympify(text) for name, text in result.counterexample.items()}
    assert set(values) == {"p1", "beta", "eps"}
    # The reported values are exact and reproduce the violation.
    at = {p1: values["p1"], beta: values["beta"], eps: values["eps"]}
    row_sum = sp.nsimplify(sum(wrong.row(0)).subs(at))
    assert abs(float(row_sum) - 1.0) > 1e-6


def test_the_correct_eq41_passes_the_same_numerical_search():
    # The same check with only the numerical checker: no counterexample (the falsification above is not
    # an artefact of the search).
    claim = _pml_claim("test.eq41", theorem5_matrix())
    claim = pv.Claim(
        claim.name, claim.source, claim.statement, claim.region, points=100, checkers=("numerical",)
    )
    assert pv.check_claim(claim, seed=3).verdict == verdicts.no_counterexample(100)


# ---------------------------------------------------------------------- Lemma 1, eq. 29
def test_lemma1_roots_satisfy_their_quadratic_symbolically():
    result = pv.verify(["entropy.lemma1.quadratic"])["entropy.lemma1.quadratic"]
    assert result.verdict == verdicts.PROVED
    assert result.checker == "symbolic"


def test_eq29_is_proved_equal_to_the_audit_lip_of_grr():
    result = pv.verify(["funnel.eq29"])["funnel.eq29"]
    assert result.verdict == verdicts.PROVED
    assert result.library is not None
    assert result.library.outcome == "agrees"


# ---------------------------------------------------------------------- honesty of verdicts
def test_not_proved_is_never_reported_as_true():
    # x >= log(1 + x) on x >= 0 is true, but the prover cannot decide it (a log that does not combine).
    x = sp.Symbol("x", real=True)
    region = pv.Region((pv.Param("x", 0, None),))
    claim = pv.Claim(
        "test.log", "test", pv.Inequality(x, sp.log(1 + x), ">="), region, checkers=("symbolic",)
    )
    result = pv.check_claim(claim)
    assert result.verdict == verdicts.NOT_PROVED
    assert result.status == "undecided"
    with_numbers = pv.check_claim(pv.Claim("test.log", "test", claim.statement, region, points=50))
    assert with_numbers.verdict == verdicts.no_counterexample(50)
    for row in (result, with_numbers):
        assert row.verdict not in verdicts.ESTABLISHED
        assert "true" not in row.verdict.lower()


def test_prover_proves_signs_and_refuses_wrong_ones():
    x = sp.Symbol("x", real=True)
    unit = pv.Region((pv.Param("x", 0, 1),))
    assert prove_sign(x * (1 - x), unit).proved
    assert not prove_sign(x - sp.Rational(1, 2), unit).proved
    assert not prove_sign(x * (1 - x), unit, strict=True).proved  # 0 at both closed ends
    assert prove_zero((x + 1) ** 2 - x**2 - 2 * x - 1, unit).proved
    assert not prove_zero(x**2 - x, unit).proved


def test_numerical_checker_is_seeded_and_deterministic():
    claim = _pml_claim("test.eq41_sign_flip", theorem5_matrix().subs(beta, 2 * beta))
    numerical = pv.Claim(
        claim.name, claim.source, claim.statement, claim.region, points=30, checkers=("numerical",)
    )
    first, second = pv.check_claim(numerical, seed=7), pv.check_claim(numerical, seed=7)
    assert first.verdict == second.verdict == verdicts.FALSIFIED
    assert first.counterexample == second.counterexample
    assert first.detail == second.detail
    shipped = [pv.verify(["pml.thm4.bound"], seed=11)["pml.thm4.bound"] for _ in range(2)]
    assert shipped[0].detail == shipped[1].detail


def test_misprints_ship_as_expected_failures():
    report = pv.verify(
        ["pml.thm5.eq93_as_printed", "entropy.prop2.rad_as_printed", "entropy.ex2.Bs_as_printed"]
    )
    for row in report.rows:
        assert row.expect == "fails"
        assert row.verdict == verdicts.FALSIFIED
        assert row.status == "as expected"
    assert report.exit_code == 0
    # Example 2's B_s1: Theorem 1 gives 0.4067 (B = 0.0752, P̂_s1 = 0.17), the paper prints 0.3782.
    numbers = report["entropy.ex2.Bs_as_printed"].attempts[-1].data["numbers"]
    assert numbers[0]["printed"] == 0.3782
    assert numbers[0]["computed"] == pytest.approx(0.406733, abs=1e-6)


# ---------------------------------------------------------------------- report and run()
def test_run_returns_markdown_and_exit_code():
    text, code = pv.run(["pml.thm5.eq91", "pml.thm5.eq93_as_printed"])
    assert code == 0
    assert text.startswith("| claim | source | verdict | checker | time (s) |")
    assert "| pml.thm5.eq91 |" in text
    assert "proved (symbolic)" in text


def test_run_json_and_frame():
    text, code = pv.run(["isit.a_s"], format="json")
    data = json.loads(text)
    assert code == 0
    assert data["exit_code"] == 0
    assert data["claims"][0]["verdict"] == verdicts.PROVED
    frame = pv.verify(["isit.a_s"]).to_frame()
    assert list(frame.index) == ["isit.a_s"]
    assert frame.loc["isit.a_s", "verdict"] == verdicts.PROVED


def test_exit_code_is_one_when_a_claim_expected_to_hold_is_falsified():
    claim = _pml_claim("test.eq41_sign_flip", theorem5_matrix().subs(beta, 2 * beta))
    report = pv.verify([claim])
    assert report.rows[0].verdict == verdicts.FALSIFIED
    assert report.rows[0].status == "UNEXPECTED"
    assert report.exit_code == 1


def test_optimality_of_the_binary_tv_mechanism_is_certified_at_rational_points():
    result = pv.verify(["kairouz.binary_tv"])["kairouz.binary_tv"]
    assert result.verdict == verdicts.CERTIFIED_RATIONAL
    assert "exact dual optimum" in result.detail


def test_rr_threshold_is_found():
    # Kairouz et al.: randomized response is KL-optimal above a threshold; for P0 = P1 every mechanism
    # has utility 0, so the threshold is the first grid point.
    from privopt.verify.library.kairouz import THRESHOLD_GRID, rr_kl_threshold

    p = np.array([0.5, 0.3, 0.2])
    assert rr_kl_threshold(p, p) == THRESHOLD_GRID[0]
    found = rr_kl_threshold(np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.3, 0.5]))
    assert THRESHOLD_GRID[0] <= found < THRESHOLD_GRID[-1]
