"""The ``privopt`` command line (typer).

- ``privopt design SPEC [--out DIR]`` — solve a problem spec; print utility, NMI, audited ε, route
  and time; write the mechanism (CSV) and the solution (JSON) named in ``[output]``.
- ``privopt audit MECHANISM --spec SPEC`` (or ``--definition ldp --eps 1``) — audit a mechanism.
- ``privopt compare SPEC`` — the optimal mechanism beside the low-complexity ones
  (:func:`privopt.designs.compare`).
- ``privopt verify`` — the verification report of the papers' claims.
- ``privopt reproduce NAME [--full] [--out DIR]`` — one paper figure's experiment: its table (CSV),
  plot (PNG) and the paper's claims checked against it.

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
import json
import math
import signal
import sys
import threading
import time
import traceback
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
from privopt.app.files import as_path, read_csv, write_together
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
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, float) for v in value):
        low, high = value  # an audited ε: one number when exact, else the interval
        return f"{high:.4f}" if abs(high - low) <= 1e-12 else f"[{low:.4f}, {high:.4f}]"
    return str(value)


def _nmi(P: po.JointDistribution, mechanism: po.Mechanism, on: InputAlphabet) -> float:
    return po.MutualInformation(P, on=on).value(mechanism) / po.entropy(P.marginal(on))


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
    solution = problem.solve(route=parsed.route)
    seconds = time.perf_counter() - start
    on = parsed.model.definition.on
    report = solution.certificate.audit
    row = {
        "mechanism": OPTIMAL,
        "outputs": solution.mechanism.n_outputs,
        "utility": solution.value,
        "nmi": _nmi(P, solution.mechanism, on),
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
    """A mechanism from a CSV (rows: inputs, columns: outputs; labels in the first row and column) or
    from a privopt JSON file (a Mechanism or a Solution)."""
    if path.suffix.lower() == ".json":
        loaded = po.load(path)
        if isinstance(loaded, po.Solution):
            return loaded.mechanism
        if isinstance(loaded, po.Mechanism):
            return loaded
        raise ValidationError(
            "mechanism", "a JSON file holding a Mechanism or a Solution", type(loaded).__name__
        )
    what = "a mechanism CSV (rows: inputs, columns: outputs, labels in the first row and column)"
    frame = read_csv(path, "mechanism", what, index_col=0)
    numbers = frame.apply(pd.to_numeric, errors="coerce")
    bad = numbers.isna().to_numpy()
    if bad.any():
        row, column = (int(i) for i in np.argwhere(bad)[0])
        raise ValidationError(
            "mechanism",
            "a number in every cell of the mechanism CSV",
            f"{frame.iat[row, column]!r} at row {frame.index[row]!r}, column {frame.columns[column]!r} of {str(path)!r}",
        )
    return po.Mechanism(numbers.to_numpy(dtype=float), tuple(frame.index), tuple(frame.columns))


@app.command()
@_guarded
def audit(
    mechanism: Path = typer.Argument(..., help="The mechanism: a CSV (rows: inputs) or a privopt JSON file."),
    spec: Path | None = typer.Option(
        None, "--spec", help="A spec whose data, definition and set the mechanism is audited against."
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
    if spec is not None:
        if definition is not None:
            raise ValidationError("--definition", "either --spec or --definition, not both", repr(definition))
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
        raise ValidationError("--spec", "a spec, or --definition ldp with --eps", "neither")
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
    options = {k: v for k, v in vars(problem).items() if k in ("vertex_limit", "timeout", "backend")}
    options.update(envelope=problem.options.envelope, self_pairs=problem.options.self_pairs)
    frame = po.compare(problem.definition, problem.utility, builders, optimum=optimum and wanted, **options)
    return [
        {
            "mechanism": r["mechanism"],
            "outputs": r["outputs"],
            "utility": r["utility"],
            "nmi": r["nmi"],
            "audited_eps": [r["eps_lower"], r["eps_upper"]],
            "satisfied": r["satisfied"],
            "route": r["note"] or "explicit",
            "status": r["status"] or "",
            "seconds": r["seconds"] + r["audit_seconds"]
            if not math.isnan(r["seconds"])
            else r["audit_seconds"],
        }
        for r in frame.to_dict(orient="records")
    ]


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
    json_output: bool = JSON,
    quiet: bool = QUIET,
    debug: bool = DEBUG,
) -> None:
    """Run one paper figure's experiment; write its table, plot and claim checks.

    Exit code 1 when a checked claim did not reproduce.
    """
    from privopt.experiments import reproduce as run_figure

    result = run_figure(name, full=full, out=as_path(out, "--out"), progress=not quiet)
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
