"""Sets given by bounds on the conditionals: ``{P : L[s,u] <= P(u|s) <= U[s,u]}`` (rectangular).

This is the envelope the Entropy paper puts around a Rényi ball's projections (eq. 42, with upper
bounds too for the ``"box"`` envelope), offered as a set of its own for users who know such bounds
from elsewhere. Because each ``P(·|s)`` ranges independently over its polytope ``D_s``, the vertex
rule is *exact* here for LDP w.r.t. S.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import ArrayLike

from privopt.data.distribution import JointDistribution, as_distribution
from privopt.errors import LimitError, ShapeError, ValidationError
from privopt.sets.base import UncertaintySet
from privopt.sets.counterparts import CounterpartRule, RectangularRule
from privopt.solvers.vertex_enumeration import merge_close
from privopt.validation import FloatArray, as_float_array

#: Largest number of candidate vertices ``k·2^(k−1)`` examined for a box-shaped ``D_s``.
_BOX_CANDIDATES_MAX = 2**20


def lower_envelope_vertices(lower: FloatArray, s: int) -> FloatArray:
    """Vertices ``L_s + (1 − Σ_u L_{u|s}) e_u`` of ``D_s = {R ∈ Δ : R >= L_s}`` (Entropy eq. 42)."""
    total = float(lower.sum())
    if total >= 1.0 - 1e-12:
        raise ValidationError(
            "L",
            f"lower bounds of P(u|s={s}) summing to less than 1",
            f"sum {total!r} (the envelope is a point or empty)",
        )
    return lower[None, :] + (1.0 - total) * np.eye(lower.size)


def box_simplex_vertices(lower: FloatArray, upper: FloatArray) -> FloatArray:
    """Vertices of ``{R : lower <= R <= upper, Σ R = 1}`` (one free coordinate, the others at a bound)."""
    k = lower.size
    if k * 2 ** (k - 1) > _BOX_CANDIDATES_MAX:
        raise LimitError(
            f"a box envelope on |U| = {k} symbols has up to {k * 2 ** (k - 1):,} candidate vertices; use the 'lower' envelope for this size"
        )
    vertices = []
    for free in range(k):
        others = [i for i in range(k) if i != free]
        for pattern in itertools.product((0, 1), repeat=k - 1):
            r = np.empty(k)
            r[others] = np.where(np.array(pattern, dtype=bool), upper[others], lower[others])
            r[free] = 1.0 - r[others].sum()
            if lower[free] - 1e-12 <= r[free] <= upper[free] + 1e-12:
                vertices.append(r)
    if not vertices:
        raise ValidationError(
            "U",
            "bounds with lower <= upper and Σ lower <= 1 <= Σ upper (a non-empty box ∩ simplex)",
            "an empty set",
        )
    return merge_close(np.array(vertices), 1e-12)


class ConditionalBounds(UncertaintySet):
    """``{P : L[s,u] <= P(u|s) <= U[s,u] for all s, u}``; ``upper=None`` means no upper bounds.

    ``reference`` (optional) supplies labels and the marginal ``P_S`` used for display.
    """

    def __init__(
        self,
        lower: ArrayLike,
        upper: ArrayLike | None = None,
        reference: JointDistribution | ArrayLike | None = None,
    ) -> None:
        L = as_float_array(lower, "L", 2)
        if np.any(L < 0):
            raise ValidationError("L", "non-negative lower bounds", f"{L.min()!r}")
        sums = L.sum(axis=1)
        if np.any(sums >= 1.0 - 1e-12):
            s = int(np.argmax(sums))
            raise ValidationError(
                "L", f"rows summing to less than 1 (row {s} bounds P(·|s={s}))", f"sum {float(sums[s])!r}"
            )
        U = None
        if upper is not None:
            U = as_float_array(upper, "U", 2)
            if U.shape != L.shape:
                raise ShapeError("U", f"shape {L.shape} like L", f"{U.shape}")
            if np.any(U < L) or np.any(U.sum(axis=1) < 1.0):
                raise ValidationError(
                    "U", "upper bounds >= L with rows summing to at least 1", "an empty set"
                )
        ref = None if reference is None else as_distribution(reference, "reference")
        if ref is not None and ref.shape != L.shape:
            raise ShapeError("reference", f"shape {L.shape}", f"{ref.shape}")
        self._lower = L
        self._upper = U
        self._center = ref

    @property
    def lower(self) -> FloatArray:
        return self._lower

    @property
    def upper(self) -> FloatArray | None:
        return self._upper

    @property
    def center(self) -> JointDistribution | None:
        return self._center

    @property
    def shape(self) -> tuple[int, int]:
        return self.lower.shape

    def reference(self) -> JointDistribution | None:
        return self.center

    def conditional_envelope(self, s: int, envelope: str = "lower") -> FloatArray:
        """Vertices of ``D_s`` (the set itself; ``envelope`` is ignored)."""
        if self.upper is None:
            return lower_envelope_vertices(self.lower[s], s)
        return box_simplex_vertices(self.lower[s], self.upper[s])

    def counterpart_rules(self) -> tuple[CounterpartRule, ...]:
        """Pairs of conditionals: the rectangular rule, exact (the set is rectangular)."""
        return (RectangularRule(self, True),)

    def __repr__(self) -> str:
        kind = "lower" if self.upper is None else "lower and upper"
        return f"ConditionalBounds({kind} bounds, shape={self.shape})"
