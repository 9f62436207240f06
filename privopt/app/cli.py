"""The ``privopt`` command line (typer).

- ``privopt design spec.toml`` — solve a problem spec, print utility, NMI, audited ε, route and
  time, and write the mechanism (CSV) and the solution (JSON) named in ``[output]``.
- ``privopt audit mechanism.csv --spec spec.toml`` (or ``--definition ldp --eps 1``) — audit a
  mechanism; exit code 1 when it fails the definition.
- ``privopt compare spec.toml`` — the comparison table of :func:`privopt.designs.compare`.
- ``privopt verify`` — the verification report of the papers' claims.
- ``privopt reproduce NAME [--full] [--out DIR]`` — one paper figure's experiment: its table (CSV),
  plot (PNG) and the paper's claims checked against it.

Every command takes ``--json`` (machine-readable output) and ``--debug`` (tracebacks). Errors print
one line on stderr and exit with code 2.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import privopt as po
from privopt.app.spec import Spec
from privopt.errors import PrivoptError, ValidationError

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="Design and verify local privacy mechanisms."
)
_console = Console(width=160)
_errors = Console(stderr=True, width=160)

DEBUG = typer.Option(False, "--debug", help="Show the traceback of errors.")
JSON = typer.Option(False, "--json", help="Print machine-readable JSON instead of a table.")


def _guarded(command: Callable[..., None]) -> Callable[..., None]:
    """Turn privopt errors into a one-line message and exit code 2 (a traceback with --debug)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except (PrivoptError, OSError, KeyError) as exc:
            if kwargs.get("debug"):
                raise
            _errors.print(f"error: {exc}", markup=False, highlight=False)
            raise typer.Exit(code=2) from exc

    return wrapper


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


def _nmi(P: po.JointDistribution, mechanism: po.Mechanism, on: str) -> float:
    return po.MutualInformation(P, on=on).value(mechanism) / po.entropy(P.marginal(on))  # type: ignore[arg-type]


@app.command()
@_guarded
def design(
    spec: Path = typer.Argument(..., help="Problem spec (TOML)."),
    json_output: bool = JSON,
    debug: bool = DEBUG,
) -> None:
    """Design the optimal mechanism for a spec; write the mechanism and solution files it names."""
    parsed = Spec.load(spec)
    start = time.perf_counter()
    P, problem = parsed.problem()
    solution = problem.solve(route=parsed.route)
    seconds = time.perf_counter() - start
    on = getattr(problem.definition, "on", "x")
    report = solution.certificate.audit
    row = {
        "mechanism": "optimal",
        "outputs": solution.mechanism.n_outputs,
        "utility": solution.value,
        "nmi": _nmi(P, solution.mechanism, on),
        "audited_eps": [report.lower, report.upper],
        "satisfied": report.satisfied,
        "route": solution.route,
        "status": solution.status.value,
        "seconds": seconds,
    }
    others = _comparison_rows(parsed, problem, optimum=False) if parsed.compare else []
    written = {}
    csv_path = parsed.output_path("mechanism")
    if csv_path is not None:
        solution.mechanism.to_frame().to_csv(csv_path)
        written["mechanism"] = str(csv_path)
    json_path = parsed.output_path("solution")
    if json_path is not None:
        po.save(solution, json_path)
        written["solution"] = str(json_path)
    if json_output:
        print(
            json.dumps(
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
                    "written": written,
                    "stats": _plain(vars(solution.stats)),
                },
            )
        )
        return
    _console.print(f"[bold]{problem.definition}[/bold] — utility {problem.utility!r}, data {P!r}")
    _console.print(_table("privopt design", [row, *others]))
    for key, value in written.items():
        _console.print(f"wrote {key}: {value}")


def _plain(value: Any) -> Any:
    from privopt.app.serialization import _plain as plain

    return plain(value)


def _read_mechanism(path: Path) -> po.Mechanism:
    if not path.is_file():
        raise ValidationError(
            "mechanism",
            "an existing CSV (rows: inputs, columns: outputs) or privopt JSON file",
            repr(str(path)),
        )
    if path.suffix.lower() == ".json":
        loaded = po.load(path)
        return loaded.mechanism if isinstance(loaded, po.Solution) else loaded  # type: ignore[no-any-return]
    frame = pd.read_csv(path, index_col=0)
    return po.Mechanism(frame.to_numpy(dtype=float), list(frame.index), list(frame.columns))


@app.command()
@_guarded
def audit(
    mechanism: Path = typer.Argument(..., help="Mechanism as CSV (rows: inputs) or privopt JSON."),
    spec: Path | None = typer.Option(
        None, "--spec", help="Spec whose data, definition and set to audit against."
    ),
    definition: str | None = typer.Option(None, "--definition", help="'ldp' when no spec is given."),
    eps: float | None = typer.Option(None, "--eps", help="ε (overrides the spec's)."),
    json_output: bool = JSON,
    debug: bool = DEBUG,
) -> None:
    """Audit a mechanism: realized ε, pass/fail and the witness. Exit code 1 when it fails."""
    W = _read_mechanism(mechanism)
    if spec is not None:
        parsed = Spec.load(spec)
        if eps is not None:
            parsed.definition["eps"] = eps
        target = parsed.privacy_definition(parsed.distribution())
    elif definition is not None and definition.lower() == "ldp":
        if eps is None:
            raise ValidationError("--eps", "the privacy parameter for --definition ldp", "missing")
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
        print(json.dumps(report.to_dict()))
    else:
        _console.print(_table(f"privopt audit {mechanism.name}", [row]))
    if not report.satisfied:
        raise typer.Exit(code=1)


@app.command()
@_guarded
def compare(
    spec: Path = typer.Argument(..., help="Problem spec (TOML) with an optional [compare] table."),
    json_output: bool = JSON,
    debug: bool = DEBUG,
) -> None:
    """Compare the optimum with low-complexity mechanisms (``privopt.designs.compare``)."""
    parsed = Spec.load(spec)
    P, problem = parsed.problem()
    rows = _comparison_rows(parsed, problem, optimum=True)
    if json_output:
        print(json.dumps(rows, default=str))
        return
    _console.print(f"[bold]{problem.definition}[/bold] — data {P!r}")
    _console.print(_table("privopt compare", rows))


def _comparison_rows(parsed: Spec, problem: po.Problem, *, optimum: bool) -> list[dict[str, Any]]:
    """Rows for the mechanisms named in ``[compare]`` (default: every one defined for the definition),
    in the layout of ``privopt design``; the optimum only when asked for and ``optimum`` is true."""
    from privopt.designs.named import available, resolve

    names = parsed.compare.get("mechanisms")
    if names is None:
        names = [*available(problem), "optimal"]
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
            if r["seconds"] == r["seconds"]
            else r["audit_seconds"],
        }
        for r in frame.to_dict(orient="records")
    ]


@app.command()
@_guarded
def verify(
    claims: list[str] | None = typer.Option(
        None, "--claims", help="Names of claims to check (default: all)."
    ),
    output_format: str = typer.Option("md", "--format", help="md or json."),
    debug: bool = DEBUG,
) -> None:
    """Check the papers' claims (symbolic, certificates, numerical falsification)."""
    from privopt import verify as verification

    text, code = verification.run(claims=claims or None, format=output_format)
    print(text)
    if code:
        raise typer.Exit(code=code)


@app.command()
@_guarded
def reproduce(
    name: str = typer.Argument(..., help="Figure name, e.g. isit-fig2 (an unknown name lists them all)."),
    full: bool = typer.Option(False, "--full", help="The paper's full grid (default: the reduced CI grid)."),
    out: Path = typer.Option(
        Path("reproduce"), "--out", help="Folder for NAME.csv, NAME.png, NAME-claims.csv."
    ),
    debug: bool = DEBUG,
) -> None:
    """Run one paper figure's experiment (privopt.experiments.reproduce); write its CSV and PNG."""
    from privopt.experiments import reproduce as run_figure

    result = run_figure(name, full=full, out=out)
    print(result.summary())
    for file in result.files:
        print(f"wrote {file}")


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
