"""Geo-indistinguishability on a grid against libqif (issue 54): ``python -m benchmarks bench_geo``.

The optimal mechanism of Bordenabe, Chatzikokolakis and Palamidessi (CCS 2014) as a new user would
state it: an ``n × n`` grid of unit step, ``po.MetricLDP(0.5, d)`` with ``po.ExpectedDistortion(prior,
d)``, ``d`` Euclidean, ``prior`` a seeded Dirichlet(1) draw (``default_rng(0)``, as in the issue).
For each grid, in one run:

- privopt: status, whether the certificate was checked, the expected loss of the design and the
  certified lower bound on the least loss, seconds, route and peak memory (a forked child each);
- libqif (PyPI ``qif``, an optional dependency: ``pip install 'privopt[bench]'``):
  ``qif.mechanism.d_privacy.min_loss_given_d`` with the same prior, ``ε·d`` and loss (as distance
  matrices, so libqif calls no Python), its loss and seconds (a forked child with a time limit and a
  memory cap), the loss difference and the time ratio privopt/libqif. Without ``qif`` the column says
  so and nothing fails;
- the baselines for scale: the planar Laplace's expected loss, plain and optimally remapped.

Grids 4, 5, 6, 7 and 10. Flags: ``--quick`` (4 × 4 only), ``--large`` (adds 20 × 20 Euclidean and
30 × 30 Manhattan with a 10-minute budget each, privopt only: libqif's LP has ``n³`` rows there),
``--libqif-seconds=S`` (libqif's time limit per grid, default 300).
"""

from __future__ import annotations

import multiprocessing
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from queue import Empty
from typing import Any

import numpy as np

import privopt as po
from benchmarks.timing import report
from privopt.data.grid import GridMetric

EPS = 0.5
SIDES = (4, 5, 6, 7, 10)
#: The opt-in large grids (``--large``): side, metric.
LARGE: tuple[tuple[int, GridMetric], ...] = ((20, "euclidean"), (30, "manhattan"))
#: privopt's time limit on a large grid (the issue's goal: certified within 1 % in 10 minutes).
LARGE_SECONDS = 600.0
#: Default time limit of one libqif run.
LIBQIF_SECONDS = 300.0
#: Address-space cap of a libqif child (its LP is built in memory: the machine is shared).
LIBQIF_BYTES = 4 * 1024**3
#: libqif is not tried beyond this many locations (its LP has n³ constraint rows).
LIBQIF_MAX_LOCATIONS = 100


@dataclass(frozen=True)
class Instance:
    """One benchmark problem: the grid, its metric, ε and the prior."""

    side: int
    metric: GridMetric = "euclidean"
    eps: float = EPS

    @property
    def grid(self) -> po.Grid:
        return po.Grid(self.side, self.side)

    @property
    def distances(self) -> np.ndarray:
        return self.grid.distances(self.metric)

    @property
    def prior(self) -> np.ndarray:
        return np.random.default_rng(0).dirichlet(np.ones(self.side * self.side))

    @property
    def label(self) -> str:
        return f"{self.side}×{self.side} {self.metric}"


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def privopt_run(instance: Instance, time_limit: float | None = None) -> dict[str, Any]:
    """Solve the instance with privopt (in this process): the row's privopt columns. The clock starts
    after the imports, as libqif's does (privopt imports cvxpy, Clarabel and HiGHS when first used)."""
    import clarabel  # noqa: F401
    import cvxpy  # noqa: F401
    import highspy  # noqa: F401

    d, prior = instance.distances, instance.prior
    options = {} if time_limit is None else {"time_limit": time_limit}
    start = time.perf_counter()
    try:
        problem = po.Problem(po.MetricLDP(instance.eps, d), po.ExpectedDistortion(prior, d), **options)
        solution = problem.solve()
    except po.PrivoptError as exc:
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}", "seconds": time.perf_counter() - start}
    return {
        "status": solution.status.value,
        "checked": solution.certificate.checked,
        "loss": -solution.value,
        "least_loss_bound": -solution.upper,
        "gap": solution.gap,
        "seconds": time.perf_counter() - start,
        "route": solution.route,
        "peak_mib": _peak_mib(),
    }


def libqif_run(instance: Instance) -> dict[str, Any]:
    """Solve the instance with libqif (in this process): its loss and seconds."""
    import qif

    d, prior = instance.distances, instance.prior
    start = time.perf_counter()
    channel = qif.mechanism.d_privacy.min_loss_given_d(
        prior,
        len(prior),
        qif.metric.from_distance_matrix(instance.eps * d),
        qif.metric.from_distance_matrix(d),
    )
    seconds = time.perf_counter() - start
    return {"loss": float(np.sum(prior[:, None] * channel * d)), "seconds": seconds, "peak_mib": _peak_mib()}


def libqif_available() -> bool:
    try:
        import qif  # noqa: F401
    except ImportError:
        return False
    return True


def baselines(instance: Instance) -> dict[str, float]:
    """The planar Laplace's expected loss on the instance, plain and optimally remapped."""
    d, prior = instance.distances, instance.prior
    W = po.mechanisms.planar_laplace(instance.grid, instance.eps)
    return {
        "planar_laplace": float(np.sum(prior[:, None] * W.matrix * d)),
        "remapped": po.mechanisms.optimal_remap(W, prior, d).expected_loss,
    }


def _child(
    function: Callable[..., dict[str, Any]], args: tuple[Any, ...], cap: int | None, queue: Any
) -> None:
    if cap is not None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    try:
        queue.put(function(*args))
    except MemoryError:
        queue.put({"error": f"out of memory (capped at {cap / 1024**3:.0f} GiB)" if cap else "out of memory"})


def in_child(
    function: Callable[..., dict[str, Any]], args: tuple[Any, ...], seconds: float, cap: int | None = None
) -> dict[str, Any]:
    """``function(*args)`` in a forked child (its own peak memory), given up after ``seconds``."""
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(function, args, cap, queue))
    child.start()
    give_up = time.monotonic() + seconds
    while True:  # a child that dies never reports: notice it instead of waiting forever
        try:
            result: dict[str, Any] = queue.get(timeout=1.0)
            break
        except Empty:
            if time.monotonic() > give_up:
                child.kill()
                child.join()
                return {"error": f"not finished after {seconds:.0f} s"}
            if not child.is_alive():
                child.join()
                return {"error": f"the run's process ended with code {child.exitcode}"}
    child.join()
    return result


def run(
    instance: Instance, *, libqif_seconds: float = LIBQIF_SECONDS, time_limit: float | None = None
) -> dict[str, Any]:
    """One row: privopt, libqif (when installed and the grid is small enough) and the baselines."""
    budget = 2 * time_limit + 300 if time_limit is not None else 3600.0
    row: dict[str, Any] = {
        "instance": instance,
        "privopt": in_child(privopt_run, (instance, time_limit), budget),
    }
    if not libqif_available():
        row["libqif"] = {"error": "skipped: libqif (PyPI 'qif') is not installed"}
    elif instance.side**2 > LIBQIF_MAX_LOCATIONS:
        row["libqif"] = {"error": f"not attempted: its LP has n³ = {instance.side**6:,} rows"}
    else:
        row["libqif"] = in_child(libqif_run, (instance,), libqif_seconds, LIBQIF_BYTES)
    row["baselines"] = baselines(instance)
    return row


def _privopt_text(result: dict[str, Any]) -> str:
    if "error" in result:
        return f"{result['error']} ({result['seconds']:.1f} s)"
    return (
        f"{result['status']:<8} checked {result['checked']!s:<5} loss {result['loss']:.10f} "
        f"(least >= {result['least_loss_bound']:.10f}) {result['seconds']:7.2f} s  route {result['route']}, "
        f"{result['peak_mib']:.0f} MiB"
    )


def _libqif_text(ours: dict[str, Any], theirs: dict[str, Any]) -> str:
    if "error" in theirs:
        return theirs["error"]
    text = f"loss {theirs['loss']:.10f} {theirs['seconds']:7.2f} s"
    if "error" not in ours:
        text += (
            f"  | loss difference {ours['loss'] - theirs['loss']:+.1e}, "
            f"time privopt/libqif {ours['seconds'] / theirs['seconds']:.2f}"
        )
    return text


def main() -> None:
    quick = "--quick" in sys.argv
    libqif_seconds = LIBQIF_SECONDS
    for arg in sys.argv[1:]:
        if arg.startswith("--libqif-seconds="):
            libqif_seconds = float(arg.split("=", 1)[1])
    instances = [Instance(side) for side in (SIDES[:1] if quick else SIDES)]
    rows = []
    for instance in instances:
        row = run(instance, libqif_seconds=libqif_seconds)
        ours, theirs, base = row["privopt"], row["libqif"], row["baselines"]
        rows.append((f"{instance.label} privopt", _privopt_text(ours)))
        rows.append((f"{instance.label} libqif", _libqif_text(ours, theirs)))
        rows.append(
            (
                f"{instance.label} planar Laplace",
                f"loss {base['planar_laplace']:.6f}, optimally remapped {base['remapped']:.6f}",
            )
        )
        print(f"  {instance.label}: {_privopt_text(ours)} | libqif: {_libqif_text(ours, theirs)}", flush=True)
    if "--large" in sys.argv:
        for side, metric in LARGE:
            instance = Instance(side, metric)
            ours = in_child(privopt_run, (instance, LARGE_SECONDS), 2 * LARGE_SECONDS + 300)
            rows.append((f"{instance.label} privopt", _privopt_text(ours)))
            print(f"  {instance.label}: {_privopt_text(ours)}", flush=True)
    report(
        f"Geo-indistinguishability, ε = {EPS:g}, Euclidean grids, Dirichlet(1) prior (seed 0): "
        "expected loss and seconds, privopt vs libqif",
        rows,
    )


if __name__ == "__main__":
    main()
