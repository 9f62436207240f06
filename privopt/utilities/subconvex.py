"""Utilities of a mechanism, in nats: mutual information and f-divergences.

All built-ins are *sub-convex* (Kairouz et al. 2016; PML paper eq. 11): a sum over the columns
``w = W[:, y]`` of a sublinear (convex and positively homogeneous) function ``μ(w)``::

    U(W) = Σ_y μ(W[:, y]).

That structure is what lets the compiler find global optima by vertex enumeration (docs/concepts.md, "Row cones"),
so every utility here exposes ``mu`` (vectorised over columns) besides ``value``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privopt.callables import call, describe, returned
from privopt.data.distribution import InputAlphabet, JointDistribution, _check_on
from privopt.data.information import entropy, mutual_information_mu, perspective
from privopt.data.labels import align_rows
from privopt.data.mechanism import Mechanism
from privopt.errors import ShapeError, ValidationError
from privopt.tolerances import PROBABILITY_ATOL
from privopt.validation import FloatArray, check_positive_int, check_probability_vector, check_real


def _input_distribution(
    p: JointDistribution | ArrayLike, argument: str, on: InputAlphabet = "x"
) -> FloatArray:
    if isinstance(p, JointDistribution):
        return p.marginal(_check_on(on))
    return check_probability_vector(p, argument)


def _given(P: JointDistribution | ArrayLike, p: FloatArray) -> JointDistribution | FloatArray:
    """The distribution a utility was given: a :class:`~privopt.JointDistribution`, or the checked
    vector ``p`` that stands for an array."""
    return P if isinstance(P, JointDistribution) else p


def _labels_of(P: JointDistribution | ArrayLike, on: InputAlphabet) -> tuple[Hashable, ...] | None:
    """The input labels of a labelled distribution (``None`` for a bare vector)."""
    return P.input_labels(_check_on(on)) if isinstance(P, JointDistribution) else None


def _columns(mechanism: Mechanism | ArrayLike) -> FloatArray:
    if isinstance(mechanism, Mechanism):
        return mechanism.matrix
    return Mechanism(np.asarray(mechanism, dtype=float)).matrix


@dataclass(frozen=True, eq=False)
class EntropyForm:
    """``μ(w) = scale · Σ_x p_x w_x log(w_x / pᵀw)``: mutual information (``scale = 1``) and NMI
    (``1/H(X)``), separable on the slice ``pᵀw = 1`` (Entropy paper eqs. 44–45)."""

    p: FloatArray
    scale: float


@dataclass(frozen=True, eq=False)
class PerspectiveForm:
    """``μ(w) = (bᵀw) f(aᵀw / bᵀw)`` for a convex ``f`` with ``f(1) = 0``: every f-divergence
    ``D_f(aᵀW || bᵀW)`` (Kairouz et al. 2016). ``kind`` names a built-in ``f`` (``None``: the user's);
    ``perspective(q0, q1)`` is ``q1 f(q0/q1)`` elementwise."""

    a: FloatArray
    b: FloatArray
    kind: str | None
    perspective: Callable[[FloatArray, FloatArray], FloatArray]


@dataclass(frozen=True, eq=False)
class PowerForm:
    """``μ(w) = (Σ_x c_x w_x^α)^{1/α}`` with ``α > 1``: a ``c``-weighted α-norm (Sibson's α-mutual
    information, after its increasing transform)."""

    c: FloatArray
    alpha: float


class SubConvexUtility:
    """A utility ``U(W) = g(Σ_y μ(W[:, y]))`` with ``μ`` sublinear and ``g`` increasing.

    The vertex route maximises ``Σ_y μ(w_y)`` exactly (docs/concepts.md, "Row cones"); an increasing ``g`` (default: the
    identity) does not change the maximiser. A user ``μ`` is checked numerically for positive
    homogeneity and convexity (:meth:`check`) before the vertex route relies on it.

    Parameters
    ----------
    mu:
        Function of a ``(|X|, m)`` array of columns returning the ``m`` values ``μ(w)``.
    input_size:
        Number of mechanism inputs it applies to (``None``: any).
    name:
        Used in reports.
    transform:
        The increasing ``g`` applied to ``Σ_y μ(w_y)`` to report the utility.
    """

    #: Built-ins are sublinear by proof; user functions are checked before use.
    proven_sublinear = False

    def __init__(
        self,
        mu: Callable[[FloatArray], FloatArray],
        *,
        input_size: int | None = None,
        name: str = "custom",
        transform: Callable[[float], float] | None = None,
    ) -> None:
        if not callable(mu):
            raise ValidationError("mu", "a callable of a (|X|, m) array of columns", type(mu).__name__)
        self._mu = mu
        #: ``μ`` as given (a user function is written out by its import path: po.save).
        self.mu_function = mu
        self.input_size = None if input_size is None else check_positive_int(input_size, "input_size")
        #: Labels of the inputs, when the utility is measured under a labelled distribution: a
        #: mechanism's rows are then matched to them by label (privopt.data.labels).
        self.input_labels: tuple[Hashable, ...] | None = None
        self.name = name
        self.transform = transform
        self._checked: set[int] = set()

    def mu(self, columns: FloatArray) -> FloatArray:
        """``μ`` of each column of ``columns`` (shape ``(|X|, m)``); returns shape ``(m,)``.

        A user ``μ`` that raises, or returns anything but ``m`` numbers (none of them NaN), is a
        :class:`~privopt.errors.ValidationError` naming it (:mod:`privopt.callables`).
        """
        columns = np.asarray(columns, dtype=np.float64)
        m = columns.shape[1]
        expected = f"a function of a (|X|, m) array of columns returning m numbers (here m = {m})"
        result = call(self._mu, "mu", expected, columns)
        try:
            values = np.asarray(result, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise returned(self._mu, "mu", expected, result) from exc
        if values.size != m:
            raise ShapeError(
                "mu", f"one value per column ({m})", f"{values.size} values from {describe(self._mu)}"
            )
        if np.any(np.isnan(values)):
            raise returned(self._mu, "mu", f"{expected}, none of them NaN", result)
        return values

    def linear_pieces(self) -> FloatArray | None:
        """Rows ``a_k`` with ``μ(w) = max_k a_kᵀw`` for every ``w >= 0``, when ``μ`` is piecewise linear
        (``None`` otherwise, the default). A declared piecewise-linear ``μ`` is priced exactly on every
        cone, one LP per piece (docs/compiler.md, "Piecewise-linear utilities");
        built-ins declare it where it holds (total variation)."""
        return None

    def entropy_form(self) -> EntropyForm | None:
        """The :class:`EntropyForm` of ``μ`` when it has one (mutual information, NMI), else ``None``:
        what the pricers and checker methods for it read instead of the utility's class."""
        return None

    def perspective_form(self) -> PerspectiveForm | None:
        """The :class:`PerspectiveForm` of ``μ`` when it is a perspective (f-divergences), else ``None``."""
        return None

    def power_form(self) -> PowerForm | None:
        """The :class:`PowerForm` of ``μ`` when it is a weighted α-norm (Sibson), else ``None``."""
        return None

    def value(self, mechanism: Mechanism | ArrayLike) -> float:
        """``U(W) = g(Σ_y μ(W[:, y]))`` (a mechanism's rows matched to the utility's inputs by label)."""
        return self.from_core(self.core(mechanism))

    def core(self, mechanism: Mechanism | ArrayLike) -> float:
        """``Σ_y μ(W[:, y])``, the sum the routes maximise (a mechanism's rows matched by label)."""
        matrix = _columns(mechanism)
        if self.input_size is not None and matrix.shape[0] != self.input_size:
            raise ShapeError(
                "mechanism",
                f"{self.input_size} inputs to match the utility's distribution",
                f"{matrix.shape[0]}",
            )
        if isinstance(mechanism, Mechanism) and self.input_labels is not None:
            matrix = align_rows(mechanism, self.input_labels).matrix
        return float(np.sum(self.mu(matrix)))

    def from_core(self, total: float) -> float:
        """The utility of a mechanism whose columns' ``Σ_y μ(w_y)`` is ``total`` (``g(total)``)."""
        if self.transform is None:
            return total
        expected = "an increasing function of a number returning a number"
        value = call(self.transform, "transform", expected, total)
        try:
            return float(value)
        except (TypeError, ValueError) as exc:
            raise returned(self.transform, "transform", expected, value) from exc

    def check(self, n_inputs: int, *, samples: int = 200, seed: int = 0, rtol: float = 1e-7) -> None:
        """Test ``μ`` for positive homogeneity and midpoint convexity at random columns (seeded).

        Raises :class:`~privopt.errors.ValidationError` naming the property that failed and where.
        Passing is evidence, not proof; built-in utilities are sublinear by proof and skip this.
        """
        if self.proven_sublinear or n_inputs in self._checked:
            return
        rng = np.random.default_rng(seed)
        v = rng.dirichlet(np.full(n_inputs, 0.5), size=samples).T * rng.uniform(0.1, 5.0, samples)
        w = rng.dirichlet(np.full(n_inputs, 0.5), size=samples).T * rng.uniform(0.1, 5.0, samples)
        v[:, : samples // 4] *= rng.random((n_inputs, samples // 4)) < 0.5  # some columns with zeros
        t = np.exp(rng.uniform(-3.0, 3.0, samples))
        mu_v, mu_w = self.mu(v), self.mu(w)
        mu_tv, mu_mid = self.mu(v * t), self.mu((v + w) / 2.0)
        for k in range(samples):
            if not np.all(np.isfinite([mu_v[k], mu_w[k], mu_tv[k], mu_mid[k]])):
                continue
            scaled = t[k] * mu_v[k]
            if abs(mu_tv[k] - scaled) > rtol * (1.0 + abs(scaled)):
                raise ValidationError(
                    "mu",
                    "a positively homogeneous function, μ(t·w) = t·μ(w) (sub-convex utilities are sublinear)",
                    f"μ(t·w) = {mu_tv[k]:.6g} but t·μ(w) = {scaled:.6g} at t = {t[k]:.4g}, w = {np.round(v[:, k], 4).tolist()}",
                )
            midpoint = (mu_v[k] + mu_w[k]) / 2.0
            if mu_mid[k] > midpoint + rtol * (1.0 + abs(midpoint)):
                raise ValidationError(
                    "mu",
                    "a convex function, μ((v+w)/2) <= (μ(v)+μ(w))/2 (sub-convex utilities are sublinear)",
                    f"μ((v+w)/2) = {mu_mid[k]:.6g} > {midpoint:.6g} at v = {np.round(v[:, k], 4).tolist()}, w = {np.round(w[:, k], 4).tolist()}",
                )
        self._checked.add(n_inputs)

    def __call__(self, mechanism: Mechanism | ArrayLike) -> float:
        return self.value(mechanism)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


class MutualInformation(SubConvexUtility):
    """``I_P(X;Y)`` in nats, with ``μ(w) = Σ_x P_x w_x log(w_x / Pᵀw)`` (Entropy paper eqs. 44–45).

    ``P`` is a distribution over the mechanism's inputs: a vector, or a
    :class:`~privopt.JointDistribution` with ``on="x"`` (its flat ``P_X``) or ``on="u"`` (``P_U``).
    """

    proven_sublinear = True

    def __init__(self, P: JointDistribution | ArrayLike, on: InputAlphabet = "x") -> None:
        self.p = _input_distribution(P, "P", on)
        super().__init__(self._mi_mu, input_size=self.p.size, name="I(X;Y)")
        self.input_labels = _labels_of(P, on)
        #: The distribution as given (kept so that the utility can be written out: po.save).
        self.distribution = _given(P, self.p)
        self.on: InputAlphabet = _check_on(on)

    def _mi_mu(self, columns: FloatArray) -> FloatArray:
        return mutual_information_mu(self.p, columns)

    def entropy_form(self) -> EntropyForm | None:
        return EntropyForm(self.p, 1.0)

    def gradient(self, column: FloatArray) -> FloatArray:
        """``∂μ/∂w_x = P_x log(w_x / Pᵀw)`` (entries at ``w_x = 0`` clipped to a large negative value)."""
        q = float(self.p @ column)
        return self.p * np.log(np.maximum(column, 1e-300) / max(q, 1e-300))


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

    def entropy_form(self) -> EntropyForm | None:
        return EntropyForm(self.p, 1.0 / self.h)

    def gradient(self, column: FloatArray) -> FloatArray:
        """The gradient of ``I`` divided by ``H(X)``."""
        return super().gradient(column) / self.h


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
        #: The distributions as given (kept so that the utility can be written out: po.save).
        self.distributions = (_given(P0, self.p0), _given(P1, self.p1))
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
            at_one = _f_values(f, np.array([1.0]))[0]
            if not abs(at_one) <= 1e-9:
                raise ValidationError("f", "a generator with f(1) = 0", f"f(1) = {at_one!r}")
            self.kind, self.f = None, f
        self.slope_at_infinity = slope_at_infinity
        super().__init__(self._f_mu, input_size=self.p0.size, name=f"D_{f if isinstance(f, str) else 'f'}")
        self.input_labels = _labels_of(P0, "x") or _labels_of(P1, "x")
        # The perspective of a convex f is sublinear; a user f's convexity is checked through μ.
        self.proven_sublinear = self.kind is not None

    def _f_mu(self, columns: FloatArray) -> FloatArray:
        return self.perspective(self.p0 @ columns, self.p1 @ columns)

    def perspective_form(self) -> PerspectiveForm | None:
        return PerspectiveForm(self.p0, self.p1, self.kind, self.perspective)

    def linear_pieces(self) -> FloatArray | None:
        """Total variation: ``μ(w) = ½|P0ᵀw − P1ᵀw| = max(±½(P0 − P1)ᵀw)``; other ``f``: ``None``."""
        if self.kind != "tv":
            return None
        half = 0.5 * (self.p0 - self.p1)
        return np.vstack([half, -half])

    def perspective(self, q0: FloatArray, q1: FloatArray) -> FloatArray:
        """``q1 · f(q0 / q1)`` elementwise (``μ`` of a column with ``P0ᵀw = q0``, ``P1ᵀw = q1``); ``f(t)`` is
        ``perspective(t, 1)``. Where ``q1 = 0 < q0`` it is ``q0 · lim f(t)/t`` (``slope_at_infinity``)."""
        q0 = np.asarray(q0, dtype=np.float64)
        q1 = np.asarray(q1, dtype=np.float64)
        if self.kind is not None:
            return np.asarray(perspective(q0, q1, self.kind), dtype=np.float64)
        return self._user_perspective(q0, q1)

    def _user_perspective(self, q0: FloatArray, q1: FloatArray) -> FloatArray:
        assert self.f is not None
        out = np.zeros(q0.shape)
        both = q1 > 0.0
        if np.any(both):
            out[both] = q1[both] * _f_values(self.f, q0[both] / q1[both])
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


def _f_values(f: Callable[[FloatArray], FloatArray], t: FloatArray) -> FloatArray:
    """A user f-divergence generator on the ratios ``t``: one number per ratio, or an error naming it."""
    expected = "a convex function of an array of ratios returning one number per ratio"
    result = call(f, "f", expected, t)
    try:
        values = np.asarray(result, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise returned(f, "f", expected, result) from exc
    if values.size != t.size:
        raise returned(f, "f", expected, result)
    return values


class SibsonMutualInformation(SubConvexUtility):
    """Sibson's α-mutual information, ``I_α(X;Y) = α/(α−1) · log Σ_y (Σ_x P_x W[x,y]^α)^{1/α}``, α > 1.

    It is not a sum over columns, but it is an increasing function ``g(t) = α/(α−1) log t`` of
    ``Σ_y μ(w_y)`` with ``μ(w) = (Σ_x P_x w_x^α)^{1/α}``, a P-weighted α-norm — sublinear for α >= 1 —
    so the vertex route maximises it exactly. For α < 1, ``μ`` is concave and ``g`` decreasing: the
    problem is the minimisation of a concave function, which neither route solves, so it is refused.
    ``α = 1`` is Shannon's mutual information (:class:`MutualInformation`).
    """

    proven_sublinear = True

    def __init__(self, P: JointDistribution | ArrayLike, alpha: float, on: InputAlphabet = "x") -> None:
        order = check_real(
            alpha,
            "alpha",
            low=1.0,
            open_low=True,
            expected="an order α > 1 (α = 1 is po.MutualInformation; for α < 1 the α-information is not "
            "sub-convex: maximising it means minimising a concave function)",
        )
        self.p = _input_distribution(P, "P", on)
        self.alpha = order
        self.distribution = _given(P, self.p)
        self.on: InputAlphabet = _check_on(on)
        super().__init__(
            self._norm_mu,
            input_size=self.p.size,
            name=f"I_{order:g}(X;Y) (Sibson)",
            transform=lambda total: order / (order - 1.0) * float(np.log(total)),
        )
        self.input_labels = _labels_of(P, on)

    def _norm_mu(self, columns: FloatArray) -> FloatArray:
        return (self.p @ np.power(columns, self.alpha)) ** (1.0 / self.alpha)

    def power_form(self) -> PowerForm | None:
        return PowerForm(self.p, self.alpha)
