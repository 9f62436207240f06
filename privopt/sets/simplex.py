"""The whole probability simplex: privacy for every distribution on ``X = S × U``."""

from __future__ import annotations

import numpy as np

from privopt.data.distribution import JointDistribution
from privopt.sets.base import UncertaintySet
from privopt.sets.counterparts import CounterpartRule, RectangularRule, VertexRule
from privopt.validation import check_positive_int


class Simplex(UncertaintySet):
    """All distributions on ``X = S × U`` with ``dims = (|S|, |U|)`` (Entropy paper §6).

    For LDP w.r.t. S this set gives (ε, P_X)-RLDP, characterised by Proposition 3:
    ``W[(s,u), y] <= e^ε W[(s',u'), y]`` for all ``s != s'``. For PML it gives LDP.
    """

    def __init__(self, dims: tuple[int, int] | int) -> None:
        n_s, n_u = (dims, 1) if isinstance(dims, int) else tuple(dims)
        self._dims = (check_positive_int(n_s, "dims[0]"), check_positive_int(n_u, "dims[1]"))

    @property
    def dims(self) -> tuple[int, int]:
        return self._dims

    @property
    def shape(self) -> tuple[int, int]:
        return self.dims

    def vertices(self) -> np.ndarray:
        """The point masses ``e_x``."""
        return np.eye(self.n_x)

    def vertex_distributions(self) -> tuple[JointDistribution, ...]:
        """The vertices as distributions labelled like the set."""
        return self.labelled(self.vertices())

    def conditional_envelope(self, s: int, envelope: str = "lower") -> np.ndarray:
        """``F_{U|s}`` is the whole simplex on U: its vertices are the point masses (exact)."""
        return np.eye(self.n_u)

    def counterpart_rules(self) -> tuple[CounterpartRule, ...]:
        """Pairs affine in the joint ``P``: its vertices (point masses); pairs of conditionals: the
        rectangular rule, exact here (every conditional ranges over the whole simplex)."""
        return (VertexRule(self), RectangularRule(self, True))

    def __repr__(self) -> str:
        return f"Simplex({self.dims})"
