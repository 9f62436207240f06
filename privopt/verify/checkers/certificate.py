"""The optimality-certificate checker: the dual of the vertex LP, symbolically or at exact points.

For a sub-convex utility ``U(W) = Σ_y μ(w_y)`` and the cone ``K = {w >= 0 : G w <= 0}``, the vertex LP
(Kairouz et al. Thm. 4; Entropy paper Thm. 3) is ``max Σ_v θ_v μ(v)  s.t.  Σ_v θ_v v = 1, θ >= 0`` over
the vertices ``v`` of the slice ``K ∩ {Σ_x w_x = 1}``. Its dual is ``min Σ_x λ_x  s.t.  λᵀv >= μ(v)``.
A mechanism ``W`` whose columns lie in ``K`` is optimal iff some ``λ`` is **dual feasible** (``λᵀv >=
μ(v)`` at every vertex) and **complementary slack** with it (``μ(w_y) = λᵀw_y`` for every column);
then every mechanism in the cone has utility ``<= Σ_x λ_x = U(W)``.

- **Symbolic** (two inputs): the slice is a segment. The checker proves that the normalised columns
  ``v_a, v_b`` of ``W`` lie in ``K``, that a row of ``G`` is tight at each with a slope that bounds the
  segment there, hence that ``v_a, v_b`` are *the* two vertices; then ``λ`` solving ``λᵀv_a = μ_a``,
  ``λᵀv_b = μ_b`` has zero reduced cost at both vertices for *every* ``μ``: ``W`` is optimal for every
  sub-convex utility.
- **Rational samples**: at exact rational parameter values the vertices are enumerated exactly
  (Parma Polyhedra Library), ``μ`` is exact (total variation) or enclosed in mpmath intervals
  (mutual information, KL), and ``λ`` comes from an exact LP or from complementary slackness; every
  reduced cost is checked with certainty. Labelled "certified optimal (rational samples)".
"""

from __future__ import annotations

import time
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from privopt.tolerances import VERIFY_DPS
from privopt.verify.checkers.symbolic import run_bounded
from privopt.verify.claims import Claim
from privopt.verify.prover import prove_sign, prove_zero
from privopt.verify.region import Point, Region, to_working
from privopt.verify.statements import Optimality, OptimalityInstance, UtilitySpec
from privopt.verify.verdicts import (
    CERTIFIED_RATIONAL,
    CERTIFIED_SYMBOLIC,
    FALSIFIED,
    NOT_PROVED,
    Attempt,
)

Vector = tuple[Fraction, ...]


# ---------------------------------------------------------------------- symbolic (two inputs)
def binary_certificate(statement: Optimality, region: Region) -> tuple[str, str]:
    """Symbolic certificate for a mechanism on two inputs (module docstring); ``(outcome, detail)``."""
    W, cone = statement.mechanism, statement.cone
    if W is None or cone is None:
        return NOT_PROVED, "the symbolic certificate needs the mechanism and the cone as matrices"
    if W.shape[0] != 2 or W.shape[1] != 2:
        return NOT_PROVED, "the symbolic certificate covers mechanisms with two inputs and two outputs"
    columns = [W.col(j) for j in range(2)]
    sums = [sp.simplify(c[0] + c[1]) for c in columns]
    for j, total in enumerate(sums):
        step = prove_sign(total, region, strict=True)
        if not step.proved:
            return NOT_PROVED, f"column {j} is not provably non-zero ({step.how})"
    v = [sp.Matrix([c[0] / s, c[1] / s]) for c, s in zip(columns, sums, strict=True)]
    ta, tb = v[0][0], v[1][0]
    if not prove_sign(ta - tb, region).proved:
        if not prove_sign(tb - ta, region).proved:
            return NOT_PROVED, "the two columns are not provably ordered"
        v = v[::-1]
        ta, tb = tb, ta
    rows = [cone.row(i) for i in range(cone.shape[0])]
    rows += [sp.Matrix([[-1, 0]]), sp.Matrix([[0, -1]])]
    for i, g in enumerate(rows):
        for k, vk in enumerate(v):
            step = prove_sign(-(g * vk)[0], region)
            if not step.proved:
                return NOT_PROVED, f"vertex candidate {k} is not provably in the cone (row {i}: {step.how})"
    # On the slice w = (t, 1 − t), row g reads (g0 − g1)·t + g1 <= 0.
    upper = lower = None
    for i, g in enumerate(rows):
        slope = g[0] - g[1]
        if (
            upper is None
            and prove_zero((g * v[0])[0], region).proved
            and prove_sign(slope, region, strict=True).proved
        ):
            upper = i
        if (
            lower is None
            and prove_zero((g * v[1])[0], region).proved
            and prove_sign(-slope, region, strict=True).proved
        ):
            lower = i
    if upper is None or lower is None:
        side = "upper" if upper is None else "lower"
        return (
            NOT_PROVED,
            f"no tight row bounds the slice at the {side} end: the columns may not be its vertices",
        )
    mu = sp.symbols("mu_a mu_b")
    lam = sp.Matrix([[v[0][0], v[0][1]], [v[1][0], v[1][1]]]).LUsolve(sp.Matrix(mu))
    residual = [sp.simplify(mu[k] - (lam.T * v[k])[0]) for k in range(2)]
    if any(r != 0 for r in residual):
        return NOT_PROVED, "the dual solution does not satisfy complementary slackness"
    return (
        CERTIFIED_SYMBOLIC,
        f"the slice is the segment between the normalised columns (rows {upper} and {lower} of the cone are "
        "tight there); λ solving λᵀv = μ(v) at both has zero reduced cost at every vertex, for every "
        "sub-convex μ: dual feasible and complementary slack",
    )


# ---------------------------------------------------------------------- exact vertices
def exact_vertices(rows: list[list[Fraction]], n: int) -> list[Vector]:
    """Vertices of ``{w >= 0, G w <= 0, Σ w = 1}`` in exact rational arithmetic (pplpy)."""
    import math

    import ppl

    variables = [ppl.Variable(i) for i in range(n)]
    system = ppl.Constraint_System()

    def expression(coefficients: list[int]):
        expr = ppl.Linear_Expression(0)
        for variable, c in zip(variables, coefficients, strict=True):
            if c:
                expr += c * variable
        return expr

    for row in rows:
        scale = math.lcm(*(f.denominator for f in row))
        system.insert(expression([int(f * scale) for f in row]) <= 0)
    for i in range(n):
        system.insert(variables[i] >= 0)
    system.insert(expression([1] * n) == 1)
    polyhedron = ppl.C_Polyhedron(system)
    out = []
    for generator in polyhedron.minimized_generators():
        divisor = int(generator.divisor())
        out.append(tuple(Fraction(int(c), divisor) for c in generator.coefficients()))
    return out


# ---------------------------------------------------------------------- utilities at exact points
def _to_fraction(value: sp.Expr) -> Fraction | None:
    if not value.is_Rational:
        return None
    return Fraction(int(value.p), int(value.q))


def _iv(x: Fraction) -> mpmath.mpi:
    return mpmath.iv.mpf(x.numerator) / x.denominator


def _mu(spec: UtilitySpec, p: list[Fraction], p0: list[Fraction], p1: list[Fraction], w: Vector):
    """``μ(w)``: a Fraction for total variation, an mpmath interval for MI and KL."""
    if spec.kind == "tv":
        return (
            abs(
                sum((a * x for a, x in zip(p0, w, strict=True)), Fraction(0))
                - sum((b * x for b, x in zip(p1, w, strict=True)), Fraction(0))
            )
            / 2
        )
    if spec.kind == "kl":
        q0 = sum((a * x for a, x in zip(p0, w, strict=True)), Fraction(0))
        q1 = sum((b * x for b, x in zip(p1, w, strict=True)), Fraction(0))
        if q0 == 0:
            return mpmath.iv.mpf(0)
        return _iv(q0) * mpmath.iv.log(_iv(q0) / _iv(q1))
    total = sum((a * x for a, x in zip(p, w, strict=True)), Fraction(0))
    out = mpmath.iv.mpf(0)
    for a, x in zip(p, w, strict=True):
        if a and x:
            out += _iv(a) * _iv(x) * mpmath.iv.log(_iv(x) / _iv(total))
    return out


def instance_at(
    statement: Optimality, region: Region, point: Point, rng: np.random.Generator
) -> OptimalityInstance:
    """The exact data of the claim at ``point`` (substituting rationals into symbolic matrices)."""
    if statement.instance is not None:
        return statement.instance(point, rng)
    symbols = region.working_symbols()
    values = {symbols[n]: point.working[n] for n in point.working}

    def at(expr: sp.Basic) -> sp.Basic:
        return sp.simplify(to_working(sp.sympify(expr), region, symbols).xreplace(values))

    spec = statement.utility
    utility = UtilitySpec(spec.kind, tuple(map(at, spec.p)), tuple(map(at, spec.p0)), tuple(map(at, spec.p1)))
    compare = statement.compare(point.floats()) if statement.compare is not None else None
    return OptimalityInstance(at(statement.mechanism), at(statement.cone), utility, compare)


def _fractions(matrix: sp.Basic) -> list[list[Fraction]] | None:
    rows: list[list[Fraction]] = []
    for row in sp.Matrix(matrix).tolist():
        converted = [_to_fraction(sp.sympify(x)) for x in row]
        exact = [x for x in converted if x is not None]
        if len(exact) < len(converted):
            return None
        rows.append(exact)
    return rows


def _fraction_vector(values: tuple[sp.Expr, ...]) -> list[Fraction] | None:
    """A distribution's entries as fractions (``[]`` for no distribution, ``None`` if one is not rational)."""
    rows = _fractions(sp.Matrix([list(values)])) if values else [[]]
    return None if rows is None else rows[0]


def _rational_point(instance: OptimalityInstance, where: str) -> tuple[str, str]:
    """Certify (or refute) optimality for one exact instance; ``(outcome, detail)``."""
    W = _fractions(instance.mechanism)
    G = _fractions(instance.cone)
    spec = instance.utility
    p, p0, p1 = (_fraction_vector(v) for v in (spec.p, spec.p0, spec.p1))
    if W is None or G is None or p is None or p0 is None or p1 is None:
        return NOT_PROVED, f"not all data are rational at {where}"
    n, m = len(W), len(W[0])
    if any(sum(row) != 1 for row in W) or any(x < 0 for row in W for x in row):
        return FALSIFIED, f"at {where} the matrix is not a mechanism"
    columns = [tuple(W[i][j] for i in range(n)) for j in range(m)]
    for j, c in enumerate(columns):
        if any(sum(g[i] * c[i] for i in range(n)) > 0 for g in G):
            return FALSIFIED, f"at {where} column {j} violates the cone"
    vertices = exact_vertices(G, n)
    used = [(c, sum(c)) for c in columns if sum(c) > 0]
    normalised = [tuple(x / s for x in c) for c, s in used]
    if spec.kind == "tv":
        from sympy.solvers.simplex import linprog

        mu = [_mu(spec, p, p0, p1, v) for v in vertices]
        A = sp.Matrix([[-sp.Rational(x.numerator, x.denominator) for x in v] for v in vertices])
        b = sp.Matrix([-sp.Rational(x.numerator, x.denominator) for x in mu])
        bound, _ = linprog(sp.Matrix([1] * n), A, b, bounds=(None, None))
        value = sum(s * _mu(spec, p, p0, p1, v) for (_, s), v in zip(used, normalised, strict=True))
        bound_f = Fraction(int(sp.Rational(bound).p), int(sp.Rational(bound).q))
        if value == bound_f:
            return (
                CERTIFIED_RATIONAL,
                f"{len(vertices)} vertices; the exact dual optimum {bound_f} equals the mechanism's utility",
            )
        return FALSIFIED, f"at {where} the exact LP optimum {bound_f} exceeds the mechanism's utility {value}"
    # MI / KL: λ from complementary slackness on n independent columns, reduced costs by intervals.
    basis = sp.Matrix([[sp.Rational(x.numerator, x.denominator) for x in v] for v in normalised])
    if len(normalised) != n or basis.rank() < n:
        return NOT_PROVED, "complementary slackness does not determine λ (not |X| independent columns)"
    inverse = basis.inv()
    with mpmath.workdps(VERIFY_DPS):
        mu_basis = [_mu(spec, p, p0, p1, v) for v in normalised]
        lam = [
            sum(
                _iv(Fraction(int(sp.Rational(inverse[i, k]).p), int(sp.Rational(inverse[i, k]).q)))
                * mu_basis[k]
                for k in range(n)
            )
            for i in range(n)
        ]
        worst = None
        for v in vertices:
            if v in normalised:
                continue
            reduced = _mu(spec, p, p0, p1, v) - sum(lam[i] * _iv(v[i]) for i in range(n))
            if reduced.a > 0:
                return (
                    FALSIFIED,
                    f"at {where} vertex {tuple(map(str, v))} has a positive reduced cost: not optimal",
                )
            if reduced.b >= 0:
                return NOT_PROVED, f"a reduced cost at {where} is too close to 0 to decide"
            worst = reduced.b if worst is None else max(worst, reduced.b)
    shown = mpmath.nstr(mpmath.mpf(worst), 3) if worst is not None else "0 (no other vertex)"
    return CERTIFIED_RATIONAL, f"{len(vertices)} vertices, every other reduced cost <= {shown}"


def _rational_samples(
    statement: Optimality, region: Region, points: list[Point], rng: np.random.Generator
) -> tuple[str, str, dict[str, str] | None]:
    first = ""
    for point in points:
        instance = instance_at(statement, region, point, rng)
        where = f"{point}" + (f" ({instance.description})" if instance.description else "")
        outcome, detail = _rational_point(instance, where)
        if outcome != CERTIFIED_RATIONAL:
            return outcome, detail, point.as_strings() if outcome == FALSIFIED else None
        first = first or detail
    return CERTIFIED_RATIONAL, f"certified at {len(points)} exact rational point(s); e.g. {first}", None


def certificate_attempt(
    claim: Claim, rng: np.random.Generator, points: int, time_limit: float
) -> Attempt | None:
    """Certify an :class:`Optimality` claim; ``None`` for other statements."""
    statement = claim.statement
    if not isinstance(statement, Optimality):
        return None
    symbolic = None
    if statement.symbolic:
        symbolic = run_bounded(
            binary_certificate,
            (statement, claim.region),
            time_limit,
            f"certificate of {claim.name}",
            "certificate",
        )
        if symbolic.outcome == CERTIFIED_SYMBOLIC or statement.utility.kind == "any":
            return symbolic
    start = time.perf_counter()
    sample = claim.region.sample(rng, points) if claim.region.params else [Point({}, {})] * points

    remaining = max(
        time_limit - (symbolic.seconds if symbolic else 0.0), 0.01 * time_limit
    )  # one budget per claim
    attempt = run_bounded(
        _rational_samples,
        (statement, claim.region, sample, rng),
        remaining,
        f"rational certificate of {claim.name}",
        "certificate",
    )
    detail = attempt.detail
    if symbolic is not None and attempt.outcome != CERTIFIED_RATIONAL:
        detail += f" (symbolic: {symbolic.detail})"
    seconds = time.perf_counter() - start + (symbolic.seconds if symbolic else 0.0)
    return Attempt("certificate", attempt.outcome, seconds, detail, attempt.counterexample)
