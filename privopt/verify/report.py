"""The verification report: one row per claim, as Markdown, JSON or a DataFrame."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privopt.verify.verdicts import ERROR, FALSIFIED, Attempt, is_final

#: Statuses of a row against the claim's expectation.
AS_EXPECTED = "as expected"
UNEXPECTED = "UNEXPECTED"
UNDECIDED = "undecided"


@dataclass(frozen=True)
class ClaimResult:
    """The outcome for one claim.

    ``verdict`` comes from the first checker that decided (``checker``); ``attempts`` lists every
    checker that ran, in order; ``library`` is the comparison with privopt's implementation (or
    ``None``). ``status`` compares the verdict with the claim's expectation.
    """

    name: str
    source: str
    description: str
    expect: str
    verdict: str
    checker: str
    seconds: float
    detail: str
    attempts: tuple[Attempt, ...]
    library: Attempt | None = None
    counterexample: dict[str, str] | None = None
    note: str = ""

    @property
    def status(self) -> str:
        if self.verdict == ERROR:
            return UNEXPECTED
        if self.library is not None and self.library.outcome == "disagrees":
            return UNEXPECTED
        if self.expect == "holds":
            return (
                UNEXPECTED
                if self.verdict == FALSIFIED
                else (AS_EXPECTED if is_final(self.verdict) else UNDECIDED)
            )
        return (
            AS_EXPECTED
            if self.verdict == FALSIFIED
            else (UNEXPECTED if is_final(self.verdict) else UNDECIDED)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "description": self.description,
            "expect": self.expect,
            "verdict": self.verdict,
            "checker": self.checker,
            "seconds": round(self.seconds, 4),
            "status": self.status,
            "detail": self.detail,
            "counterexample": self.counterexample,
            "library": None
            if self.library is None
            else {"outcome": self.library.outcome, "detail": self.library.detail},
            "attempts": [
                {
                    "checker": a.checker,
                    "outcome": a.outcome,
                    "seconds": round(a.seconds, 4),
                    "detail": a.detail,
                }
                for a in self.attempts
            ],
            "note": self.note,
            "data": {k: v for a in self.attempts for k, v in a.data.items()},
        }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


@dataclass(frozen=True)
class VerificationReport:
    """Rows of :class:`ClaimResult` and the settings of the run."""

    rows: tuple[ClaimResult, ...]
    seed: int
    time_limit: float
    full: bool
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 when every claim met its expectation (undecided claims do not fail the run), else 1."""
        return int(any(r.status == UNEXPECTED for r in self.rows))

    def __getitem__(self, name: str) -> ClaimResult:
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def to_markdown(self, details: bool = True) -> str:
        """The table (claim, source, verdict, checker, time, expected, library), then the details."""
        lines = [
            "| claim | source | verdict | checker | time (s) | expected | status | privopt |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in self.rows:
            library = "—" if r.library is None else r.library.outcome
            lines.append(
                f"| {_cell(r.name)} | {_cell(r.source)} | {r.verdict} | {r.checker} | {r.seconds:.2f} | "
                f"{r.expect} | {r.status} | {library} |"
            )
        counts: dict[str, int] = {}
        for r in self.rows:
            key = "no counterexample" if r.verdict.startswith("no counterexample") else r.verdict
            counts[key] = counts.get(key, 0) + 1
        summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
        lines += [
            "",
            f"{len(self.rows)} claims: {summary}. Seed {self.seed}, symbolic time limit {self.time_limit:g} s per claim.",
        ]
        if details:
            lines += ["", "## Details", ""]
            for r in self.rows:
                lines.append(f"- **{r.name}** ({r.source}): {r.verdict} — {r.detail}")
                if r.counterexample:
                    shown = ", ".join(f"{k} = {v}" for k, v in r.counterexample.items())
                    lines.append(f"  - counterexample: {shown}")
                for a in r.attempts:
                    if a.checker != r.checker:
                        lines.append(f"  - {a.checker}: {a.outcome} — {a.detail}")
                if r.library is not None:
                    lines.append(f"  - privopt: {r.library.outcome} — {r.library.detail}")
                if r.note:
                    lines.append(f"  - note: {r.note}")
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(
            {
                "seed": self.seed,
                "time_limit": self.time_limit,
                "full": self.full,
                "exit_code": self.exit_code,
                "claims": [r.to_dict() for r in self.rows],
            },
            indent=2,
            default=str,
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "claim": r.name,
                    "source": r.source,
                    "verdict": r.verdict,
                    "checker": r.checker,
                    "seconds": r.seconds,
                    "expect": r.expect,
                    "status": r.status,
                    "privopt": None if r.library is None else r.library.outcome,
                    "detail": r.detail,
                }
                for r in self.rows
            ]
        ).set_index("claim")
