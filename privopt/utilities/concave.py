"""Concave utilities of a channel matrix, optimised directly with cvxpy (the ``"cvxpy"`` route).

A concave utility (expected gain, minus expected distortion) over the cone of admissible columns is a
plain convex program (docs/design.md, "Routes").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.data.mechanism import Mechanism
from privopt.errors import ShapeError, ValidationError
from privopt.utilities.subconvex import SubConvexUtility, _columns, _input_distribution


class ConcaveUtility:
    """A utility that is concave in the channel matrix, optimised directly with cvxpy.

    Parameters
    ----------
    builder:
        Function of a cvxpy expression ``W`` of shape ``(|X|, n_outputs)`` returning a concave cvxpy
        expression (DCP) to maximise.
    n_outputs:
        The size of the output alphabet (e.g. the estimate alphabet of a loss matrix).
    input_size:
        Number of mechanism inputs.
    """

    def __init__(
        self, builder: Callable[[Any], Any], *, n_outputs: int, input_size: int, name: str = "concave"
    ) -> None:
        if not callable(builder):
            raise ValidationError(
                "builder", "a callable returning a cvxpy expression", type(builder).__name__
            )
        self.builder = builder
        self.n_outputs = int(n_outputs)
        self.input_size = int(input_size)
        self.name = name

    def expression(self, W: Any) -> Any:
        return self.builder(W)

    def value(self, mechanism: Mechanism | ArrayLike) -> float:
        import cvxpy as cp

        matrix = _columns(mechanism)
        if matrix.shape != (self.input_size, self.n_outputs):
            raise ShapeError("mechanism", f"shape {(self.input_size, self.n_outputs)}", f"{matrix.shape}")
        return float(self.builder(cp.Constant(matrix)).value)

    def __call__(self, mechanism: Mechanism | ArrayLike) -> float:
        return self.value(mechanism)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


class ExpectedGain(ConcaveUtility):
    """``E[g(X, Y)] = Σ_{x,y} P_x W[x, y] g[x, y]`` for a gain matrix ``g`` of shape ``(|X|, |Y|)``.

    Linear in ``W``: the expected gain of releasing ``Y`` as an estimate of ``X`` (e.g. ``g = I``
    gives the probability that the release equals the truth).
    """

    def __init__(self, P: JointDistribution | ArrayLike, gain: ArrayLike, on: InputAlphabet = "x") -> None:
        import cvxpy as cp

        p = _input_distribution(P, "P", on)
        g = np.asarray(gain, dtype=np.float64)
        if g.ndim != 2 or g.shape[0] != p.size or not np.all(np.isfinite(g)):
            raise ShapeError(
                "gain", f"a finite matrix with {p.size} rows (one per input)", f"shape {g.shape}"
            )
        weights = p[:, None] * g
        super().__init__(
            lambda W: cp.sum(cp.multiply(weights, W)), n_outputs=g.shape[1], input_size=p.size, name="E[gain]"
        )


class ExpectedDistortion(ConcaveUtility):
    """Minus the expected distortion, ``−E[d(X, Y)]``, with ``d`` a loss matrix or ``"hamming"``.

    ``"hamming"`` is ``d(x, y) = [x != y]`` on ``Y = X``, so the utility is ``P(Y = X) − 1``.
    """

    def __init__(
        self, P: JointDistribution | ArrayLike, loss: str | ArrayLike = "hamming", on: InputAlphabet = "x"
    ) -> None:
        import cvxpy as cp

        p = _input_distribution(P, "P", on)
        if isinstance(loss, str):
            if loss != "hamming":
                raise ValidationError("loss", "'hamming' or a loss matrix", repr(loss))
            d = 1.0 - np.eye(p.size)
        else:
            d = np.asarray(loss, dtype=np.float64)
        if d.ndim != 2 or d.shape[0] != p.size or not np.all(np.isfinite(d)):
            raise ShapeError(
                "loss", f"a finite matrix with {p.size} rows (one per input)", f"shape {d.shape}"
            )
        weights = p[:, None] * d
        super().__init__(
            lambda W: -cp.sum(cp.multiply(weights, W)),
            n_outputs=d.shape[1],
            input_size=p.size,
            name="−E[distortion]",
        )


def as_utility(value: Any) -> SubConvexUtility | ConcaveUtility:
    """Accept a utility object; raise a clear error otherwise."""
    if isinstance(value, (SubConvexUtility, ConcaveUtility)):
        return value
    raise ValidationError(
        "utility", "a privopt utility such as po.MutualInformation(P)", type(value).__name__
    )
