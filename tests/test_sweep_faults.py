"""Sweeps under faults, for real: a Dask worker process dies mid-cell, the sweep process is SIGKILLed
between two flushes, two sweeps share a store.

The cluster is a real ``distributed.LocalCluster`` (processes, 2 workers, 1 thread each). The tests
synchronise on events — a line the sweep prints after a flush, a marker file a cell creates — never on
fixed sleeps, and every wait has a generous bound so that a hang fails instead of blocking CI.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import distributed
import pandas as pd
import pytest

import privopt as po
from privopt.experiments import ResultStore, Sweep, failed
from tests.test_experiments import mi_cell

REPO = Path(__file__).resolve().parents[1]

#: 60 cells: 15 draws × 4 privacy levels.
GRID = {"draw": list(range(15)), "eps": [0.25, 0.5, 1.0, 2.0]}

#: Generous bound on any wait (a hang fails instead of blocking CI on two busy cores).
WAIT_SECONDS = 300


def values(table: pd.DataFrame) -> pd.DataFrame:
    """A sweep table without the wall-clock column."""
    return table.drop(columns="seconds")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local


@pytest.fixture(scope="module")
def serial_table() -> pd.DataFrame:
    return Sweep(mi_cell, GRID, backend="serial", progress=False).run()


def dies_once(marker: str, cell):
    """The cell (draw 3, ε = 1) kills its worker process the first time it runs (``os._exit``)."""
    if cell["draw"] == 3 and cell["eps"] == 1.0:
        try:
            descriptor = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass  # the second attempt, on a fresh worker: compute as usual
        else:
            os.close(descriptor)
            os._exit(1)
    return mi_cell(cell)


def always_dies(cell):
    if cell["draw"] == 0 and cell["eps"] == 2.0:
        os._exit(1)
    return mi_cell(cell)


# ---------------------------------------------------------------------- a worker dies mid-cell
def test_a_worker_killed_mid_cell_is_replaced_and_the_table_is_complete(cluster, serial_table, tmp_path):
    marker = tmp_path / "died"
    with distributed.Client(cluster) as client:
        table = Sweep(
            functools.partial(dies_once, str(marker)), GRID, backend="dask", client=client, progress=False
        ).run()
        client.wait_for_workers(2, timeout=WAIT_SECONDS)  # the nanny restarted the dead worker
    assert marker.exists()  # the worker did die in the middle of that cell
    assert (table["status"] == "ok").all()
    pd.testing.assert_frame_equal(values(table), values(serial_table))


@pytest.mark.slow  # workers restarted until the cell is given up
def test_a_cell_that_kills_every_worker_is_a_failed_row_not_a_dead_sweep(cluster, serial_table):
    """After ``allowed-failures`` (3) + 1 deaths the scheduler gives the cell up: a failed row. A cell that
    was merely queued on a dying worker counts those deaths too (Dask's rule), so it may fail alike."""
    with distributed.Client(cluster) as client:
        table = Sweep(always_dies, GRID, backend="dask", client=client, progress=False).run()
        client.wait_for_workers(2, timeout=WAIT_SECONDS)
    assert len(table) == len(serial_table)
    killer = (table["draw"] == 0) & (table["eps"] == 2.0)
    assert table.loc[killer, "status"].tolist() == ["failed"]
    bad = failed(table)
    assert bad["error"].str.startswith("KilledWorker: every worker that ran this cell died").all()
    good = table["status"] == "ok"
    assert good.sum() >= len(table) - 5  # the killer, and at most one cell queued beside it per death
    pd.testing.assert_frame_equal(values(table[good]), values(serial_table[good]))


# ---------------------------------------------------------------------- the sweep process is killed
KILLED_SWEEP = textwrap.dedent(
    """
    import sys
    from distributed import Client
    from privopt.experiments import Sweep, store
    from tests.test_sweep_faults import GRID
    from tests.test_experiments import mi_cell

    append, flushes = store.ResultStore.append, []

    def reporting(self, rows):
        append(self, rows)
        flushes.append(len(rows))
        print(f"flushed {len(flushes)}", flush=True)
        if len(flushes) == 2:
            sys.stdin.readline()  # blocks here, between the second flush and the third: killed

    store.ResultStore.append = reporting
    with Client(sys.argv[2]) as client:
        Sweep(mi_cell, GRID, backend="dask", client=client, store=sys.argv[1], flush_every=10,
              progress=False).run()
    """
)


def test_a_sweep_killed_between_flushes_resumes_with_no_row_lost_or_duplicated(
    cluster, serial_table, tmp_path
):
    store = tmp_path / "store"
    sweep = subprocess.Popen(
        [sys.executable, "-c", KILLED_SWEEP, str(store), cluster.scheduler_address],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert sweep.stdout is not None
    lines = [sweep.stdout.readline().strip() for _ in range(2)]
    assert lines == ["flushed 1", "flushed 2"], lines
    os.kill(sweep.pid, signal.SIGKILL)
    assert sweep.wait(timeout=WAIT_SECONDS) == -signal.SIGKILL
    kept = ResultStore(store).load()
    assert len(kept) == 20  # two flushes of 10 cells; what the dead process held in memory is gone
    assert not [p.name for p in store.iterdir() if p.name.endswith(".tmp")]

    with distributed.Client(cluster) as client:  # the rerun takes the lock the dead process held
        table = Sweep(
            mi_cell, GRID, backend="dask", client=client, store=store, flush_every=10, progress=False
        ).run()
    parts = pd.concat([pd.read_parquet(part) for part in sorted(store.glob("part-*.parquet"))])
    assert len(parts) == 60
    assert parts["cell"].is_unique
    assert set(kept["cell"]) <= set(parts["cell"])
    pd.testing.assert_frame_equal(values(table), values(serial_table))


# ---------------------------------------------------------------------- two sweeps, one store
BLOCKED_SWEEP = textwrap.dedent(
    """
    import sys
    from privopt.experiments import Sweep
    from tests.test_sweep_faults import GRID
    from tests.test_experiments import mi_cell

    def waits(cell):
        if cell.index == 5:
            print("running", flush=True)
            sys.stdin.readline()  # holds the store until the test lets it go on
        return mi_cell(cell)

    Sweep(waits, GRID, backend="serial", store=sys.argv[1], flush_every=4, progress=False).run()
    print("done", flush=True)
    """
)


def test_a_second_sweep_on_a_store_in_use_is_refused_and_the_store_stays_whole(serial_table, tmp_path):
    store = tmp_path / "store"
    first = subprocess.Popen(
        [sys.executable, "-c", BLOCKED_SWEEP, str(store)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert first.stdout is not None
    assert first.stdin is not None
    try:
        assert first.stdout.readline().strip() == "running"
        with pytest.raises(
            po.ValidationError,
            match=rf"^store: expected a folder no other running sweep is writing to .*locked by process {first.pid} on ",
        ):
            Sweep(mi_cell, GRID, backend="serial", store=store, progress=False).run()
        first.stdin.write("\n")
        first.stdin.flush()
        assert first.stdout.readline().strip() == "done"
    finally:
        first.kill()
        first.wait(timeout=WAIT_SECONDS)
    table = Sweep(mi_cell, GRID, backend="serial", store=store, progress=False).run()  # the lock is free
    pd.testing.assert_frame_equal(values(table), values(serial_table))
    parts = pd.concat([pd.read_parquet(part) for part in sorted(store.glob("part-*.parquet"))])
    assert len(parts) == 60
    assert parts["cell"].is_unique


def test_the_lock_is_held_per_run_even_within_one_process(tmp_path):
    store = tmp_path / "store"
    sweep = Sweep(mi_cell, {"draw": [0], "eps": [1.0]}, backend="serial", store=store, progress=False)
    with (
        ResultStore.locked(store, sweep.manifest()),
        pytest.raises(po.ValidationError, match=rf"locked by process {os.getpid()} on "),
    ):
        sweep.run()
    assert len(sweep.run()) == 1  # released when the block ended
