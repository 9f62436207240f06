"""Linear statistics of a mechanism's column: the building blocks of ratio constraints.

A privacy definition in privopt is a family of constraints ``a(P)ᵀw <= e^ε b(P)ᵀw`` on every column
``w = W[:, y]`` of a mechanism (docs/concepts.md, "Row cones"). Each side is a *statistic*: a non-negative linear function
of ``w`` whose coefficients may depend on the data-generating distribution ``P``. How they depend on
``P`` decides how a robust counterpart over a set of distributions is formed, much as cvxpy's DCP
rules decide convexity from the atoms' curvature:

========================  =====================================  ===========================
statistic                 meaning (for output y)                 dependence on P
========================  =====================================  ===========================
``given(x=x)``            ``P(Y=y | input = x) = w_x``           constant
``weights(v)``            ``vᵀw`` for fixed ``v >= 0``           constant
``given(s=s)``            ``P(Y=y | S=s) = P(·|s)ᵀw``           affine in the conditional P(·|s)
``given(event=E)``        ``P(Y=y | X ∈ E)``                     affine in the conditional P(·|E)
``marginal()``            ``P(Y=y) = Pᵀw``                       affine in the joint P
``joint(E)``              ``P(Y=y, X ∈ E)``                      affine in the joint P
========================  =====================================  ===========================

``x`` in ``given(x=...)`` and ``weights`` refer to the mechanism's *input* alphabet (``X = S × U``, or
``U`` for a mechanism that reads ``U`` only); events ``E`` are sets of *records* ``(s, u)`` of
``X = S × U`` (labels as in ``JointDistribution.x_labels``), whatever the mechanism reads.

Statistics combine with ``+`` and multiplication by non-negative numbers when they depend on ``P``
in the same way. Adding a constant (a non-homogeneous term) or a negative multiple is rejected when
it is written, with a message naming the offending part.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.data.terms import Term
from privopt.errors import ValidationError
from privopt.validation import FloatArray

#: The ways a statistic may depend on the distribution.
CONSTANT, JOINT, CONDITIONAL = "constant", "affine in the joint P", "affine in a conditional P(·|event)"


def _event_indices(labels: Sequence[Hashable], event: Iterable[Hashable] | None, argument: str) -> np.ndarray:
    chosen = list(event or [])
    index = {label: i for i, label in enumerate(labels)}
    missing = [e for e in chosen if e not in index]
    if missing:
        shown = ", ".join(map(repr, list(labels)[:10]))
        raise ValidationError(argument, f"input labels among {shown}", repr(missing))
    return np.array(sorted(index[e] for e in chosen), dtype=int)


@dataclass(frozen=True)
class Statistic:
    """A sum of non-negative multiples of atoms ``(kind, key)``; see the module docstring.

    ``atoms`` is a tuple of ``(coefficient, kind, key)`` with ``kind`` one of ``"x"``, ``"weights"``,
    ``"s"``, ``"event"``, ``"marginal"``, ``"joint"``.
    """

    atoms: tuple[tuple[float, str, object], ...]

    # ------------------------------------------------------------------ algebra
    def __add__(self, other: object) -> Statistic:
        if isinstance(other, (int, float, np.number)):
            raise ValidationError(
                "statistic",
                "a sum of linear statistics of the column (homogeneous in w)",
                f"{self} + {other}: adding a constant makes the constraint non-homogeneous",
            )
        if not isinstance(other, Statistic):
            return NotImplemented
        combined = Statistic(self.atoms + other.atoms)
        combined.dependence  # noqa: B018 - raises on mixed dependence
        return combined

    __radd__ = __add__

    def __mul__(self, factor: object) -> Statistic:
        if (
            not isinstance(factor, (int, float, np.number))
            or not np.isfinite(float(factor))
            or float(factor) < 0
        ):
            raise ValidationError(
                "statistic",
                "multiplication by a finite number >= 0 (ratios compare non-negative quantities)",
                f"{factor!r} × {self}",
            )
        return Statistic(tuple((c * float(factor), kind, key) for c, kind, key in self.atoms))

    __rmul__ = __mul__

    # ------------------------------------------------------------------ classification
    @functools.cached_property
    def dependence(self) -> str:
        """How the coefficients depend on ``P`` (raises if the atoms mix dependences)."""
        kinds = {_dependence(kind) for _, kind, _ in self.atoms if _dependence(kind) != CONSTANT}
        if len(kinds) > 1 or (
            CONDITIONAL in kinds and len({key for _, kind, key in self.atoms if kind in ("s", "event")}) > 1
        ):
            raise ValidationError(
                "statistic",
                "terms that depend on P in one way (all constant, or all affine in the joint P, or all in one conditional)",
                f"{self}: mixes {' and '.join(sorted(kinds)) or 'several conditionals'}",
            )
        return kinds.pop() if kinds else CONSTANT

    @property
    def sensitive_value(self) -> Hashable | None:
        """The ``s`` of a statistic conditional on ``S = s`` (``None`` otherwise)."""
        keys = [key for _, kind, key in self.atoms if kind == "s"]
        return keys[0] if keys else None

    # ------------------------------------------------------------------ evaluation
    def vector(
        self, P: JointDistribution | None, labels: Sequence[Hashable], on: InputAlphabet = "x"
    ) -> FloatArray:
        """Coefficients over the mechanism's inputs (labelled ``labels``) at distribution ``P``."""
        out = np.zeros(len(labels))
        for coefficient, kind, key in self.atoms:
            out += coefficient * _atom_vector(kind, key, P, labels, on)
        return out

    def conditional_part(
        self, envelope_vertices: FloatArray, block: slice | None, n_inputs: int
    ) -> FloatArray:
        """For a statistic conditional on one ``S = s``: its values at the vertices of an envelope of
        ``P(·|s)`` (rows), laid out on the inputs (``block`` is the s-block of X, ``None`` for U)."""
        coefficient = sum(c for c, kind, _ in self.atoms if kind == "s")
        rows = np.zeros((envelope_vertices.shape[0], n_inputs))
        if block is None:
            rows[:] = envelope_vertices
        else:
            rows[:, block] = envelope_vertices
        return coefficient * rows

    def constant_part(self, labels: Sequence[Hashable]) -> FloatArray:
        """The sum of the constant atoms (``given(x=...)``, ``weights``)."""
        out = np.zeros(len(labels))
        for coefficient, kind, key in self.atoms:
            if kind in ("x", "weights"):
                out += coefficient * _atom_vector(kind, key, None, labels, "x")
        return out

    def term(self) -> Term:
        """A short label for witnesses."""
        if len(self.atoms) == 1:
            _, kind, key = self.atoms[0]
            if kind in ("x", "s"):
                return Term(kind, key)
            if kind == "marginal":
                return Term("P", None)
        return Term("stat", str(self))

    def __str__(self) -> str:
        parts = []
        for coefficient, kind, key in self.atoms:
            scale = "" if math.isclose(coefficient, 1.0, rel_tol=1e-5, abs_tol=1e-8) else f"{coefficient:g}·"
            text = _atom_text(kind, key)
            parts.append(scale + text)
        return " + ".join(parts)


def _members(key: object) -> tuple[Hashable, ...]:
    """The tuple an event or weights atom keeps as its key."""
    if not isinstance(key, tuple):
        raise TypeError(f"an atom key should be a tuple, got {key!r}")
    return key


def _hashable(key: object) -> Hashable:
    """The label an ``x`` or ``s`` atom keeps as its key."""
    if not isinstance(key, Hashable):
        raise TypeError(f"an atom key should be hashable, got {key!r}")
    return key


def _atom_text(kind: str, key: object) -> str:
    if kind == "x":
        return f"P(Y=y|X={key!r})"
    if kind == "weights":
        return f"vᵀw (v={np.round(np.asarray(_members(key), dtype=np.float64), 4).tolist()})"
    if kind == "s":
        return f"P(Y=y|S={key!r})"
    if kind == "event":
        return f"P(Y=y|X∈{list(_members(key))})"
    if kind == "joint":
        return f"P(Y=y, X∈{list(_members(key))})"
    return "P(Y=y)"


def _dependence(kind: str) -> str:
    return {
        "x": CONSTANT,
        "weights": CONSTANT,
        "s": CONDITIONAL,
        "event": CONDITIONAL,
        "marginal": JOINT,
        "joint": JOINT,
    }[kind]


def _atom_vector(
    kind: str, key: object, P: JointDistribution | None, labels: Sequence[Hashable], on: InputAlphabet
) -> FloatArray:
    n = len(labels)
    if kind == "x":
        out = np.zeros(n)
        out[_event_indices(labels, [_hashable(key)], "given(x=...)")] = 1.0
        return out
    if kind == "weights":
        vector = np.asarray(key, dtype=np.float64)
        if vector.size != n:
            raise ValidationError("weights", f"{n} coefficients (one per input)", f"{vector.size}")
        return vector
    assert P is not None, "a distribution-dependent statistic needs a distribution"
    if kind == "marginal":
        return P.marginal(on).copy()
    if kind == "s":
        s_index = _event_indices(P.s_labels, [_hashable(key)], "given(s=...)")[0]
        return P.conditional(on)[s_index].copy()
    # Events are sets of records x = (s, u) of X = S × U; a mechanism reading U sees their U-marginal.
    indices = _event_indices(P.x_labels, _members(key), f"{kind}(event)")
    record = np.zeros(P.n_x)
    record[indices] = P.p_x[indices]
    out = record if on == "x" else record.reshape(P.shape).sum(axis=0)
    if kind == "joint":
        return out
    mass = record.sum()
    if mass <= 0:
        raise ValidationError(
            "event",
            "an event of positive probability (a conditional is needed)",
            f"P(X ∈ {list(_members(key))}) = 0",
        )
    return out / mass


# ---------------------------------------------------------------------- constructors
def given(
    *, x: Hashable | None = None, s: Hashable | None = None, event: Iterable[Hashable] | None = None
) -> Statistic:
    """``P(Y=y | X=x)``, ``P(Y=y | S=s)`` or ``P(Y=y | X ∈ event)`` (exactly one keyword)."""
    chosen = [k for k, v in (("x", x), ("s", s), ("event", event)) if v is not None]
    if len(chosen) != 1:
        raise ValidationError("given", "exactly one of x=, s=, event=", f"{chosen or 'none'}")
    if x is not None:
        return Statistic(((1.0, "x", x),))
    if s is not None:
        return Statistic(((1.0, "s", s),))
    members = tuple(event if event is not None else ())
    if len(members) == 1:
        return Statistic(((1.0, "x", members[0]),))
    return Statistic(((1.0, "event", members),))


def marginal() -> Statistic:
    """``P(Y=y) = Σ_x P(x) w_x``."""
    return Statistic(((1.0, "marginal", None),))


def joint(event: Iterable[Hashable]) -> Statistic:
    """``P(Y=y, X ∈ event) = Σ_{x ∈ event} P(x) w_x``."""
    return Statistic(((1.0, "joint", tuple(event)),))


def weights(vector: ArrayLike) -> Statistic:
    """``vᵀw`` for a fixed non-negative vector ``v`` over the inputs."""
    v = np.asarray(vector, dtype=np.float64)
    if v.ndim != 1 or not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ValidationError("weights", "a 1-D vector of finite numbers >= 0", repr(vector))
    return Statistic(((1.0, "weights", tuple(v.tolist())),))
