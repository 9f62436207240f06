"""The ``privopt`` command line (typer).

- ``privopt design SPEC [--out DIR]`` — solve a problem spec; print utility, NMI, audited ε, route
  and time; write the mechanism (CSV) and the solution (JSON) named in ``[output]``.
- ``privopt audit MECHANISM --spec SPEC`` (or ``--definition ldp --eps 1``) — audit a mechanism.
- ``privopt audit-sampler MODULE:FUNCTION --spec SPEC --n N`` (or ``--n-per-input``) — audit the code
  of a mechanism from its reports (:func:`privopt.audit_sampler`).
- ``privopt compare SPEC`` — the optimal mechanism beside the low-complexity ones
  (:func:`privopt.designs.compare`).
- ``privopt verify`` — the verification report of the papers' claims.
- ``privopt reproduce NAME [--full] [--out DIR] [--jobs N]`` — one paper figure's experiment: its
  table (CSV), plot (PNG) and the paper's claims checked against it, its sweep on ``N`` processes.

Every command takes ``--json`` (machine-readable output on stdout), ``--quiet`` (no progress bars or
notes) and ``--debug`` (the traceback of an error). An error is one line on stderr (``error: ...``),
never wrapped; with ``--json``, stdout then holds only ``{"error": {"type", "message", "argument",
"exit_code"}}``. Files are written together or not at all (:func:`privopt.app.files.write_together`).

Exit codes (:class:`ExitCode`): 0 success; 1 a check failed (audit, verify, reproduce); 2 bad
input; 3 a limit was reached (:class:`~privopt.errors.LimitError`); 4 a numerical back end failed;
70 an internal error (a bug: please report it); 130 interrupted (SIGINT); 143 terminated (SIGTERM).
"""

from __future__ import annotations

import contextlib
import enum
import functools
import importlib
import json
import math
import re
import signal
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import pandas as pd
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

import privopt as po
from privopt.app import serialization
from privopt.app.files import as_path, write_together
from privopt.app.mechanism_csv import read_mechanism_csv
from privopt.app.spec import Spec
from privopt.data.distribution import InputAlphabet
from privopt.errors import LimitError, PrivoptError, SolverError, ValidationError
from privopt.solvers import BackendError, BackendTimeout, progress_disabled
from privopt.validation import check_eps


class ExitCode(enum.IntEnum):
    """Exit codes of every ``privopt`` command."""

    OK = 0
    CHECK_FAILED = 1
    BAD_INPUT = 2
    LIMIT = 3
    SOLVER = 4
    INTERNAL = 70
    SIGINT = 130
    SIGTERM = 143


#: The word for the optimal mechanism's row, in every table and in ``[compare] mechanisms``.
OPTIMAL = "optimal"


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that clean-ups (child processes, temporary files) run."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _error_line(message: str) -> None:
    """Write ``error: message`` as exactly one line on stderr (no wrapping, whatever its length)."""
    sys.stderr.write(f"error: {_one_line(message)}\n")
    sys.stderr.flush()


def _error_json(kind: str, message: str, argument: str | None, code: int) -> None:
    error = {"type": kind, "message": _one_line(message), "argument": argument, "exit_code": code}
    sys.stdout.write(json.dumps({"error": error}) + "\n")
    sys.stdout.flush()


def _classify(exc: BaseException) -> tuple[ExitCode, str]:
    """The exit code of an exception and its message (an internal error says so)."""
    if isinstance(exc, KeyboardInterrupt):
        return ExitCode.SIGINT, "interrupted (SIGINT); no files were written"
    if isinstance(exc, Terminated):
        return ExitCode.SIGTERM, "terminated (SIGTERM); no files were written"
    if isinstance(exc, LimitError | BackendTimeout):
        return ExitCode.LIMIT, str(exc)
    if isinstance(exc, SolverError | BackendError):
        return ExitCode.SOLVER, str(exc)
    if isinstance(exc, PrivoptError):
        return ExitCode.BAD_INPUT, str(exc)
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return ExitCode.BAD_INPUT, f"{where}{exc.strerror or exc}"
    return (
        ExitCode.INTERNAL,
        f"internal error {type(exc).__name__}: {exc} (please report it; --debug shows where)",
    )


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt and SIGTERM raises :class:`Terminated` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {
        signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler),
        signal.SIGTERM: signal.signal(signal.SIGTERM, _raise_terminated),
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _guarded(command: Callable[..., None]) -> Callable[..., None]:
    """Run a command under the error contract of this module (see its docstring)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        quiet = bool(kwargs.get("quiet"))
        try:
            with _signals_raise(), progress_disabled() if quiet else contextlib.nullcontext():
                command(*args, **kwargs)
        except (typer.Exit, typer.TyperException):
            raise
        except BaseException as exc:
            code, message = _classify(exc)
            if kwargs.get("debug"):
                traceback.print_exc(file=sys.stderr)
            if kwargs.get("json_output"):
                _error_json(type(exc).__name__, message, getattr(exc, "argument", None), int(code))
            _error_line(message)
            raise typer.Exit(code=int(code)) from exc

    return wrapper


class _OneLineErrors(TyperGroup):
    """Usage errors (an unknown option, a value that is not a number) as one line, exit code 2."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        argv = list(sys.argv[1:] if args is None else args)
        if not argv:  # the help text (no_args_is_help)
            return super().main(argv, prog_name, complete_var, True, windows_expand_args, **extra)
        try:
            result = super().main(argv, prog_name, complete_var, False, windows_expand_args, **extra)
        except typer.Abort:
            sys.exit(int(ExitCode.SIGINT))
        except typer.TyperException as exc:  # typer's (vendored click's) usage errors
            format_message = getattr(exc, "format_message", None)
            message = format_message() if callable(format_message) else exc.message
            context = getattr(exc, "ctx", None)
            if context is not None:
                message += f" (see: {context.command_path} --help)"
            if "--json" in argv:
                _error_json(type(exc).__name__, message, getattr(exc, "param_hint", None), exc.exit_code)
            _error_line(message)
            sys.exit(exc.exit_code)
        sys.exit(result if isinstance(result, int) else 0)


app = typer.Typer(
    cls=_OneLineErrors,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Design and verify local privacy mechanisms. Exit codes: 0 success, 1 a check failed, "
    "2 bad input, 3 a limit was reached, 4 a solver failed, 130/143 interrupted.",
)
_console = Console(width=160)

DEBUG = typer.Option(False, "--debug", help="On an error, also print its traceback.")
JSON = typer.Option(
    False, "--json", help="Print the result as JSON on stdout (an error as a JSON object) instead of text."
)
QUIET = typer.Option(False, "--quiet", "-q", help="No progress bars and no notes; results and errors only.")


def _table(title: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=title)
    for column in rows[0]:
        header = "audited ε" if column == "audited_eps" else column.replace("_", " ")
        table.add_column(header, justify="left" if column in ("mechanism", "route", "witness") else "right")
    for row in rows:
        table.add_row(*[escape(_fmt(v)) for v in row.values()])
    return table


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, float) for v in value):
        if any(math.isnan(v) for v in value):
            return "-"
        low, high = value  # an audited ε: one number when exact, else the interval
        return f"{high:.4f}" if abs(high - low) <= 1e-12 else f"[{low:.4f}, {high:.4f}]"
    return str(value)


def _nmi(P: po.JointDistribution, utility: Any, mechanism: po.Mechanism, on: InputAlphabet) -> float:
    """``I(X;Y)/H(X)`` under the utility's input distribution when it has one (mutual information),
    else under the data's."""
    if isinstance(utility, po.MutualInformation | po.SibsonMutualInformation):
        information = po.MutualInformation(utility.distribution, on=utility.on)
    elif P.input_size(on) != mechanism.n_inputs:
        return math.nan
    else:
        information = po.MutualInformation(P, on=on)
    entropy = po.entropy(information.p)
    if entropy <= 0.0:  # a single input of positive probability: I(X;Y) = H(X) = 0, no ratio
        return math.nan
    return information.value(mechanism) / entropy


def _print_json(value: Any) -> None:
    print(json.dumps(serialization._plain(value), default=str))


# ---------------------------------------------------------------------- design
@app.command()
@_guarded
def design(
    spec: Path = typer.Argument(..., help="The problem spec (TOML; see docs/spec-format.md)."),
    out: Path | None = typer.Option(
        None,
        "--out",
        help="Folder for the files named in \\[output] (created if missing; default: the spec's folder). "
        "Without \\[output], mechanism.csv and solution.json are written there.",
    ),
    json_output: bool = JSON,
    quiet: bool = QUIET,
    debug: bool = DEBUG,
) -> None:
    """Design the optimal mechanism for a spec and write the files it names."""
    parsed = Spec.load(spec)
    start = time.perf_counter()
    P, problem = parsed.problem(progress=not quiet)
    solution = problem.solve(route=parsed.route, solver=parsed.solver)
    seconds = time.perf_counter() - start
    on = parsed.on
    report = solution.certificate.audit
    row = {
        "mechanism": OPTIMAL,
        "outputs": solution.mechanism.n_outputs,
        "utility": solution.value,
        "nmi": _nmi(P, problem.utility, solution.mechanism, on),
        "audited_eps": [report.lower, report.upper],
        "satisfied": report.satisfied,
        "route": solution.route,
        "status": solution.status.value,
        "seconds": seconds,
    }
    others = _comparison_rows(parsed, problem, optimum=False) if parsed.compare_names else []
    written = _write_design(parsed, solution, None if out is None else as_path(out, "--out"))
    if json_output:
        _print_json(
            {
                "definition": str(problem.definition),
                "status": solution.status.value,
                "value": solution.value,
                "lower": solution.lower,
                "upper": solution.upper,
                "gap": solution.gap,
                "route": solution.route,
                "reason": solution.reason,
                "rows": [row, *others],
                "written": {key: str(path) for key, path in written.items()},
                "stats": vars(solution.stats),
            }
        )
        return
    if not quiet:
        _console.print(
            f"[bold]{escape(str(problem.definition))}[/bold] — utility {problem.utility!r}, data {P!r}"
        )
    _console.print(_table("privopt design", [row, *others]))
    if not quiet:
        for key, path in written.items():
            _console.print(f"wrote {key}: {escape(str(path))}", highlight=False)


def _write_design(parsed: Spec, solution: po.Solution, out: Path | None) -> dict[str, Path]:
    """Write the mechanism CSV and the solution JSON of ``[output]``, together or not at all."""
    targets = parsed.outputs(out)
    if out is not None and not targets:
        targets = {"mechanism": out / "mechanism.csv", "solution": out / "solution.json"}
    writers: dict[Path, Callable[[Path], object]] = {}
    if "mechanism" in targets:
        writers[targets["mechanism"]] = lambda path: solution.mechanism.to_frame().to_csv(path)
    if "solution" in targets:
        writers[targets["solution"]] = lambda path: path.write_text(serialization.to_json(solution))
    return dict(zip(targets, write_together(writers), strict=True))


# ---------------------------------------------------------------------- audit
def _read_mechanism(path: Path) -> po.Mechanism:
    """A mechanism from a CSV (rows: inputs, columns: outputs; labels in the first row and column, or a
    bare matrix: :mod:`privopt.app.mechanism_csv`) or from a privopt JSON file (a Mechanism or a
    Solution)."""
    if path.suffix.lower() == ".json":
        loaded = po.load(path)
        if isinstance(loaded, po.Solution):
            return loaded.mechanism
        if isinstance(loaded, po.Mechanism):
            return loaded
        raise ValidationError(
            "mechanism", "a JSON file holding a Mechanism or a Solution", type(loaded).__name__
        )
    return read_mechanism_csv(path)


def _solution_definition(path: Path) -> po.PrivacyDefinition:
    """The definition of the problem a solution JSON carries."""
    loaded = po.load(path)
    if not isinstance(loaded, po.Solution):
        raise ValidationError(
            "--solution", "a solution JSON (written by privopt design or po.save)", type(loaded).__name__
        )
    if loaded.problem is None:
        raise ValidationError(
            "--solution",
            "a solution that carries its problem (written by privopt design or po.save of a solved problem)",
            f"{str(path)!r}, which has none (written by an older privopt, or its problem held a Python function "
            "without an import path): use --spec",
        )
    definition: po.PrivacyDefinition = loaded.problem.definition
    return definition


@app.command()
@_guarded
def audit(
    mechanism: Path = typer.Argument(..., help="The mechanism: a CSV (rows: inputs) or a privopt JSON file."),
    spec: Path | None = typer.Option(
        None, "--spec", help="A spec whose data, definition and set the mechanism is audited against."
    ),
    solution: Path | None = typer.Option(
        None,
        "--solution",
        help="A solution JSON (privopt design, po.save): the mechanism is audited against the definition "
        "of the problem it carries.",
    ),
    definition: str | None = typer.Option(
        None, "--definition", help="'ldp' (then --eps is required); other definitions need --spec."
    ),
    eps: float | None = typer.Option(None, "--eps", help="ε in nats (overrides the spec's)."),
    json_output: bool = JSON,
    quiet: bool = QUIET,
    debug: bool = DEBUG,
) -> None:
    """Audit a mechanism: realized ε, pass or fail, and the witness. Exit code 1 when it fails."""
    W = _read_mechanism(mechanism)
    if eps is not None:
        check_eps(eps, "--eps")
    given = [
        name
        for name, value in (("--spec", spec), ("--solution", solution), ("--definition", definition))
        if value is not None
    ]
    if len(given) > 1:
        raise ValidationError(given[1], "one of --spec, --solution or --definition", " and ".join(given))
    if solution is not None:
        target = _solution_definition(solution)
        if eps is not None:
            target = target.with_eps(eps)
    elif spec is not None:
        parsed = Spec.load(spec)
        if eps is not None:
            parsed = parsed.with_eps(eps)
        target = parsed.privacy_definition(parsed.distribution())
    elif definition is not None:
        if definition.lower() != "ldp":
            raise ValidationError("--definition", "'ldp' (other definitions need --spec)", repr(definition))
        if eps is None:
            raise ValidationError("--eps", "the privacy parameter for --definition ldp", "nothing")
        target = po.LDP(eps)
    else:
        raise ValidationError(
            "--spec", "a spec, a solution (--solution), or --definition ldp with --eps", "none of them"
        )
    report = po.audit(W, target)
    row = {
        "definition": str(target),
        "target_eps": report.target,
        "audited_eps": [report.lower, report.upper],
        "satisfied": report.satisfied,
        "witness": str(report.witness) if report.witness else "-",
    }
    if json_output:
        _print_json(report.to_dict())
    else:
        _console.print(_table(f"privopt audit {escape(mechanism.name)}", [row]))
    if not report.satisfied:
        raise typer.Exit(code=int(ExitCode.CHECK_FAILED))


# ---------------------------------------------------------------------- audit-sampler
SAMPLER_FORM = "'module:function', a sampler (x, rng) -> report in a module importable from here or sys.path"


def _audit_target(spec: Path | None, definition: str | None, eps: float | None) -> po.PrivacyDefinition:
    """The definition of ``--spec`` (at ``--eps`` if given) or ``--definition ldp --eps``."""
    if eps is not None:
        check_eps(eps, "--eps")
    if spec is not None:
        if definition is not None:
            raise ValidationError("--definition", "either --spec or --definition, not both", repr(definition))
        parsed = Spec.load(spec)
        if eps is not None:
            parsed = parsed.with_eps(eps)
        return parsed.privacy_definition(parsed.distribution())
    if definition is not None:
        if definition.lower() != "ldp":
            raise ValidationError("--definition", "'ldp' (other definitions need --spec)", repr(definition))
        if eps is None:
            raise ValidationError("--eps", "the privacy parameter for --definition ldp", "nothing")
        return po.LDP(eps)
    raise ValidationError("--spec", "a spec, or --definition ldp with --eps", "neither")


def _pickled_by_value(function: Any) -> None:
    """Workers (joblib's processes, Dask) cannot import a module loaded from the current folder: ship
    its code with the tasks instead (cloudpickle's pickling by value)."""
    module = sys.modules.get(getattr(function, "__module__", "") or "")
    if module is None or module.__name__.startswith("privopt"):
        return
    for name in ("joblib.externals.cloudpickle", "cloudpickle"):
        with contextlib.suppress(ImportError, ValueError):
            importlib.import_module(name).register_pickle_by_value(module)


def _labels(text: str | None) -> list[Any] | None:
    """``--inputs 0,1,2`` or ``--outputs`` (integers when every label is one, else text)."""
    if text is None:
        return None
    items = [item.strip() for item in text.split(",") if item.strip()]
    return [int(item) for item in items] if all(item.lstrip("-").isdigit() for item in items) else items


@app.command("audit-sampler")
@_guarded
def audit_sampler(
    sampler: str = typer.Argument(
        ..., help="The code under audit: MODULE:FUNCTION, a sampler (x, rng) -> report."
    ),
    n: int | None = typer.Option(None, "--n", help="Reports to draw in all (or --n-per-input)."),
    n_per_input: int | None = typer.Option(
        None, "--n-per-input", help="Reports to draw for each input (as po.samples_needed gives; or --n)."
    ),
    spec: Path | None = typer.Option(
        None, "--spec", help="A spec whose definition the sampler is audited against."
    ),
    definition: str | None = typer.Option(None, "--definition", help="'ldp' (then --eps and --inputs)."),
    eps: float | None = typer.Option(None, "--eps", help="ε in nats (overrides the spec's)."),
    inputs: str | None = typer.Option(
        None,
        "--inputs",
        help="What the sampler is called with, comma-separated: the definition's input labels or flat "
        "indices 0,1,... in its order (default: the sampler's .inputs, else the definition's labels).",
    ),
    outputs: str | None = typer.Option(
        None,
        "--outputs",
        help="Every output the sampler can report, comma-separated (the upper end covers them).",
    ),
    confidence: float = typer.Option(0.99, "--confidence", help="Confidence of the interval."),
    alternative: str = typer.Option(
        "two-sided", "--alternative", help="'two-sided', 'greater' (lower bound only) or 'less' (upper only)."
    ),
    seed: int | None = typer.Option(
        None, "--seed", help="Seed of the run (the same seed gives the same result)."
    ),
    jobs: int = typer.Option(1, "--jobs", help="Parallel sampling on this many cores (joblib; -1: all)."),
    scheduler: str | None = typer.Option(
        None, "--scheduler", help="Sample on a Dask cluster: its scheduler address (host:port)."
    ),
    vectorized: bool = typer.Option(False, "--vectorized", help="The sampler takes an array of inputs."),
    json_output: bool = JSON,
    quiet: bool = QUIET,
    debug: bool = DEBUG,
) -> None:
    """Audit the code of a mechanism from its reports: an interval for its realized ε, and the test
    that shows a violation. Exit code 1 when the reports show the definition is violated."""
    from privopt.app.spec_definitions import load_factory

    target = _audit_target(spec, definition, eps)
    function = load_factory(sampler, Path.cwd(), "sampler", SAMPLER_FORM)
    _pickled_by_value(function)
    client = None
    if scheduler is not None:
        if jobs != 1:
            raise ValidationError(
                "--jobs", "1 with --scheduler (the cluster sets the parallelism)", str(jobs)
            )
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover - dask is an optional dependency
            raise ValidationError(
                "--scheduler", "dask.distributed installed (pip install 'privopt[dist]')", scheduler
            ) from exc
        try:
            client = Client(scheduler, timeout=30)
        except OSError as exc:
            raise ValidationError(
                "--scheduler", "the address of a running Dask scheduler", f"{scheduler!r}: {exc}"
            ) from exc
    try:
        report = po.audit_sampler(
            function,
            target,
            _labels(inputs),
            n=n,
            n_per_input=n_per_input,
            confidence=confidence,
            alternative=alternative,
            outputs=_labels(outputs),
            rng=seed,
            vectorized=True if vectorized else None,
            n_jobs=jobs,
            client=client,
            progress=not quiet,
        )
    finally:
        if client is not None:
            client.close()
    if json_output:
        _print_json(report.to_dict())
    else:
        row = {
            "definition": str(target),
            "target_eps": report.target,
            "audited_eps": [report.lower, report.upper],
            "satisfied": report.satisfied,
            "samples": report.samples,
            "witness": str(report.witness) if report.witness else "-",
        }
        _console.print(_table(f"privopt audit-sampler {escape(sampler)} ({100 * confidence:g} %)", [row]))
        if not quiet:
            for note in report.notes:
                _console.print(f"note: {escape(note)}")
    if not report.satisfied:
        raise typer.Exit(code=int(ExitCode.CHECK_FAILED))


# ---------------------------------------------------------------------- compare
@app.command()
@_guarded
def compare(
    spec: Path = typer.Argument(..., help="The problem spec (TOML), with an optional \\[compare] table."),
    json_output: bool = JSON,
    quiet: bool = QUIET,
    debug: bool = DEBUG,
) -> None:
    """Compare the optimal mechanism with the low-complexity ones named in \\[compare]."""
    parsed = Spec.load(spec)
    P, problem = parsed.problem(progress=not quiet)
    rows = _comparison_rows(parsed, problem, optimum=True)
    if json_output:
        _print_json(rows)
        return
    if not quiet:
        _console.print(f"[bold]{escape(str(problem.definition))}[/bold] — data {P!r}")
    _console.print(_table("privopt compare", rows))


def _comparison_rows(parsed: Spec, problem: po.Problem, *, optimum: bool) -> list[dict[str, Any]]:
    """Rows for the mechanisms named in ``[compare]`` (default: every one defined for the definition),
    in the layout of ``privopt design``; the optimal one only when asked for and ``optimum`` is true."""
    from privopt.designs.named import available, resolve

    names = parsed.compare_names
    if names is None:
        names = [*available(problem), OPTIMAL]
    builders, wanted = resolve(names, problem)
    options = {
        "vertex_limit": problem.vertex_limit,
        "time_limit": problem.time_limit,
        "backend": problem.backend,
        "envelope": problem.options.envelope,
        "self_pairs": problem.options.self_pairs,
        "lip_counterpart": problem.options.lip_counterpart,
    }
    frame = po.compare(problem.definition, problem.utility, builders, optimum=optimum and wanted, **options)
    return [
        {
            "mechanism": r["mechanism"],
            "outputs": None if pd.isna(r["outputs"]) else int(r["outputs"]),
            "utility": r["utility"],
            "nmi": r["nmi"],
            "audited_eps": [r["eps_lower"], r["eps_upper"]],
            "satisfied": r["satisfied"],
            "route": r["error"] or r["note"] or "explicit",
            "status": r["status"] or "",
            "seconds": r["seconds"] + r["audit_seconds"]
            if not math.isnan(r["seconds"])
            else r["audit_seconds"],
        }
        for r in frame.to_dict(orient="records")
    ]


# ---------------------------------------------------------------------- curve
def _curve_title(definition: po.PrivacyDefinition, axis: str, values: Sequence[float]) -> str:
    """The definition as the curve runs it: ε over the grid (not the spec's one ε), or the set along
    its level or sample size."""
    grid = f"{values[0]:g}…{values[-1]:g} ({len(values)} points)" if len(values) > 1 else f"{values[0]:g}"
    text = str(definition)
    if axis == "eps":
        return re.sub(r"eps=[^,)]+", lambda _: f"eps={grid}", text, count=1)
    return f"{text} along {axis} = {grid}"


def _grid_option(text: str | None, argument: str, integer: bool = False) -> list[float] | None:
    """``"a:b:k"`` (k points from a to b) or ``"v1,v2,..."``."""
    if text is None:
        return None
    try:
        if ":" in text:
            low, high, count = text.split(":")
            values = np.linspace(float(low), float(high), int(count)).tolist()
        else:
            values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError as exc:
        raise po.ValidationError(
            argument, "'a:b:k' (k points from a to b) or 'v1,v2,...'", repr(text)
        ) from exc
    return [float(round(v)) for v in values] if integer else values


@app.command()
@_guarded
def curve(
    spec: Path = typer.Argument(..., help="The problem spec (TOML; see docs/spec-format.md)."),
    eps: str | None = typer.Option(
        None, "--eps", help="ε grid: 'a:b:k' (k points from a to b) or 'v1,v2,...'."
    ),
    level: str | None = typer.Option(None, "--level", help="Confidence-level grid of the spec's set."),
    n: str | None = typer.Option(None, "--n", help="Sample-size grid of the spec's set."),
    jobs: int = typer.Option(1, "--jobs", help="Chunks solved in parallel (joblib processes)."),
    time_limit: float | None = typer.Option(
        None, "--time-limit", help="Seconds for the whole curve, shared by its points."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Folder for curve.csv and curve.png (written together; created if missing)."
    ),
    json_output: bool = JSON,
    quiet: bool = QUIET,
    debug: bool = DEBUG,
) -> None:
    r"""Solve a spec along ε (or its set's confidence level or sample size): certified bands and the
    mechanisms of \[compare]."""
    from privopt.app.plot import curve_band
    from privopt.designs.named import available

    parsed = Spec.load(spec)
    P, problem = parsed.problem(progress=False)
    names = parsed.compare_names
    compare = [name for name in (available(problem) if names is None else names) if name != OPTIMAL]
    with warnings.catch_warnings(record=True) as caught:  # a failed point: a note, and its row's error
        warnings.simplefilter("always")
        table = problem.curve(
            eps=_grid_option(eps, "--eps"),
            level=_grid_option(level, "--level"),
            n=_grid_option(n, "--n", integer=True),
            route=parsed.route,
            compare=compare,
            jobs=jobs,
            progress=not quiet,
            time_limit=time_limit,
        )
    written: dict[str, Path] = {}
    if out is not None:
        folder = as_path(out, "--out")
        figure = curve_band(table, title=f"{type(problem.definition).__name__}, {problem.utility!r}")
        targets = write_together(
            {
                folder / "curve.csv": lambda path: table.to_csv(path, index=False),
                folder / "curve.png": lambda path: figure.savefig(path, format="png", dpi=120),
            }
        )
        written = {"table": targets[0], "figure": targets[1]}
    axis = table.attrs["axis"]
    title = _curve_title(problem.definition, axis, table[axis].tolist())
    if json_output:
        _print_json(
            {
                "definition": title,
                "axis": axis,
                "rows": table.to_dict(orient="records"),
                "seconds": table.attrs["seconds"],
                "written": {key: str(path) for key, path in written.items()},
            }
        )
        return
    if not quiet:
        _console.print(f"[bold]{escape(title)}[/bold] — utility {problem.utility!r}, data {P!r}")
    failed = bool((table["error"] != "").any())
    columns = [axis, "lower", "upper", "gap", "status", "seconds", *compare, *(["error"] if failed else [])]
    _console.print(_table("privopt curve", table[columns].to_dict(orient="records")))
    if not quiet:
        for key, path in written.items():
            _console.print(f"wrote {key}: {escape(str(path))}", highlight=False)
        for warning in caught:
            _console.print(f"note: {escape(str(warning.message))}", highlight=False)


# ---------------------------------------------------------------------- verify
@app.command()
@_guarded
def verify(
    claims: list[str] | None = typer.Option(
        None, "--claims", help="Name of a claim to check (repeat the option for several; default: all)."
    ),
    output_format: str | None = typer.Option(None, "--format", help="'md' (default) or 'json'."),
    json_output: bool = JSON,
    quiet: bool = QUIET,
    debug: bool = DEBUG,
) -> None:
    """Check the papers' claims (symbolically, by certificates, by numerical falsification).

    Exit code 1 when a claim does not hold as documented.
    """
    from privopt import verify as verification

    if json_output and output_format not in (None, "json"):
        raise ValidationError("--format", "'json' or nothing together with --json", repr(output_format))
    text, code = verification.run(
        claims=claims or None, format="json" if json_output else output_format or "md"
    )
    print(text)
    if code:
        raise typer.Exit(code=int(ExitCode.CHECK_FAILED))


# ---------------------------------------------------------------------- reproduce
@app.command()
@_guarded
def reproduce(
    name: str = typer.Argument(..., help="A figure's name, e.g. isit-fig2 (an unknown name lists them all)."),
    full: bool = typer.Option(False, "--full", help="The paper's full grid (default: the reduced CI grid)."),
    out: Path = typer.Option(
        Path("reproduce"),
        "--out",
        help="Folder for NAME.csv, NAME.png and NAME-claims.csv (created if missing).",
    ),
    jobs: int = typer.Option(
        -1,
        "--jobs",
        help="Worker processes for the figure's sweep (joblib; -1: every core, 1: this process).",
    ),
    json_output: bool = JSON,
    quiet: bool = QUIET,
    debug: bool = DEBUG,
) -> None:
    """Run one paper figure's experiment; write its table, plot and claim checks.

    Exit code 1 when a checked claim did not reproduce.
    """
    from privopt.experiments import reproduce as run_figure

    if jobs == 0:
        raise ValidationError("--jobs", "a number of processes (-1: every core, 1: this process)", "0")
    backend = "serial" if jobs == 1 else "joblib"
    result = run_figure(
        name, full=full, out=as_path(out, "--out"), backend=backend, n_jobs=jobs, progress=not quiet
    )
    if json_output:
        _print_json(
            {
                "name": name,
                "reproduced": result.reproduced,
                "claims": result.claims().to_dict(orient="records"),
                "written": [str(file) for file in result.files],
            }
        )
    else:
        print(result.summary())
        if not quiet:
            for file in result.files:
                print(f"wrote {file}")
    if not result.reproduced:
        raise typer.Exit(code=int(ExitCode.CHECK_FAILED))


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
