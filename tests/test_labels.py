"""Labels are the truth: audits and utilities match a mechanism's rows to the inputs by label."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privopt as po

J = po.JointDistribution(
    [[0.10, 0.25, 0.05], [0.30, 0.10, 0.20]], s_labels=["a", "b"], u_labels=["u1", "u2", "u3"]
)


def _reordered(mechanism: po.Mechanism, order: list[int]) -> po.Mechanism:
    return po.Mechanism(
        np.asarray(mechanism.matrix)[order],
        input_labels=[mechanism.input_labels[i] for i in order],
        output_labels=list(mechanism.output_labels),
    )


@pytest.mark.parametrize(
    "definition",
    [po.SensitiveLDP(0.8, J), po.LIP(0.8, J), po.PML(0.8, J)],
    ids=["SensitiveLDP", "LIP", "PML"],
)
def test_the_issue_reproducer_gives_one_epsilon_for_both_orders(definition):
    # The designed mechanism audited in its own order and reversed (labels kept): the same ε.
    mechanism = po.Problem(definition, po.MutualInformation(J)).solve().mechanism
    reversed_ = _reordered(mechanism, list(range(6))[::-1])
    assert po.audit(mechanism, definition).eps == pytest.approx(0.8, abs=1e-9)
    assert po.audit(reversed_, definition).eps == pytest.approx(
        po.audit(mechanism, definition).eps, abs=1e-12
    )
    utility = po.MutualInformation(J)
    assert utility.value(reversed_) == pytest.approx(utility.value(mechanism), abs=1e-12)


def test_a_leaky_mechanism_stays_leaky_in_any_order(rng):
    # Position-based matching could make a leaky mechanism pass once reordered; labels cannot.
    definition = po.SensitiveLDP(0.8, J)
    matrix = rng.dirichlet(np.ones(3), size=6)
    leaky = po.Mechanism(matrix, input_labels=J.x_labels)
    truth = po.audit(leaky, definition)
    for seed in range(20):
        order = list(np.random.default_rng(seed).permutation(6))
        assert po.audit(_reordered(leaky, order), definition).eps == pytest.approx(truth.eps, abs=1e-12)


def test_labels_that_match_nothing_are_a_named_error():
    definition = po.SensitiveLDP(0.8, J)
    foreign = po.Mechanism(np.full((6, 2), 0.5), input_labels=[f"q{i}" for i in range(6)])
    with pytest.raises(po.ShapeError, match=r"mechanism: expected input labels that match.*'q0'"):
        po.audit(foreign, definition)
    with pytest.raises(po.ShapeError, match=r"mechanism: expected input labels that match"):
        po.MutualInformation(J).value(foreign)


def test_an_unlabelled_matrix_keeps_its_positional_meaning():
    definition = po.SensitiveLDP(0.8, J)
    labelled = po.Problem(definition, po.MutualInformation(J)).solve().mechanism
    bare = po.Mechanism(np.asarray(labelled.matrix))  # labels 0..5: positions
    assert po.audit(bare, definition).eps == pytest.approx(po.audit(labelled, definition).eps, abs=1e-12)


def test_a_csv_round_trip_matches_labels_by_their_text():
    definition = po.SensitiveLDP(0.8, J)
    mechanism = po.Problem(definition, po.MutualInformation(J)).solve().mechanism
    text = _reordered(mechanism, [3, 1, 5, 0, 2, 4]).to_frame().to_csv()
    frame = pd.read_csv(io.StringIO(text), index_col=0)
    read = po.Mechanism(frame.to_numpy(dtype=float), list(frame.index), list(frame.columns))
    assert read.input_labels[0] == "('b', 'u1')"  # the CSV holds text, not tuples
    assert po.audit(read, definition).eps == pytest.approx(po.audit(mechanism, definition).eps, abs=1e-12)


_DEFINITIONS = {
    "SensitiveLDP at P": lambda P: po.SensitiveLDP(0.7, P),
    "SensitiveLDP over a Rényi ball": lambda P: po.SensitiveLDP(0.7, po.RenyiBall.confidence(P)),
    "LIP": lambda P: po.LIP(0.7, P),
    "PML": lambda P: po.PML(0.7, P),
    "LDP": lambda P: po.LDP(0.7),
}


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    name=st.sampled_from(sorted(_DEFINITIONS)),
    n_out=st.integers(1, 4),
)
def test_permuting_rows_never_changes_an_audit_or_a_utility(seed, name, n_out):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 40, size=(2, 3))
    P = po.JointDistribution.from_counts(counts, s_labels=["s0", "s1"], u_labels=["x", "y", "z"])
    definition = _DEFINITIONS[name](P)
    mechanism = po.Mechanism(rng.dirichlet(np.ones(n_out), size=6), input_labels=P.x_labels)
    permuted = _reordered(mechanism, list(rng.permutation(6)))
    first, second = po.audit(mechanism, definition), po.audit(permuted, definition)
    assert second.upper == pytest.approx(first.upper, abs=1e-9)
    assert second.lower == pytest.approx(first.lower, abs=1e-6)
    utility = po.MutualInformation(P)
    assert utility.value(permuted) == pytest.approx(utility.value(mechanism), abs=1e-12)


# ---------------------------------------------------------------------- one convention for inputs
def _srr_sampler(x, rng):
    """Secret randomized response on X = S × U read by flat index (0..5), as an implementation would."""
    return int(po.mechanisms.srr(2, 3, 0.8).sample(np.array([x]), rng)[0])


def test_a_sample_audit_takes_the_inputs_po_audit_takes():
    """po.audit reads an unlabelled matrix's rows as flat indices (x = s·|U| + u); the sample audits take
    those flat indices, the labels (s, u) or their text, with the same result."""
    definition = po.SensitiveLDP(0.8, J)
    W = po.mechanisms.srr(2, 3, 0.8)  # unlabelled: rows 0..5 in J's s-major order
    exact = po.audit(W, definition)
    assert exact.satisfied
    flat = np.repeat(np.arange(6), 4000)
    reports = W.sample(flat, rng=1)
    labels = [J.x_labels[x] for x in flat]
    by_index = po.audit_samples(flat, reports, definition, rng=2)
    by_label = po.audit_samples(labels, reports, definition, rng=2)
    by_text = po.audit_samples([str(label) for label in labels], reports, definition, rng=2)
    assert by_index.interval == by_label.interval == by_text.interval
    assert by_index.eps_lower <= exact.eps <= by_index.eps_upper
    # A sampler called with flat indices: given as inputs=, or read from a mechanism sampler's .inputs.
    kwargs = {"n_per_input": 3000, "rng": 3, "progress": False}
    sampled = po.audit_sampler(_srr_sampler, definition, range(6), **kwargs)
    assert sampled.eps_lower <= exact.eps <= sampled.eps_upper
    assert sampled.samples >= 6 * 3000 / 2  # n_per_input: 3000 per input, half of them choosing the test
    from_mechanism = po.audit_sampler(po.clients.mechanism_sampler(W), definition, **kwargs)
    assert from_mechanism.eps_lower <= exact.eps <= from_mechanism.eps_upper
    assert from_mechanism.per_input == dict.fromkeys(J.x_labels, 1500)  # reported by label


def test_inputs_that_match_nothing_name_the_labels():
    definition = po.SensitiveLDP(0.8, J)
    expected = r"inputs: expected SensitiveLDP's input labels \(\('a', 'u1'\), .*\) or flat indices 0 to 5 in that order"
    with pytest.raises(po.ShapeError, match=expected + r".*got 6, 7"):
        po.audit_samples([0, 6, 7], [0, 0, 0], definition)
    with pytest.raises(po.ShapeError, match=r"all given the same way, got \('a', 'u1'\)"):
        po.audit_samples([("a", "u1"), 1], [0, 0], definition)  # a label and a flat index mixed
    with pytest.raises(
        po.ShapeError, match=r"inputs: expected every input of SensitiveLDP .* none for \('b', 'u3'\)"
    ):
        po.audit_sampler(_srr_sampler, definition, range(5), n=1000, progress=False)
    # Integer labels that are not 0..n-1: an integer could be a label or a position, so it is a label.
    numbered = po.LDP(1.0).with_uncertainty(po.JointDistribution([0.5, 0.5], s_labels=[1, 2]))
    with pytest.raises(po.ShapeError, match=r"input labels \(1, 2\) \(integers are read as labels\).*got 0"):
        po.audit_samples([0, 1], [0, 0], numbered)
    assert po.audit_samples([1, 2] * 50, [0, 1] * 50, numbered, rng=0).samples == 100


def test_audit_sampler_counts_in_all_or_per_input():
    W = po.mechanisms.grr(4, 1.0)
    sampler = po.clients.mechanism_sampler(W)
    total = po.audit_sampler(sampler, po.LDP(1.0), n=8000, rng=5, progress=False)
    per_input = po.audit_sampler(sampler, po.LDP(1.0), n_per_input=2000, rng=5, progress=False)
    assert per_input.interval == total.interval  # 2000 per input of 4 is 8000 in all
    assert per_input.per_input == total.per_input == dict.fromkeys(range(4), 1000)
    with pytest.raises(
        po.ValidationError, match=r"^n: expected the reports to draw: n= in all or n_per_input=.*got both"
    ):
        po.audit_sampler(sampler, po.LDP(1.0), n=8000, n_per_input=2000, progress=False)
    with pytest.raises(po.ValidationError, match=r"^n: .*got neither"):
        po.audit_sampler(sampler, po.LDP(1.0), progress=False)
    with pytest.raises(
        po.ValidationError, match=r"^n_per_input: expected at least 32 reports in all \(8 per input\)"
    ):
        po.audit_sampler(sampler, po.LDP(1.0), n_per_input=4, progress=False)


def test_a_labelled_mechanism_is_audited_by_position_against_a_definition_without_labels():
    # MetricLDP's default labels are 0, 1, ...: a mechanism with labels of its own keeps its rows'
    # positions (it raised a bare KeyError inside the definition's pairs).
    d = np.abs(np.subtract.outer(np.arange(3), np.arange(3))).astype(float)
    W = po.Mechanism(np.eye(3) * 0.5 + 0.5 / 3, input_labels=["a", "b", "c"])
    report = po.audit(W, po.MetricLDP(1.0, d))
    # Neighbours (d = 1) have the ratio (2/3)/(1/6) = 4 > e^1: realized ε = log 4 (per unit of d).
    assert report.eps == pytest.approx(np.log(4.0), rel=1e-12)
    assert not report.satisfied
    assert po.audit(W, po.MetricLDP(1.5, d)).satisfied
