"""Polytopes of distributions given by vertices or by linear inequalities."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from privopt.data.distribution import JointDistribution
from privopt.errors import ShapeError, ValidationError
from privopt.sets.base import UncertaintySet
from privopt.sets.counterparts import CounterpartRule, RectangularRule, VertexRule
from privopt.solvers.vertex_enumeration import merge_close, polytope_vertices
from privopt.validation import FloatArray, as_float_array, check_probability_vector


class Polytope(UncertaintySet):
    """A convex polytope of joint distributions on ``X = S × U`` (flat, s-major).

    Give either ``vertices`` (V-representation: rows are distributions) or ``A``/``b``
    (H-representation: ``{P ∈ Δ_X : A P <= b}``), plus ``shape = (|S|, |U|)``. The H-representation is
    converted to vertices once, exactly (pplpy).

    For PML, which is affine in the prior, the vertex rule is exact on a polytope (PML paper Cor. 1).
    LDP w.r.t. S is not affine in the joint distribution; privopt then uses the conditional
    projections' vertices on each ``s`` separately (a rectangular relaxation, as the Entropy paper
    does for Rényi balls), which is sound but may be conservative.
    """

    def __init__(
        self,
        vertices: ArrayLike | None = None,
        *,
        A: ArrayLike | None = None,
        b: ArrayLike | None = None,
        shape: tuple[int, int] | None = None,
    ) -> None:
        if (vertices is None) == (A is None):
            raise ValidationError("vertices", "either vertices or (A, b), not both and not neither", "")
        if vertices is not None:
            points = as_float_array(vertices, "vertices", 2)
            points = np.vstack(
                [check_probability_vector(row, f"vertices[{i}]") for i, row in enumerate(points)]
            )
        else:
            if A is None or b is None:
                raise ValidationError("b", "the right-hand sides b of A P <= b", "None")
            a = as_float_array(A, "A", 2)
            rhs = as_float_array(b, "b", 1)
            if rhs.size != a.shape[0]:
                raise ShapeError("b", f"{a.shape[0]} entries (one per row of A)", f"{rhs.size}")
            n = a.shape[1]
            result = polytope_vertices(
                np.vstack([a, -np.eye(n)]), np.concatenate([rhs, np.zeros(n)]), np.ones((1, n)), [1.0]
            )
            points = result.vertices
            if points.shape[0] == 0:
                raise ValidationError(
                    "A", "inequalities that some distribution satisfies", "an empty polytope"
                )
        n_x = points.shape[1]
        if shape is None:
            dims = (n_x, 1)
        else:
            if len(shape) != 2:
                raise ShapeError("shape", "(|S|, |U|)", repr(shape))
            dims = (int(shape[0]), int(shape[1]))
        if dims[0] * dims[1] != n_x:
            raise ShapeError("shape", f"(|S|, |U|) with |S|·|U| = {n_x}", repr(shape))
        self._shape = dims
        self._vertex_array = points

    @property
    def vertex_array(self) -> FloatArray:
        return self._vertex_array

    @property
    def shape(self) -> tuple[int, int]:
        return self._shape

    def vertices(self) -> FloatArray:
        return self.vertex_array

    def conditional_envelope(self, s: int, envelope: str = "lower") -> FloatArray:
        """Vertices of the projection ``{P(·|s) : P ∈ polytope}`` (:func:`conditional_projection`);
        ``envelope`` is ignored: the projection is used as it is."""
        return conditional_projection(self.vertex_array, self.shape, s)

    def counterpart_rules(self) -> tuple[CounterpartRule, ...]:
        """Pairs affine in the joint ``P``: its vertices (exact); pairs of conditionals (and of
        conditionals against the joint ``P``, as LIP's): the rectangular rule over the projections of
        the vertices and the vertices themselves (sound, possibly conservative)."""
        return (VertexRule(self), RectangularRule(self, False, self))

    def joint_envelope(self) -> tuple[JointDistribution, ...]:
        """The polytope's own vertices (``D = F``)."""
        return self.vertex_distributions()

    def vertex_distributions(self) -> tuple[JointDistribution, ...]:
        return self.labelled(self.vertex_array)

    def __repr__(self) -> str:
        return f"Polytope({len(self.vertex_array)} vertices, shape={self.shape})"


def conditional_projection(vertices: FloatArray, shape: tuple[int, int], s: int) -> FloatArray:
    """Vertices of ``{P(·|s) : P ∈ conv(vertices)}``: the images of the vertices with ``P(s) > 0`` (a
    linear-fractional map sends a polytope to the hull of its vertices' images)."""
    joint = vertices.reshape(-1, *shape)[:, s, :]
    mass = joint.sum(axis=1)
    if not np.any(mass > 0):
        raise ValidationError(
            "F", f"distributions with P(S=s) > 0 for s = {s}", "P(S=s) = 0 on the whole polytope"
        )
    return merge_close(joint[mass > 0] / mass[mass > 0, None], 1e-12)
