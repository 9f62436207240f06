"""Unary encoding: optimised (OUE) and symmetric (SUE), privacy-funnel paper §VII-A (eqs. 30–32).

An input ``x ∈ {0, ..., k−1}`` is one-hot encoded and every bit is flipped independently:
``P(E_x = 1) = p`` for the true bit and ``P(E_x' = 1) = q`` for the others. The output is one of
``2^k`` bit vectors, labelled here by the integer bitmask ``y`` (bit ``x`` of ``y`` is ``E_x``).

- OUE (Wang et al.): ``p = 1/2``, ``q = 1/(e^α + 1)``.
- SUE (basic RAPPOR): ``p = e^{α/2}/(e^{α/2} + 1)``, ``q = 1/(e^{α/2} + 1)``.

Both are α-LDP. Because the output space has ``2^k`` symbols, the dense channel matrix has
``k·2^k`` entries; :func:`oue` refuses when that exceeds the memory budget. The functions
:func:`unary_mutual_information` and :func:`unary_lip` compute ``I(X;Y)`` and the LIP exactly without
the matrix, using that ``P(y|x)`` depends only on the Hamming weight ``|y|`` and on whether ``x ∈ y``:

    P(y|x) = A_w = p q^{w−1} (1−q)^{k−w}   if x ∈ y,
             B_w = (1−p) q^w (1−q)^{k−1−w} if x ∉ y,       w = |y|,

so ``P_Y(y) = B_w + (A_w − B_w)·m(y)`` with ``m(y) = Σ_{x∈y} P_x`` the prior mass of the subset.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import rel_entr

from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.data.mechanism import Mechanism
from privopt.errors import LimitError, ShapeError, ValidationError
from privopt.memory import current_limit
from privopt.validation import FloatArray, check_eps, check_positive_int, check_probability_vector


@dataclass(frozen=True)
class UnaryEncoding:
    """Bit-flip probabilities of a unary encoding on ``k`` symbols."""

    k: int
    p: float  # P(true bit reported as 1)
    q: float  # P(other bit reported as 1)
    name: str

    @property
    def lip_factor(self) -> float:
        """``c = p(1−q)/((1−p)q) − 1``: ``P(y|s)/P(y) = (1 + c·P(y|s)) / (1 + c·P(y))`` (eq. 32)."""
        return self.p * (1.0 - self.q) / ((1.0 - self.p) * self.q) - 1.0

    def log_weights(self) -> tuple[FloatArray, FloatArray]:
        """``log A_w`` and ``log B_w`` for ``w = 0..k`` (``-inf`` where the weight is impossible)."""
        w = np.arange(self.k + 1, dtype=float)
        with np.errstate(invalid="ignore"):
            log_a = np.log(self.p) + (w - 1) * np.log(self.q) + (self.k - w) * np.log1p(-self.q)
            log_b = np.log1p(-self.p) + w * np.log(self.q) + (self.k - 1 - w) * np.log1p(-self.q)
        log_a[0] = -np.inf  # x ∈ y is impossible for the empty set
        log_b[self.k] = -np.inf  # x ∉ y is impossible for the full set
        return log_a, log_b


def optimised_unary_encoding(k: int, eps: float) -> UnaryEncoding:
    """OUE's parameters: ``p = 1/2``, ``q = 1/(e^ε + 1)`` (privacy-funnel paper eq. 30)."""
    k, eps = check_positive_int(k, "k"), check_eps(eps)
    return UnaryEncoding(k, 0.5, 1.0 / (np.exp(eps) + 1.0), f"OUE(eps={eps:.4g})")


def symmetric_unary_encoding(k: int, eps: float) -> UnaryEncoding:
    """SUE's parameters: ``p = e^{ε/2}/(e^{ε/2} + 1)``, ``q = 1 − p``."""
    k, eps = check_positive_int(k, "k"), check_eps(eps)
    q = 1.0 / (np.exp(eps / 2.0) + 1.0)
    return UnaryEncoding(k, 1.0 - q, q, f"SUE(eps={eps:.4g})")


def _check_subsets_fit(k: int, bytes_per_subset: int, what: str, budget: int | None) -> None:
    """Refuse ``2^k`` subsets of ``bytes_per_subset`` bytes above ``budget`` (``None``: the memory limit
    in force, :func:`privopt.memory.current_limit`)."""
    budget = current_limit() if budget is None else check_positive_int(budget, "max_bytes")
    needed = bytes_per_subset * (2**k)
    if needed > budget:
        raise LimitError(
            f"{what} for k={k} needs 2^{k} = {2**k:,} outputs × {bytes_per_subset} bytes = "
            f"{needed / 2**30:.3g} GiB, above the memory budget of {budget / 2**30:.3g} GiB "
            "(raise max_bytes=, or use a mechanism with fewer outputs such as GRR)"
        )


def _subset_sums(values: FloatArray) -> FloatArray:
    """``Σ_{x ∈ y} values[..., x]`` for every bitmask ``y`` in ``0 .. 2^k − 1`` (last axis)."""
    k = values.shape[-1]
    out = np.zeros((*values.shape[:-1], 2**k))
    for bit in range(k):
        half = 2**bit
        out[..., half : 2 * half] = out[..., :half] + values[..., bit : bit + 1]
    return out


def _popcounts(k: int) -> np.ndarray:
    counts = np.zeros(2**k, dtype=np.int64)
    for bit in range(k):
        half = 2**bit
        counts[half : 2 * half] = counts[:half] + 1
    return counts


def unary_matrix(code: UnaryEncoding, max_bytes: int | None = None) -> FloatArray:
    """The dense ``k × 2^k`` channel matrix of a unary encoding (refused above ``max_bytes``)."""
    k = code.k
    _check_subsets_fit(k, 8 * k + 8, f"The {code.name} channel matrix", max_bytes)
    log_a, log_b = code.log_weights()
    weights = _popcounts(k)
    a_of_y, b_of_y = np.exp(log_a[weights]), np.exp(log_b[weights])
    y = np.arange(2**k)
    matrix = np.empty((k, 2**k))
    for x in range(k):
        matrix[x] = np.where((y >> x) & 1, a_of_y, b_of_y)
    return matrix


def _unary(code: UnaryEncoding, labels: Sequence[Hashable] | None, max_bytes: int | None) -> Mechanism:
    return Mechanism(unary_matrix(code, max_bytes), labels, None, name=code.name)


def oue(
    k: int, eps: float, labels: Sequence[Hashable] | None = None, *, max_bytes: int | None = None
) -> Mechanism:
    """Optimised unary encoding as a dense :class:`~privopt.Mechanism` (outputs: bitmasks ``0..2^k−1``).

    Raises :class:`~privopt.errors.LimitError` when the ``k × 2^k`` matrix exceeds ``max_bytes`` (default:
    the memory limit in force, :mod:`privopt.memory`);
    :func:`unary_mutual_information` and :func:`unary_lip` need no matrix.
    """
    return _unary(optimised_unary_encoding(k, eps), labels, max_bytes)


def sue(
    k: int, eps: float, labels: Sequence[Hashable] | None = None, *, max_bytes: int | None = None
) -> Mechanism:
    """Symmetric unary encoding (basic RAPPOR) as a dense mechanism; see :func:`oue`."""
    return _unary(symmetric_unary_encoding(k, eps), labels, max_bytes)


def unary_mutual_information(
    code: UnaryEncoding,
    P: JointDistribution | ArrayLike,
    on: InputAlphabet = "x",
    *,
    max_bytes: int | None = None,
) -> float:
    """Exact ``I(X;Y)`` of a unary encoding without its matrix, in ``O(2^k)`` time and ``24·2^k`` bytes.

    ``I = Σ_y [m(y)·A_w log(A_w/P(y)) + (1 − m(y))·B_w log(B_w/P(y))]`` with ``m(y) = Σ_{x∈y} P_x``,
    ``w = |y|`` and ``P(y) = m A_w + (1 − m) B_w`` (module docstring).
    """
    p = P.marginal(on) if isinstance(P, JointDistribution) else check_probability_vector(P, "P")
    if p.size != code.k:
        raise ShapeError("P", f"a distribution over the encoding's {code.k} symbols", f"{p.size}")
    _check_subsets_fit(code.k, 24, f"The exact mutual information of {code.name}", max_bytes)
    log_a, log_b = code.log_weights()
    weights = _popcounts(code.k)
    a, b = np.exp(log_a)[weights], np.exp(log_b)[weights]
    mass = _subset_sums(p)
    p_y = mass * a + (1.0 - mass) * b
    return float(np.sum(mass * rel_entr(a, p_y) + (1.0 - mass) * rel_entr(b, p_y)))


def unary_lip(code: UnaryEncoding, P: JointDistribution, on: InputAlphabet = "x") -> float:
    """Exact LIP of a unary encoding w.r.t. ``S`` (privacy-funnel paper eq. 32), in ``O(|S| k log k)``.

    ``LIP = max_{s, y ⊆ X} |log((1 + c·P(y|s)) / (1 + c·P(y)))|`` with ``c`` the encoding's
    :attr:`~UnaryEncoding.lip_factor`. For fixed ``s`` the ratio is linear-fractional in the subset
    indicator ``z``; by Dinkelbach's argument its maximum over ``{0,1}^k`` is attained at
    ``z = {x : P(x|s) > λ* P(x)}``, a prefix of the inputs sorted by ``P(x|s)/P(x)`` (and the
    minimum at a prefix of the reverse order), so checking the ``k + 1`` prefixes each way is exact.
    """
    if not isinstance(P, JointDistribution):
        raise ValidationError(
            "P", "a JointDistribution (LIP needs the sensitive attribute)", type(P).__name__
        )
    conditional = P.conditional(on)
    marginal = P.marginal(on)
    if marginal.size != code.k:
        raise ShapeError("P", f"{code.k} mechanism inputs (on={on!r})", f"{marginal.size}")
    c = code.lip_factor
    worst = 0.0
    for row in conditional:
        order = np.argsort(np.arctan2(row, marginal))[::-1]  # decreasing P(x|s)/P(x); P(x)=0 first
        for sequence in (order, order[::-1]):
            num = 1.0 + c * np.concatenate(([0.0], np.cumsum(row[sequence])))
            den = 1.0 + c * np.concatenate(([0.0], np.cumsum(marginal[sequence])))
            worst = max(worst, float(np.max(np.abs(np.log(num / den)))))
    return worst
