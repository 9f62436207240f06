"""What a claim states: identities, inequalities, constraint systems, optimality, numbers.

Statements are values (frozen dataclasses); the checkers in :mod:`privopt.verify.checkers` decide
them. Expressions are sympy expressions (or matrices) in the claim's parameters. A statement that
converts its arguments (numbers and lists to sympy, a mapping to a tuple) does so in its ``__init__``,
which validates them and passes the converted values to the generated constructor of a private
dataclass holding its fields: the fields are set once, already converted.

- :class:`Identity` — ``lhs = rhs`` (scalars or matrices, elementwise).
- :class:`Inequality` — ``lhs <= rhs`` (or ``<``, ``>=``, ``>``).
- :class:`AllOf` — a named conjunction of identities and inequalities, e.g. "this matrix satisfies
  definition D, with equality at these constraints" (:func:`column_constraints` builds one).
- :class:`Optimality` — "this mechanism maximises every sub-convex utility (or a given one) over
  the mechanisms whose columns lie in this cone".
- :class:`Numerical` — a statement only a computation can test (a supremum is attained, two
  algorithms agree): a function of a sample point returning a :class:`Discrepancy`.
- :class:`Printed` — numbers printed in a paper, against the values its formulas give.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from privopt.errors import ValidationError
from privopt.verify.region import Point

RELATIONS = ("<=", "<", ">=", ">")


def _as_sympy(value: Any, argument: str) -> sp.Basic:
    if isinstance(value, sp.MatrixBase):
        return sp.ImmutableMatrix(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return sp.ImmutableMatrix(value)
    try:
        return sp.sympify(value, rational=True)
    except (sp.SympifyError, TypeError) as exc:
        raise ValidationError(argument, "a sympy expression or matrix", repr(value)) from exc


@dataclass(frozen=True)
class _IdentityFields:
    lhs: sp.Basic
    rhs: sp.Basic


@dataclass(frozen=True, init=False)
class Identity(_IdentityFields):
    """``lhs = rhs`` on the whole validity region (elementwise for matrices)."""

    def __init__(self, lhs: Any, rhs: Any) -> None:
        lhs, rhs = _as_sympy(lhs, "lhs"), _as_sympy(rhs, "rhs")
        if isinstance(lhs, sp.MatrixBase) != isinstance(rhs, sp.MatrixBase) or (
            isinstance(lhs, sp.MatrixBase) and lhs.shape != rhs.shape
        ):
            raise ValidationError("rhs", "the shape of lhs", f"{getattr(rhs, 'shape', 'a scalar')}")
        super().__init__(lhs, rhs)

    def differences(self) -> list[sp.Expr]:
        """The scalar expressions ``lhs − rhs`` that must vanish."""
        if isinstance(self.lhs, sp.MatrixBase):
            return list(self.lhs - self.rhs)
        return [self.lhs - self.rhs]

    def expressions(self) -> list[sp.Basic]:
        return [self.lhs, self.rhs]


@dataclass(frozen=True)
class _InequalityFields:
    lhs: sp.Expr
    rhs: sp.Expr
    relation: str


@dataclass(frozen=True, init=False)
class Inequality(_InequalityFields):
    """``lhs <relation> rhs`` on the whole validity region (scalars)."""

    def __init__(self, lhs: Any, rhs: Any, relation: str = "<=") -> None:
        if relation not in RELATIONS:
            raise ValidationError("relation", f"one of {', '.join(RELATIONS)}", repr(relation))
        lhs, rhs = _as_sympy(lhs, "lhs"), _as_sympy(rhs, "rhs")
        if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
            raise ValidationError(
                "lhs", "scalar expressions (use AllOf for several inequalities)", "a matrix"
            )
        super().__init__(lhs, rhs, relation)

    @property
    def strict(self) -> bool:
        return self.relation in ("<", ">")

    def slack(self) -> sp.Expr:
        """The expression that must be ``>= 0`` (``> 0`` when strict)."""
        return self.rhs - self.lhs if self.relation in ("<=", "<") else self.lhs - self.rhs

    def expressions(self) -> list[sp.Basic]:
        return [self.lhs, self.rhs]


Part = Identity | Inequality


@dataclass(frozen=True)
class _AllOfFields:
    parts: tuple[tuple[str, Part], ...]


@dataclass(frozen=True, init=False)
class AllOf(_AllOfFields):
    """A conjunction of named parts; it holds when every part holds."""

    def __init__(self, parts: Mapping[str, Part] | Iterable[tuple[str, Part]]) -> None:
        items = tuple(parts.items()) if isinstance(parts, Mapping) else tuple(parts)
        if not items:
            raise ValidationError("parts", "at least one identity or inequality", "none")
        for name, part in items:
            if not isinstance(part, (Identity, Inequality)):
                raise ValidationError(f"parts[{name!r}]", "an Identity or an Inequality", type(part).__name__)
        names = [n for n, _ in items]
        if len(set(names)) != len(names):
            raise ValidationError("parts", "distinct part names", ", ".join(names))
        super().__init__(items)

    def expressions(self) -> list[sp.Basic]:
        return [e for _, part in self.parts for e in part.expressions()]


def column_constraints(
    matrix: sp.Matrix,
    pairs: Sequence[tuple[str, Sequence[sp.Expr], Sequence[sp.Expr]]],
    factor: sp.Expr,
    tight: Iterable[tuple[str, int]] = (),
) -> AllOf:
    """ "``matrix`` is a mechanism satisfying ``aᵀw <= factor · bᵀw`` for every column ``w``, with
    equality at ``tight``" as an :class:`AllOf`.

    ``pairs`` lists ``(name, a, b)``; ``tight`` lists ``(name, column)`` pairs that must hold with
    equality. The parts are: rows sum to 1, entries ``>= 0``, and one slack per pair and column.
    """
    W = sp.ImmutableMatrix(matrix)
    n_in, n_out = W.shape
    tight_set = set(tight)
    parts: list[tuple[str, Part]] = [
        (f"row {i} sums to 1", Identity(sum(W.row(i)), sp.Integer(1))) for i in range(n_in)
    ]
    parts += [
        (f"W[{i},{j}] >= 0", Inequality(W[i, j], sp.Integer(0), ">="))
        for i in range(n_in)
        for j in range(n_out)
    ]
    for name, a, b in pairs:
        for j in range(n_out):
            column = W.col(j)
            lhs = sum(ai * column[i] for i, ai in enumerate(a))
            rhs = factor * sum(bi * column[i] for i, bi in enumerate(b))
            label = f"{name}, column {j}"
            if (name, j) in tight_set:
                parts.append((label + " (tight)", Identity(lhs, rhs)))
            else:
                parts.append((label, Inequality(lhs, rhs, "<=")))
    unknown = tight_set - {(name, j) for name, _, _ in pairs for j in range(n_out)}
    if unknown:
        raise ValidationError(
            "tight", "(pair name, column) pairs among the constraints", repr(sorted(unknown))
        )
    return AllOf(parts)


@dataclass(frozen=True)
class _UtilitySpecFields:
    kind: str
    p: tuple[sp.Expr, ...]
    p0: tuple[sp.Expr, ...]
    p1: tuple[sp.Expr, ...]


@dataclass(frozen=True, init=False)
class UtilitySpec(_UtilitySpecFields):
    """The utility of an optimality claim.

    ``kind`` is ``"any"`` (every sub-convex utility: only a symbolic certificate for two inputs can
    establish that), ``"mi"`` (``I(X;Y)`` with prior ``p``), ``"tv"`` or ``"kl"`` (between the output
    marginals of ``p0`` and ``p1``). Distributions are sympy vectors in the claim's parameters.
    """

    def __init__(
        self, kind: str = "any", p: Iterable[Any] = (), p0: Iterable[Any] = (), p1: Iterable[Any] = ()
    ) -> None:
        if kind not in ("any", "mi", "tv", "kl"):
            raise ValidationError("utility.kind", "'any', 'mi', 'tv' or 'kl'", repr(kind))
        p, p0, p1 = (tuple(sp.sympify(v, rational=True) for v in vector) for vector in (p, p0, p1))
        if kind == "mi" and not p:
            raise ValidationError("utility.p", "the prior of I(X;Y)", "none")
        if kind in ("tv", "kl") and not (p0 and p1):
            raise ValidationError("utility.p0/p1", "the two distributions of the f-divergence", "none")
        super().__init__(kind, p, p0, p1)

    def expressions(self) -> list[sp.Basic]:
        return [*self.p, *self.p0, *self.p1]


@dataclass(frozen=True)
class OptimalityInstance:
    """Concrete exact data of an optimality claim at one point.

    ``mechanism`` and ``cone`` are matrices of rationals; ``utility`` has rational distributions;
    ``compare`` is ``(definition, utility)`` for privopt's compiler (or ``None``); ``description``
    names any random data that is not a parameter (it is part of a counterexample).
    """

    mechanism: sp.Matrix
    cone: sp.Matrix
    utility: UtilitySpec
    compare: tuple[Any, Any] | None = None
    description: str = ""


#: The default utility of an :class:`Optimality`: every sub-convex utility.
_ANY_UTILITY = UtilitySpec()


@dataclass(frozen=True)
class _OptimalityFields:
    mechanism: sp.Basic | None
    cone: sp.Basic | None
    utility: UtilitySpec
    compare: Callable[[dict[str, float]], tuple[Any, Any]] | None
    instance: Callable[[Point, np.random.Generator], OptimalityInstance] | None


@dataclass(frozen=True, init=False)
class Optimality(_OptimalityFields):
    """``mechanism`` maximises ``utility`` over the mechanisms whose columns lie in the cone
    ``{w >= 0 : G w <= 0}`` (``cone`` is ``G``, one row per inequality).

    Either give ``mechanism`` and ``cone`` as matrices in the claim's parameters, or ``instance``: a
    function ``(point, rng) -> OptimalityInstance`` that builds exact data at a sample point (for
    claims whose mechanism depends on random data, such as the binary mechanism of Kairouz et al.,
    which depends on the sign pattern of ``P0 − P1``).

    ``compare`` (optional) maps a sample point (floats) to ``(definition, utility)`` for privopt's
    compiler; the numerical checker then compares the mechanism's utility with the compiler's optimum,
    an independent route.
    """

    def __init__(
        self,
        mechanism: Any = None,
        cone: Any = None,
        utility: UtilitySpec = _ANY_UTILITY,
        compare: Callable[[dict[str, float]], tuple[Any, Any]] | None = None,
        instance: Callable[[Point, np.random.Generator], OptimalityInstance] | None = None,
    ) -> None:
        if instance is not None:
            if mechanism is not None or cone is not None:
                raise ValidationError("instance", "either instance or mechanism and cone, not both", "both")
            super().__init__(None, None, utility, compare, instance)
            return
        if mechanism is None or cone is None:
            raise ValidationError("mechanism", "a mechanism and a cone (or an instance function)", "none")
        mechanism = _as_sympy(mechanism, "mechanism")
        cone = _as_sympy(cone, "cone")
        if not isinstance(mechanism, sp.MatrixBase) or not isinstance(cone, sp.MatrixBase):
            raise ValidationError("mechanism", "matrices for the mechanism and the cone", "a scalar")
        if cone.shape[1] != mechanism.shape[0]:
            raise ValidationError(
                "cone", f"rows of length {mechanism.shape[0]} (one entry per input)", f"{cone.shape}"
            )
        super().__init__(mechanism, cone, utility, compare, instance)

    @property
    def symbolic(self) -> bool:
        """Whether mechanism and cone are given as matrices in the parameters."""
        return self.instance is None

    def expressions(self) -> list[sp.Basic]:
        if self.instance is not None:
            return []
        return [self.mechanism, self.cone, *self.utility.expressions()]


@dataclass(frozen=True)
class Discrepancy:
    """The result of one numerical test: the claim holds at the point when ``size <= tolerance``.

    :meth:`skip` marks a point where the statement does not apply (or an independent route could not
    be computed); skipped points are counted and reported, never counted as evidence.
    """

    size: float
    tolerance: float
    detail: str = ""

    @classmethod
    def skip(cls, reason: str) -> Discrepancy:
        return cls(float("nan"), 0.0, reason)

    @property
    def skipped(self) -> bool:
        return self.size != self.size  # NaN

    @property
    def holds(self) -> bool:
        return bool(self.size <= self.tolerance)


@dataclass(frozen=True)
class Numerical:
    """A statement tested by a computation at sample points.

    ``check(point, rng)`` returns a :class:`Discrepancy` (``None`` to skip a point where the statement
    does not apply). With no parameters, the check runs once.
    """

    check: Callable[[Point, np.random.Generator], Discrepancy | None]

    def expressions(self) -> list[sp.Basic]:
        return []


@dataclass(frozen=True)
class PrintedNumber:
    """One number as a paper prints it, with its number of decimals."""

    label: str
    printed: float
    decimals: int = 4


@dataclass(frozen=True)
class _PrintedFields:
    numbers: tuple[PrintedNumber, ...]
    compute: Callable[[], Mapping[str, float]]
    slack: float


@dataclass(frozen=True, init=False)
class Printed(_PrintedFields):
    """Printed numbers against ``compute()``, which returns the recomputed value of every label.

    A printed number is reproduced when ``|computed − printed| <= ½·10^-decimals + slack`` (the
    rounding of the printed digits; ``slack`` admits the paper's own rounded intermediates).
    """

    def __init__(
        self, numbers: Iterable[PrintedNumber], compute: Callable[[], Mapping[str, float]], slack: float = 0.0
    ) -> None:
        numbers = tuple(numbers)
        if not numbers:
            raise ValidationError("numbers", "at least one printed number", "none")
        labels = [n.label for n in numbers]
        if len(set(labels)) != len(labels):
            raise ValidationError("numbers", "distinct labels", ", ".join(labels))
        super().__init__(numbers, compute, slack)

    def expressions(self) -> list[sp.Basic]:
        return []


Statement = Identity | Inequality | AllOf | Optimality | Numerical | Printed
