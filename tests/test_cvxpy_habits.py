"""Habits researchers bring from cvxpy: solve(solver=..., verbose=...), po.audit of a plain matrix,
po.compare that never drops a row, plots labelled by the column they show."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import privopt as po
from privopt.app.plot import quantile_curves, time_vs_size, utility_curves


@pytest.fixture
def mi_problem(example1: po.JointDistribution) -> po.Problem:
    return po.Problem(
        po.SensitiveLDP(np.log(2), po.RenyiBall.confidence(example1)), po.MutualInformation(example1)
    )


@pytest.fixture
def gain_problem() -> po.Problem:
    return po.Problem(po.LDP(1.0), po.ExpectedGain(np.full(3, 1 / 3), np.eye(3)))


def test_solver_names_the_back_end_of_the_route(mi_problem: po.Problem, gain_problem: po.Problem):
    # Entropy paper Example 3 (without self pairs): 0.5630 nats, whatever the spelling of HiGHS.
    assert mi_problem.solve(solver="HIGHS").value == pytest.approx(mi_problem.solve().value, abs=1e-12)
    assert mi_problem.solve(solver="highs").value == pytest.approx(0.5630, abs=1e-4)
    values = {}
    for solver in ("CLARABEL", "ECOS", "SCS"):
        solution = gain_problem.solve(solver=solver)
        assert solution.stats.solver == solver
        values[solver] = solution.value
    # Under a uniform prior, k-ary randomized response maximises P(Y = X) under ε-LDP: e^ε / (e^ε + k − 1).
    for value in values.values():
        assert value == pytest.approx(np.e / (np.e + 2), abs=1e-6)


def test_an_unknown_solver_is_a_privopt_error_listing_the_valid_ones(mi_problem, gain_problem):
    with pytest.raises(
        po.ValidationError, match=r"solver: expected one of 'HIGHS' on the vertex route.*got 'ECOS'"
    ):
        mi_problem.solve(solver="ECOS")
    with pytest.raises(po.ValidationError, match=r"solver: expected one of 'HIGHS' on the colgen route"):
        mi_problem.solve(route="colgen", solver="GUROBI")
    with pytest.raises(
        po.ValidationError, match=r"solver: expected a cvxpy solver installed here \(.*'CLARABEL'.*\)"
    ):
        gain_problem.solve(solver="NO_SUCH_SOLVER")
    with pytest.raises(po.ValidationError, match="solver: expected a solver name"):
        mi_problem.solve(solver=3)
    with pytest.raises(po.ValidationError, match="verbose: expected True or False"):
        mi_problem.solve(verbose="yes")


def test_verbose_prints_the_problem_the_route_the_solver_log_and_the_result(mi_problem, gain_problem, capfd):
    solution = mi_problem.solve(verbose=True)
    out = capfd.readouterr().out
    assert "route: vertex" in out
    assert "RowCone for SensitiveLDP" in out  # the compiled problem, before the solve
    assert "Model status        : Optimal" in out  # HiGHS's own log of the vertex LP
    assert f"value {solution.value:.10g}" in out
    assert "audit: PASS" in out
    gain_problem.solve(route="cvxpy", solver="CLARABEL", verbose=True)
    out = capfd.readouterr().out
    assert "Clarabel" in out  # the cvxpy solver's own log
    assert "route: cvxpy" in out
    mi_problem.solve()
    assert capfd.readouterr().out == ""  # silent by default


def test_audit_takes_a_plain_matrix_in_the_definitions_input_order(example1):
    report = po.audit(np.eye(3), po.LDP(1))
    assert not report.satisfied
    assert report.eps == np.inf  # the identity leaks everything
    W = po.mechanisms.grr(4, np.log(2))
    definition = po.SensitiveLDP(np.log(2), po.RenyiBall.confidence(example1))
    as_matrix, as_mechanism = po.audit(W.matrix, definition), po.audit(W, definition)
    assert (as_matrix.lower, as_matrix.upper) == (as_mechanism.lower, as_mechanism.upper)
    assert po.audit(W.matrix.tolist(), po.LDP(np.log(2))).satisfied
    solution = po.Problem(definition, po.MutualInformation(example1)).solve()
    assert po.audit(solution, definition).satisfied  # a Solution holds its mechanism
    with pytest.raises(po.ShapeError, match="mechanism: expected 4 inputs"):
        po.audit(np.eye(3), definition)


def test_compare_keeps_a_row_for_what_it_cannot_build_or_solve(example1):
    def broken():
        raise po.NotSupportedError("this design does not apply here")

    eps = np.log(2)
    table = po.compare(
        po.SensitiveLDP(eps, po.RenyiBall.confidence(example1)),
        po.MutualInformation(example1),
        {"SRR": po.mechanisms.srr(2, 2, eps), "broken": broken, "crashing": lambda: 1 / 0},
        time_limit=1e-9,  # the optimum cannot be solved in a nanosecond
    )
    rows = table.set_index("mechanism")
    assert list(rows.index) == ["SRR", "broken", "crashing", "optimal"]
    assert rows.loc["SRR", "utility"] == pytest.approx(0.1005, abs=1e-4)  # Entropy paper Example 4
    assert rows.loc["SRR", "error"] == ""
    assert rows.loc["broken", "status"] == "not_supported"
    assert rows.loc["broken", "error"] == "NotSupportedError: this design does not apply here"
    assert rows.loc["crashing", "status"] == "error"
    assert "raised ZeroDivisionError" in rows.loc["crashing", "error"]  # a CallableError naming the function
    assert rows.loc["optimal", "status"] == "limit"
    assert rows.loc["optimal", "error"].startswith("LimitError")
    assert np.isnan(rows.loc["optimal", "utility"])
    assert pd.isna(rows.loc["optimal", "outputs"])
    with pytest.raises(po.ValidationError, match=r"mechanisms\['x'\]"):
        po.compare(po.LDP(1.0), po.MutualInformation(example1), {"x": "not a mechanism"})


def test_plots_label_axes_from_the_column_they_plot():
    table = pd.DataFrame(
        {
            "eps": [0.5, 1.0, 0.5, 1.0],
            "utility": [0.1, 0.2, 0.15, 0.25],
            "nmi": [0.1, 0.2, 0.15, 0.25],
            "eps_star": [0.6, 1.1, 0.55, 1.05],
            "size": [4, 9, 4, 9],
            "seconds": [0.1, 0.4, 0.2, 0.3],
            "mechanism": ["a", "a", "b", "b"],
        }
    )
    ax = utility_curves(table, y="utility").axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("ε", "utility")
    assert utility_curves(table).axes[0].get_ylabel() == "NMI = I(X;Y)/H(X)"
    assert utility_curves(table, y="utility", ylabel="I (bits)").axes[0].get_ylabel() == "I (bits)"
    assert quantile_curves(table).axes[0].get_ylabel() == "realized ε*"
    ax = time_vs_size(table).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("size", "seconds")
    assert utility_curves(table, x="size", y="seconds").axes[0].get_xlabel() == "size"
