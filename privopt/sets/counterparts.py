"""Robust-counterpart rules: how a set of distributions turns one ratio pair into finitely many rows.

A ratio pair ``max_{a ∈ A} a(P)ᵀw <= e^{cε} min_{b ∈ B} b(P)ᵀw`` must hold for every ``P`` in a set
``F``. Each uncertainty set declares, in :meth:`UncertaintySet.counterpart_rules`, the rules it supports
in order of preference; the compiler (:mod:`privopt.compiler.compile`) applies the first rule that
accepts the pair — the analogue of cvxpy's DCP rules, decided from how each side depends on ``P``
(:data:`~privopt.data.statistics.CONSTANT`, ``JOINT``, ``CONDITIONAL``):

:class:`ConstantRule`
    Both sides are independent of ``P``: one block, no set needed.
:class:`MemberRule`
    ``F`` is finite (a point or a finite set): the pair is imposed at each member. Exact, whatever
    the dependence.
:class:`VertexRule`
    Both sides are constant or affine in the *joint* ``P`` and ``F`` is a polytope (given by vertices,
    an ℓ1 ball, the simplex): ``a(P) − e^{cε} b(P)`` is affine in ``P``, so its maximum over ``F`` is at
    a vertex; the pair is imposed at each vertex (PML paper Cor. 1). Exact.
:class:`RectangularRule`
    Both sides are constant or affine in conditionals ``P(·|s)`` given ``S``, and ``F`` encloses each
    conditional projection ``F_{U|s}`` in a polytope ``D_s``: each side ranges independently over its
    ``D_s`` (Entropy paper Theorem 2, eqs. 40–41). Exact when ``F`` is itself rectangular (the simplex,
    conditional bounds); a sound inner approximation otherwise (Rényi balls, polytopes). Where ``F``
    also encloses itself in a polytope ``D ⊇ F`` of joint distributions (Rényi balls: ``{P >= L}`` with
    ``L_x = min_F P(x)``; polytopes: themselves), statistics affine in the joint ``P`` range over the
    vertices of ``D`` in the same way: this is how LIP's ``P(Y=y|S=s)`` against ``P(Y=y)`` — bilinear
    in ``P``, since ``P(Y=y) = Σ_s P(s) P(Y=y|S=s)`` — gets a sound inner approximation over a ball.
:class:`L1TransformRule`
    Every point mass against the output marginal over an ℓ1 ball with ``β < 2 min P̂``: the
    ``|X|²(|X|−1)`` vertex rows compress to the ``|X|²`` rows of the ε′ transform
    ``w_x <= e^{ε′}(P̂ᵀw + β/2 w_x')``, ``e^{ε′} = e^ε / (1 + β e^ε / 2)`` (PML paper Prop. 2, eq. 43).
    Exact.

A rule evaluates each side of a pair in a *case* (a member, a vertex, the envelope) to a group of
vectors; the compiler turns every case into one block of the row cone.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar, Protocol

import numpy as np

from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.data.statistics import CONDITIONAL, CONSTANT, JOINT, Statistic
from privopt.data.terms import Term
from privopt.errors import ValidationError
from privopt.validation import FloatArray

Side = tuple[Statistic, ...]


@dataclass(frozen=True)
class Layout:
    """How statistics are laid out on a mechanism's inputs: their labels, what the mechanism reads
    (``"x"`` or ``"u"``), the sensitive values of ``S`` and the envelope option of Rényi balls."""

    labels: tuple[Hashable, ...]
    on: InputAlphabet
    s_labels: tuple[Hashable, ...]
    n_u: int
    envelope: str = "lower"

    def s_position(self, s: Hashable) -> int:
        """The index of the sensitive value ``s`` (a ValidationError naming ``given(s=...)`` otherwise)."""
        if s not in self.s_labels:
            raise ValidationError("given(s=...)", f"one of the sensitive values {self.s_labels}", repr(s))
        return self.s_labels.index(s)

    def block(self, position: int) -> slice | None:
        """The inputs of ``S = s`` (``None`` when the mechanism reads ``U`` only)."""
        return slice(position * self.n_u, (position + 1) * self.n_u) if self.on == "x" else None


@dataclass(frozen=True)
class Case:
    """One block a rule produces: ``key`` identifies it (group caching), ``index`` the member or vertex
    it evaluates at, ``where`` describes it in witnesses, ``member`` is the index of a finite set's
    member when the set has several (``None`` otherwise)."""

    key: str
    index: int = 0
    where: str = ""
    member: int | None = None


@dataclass(frozen=True)
class Evaluation:
    """A side of a pair in one case: the vectors (rows) and one term per row."""

    vectors: FloatArray
    terms: tuple[Term, ...]
    name: str


def dependences(side: Side) -> set[str]:
    return {st.dependence for st in side}


def _names(statistics: Side) -> str:
    return str(statistics[0]) if len(statistics) == 1 else f"{len(statistics)} statistics"


def _at(side: Side, P: JointDistribution | None, layout: Layout, where: str) -> Evaluation:
    """The side's statistics evaluated at one distribution (``None`` for constant statistics)."""
    vectors = np.vstack([st.vector(P, layout.labels, layout.on) for st in side])
    terms = tuple(Term(st.term().kind, st.term().label, where) for st in side)
    return Evaluation(vectors, terms, f"{_names(side)} at {where}" if where else _names(side))


class CounterpartRule(ABC):
    """A robust-counterpart rule (module docstring)."""

    #: Short name, recorded in every block it produces (``RatioBlock.counterpart``).
    name: ClassVar[str]

    @property
    @abstractmethod
    def exact(self) -> bool:
        """Whether the rows describe the pair over the set exactly (not only an inner approximation)."""

    @abstractmethod
    def accepts(self, left: Side, right: Side, layout: Layout) -> tuple[bool, str]:
        """``(True, "")`` when the rule applies to the pair, else ``(False, why not)``."""

    @abstractmethod
    def cases(self) -> tuple[Case, ...]:
        """The blocks the rule produces for one pair."""

    @abstractmethod
    def evaluate(self, side: Side, case: Case, layout: Layout) -> Evaluation:
        """One side of a pair in one case."""

    def factor(self, eps: float, scale: float) -> tuple[float, Fraction | None]:
        """``(log factor, exact factor)`` of the block ``max A <= factor · min B`` for ``e^{scale·ε}``.

        The exact factor is a rational when the rule knows it exactly (the rational rows then keep
        coincidences that rounding ``exp`` would break, e.g. at ε = 0); ``None`` otherwise.
        """
        return scale * eps, None


class ConstantRule(CounterpartRule):
    """Both sides independent of ``P``: one block, no set involved."""

    name = "constant"

    @property
    def exact(self) -> bool:
        return True

    def accepts(self, left: Side, right: Side, layout: Layout) -> tuple[bool, str]:
        if dependences(left + right) <= {CONSTANT}:
            return True, ""
        return False, "a side depends on the distribution"

    def cases(self) -> tuple[Case, ...]:
        return (Case("constant"),)

    def evaluate(self, side: Side, case: Case, layout: Layout) -> Evaluation:
        return _at(side, None, layout, "")


@dataclass(frozen=True, eq=False)
class MemberRule(CounterpartRule):
    """Impose the pair at each member of a finite set (exact for any dependence)."""

    members: tuple[JointDistribution, ...]
    name: ClassVar[str] = "member"

    @property
    def exact(self) -> bool:
        return True

    def accepts(self, left: Side, right: Side, layout: Layout) -> tuple[bool, str]:
        return True, ""

    def cases(self) -> tuple[Case, ...]:
        if len(self.members) == 1:
            return (Case("member"),)
        return tuple(Case("member", i, f"member {i}", i) for i in range(len(self.members)))

    def evaluate(self, side: Side, case: Case, layout: Layout) -> Evaluation:
        return _at(side, self.members[case.index], layout, case.where)


class Vertices(Protocol):
    """A polytope of distributions that lists its vertices."""

    def vertex_distributions(self) -> tuple[JointDistribution, ...]:
        """The vertices, labelled like the set."""
        ...


@dataclass(frozen=True, eq=False)
class VertexRule(CounterpartRule):
    """Impose a pair affine in the joint ``P`` at each vertex of a polytope of distributions (the
    vertices are listed only when a pair is compiled)."""

    polytope: Vertices
    name: ClassVar[str] = "vertex"
    _listed: list[tuple[JointDistribution, ...]] = field(default_factory=list, repr=False)

    @property
    def vertices(self) -> tuple[JointDistribution, ...]:
        if not self._listed:
            self._listed.append(self.polytope.vertex_distributions())
        return self._listed[0]

    @property
    def exact(self) -> bool:
        return True

    def accepts(self, left: Side, right: Side, layout: Layout) -> tuple[bool, str]:
        if dependences(left + right) <= {CONSTANT, JOINT}:
            return True, ""
        return False, "pairs affine in the joint P (vertex rule)"

    def cases(self) -> tuple[Case, ...]:
        return tuple(Case("vertex", k, f"vertex {k} of F") for k in range(len(self.vertices)))

    def evaluate(self, side: Side, case: Case, layout: Layout) -> Evaluation:
        return _at(side, self.vertices[case.index], layout, case.where)


class ConditionalEnvelopes(Protocol):
    """A set whose conditional projections ``F_{U|s}`` are enclosed in polytopes ``D_s``."""

    def conditional_envelope(self, s: int, envelope: str = "lower") -> FloatArray:
        """Vertices (rows) of ``D_s``."""
        ...


class JointEnvelope(Protocol):
    """A set enclosed in a polytope ``D ⊇ F`` of joint distributions."""

    def joint_envelope(self) -> tuple[JointDistribution, ...]:
        """The vertices of ``D``, labelled like the set."""
        ...


@dataclass(frozen=True, eq=False)
class RectangularRule(CounterpartRule):
    """Each side of a pair of conditionals ranges over the vertices of its own ``D_s``; with ``joint``,
    each statistic affine in the joint ``P`` over the vertices of ``D ⊇ F`` (module docstring)."""

    envelopes: ConditionalEnvelopes
    is_exact: bool
    joint: JointEnvelope | None = None
    name: ClassVar[str] = "rectangular"

    @property
    def exact(self) -> bool:
        return self.is_exact

    def accepts(self, left: Side, right: Side, layout: Layout) -> tuple[bool, str]:
        sides = left + right
        allowed = {CONSTANT, CONDITIONAL} | ({JOINT} if self.joint is not None else set())
        if not dependences(sides) <= allowed:
            if self.joint is not None:
                return False, "pairs affine in conditionals given S and in the joint P (rectangular rule)"
            return False, "pairs affine in conditionals given S (rectangular rule)"
        events = [st for st in sides if st.dependence == CONDITIONAL and st.sensitive_value is None]
        if events:
            return False, (
                f"the pair conditions on the event in {events[0]}, which is not a value of S; "
                f"{type(self.envelopes).__name__} only bounds the conditionals P(·|S=s)"
            )
        return True, ""

    def cases(self) -> tuple[Case, ...]:
        return (Case("envelope"),)

    def evaluate(self, side: Side, case: Case, layout: Layout) -> Evaluation:
        rows: list[FloatArray] = []
        terms: list[Term] = []
        n = len(layout.labels)
        for st in side:
            constant = st.constant_part(layout.labels)
            s = st.sensitive_value
            if st.dependence == JOINT:
                assert self.joint is not None  # accepts() admits joint statistics only with D
                joint = self.joint.joint_envelope()
                rows.append(np.vstack([st.vector(P, layout.labels, layout.on) for P in joint]))
                terms.extend(Term("P", None, f"vertex {k} of D") for k in range(len(joint)))
                continue
            if s is None:
                rows.append(constant[None, :])
                terms.append(st.term())
                continue
            position = layout.s_position(s)
            vertices = self.envelopes.conditional_envelope(position, layout.envelope)
            rows.append(st.conditional_part(vertices, layout.block(position), n) + constant)
            terms.extend(Term("s", s, f"vertex {k} of D_s") for k in range(vertices.shape[0]))
        return Evaluation(np.vstack(rows), tuple(terms), f"{_names(side)} over D_s")


class Ball(Protocol):
    """An ℓ1 ball of distributions: its centre, its radius and the condition of PML paper Prop. 2."""

    @property
    def center(self) -> JointDistribution: ...

    @property
    def radius(self) -> float: ...

    def check_paper_condition(self) -> None:
        """Raise unless ``β < 2 min P̂``."""
        ...


@dataclass(frozen=True, eq=False)
class L1TransformRule(CounterpartRule):
    """Every point mass against ``P(Y=y)`` over an ℓ1 ball: PML paper Prop. 2's ε′ transform.

    Over the ball ``‖P − P̂‖₁ <= β`` with ``β < 2 min P̂``, ``min_P Pᵀw = P̂ᵀw − β/2 (max w − min w)``,
    so ``max_x w_x <= e^ε min_P Pᵀw`` is ``w_x <= e^{ε′}(P̂ᵀw + β/2 w_x')`` for all ``x, x'`` with
    ``e^{ε′} = e^ε / (1 + β e^ε / 2)`` (eq. 43). The right side is written normalised,
    ``(P̂ + β/2 e_x') / (1 + β/2)``, so that exact arithmetic keeps the uniform column feasible at ε = 0.
    """

    ball: Ball
    name: ClassVar[str] = "l1-transform"

    @property
    def exact(self) -> bool:
        return True

    def accepts(self, left: Side, right: Side, layout: Layout) -> tuple[bool, str]:
        marginal_only = len(right) == 1 and right[0].atoms == ((1.0, "marginal", None),)
        units = {st.atoms[0][2] for st in left if len(st.atoms) == 1 and st.atoms[0][1] == "x"}
        if marginal_only and len(units) == len(left) and units == set(layout.labels):
            return True, ""
        return False, "every point mass against P(Y=y) (ε′ transform)"

    def cases(self) -> tuple[Case, ...]:
        self.ball.check_paper_condition()
        return (Case("l1-transform", 0, "the ℓ1 ball (ε′ transform)"),)

    def evaluate(self, side: Side, case: Case, layout: Layout) -> Evaluation:
        n = len(layout.labels)
        if side[0].dependence == CONSTANT:
            return _at(side, None, layout, "")
        half = self.ball.radius / 2.0
        shifted = (self.ball.center.marginal(layout.on)[None, :] + half * np.eye(n)) / (1.0 + half)
        terms = tuple(Term("P", None, f"P̂ + β/2·e_{x!r}") for x in layout.labels)
        return Evaluation(shifted, terms, "P̂ + β/2 e_x'")

    def factor(self, eps: float, scale: float) -> tuple[float, Fraction | None]:
        """``e^{ε′}(1 + β/2)`` at ``ε = scale·eps`` (eq. 43, with the normalised right side)."""
        level = scale * eps
        radius = self.ball.radius
        e_eps, beta = Fraction(float(np.exp(level))), Fraction(float(radius))
        exact = e_eps * (1 + beta / 2) / (1 + beta * e_eps / 2)
        return level + pml_shift(level, radius) + float(np.log1p(radius / 2.0)), exact


def pml_shift(eps: float, beta: float) -> float:
    """``ε′ − ε`` with ``e^{ε′} = e^ε / (1 + β e^ε / 2)`` (PML paper eq. 43)."""
    return float(-np.log1p(beta * np.exp(eps) / 2.0))


def layout_for(
    labels: Sequence[Hashable],
    on: InputAlphabet,
    reference: JointDistribution | None,
    shape: tuple[int, int] | None,
    envelope: str,
) -> Layout:
    """The layout of statistics on inputs ``labels`` for a set with this reference and shape."""
    if reference is not None:
        s_labels: tuple[Hashable, ...] = reference.s_labels
        n_u = reference.n_u
    elif shape is not None:
        s_labels, n_u = tuple(range(shape[0])), shape[1]
    else:
        s_labels, n_u = (), 0
    return Layout(tuple(labels), on, s_labels, n_u, envelope)
