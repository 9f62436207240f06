"""Exact pricing on several processes: the envelope pricer's branch and bound, split by ``s*``.

The pricing bound of :mod:`privopt.routes.pricing.envelope` is a maximum over the stars ``s*`` (the block
whose ``b_s`` is smallest) of bounds on intervals of ``ρ``, and the intervals of different stars are
bounded independently. So ``k`` processes each search a share of the stars
(:func:`~privopt.routes.pricing.envelope.search_stars`): ``δ̄`` is the largest of their bounds, the columns
the best of theirs. They prune against a common incumbent, the best ratio any of them has met,
published through a memory-mapped file of ``k`` slots (one per process, so no locks), as the serial
search prunes against its own. Without it, the shares whose stars do not hold the best ratio prove
their own maximum instead of stopping below the best one: occupation × education at ε = 2, the 36 s
pricing at a 440 s run's box centre split into two halves of the stars took 17.0 s and 27.9 s
searched alone, 17.6 s and 16.6 s pruning against the final incumbent (docs/compiler.md, §3).

- *Shares.* The stars are dealt by the longest-processing-time rule on the seconds each took in the
  previous pricing (neighbouring duals load the stars alike); the node budget is split evenly.
- *When.* On cones whose blocks have at least ``PARALLEL_SUBSETS`` subsets in all
  (:func:`worth_processes`), the processes start in the background after a pricing that took
  ``PARALLEL_SECONDS`` here: small cones and quick runs never pay for them (starting two costs a few
  seconds of both cores), and until they are up pricing stays here. Each holds the pricer (sent once, when it starts)
  and ``1/(k + 1)`` of the solve's memory budget (:mod:`privopt.memory`), this process keeping a share.
- *Failures.* A worker that dies, or outlives its pricing's deadline by ``GRACE_SECONDS``, ends
  the parallel pricing: that pricing runs again here, and so do the rest of the run's (a
  ``RuntimeWarning`` says why). Nothing is lost but the time.
  An interrupt kills the workers.
- Deadlines are ``time.perf_counter`` values, which all processes of a machine share (a
  system-wide monotonic clock on Linux, macOS and Windows).
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import tempfile
import time
import warnings
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, replace
from types import TracebackType

import numpy as np
from joblib.externals.loky import ProcessPoolExecutor, process_executor

from privopt.compiler.cone import RowCone
from privopt.memory import current_limit, limited
from privopt.routes.pricing.contract import (
    CertifiedPricer,
    PricerEntry,
    PricerTraits,
    PricingOutcome,
    PricingRequest,
    Refusal,
    register_pricer,
    single_session,
)
from privopt.routes.pricing.envelope import (
    EnvelopePricer,
    SearchLimits,
    SearchResult,
    distinct_columns,
    envelope_parts,
    search_stars,
)
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray

#: Cones whose blocks have at least this many subsets in all get workers: Adult's education blocks
#: have 2^16 each (a pricing takes seconds to minutes); the 3 × 3 cones of the tests 8 (milliseconds).
PARALLEL_SUBSETS = 2**14

#: A pricing of at least this many seconds in this process starts the workers (occupation ×
#: education at ε = 2: the first at about 200 s of a 540 s run, its five-node probes taking 0.6-2 s).
PARALLEL_SECONDS = 2.0

#: Seconds a worker may run past its pricing's deadline before it is taken for hung.
GRACE_SECONDS = 30.0

#: Thread pools of the numerical libraries in a worker: one thread each (the workers are the cores).
_WORKER_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

#: The pricer of this worker process (set by :func:`_initialize`).
_WORKER: dict[str, EnvelopePricer] = {}


def available_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def pricing_processes(requested: int | None) -> int:
    """Processes for exact pricing: ``requested``, or by default the cores available, except in a
    process that is itself a worker (a curve's chunk, a sweep's cell, a Dask task): one."""
    if requested is not None:
        return requested
    if multiprocessing.parent_process() is not None:
        return 1
    return available_cores()


def worth_processes(pricer: EnvelopePricer) -> bool:
    """Whether ``pricer``'s searches are long enough to share: at least two stars, and
    ``PARALLEL_SUBSETS`` block subsets in all."""
    blocks = pricer.structure.blocks
    return len(pricer.structure.stars) > 1 and sum(2 ** len(block) for block in blocks) >= PARALLEL_SUBSETS


def deal(stars: list[int], loads: dict[int, float], count: int) -> list[list[int]]:
    """``stars`` in at most ``count`` non-empty shares of nearly equal load (longest processing time
    first; a star without a measured load counts as the mean of the measured ones, or 1)."""
    known = [loads[s] for s in stars if s in loads]
    default = float(np.mean(known)) if known else 1.0
    order = sorted(stars, key=lambda s: (-loads.get(s, default), s))
    shares: list[list[int]] = [[] for _ in range(min(count, len(stars)))]
    totals = [0.0] * len(shares)
    for star in order:
        i = int(np.argmin(totals))
        shares[i].append(star)
        totals[i] += loads.get(star, default)
    return [sorted(share) for share in shares if share]


class _Board:
    """The common incumbent: slot ``slot`` of the memory-mapped file ``path`` is this process's."""

    def __init__(self, path: str, slot: int) -> None:
        # A plain view of the mapping: a memmap's own reductions cost tens of microseconds each.
        self.values = np.asarray(np.memmap(path, dtype=np.float64, mode="r+"))
        self.slot = slot

    def exchange(self, local: float) -> float:
        if local > self.values[self.slot]:
            self.values[self.slot] = local
        return float(self.values.max())


def _initialize(pricer: EnvelopePricer) -> None:
    """Keep the pricer in this worker process, whose memory may grow and stay grown.

    loky restarts a worker whose resident memory grew by 300 MB since its first task, taking it for a
    leak; a search's caches grow that much by design (up to their share of the budget) and are freed
    after each pricing, but the allocator keeps the pages. A restart costs a pricer's unpickling and
    the imports (measured: 11.9 s instead of 6.7 s for a pricing), so the check is off here."""
    process_executor._USE_PSUTIL = False
    pricer.keep_geometry = True  # for the pool's life: one run
    _WORKER["pricer"] = pricer


def _started() -> int:
    """A task whose completion shows that a worker is up (its process id)."""
    return os.getpid()


def _search_share(
    lam: FloatArray,
    limits: SearchLimits,
    stars: list[int],
    max_columns: int,
    board: str,
    slot: int,
    memory_limit: int,
) -> SearchResult:
    """One worker's share of a pricing: the search over ``stars``, within ``memory_limit`` bytes,
    pruning against the common incumbent in slot ``slot`` of the file ``board``."""
    with limited(memory_limit):
        return search_stars(_WORKER["pricer"], lam, limits, max_columns, stars, _Board(board, slot))


class _Pool:
    """The worker processes, the incumbents' file and the tasks that show the workers are up."""

    def __init__(self, pricer: EnvelopePricer, count: int) -> None:
        handle, self.path = tempfile.mkstemp(prefix="privopt-incumbent-", suffix=".f64")
        os.close(handle)
        self.board = np.memmap(self.path, dtype=np.float64, mode="w+", shape=(count,))
        self.executor = ProcessPoolExecutor(
            max_workers=count, initializer=_initialize, initargs=(pricer,), env=_WORKER_ENV
        )
        self.starting: list[Future[int]] = [self.executor.submit(_started) for _ in range(count)]

    def close(self) -> None:
        self.executor.shutdown(wait=False, kill_workers=True)
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.path)


class StarWorkers:
    """``count`` worker processes pricing for ``pricer`` (module docstring); close them after use
    (it is a context manager). Passed as ``parallel`` to :meth:`EnvelopePricer.price
    <privopt.routes.pricing.envelope.EnvelopePricer.price>`, it runs the search on the workers once they
    are up."""

    def __init__(self, pricer: EnvelopePricer, count: int) -> None:
        self.pricer, self.count = pricer, count
        self.pool: _Pool | None = None
        #: Why the workers were given up (``None`` while they work).
        self.failure: str | None = None
        #: Seconds per star in the last pricing (the next one's shares).
        self.loads: dict[int, float] = {}
        #: Pricings searched on the workers.
        self.parallel_pricings = 0

    def __enter__(self) -> StarWorkers:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def start(self) -> None:
        """Start the workers, in the background (once; never after a failure)."""
        if self.pool is None and self.failure is None and self.count > 1:
            self.pool = _Pool(self.pricer, self.count)

    def __call__(self, lam: FloatArray, limits: SearchLimits, max_columns: int) -> SearchResult:
        """The search of one pricing: split over the workers once they are up, else here (then
        starting them if it took ``PARALLEL_SECONDS``)."""
        pool = self._ready()
        if pool is not None:
            result = self._parallel(pool, lam, limits, max_columns)
            if result is not None:
                self.loads = dict(result.star_seconds)
                self.parallel_pricings += 1
                self.pricer.forget_geometry()  # the workers keep their own now
                return result
        result = search_stars(self.pricer, lam, limits, max_columns)
        self.loads = dict(result.star_seconds)
        if result.outcome.seconds >= PARALLEL_SECONDS:
            self.start()
        return result

    def _ready(self) -> _Pool | None:
        """The workers, if they are up (a worker that failed to start gives them up)."""
        pool = self.pool
        if pool is None or not all(future.done() for future in pool.starting):
            return None
        for future in pool.starting:
            if future.exception() is not None:
                self._give_up(f"a pricing worker did not start: {future.exception()!r}")
                return None
        return pool

    def _parallel(
        self, pool: _Pool, lam: FloatArray, limits: SearchLimits, max_columns: int
    ) -> SearchResult | None:
        """The search split over the workers, or ``None`` if they failed (then given up)."""
        shares = deal(self.pricer.structure.stars, self.loads, self.count)
        share_limits = replace(limits, max_nodes=max(1, math.ceil(limits.max_nodes / len(shares))))
        memory = current_limit() // (self.count + 1)
        pool.board[:] = -np.inf
        start = time.perf_counter()
        try:
            futures = [
                pool.executor.submit(
                    _search_share, lam, share_limits, share, max_columns, pool.path, slot, memory
                )
                for slot, share in enumerate(shares)
            ]
            results = []
            for future in futures:
                wait = None
                if limits.deadline is not None:
                    wait = max(limits.deadline - time.perf_counter(), 0.0) + GRACE_SECONDS
                results.append(future.result(timeout=wait))
        except Exception as error:  # a dead or hung worker, whatever the executor calls it
            self._give_up(f"a pricing worker failed: {error!r}")
            return None
        outcomes = [r.outcome for r in results]
        ranked = sorted((c for o in outcomes for c in o.columns), key=lambda c: -c.ratio)
        merged = PricingOutcome(
            upper=max(o.upper for o in outcomes),
            lower=max(o.lower for o in outcomes),
            columns=tuple(distinct_columns(ranked, max_columns)),
            nodes=sum(o.nodes for o in outcomes),
            point_nodes=sum(o.point_nodes for o in outcomes),
            complete=all(o.complete for o in outcomes),
            tolerance=limits.tolerance,
            seconds=time.perf_counter() - start,
        )
        return SearchResult(merged, tuple(sorted(item for r in results for item in r.star_seconds)))

    def _give_up(self, reason: str) -> None:
        self.failure = reason
        warnings.warn(f"{reason}; pricing goes on in this process", RuntimeWarning, stacklevel=3)
        self.close()

    def close(self) -> None:
        """Stop the workers (killing any still searching) and remove the incumbents' file."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None


class SharedEnvelopePricer(EnvelopePricer):
    """The envelope pricer whose runs share their long searches over worker processes (module
    docstring): column generation's certified pricer on envelope cones."""

    @contextlib.contextmanager
    def session(self, workers: int) -> Iterator[CertifiedPricer]:
        with super().session(workers) as pricer:
            if workers > 1 and worth_processes(self):
                with StarWorkers(self, workers) as shared:
                    yield _SharedRun(self, shared)
            else:
                yield pricer


@dataclass(frozen=True)
class _SharedRun:
    """One run of a :class:`SharedEnvelopePricer` whose pricings go to its workers."""

    pricer: EnvelopePricer
    workers: StarWorkers

    @property
    def traits(self) -> PricerTraits:
        return self.pricer.traits

    @property
    def weights(self) -> FloatArray:
        return self.pricer.weights

    def price(self, duals: FloatArray, request: PricingRequest) -> PricingOutcome:
        return self.pricer.price(duals, request, parallel=self.workers)

    def prior_free_duals(self) -> list[FloatArray]:
        return self.pricer.prior_free_duals()

    def session(self, workers: int) -> contextlib.AbstractContextManager[CertifiedPricer]:
        return single_session(self)


def _envelope_entry(utility: SubConvexUtility, cone: RowCone) -> CertifiedPricer | Refusal:
    found = envelope_parts(utility, cone)
    return found if isinstance(found, Refusal) else SharedEnvelopePricer(*found)


register_pricer(PricerEntry("envelope", 20, _envelope_entry, proved_by=("envelope", "lagrangian")))
