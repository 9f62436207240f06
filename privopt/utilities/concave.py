"""Concave utilities of a channel matrix, optimised directly with cvxpy (the ``"cvxpy"`` route).

A concave utility (expected gain, minus expected distortion) over the cone of admissible columns is a
plain convex program (docs/design.md, "One solve", item 4).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privopt.callables import call, returned
from privopt.data.distribution import InputAlphabet, JointDistribution, _check_on
from privopt.data.mechanism import Mechanism
from privopt.errors import ShapeError, ValidationError
from privopt.utilities.subconvex import SubConvexUtility, _columns, _given, _input_distribution
from privopt.validation import FloatArray, as_float_array, check_positive_int

#: What a concave utility's builder must do (named in errors).
_BUILDS = "a function of a cvxpy Variable W returning a concave scalar expression of W"


class ConcaveUtility:
    """A utility that is concave in the channel matrix, optimised directly with cvxpy.

    Parameters
    ----------
    builder:
        Function of a cvxpy expression ``W`` of shape ``(|X|, n_outputs)`` returning a scalar, concave
        cvxpy expression of ``W`` (DCP) to maximise.
    n_outputs:
        The size of the output alphabet (e.g. the estimate alphabet of a loss matrix), at least 1.
    input_size:
        Number of mechanism inputs, at least 1.

    Raises
    ------
    ValidationError
        When the builder fails on a variable of shape ``(input_size, n_outputs)``, or returns
        something that is not a scalar cvxpy expression of ``W``, or one that cvxpy cannot certify
        concave (the message names the offending sub-expression, as cvxpy's own DCP check does).
    """

    def __init__(
        self, builder: Callable[[Any], Any], *, n_outputs: int, input_size: int, name: str = "concave"
    ) -> None:
        if not callable(builder):
            raise ValidationError(
                "builder", "a callable returning a cvxpy expression", type(builder).__name__
            )
        self.builder = builder
        self.n_outputs = check_positive_int(n_outputs, "n_outputs")
        self.input_size = check_positive_int(input_size, "input_size")
        self.name = str(name)
        _check_concave(builder, self.input_size, self.n_outputs)

    @functools.cached_property
    def _affine_form(self) -> tuple[FloatArray, float] | None:
        import cvxpy as cp

        W = cp.Variable((self.input_size, self.n_outputs))
        expression = self.expression(W)
        if not expression.is_affine():
            return None
        W.value = np.zeros((self.input_size, self.n_outputs))
        gradient = expression.grad.get(W)
        offset = float(expression.value)
        if gradient is None:  # an affine expression that does not depend on W after all
            return np.zeros((self.input_size, self.n_outputs)), offset
        dense = gradient.toarray() if hasattr(gradient, "toarray") else gradient  # a number for a 1 × 1 W
        coefficients = np.asarray(dense, dtype=np.float64).reshape(W.shape, order="F")
        coefficients.setflags(write=False)
        return coefficients, offset

    @functools.cached_property
    def _pieces_view(self) -> AffinePieces | None:
        affine = self._affine_form
        return None if affine is None else AffinePieces(*affine)

    def pieces_view(self) -> AffinePieces | None:
        """The sub-convex view of an affine utility (:class:`AffinePieces`: ``μ(w) = max_y C_yᵀw``, plus
        ``c₀``), which has the same optimum over every cone; ``None`` when the utility is not affine."""
        return self._pieces_view

    def linear_coefficients(self) -> tuple[FloatArray, float] | None:
        """``(C, c₀)`` with ``U(W) = Σ_{x,y} C[x, y] W[x, y] + c₀`` when the utility is affine in ``W`` (cvxpy's
        curvature analysis of the builder's expression: expected gain, minus expected distortion, any
        affine builder), else ``None``. An affine utility makes the design a linear program over the
        cone (the ``"lp"`` route, docs/compiler.md, "Linear utilities")."""
        return self._affine_form

    def expression(self, W: Any) -> Any:
        """The builder's expression of ``W`` (what it raises names it: :mod:`privopt.callables`)."""
        return call(self.builder, "builder", _BUILDS, W)

    def value(self, mechanism: Mechanism | ArrayLike) -> float:
        import cvxpy as cp

        matrix = _columns(mechanism)
        if matrix.shape != (self.input_size, self.n_outputs):
            raise ShapeError("mechanism", f"shape {(self.input_size, self.n_outputs)}", f"{matrix.shape}")
        result = self.expression(cp.Constant(matrix))
        try:
            return float(result.value)
        except (AttributeError, TypeError, ValueError) as exc:
            raise returned(self.builder, "builder", "a scalar cvxpy expression", result) from exc

    def __call__(self, mechanism: Mechanism | ArrayLike) -> float:
        return self.value(mechanism)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


class AffinePieces(SubConvexUtility):
    """An affine utility ``U(W) = Σ_{x,y} C[x, y] W[x, y] + c₀`` seen as the piecewise-linear sub-convex
    ``μ(w) = max_y C_yᵀw`` with the transform ``g(t) = t + c₀``.

    The two problems have one optimum over every cone: a labelled mechanism's value is at most its
    ``Σ_y μ(w_y) + c₀``; conversely grouping a mechanism's outputs by the ``y`` that attains ``μ`` and
    merging each group (a sum of columns of a convex cone stays in it) gives a labelled mechanism of the
    same value (docs/compiler.md, "Piecewise-linear utilities"). Column generation and the checker's
    piecewise method work on this view when the LP over every output is too large."""

    proven_sublinear = True

    def __init__(self, coefficients: FloatArray, offset: float) -> None:
        C = np.asarray(coefficients, dtype=np.float64)
        super().__init__(
            lambda V: (C.T @ V).max(axis=0),
            input_size=C.shape[0],
            name="max_y C_yᵀw",
            transform=lambda total: total + offset,
        )
        self.coefficients, self.offset = C, float(offset)

    def linear_pieces(self) -> FloatArray | None:
        return self.coefficients.T

    def labels_of(self, columns: FloatArray) -> np.ndarray:
        """The output ``y`` attaining ``μ`` at each column (the label a merged column takes)."""
        return np.argmax(self.coefficients.T @ columns, axis=0)


class ExpectedGain(ConcaveUtility):
    """``E[g(X, Y)] = Σ_{x,y} P_x W[x, y] g[x, y]`` for a gain matrix ``g`` of shape ``(|X|, |Y|)``.

    Linear in ``W``: the expected gain of releasing ``Y`` as an estimate of ``X`` (e.g. ``g = I``
    gives the probability that the release equals the truth).
    """

    def __init__(self, P: JointDistribution | ArrayLike, gain: ArrayLike, on: InputAlphabet = "x") -> None:
        import cvxpy as cp

        p = _input_distribution(P, "P", on)
        g = as_float_array(gain, "gain", 2)
        if g.shape[0] != p.size:
            raise ShapeError("gain", f"a matrix with {p.size} rows (one per input)", f"shape {g.shape}")
        weights = p[:, None] * g
        super().__init__(
            lambda W: cp.sum(cp.multiply(weights, W)), n_outputs=g.shape[1], input_size=p.size, name="E[gain]"
        )
        #: The arguments as given (kept so that the utility can be written out: po.save).
        self.distribution = _given(P, p)
        self.gain = g
        self.on: InputAlphabet = _check_on(on)


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
            d = as_float_array(loss, "loss", 2)
        if d.shape[0] != p.size:
            raise ShapeError("loss", f"a matrix with {p.size} rows (one per input)", f"shape {d.shape}")
        weights = p[:, None] * d
        super().__init__(
            lambda W: -cp.sum(cp.multiply(weights, W)),
            n_outputs=d.shape[1],
            input_size=p.size,
            name="−E[distortion]",
        )
        #: The arguments as given (kept so that the utility can be written out: po.save).
        self.distribution = _given(P, p)
        self.loss: str | FloatArray = loss if isinstance(loss, str) else d
        self.on: InputAlphabet = _check_on(on)


def _non_dcp_parts(expression: Any) -> list[str]:
    """The smallest sub-expressions that break the DCP rules (cvxpy's own diagnosis: not DCP, but
    every argument is)."""
    found = []
    if not expression.is_dcp() and all(arg.is_dcp() for arg in expression.args):
        found.append(str(expression))
    for arg in expression.args:
        found.extend(_non_dcp_parts(arg))
    return found


def _check_concave(builder: Callable[[Any], Any], input_size: int, n_outputs: int) -> None:
    """Build the utility on a variable ``W`` of the declared shape; refuse what cvxpy cannot maximise."""
    import cvxpy as cp

    W = cp.Variable((input_size, n_outputs), name="W")
    expression = call(builder, "builder", f"{_BUILDS} (W of shape {(input_size, n_outputs)})", W)
    if not isinstance(expression, cp.Expression):
        raise returned(builder, "builder", "a function returning a cvxpy expression", expression)
    if expression.size != 1:
        raise ValidationError(
            "builder",
            "a scalar expression (wrap it in cp.sum(...) to add up entries)",
            f"shape {expression.shape}",
        )
    if not expression.variables():
        raise ValidationError(
            "builder", "an expression of W (something to maximise)", f"the constant {expression}"
        )
    if not expression.is_dcp():
        culprit = (_non_dcp_parts(expression) or [str(expression)])[0]
        where = "which" if culprit == str(expression) else f"whose sub-expression {culprit}"
        raise ValidationError(
            "builder",
            "a DCP expression (cvxpy's rules), so that maximising it is a convex program",
            f"{expression}, {where} is not DCP",
        )
    if not expression.is_concave():
        curvature = "convex" if expression.is_convex() else "of unknown curvature"
        raise ValidationError(
            "builder", "a concave expression (it is maximised)", f"{expression}, which is {curvature}"
        )


def as_utility(value: Any) -> SubConvexUtility | ConcaveUtility:
    """Accept a utility object; raise a clear error otherwise."""
    if isinstance(value, (SubConvexUtility, ConcaveUtility)):
        return value
    raise ValidationError(
        "utility", "a privopt utility such as po.MutualInformation(P)", type(value).__name__
    )
