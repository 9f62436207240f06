"""Privacy–utility curves: one problem solved along ε, a confidence level or a sample size.

``Problem.curve(eps=[...])`` (or ``level=``, ``n=`` for a problem whose definition has a confidence
set) returns a ``pandas.DataFrame`` with one row per point: the parameter (sample sizes as
integers), ``lower`` (the design's utility), ``upper`` (its certified bound), ``gap``, ``status``,
``checked``, ``route``, ``seconds``, ``lower_source``, ``upper_source``, ``error`` and one column per
named mechanism of ``compare``; ``table.attrs["mechanisms"]`` holds the designs. A point that raises a
privopt error (a set its cone cannot be compiled over, a limit) is a row with NaN bounds, the
failure's ``status`` and its ``error``, as in :func:`privopt.compare`; the other points are solved,
and a ``UserWarning`` names the first failed point. Four things make a curve cheaper and tighter than
its points solved one by one (docs/compiler.md, "Curves"):

- **Compiled once.** Along ε each point's cone is the previous point's rescaled (``Problem.with_eps``:
  the pairs do not change with ε, only the blocks' factors).
- **Warm starts.** Points are solved in the order in which the cone grows (ε and ``n`` increasing,
  ``level`` decreasing): every column of the cone at one point is in the cone at the next, so each
  point's column generation (and exact product pricing) starts from the columns of the previous
  point's design; exact pricing continues the previous point's restricted master itself (its HiGHS
  model, whose optimal basis stays feasible).
- **Monotonicity.** A design of one point is feasible at every later point (it is audited there
  before it is used), so its value is a lower bound there too; on the ε axis the cones are nested
  (same groups and pairs, factors non-decreasing — checked, not assumed), so an upper bound at one ε
  holds at every smaller ε. Each point reports the best of both; a lower bound above an upper bound
  is a :class:`~privopt.errors.SolverError`, never clipped.
- **Parallel chunks.** With ``jobs > 1`` the points are cut into ``jobs`` interleaved chunks (every
  ``jobs``-th point) solved in parallel (joblib processes, or a Dask ``client``), each chunk
  warm-started along itself. The chunks depend only on ``jobs``, so serial, joblib and Dask runs
  return the same table. The problem's ``memory_limit`` is the curve's: chunks side by side each
  solve within an even share of it (their pricing caches grow to a share of their budget).

``time_limit`` bounds the curve's wall time: each chunk's points share it, a point taking an even
share of what its chunk has left (its own ``time_limit`` and ``colgen.time_limit`` still apply), so the
time a point does not need (its gap closed to ``colgen.gap_tolerance``) goes to the chunk's next,
larger-ε points.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from privopt.audit.exact import audit
from privopt.audit.robust import LowerEnd
from privopt.compiler.cone import RowCone
from privopt.data.mechanism import Mechanism, as_mechanism
from privopt.definitions.base import PrivacyDefinition
from privopt.errors import (
    NotSupportedError,
    PrivoptError,
    SolverError,
    ValidationError,
    failure_status,
    failure_text,
)
from privopt.mechanisms.catalog import available
from privopt.problem.solution import Solution
from privopt.routes.base import ProblemData, RouteResult, Status, WarmMaster, status_for
from privopt.routes.colgen_options import ColumnGenerationOptions, relative_gap
from privopt.sets.l1 import L1Ball
from privopt.sets.renyi import RenyiBall
from privopt.tolerances import BOUND_ORDER_RTOL, CURVE_CONE_RTOL, EPS_MAX
from privopt.utilities import ConcaveUtility, SubConvexUtility
from privopt.validation import FloatArray

#: The parameters a curve can run along.
AXES = ("eps", "level", "n")


#: The least time a point of a curve with a ``time_limit`` gets, when its chunk's time has run out.
MIN_POINT_SECONDS = 1.0


class CurveProblem(Protocol):
    """What a curve needs of :class:`~privopt.Problem` (this module sits beside it)."""

    definition: PrivacyDefinition
    utility: SubConvexUtility | ConcaveUtility
    n_inputs: int

    @property
    def colgen(self) -> ColumnGenerationOptions: ...

    @property
    def memory_limit(self) -> int: ...

    def get_problem_data(self) -> ProblemData: ...

    def with_definition(self, definition: PrivacyDefinition) -> CurveProblem: ...

    def with_eps(self, eps: float) -> CurveProblem: ...

    def _run(
        self, route: str = "auto", *, solver: str | None = None, verbose: bool = False,
        warm_columns: FloatArray | None = None, warm_master: WarmMaster | None = None,
        audit_lower_end: LowerEnd = "search", time_limit: float | None = None,
        memory_limit: int | None = None,
    ) -> tuple[Solution, RouteResult]: ...  # fmt: skip


@dataclass(frozen=True)
class _Point:
    """One point, before the neighbours' bounds are applied: solved (``solution``), or failed with a
    privopt error (``solution`` is ``None``; ``status`` and ``error`` as :func:`privopt.compare`'s
    rows say it, text so that it travels back from any worker)."""

    value: float
    solution: Solution | None
    seconds: float
    status: str = ""
    error: str = ""


def _grid(axis: str, values: Any) -> tuple[float, ...]:
    """The axis values, checked: non-empty, strictly increasing, in the axis's range."""
    try:
        array = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise ValidationError(axis, "a non-empty sequence of numbers", repr(values)) from exc
    if array.size == 0:
        raise ValidationError(axis, "a non-empty sequence of numbers", "an empty sequence")
    if not np.all(np.isfinite(array)):
        raise ValidationError(axis, "finite numbers", repr(values))
    if array.size > 1 and not np.all(np.diff(array) > 0.0):
        raise ValidationError(axis, "strictly increasing values (sort the grid; no repeats)", repr(values))
    if axis == "eps" and not (array[0] > 0.0 and array[-1] <= EPS_MAX):
        raise ValidationError("eps", f"values in (0, {EPS_MAX:.4g}]", repr(values))
    if axis == "level" and not (array[0] > 0.0 and array[-1] < 1.0):
        raise ValidationError("level", "confidence levels in (0, 1)", repr(values))
    if axis == "n" and not (array[0] >= 1.0 and np.all(array == np.round(array))):
        raise ValidationError("n", "positive integer sample sizes", repr(values))
    return tuple(float(v) for v in array)


def _axis(eps: Any, level: Any, n: Any) -> tuple[str, tuple[float, ...]]:
    given = [(name, values) for name, values in zip(AXES, (eps, level, n), strict=True) if values is not None]
    if len(given) != 1:
        raise ValidationError(
            "eps, level, n", "exactly one parameter to run the curve along", f"{len(given)} given"
        )
    name, values = given[0]
    return name, _grid(name, values)


def definition_at(definition: PrivacyDefinition, axis: str, value: float) -> PrivacyDefinition:
    """``definition`` at one point of the axis (a confidence set rebuilt at the level or size)."""
    if axis == "eps":
        return definition.with_eps(value)
    uncertainty = definition.uncertainty
    if not isinstance(uncertainty, RenyiBall | L1Ball) or uncertainty.level is None:
        raise NotSupportedError(
            f"a curve along {axis!r} needs a confidence set (RenyiBall.confidence or L1Ball.confidence); "
            f"{definition} has {uncertainty!r}"
        )
    center = uncertainty.center
    if axis == "level":
        if isinstance(uncertainty, RenyiBall):
            return definition.with_uncertainty(RenyiBall.confidence(center, level=value))
        return definition.with_uncertainty(L1Ball.confidence(center, level=value))
    size = round(value)
    if isinstance(uncertainty, RenyiBall):
        return definition.with_uncertainty(RenyiBall.confidence(center, n=size, level=uncertainty.level))
    return definition.with_uncertainty(L1Ball.confidence(center, n=size, level=uncertainty.level))


def _growing(axis: str) -> bool:
    """Whether the cone grows with the axis value (ε and n) rather than shrinks (level)."""
    return axis != "level"


def _chunks(count: int, jobs: int) -> list[list[int]]:
    """``jobs`` interleaved chunks of ``range(count)`` (every ``jobs``-th point; fewer chunks when there
    are fewer points): each spans the whole grid, so the costly end of it (large ε) is shared."""
    parts = min(count, jobs)
    return [list(range(k, count, parts)) for k in range(parts)]


def _share(deadline: float | None, left: int) -> float | None:
    """A point's seconds when ``left`` points of its chunk remain before ``deadline``: an even share of
    the time left (at least :data:`MIN_POINT_SECONDS`), so what one point leaves goes to the next."""
    if deadline is None:
        return None
    return max((deadline - time.perf_counter()) / left, MIN_POINT_SECONDS)


def _solve_chunk(
    problem: CurveProblem,
    axis: str,
    values: Sequence[float],
    route: str,
    warm: bool,
    time_limit: float | None,
    report: Callable[[float, _Point], None] | None = None,
    memory_limit: int | None = None,
) -> list[_Point]:
    """Solve the points of one chunk in the order the cone grows, each from the previous point's design,
    all within ``time_limit`` seconds (:func:`_share`) and ``memory_limit`` bytes (the problem's
    budget when ``None``); ``report(value, point)`` after each one."""
    order = range(len(values)) if _growing(axis) else range(len(values) - 1, -1, -1)
    points: dict[int, _Point] = {}
    design: FloatArray | None = None
    master: WarmMaster | None = None
    at = problem
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    for left, index in zip(range(len(values), 0, -1), order, strict=True):
        start = time.perf_counter()
        try:
            # Along ε the previous point's cone is rescaled (compiled once per chunk); else compiled anew.
            if axis == "eps":
                at = at.with_eps(values[index])
            else:
                at = problem.with_definition(definition_at(problem.definition, axis, values[index]))
            solution, result = at._run(
                route,
                warm_columns=design if warm else None,
                warm_master=master if warm else None,
                audit_lower_end="none",
                time_limit=_share(deadline, left),
                memory_limit=memory_limit,
            )
        except PrivoptError as exc:  # a point that cannot be solved is a row of the table, as in compare
            seconds = time.perf_counter() - start
            points[index] = _Point(np.nan, None, seconds, failure_status(exc), failure_text(exc))
        else:
            # The next point starts from this design's columns alone: a column generation master's
            # other columns fit this ε, and at a larger one they slow its master (docs/compiler.md).
            design = np.asarray(solution.mechanism.matrix)
            master = result.master
            points[index] = _Point(solution.value, solution, time.perf_counter() - start)
        if report is not None:
            report(values[index], points[index])
    return [points[index] for index in range(len(values))]


def _indexed_chunk(
    k: int, problem: CurveProblem, axis: str, values: Sequence[float], route: str, warm: bool,
    time_limit: float | None, memory_limit: int,
) -> tuple[int, list[_Point]]:  # fmt: skip
    """:func:`_solve_chunk` for a worker, with the chunk's position (results arrive in any order)."""
    return k, _solve_chunk(problem, axis, values, route, warm, time_limit, memory_limit=memory_limit)


def _run_chunks(
    problem: CurveProblem, axis: str, values: tuple[float, ...], route: str, warm: bool, jobs: int,
    client: Any, progress: bool, time_limit: float | None,
) -> list[_Point]:  # fmt: skip
    """Every point, in grid order. ``progress``: a bar over the points, advanced as each point is
    solved (serially) or as each chunk comes back (joblib, Dask); each chunk within ``time_limit``
    and, when chunks run side by side, an even share of the problem's memory budget."""
    from tqdm.auto import tqdm

    chunks = _chunks(len(values), jobs)
    tasks = [[values[i] for i in chunk] for chunk in chunks]
    memory = problem.memory_limit // len(tasks)
    results: dict[int, list[_Point]] = {}
    bar = tqdm(total=len(values), desc=f"curve along {axis}", unit="point", disable=not progress)
    try:
        if client is not None:
            from distributed import as_completed

            futures = client.map(
                _indexed_chunk, range(len(tasks)), [problem] * len(tasks), [axis] * len(tasks), tasks,
                [route] * len(tasks), [warm] * len(tasks), [time_limit] * len(tasks), [memory] * len(tasks),
                pure=False,
            )  # fmt: skip
            try:
                for future in as_completed(futures):
                    k, points = future.result()
                    results[k] = points
                    bar.update(len(points))
            finally:  # an error or an interrupt leaves no chunk running on the cluster
                client.cancel([future for future in futures if not future.done()])
        elif jobs > 1 and len(tasks) > 1:
            from joblib import Parallel, delayed

            parallel = Parallel(n_jobs=len(tasks), return_as="generator_unordered")
            for k, points in parallel(
                delayed(_indexed_chunk)(k, problem, axis, task, route, warm, time_limit, memory)
                for k, task in enumerate(tasks)
            ):
                results[k] = points
                bar.update(len(points))
        else:

            def report(value: float, point: _Point) -> None:
                bar.update(1)
                outcome = point.status if point.solution is None else point.solution.status.value
                bar.set_postfix_str(f"{axis} = {value:g}: {point.value:.6g} ({outcome})")

            for k, task in enumerate(tasks):  # one chunk (jobs = 1)
                results[k] = _solve_chunk(problem, axis, task, route, warm, time_limit, report)
    finally:
        bar.close()
    by_index = {
        i: point for k, chunk in enumerate(chunks) for i, point in zip(chunk, results[k], strict=True)
    }
    return [by_index[i] for i in range(len(values))]


def _nested(smaller: RowCone, larger: RowCone) -> bool:
    """Whether ``smaller ⊆ larger`` follows from their blocks: the same groups and pairs, and every
    factor of ``smaller`` at most ``larger``'s (a column meeting ``smaller``'s rows meets ``larger``'s)."""
    if len(smaller.groups) != len(larger.groups) or len(smaller.blocks) != len(larger.blocks):
        return False
    for a, b in zip(smaller.groups, larger.groups, strict=True):
        if a.vectors.shape != b.vectors.shape or not np.array_equal(a.vectors, b.vectors):
            return False
    return all(
        (x.numerator, x.denominator) == (y.numerator, y.denominator) and x.log_factor <= y.log_factor
        for x, y in zip(smaller.blocks, larger.blocks, strict=True)
    )


def _named_values(
    definition: PrivacyDefinition, utility: SubConvexUtility | ConcaveUtility, n: int, names: Sequence[str]
) -> dict[str, float]:
    """The utility of each named mechanism at this definition (NaN where it does not apply)."""
    builders = available(definition, utility, n)
    out = {}
    for name in names:
        try:
            out[name] = (
                float(utility.value(as_mechanism(builders[name](), name))) if name in builders else np.nan
            )
        except PrivoptError:
            out[name] = np.nan
    return out


def solve_curve(
    problem: CurveProblem,
    *,
    eps: Any = None,
    level: Any = None,
    n: Any = None,
    route: str = "auto",
    compare: Sequence[str] = (),
    jobs: int = 1,
    client: Any = None,
    warm: bool = True,
    progress: bool = False,
    time_limit: float | None = None,
) -> pd.DataFrame:
    """The curve of ``problem`` along one axis (module docstring)."""
    axis, values = _axis(eps, level, n)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValidationError("jobs", "a positive integer", repr(jobs))
    if time_limit is not None and (
        isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not time_limit > 0
    ):
        raise ValidationError("time_limit", "a positive number of seconds or None", repr(time_limit))
    if not isinstance(warm, bool):
        raise ValidationError("warm", "True or False", repr(warm))
    if isinstance(compare, str) or not all(isinstance(name, str) for name in compare):
        raise ValidationError(
            "compare", "a sequence of mechanism names such as ('grr', 'srr')", repr(compare)
        )
    definitions = [definition_at(problem.definition, axis, value) for value in values]
    start = time.perf_counter()
    limit = None if time_limit is None else float(time_limit)
    points = _run_chunks(problem, axis, values, route, warm, jobs, client, progress, limit)
    seconds = time.perf_counter() - start
    rows, mechanisms = _tighten(problem, axis, values, definitions, points)
    for row, definition in zip(rows, definitions, strict=True):
        row.update(_named_values(definition, problem.utility, problem.n_inputs, compare))
    table = pd.DataFrame(rows)
    table.attrs.update(
        {"axis": axis, "mechanisms": mechanisms, "seconds": seconds, "compare": tuple(compare)}
    )
    failed = [
        (value, point.error) for value, point in zip(values, points, strict=True) if point.solution is None
    ]
    if failed:
        first = f"{axis} = {_coordinate(axis, failed[0][0])}: {failed[0][1]}"
        warnings.warn(
            f"curve: {len(failed)} of {len(values)} points failed (the first, {first}); their rows have NaN "
            "bounds, a status and the error, the other points are solved",
            UserWarning,
            stacklevel=3,
        )
    return table


def _coordinate(axis: str, value: float) -> float | int:
    """A grid value as the table shows it: sample sizes as integers."""
    return round(value) if axis == "n" else value


def _tighten(
    problem: CurveProblem,
    axis: str,
    values: tuple[float, ...],
    definitions: list[PrivacyDefinition],
    points: list[_Point],
) -> tuple[list[dict[str, Any]], list[Mechanism | None]]:
    """Each point's row with the best lower bound of its own and earlier designs (in its cone and
    audited there) and, where the cones are provably nested, the best upper bound of later points."""
    cones = {
        index: _cone(point.solution, problem, definitions[index])
        for index, point in enumerate(points)
        if point.solution is not None
    }
    order = list(range(len(values))) if _growing(axis) else list(range(len(values) - 1, -1, -1))
    best: dict[int, tuple[float, Mechanism, int]] = {}
    incumbent: tuple[float, Mechanism, int] | None = None
    for index in order:
        own = points[index].solution
        if own is None:
            continue
        chosen = (points[index].value, own.mechanism, index)
        if (
            incumbent is not None
            and incumbent[0] > chosen[0]
            and _feasible(incumbent[1], cones[index], definitions[index])
        ):
            chosen = incumbent
        best[index] = chosen
        if incumbent is None or chosen[0] > incumbent[0]:
            incumbent = chosen
    rows: list[dict[str, Any]] = []
    for index in range(len(values)):
        solution = points[index].solution
        if solution is None:
            rows.append(_failed_row(axis, values[index], points[index]))
            continue
        lower, _, source = best[index]
        lower_source = "own design" if source == index else f"design of {axis} = {values[source]:g}"
        upper, checked, upper_source = solution.upper, solution.certificate.checked, "own certificate"
        for later in range(index + 1, len(values)) if axis == "eps" else ():
            other = points[later].solution
            if other is not None and other.upper < upper and _nested(cones[index], cones[later]):
                upper, checked = other.upper, other.certificate.checked
                upper_source = f"certificate of eps = {values[later]:g}"
        if not upper >= lower - BOUND_ORDER_RTOL * max(1.0, abs(lower)):
            raise SolverError(
                f"curve point {axis} = {values[index]:g}: lower bound {lower!r} ({lower_source}) above the "
                f"upper bound {upper!r} ({upper_source})"
            )
        upper = max(upper, lower)  # within BOUND_ORDER_RTOL: rounding
        limited = solution.status is Status.LIMIT_REACHED
        status = status_for(lower, upper, problem.colgen.gap_tolerance, limited)
        if not checked and status in (Status.OPTIMAL, Status.OPTIMAL_WITHIN_GAP):
            status = Status.FEASIBLE  # only a checked bound makes a point optimal
        rows.append(
            {
                axis: _coordinate(axis, values[index]),
                "lower": lower,
                "upper": upper,
                "gap": relative_gap(lower, upper),
                "status": status.value,
                "checked": checked,
                "route": solution.route,
                "seconds": points[index].seconds,
                "lower_source": lower_source,
                "upper_source": upper_source,
                "error": "",
            }
        )
    return rows, [best[index][1] if index in best else None for index in range(len(values))]


def _failed_row(axis: str, value: float, point: _Point) -> dict[str, Any]:
    """The row of a point that failed: no bounds, the failure's status and error (as compare's)."""
    return {
        axis: _coordinate(axis, value),
        "lower": np.nan,
        "upper": np.nan,
        "gap": np.nan,
        "status": point.status,
        "checked": False,
        "route": "",
        "seconds": point.seconds,
        "lower_source": "",
        "upper_source": "",
        "error": point.error,
    }


def _cone(solution: Solution, problem: CurveProblem, definition: PrivacyDefinition) -> RowCone:
    """The compiled cone of a point: its solution's problem's (compiled once, also in a worker)."""
    solved = solution.problem
    source = solved if solved is not None else problem.with_definition(definition)
    return source.get_problem_data().cone


def _feasible(mechanism: Mechanism, cone: RowCone, definition: PrivacyDefinition) -> bool:
    """Whether a neighbour's design is a design here: its columns in this point's cone, and its audit
    against this point's definition passing."""
    return cone.violation(mechanism.matrix) <= CURVE_CONE_RTOL and audit(mechanism, definition).satisfied
