"""The symbolic checker: sympy proofs of identities and inequalities, bounded in time.

Each claim is proved in a forked child process (:func:`privopt.solvers.subprocess_call.call_with_timeout`:
sympy cannot be interrupted from inside Python, a child can be killed) that is stopped at the per-claim
time limit; the outcome is then ``"undecided (time limit)"``.
"""

from __future__ import annotations

import time

from privopt.solvers.errors import BackendError, BackendTimeout
from privopt.solvers.subprocess_call import call_with_timeout
from privopt.verify.claims import Claim
from privopt.verify.prover import prove_sign, prove_zero
from privopt.verify.region import Region
from privopt.verify.statements import AllOf, Identity, Inequality, Part
from privopt.verify.verdicts import ERROR, NOT_PROVED, PROVED, TIME_LIMIT, Attempt


def _prove_part(part: Part, region: Region) -> tuple[bool, str]:
    if isinstance(part, Identity):
        for k, difference in enumerate(part.differences()):
            step = prove_zero(difference, region)
            if not step.proved:
                where = f" (entry {k})" if len(part.differences()) > 1 else ""
                return False, f"lhs − rhs{where}: {step.how}"
        return True, "lhs − rhs reduces to 0"
    step = prove_sign(part.slack(), region, part.strict)
    relation = "> 0" if part.strict else ">= 0"
    return step.proved, f"slack {relation}: {step.how}"


def prove_statement(statement: Identity | Inequality | AllOf, region: Region) -> tuple[str, str]:
    """``(outcome, detail)`` of a symbolic proof of the statement (runs in the current process)."""
    parts = statement.parts if isinstance(statement, AllOf) else (("claim", statement),)
    failed = []
    for name, part in parts:
        proved, how = _prove_part(part, region)
        if not proved:
            failed.append(f"{name}: {how}")
    if failed:
        more = f" (and {len(failed) - 3} more)" if len(failed) > 3 else ""
        return NOT_PROVED, f"{len(failed)} of {len(parts)} part(s) not proved — " + "; ".join(
            failed[:3]
        ) + more
    return PROVED, f"all {len(parts)} part(s) proved" if len(parts) > 1 else parts[0][0] + " proved"


def run_bounded(function, args: tuple, time_limit: float, description: str, checker: str) -> Attempt:
    """``function(*args) -> (outcome, detail[, counterexample])`` in a child process stopped after
    ``time_limit`` seconds."""
    start = time.perf_counter()
    try:
        result = call_with_timeout(function, args, time_limit, description, poll=0.05, progress=False)
    except BackendTimeout as exc:
        return Attempt(checker, TIME_LIMIT, time.perf_counter() - start, str(exc))
    except BackendError as exc:
        return Attempt(checker, ERROR, time.perf_counter() - start, str(exc)[:400])
    outcome, detail = result[0], result[1]
    counterexample = result[2] if len(result) > 2 else None
    return Attempt(checker, outcome, time.perf_counter() - start, detail, counterexample)


def symbolic_attempt(claim: Claim, time_limit: float) -> Attempt | None:
    """Prove an identity, inequality or conjunction symbolically; ``None`` for other statements."""
    statement = claim.statement
    if not isinstance(statement, (Identity, Inequality, AllOf)):
        return None
    return run_bounded(
        prove_statement, (statement, claim.region), time_limit, f"symbolic check of {claim.name}", "symbolic"
    )
