"""Column generation's design as users get it (routes/colgen_route.py): its columns in the cone as an
exact audit reads it (``settled``: a pricer's rounding residue against an exactly zero side is an
infinite ratio), and an open gap that says which side keeps it open (``limiting_side``)."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt.routes.colgen_route import settled
from privopt.routes.pricing.slice_lp import ConeRepair
from tests.test_global_pricer import per_input


def _pufferfish(seed: int) -> po.Problem:
    # A random 6 × 6 joint (2,000 samples, Dirichlet(0.7)), its χ² ball at 95 %, the first two values
    # of S as secrets: the other inputs are free, and the envelope pricer prices their unit columns.
    rng = np.random.default_rng(seed)
    while True:
        counts = rng.multinomial(2000, rng.dirichlet(np.full(36, 0.7))).reshape(6, 6)
        if np.all(counts.sum(axis=1) > 0):
            break
    F = po.RenyiBall.confidence(po.JointDistribution.from_counts(counts + 1), level=0.95)
    P = F.center
    s0, s1 = P.s_labels[0], P.s_labels[1]
    secrets = {s: [x for x in P.x_labels if x[0] == s] for s in (s0, s1)}
    return po.Problem(
        po.Pufferfish(secrets, [(s0, s1)], 1.0, F),
        po.MutualInformation(P),
        time_limit=60,
        colgen={"progress": False},
    )


@pytest.mark.parametrize("seed", range(4))
def test_a_pufferfish_design_with_free_inputs_passes_its_audit(seed):
    # Before, seed 0: "the designed mechanism fails its own audit — realized eps inf" (a free input's
    # unit column carried 6.5e-15 on a secret's input, whose partner secret had exactly 0).
    problem = _pufferfish(seed)
    solution = problem.solve(route="colgen")
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.checked
    assert po.audit(solution.mechanism, problem.definition).satisfied


def test_settled_trims_residue_and_mixes_only_when_trimming_is_not_enough():
    problem = _pufferfish(0)
    cone = problem.get_problem_data().cone
    n = cone.n_inputs
    free = 27  # S = 4: in no secret
    residue = np.zeros(n)
    residue[free], residue[6] = 1.0, 6.5e-15  # input 6 is in the second secret
    inside = np.full(n, 1.0 / n)
    columns = np.column_stack([residue, inside])
    repair = ConeRepair(cone)
    assert repair.violated(columns[:, :1]).any()
    out = settled(cone, columns)
    assert np.flatnonzero(out[:, 0]).tolist() == [free]  # trimmed to the unit column, its mass kept
    assert abs(out[free, 0] - residue.sum()) <= 1e-15
    np.testing.assert_array_equal(out[:, 1], inside)  # a column in the cone is untouched
    assert not repair.violated(out).any()
    # A violation that is not residue (a secret's input at 1e-6 against 0 on the other secret) is mixed
    # with the uniform column just far enough, its mass kept.
    leak = np.zeros(n)
    leak[free], leak[6] = 1.0 - 1e-6, 1e-6
    mixed = settled(cone, 2.0 * leak[:, None])[:, 0]
    assert abs(mixed.sum() - 2.0) < 1e-12
    assert not repair.violated(mixed[:, None]).any()
    assert np.all(mixed > 0.0)
    assert mixed.min() < 1e-5  # a small step, not the uniform column
    # One that needs a large step (1 %: not rounding) is mixed as far as needed, its mass kept.
    far = leak.copy()
    far[free], far[6] = 0.99, 0.01
    moved = settled(cone, far[:, None])[:, 0]
    assert abs(moved.sum() - 1.0) < 1e-12
    assert not repair.violated(moved[:, None]).any()
    assert moved.min() > 1e-4  # a real step towards the uniform column


def test_an_open_gap_says_which_side_keeps_it_open():
    from privopt.routes.colgen_route import limiting_side
    from privopt.routes.pricing.tuning import DEFAULT

    mi = po.MutualInformation(np.full(4, 0.25))
    settled_trace = np.array([[0.0, 0.1], [60.0, 0.279], [90.0, 0.28], [120.0, 0.2801]])
    side, words = limiting_side(settled_trace, mi, 0.5)
    assert side == "bound"
    assert "pricing bound keeps the gap open" in words
    rising = np.array([[0.0, 0.1], [90.0, 0.2], [120.0, 0.28]])
    side, words = limiting_side(rising, mi, 0.5)
    assert side == "master"
    assert "still rising" in words
    # The share is of the gap (0.2 here): just below settled_gap_share of it is settled, just above is not.
    for factor, expected in ((0.9, "bound"), (1.1, "master")):
        edge = np.array([[0.0, 0.0], [90.0, 0.3 - factor * DEFAULT.settled_gap_share * 0.2], [120.0, 0.3]])
        assert limiting_side(edge, mi, 0.5)[0] == expected


def test_a_solution_with_a_gap_names_the_limiting_side():
    # Input-discriminative LDP on 10 inputs (budgets in {1, 2, 4}·ε) within 8 s: the global pricer's
    # bound leaves a gap, and the solution says which side keeps it open.
    rng = np.random.default_rng(0)
    n = 10
    problem = po.Problem(
        per_input(n, 0.5, rng),
        po.MutualInformation(rng.dirichlet(np.ones(n))),
        colgen={"progress": False, "time_limit": 8.0},
    )
    solution = problem.solve(route="colgen")
    if solution.status in (po.Status.OPTIMAL, po.Status.OPTIMAL_WITHIN_GAP):
        assert solution.stats.limited_by is None
    else:
        assert solution.stats.limited_by in ("bound", "master")
        assert ("pricing bound keeps the gap open" in solution.reason) == (
            solution.stats.limited_by == "bound"
        )


def test_a_master_column_out_of_the_cone_is_mixed_into_it_whatever_the_step():
    # Random instance 10918 (the slow sweep): LDP w.r.t. S at a point, 2 × 2, ε = 7.47, a prior with an
    # input of probability 0. A unit column with P(Y|S=1) = 0 reached the master (a step of 0.0016
    # towards the uniform column puts it in the cone: above ConeRepair's rounding-sized steps), and
    # column generation's design failed its own audit (realized ε = inf). Now it is mixed as far as
    # needed: every route agrees and every property of the sweep holds.
    from tests.test_random_instances import check_instance

    assert check_instance(10918).failures == []
    cone = po.Problem(po.LDP(1.0), po.MutualInformation(np.full(3, 1 / 3))).get_problem_data().cone
    unit = np.eye(3)[:, :1] * 0.5  # mass 0.5 on one input: far out of an LDP cone
    settled_unit = settled(cone, unit)[:, 0]
    assert abs(settled_unit.sum() - 0.5) < 1e-12
    assert not ConeRepair(cone).violated(settled_unit[:, None]).any()
