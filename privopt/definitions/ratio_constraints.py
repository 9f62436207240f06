"""Generic linear-ratio privacy definitions, and the rules that make them robust.

``RatioConstraints(pairs, eps, over=F)`` demands, for every output ``y`` and every ``P ∈ F``::

    max_{a ∈ A} a(P)ᵀw  <=  e^ε · min_{b ∈ B} b(P)ᵀw        for each pair (A, B),

where ``A`` and ``B`` are groups of :mod:`privopt.data.statistics` (a single statistic is a group of one).
The built-in definitions (LDP, LDP w.r.t. S, LIP, PML) are thin subclasses that only say which pairs
they impose. The robust counterpart over ``F`` is formed by the first rule that applies to a pair —
the analogue of cvxpy's DCP rules, decided from how each side depends on ``P``:

``constant``
    Both sides are independent of ``P``: one block, no set needed.
``member``
    ``F`` is finite (a point or a :class:`~privopt.FiniteSet`): the pair is imposed at each member.
    Exact, whatever the dependence.
``vertex``
    Both sides are constant or affine in the *joint* ``P`` and ``F`` has vertices (polytope, ℓ1 ball,
    simplex): ``a(P) − e^ε b(P)`` is affine in ``P``, so its maximum over ``F`` is at a vertex; the pair
    is imposed at each vertex. Exact.
``rectangular``
    Both sides are constant or affine in conditionals ``P(·|s)`` given ``S``, and ``F`` encloses each
    conditional projection ``F_{U|s}`` in a polytope ``D_s``: each side ranges independently over its
    ``D_s``, so the block compares the vertices of ``D_s`` with those of ``D_s'`` (Entropy paper
    Theorem 2). Exact when ``F`` is itself rectangular (the simplex, :class:`~privopt.ConditionalBounds`);
    a sound inner approximation otherwise (Rényi balls, polytopes of joint distributions), and then
    the audit reports an interval.

A pair no rule handles — e.g. a conditional against the marginal (LIP) over a Rényi ball — is refused
when the definition is constructed, with a message naming the pair and the dependence of each side.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from privopt.compiler.cone import CompileOptions, ConeBuilder
from privopt.data.distribution import InputAlphabet, JointDistribution, _check_on
from privopt.data.statistics import CONDITIONAL, CONSTANT, JOINT, Statistic
from privopt.data.terms import Term
from privopt.definitions.base import PrivacyDefinition, as_uncertainty_set, pairs_report
from privopt.errors import NotSupportedError, ValidationError
from privopt.sets.base import UncertaintySet
from privopt.sets.conditional_bounds import ConditionalBounds
from privopt.sets.simplex import Simplex
from privopt.validation import FloatArray, check_eps, check_positive_int

if TYPE_CHECKING:
    from privopt.audit import AuditReport
    from privopt.data.mechanism import Mechanism

#: Sets on which the rectangular rule is exact (their conditionals vary independently).
_RECTANGULAR_EXACT = (Simplex, ConditionalBounds)


@dataclass(frozen=True)
class RatioPair:
    """``max over left <= e^ε · min over right`` (both groups of statistics), with a description."""

    left: tuple[Statistic, ...]
    right: tuple[Statistic, ...]
    label: str = ""

    @classmethod
    def of(
        cls, left: Statistic | Iterable[Statistic], right: Statistic | Iterable[Statistic], label: str = ""
    ) -> RatioPair:
        lhs = (left,) if isinstance(left, Statistic) else tuple(left)
        rhs = (right,) if isinstance(right, Statistic) else tuple(right)
        for side, name in ((lhs, "left"), (rhs, "right")):
            if not side or not all(isinstance(st, Statistic) for st in side):
                raise ValidationError(
                    "pairs", f"statistics on the {name} side (po.given, po.marginal, ...)", repr(side)
                )
            for st in side:
                st.dependence  # noqa: B018 - validates the statistic
        return cls(lhs, rhs, label)

    def __str__(self) -> str:
        def side(group: tuple[Statistic, ...], word: str) -> str:
            return str(group[0]) if len(group) == 1 else f"{word} of {len(group)} statistics"

        return self.label or f"{side(self.left, 'max')} <= e^ε·{side(self.right, 'min')}"


def _as_pair(item: Any) -> RatioPair:
    if isinstance(item, RatioPair):
        return item
    try:
        left, right = item
    except (TypeError, ValueError) as exc:
        raise ValidationError(
            "pairs", "(left, right) pairs of statistics or RatioPair objects", repr(item)
        ) from exc
    return RatioPair.of(left, right)


@dataclass(frozen=True, eq=False)
class RatioConstraints(PrivacyDefinition):
    """A privacy definition given by linear-ratio constraints (module docstring).

    Parameters
    ----------
    pairs:
        ``(left, right)`` pairs of statistics (or of lists of statistics), or :class:`RatioPair`.
    eps:
        Privacy parameter (nats).
    over:
        The distributions the constraints must hold for: a JointDistribution, a set, or ``None`` when
        every statistic is constant.
    on:
        ``"x"`` (the mechanism reads ``X = S × U``) or ``"u"`` (it reads ``U`` only).
    n_inputs:
        Number of mechanism inputs when ``over`` is ``None``.
    name:
        Used in reports.
    """

    eps: float
    uncertainty: UncertaintySet | None
    on: InputAlphabet
    size: int | None
    pair_spec: tuple[RatioPair, ...]
    title: str

    def __init__(
        self,
        pairs: Iterable[Any],
        eps: float,
        over: Any = None,
        *,
        on: InputAlphabet = "x",
        n_inputs: int | None = None,
        name: str = "RatioConstraints",
    ) -> None:
        self._init(eps, over, on, n_inputs, name, tuple(_as_pair(p) for p in pairs))

    def _init(
        self,
        eps: float,
        over: Any,
        on: InputAlphabet,
        n_inputs: int | None,
        name: str,
        pairs: tuple[RatioPair, ...],
    ) -> None:
        object.__setattr__(self, "eps", check_eps(eps))
        object.__setattr__(self, "uncertainty", None if over is None else as_uncertainty_set(over, "F"))
        object.__setattr__(self, "on", _check_on(on))
        object.__setattr__(
            self, "size", None if n_inputs is None else check_positive_int(n_inputs, "n_inputs")
        )
        object.__setattr__(self, "pair_spec", pairs)
        object.__setattr__(self, "title", name)
        labels = self.input_labels()
        if labels is not None:  # refuse pairs no rule handles now, not at solve time
            for pair in self.pairs_for(labels, CompileOptions()):
                self._rule(pair)

    # ------------------------------------------------------------------ facts
    @property
    def name(self) -> str:
        return self.title

    def with_eps(self, eps: float) -> PrivacyDefinition:
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        object.__setattr__(clone, "eps", check_eps(eps))
        return clone

    def input_size(self) -> int | None:
        if self.uncertainty is None:
            return self.size
        return self.uncertainty.n_x if self.on == "x" else self.uncertainty.n_u

    def input_labels(self) -> tuple[Hashable, ...] | None:
        if self.uncertainty is None:
            return None if self.size is None else tuple(range(self.size))
        reference = self.uncertainty.reference()
        if reference is not None:
            return reference.input_labels(self.on)
        return tuple(range(self.input_size()))  # type: ignore[arg-type]

    def s_labels(self) -> tuple[Hashable, ...]:
        assert self.uncertainty is not None
        reference = self.uncertainty.reference()
        return reference.s_labels if reference is not None else tuple(range(self.uncertainty.n_s))  # type: ignore[return-value]

    def pairs_for(self, labels: tuple[Hashable, ...], options: CompileOptions) -> tuple[RatioPair, ...]:
        """The pairs imposed on a mechanism with these input labels (subclasses build them)."""
        return self.pair_spec

    # ------------------------------------------------------------------ rules
    def _rule(self, pair: RatioPair) -> str:
        sides = pair.left + pair.right
        dependences = {st.dependence for st in sides}
        if dependences <= {CONSTANT}:
            return "constant"
        F = self.uncertainty
        if F is None:
            raise NotSupportedError(
                f"{self.name}: the pair {pair} depends on the distribution, but no set of distributions was given (over=)"
            )
        if F.members() is not None:
            return "member"
        if dependences <= {CONSTANT, JOINT} and hasattr(F, "vertices"):
            return "vertex"
        if dependences <= {CONSTANT, CONDITIONAL} and hasattr(F, "conditional_envelope"):
            events = [st for st in sides if st.dependence == CONDITIONAL and st.sensitive_value is None]
            if not events:
                return "rectangular"
            raise NotSupportedError(
                f"{self.name} over {F!r}: the pair {pair} conditions on the event in {events[0]}, which is not a value of S; "
                f"{type(F).__name__} only bounds the conditionals P(·|S=s). Use a Point or a FiniteSet of distributions."
            )
        left = " and ".join(sorted({st.dependence for st in pair.left}))
        right = " and ".join(sorted({st.dependence for st in pair.right}))
        handled = []
        if hasattr(F, "vertices"):
            handled.append("pairs affine in the joint P (vertex rule)")
        if hasattr(F, "conditional_envelope"):
            handled.append("pairs affine in conditionals given S (rectangular rule)")
        raise NotSupportedError(
            f"{self.name} over {F!r} is not supported: the pair {pair} is not affine in the distribution in one way — "
            f"its left side is {left}, its right side {right}, so the constraint is bilinear in P and no vertex rule "
            f"gives its robust counterpart. {type(F).__name__} handles {' or '.join(handled) or 'no distribution-dependent pairs'}. "
            "Use a Point or a FiniteSet of distributions (each member is handled exactly)."
        )

    # ------------------------------------------------------------------ compilation
    def build_cone(self, builder: ConeBuilder, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        exact = True
        cache: dict[tuple[object, ...], int] = {}
        F = self.uncertainty

        def group(statistics: tuple[Statistic, ...], context: object, make: Any, name: str) -> int:
            key = (statistics, context)
            if key not in cache:
                vectors, terms = make()
                cache[key] = builder.group(vectors, terms, name)
            return cache[key]

        def sides(pair: RatioPair, P: Any, context: object, where: str) -> tuple[int, int]:
            """The groups of both sides of ``pair`` evaluated at the distribution ``P``."""
            return tuple(  # type: ignore[return-value]
                group(
                    side,
                    context,
                    lambda side=side: self._evaluate(side, P, labels, where),
                    f"{_names(side)} at {where or 'P'}",
                )
                for side in (pair.left, pair.right)
            )

        for pair in self.pairs_for(labels, options):
            rule = self._rule(pair)
            text = f"{pair} [{rule} rule]"
            if rule == "constant":
                a = group(
                    pair.left,
                    None,
                    lambda p=pair: self._evaluate(p.left, None, labels, ""),
                    f"{_names(pair.left)}",
                )
                b = group(
                    pair.right,
                    None,
                    lambda p=pair: self._evaluate(p.right, None, labels, ""),
                    f"{_names(pair.right)}",
                )
                builder.block(a, b, text)
            elif rule == "member":
                assert F is not None
                members = F.members()
                assert members is not None
                for i, P in enumerate(members):
                    member = None if len(members) == 1 else i
                    where = "" if member is None else f"member {i}"
                    a, b = sides(pair, P, ("member", i), where)
                    builder.block(a, b, text, member)
            elif rule == "vertex":
                for k, P in enumerate(self._vertex_distributions()):
                    a, b = sides(pair, P, ("vertex", k), f"vertex {k} of F")
                    builder.block(a, b, text)
            else:
                assert F is not None
                exact = exact and isinstance(F, _RECTANGULAR_EXACT)
                a = group(
                    pair.left,
                    ("envelope", options.envelope),
                    lambda p=pair: self._envelope_values(p.left, labels, options),
                    f"{_names(pair.left)} over D_s",
                )
                b = group(
                    pair.right,
                    ("envelope", options.envelope),
                    lambda p=pair: self._envelope_values(p.right, labels, options),
                    f"{_names(pair.right)} over D_s",
                )
                builder.block(a, b, text)
        return exact

    def _evaluate(
        self,
        statistics: tuple[Statistic, ...],
        P: JointDistribution | None,
        labels: tuple[Hashable, ...],
        where: str,
    ) -> tuple[FloatArray, list[Term]]:
        vectors = np.vstack([st.vector(P, labels, self.on) for st in statistics])
        terms = [Term(st.term().kind, st.term().label, where) for st in statistics]
        return vectors, terms

    def _vertex_distributions(self) -> list[JointDistribution]:
        F = self.uncertainty
        assert F is not None
        reference = F.reference()
        kwargs = {} if reference is None else {"s_labels": reference.s_labels, "u_labels": reference.u_labels}
        return [JointDistribution(v.reshape(F.shape), **kwargs) for v in F.vertices()]  # type: ignore[attr-defined]

    def s_position(self, s: Hashable) -> int:
        labels = self.s_labels()
        if s not in labels:
            raise ValidationError("given(s=...)", f"one of the sensitive values {labels}", repr(s))
        return labels.index(s)

    def _block(self, position: int) -> slice | None:
        assert self.uncertainty is not None
        n_u = self.uncertainty.n_u
        return slice(position * n_u, (position + 1) * n_u) if self.on == "x" else None

    def _envelope_values(
        self, statistics: tuple[Statistic, ...], labels: tuple[Hashable, ...], options: CompileOptions
    ) -> tuple[FloatArray, list[Term]]:
        F = self.uncertainty
        assert F is not None
        rows, terms = [], []
        for st in statistics:
            constant = st.constant_part(labels)
            s = st.sensitive_value
            if s is None:
                rows.append(constant[None, :])
                terms.append(st.term())
                continue
            position = self.s_position(s)
            vertices = F.conditional_envelope(position, options.envelope)  # type: ignore[attr-defined]
            rows.append(st.conditional_part(vertices, self._block(position), len(labels)) + constant)
            terms.extend(Term("s", s, f"vertex {k} of D_s") for k in range(vertices.shape[0]))
        return np.vstack(rows), terms

    # ------------------------------------------------------------------ audit
    def audit(self, mechanism: Mechanism, *, tolerance: float) -> AuditReport:
        self.check_mechanism(mechanism)
        cone = self.row_cone(mechanism.n_inputs, mechanism.input_labels)
        if cone.exact and not np.any(cone.shifts() != 0.0):
            return pairs_report(self, mechanism, cone.pairs(), tolerance)
        from privopt.audit.robust import audit_rectangular

        return audit_rectangular(self, mechanism, tolerance)

    def __str__(self) -> str:
        over = "" if self.uncertainty is None else f", F={self.uncertainty!r}"
        on = "" if self.on == "x" else ", on='u'"
        return f"{self.name}(eps={self.eps:.6g}{over}{on})"


def _names(statistics: tuple[Statistic, ...]) -> str:
    return str(statistics[0]) if len(statistics) == 1 else f"{len(statistics)} statistics"


def sensitive_value_pairs(s_labels: Sequence[Hashable], self_pairs: bool) -> list[RatioPair]:
    """``P(Y=y|S=s) <= e^ε P(Y=y|S=s')`` for ``s != s'`` (and ``s = s'`` when asked)."""
    from privopt.data.statistics import given

    return [RatioPair.of(given(s=a), given(s=b)) for a in s_labels for b in s_labels if a != b or self_pairs]
