"""Running claims through the checkers: :func:`verify` (a report) and :func:`run` (text + exit code)."""

from __future__ import annotations

import os
import time
import zlib
from collections.abc import Iterable, Sequence

import numpy as np

from privopt.errors import ValidationError
from privopt.tolerances import VERIFY_SYMBOLIC_SECONDS
from privopt.verify.checkers import certificate_attempt, numerical_attempt, symbolic_attempt
from privopt.verify.claims import Claim
from privopt.verify.report import ClaimResult, VerificationReport
from privopt.verify.verdicts import (
    ERROR,
    ESTABLISHED,
    FALSIFIED,
    NOT_PROVED,
    TIME_LIMIT,
    Attempt,
    is_final,
)

#: Points of the numerical sanity check run after a symbolic proof or a certificate.
SANITY_POINTS = 20

#: Exact rational sample points of the optimality certificate (CI mode, ``full`` mode).
CERTIFICATE_POINTS = {False: 5, True: 20}

FORMATS = ("md", "json")


def claim_rng(seed: int, name: str) -> np.random.Generator:
    """The generator of one claim: seeded by the run's seed and a stable hash of the claim's name."""
    return np.random.default_rng([int(seed), zlib.crc32(name.encode())])


def _safe(function, *args) -> Attempt | None:
    start = time.perf_counter()
    try:
        return function(*args)
    except Exception as exc:  # every failure is reported as an "error" attempt, never raised mid-run
        checker = function.__name__.replace("_attempt", "")
        return Attempt(checker, ERROR, time.perf_counter() - start, f"{type(exc).__name__}: {exc}"[:400])


def check_claim(
    claim: Claim, *, seed: int = 0, time_limit: float = VERIFY_SYMBOLIC_SECONDS, full: bool = False
) -> ClaimResult:
    """Run the checkers on one claim in order (symbolic, certificate, numerical) and decide its verdict."""
    rng = claim_rng(seed, claim.name)
    points = claim.sample_points(full)
    attempts: list[Attempt] = []
    decided: Attempt | None = None
    for name, attempt_of in (
        ("symbolic", lambda: _safe(symbolic_attempt, claim, time_limit)),
        (
            "certificate",
            lambda: _safe(certificate_attempt, claim, rng, min(points, CERTIFICATE_POINTS[full]), time_limit),
        ),
        ("numerical", lambda: _safe(numerical_attempt, claim, rng, points)),
    ):
        if decided is not None:
            break
        if name not in claim.checkers:
            continue
        attempt = attempt_of()
        if attempt is None:
            continue
        attempts.append(attempt)
        if is_final(attempt.outcome):
            decided = attempt
    if decided is not None and decided.outcome in ESTABLISHED and "numerical" in claim.checkers:
        sanity = _safe(numerical_attempt, claim, claim_rng(seed + 1, claim.name), min(points, SANITY_POINTS))
        if sanity is not None:
            attempts.append(
                Attempt(
                    sanity.checker,
                    sanity.outcome,
                    sanity.seconds,
                    "sanity check: " + sanity.detail,
                    sanity.counterexample,
                )
            )
            if sanity.outcome == FALSIFIED:
                decided = Attempt(
                    decided.checker,
                    ERROR,
                    decided.seconds,
                    f"the {decided.checker} checker's '{decided.outcome}' is contradicted by a numerical counterexample "
                    f"({sanity.detail}): a bug in privopt.verify",
                )
    if decided is None:
        outcomes = [a.outcome for a in attempts]
        verdict = (
            ERROR
            if ERROR in outcomes and NOT_PROVED not in outcomes
            else (TIME_LIMIT if TIME_LIMIT in outcomes else NOT_PROVED)
        )
        source = next((a for a in attempts if a.outcome == verdict), None)
        decided = source or Attempt("none", verdict, 0.0, "no checker applies to this statement")
    library = _safe(claim.library, claim_rng(seed + 2, claim.name), points) if claim.library else None
    if library is not None and library.checker != "library":
        library = Attempt(
            "library", "disagrees", library.seconds, f"the comparison crashed: {library.detail}"
        )
    return ClaimResult(
        name=claim.name,
        source=claim.source,
        description=claim.description,
        expect=claim.expect,
        verdict=decided.outcome,
        checker=decided.checker,
        seconds=sum(a.seconds for a in attempts),
        detail=decided.detail,
        attempts=tuple(attempts),
        library=library,
        counterexample=decided.counterexample,
        note=claim.note,
    )


def _select(claims: Iterable[str | Claim] | str | Claim | None) -> list[Claim]:
    from privopt.verify.library import claim_names, shipped_claims

    if claims is None:
        return shipped_claims()
    listed: list[str | Claim] = [claims] if isinstance(claims, (str, Claim)) else list(claims)
    claims = listed
    shipped = {c.name: c for c in shipped_claims()} if any(isinstance(c, str) for c in claims) else {}
    out: list[Claim] = []
    for item in claims:
        if isinstance(item, Claim):
            out.append(item)
            continue
        if not isinstance(item, str):
            raise ValidationError("claims", "claim names or privopt.verify.Claim objects", repr(item))
        matched = [c for name, c in shipped.items() if name.startswith(item)]
        if not matched:
            names = claim_names()
            raise ValidationError(
                "claims",
                f"a shipped claim name or a prefix of one (e.g. {', '.join(names[:3])}; {len(names)} in all)",
                repr(item),
            )
        out.extend(c for c in matched if c not in out)
    return out


def verify(
    claims: Sequence[str | Claim] | str | Claim | None = None,
    *,
    seed: int = 0,
    time_limit: float = VERIFY_SYMBOLIC_SECONDS,
    full: bool | None = None,
) -> VerificationReport:
    """Check claims and return a :class:`~privopt.verify.report.VerificationReport`.

    Parameters
    ----------
    claims:
        ``None`` for the whole shipped library, or names (a name or a prefix such as
        ``"pml.thm5"``) and/or :class:`~privopt.verify.Claim` objects.
    seed:
        Seed of the numerical checkers (each claim's generator also depends on its name).
    time_limit:
        Seconds allowed to each symbolic attempt; beyond it the attempt is "undecided (time limit)".
    full:
        Use the larger point counts (default: the environment variable ``PRIVOPT_FULL=1``).
    """
    if not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise ValidationError("time_limit", "a positive number of seconds", repr(time_limit))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValidationError("seed", "a non-negative integer", repr(seed))
    full = os.environ.get("PRIVOPT_FULL") == "1" if full is None else bool(full)
    selected = _select(claims)
    rows = tuple(check_claim(c, seed=int(seed), time_limit=float(time_limit), full=full) for c in selected)
    return VerificationReport(rows, int(seed), float(time_limit), full)


def run(
    claims: Sequence[str] | None = None,
    format: str = "md",
    seed: int = 0,
    time_limit: float = VERIFY_SYMBOLIC_SECONDS,
) -> tuple[str, int]:
    """``privopt verify``: the report as text (``"md"`` or ``"json"``) and the exit code.

    The exit code is 1 when a claim errors, a claim expected to hold is falsified, a documented
    misprint is no longer falsified, or privopt's implementation disagrees with a claim; else 0.
    """
    if format not in FORMATS:
        raise ValidationError("format", "'md' or 'json'", repr(format))
    report = verify(list(claims) if claims else None, seed=seed, time_limit=time_limit)
    text = report.to_markdown() if format == "md" else report.to_json()
    return text, report.exit_code
