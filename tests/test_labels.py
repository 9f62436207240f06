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
