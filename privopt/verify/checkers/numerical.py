"""The numerical checker: falsification at random points of the validity region.

Sample points are exact rationals (:meth:`~privopt.verify.region.Region.sample`), drawn from a
generator seeded by the run's seed and the claim's name, so a run is reproducible and a
counterexample is reported with exact parameter values. Expressions are evaluated with mpmath at
``VERIFY_DPS`` digits; an identity fails at a point when ``|lhs − rhs| > VERIFY_IDENTITY_RTOL ·
max(1, |lhs|, |rhs|)``, far above the rounding error of the evaluation.

Where an independent route exists the checker uses it: an :class:`Optimality` statement is compared
with privopt's compiler (vertex enumeration + LP, a different algorithm from the closed form), and a
:class:`Numerical` statement carries its own comparison.
"""

from __future__ import annotations

import time

import mpmath
import numpy as np
import sympy as sp

from privopt.tolerances import VERIFY_DPS, VERIFY_FLOAT_RTOL, VERIFY_IDENTITY_RTOL
from privopt.verify.claims import Claim
from privopt.verify.region import Point, Region, evaluate
from privopt.verify.statements import (
    AllOf,
    Discrepancy,
    Identity,
    Inequality,
    Numerical,
    Optimality,
    Part,
    Printed,
)
from privopt.verify.verdicts import ERROR, FALSIFIED, Attempt, no_counterexample


def _show(value: mpmath.mpc | None) -> str:
    if value is None:
        return "undefined"
    with mpmath.workdps(VERIFY_DPS):
        if value.imag == 0:
            return mpmath.nstr(value.real, 12)
        return mpmath.nstr(value, 12)


def _part_at(part: Part, region: Region, point: Point) -> Discrepancy | None:
    """How far ``part`` is from holding at ``point`` (``None``: undefined there, skipped)."""
    with mpmath.workdps(VERIFY_DPS):
        if isinstance(part, Identity):
            pairs = (
                list(zip(part.lhs, part.rhs, strict=True))
                if isinstance(part.lhs, sp.MatrixBase)
                else [(part.lhs, part.rhs)]
            )
            worst = Discrepancy(0.0, VERIFY_IDENTITY_RTOL)
            for k, (lhs, rhs) in enumerate(pairs):
                left, right = evaluate(lhs, region, point.working), evaluate(rhs, region, point.working)
                if left is None or right is None:
                    return None
                scale = max(mpmath.mpf(1), abs(left), abs(right))
                size = float(abs(left - right) / scale)
                if size > worst.size:
                    where = f"entry {k}: " if len(pairs) > 1 else ""
                    worst = Discrepancy(
                        size, VERIFY_IDENTITY_RTOL, f"{where}lhs = {_show(left)}, rhs = {_show(right)}"
                    )
            return worst
        left, right = evaluate(part.lhs, region, point.working), evaluate(part.rhs, region, point.working)
        if left is None or right is None:
            return None
        shown = f"lhs = {_show(left)}, rhs = {_show(right)}"
        if left.imag != 0 or right.imag != 0:
            return Discrepancy(float("inf"), 0.0, f"not real: {shown}")
        slack = (right.real - left.real) if part.relation in ("<=", "<") else (left.real - right.real)
        scale = max(mpmath.mpf(1), abs(left), abs(right))
        tolerance = 0.0 if part.strict else VERIFY_IDENTITY_RTOL
        size = float(-slack / scale) if slack < 0 or (part.strict and slack == 0) else 0.0
        if part.strict and slack == 0:
            size = float("inf")
        return Discrepancy(size, tolerance, f"{shown} (needs lhs {part.relation} rhs)")


def _statement_at(
    statement: Identity | Inequality | AllOf, region: Region, point: Point
) -> Discrepancy | None:
    parts = statement.parts if isinstance(statement, AllOf) else (("claim", statement),)
    worst: Discrepancy | None = None
    for name, part in parts:
        d = _part_at(part, region, point)
        if d is None:
            return None
        if not d.holds:
            label = f"{name}: " if isinstance(statement, AllOf) else ""
            return Discrepancy(d.size, d.tolerance, label + d.detail)
        if worst is None or d.size > worst.size:
            worst = d
    return worst


def _optimality_at(
    statement: Optimality, region: Region, point: Point, rng: np.random.Generator
) -> Discrepancy | None:
    """Compare the claimed mechanism's utility with the compiler's optimum at ``point``."""
    from privopt.audit import audit
    from privopt.data.mechanism import Mechanism
    from privopt.errors import PrivoptError
    from privopt.problem import Problem
    from privopt.verify.checkers.certificate import instance_at

    instance = instance_at(statement, region, point, rng)
    if instance.compare is None:
        return None
    definition, utility = instance.compare
    matrix = np.array(sp.Matrix(instance.mechanism).evalf(30).tolist(), dtype=float)
    matrix = np.clip(matrix, 0.0, None)
    mechanism = Mechanism(matrix / matrix.sum(axis=1, keepdims=True))
    report = audit(mechanism, definition)
    where = f" ({instance.description})" if instance.description else ""
    if not report.satisfied:
        return Discrepancy(
            report.eps - definition.eps, 0.0, f"the mechanism violates the definition{where}: {report}"
        )
    value = utility.value(mechanism)
    try:
        optimum = Problem(definition, utility).solve(route="vertex").value
    except PrivoptError as exc:
        return Discrepancy.skip(f"privopt's compiler failed at {point}: {type(exc).__name__}: {exc}"[:300])
    gap = (optimum - value) / max(1.0, abs(optimum))
    return Discrepancy(
        max(0.0, gap), VERIFY_FLOAT_RTOL, f"utility {value:.10g} vs compiler optimum {optimum:.10g}{where}"
    )


def printed_comparison(statement: Printed) -> tuple[list[dict[str, object]], int]:
    """Every printed number with its recomputed value; returns the rows and the number not reproduced."""
    computed = statement.compute()
    rows: list[dict[str, object]] = []
    bad = 0
    for number in statement.numbers:
        value = float(computed[number.label])
        allowed = 0.5 * 10.0 ** (-number.decimals) + statement.slack + 1e-12
        reproduced = abs(value - number.printed) <= allowed
        bad += not reproduced
        rows.append(
            {
                "label": number.label,
                "printed": number.printed,
                "computed": value,
                "reproduced": bool(reproduced),
            }
        )
    return rows, bad


def numerical_attempt(claim: Claim, rng: np.random.Generator, points: int) -> Attempt | None:
    """Search for a counterexample at ``points`` sample points (one evaluation without parameters)."""
    statement = claim.statement
    start = time.perf_counter()
    if isinstance(statement, Printed):
        rows, bad = printed_comparison(statement)
        seconds = time.perf_counter() - start
        if bad:
            wrong = [r for r in rows if not r["reproduced"]]
            shown = "; ".join(
                f"{r['label']}: printed {r['printed']}, computed {r['computed']:.6g}" for r in wrong[:4]
            )
            more = f" (and {len(wrong) - 4} more)" if len(wrong) > 4 else ""
            return Attempt(
                "numerical",
                FALSIFIED,
                seconds,
                f"{bad} of {len(rows)} printed number(s) not reproduced — {shown}{more}",
                data={"numbers": rows},
            )
        return Attempt(
            "numerical",
            no_counterexample(1),
            seconds,
            f"all {len(rows)} printed number(s) reproduced at the printed precision",
            data={"numbers": rows},
        )
    if isinstance(statement, Optimality) and statement.compare is None and statement.instance is None:
        return None
    region = claim.region
    sample = region.sample(rng, points) if region.params else [Point({}, {})]
    checked = 0
    worst = 0.0
    skip_reason = ""
    for point in sample:
        try:
            if isinstance(statement, Numerical):
                d = statement.check(point, rng)
            elif isinstance(statement, Optimality):
                d = _optimality_at(statement, region, point, rng)
            else:
                d = _statement_at(statement, region, point)
        except Exception as exc:  # a crash at one point is reported, never hidden
            return Attempt(
                "numerical",
                ERROR,
                time.perf_counter() - start,
                f"evaluation failed at {point}: {type(exc).__name__}: {exc}"[:400],
                counterexample=point.as_strings(),
            )
        if d is None or d.skipped:
            if d is not None and not skip_reason:
                skip_reason = d.detail
            continue
        checked += 1
        if not d.holds:
            return Attempt(
                "numerical",
                FALSIFIED,
                time.perf_counter() - start,
                f"counterexample at {point}: {d.detail}" if region.params else d.detail,
                counterexample=point.as_strings(),
            )
        worst = max(worst, d.size)
    seconds = time.perf_counter() - start
    why = f" (e.g. {skip_reason})" if skip_reason else ""
    if checked == 0:
        return Attempt(
            "numerical",
            ERROR,
            seconds,
            f"the statement could not be evaluated at any of {len(sample)} sample points{why}",
        )
    skipped = len(sample) - checked
    note = f"; {skipped} point(s) skipped where it is undefined or does not apply{why}" if skipped else ""
    return Attempt(
        "numerical", no_counterexample(checked), seconds, f"largest relative discrepancy {worst:.3g}{note}"
    )
