"""privopt.experiments: the Sweep runner, its backends, the parquet store and the generators."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privopt as po
from privopt.errors import LimitError, ValidationError
from privopt.experiments import (
    ResultStore,
    Sweep,
    empirical,
    failed,
    jeffreys,
    jeffreys_draw,
    uniform_weights,
)

REPO = Path(__file__).resolve().parents[1]


def mi_cell(cell):
    """I(X;Y)/H(X) of GRR_ε on a Jeffreys draw: randomness from the draw index only."""
    P = jeffreys((2, 3), cell.rng("draw"))
    W = po.mechanisms.grr(P.n_x, cell["eps"])
    return {"nmi": po.MutualInformation(P).value(W) / P.entropy(), "p0": float(P.p_x[0])}


def flaky_cell(cell):
    if cell["k"] == 2:
        raise LimitError("vertex enumeration refused")
    return [{"kind": "a", "value": cell["k"] ** 2}, {"kind": "b", "value": -cell["k"]}]


GRID = {"draw": list(range(4)), "eps": [0.5, 2.0]}


def values(table: pd.DataFrame) -> pd.DataFrame:
    """A sweep table without the wall-clock column (which differs between runs)."""
    return table.drop(columns="seconds")


# ------------------------------------------------------------------------------------------ Sweep
def test_rows_follow_the_grid_in_order_with_the_function_values() -> None:
    table = Sweep(lambda c: {"square": c["k"] ** 2}, {"k": [3, 1, 2]}, backend="serial", progress=False).run()
    assert table["k"].tolist() == [3, 1, 2]
    assert table["square"].tolist() == [9, 1, 4]
    assert list(table.columns) == ["k", "square", "status", "error", "seconds", "cell"]
    assert (table["status"] == "ok").all()


def test_named_streams_are_shared_across_the_other_parameters() -> None:
    table = Sweep(mi_cell, GRID, backend="serial", progress=False).run()
    by_draw = table.groupby("draw")["p0"].nunique()
    assert (by_draw == 1).all()  # every ε sees the same distribution
    assert table.groupby("eps")["p0"].nunique().eq(4).all()  # different draws differ
    # GRR's NMI increases with ε on every draw (GRR_ε is a garbling of GRR_ε' for ε < ε')
    wide = table.pivot(index="draw", columns="eps", values="nmi")
    assert (wide[2.0] > wide[0.5]).all()


def test_seed_changes_the_streams() -> None:
    a = Sweep(mi_cell, GRID, seed=1, backend="serial", progress=False).run()
    b = Sweep(mi_cell, GRID, seed=2, backend="serial", progress=False).run()
    assert not np.allclose(a["p0"], b["p0"])


def test_failures_are_recorded_and_the_sweep_goes_on() -> None:
    table = Sweep(flaky_cell, {"k": [1, 2, 3]}, backend="serial", progress=False).run()
    bad = failed(table)
    assert bad["k"].tolist() == [2]
    assert bad["error"].iloc[0].startswith("LimitError: vertex enumeration refused")
    good = table[table["status"] == "ok"]
    assert good["value"].tolist() == [1, -1, 9, -3]


def test_a_bad_return_value_is_a_failed_cell_naming_the_function() -> None:
    table = Sweep(lambda c: 42, {"k": [1]}, backend="serial", progress=False).run()
    assert table["status"].tolist() == ["failed"]
    assert "function: expected a cell function returning a dict" in table["error"].iloc[0]


def test_joblib_gives_the_serial_table() -> None:
    serial = Sweep(mi_cell, GRID, backend="serial", progress=False).run()
    parallel = Sweep(mi_cell, GRID, backend="joblib", n_jobs=2, progress=False).run()
    pd.testing.assert_frame_equal(values(serial), values(parallel))


def test_dask_local_cluster_gives_the_serial_table() -> None:
    distributed = pytest.importorskip("distributed")
    serial = Sweep(mi_cell, GRID, backend="serial", progress=False).run()
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = Sweep(mi_cell, GRID, backend="dask", client=client, progress=False).run()
    pd.testing.assert_frame_equal(values(serial), values(on_dask))


def test_progress_bar_counts_the_cells(capsys) -> None:
    Sweep(lambda c: {"k": c["k"]}, {"k": range(5)}, backend="serial", description="demo").run()
    assert "demo: 100%" in capsys.readouterr().err


def test_quiet_cells_do_not_write_to_stderr(capsys) -> None:
    def noisy(cell):
        print("solver chatter", file=sys.stderr)
        return {"k": cell["k"]}

    Sweep(noisy, {"k": [1, 2]}, backend="serial", progress=False).run()
    assert "solver chatter" not in capsys.readouterr().err
    Sweep(noisy, {"k": [1]}, backend="serial", progress=False, quiet=False).run()
    assert "solver chatter" in capsys.readouterr().err


# ------------------------------------------------------------------------------ store and resume
def test_an_interrupted_sweep_resumes_with_only_the_missing_cells(tmp_path: Path) -> None:
    store = tmp_path / "store"
    reference = Sweep(mi_cell, GRID, backend="serial", progress=False).run()
    calls: list[tuple[int, float]] = []

    def interrupted(cell):
        if len(calls) == 5:
            raise KeyboardInterrupt  # the user presses Ctrl-C during the sixth cell
        calls.append((cell["draw"], cell["eps"]))
        return mi_cell(cell)

    with pytest.raises(KeyboardInterrupt):
        Sweep(interrupted, GRID, backend="serial", store=store, flush_every=2, progress=False).run()
    assert len(ResultStore(store).load()) == 5  # what finished before the interrupt was kept

    rerun: list[tuple[int, float]] = []

    def recording(cell):
        rerun.append((cell["draw"], cell["eps"]))
        return mi_cell(cell)

    table = Sweep(recording, GRID, backend="serial", store=store, progress=False).run()
    everything = {(d, e) for d in GRID["draw"] for e in GRID["eps"]}
    assert set(rerun) == everything - set(calls)
    assert len(rerun) == 8 - 5
    pd.testing.assert_frame_equal(values(table), values(reference))
    rerun.clear()
    Sweep(recording, GRID, backend="serial", store=store, progress=False).run()
    assert rerun == []  # nothing left to do


def test_a_store_is_read_back_from_a_str_or_a_path(tmp_path: Path) -> None:
    """docs/how-to-sweep.md: ``folder = tempfile.mkdtemp()`` (a str), then ``ResultStore(folder).load()``."""
    folder = str(tmp_path / "store")
    table = Sweep(mi_cell, GRID, backend="serial", store=folder, progress=False).run()
    from_str, from_path = ResultStore(folder).load(), ResultStore(Path(folder)).load()
    assert len(from_str) == len(table) == 8
    pd.testing.assert_frame_equal(from_str, from_path)
    assert ResultStore(folder) == ResultStore(Path(folder))
    with pytest.raises(
        ValidationError, match=r"^path: expected a file path \(str or pathlib.Path\), got int 3"
    ):
        ResultStore(3)
    with pytest.raises(
        ValidationError, match=r"^path: expected the folder of a sweep's store .*, not a folder"
    ):
        ResultStore(tmp_path / "typo").load()


def test_a_killed_process_loses_at_most_the_cell_it_was_running(tmp_path: Path) -> None:
    store = tmp_path / "store"
    script = textwrap.dedent(
        f"""
        import time
        from privopt.experiments import Sweep

        def slow(cell):
            time.sleep(0.3)
            return {{"square": cell["k"] ** 2}}

        Sweep(slow, {{"k": list(range(40))}}, backend="serial", store={str(store)!r}, flush_every=1,
              progress=False).run()
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], cwd=REPO)
    try:
        deadline = time.monotonic() + 120
        while len(list(store.glob("part-*.parquet"))) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        process.kill()
        process.wait()
    stored = ResultStore(store).load()
    assert 3 <= len(stored) < 40
    ran: list[int] = []

    def square(cell):
        ran.append(cell["k"])
        return {"square": cell["k"] ** 2}

    table = Sweep(square, {"k": list(range(40))}, backend="serial", store=store, progress=False).run()
    assert sorted(ran) == sorted(set(range(40)) - set(stored["k"]))
    assert table["square"].tolist() == [k * k for k in range(40)]


def test_retry_failed_reruns_only_the_failed_cells(tmp_path: Path) -> None:
    Sweep(flaky_cell, {"k": [1, 2, 3]}, backend="serial", store=tmp_path, progress=False).run()
    ran: list[int] = []

    def fixed(cell):
        ran.append(cell["k"])
        return {"kind": "a", "value": 0}

    kept = Sweep(fixed, {"k": [1, 2, 3]}, backend="serial", store=tmp_path, progress=False).run()
    assert ran == []
    assert failed(kept)["k"].tolist() == [2]
    table = Sweep(
        fixed, {"k": [1, 2, 3]}, backend="serial", store=tmp_path, retry_failed=True, progress=False
    ).run()
    assert ran == [2]
    assert (table["status"] == "ok").all()
    assert table.loc[table["k"] == 2, "value"].tolist() == [0]


def test_a_store_of_another_sweep_is_refused(tmp_path: Path) -> None:
    Sweep(lambda c: {}, {"k": [1]}, backend="serial", store=tmp_path, progress=False).run()
    with pytest.raises(ValidationError, match=r"store: .*different sweep"):
        Sweep(lambda c: {}, {"k": [1, 2]}, backend="serial", store=tmp_path, progress=False).run()


def test_a_store_of_another_privopt_release_is_refused(tmp_path: Path, monkeypatch) -> None:
    Sweep(lambda c: {}, {"k": [1]}, backend="serial", store=tmp_path, progress=False).run()
    monkeypatch.setattr("privopt._version.__version__", "999.0")
    with pytest.raises(ValidationError, match=r"store: .*privopt version"):
        Sweep(lambda c: {}, {"k": [1]}, backend="serial", store=tmp_path, progress=False).run()


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"backend": "spark"}, "backend"),
        ({"grid": {"eps": []}}, "grid['eps']"),
        ({"grid": {}}, "grid"),
        ({"grid": {"eps": "0.5"}}, "grid['eps']"),
        ({"backend": "serial", "client": object()}, "client"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"seed": -1}, "seed"),
        ({"flush_every": 0}, "flush_every"),
        ({"function": 3}, "function"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs: dict, argument: str) -> None:
    options = {"function": lambda c: {}, "grid": {"k": [1]}, **kwargs}
    with pytest.raises(ValidationError) as info:
        Sweep(options.pop("function"), options.pop("grid"), **options)
    assert info.value.argument == argument


def test_unknown_cell_parameter_names_the_parameters() -> None:
    table = Sweep(lambda c: {"x": c["nope"]}, {"k": [1]}, backend="serial", progress=False).run()
    assert "name: expected a grid parameter (k)" in table["error"].iloc[0]


# --------------------------------------------------------------------------------- generators
def test_jeffreys_moments_match_the_dirichlet_half() -> None:
    """Dirichlet(1/2) on k = 6 symbols: mean 1/k, variance (1/k)(1 − 1/k)/(k/2 + 1)."""
    rng = np.random.default_rng(0)
    draws = np.array([jeffreys((2, 3), rng).p_x for _ in range(20_000)])
    k = 6
    mean, variance = 1 / k, (1 / k) * (1 - 1 / k) / (k * 0.5 + 1)
    assert np.allclose(draws.mean(axis=0), mean, atol=4 * np.sqrt(variance / 20_000))
    assert np.allclose(draws.var(axis=0), variance, rtol=0.05)


def test_empirical_is_the_frequency_table_of_n_draws() -> None:
    P = po.JointDistribution([[0.1, 0.2], [0.3, 0.4]])
    estimate = empirical(P, 1000, np.random.default_rng(3))
    assert estimate.n == 1000
    counts = estimate.probabilities * 1000
    assert np.allclose(counts, np.round(counts))
    means = np.mean([empirical(P, 200, np.random.default_rng(s)).probabilities for s in range(400)], axis=0)
    assert np.allclose(means, P.probabilities, atol=0.01)  # P̂ is unbiased


def test_jeffreys_draw_and_uniform_weights() -> None:
    draw = jeffreys_draw((3, 3), 1000, np.random.default_rng(1))
    assert draw.estimate.n == 1000
    assert draw.true.shape == (3, 3)
    P = uniform_weights((2, 5), np.random.default_rng(1))
    assert P.shape == (2, 5)
    assert np.isclose(P.p_x.sum(), 1.0)
    with pytest.raises(ValidationError, match="shape"):
        jeffreys((0, 2), np.random.default_rng(1))
    with pytest.raises(ValidationError, match="rng"):
        jeffreys((2, 2), 5)
    with pytest.raises(ValidationError, match=r"^n:"):
        empirical(P, 0, np.random.default_rng(1))
