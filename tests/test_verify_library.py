"""The shipped claims library of privopt.verify: coverage, the full run, the worked examples."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt import verify as pv
from privopt.verify import verdicts
from privopt.verify.library.entropy_examples import examples_table

#: The claims issue #6 asks the library to cover (a name or a prefix of one).
REQUIRED = [
    "pml.thm5.pml",
    "pml.thm5.optimal",
    "pml.thm5.eq91",
    "pml.thm5.eq92",
    "pml.thm5.eq93",
    "pml.thm5.eq94",
    "pml.prop2.rearrangement",
    "pml.prop2.exact",
    "pml.remark3",
    "pml.prop3.laplace",
    "pml.thm4.bound",
    "pml.thm4.equality",
    "entropy.thm1.projection",
    "entropy.lemma1.quadratic",
    "entropy.prop2.L",
    "entropy.prop2.rad",
    "entropy.lemma2.srr",
    "entropy.prop3",
    "entropy.thm6",
    "funnel.eq29",
    "funnel.eq32",
    "funnel.prop1",
    "funnel.prop2",
    "isit.eq5",
    "kairouz.binary_tv",
    "kairouz.rr_kl",
    "entropy.ex1",
    "entropy.ex2",
    "entropy.ex3",
    "entropy.ex4",
    "entropy.ex5",
]


def test_library_covers_the_issue_and_names_are_unique():
    names = pv.claim_names()
    assert len(names) == len(set(names))
    for required in REQUIRED:
        assert any(name.startswith(required) for name in names), required
    for claim in pv.shipped_claims():
        assert claim.source
        assert claim.description
        if claim.expect == "fails":
            assert claim.note, f"{claim.name}: a documented misprint needs its explanation"


def test_a_fast_subset_of_the_library_meets_its_expectations():
    report = pv.verify(["funnel", "isit"])
    assert report.exit_code == 0
    assert all(row.verdict == verdicts.PROVED for row in report.rows if row.name != "isit.eq11.bound")


@pytest.mark.slow
def test_every_shipped_claim_has_a_verdict_that_is_not_an_error():
    report = pv.verify()
    assert [row.name for row in report.rows if row.verdict == verdicts.ERROR] == []
    assert [row.name for row in report.rows if row.status == "UNEXPECTED"] == []
    assert report.exit_code == 0


def test_examples_table_reproduces_every_printed_number_but_the_known_misprints():
    table = examples_table()
    assert len(table) == 168  # every number printed in Examples 1–5
    wrong = set(table.loc[~table["reproduced"], "claim"])
    expected_to_fail = {
        c.name for c in pv.shipped_claims() if c.name.startswith("entropy.ex") and c.expect == "fails"
    }
    assert wrong == expected_to_fail


def test_example2_recomputation_matches_privopt_renyi_ball():
    # Theorem 1 and Prop. 2.1 as recomputed by the claims, against privopt's own RenyiBall (an
    # independent implementation): B_s1 = 0.4067 (printed 0.3782), L_u1|s1 = 0.1552 (printed 0.1620).
    table = examples_table().set_index(["claim", "label"])
    F = po.RenyiBall.confidence(po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100))
    assert table.loc[("entropy.ex2.Bs_as_printed", "B_s1"), "computed"] == pytest.approx(
        F.projection_radius(0), abs=1e-12
    )
    assert table.loc[("entropy.ex2.L_as_printed", "L_u1|s1"), "computed"] == pytest.approx(
        F.lower_bounds()[0, 0], abs=1e-12
    )
    assert round(F.projection_radius(0), 4) == 0.4067
    assert round(F.lower_bounds()[0, 0], 4) == 0.1552
    # Example 3's I_P* = 0.2804 is not what the printed Q_PolyOpt gives under P*.
    q = np.array(
        [
            [0.0885, 0.0860, 0.6162, 0.2094],
            [0.3840, 0.3731, 0.1813, 0.0616],
            [0.6667, 0, 0, 0.3333],
            [0.0507, 0.3080, 0.6159, 0.0254],
        ]
    )
    value = po.MutualInformation([0.1, 0.1, 0.2, 0.6]).value(q / q.sum(axis=1, keepdims=True))
    assert value == pytest.approx(
        table.loc[("entropy.ex3.I_true_as_printed", "I_P*(X;Y)"), "computed"], abs=1e-3
    )
    assert abs(value - 0.2804) > 0.05
