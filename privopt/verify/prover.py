"""Symbolic proofs of ``expr = 0`` and ``expr >= 0`` (or ``> 0``) on a claim's region.

Zero: the expression, in the region's assumption-laden symbols, is reduced by ``cancel``,
``simplify`` and ``radsimp``, first as written, then after the positive parametrisation of the
region (:meth:`~privopt.verify.region.Region.parametrisation`). Reaching ``0`` is a proof.

Sign: the expression is written over the region's non-negative parametrisation variables ``t``,
brought to one fraction and factored. A factor has a known sign when

- it occurs to an even power, or
- it is a polynomial in the ``t`` whose coefficients all have one sign, or
- sympy's assumptions system decides it (``exp``, ``sqrt`` of something non-negative, ...).

Two rewritings come first: a numerator ``a + b·√D`` with a single square root is decided by the
signs of ``a``, ``b`` and ``a² − b²D``; a combination of logarithms ``c·log R`` by the sign of
``R − 1``. Logarithms are combined with ``force=True``, i.e. assuming positive arguments, which holds
wherever the claim is real-valued; the numerical sanity check that follows every proof guards it.

Before any of this the expression is evaluated at a few sample points: a value of the wrong sign (or
a non-zero value, for an identity) ends the attempt at once as "not proved".

The product of the signs is then the sign of the expression on the whole box (the maps ``t → x``
cover the box; a closed end missed by the first map follows by continuity for ``>= 0``, and strict
proofs are repeated on every map so that together they cover it); a proof on the box is a proof on
the region (the extra constraints only shrink it). If some factor's sign
is unknown the result is "not proved" — never "true".
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp

from privopt.errors import ValidationError
from privopt.verify.region import Region, evaluate

#: Sample points at which a statement is evaluated before any simplification is attempted: a value of
#: the wrong sign there ends the attempt at once (a refutation is never reported as a proof, and false
#: statements would otherwise spend the whole time limit in ``simplify``).
PROBE_POINTS = 3


@dataclass(frozen=True)
class ProofStep:
    """The outcome of one proof attempt and how it was reached (for the report)."""

    proved: bool
    how: str


def _probe(expr: sp.Expr, region: Region) -> list[mpmath.mpc]:
    """Values of ``expr`` at a few fixed sample points of the region (undefined points left out)."""
    if not region.params:
        return []
    try:
        points = region.sample(np.random.default_rng(PROBE_POINTS), PROBE_POINTS, edge_fraction=0.0)
    except ValidationError:
        return []
    values = [evaluate(expr, region, p.working) for p in points]
    return [v for v in values if v is not None]


def _is_zero(expr: sp.Expr) -> bool:
    return expr == 0 or expr.is_zero is True


def prove_zero(expr: sp.Expr, region: Region) -> ProofStep:
    """Try to prove that ``expr`` vanishes identically on the region (limits are evaluated first)."""
    for value in _probe(expr, region):
        if abs(value) > mpmath.mpf(10) ** -30:
            return ProofStep(False, f"it is {mpmath.nstr(value, 6)} at a sample point, not 0")
    e = sp.sympify(region.to_working(expr))
    if e.has(sp.Limit):
        e = e.doit()
    if _is_zero(e):
        return ProofStep(True, "identically 0 as written")
    attempts = (
        ("cancel", lambda x: sp.cancel(sp.together(x))),
        ("deep expand", lambda x: sp.cancel(sp.together(sp.expand(x, deep=True)))),
        ("simplify", sp.simplify),
        ("radsimp", lambda x: sp.simplify(sp.radsimp(sp.together(x)))),
        (
            "expand/logcombine",
            lambda x: sp.simplify(sp.logcombine(sp.expand_log(sp.expand(x), force=True), force=True)),
        ),
    )
    for label, transform in attempts:
        if _is_zero(transform(e)):
            return ProofStep(True, f"{label} reduces it to 0")
    mapping, _ = region.parametrisations()[0]
    if mapping:
        p = e.xreplace(mapping)
        for label, transform in attempts[:3]:
            if _is_zero(transform(p)):
                return ProofStep(True, f"{label} reduces it to 0 after the positive parametrisation")
    return ProofStep(False, "no simplification reached 0")


def _factor_sign(factor: sp.Expr, variables: tuple[sp.Symbol, ...]) -> tuple[int | None, bool]:
    """``(sign, strict)`` of one factor on the box: sign in {+1, −1} or ``None`` if unknown."""
    if factor.is_positive:
        return 1, True
    if factor.is_negative:
        return -1, True
    free = factor.free_symbols
    if free and free <= set(variables) and factor.is_polynomial(*variables):
        poly = sp.Poly(factor, *variables)
        coefficients = poly.coeffs()
        if all(c.is_number for c in coefficients):
            positive_vars = all(v.is_positive for v in free)
            constant = poly.coeff_monomial(1)
            if all(c >= 0 for c in coefficients):
                return 1, bool(constant > 0 or positive_vars)
            if all(c <= 0 for c in coefficients):
                return -1, bool(constant < 0 or positive_vars)
    if factor.is_nonnegative:
        return 1, False
    if factor.is_nonpositive:
        return -1, False
    return None, False


def _sign_of_product(expr: sp.Expr, variables: tuple[sp.Symbol, ...]) -> tuple[int | None, bool, str]:
    """Sign of a polynomial-like expression from its factorisation; ``(sign, strict, unknown factor)``."""
    if expr == 0:
        return 0, False, ""
    constant, factors = sp.factor_list(expr)
    if not constant.is_number:
        return None, False, str(constant)
    sign = 1 if constant > 0 else -1
    strict = True
    for factor, multiplicity in factors:
        if multiplicity % 2 == 0:
            s, st = _factor_sign(factor, variables)
            strict = strict and st and s is not None
            continue
        s, st = _factor_sign(factor, variables)
        if s is None:
            return None, False, str(factor)
        sign *= s
        strict = strict and st
    return sign, strict, ""


def prove_sign(expr: sp.Expr, region: Region, strict: bool = False) -> ProofStep:
    """Try to prove ``expr >= 0`` (``> 0`` when ``strict``) on the region."""
    for value in _probe(expr, region):
        if value.imag != 0 or value.real < -(mpmath.mpf(10) ** -30):
            return ProofStep(False, f"it is {mpmath.nstr(value, 6)} at a sample point")
    e = sp.sympify(region.to_working(expr))
    want = "> 0" if strict else ">= 0"
    for label, candidate in (("as written", e), ("simplified", sp.simplify(e))):
        if candidate.is_positive or (not strict and (candidate.is_nonnegative or _is_zero(candidate))):
            return ProofStep(True, f"sympy's assumptions give {want} ({label})")
    radical = _radical_sign(e, region) if not strict else None
    if radical is not None and radical.proved:
        return radical
    if e.has(sp.log):
        combined = sp.logcombine(sp.expand_log(e, force=True), force=True)
        coefficient, rest = combined.as_coeff_Mul()
        if isinstance(rest, sp.log) and coefficient != 0:
            # c·log(R) >= 0 iff sign(c)·(R − 1) >= 0; R > 0 wherever the claim is real-valued.
            inner = rest.args[0] - 1 if coefficient > 0 else 1 - rest.args[0]
            step = prove_sign(inner, region, strict)
            if step.proved:
                return ProofStep(
                    True, f"the logarithms combine into {coefficient}·log(R); {step.how} for R − 1"
                )
    variants = region.parametrisations(cover_closed_ends=strict)
    hows = []
    for mapping, variables in variants:
        step = _sign_by_factors(e, mapping, variables, strict)
        if not step.proved:
            return step
        hows.append(step.how)
    cover = (
        f" (on each of {len(variants)} parametrisations covering the closed ends)"
        if len(variants) > 1
        else ""
    )
    return ProofStep(True, hows[0] + cover)


def _radical_sign(e: sp.Expr, region: Region) -> ProofStep | None:
    """``n/d >= 0`` for a numerator ``n = a + b·√D`` with one square root: ``a, b >= 0``; or ``b >= 0``
    and ``b²D >= a²`` (whatever the sign of ``a``); or ``a >= 0 >= b`` and ``a² >= b²D``."""
    numerator, denominator = sp.fraction(sp.together(e))
    numerator = sp.expand(numerator)
    radicals = {a for a in numerator.atoms(sp.Pow) if a.exp == sp.Rational(1, 2)}
    if len(radicals) != 1 or denominator.has(*radicals):
        return None
    root = radicals.pop()
    a, b = numerator.coeff(root, 0), numerator.coeff(root, 1)
    if a.has(root) or b.has(root) or sp.expand(a + b * root - numerator) != 0:
        return None
    if not prove_sign(denominator, region, strict=True).proved:
        return None
    square = root.base
    a_pos, b_pos = prove_sign(a, region).proved, prove_sign(b, region).proved
    if a_pos and b_pos:
        return ProofStep(True, "n = a + b·√D with a >= 0 and b >= 0, over a positive denominator")
    if b_pos and prove_sign(b**2 * square - a**2, region).proved:
        return ProofStep(
            True, "n = a + b·√D with b >= 0 and b²D >= a² (so b√D >= |a|), over a positive denominator"
        )
    if a_pos and prove_sign(-b, region).proved and prove_sign(a**2 - b**2 * square, region).proved:
        return ProofStep(True, "n = a + b·√D with a >= 0 >= b and a² >= b²D, over a positive denominator")
    return None


def _sign_by_factors(
    e: sp.Expr, mapping: dict[sp.Symbol, sp.Expr], variables: tuple[sp.Symbol, ...], strict: bool
) -> ProofStep:
    """Sign of ``e`` after one positive parametrisation, from the factors of its fraction."""
    p = sp.cancel(sp.together(e.xreplace(mapping)))
    numerator, denominator = sp.fraction(p)
    n_sign, n_strict, n_unknown = _sign_of_product(sp.expand(numerator), variables)
    if n_sign == 0:
        return (
            ProofStep(False, "the expression vanishes identically, so it is not > 0")
            if strict
            else ProofStep(True, "it vanishes identically after the positive parametrisation")
        )
    d_sign, d_strict, d_unknown = _sign_of_product(sp.expand(denominator), variables)
    if n_sign is None or d_sign is None:
        culprit = n_unknown or d_unknown
        return ProofStep(False, f"a factor of unknown sign remains: {culprit[:120]}")
    if n_sign * d_sign > 0 and (n_strict or not strict) and d_strict:
        kind = "positive" if n_strict else "non-negative"
        return ProofStep(True, f"numerator and denominator are products of factors of known sign ({kind})")
    if n_sign * d_sign > 0 and not d_strict:
        return ProofStep(False, "the denominator may vanish on the region")
    if n_sign * d_sign > 0:
        return ProofStep(False, "the numerator may vanish on the region")
    return ProofStep(False, "the factored form is <= 0 on the region")
