"""Short readable reprs: one line that names the class and the arguments a reader needs."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po

P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100)  # Entropy paper Example 1
LINE = np.abs(np.subtract.outer(np.arange(4), np.arange(4)))


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: po.LDP(1.0), "LDP(eps=1)"),
        # B = log(1 + F⁻¹_{χ², 3}(0.95) / 100) (Entropy paper eq. 9), shown to 4 digits; order 2 is not shown.
        (
            lambda: po.SensitiveLDP(1.0, po.RenyiBall.confidence(P)),
            "SensitiveLDP(eps=1, F=RenyiBall(shape=(2, 2), B=0.07524, level=0.95))",
        ),
        (
            lambda: po.SensitiveLDP(0.5, po.RenyiBall(P, 0.1, 3.0), on="u"),
            "SensitiveLDP(eps=0.5, F=RenyiBall(shape=(2, 2), B=0.1, order=3), on='u')",
        ),
        (lambda: po.LIP(1.0, P), "LIP(eps=1, F=Point(JointDistribution(shape=(2, 2), n=100)))"),
        (lambda: po.PML(2.0, po.L1Ball(P, 0.05)), "PML(eps=2, F=L1Ball(|X|=4, beta=0.05))"),
        (lambda: po.SRLIP(1.0, np.full((2, 4), 1 / 8), [2, 2]), "SRLIP(eps=1, attributes=(2, 2))"),
        (lambda: po.MetricLDP(0.5, LINE), "MetricLDP(eps=0.5, 4 inputs, d in [1, 3])"),
        (
            lambda: po.RatioConstraints([(po.given(s=0), po.given(s=1))], 1.0, over=po.Simplex((2, 2))),
            "RatioConstraints(eps=1, 1 pair, F=Simplex((2, 2)))",
        ),
        (
            lambda: po.RatioConstraints(
                [(po.given(x=0), po.given(x=1)), (po.given(x=1), po.given(x=0))], 1.0, n_inputs=2, name="Mine"
            ),
            "RatioConstraints('Mine', eps=1, 2 pairs)",
        ),
        (
            lambda: po.Pufferfish({"a": [(0, 0)], "b": [(1, 1)]}, [("a", "b")], 1.0, P),
            "Pufferfish(eps=1, 2 secrets, 1 discriminative pair, F=Point(JointDistribution(shape=(2, 2), n=100)))",
        ),
        (
            lambda: po.Pufferfish(
                {"a": [(0, 0)], "b": [(1, 1)]}, [("a", "b")], 1.0, P, directed=True, on="u", name="Policy"
            ),
            "Pufferfish('Policy', eps=1, 2 secrets, 1 discriminative pair, directed, "
            "F=Point(JointDistribution(shape=(2, 2), n=100)), on='u')",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_definition_reprs(make, expected):
    assert repr(make()) == expected


def test_problem_solution_and_mechanism_reprs():
    problem = po.Problem(po.SensitiveLDP(1.0, P), po.MutualInformation(P))
    assert repr(problem) == (
        "Problem(SensitiveLDP(eps=1, F=Point(JointDistribution(shape=(2, 2), n=100))), "
        "MutualInformation(I(X;Y)), inputs=4)"
    )
    solution = problem.solve(route="vertex")
    assert (
        repr(solution)
        == f"Solution(optimal, value={solution.value:.6g}, route='vertex', outputs={solution.mechanism.n_outputs})"
    )
    # The first line of a mechanism's repr; the matrix follows (tests/test_numpy_habits.py).
    assert solution.mechanism.summary == f"Mechanism('optimal', shape=(4, {solution.mechanism.n_outputs}))"
    assert repr(po.mechanisms.grr(3, 1.0)).splitlines()[0] == "Mechanism('GRR(eps=1)', shape=(3, 3))"
