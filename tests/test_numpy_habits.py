"""Habits researchers bring from numpy and pandas: a mechanism is read as its matrix, indexed and
combined like an array, and printed with its labels; results print short, and richly in notebooks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import privopt as po


@pytest.fixture(scope="module")
def solution() -> po.Solution:
    P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100)  # Entropy paper Example 1
    return po.Problem(po.SensitiveLDP(np.log(2), P), po.MutualInformation(P)).solve(route="vertex")


def test_a_solutions_mechanism_is_a_float_matrix_to_numpy(solution):
    W = solution.mechanism
    as_array = np.asarray(W)
    assert isinstance(as_array, np.ndarray)
    assert as_array.dtype == np.float64
    assert as_array.shape == W.shape == (4, W.n_outputs)
    assert np.array_equal(as_array, W.matrix)
    assert not as_array.flags.writeable  # the mechanism's own matrix, read-only
    copied = np.array(W)
    assert copied.flags.writeable
    assert not np.shares_memory(copied, W.matrix)
    assert np.asarray(W, dtype=np.float32).dtype == np.float32
    assert np.allclose(W, W.matrix)


def test_indexing_gives_rows_columns_and_entries(solution):
    W = solution.mechanism
    assert isinstance(W[0], np.ndarray)
    assert np.array_equal(W[0], W.matrix[0])  # the first input's row
    assert W[0].sum() == pytest.approx(1.0)
    assert np.array_equal(W[:, 1], W.matrix[:, 1])
    assert W[1, 0] == W.matrix[1, 0]
    assert len(W) == 4
    assert [row.tolist() for row in W] == W.matrix.tolist()
    with pytest.raises(ValueError, match="read-only"):
        W[0][0] = 1.0


def test_arithmetic_and_ufuncs_give_plain_arrays():
    W = po.mechanisms.grr(3, 1.0)
    p = np.array([0.2, 0.3, 0.5])
    for result, expected in [
        (W * 0.5, W.matrix * 0.5),
        (0.5 * W, W.matrix * 0.5),
        (W + W, 2 * W.matrix),
        (p @ W, p @ W.matrix),
        (W @ np.ones(3), np.ones(3)),
        (np.log(W), np.log(W.matrix)),
        (W > 0.3, W.matrix > 0.3),
        (-W, -W.matrix),
    ]:
        assert type(result) is np.ndarray
        assert np.allclose(result, expected)
    assert np.sum(W) == pytest.approx(3.0)
    assert np.array_equal(pd.DataFrame(W).to_numpy(), W.matrix)


def test_a_mechanism_stays_an_immutable_hashable_value():
    grr = po.mechanisms.grr(3, 1.0)
    same = po.mechanisms.grr(3, 1.0)
    assert grr == grr
    assert grr != same  # == is identity: compare matrices with np.array_equal
    assert np.array_equal(grr, same)
    assert {grr: "grr"}[grr] == "grr"
    alias = grr
    with pytest.raises(po.ValidationError, match=r"^out: expected an array to write into .*not W \*= 2"):
        alias *= 2
    assert alias is grr


def test_a_mechanism_prints_its_matrix_with_its_labels():
    W = po.mechanisms.srr(2, 2, 1.0, ["a", "b"], ["u1", "u2"])
    lines = repr(W).splitlines()
    assert lines[0] == "Mechanism('SRR(eps=1)', shape=(4, 4))"
    assert lines[1].split() == ["(a,", "u1)", "(a,", "u2)", "(b,", "u1)", "(b,", "u2)"]
    assert lines[2].split()[:2] == ["(a,", "u1)"]
    assert float(lines[2].split()[2]) == pytest.approx(W[0, 0], abs=1e-4)
    assert len(lines) == 1 + 1 + 4
    assert W.summary == lines[0]
    large = repr(po.mechanisms.grr(40, 1.0)).splitlines()
    assert len(large) < 15  # cut like a large DataFrame
    assert "..." in large[1]
    html = W._repr_html_()
    assert html.startswith("<div><strong>Mechanism(&#x27;SRR(eps=1)&#x27;, shape=(4, 4))</strong><table")
    assert "(a, u1)" in html


def test_solution_certificate_and_audit_have_short_reprs_and_notebook_tables(solution):
    assert repr(solution) == (
        f"Solution(optimal, value={solution.value:.6g}, route='vertex', outputs={solution.mechanism.n_outputs})"
    )
    certificate = solution.certificate
    assert repr(certificate) == (
        "Certificate(audit=PASS at eps 0.693147 vs 0.693147, upper bound: the vertex LP's duals, checked)"
    )
    report = certificate.audit
    assert repr(report) == (
        "AuditReport(PASS, eps=0.693147, target=0.693147, "
        "SensitiveLDP(eps=0.693147, F=Point(JointDistribution(shape=(2, 2), n=100))))"
    )
    for value in (solution, certificate, report):
        assert "\n" not in repr(value)
        assert len(repr(value)) < 200
        html = value._repr_html_()
        assert html.startswith(f"<div><strong>{type(value).__name__}</strong><table>")
    assert "optimal" in solution._repr_html_()
    assert "Mechanism(&#x27;optimal&#x27;" in solution._repr_html_()  # and the mechanism under the table
    sample = po.audit_sampler(
        po.clients.mechanism_sampler(po.mechanisms.grr(2, 1.0)), po.LDP(1.0), n=4_000, rng=1, progress=False
    )
    assert repr(sample).startswith("SampleAuditReport(PASS, eps=[")
    assert "at 99 %, target=1, LDP(eps=1))" in repr(sample)
    assert "note" in sample._repr_html_()


def test_compare_takes_one_mechanism_as_a_list_of_one():
    W = po.mechanisms.grr(3, 1.0)
    table = po.compare(po.LDP(1.0), po.MutualInformation(np.full(3, 1 / 3)), W, optimum=False)
    assert table["mechanism"].tolist() == ["GRR(eps=1)"]  # not one row per row of W
