"""Privacy–utility curves (Problem.curve): each point as a cold solve gives it, warm starts, bounds
shared by monotonicity, the same table from every backend, the CLI, the plot, and bad input."""

from __future__ import annotations

import importlib
import itertools
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

import privopt as po
from privopt.app.plot import curve_band
from tests.test_independent_reporting import random_ball

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def ball() -> po.RenyiBall:
    return random_ball(np.random.default_rng(11), (3, 3), 1000)


def _problem(F: po.RenyiBall, **options) -> po.Problem:
    return po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), **options)


def test_every_point_equals_a_cold_solve_and_is_checked(ball):
    eps = [0.25, 0.5, 1.0, 2.0, 4.0]
    table = _problem(ball).curve(eps=eps, compare=("grr", "srr"))
    assert table["eps"].tolist() == eps
    for row in table.itertuples():
        cold = (
            _problem(ball).solve()
            if row.eps == 1.0
            else _problem(ball).with_definition(po.SensitiveLDP(row.eps, ball)).solve()
        )
        assert row.lower == pytest.approx(cold.value, abs=1e-7)
        assert row.status == "optimal"
        assert row.checked
        assert row.upper >= row.lower
        assert row.grr <= row.lower + 1e-9  # GRR's columns lie in the cone: never above the optimum
        assert row.srr <= row.lower + 1e-9
    assert np.all(np.diff(table["lower"]) > 0)  # the optimum grows with ε
    mechanisms = table.attrs["mechanisms"]
    assert len(mechanisms) == len(eps)
    for mechanism, e in zip(mechanisms, eps, strict=True):
        assert po.audit(mechanism, po.SensitiveLDP(e, ball)).satisfied


def test_points_are_audited_without_looking_for_the_lower_end(ball, monkeypatch):
    # A curve's table reads each audit's verdict (its upper end), not its lower end: the candidates and
    # the local search behind the lower end are skipped, and every design still passes its audit.
    robust = importlib.import_module("privopt.audit.robust")  # po.audit is also a function's name
    lower_bound, searched = robust._lower_bound, []

    def record(*args):
        searched.append(args[-1])
        return lower_bound(*args)

    monkeypatch.setattr(robust, "_lower_bound", record)
    table = _problem(ball).curve(eps=[0.5, 1.0, 2.0])
    assert (table["status"] == "optimal").all()
    assert searched == []
    _problem(ball).solve()
    assert searched == [True]  # a single solve's audit searches


def test_warm_start_changes_nothing_but_the_work(ball, monkeypatch):
    # Every point is priced exactly over block-vertex products: warm, the points after the first
    # continue the first point's restricted master instead of starting their own.
    vertex = importlib.import_module("privopt.routes.exact_pricing")
    started = []

    def start_master(*args):
        started.append(args)
        return original(*args)

    original = vertex.start_master
    monkeypatch.setattr(vertex, "start_master", start_master)
    eps = np.linspace(0.5, 3.0, 6)
    warm = _problem(ball).curve(eps=eps)
    assert set(warm["route"]) == {"vertex"}
    assert len(started) == 1
    cold = _problem(ball).curve(eps=eps, warm=False)
    assert len(started) == 1 + len(eps)
    np.testing.assert_allclose(warm["lower"], cold["lower"], atol=1e-7)


def test_column_generation_points_start_from_the_previous_design_alone(example1, monkeypatch):
    # Each point hands on its design's columns, not every column its master held: those fit the
    # smaller ε and slow the next point's master (docs/compiler.md, "Curves").
    runs = []
    original = po.Problem._run

    def run(self, route="auto", **options):
        solution, result = original(self, route, **options)
        runs.append((options["warm_columns"], solution))
        return solution, result

    monkeypatch.setattr(po.Problem, "_run", run)
    problem = po.Problem(
        po.LIP(1.0, example1),
        po.MutualInformation(example1),
        colgen={"progress": False, "max_iterations": 3, "bound_nodes": 200},
    )
    table = problem.curve(eps=[0.5, 1.0, 2.0], route="colgen")
    assert set(table["route"]) == {"colgen"}
    assert runs[0][0] is None
    for (_, before), (warm, _) in itertools.pairwise(runs):
        np.testing.assert_array_equal(warm, before.mechanism.matrix)


def test_bounds_are_shared_along_eps_by_monotonicity(example1):
    # Column generation stopped after one round leaves gaps: every point's lower bound is at least the
    # earlier points' (their designs are feasible at larger ε), every upper bound at most the later
    # points' (the cones are nested), and the shared bounds never cross.
    problem = po.Problem(
        po.LIP(1.0, example1),
        po.MutualInformation(example1),
        colgen={"progress": False, "max_iterations": 1, "bound_nodes": 200},
    )
    table = problem.curve(eps=[0.5, 1.0, 1.5, 2.0], route="colgen", warm=False)  # points as cold solves
    assert np.all(np.diff(table["lower"]) >= -1e-12)
    assert np.all(np.diff(table["upper"]) >= -1e-12)
    assert np.all(table["upper"] >= table["lower"])
    for row in table.itertuples():
        own = problem.with_definition(po.LIP(row.eps, example1)).solve(route="colgen")
        assert row.lower >= own.lower - 1e-9
        assert row.upper <= own.upper + 1e-9


def test_level_and_sample_size_axes_move_the_optimum_the_right_way(ball):
    problem = _problem(ball)
    by_level = problem.curve(level=[0.5, 0.9, 0.99])
    assert np.all(np.diff(by_level["lower"]) < 0)  # larger sets, smaller optimum
    assert by_level["status"].eq("optimal").all()
    by_n = problem.curve(n=[100, 1000, 10000])
    assert np.all(np.diff(by_n["lower"]) > 0)  # more data, smaller set, larger optimum
    assert by_n.attrs["axis"] == "n"


def test_parallel_chunks_return_the_same_table(ball):
    eps = np.linspace(0.5, 3.0, 6)
    serial = _problem(ball).curve(eps=eps, jobs=2, warm=True)
    assert serial.attrs["axis"] == "eps"
    from privopt.problem import curve as curve_module

    chunks = curve_module._chunks(6, 2)
    assert chunks == [[0, 2, 4], [1, 3, 5]]  # interleaved: each spans the grid
    assert curve_module._chunks(3, 5) == [[0], [1], [2]]
    single = _problem(ball).curve(eps=eps)
    np.testing.assert_allclose(serial["lower"], single["lower"], atol=1e-7)
    assert serial["status"].tolist() == single["status"].tolist()


def test_a_time_limit_is_shared_and_what_a_point_leaves_goes_to_the_next(ball, monkeypatch):
    # Each point gets an even share of what its chunk has left: the first a third of 60 s, the next a
    # half of the rest (more, as the first took less than its share), the last all of it. An exhausted
    # budget still gives each point MIN_POINT_SECONDS; the values are those of the curve without a limit.
    from privopt.problem import curve as curve_module

    given: list[float | None] = []
    run = po.Problem._run

    def spy(self, *args, time_limit=None, **kwargs):
        given.append(time_limit)
        return run(self, *args, time_limit=time_limit, **kwargs)

    monkeypatch.setattr(po.Problem, "_run", spy)
    eps = [0.5, 1.0, 2.0]
    free = _problem(ball).curve(eps=eps)
    assert given == [None, None, None]
    given.clear()
    limited = _problem(ball).curve(eps=eps, time_limit=60.0)
    first, second, third = given
    assert 19.0 < first <= 20.0
    assert first < second <= 60.0 / 2  # half of what the first point left
    assert second < third < 60.0
    np.testing.assert_allclose(limited["lower"], free["lower"], atol=1e-12)
    given.clear()
    spent = _problem(ball).curve(eps=eps, time_limit=1e-3)
    assert given == [curve_module.MIN_POINT_SECONDS] * 3
    np.testing.assert_allclose(spent["lower"], free["lower"], atol=1e-7)


@pytest.mark.parametrize(
    ("limit", "share", "seconds"), [(5.0, 600.0, 5.0), (600.0, 5.0, 5.0), (None, 7.0, 7.0)]
)
def test_a_point_runs_to_the_smaller_of_its_time_limit_and_its_share(
    ball, monkeypatch, limit, share, seconds
):
    from privopt.routes import ROUTES

    deadlines = []
    route = ROUTES["vertex"]
    solve = type(route).solve

    def spy(self, data, deadline):
        deadlines.append(deadline - time.perf_counter())
        return solve(self, data, deadline)

    monkeypatch.setattr(type(route), "solve", spy)
    _problem(ball, time_limit=limit)._run("vertex", time_limit=share)
    assert seconds - 1.0 < deadlines[0] <= seconds


def test_parallel_chunks_share_the_memory_budget(ball, monkeypatch):
    # Chunks side by side split the problem's budget evenly (their caches grow to a share of it);
    # a serial curve keeps all of it, and no share is above the problem's own budget.
    from joblib import parallel_config

    from privopt.memory import current_limit
    from privopt.routes import ROUTES

    seen: list[int] = []
    route = ROUTES["vertex"]
    solve = type(route).solve

    def spy(self, data, deadline):
        seen.append(current_limit())
        return solve(self, data, deadline)

    monkeypatch.setattr(type(route), "solve", spy)
    problem = _problem(ball, memory_limit="4 GiB")
    with parallel_config(backend="threading"):  # the chunks in this process, where the spy is
        problem.curve(eps=[0.5, 1.0, 2.0], jobs=2)
    assert seen == [2 * 2**30] * 3
    seen.clear()
    problem.curve(eps=[0.5, 1.0])
    assert seen == [4 * 2**30] * 2
    seen.clear()
    problem._run("vertex", memory_limit=8 * 2**30)
    assert seen == [4 * 2**30]


def test_a_dask_cluster_returns_the_same_table(ball):
    distributed = pytest.importorskip("distributed")
    eps = [0.5, 1.0, 2.0, 3.0]
    reference = _problem(ball).curve(eps=eps, jobs=2)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        table = _problem(ball).curve(eps=eps, jobs=2, client=client)
    np.testing.assert_allclose(table["lower"], reference["lower"], atol=1e-12)
    np.testing.assert_allclose(table["upper"], reference["upper"], atol=1e-12)
    assert table["status"].tolist() == reference["status"].tolist()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"eps": []}, "non-empty"),
        ({"eps": [1.0, 0.5]}, "strictly increasing"),
        ({"eps": [0.5, 0.5]}, "strictly increasing"),
        ({"eps": [0.0, 1.0]}, "eps"),
        ({"eps": [-1.0, 1.0]}, "eps"),
        ({"eps": [0.5, np.nan]}, "finite"),
        ({"eps": "1,2"}, "numbers"),
        ({"eps": [1.0], "level": [0.9]}, "exactly one parameter"),
        ({}, "exactly one parameter"),
        ({"level": [0.5, 1.0]}, "level"),
        ({"n": [10, 20.5]}, "integer"),
        ({"eps": [1.0], "jobs": 0}, "jobs"),
        ({"eps": [1.0], "compare": "grr"}, "compare"),
        ({"eps": [1.0], "time_limit": 0}, "time_limit"),
        ({"eps": [1.0], "time_limit": -5.0}, "time_limit"),
        ({"eps": [1.0], "time_limit": "60"}, "time_limit"),
        ({"eps": [1.0], "time_limit": True}, "time_limit"),
    ],
)
def test_bad_grids_are_named_errors(ball, arguments, message):
    with pytest.raises(po.ValidationError, match=message):
        _problem(ball).curve(**arguments)


def test_a_confidence_axis_needs_a_confidence_set(example1):
    problem = po.Problem(po.SensitiveLDP(1.0, example1), po.MutualInformation(example1))
    with pytest.raises(po.NotSupportedError, match="confidence set"):
        problem.curve(level=[0.9, 0.95])


def test_the_plot_draws_the_band_and_the_named_mechanisms(ball):
    table = _problem(ball).curve(eps=[0.5, 1.0, 2.0], compare=("grr",))
    figure = curve_band(table)
    assert isinstance(figure, Figure)
    ax = figure.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert {"certified band", "optimal design", "grr"} <= set(labels)
    assert ax.get_xlabel() == "ε"
    assert ax.get_ylabel() == "utility"
    with pytest.raises(po.ValidationError, match=r"Problem\.curve"):
        curve_band(table.drop(columns="upper"))


def test_the_cli_writes_the_curve_and_refuses_a_bad_grid(tmp_path):
    spec = REPO / "examples" / "synthetic.toml"
    command = [sys.executable, "-m", "privopt.app.cli", "curve", str(spec)]
    done = subprocess.run(
        [*command, "--eps", "0.5:2:3", "--json", "--out", str(tmp_path), "--time-limit", "300"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [row["eps"] for row in result["rows"]] == [0.5, 1.25, 2.0]
    assert all(row["status"] == "optimal" for row in result["rows"])
    assert (tmp_path / "curve.csv").is_file()
    assert (tmp_path / "curve.png").stat().st_size > 0
    bad = subprocess.run([*command, "--eps", "2,1"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0
    assert "strictly increasing" in bad.stderr


def test_progress_advances_point_by_point_serially_and_chunk_by_chunk_in_parallel(ball, capsys):
    eps = [0.5, 1.0, 2.0]
    _problem(ball).curve(eps=eps, progress=True)
    shown = capsys.readouterr().err
    assert "curve along eps" in shown
    # Serially the bar moves after every point, with the point just solved.
    for done in (1, 2, 3):
        assert f"{done}/3" in shown
    assert "eps = 2: " in shown
    assert "(optimal)" in shown
    # In parallel it moves as each chunk ([0.5, 2] and [1]) comes back, without a point's status.
    _problem(ball).curve(eps=eps, progress=True, jobs=2)
    shown = capsys.readouterr().err
    assert "3/3" in shown
    assert "(optimal)" not in shown
    _problem(ball).curve(eps=eps)
    assert "curve along" not in capsys.readouterr().err
