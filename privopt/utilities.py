"""Utilities of a mechanism, in nats: mutual information and f-divergences.

All built-ins are *sub-convex* (Kairouz et al. 2016; PML paper eq. 11): a sum over the columns
``w = W[:, y]`` of a sublinear (convex and positively homogeneous) function ``μ(w)``::

    U(W) = Σ_y μ(W[:, y]).

That structure is what lets the compiler find global optima by vertex enumeration (DESIGN.md §3),
so every utility here exposes ``mu`` (vectorised over columns) besides ``value``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privopt.distribution import InputAlphabet, JointDistribution, _check_on
from privopt.errors import ShapeError, ValidationError
from privopt.information import entropy, mutual_information_mu, perspective
from privopt.mechanism import Mechanism
from privopt.tolerances import PROBABILITY_ATOL
from privopt.validation import FloatArray, check_probability_vector


def _input_distribution(
    p: JointDistribution | ArrayLike, argument: str, on: InputAlphabet = "x"
) -> FloatArray:
    if isinstance(p, JointDistribution):
        return p.marginal(_check_on(on))
    return check_probability_vector(p, argument)


def _columns(mechanism: Mechanism | ArrayLike) -> FloatArray:
    if isinstance(mechanism, Mechanism):
        return mechanism.matrix
    return Mechanism(np.asarray(mechanism, dtype=float)).matrix


class SubConvexUtility:
    """A utility ``U(W) = Σ_y μ(W[:, y])`` with ``μ`` sublinear.

    Parameters
    ----------
    mu:
        Function of a ``(|X|, m)`` array of columns returning the ``m`` values ``μ(w)``.
    input_size:
        Number of mechanism inputs it applies to (``None``: any).
    name:
        Used in reports.
    """

    def __init__(
        self, mu: Callable[[FloatArray], FloatArray], *, input_size: int | None = None, name: str = "custom"
    ) -> None:
        if not callable(mu):
            raise ValidationError("mu", "a callable of a (|X|, m) array of columns", type(mu).__name__)
        self._mu = mu
        self.input_size = input_size
        self.name = name

    def mu(self, columns: FloatArray) -> FloatArray:
        """``μ`` of each column of ``columns`` (shape ``(|X|, m)``); returns shape ``(m,)``."""
        return np.asarray(self._mu(columns), dtype=np.float64)

    def value(self, mechanism: Mechanism | ArrayLike) -> float:
        """``U(W) = Σ_y μ(W[:, y])``."""
        matrix = _columns(mechanism)
        if self.input_size is not None and matrix.shape[0] != self.input_size:
            raise ShapeError(
                "mechanism",
                f"{self.input_size} inputs to match the utility's distribution",
                f"{matrix.shape[0]}",
            )
        return float(np.sum(self.mu(matrix)))

    def __call__(self, mechanism: Mechanism | ArrayLike) -> float:
        return self.value(mechanism)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


class MutualInformation(SubConvexUtility):
    """``I_P(X;Y)`` in nats, with ``μ(w) = Σ_x P_x w_x log(w_x / Pᵀw)`` (Entropy paper eqs. 44–45).

    ``P`` is a distribution over the mechanism's inputs: a vector, or a
    :class:`~privopt.JointDistribution` with ``on="x"`` (its flat ``P_X``) or ``on="u"`` (``P_U``).
    """

    def __init__(self, P: JointDistribution | ArrayLike, on: InputAlphabet = "x") -> None:
        self.p = _input_distribution(P, "P", on)
        super().__init__(self._mi_mu, input_size=self.p.size, name="I(X;Y)")

    def _mi_mu(self, columns: FloatArray) -> FloatArray:
        return mutual_information_mu(self.p, columns)


class NormalizedMutualInformation(MutualInformation):
    """``I_P(X;Y) / H(X)``, the NMI of the Entropy paper's experiments (§8); needs ``H(X) > 0``."""

    def __init__(self, P: JointDistribution | ArrayLike, on: InputAlphabet = "x") -> None:
        super().__init__(P, on)
        self.h = entropy(self.p)
        if self.h <= PROBABILITY_ATOL:
            raise ValidationError(
                "P", "a distribution with positive entropy (NMI divides by H(X))", "H(X) = 0"
            )
        self.name = "I(X;Y)/H(X)"

    def _mi_mu(self, columns: FloatArray) -> FloatArray:
        return mutual_information_mu(self.p, columns) / self.h


_BUILTIN_F = ("kl", "tv", "chi2", "hellinger")


class FDivergence(SubConvexUtility):
    """``D_f(P0 W || P1 W)``: an f-divergence between the output distributions of two input priors.

    The utility of Kairouz et al. (2016) for hypothesis testing. ``μ(w) = (P1ᵀw) f(P0ᵀw / P1ᵀw)``,
    the perspective of ``f``, which is sublinear for convex ``f``.

    Parameters
    ----------
    f:
        ``"kl"``, ``"tv"`` (``½Σ|p−q|``), ``"chi2"`` (Pearson) or ``"hellinger"`` (squared,
        ``1 − Σ√(pq)``), or a convex callable with ``f(1) = 0`` that accepts arrays.
    P0, P1:
        Distributions over the mechanism's inputs.
    slope_at_infinity:
        ``lim f(t)/t`` as ``t → ∞``, needed for a user ``f`` when some output has ``P1ᵀw = 0 < P0ᵀw``
        (the perspective's value there is ``P0ᵀw · slope``). Use ``np.inf`` when ``f`` grows
        superlinearly.
    """

    def __init__(
        self,
        f: str | Callable[[FloatArray], FloatArray],
        P0: JointDistribution | ArrayLike,
        P1: JointDistribution | ArrayLike,
        *,
        slope_at_infinity: float | None = None,
    ) -> None:
        self.p0 = _input_distribution(P0, "P0")
        self.p1 = _input_distribution(P1, "P1")
        if self.p0.size != self.p1.size:
            raise ShapeError("P1", f"a distribution over {self.p0.size} symbols like P0", f"{self.p1.size}")
        if isinstance(f, str):
            if f not in _BUILTIN_F:
                raise ValidationError("f", f"one of {', '.join(_BUILTIN_F)} or a callable", repr(f))
            self.kind: str | None = f
            self.f: Callable[[FloatArray], FloatArray] | None = None
        else:
            if not callable(f):
                raise ValidationError("f", f"one of {', '.join(_BUILTIN_F)} or a callable", type(f).__name__)
            at_one = float(np.asarray(f(np.array([1.0])), dtype=float).reshape(-1)[0])
            if not abs(at_one) <= 1e-9:
                raise ValidationError("f", "a generator with f(1) = 0", f"f(1) = {at_one!r}")
            self.kind, self.f = None, f
        self.slope_at_infinity = slope_at_infinity
        super().__init__(self._f_mu, input_size=self.p0.size, name=f"D_{f if isinstance(f, str) else 'f'}")

    def _f_mu(self, columns: FloatArray) -> FloatArray:
        q0 = self.p0 @ columns
        q1 = self.p1 @ columns
        if self.kind is not None:
            return perspective(q0, q1, self.kind)
        return self._user_perspective(q0, q1)

    def _user_perspective(self, q0: FloatArray, q1: FloatArray) -> FloatArray:
        assert self.f is not None
        out = np.zeros(q0.shape)
        both = q1 > 0.0
        if np.any(both):
            out[both] = q1[both] * np.asarray(self.f(q0[both] / q1[both]), dtype=float)
        only_p0 = (~both) & (q0 > 0.0)
        if np.any(only_p0):
            if self.slope_at_infinity is None:
                raise ValidationError(
                    "slope_at_infinity",
                    "lim f(t)/t (t → ∞) for a user f, since some output has P1ᵀw = 0 < P0ᵀw",
                    "None",
                )
            out[only_p0] = q0[only_p0] * self.slope_at_infinity
        return out


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
