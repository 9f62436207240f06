"""Parameters, assumptions and validity regions of a claim.

A claim's symbols are declared in order as :class:`Param` objects. Each has a lower and an upper
bound, which may be expressions in the parameters declared *before* it (``0 < β < 2·p2`` is
``Param("beta", 0, 2 * (1 - p1), lower_open=True, upper_open=True)`` after ``p1``). Extra
conditions that are not bounds go into ``Region.constraints`` as sympy relations.

Three things are derived from the declaration:

- **assumptions** for sympy (``positive``, ``nonnegative``), from bounds of known sign;
- a **positive parametrisation** for the symbolic checker: a bounded parameter is written as
  ``x = (lo + hi·t) / (1 + t)`` with ``t >= 0`` (``x = lo + t`` without an upper bound), so an
  expression over the box becomes a rational function of non-negative variables whose sign can be
  read off coefficient signs. The map is onto the box by construction, so a sign proved in ``t``
  is a sign proved on the region (the extra ``constraints`` only shrink it);
- **exact sample points** for the numerical checker: rationals, so that a counterexample is
  reported with exact values.

A parameter that enters only through ``exp`` (a privacy parameter ε) may declare ``exp_symbol``: the
checkers then work with ``E = e^ε`` as the variable, bounded by ``e^lo`` and ``e^hi``, which keeps
the algebra rational; sample points are rational in ``E`` and ``ε = log E`` exactly.

:class:`Param` and :class:`Region` are frozen dataclasses whose ``__init__`` validates and converts
its arguments (bounds to sympy, sequences to tuples) and passes the converted values to the generated
constructor of a private dataclass holding the fields.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import TypeAlias

import mpmath
import numpy as np
import sympy as sp

from privopt.errors import ValidationError
from privopt.tolerances import VERIFY_DPS, VERIFY_REGION_DRAWS

Number: TypeAlias = int | float | Fraction | sp.Expr


def _sympify(value: Number | None, argument: str) -> sp.Expr | None:
    if value is None:
        return None
    try:
        out = sp.sympify(value, rational=True)
    except (sp.SympifyError, TypeError) as exc:
        raise ValidationError(argument, "a number or a sympy expression", repr(value)) from exc
    if not isinstance(out, sp.Expr):
        raise ValidationError(argument, "a number or a sympy expression", repr(value))
    return out


@dataclass(frozen=True)
class _ParamFields:
    name: str
    lower: sp.Expr | None
    upper: sp.Expr | None
    lower_open: bool
    upper_open: bool
    exp_symbol: str | None
    integer: bool
    scale: float


@dataclass(frozen=True, init=False)
class Param(_ParamFields):
    """One symbol of a claim, with bounds that may depend on the parameters declared before it.

    Parameters
    ----------
    name:
        The symbol's name, as used in the claim's expressions.
    lower, upper:
        Bounds (``None``: unbounded). Numbers or sympy expressions in earlier parameters.
    lower_open, upper_open:
        Whether the bound itself is excluded.
    exp_symbol:
        Name of the positive symbol ``e^{name}`` the checkers use instead (see the module docstring).
    integer:
        An integer parameter (an alphabet size); sampled uniformly among the integers in range.
    scale:
        Spread of samples for a parameter with an infinite bound (exponential tail of this scale).
    """

    def __init__(
        self,
        name: str,
        lower: Number | None = None,
        upper: Number | None = None,
        lower_open: bool = False,
        upper_open: bool = False,
        exp_symbol: str | None = None,
        integer: bool = False,
        scale: float = 2.0,
    ) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValidationError("Param.name", "a Python identifier such as 'beta'", repr(name))
        lo = _sympify(lower, f"{name}.lower")
        hi = _sympify(upper, f"{name}.upper")
        if exp_symbol is not None and not str(exp_symbol).isidentifier():
            raise ValidationError(f"{name}.exp_symbol", "a Python identifier such as 'E'", repr(exp_symbol))
        if (lo is not None and hi is not None and lo.is_number and hi.is_number) and (
            bool(lo > hi) or (bool(sp.Eq(lo, hi)) and (lower_open or upper_open))
        ):
            raise ValidationError(
                f"assumptions on {name}",
                "consistent bounds (lower <= upper, and lower < upper when an end is open)",
                f"{lo} {'<' if lower_open else '<='} {name} {'<' if upper_open else '<='} {hi}",
            )
        if integer and exp_symbol is not None:
            raise ValidationError(
                f"assumptions on {name}", "an integer or an exp-parameter, not both", "both"
            )
        super().__init__(name, lo, hi, lower_open, upper_open, exp_symbol, integer, scale)

    @property
    def open_below(self) -> bool:
        """Whether the lower end is excluded (an exp-parameter without a lower bound has ``E > 0``)."""
        return self.lower_open or (self.exp_symbol is not None and self.lower is None)

    @property
    def symbol(self) -> sp.Symbol:
        """The plain real symbol users write claims with."""
        return sp.Symbol(self.name, real=True)

    def describe(self) -> str:
        left = "" if self.lower is None else f"{self.lower} {'<' if self.lower_open else '<='} "
        right = "" if self.upper is None else f" {'<' if self.upper_open else '<='} {self.upper}"
        kind = " (integer)" if self.integer else ""
        return f"{left}{self.name}{right}{kind}"


@dataclass(frozen=True)
class Point:
    """An exact sample point: ``values[name]`` is a sympy number (``Rational`` or ``log(Rational)``).

    ``working[name]`` is the value of the variable the checkers evaluate with (``E = e^ε`` for an
    exp-parameter, otherwise the parameter itself), always a ``Rational``.
    """

    values: dict[str, sp.Expr]
    working: dict[str, sp.Rational]

    def as_strings(self) -> dict[str, str]:
        return {name: str(value) for name, value in self.values.items()}

    def floats(self) -> dict[str, float]:
        return {name: float(value) for name, value in self.values.items()}

    def __str__(self) -> str:
        return ", ".join(f"{name} = {value}" for name, value in self.values.items())


#: A positive parametrisation: working symbol → expression in the fresh variables, and those variables.
Parametrisation: TypeAlias = tuple[dict[sp.Symbol, sp.Expr], tuple[sp.Symbol, ...]]


@dataclass(frozen=True)
class _RegionFields:
    params: tuple[Param, ...]
    constraints: tuple[sp.Basic, ...]
    # Computed on first use: the working symbols (empty until then) and the parametrisations by
    # ``cover_closed_ends``.
    _symbols: dict[str, sp.Symbol] = field(default_factory=dict, init=False, repr=False, compare=False)
    _parametrisations: dict[bool, list[Parametrisation]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )


@dataclass(frozen=True, init=False)
class Region(_RegionFields):
    """The validity region: ordered parameters plus extra constraints (sympy relations)."""

    def __init__(self, params: Iterable[Param], constraints: Iterable[sp.Basic] = ()) -> None:
        params = tuple(params)
        if not all(isinstance(p, Param) for p in params):
            raise ValidationError("params", "a sequence of privopt.verify.Param", repr(params))
        names = [p.name for p in params] + [p.exp_symbol for p in params if p.exp_symbol]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValidationError(
                "assumptions", "each symbol declared once", f"{', '.join(duplicates)} declared twice"
            )
        seen: set[str] = set()
        for p in params:
            for bound, label in ((p.lower, "lower"), (p.upper, "upper")):
                if bound is None:
                    continue
                unknown = sorted(str(s) for s in sp.sympify(bound).free_symbols if s.name not in seen)
                if unknown:
                    raise ValidationError(
                        f"{p.name}.{label}",
                        "a bound in the parameters declared before it"
                        + (f" ({', '.join(sorted(seen))})" if seen else " (none: a number)"),
                        f"unknown symbol(s) {', '.join(unknown)}",
                    )
            seen.add(p.name)
        constraints = tuple(constraints)
        for c in constraints:
            if not isinstance(c, sp.core.relational.Relational):
                if c is sp.false or c is False:
                    raise ValidationError(
                        "constraints", "a satisfiable relation", "False (the region is empty)"
                    )
                raise ValidationError("constraints", "sympy relations such as p1 >= p2", repr(c))
            unknown = sorted(str(s) for s in c.free_symbols if s.name not in seen)
            if unknown:
                raise ValidationError(
                    "constraints",
                    f"relations in {', '.join(sorted(seen))}",
                    f"unknown symbol(s) {', '.join(unknown)}",
                )
        super().__init__(params, constraints)

    # ------------------------------------------------------------------ symbols
    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def working_symbols(self) -> dict[str, sp.Symbol]:
        """Assumption-laden symbols of the working variables (``E`` for exp-parameters), by name."""
        if self._symbols or not self.params:
            return self._symbols
        out: dict[str, sp.Symbol] = {}
        for p in self.params:
            lo = self._working_bound(p, p.lower, out)
            if p.exp_symbol:
                out[p.name] = sp.Symbol(p.exp_symbol, positive=True)
                continue
            kwargs: dict[str, bool] = {"real": True}
            if lo is not None and lo.is_nonnegative:
                kwargs = {"positive": True} if (lo.is_positive or p.lower_open) else {"nonnegative": True}
            if p.integer:
                kwargs["integer"] = True
            out[p.name] = sp.Symbol(p.name, **kwargs)
        self._symbols.update(out)
        return self._symbols

    def _working_bound(
        self, p: Param, bound: sp.Expr | None, symbols: Mapping[str, sp.Symbol]
    ) -> sp.Expr | None:
        """A bound in terms of working symbols (``exp`` of it for an exp-parameter)."""
        if bound is None:
            return None
        expr = to_working(bound, self, symbols)
        return sp.exp(expr) if p.exp_symbol else expr

    def to_working(self, expr: sp.Expr) -> sp.Expr:
        """``expr`` with parameters replaced by the working symbols (``ε → log E``)."""
        return to_working(expr, self, self.working_symbols())

    # ------------------------------------------------------------------ positive parametrisation
    def parametrisations(self, cover_closed_ends: bool = False) -> list[Parametrisation]:
        """Maps working symbol → expression in fresh non-negative variables ``t_i`` (module docstring).

        For a parameter with bounds ``lo < hi`` the map is ``(lo + hi·t)/(1 + t)`` (covers ``[lo, hi)``,
        ``t >= 0``; ``t > 0`` if the lower end is open) or, when only the upper end is closed, the
        flipped ``(hi + lo·t)/(1 + t)`` (covers ``(lo, hi]``); ``lo + t`` without an upper bound.
        When both ends are closed, the first map misses ``hi``: that is enough for ``=`` and ``>=``
        (by continuity), and with ``cover_closed_ends`` every combination of the two maps is returned,
        so that together they cover the region exactly (needed for ``>``). Integer parameters are
        parametrised as reals (a superset).
        """
        if cover_closed_ends in self._parametrisations:
            return self._parametrisations[cover_closed_ends]
        symbols = self.working_symbols()
        variants: list[tuple[dict[sp.Symbol, sp.Expr], list[sp.Symbol]]] = [({}, [])]
        for i, p in enumerate(self.params):
            sym = symbols[p.name]
            lo = self._working_bound(p, p.lower, symbols)
            hi = self._working_bound(p, p.upper, symbols)
            if p.exp_symbol and lo is None:
                lo = sp.Integer(0)
            if lo is None:
                continue
            both_closed = hi is not None and not p.open_below and not p.upper_open
            flips = (
                (False, True)
                if (both_closed and cover_closed_ends)
                else (hi is not None and p.open_below and not p.upper_open,)
            )
            extended = []
            for mapping, fresh in variants:
                for flip in flips:
                    open_t = (p.open_below and hi is not None and p.upper_open) or (
                        hi is None and p.open_below
                    )
                    t = sp.Symbol(f"t{i}", positive=True) if open_t else sp.Symbol(f"t{i}", nonnegative=True)
                    lo_t = lo.xreplace(mapping)
                    if hi is None:
                        value = lo_t + t
                    else:
                        hi_t = hi.xreplace(mapping)
                        value = (hi_t + lo_t * t) / (1 + t) if flip else (lo_t + hi_t * t) / (1 + t)
                    extended.append(({**mapping, sym: value}, [*fresh, t]))
            variants = extended
        result = [(mapping, tuple(fresh)) for mapping, fresh in variants]
        self._parametrisations[cover_closed_ends] = result
        return result

    # ------------------------------------------------------------------ sampling
    def sample(self, rng: np.random.Generator, n: int, *, edge_fraction: float = 0.1) -> list[Point]:
        """``n`` exact points of the region (rejection on the extra constraints).

        A fraction ``edge_fraction`` of the coordinates is put exactly on a closed bound (or within
        ``1e-9`` of an open one), where equality cases and misprints tend to show.
        Raises :class:`~privopt.errors.ValidationError` when no point is found (an empty region).
        """
        points: list[Point] = []
        draws = 0
        budget = max(VERIFY_REGION_DRAWS, 50 * n)
        while len(points) < n and draws < budget:
            draws += 1
            point = self._draw(rng, edge_fraction)
            if point is not None and self.satisfies(point):
                points.append(point)
        if not points and n > 0:
            raise ValidationError(
                "region",
                "a non-empty validity region",
                f"no point satisfying {self.describe()} among {draws} random draws",
            )
        return points

    def check_nonempty(self) -> None:
        """Raise :class:`~privopt.errors.ValidationError` if sampling finds no point of the region."""
        self.sample(np.random.default_rng(0), 1, edge_fraction=0.0)

    def _draw(self, rng: np.random.Generator, edge_fraction: float) -> Point | None:
        values: dict[str, sp.Expr] = {}
        working: dict[str, sp.Rational] = {}
        with mpmath.workdps(VERIFY_DPS):
            for p in self.params:
                lo = self._numeric_bound(p, p.lower, working)
                hi = self._numeric_bound(p, p.upper, working)
                if p.exp_symbol and lo is None:
                    lo = mpmath.mpf(0)
                if (
                    lo is not None
                    and hi is not None
                    and (lo > hi or (lo == hi and (p.open_below or p.upper_open)))
                ):
                    return None
                value = self._draw_one(p, lo, hi, rng, edge_fraction)
                if value is None:
                    return None
                working[p.name] = value
                values[p.name] = sp.log(value) if p.exp_symbol else value
        return Point(values, working)

    def _numeric_bound(
        self, p: Param, bound: sp.Expr | None, working: Mapping[str, sp.Rational]
    ) -> mpmath.mpf | None:
        if bound is None:
            return None
        expr = self._working_bound(p, bound, self.working_symbols())
        value = evaluate(expr, self, working)
        return None if value is None else mpmath.mpf(value.real)

    @staticmethod
    def _draw_one(
        p: Param, lo: mpmath.mpf | None, hi: mpmath.mpf | None, rng: np.random.Generator, edge_fraction: float
    ) -> sp.Rational | None:
        if p.integer:
            a = -10 if lo is None else math.ceil(lo + (1 if p.open_below and lo == int(lo) else 0))
            b = a + 10 if hi is None else math.floor(hi - (1 if p.upper_open and hi == int(hi) else 0))
            return None if a > b else sp.Integer(int(rng.integers(a, b + 1)))
        u = float(rng.random())
        edge = float(rng.random()) < edge_fraction
        if lo is not None and hi is not None:
            if edge:
                side = float(rng.random()) < 0.5
                bound, is_open = (lo, p.open_below) if side else (hi, p.upper_open)
                x = (
                    bound + (1 if side else -1) * mpmath.mpf("1e-9") * max(hi - lo, mpmath.mpf("1e-30"))
                    if is_open
                    else bound
                )
            else:
                x = lo + (hi - lo) * mpmath.mpf(max(u, 1e-12))
        elif lo is not None:
            x = lo if edge and not p.open_below else lo + p.scale * mpmath.mpf(-math.log(max(u, 1e-12)))
        elif hi is not None:
            x = hi if edge and not p.upper_open else hi - p.scale * mpmath.mpf(-math.log(max(u, 1e-12)))
        else:
            x = mpmath.mpf(float(rng.normal(scale=p.scale)))
        rational = _rational(x, lo, hi, p)
        return rational

    def satisfies(self, point: Point) -> bool:
        """Whether ``point`` satisfies the extra constraints (evaluated at high precision)."""
        for c in self.constraints:
            value = evaluate(c.lhs - c.rhs, self, point.working)
            if value is None or abs(value.imag) > 0:
                return False
            v = value.real
            op = c.rel_op
            if (
                (op == ">=" and v < 0)
                or (op == ">" and v <= 0)
                or (op == "<=" and v > 0)
                or (op == "<" and v >= 0)
            ):
                return False
            if op in ("==",) and v != 0:
                return False
            if op == "!=" and v == 0:
                return False
        return True

    def describe(self) -> str:
        parts = [p.describe() for p in self.params] + [str(c) for c in self.constraints]
        return ", ".join(parts) if parts else "(no parameters)"


def _rational(x: mpmath.mpf, lo: mpmath.mpf | None, hi: mpmath.mpf | None, p: Param) -> sp.Rational | None:
    """A rational close to ``x`` that stays within the bounds (exact when ``x`` is a bound)."""
    for denominator in (10**6, 10**9, 10**12, 10**15):
        q = sp.Rational(int(mpmath.nint(x * denominator)), denominator)
        f = mpmath.mpf(q.p) / q.q
        if lo is not None and (f < lo or (p.open_below and f <= lo)):
            continue
        if hi is not None and (f > hi or (p.upper_open and f >= hi)):
            continue
        return q
    return None


def to_working(expr: sp.Basic, region: Region, symbols: Mapping[str, sp.Symbol]) -> sp.Basic:
    """Replace every parameter symbol (matched by name) by its working symbol; ``ε → log E``."""
    replace: dict[sp.Symbol, sp.Expr] = {}
    for s in expr.free_symbols:
        if not isinstance(s, sp.Symbol) or s.name not in symbols:
            continue
        p = region.param(s.name)
        replace[s] = sp.log(symbols[s.name]) if p.exp_symbol else symbols[s.name]
    return expr.xreplace(replace)


def evaluate(expr: sp.Basic, region: Region, working: Mapping[str, sp.Rational]) -> mpmath.mpc | None:
    """``expr`` (in the claim's parameters) at a point, with mpmath at ``VERIFY_DPS`` digits.

    Returns ``None`` where the expression is undefined (division by zero, an infinite value).
    """
    symbols = region.working_symbols()
    work = to_working(sp.sympify(expr), region, symbols)
    if work.has(sp.Limit):
        work = work.doit()
    names = [n for n in working if n in symbols]
    args = [symbols[n] for n in names]
    function = _lambdify(work, tuple(args))
    with mpmath.workdps(VERIFY_DPS):
        try:
            value = function(*[mpmath.mpf(working[n].p) / working[n].q for n in names])
        except (ZeroDivisionError, ValueError, OverflowError):
            return None
        value = mpmath.mpc(value)
        if not (mpmath.isfinite(value.real) and mpmath.isfinite(value.imag)):
            return None
        if abs(value.imag) <= mpmath.mpf(10) ** (-(VERIFY_DPS - 10)) * max(1, abs(value.real)):
            value = mpmath.mpc(value.real, 0)
        return value


@lru_cache(maxsize=4096)
def _lambdify(expr: sp.Basic, args: tuple[sp.Symbol, ...]):
    return sp.lambdify(args, expr, modules="mpmath")


def free_names(exprs: Iterable[sp.Basic]) -> set[str]:
    """Names of the free symbols in ``exprs``."""
    out: set[str] = set()
    for e in exprs:
        out |= {s.name for s in sp.sympify(e).free_symbols if isinstance(s, sp.Symbol)}
    return out
