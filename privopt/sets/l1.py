"""ℓ1 balls of priors around an empirical distribution (PML paper §II-B, §III, eq. 31)."""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike

from privopt.data.distribution import JointDistribution, as_distribution
from privopt.errors import ValidationError
from privopt.sets.base import UncertaintySet
from privopt.sets.counterparts import CounterpartRule, L1TransformRule, RectangularRule, VertexRule
from privopt.sets.polytope import conditional_projection
from privopt.validation import FloatArray, check_real


def weissman_radius(n_symbols: int, m: int, delta: float) -> float:
    """``β*(δ) = sqrt(2/m · (log(2^N − 2) − log δ))`` (PML paper eq. 37, from Weissman et al.).

    The true distribution lies in the ℓ1 ball of this radius around the empirical one estimated from
    ``m`` samples with probability at least ``1 − δ`` (Theorem 2 with the distribution-free bound
    ``φ(κ) >= 2``).
    """
    delta = check_real(
        delta,
        "delta",
        low=0.0,
        high=1.0,
        open_low=True,
        open_high=True,
        expected="a failure probability in (0, 1)",
    )
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValidationError("n", "the number of samples (a positive integer)", repr(m))
    if n_symbols < 2:
        raise ValidationError("P", "a distribution over at least 2 symbols", f"{n_symbols}")
    log_subsets = n_symbols * np.log(2.0) + np.log1p(-(2.0 ** (1 - n_symbols)))  # log(2^N − 2)
    return float(np.sqrt(2.0 / m * (log_subsets - np.log(delta))))


#: The confidence of :meth:`L1Ball.confidence` when none is given: failure probability 10⁻⁶.
DEFAULT_L1_LEVEL = 1.0 - 1e-6


def _check_level(level: float) -> float:
    return check_real(
        level, "level", low=0.0, high=1.0, open_low=True, open_high=True,
        expected="a confidence level in (0, 1), e.g. 0.95 (1 − the failure probability)",
    )  # fmt: skip


def _check_failure(delta: float) -> float:
    return check_real(
        delta, "delta", low=0.0, high=1.0, open_low=True, open_high=True,
        expected="a failure probability in (0, 1)",
    )  # fmt: skip


def _deprecated_delta(where: str) -> None:
    warnings.warn(
        f"{where}: delta= (a failure probability) is deprecated; pass level=1 - delta, the confidence, "
        "as RenyiBall does",
        DeprecationWarning,
        stacklevel=3,
    )


class L1Ball(UncertaintySet):
    """``B_β(P̂) = {P : ||P − P̂||₁ <= β}`` (within the simplex), PML paper eq. (31).

    ``center`` is a distribution over the mechanism's input (a 1-D array, or a JointDistribution whose
    flat ``P_X`` is used). ``level``, when the ball is a confidence set (:meth:`confidence`), is its
    confidence ``1 − δ``, as for :class:`~privopt.RenyiBall`; ``delta=`` (the failure probability) is
    the deprecated spelling.
    """

    def __init__(
        self,
        center: JointDistribution | ArrayLike,
        radius: float,
        *,
        level: float | None = None,
        delta: float | None = None,
    ) -> None:
        self._center = as_distribution(center, "center")
        self._radius = check_real(radius, "radius", low=0.0, expected="an ℓ1 radius β >= 0")
        if delta is not None:
            _deprecated_delta("L1Ball")
            if level is not None:
                raise ValidationError("delta", "level= or the deprecated delta=, not both", repr(delta))
            level = 1.0 - _check_failure(delta)
        self._level = None if level is None else _check_level(level)

    @property
    def center(self) -> JointDistribution:
        return self._center

    @property
    def radius(self) -> float:
        return self._radius

    @property
    def level(self) -> float | None:
        """The confidence ``1 − δ`` of a confidence set (``None`` for a ball of a given radius)."""
        return self._level

    @property
    def delta(self) -> float | None:
        """Deprecated: the failure probability ``1 − level``."""
        warnings.warn("L1Ball.delta is deprecated; use 1 - L1Ball.level", DeprecationWarning, stacklevel=2)
        return None if self._level is None else 1.0 - self._level

    @classmethod
    def confidence(
        cls,
        P: JointDistribution | ArrayLike,
        n: int | None = None,
        delta: float | None = None,
        *,
        level: float = DEFAULT_L1_LEVEL,
    ) -> L1Ball:
        """The ball of radius ``β*(δ)`` (eq. 37) around ``P`` that holds the true distribution with
        probability ``level = 1 − δ``; ``n`` defaults to ``P``'s sample size. ``delta=`` is the
        deprecated spelling (the failure probability).

        The default ``1 − 10⁻⁶`` differs from :meth:`RenyiBall.confidence`'s 0.95 on purpose: ``δ`` is
        the probability that the PML guarantee fails (PML paper Theorem 2), kept as small as a
        differential-privacy δ (docs/concepts.md, "Sets of distributions"). A design over the ball
        needs ``β < 2 min P̂`` (:meth:`check_paper_condition`, checked when a ``Problem`` is made)."""
        P = as_distribution(P, "P")
        m = P.n if n is None else n
        if m is None:  # P has no sample size and no n was given
            raise ValidationError("n", "the number of samples (a positive integer)", repr(m))
        if delta is not None:
            _deprecated_delta("L1Ball.confidence")
            if level != DEFAULT_L1_LEVEL:
                raise ValidationError("delta", "level= or the deprecated delta=, not both", repr(delta))
            level = 1.0 - _check_failure(delta)
            radius = weissman_radius(P.n_x, m, delta)
        else:
            level = _check_level(level)
            radius = weissman_radius(P.n_x, m, 1.0 - level)
        return cls(P, radius, level=level)

    @property
    def shape(self) -> tuple[int, int]:
        return self.center.shape

    def reference(self) -> JointDistribution:
        return self.center

    def contains(self, P: JointDistribution | ArrayLike, atol: float = 1e-12) -> bool:
        return float(np.abs(as_distribution(P).p_x - self.center.p_x).sum()) <= self.radius + atol

    def check_paper_condition(self) -> None:
        """Raise unless ``β < 2 min_x P̂(x)`` (PML paper Prop. 2, Theorem 4, Theorem 5), saying what
        would meet it: for a confidence ball, the samples needed at its level and the level allowed at
        its sample size (eq. 37); else a smaller radius."""
        p_min = float(self.center.p_x.min())
        if self.radius < 2.0 * p_min:
            return
        raise ValidationError(
            "radius",
            f"β < 2·min P̂ = {2 * p_min:.6g} (PML paper Prop. 2: the ball must stay inside the simplex's "
            f"interior, or its ε′ transform and vertices do not hold); {self._remedy(p_min)}",
            f"β = {self.radius:.6g}",
        )

    def _remedy(self, p_min: float) -> str:
        """What meets ``β < 2 min P̂`` (:meth:`check_paper_condition`)."""
        if p_min <= 0.0:
            return "P̂ has a symbol of probability 0, so no ball around it meets it: merge or drop that symbol"
        if self._level is None or self.radius <= 0.0:
            return f"a radius below {2 * p_min:.6g}"
        # β*(δ)² = 2/m · (log(2^N − 2) − log δ) (eq. 37): the sample size behind this ball, the size that
        # meets the condition at its level, and the level that meets it at its size.
        log_subsets = self.n_x * np.log(2.0) + np.log1p(-(2.0 ** (1 - self.n_x)))
        budget = log_subsets - np.log1p(-self._level)
        m = round(2.0 * budget / self.radius**2)
        needed = int(np.floor(budget / (2.0 * p_min**2))) + 1
        level = np.floor(-np.expm1(log_subsets - 2.0 * m * p_min**2) * 1e4) / 1e4  # shown, and meeting it
        at_level = f"at least {needed:,} samples at level {self._level:g}"
        if level <= 0.0:
            return f"remedy: {at_level} (no confidence level meets it with the {m:,} samples of this ball)"
        return f"remedy: {at_level}, or a level of {level:g} or below with the {m:,} samples of this ball"

    def check_compilable(self) -> None:
        """:meth:`check_paper_condition`: every rule of the ball compiles only under it."""
        self.check_paper_condition()

    def vertices(self) -> FloatArray:
        """``P̂ + β/2 (e_j − e_i)`` for ``i != j``: the extreme points of the ball when ``β < 2 min P̂``."""
        self.check_paper_condition()
        p = self.center.p_x
        n = p.size
        if n == 1:  # one symbol: the centre is the only distribution (no pair i != j moves mass)
            return p[None, :].copy()
        i, j = np.nonzero(~np.eye(n, dtype=bool))
        out = np.tile(p, (i.size, 1))
        out[np.arange(i.size), j] += self.radius / 2.0
        out[np.arange(i.size), i] -= self.radius / 2.0
        return out

    def counterpart_rules(self) -> tuple[CounterpartRule, ...]:
        """Point masses against the output marginal: Prop. 2's ε′ transform; other pairs affine in the
        joint ``P``: the ball's vertices (both exact; compiling either needs ``β < 2 min P̂``, auditing
        the first does not); pairs of conditionals, and of conditionals against the joint ``P`` (LDP
        w.r.t. S, LIP): the rectangular rule over the projections of the vertices and the vertices
        themselves (sound, possibly conservative)."""
        return (L1TransformRule(self), VertexRule(self), RectangularRule(self, False, self))

    def conditional_envelope(self, s: int, envelope: str = "lower") -> FloatArray:
        """Vertices of the projection ``{P(·|s) : P ∈ ball}`` (``envelope`` is ignored: exact)."""
        return conditional_projection(self.vertices(), self.shape, s)

    def joint_envelope(self) -> tuple[JointDistribution, ...]:
        """The ball's own vertices (``D = F``)."""
        return self.vertex_distributions()

    def vertex_distributions(self) -> tuple[JointDistribution, ...]:
        """The vertices as distributions labelled like the set."""
        return self.labelled(self.vertices())

    def min_linear(self, columns: FloatArray) -> FloatArray:
        """``min_{Q ∈ ball ∩ simplex} Qᵀw`` for each column ``w`` (exact, any β).

        The minimiser (:meth:`minimizer`) moves up to ``β/2`` of mass from the coordinates with the
        largest ``w`` (each can give at most ``P̂(x)``) to a coordinate with the smallest ``w``.
        """
        return np.array([self.minimizer(columns[:, k]) @ columns[:, k] for k in range(columns.shape[1])])

    def minimizer(self, w: FloatArray) -> FloatArray:
        """A prior ``Q`` of the ball (within the simplex) that minimises ``Qᵀw`` (see :meth:`min_linear`)."""
        q = np.array(self.center.p_x, dtype=np.float64)
        budget = self.radius / 2.0
        low = int(np.argmin(w))
        for x in np.argsort(-w):
            if budget <= 0 or w[x] <= w[low]:
                break
            moved = min(budget, float(q[x]))
            q[x] -= moved
            q[low] += moved
            budget -= moved
        return q

    def __repr__(self) -> str:
        level = "" if self.level is None else f", level={self.level:.6g}"
        return f"L1Ball(|X|={self.n_x}, beta={self.radius:.4g}{level})"
