"""Drawing reports from a sampler: in this process, on local cores (joblib) or on a Dask cluster.

A *sampler* is the code under audit: ``sampler(x, rng)`` returns one report (any hashable value) for
the input labelled ``x``; a *vectorised* sampler (``vectorized=True``, or an attribute
``sampler.vectorized = True``) takes a 1-D array of input labels and returns one report per label (a
sequence, a 1-D array, or a 2-D array whose rows are reports, turned into tuples).

Reports are drawn for *streams*: one input, or inputs drawn from a distribution over several (the
streams of a test, :mod:`privopt.audit.epsilon_tests`). A stream's reports are drawn in chunks of
:data:`CHUNK_REPORTS`; chunk ``j`` of stream ``s`` in phase ``p`` gets its own generator, seeded by
``SeedSequence(entropy, spawn_key=(*key, p, s, j))`` of the audit's one root ``SeedSequence``. The
chunks, their seeds and the sum of their counts do not depend on where they run, so a run is
reproducible and gives the same counts serially, with joblib and on Dask. A sampler that uses a global
random state instead of ``rng`` must seed it from ``rng`` on every call (the adapters of
:mod:`privopt.audit.clients` do).

Only counts travel back from a worker (a :class:`collections.Counter` of reports per chunk).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privopt.errors import LimitError, ValidationError
from privopt.solvers.progress import Progress

#: Reports drawn per task: the unit of parallel work, of seeding and of progress.
CHUNK_REPORTS = 10_000
#: Distinct reports above which a sampled channel is refused (post-process the reports instead).
MAX_DISTINCT_REPORTS = 200_000


@dataclass(frozen=True)
class Stream:
    """The inputs of a stream of reports: one label, or labels drawn with ``probabilities``."""

    labels: tuple[Hashable, ...]
    probabilities: tuple[float, ...] | None = None


def as_seed_sequence(rng: object) -> np.random.SeedSequence:
    """The root seed of an audit: from ``None`` (fresh entropy), an int, a ``SeedSequence`` or a
    ``Generator`` (which draws it)."""
    if rng is None:
        return np.random.SeedSequence()
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence([int(v) for v in rng.integers(0, 2**63, size=4)])
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return np.random.SeedSequence(int(rng))
    raise ValidationError("rng", "None, an int seed >= 0, a numpy Generator or a SeedSequence", repr(rng))


def child_seed(root: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """The seed of one task (module docstring)."""
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *key))


def check_sampler(sampler: object, vectorized: bool | None) -> bool:
    """Whether ``sampler`` is called with arrays of inputs (module docstring); refuses a non-callable."""
    if not callable(sampler):
        raise ValidationError("sampler", "a function sampler(x, rng) -> report", type(sampler).__name__)
    if vectorized is None:
        vectorized = bool(getattr(sampler, "vectorized", False))
    if not isinstance(vectorized, bool):
        raise ValidationError("vectorized", "True, False or None", repr(vectorized))
    return vectorized


def label_array(labels: Sequence[Hashable]) -> np.ndarray:
    """A 1-D array of labels (an object array when they are tuples, so they stay one per entry)."""
    if labels and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in labels):
        return np.asarray(labels, dtype=np.int64)
    out = np.empty(len(labels), dtype=object)
    out[:] = list(labels)
    return out


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _as_reports(result: object, count: int) -> list[Hashable] | str:
    """A vectorised sampler's result as a list of reports, or the reason it is not one."""
    if isinstance(result, np.ndarray):
        if result.ndim == 1:
            result = result.tolist()
        elif result.ndim == 2:
            result = [tuple(row) for row in result.tolist()]
        else:
            return f"an array of {result.ndim} dimensions"
    if isinstance(result, (str, bytes)) or not isinstance(result, Sequence):
        return f"a {type(result).__name__}, not a sequence of reports"
    if len(result) != count:
        return f"{len(result)} reports for {count} inputs"
    return list(result)


def _unhashable(reports: Sequence[object]) -> object | None:
    for report in reports:
        try:
            hash(report)
        except TypeError:
            return report
    return None


def draw_chunk(
    sampler: Callable[..., Any],
    vectorized: bool,
    stream: Stream,
    count: int,
    seed: np.random.SeedSequence,
) -> Counter[Hashable] | str:
    """``count`` reports of one stream, counted; or, when the sampler fails, a message saying how (a
    string, so that it travels back from any worker)."""
    rng = np.random.default_rng(seed)
    labels = stream.labels
    if stream.probabilities is None:
        xs = [labels[0]] * count
    else:
        picks = rng.choice(len(labels), size=count, p=np.asarray(stream.probabilities))
        xs = [labels[i] for i in picks.tolist()]
    reports: list[Hashable] = []
    try:
        if vectorized:
            result = _as_reports(sampler(label_array(xs), rng), count)
            if isinstance(result, str):
                return f"the vectorised sampler returned {result}"
            reports = result
        else:
            for x in xs:
                reports.append(sampler(x, rng))
    except Exception as exc:
        where = "" if vectorized else f" for input {xs[len(reports)]!r}"
        return f"the sampler raised {_describe(exc)}{where}"
    bad = _unhashable(reports)
    if bad is not None:
        return (
            f"the sampler returned an unhashable report ({type(bad).__name__}: {bad!r:.60}); "
            "return a tuple, a string or a number (e.g. tuple(report))"
        )
    return Counter(reports)


def _chunks(sizes: Sequence[int]) -> Iterator[tuple[int, int, int]]:
    for s, size in enumerate(sizes):
        for j in range(math.ceil(size / CHUNK_REPORTS)):
            yield s, j, min(CHUNK_REPORTS, size - j * CHUNK_REPORTS)


def draw(
    sampler: Callable[..., Any],
    streams: Sequence[Stream],
    sizes: Sequence[int],
    *,
    seed: np.random.SeedSequence,
    phase: int,
    vectorized: bool,
    n_jobs: int = 1,
    client: Any = None,
    progress: bool = True,
    description: str = "sampling",
) -> list[Counter[Hashable]]:
    """Draw ``sizes[s]`` reports of each stream ``s`` and count them (module docstring)."""
    tasks = [(s, count, child_seed(seed, phase, s, j)) for s, j, count in _chunks(sizes)]
    totals: list[Counter[Hashable]] = [Counter() for _ in streams]
    distinct: set[Hashable] = set()
    with Progress(description, total=float(sum(sizes)), unit="reports", enabled=progress) as bar:
        for s, count, result in _run(sampler, vectorized, streams, tasks, n_jobs, client):
            if isinstance(result, str):
                raise ValidationError(
                    "sampler", "a function that returns one hashable report per input", result
                )
            totals[s].update(result)
            distinct.update(result)
            if len(distinct) > MAX_DISTINCT_REPORTS:
                raise LimitError(
                    f"the sampler produced more than {MAX_DISTINCT_REPORTS} distinct reports; post-process "
                    "its reports into a smaller alphabet in the sampler (e.g. the inputs a report supports), "
                    "which keeps every lower bound valid (docs/sample-audits.md)"
                )
            bar.update(advance=count)
    return totals


def _run(
    sampler: Callable[..., Any],
    vectorized: bool,
    streams: Sequence[Stream],
    tasks: list[tuple[int, int, np.random.SeedSequence]],
    n_jobs: int,
    client: Any,
) -> Iterator[tuple[int, int, Counter[Hashable] | str]]:
    """``(stream, count, result)`` of every task, in the order they finish."""
    if client is not None:
        from distributed import as_completed

        futures = {
            client.submit(draw_chunk, sampler, vectorized, streams[s], count, seed, pure=False): (s, count)
            for s, count, seed in tasks
        }
        try:
            for future in as_completed(list(futures)):
                s, count = futures[future]
                yield s, count, future.result()
        finally:
            client.cancel([future for future in futures if not future.done()])
        return
    if n_jobs == 1 or len(tasks) <= 1:
        for s, count, seed in tasks:
            yield s, count, draw_chunk(sampler, vectorized, streams[s], count, seed)
        return
    from joblib import Parallel, delayed

    def task(s: int, count: int, seed: np.random.SeedSequence) -> tuple[int, int, Counter[Hashable] | str]:
        return s, count, draw_chunk(sampler, vectorized, streams[s], count, seed)

    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    yield from parallel(delayed(task)(s, count, seed) for s, count, seed in tasks)


def check_parallel(n_jobs: object, client: object) -> int:
    """``n_jobs`` as an int (joblib's convention: -1 is every core); refuses both ``n_jobs`` and a
    Dask ``client``."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValidationError(
            "n_jobs", "a non-zero int (joblib's convention: -1 is every core)", repr(n_jobs)
        )
    if client is not None and n_jobs != 1:
        raise ValidationError(
            "n_jobs", "1 when a Dask client is given (the cluster sets the parallelism)", repr(n_jobs)
        )
    if client is not None and not callable(getattr(client, "submit", None)):
        raise ValidationError("client", "a distributed.Client", type(client).__name__)
    return int(n_jobs)
