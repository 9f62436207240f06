"""Audits over uncertainty sets the compiled cone does not describe exactly.

- **PML over an ℓ1 ball** is exact: the worst prior for output ``y`` minimises ``Qᵀw`` over the ball,
  a transport problem solved greedily (:meth:`~privopt.sets.L1Ball.min_linear`).
- **Ratio constraints under the rectangular rule over a Rényi ball or a polytope** (LDP w.r.t. S, or
  user pairs of conditionals given S) are reported as an interval ``[lower, upper]``:

  - *upper*: the exact worst case over the product of the conditional projections: each side's
    extreme ``max/min_{R ∈ F_{U|s}} Rᵀw_s`` is a convex program over a Rényi ball (Theorem 1), solved
    exactly from its KKT conditions (:mod:`privopt.sets.renyi_extremes`; cvxpy's power-cone
    formulation was off by up to 5e-3), or the best vertex of a polytope's projection. The product
    contains ``F``'s conditionals, so this bounds the true worst case from above.
  - *lower*: the ratio at distributions that lie in ``F`` itself — ``P̂`` and, for every extreme
    conditional found above, the closest distribution of ``F`` with that conditional (the
    construction behind Theorem 1) — refined by a local search (SLSQP with exact gradients) and
    re-checked to lie in ``F`` before it counts. For a polytope, its vertices.

``satisfied`` is decided on the upper end, so an interval audit is never optimistic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import minimize

from privopt.audit import AuditReport, Witness
from privopt.data.distribution import JointDistribution
from privopt.data.statistics import Statistic
from privopt.data.terms import PairLabel, Term
from privopt.sets.polytope import Polytope
from privopt.sets.renyi import RenyiBall, renyi_divergence
from privopt.tolerances import ZERO_ATOL

if TYPE_CHECKING:
    from privopt.data.mechanism import Mechanism
    from privopt.definitions.pml import PML
    from privopt.definitions.ratio_constraints import RatioConstraints, RatioPair

#: Local searches run from the best candidates of the lower bound.
_LOCAL_SEARCHES = 3
#: Outputs (largest upper ends first) whose extreme conditionals seed the lower bound's candidates.
_CANDIDATE_OUTPUTS = 4
#: Above this many inputs the lower bound uses the constructions only (SLSQP over |X| variables is slow);
#: the pass/fail verdict depends on the upper end and is unaffected.
_LOCAL_SEARCH_MAX_INPUTS = 64


def _log_ratio(num: float, den: float) -> float:
    if num <= ZERO_ATOL:
        return -np.inf
    if den <= ZERO_ATOL:
        return np.inf
    return float(np.log(num / den))


def audit_pml_over_l1_ball(definition: PML, mechanism: Mechanism, tolerance: float) -> AuditReport:
    """Exact ``sup_{Q ∈ ball} max_y ℓ_Q(X → y)`` (the ℓ1-local leakage capacity, PML paper eq. 23)."""
    ball = definition.uncertainty
    W = mechanism.matrix
    worst_prior = ball.min_linear(W)  # type: ignore[union-attr]
    top = W.max(axis=0)
    per_output = np.array([max(0.0, _log_ratio(t, m)) for t, m in zip(top, worst_prior, strict=True)])
    realized = float(per_output.max())
    y = int(np.argmax(per_output))
    x = int(np.argmax(W[:, y]))
    witness = None
    if top[y] > ZERO_ATOL:
        pair = PairLabel(
            Term("x", mechanism.input_labels[x]),
            Term("P", None, "worst prior in the ℓ1 ball"),
            None,
            "exact ℓ1-ball worst case",
        )  # type: ignore[index]
        witness = Witness(mechanism.output_labels[y], pair, realized)  # type: ignore[index]
    return AuditReport(
        str(definition), definition.eps, realized, realized, realized <= definition.eps + tolerance,
        witness, per_output, tolerance, "exact: worst prior of the ℓ1 ball per output",
    )  # fmt: skip


class _SideExtremes:
    """Per output ``y``, the extremes of ``R ↦ Rᵀw_s`` over each conditional projection ``F_{U|s}``."""

    def __init__(self, definition: RatioConstraints, mechanism: Mechanism) -> None:
        F = definition.uncertainty
        self.definition, self.W = definition, mechanism.matrix
        n_s = F.n_s  # type: ignore[union-attr]
        self.blocks = [self.W[definition._block(s)] if definition.on == "x" else self.W for s in range(n_s)]  # type: ignore[index]
        self.low = np.zeros((n_s, self.W.shape[1]))
        self.high = np.zeros_like(self.low)
        self.arg_low: dict[int, np.ndarray] = {}
        self.arg_high: dict[int, np.ndarray] = {}
        for s in range(n_s):
            if isinstance(F, RenyiBall):
                self.low[s], self.high[s], self.arg_low[s], self.arg_high[s] = F.projection_extremes(
                    s, self.blocks[s]
                )
            else:
                values = F.conditional_envelope(s) @ self.blocks[s]  # type: ignore[union-attr]
                self.low[s], self.high[s] = values.min(axis=0), values.max(axis=0)

    def side(self, statistic: Statistic, labels: tuple, high: bool) -> np.ndarray:  # type: ignore[type-arg]
        """The max (or min) over the set of one statistic, per output."""
        constant = statistic.constant_part(labels) @ self.W
        s = statistic.sensitive_value
        if s is None:
            return constant
        coefficient = sum(c for c, kind, _ in statistic.atoms if kind == "s")
        position = self.definition.s_position(s)
        return coefficient * (self.high if high else self.low)[position] + constant


def audit_rectangular(definition: RatioConstraints, mechanism: Mechanism, tolerance: float) -> AuditReport:
    """Interval audit of ratio constraints whose pairs fall under the rectangular rule (module docstring)."""
    F = definition.uncertainty
    labels = mechanism.input_labels
    pairs = definition.pairs_for(labels, _default_options())  # type: ignore[arg-type]
    extremes = _SideExtremes(definition, mechanism)
    n_out = mechanism.n_outputs
    upper_per_output = np.zeros(n_out)
    where: list[tuple[int, int, int] | None] = [None] * n_out  # (pair, left index, right index)
    for index, pair in enumerate(pairs):
        tops = np.vstack([extremes.side(st, labels, True) for st in pair.left])  # type: ignore[arg-type]
        bottoms = np.vstack([extremes.side(st, labels, False) for st in pair.right])  # type: ignore[arg-type]
        for y in range(n_out):
            i, j = int(np.argmax(tops[:, y])), int(np.argmin(bottoms[:, y]))
            value = _log_ratio(float(tops[i, y]), float(bottoms[j, y]))
            if value > upper_per_output[y]:
                upper_per_output[y], where[y] = value, (index, i, j)
    upper = float(upper_per_output.max()) if n_out else 0.0
    lower = min(_lower_bound(definition, mechanism, pairs, extremes, upper_per_output, where), upper)
    y = int(np.argmax(upper_per_output)) if n_out else 0
    witness = None
    if n_out and where[y] is not None:
        index, i, j = where[y]  # type: ignore[misc]
        left, right = pairs[index].left[i], pairs[index].right[j]
        pair_label = PairLabel(
            Term(left.term().kind, left.term().label, "its worst case over F"),
            Term(right.term().kind, right.term().label, "its worst case over F"),
            None,
            f"{pairs[index]} over the product of conditional projections",
        )
        witness = Witness(mechanism.output_labels[y], pair_label, upper)  # type: ignore[index]
    method = (
        "interval: upper = worst case over the product of the Rényi projections (exact KKT solutions)"
        if isinstance(F, RenyiBall)
        else "interval: upper = product of the conditional projections' vertices; lower = polytope vertices"
    )
    return AuditReport(
        str(definition),
        definition.eps,
        lower,
        upper,
        upper <= definition.eps + tolerance,
        witness,
        upper_per_output,
        tolerance,
        method,
    )


def _default_options():  # type: ignore[no-untyped-def]
    from privopt.compiler.cone import CompileOptions

    return CompileOptions()


# ---------------------------------------------------------------------- lower bound
def _side_value(
    statistic: Statistic, P: JointDistribution, labels: tuple, on: str, W: np.ndarray
) -> np.ndarray:  # type: ignore[type-arg]
    return statistic.vector(P, labels, on) @ W  # type: ignore[arg-type]


def _worst_at(
    definition: RatioConstraints, P: np.ndarray, pairs: tuple[RatioPair, ...], W: np.ndarray, labels: tuple
) -> tuple[float, tuple[int, int, int, int]]:  # type: ignore[type-arg]
    """``max`` over pairs, sides and outputs of the log-ratio at the distribution ``P`` (flat)."""
    F = definition.uncertainty
    reference = F.reference()  # type: ignore[union-attr]
    kwargs = {} if reference is None else {"s_labels": reference.s_labels, "u_labels": reference.u_labels}
    joint = JointDistribution(P.reshape(F.shape), **kwargs)  # type: ignore[union-attr]
    values: dict[Statistic, np.ndarray] = {}

    def side(statistic: Statistic) -> np.ndarray:
        if statistic not in values:  # a statistic shared by many pairs is evaluated once
            values[statistic] = _side_value(statistic, joint, labels, definition.on, W)
        return values[statistic]

    best, where = 0.0, (-1, -1, -1, -1)
    for index, pair in enumerate(pairs):
        for i, left in enumerate(pair.left):
            top = side(left)
            for j, right in enumerate(pair.right):
                with np.errstate(divide="ignore", invalid="ignore"):
                    ratios = np.where(top > ZERO_ATOL, np.log(top / np.maximum(side(right), 1e-300)), -np.inf)
                y = int(np.argmax(ratios))
                if ratios[y] > best:
                    best, where = float(ratios[y]), (index, i, j, y)
    return best, where


def _lower_bound(
    definition: RatioConstraints,
    mechanism: Mechanism,
    pairs: tuple[RatioPair, ...],
    extremes: _SideExtremes,
    upper_per_output: np.ndarray,
    where: list[tuple[int, int, int] | None],
) -> float:
    F = definition.uncertainty
    labels = mechanism.input_labels
    W = mechanism.matrix
    target = float(upper_per_output.max()) if upper_per_output.size else 0.0
    if isinstance(F, Polytope):
        return max(
            (
                _worst_at(definition, v, pairs, W, labels)[0]
                for v in F.vertices()
                if np.all(v.reshape(F.shape).sum(axis=1) > 0)
            ),  # type: ignore[arg-type]
            default=0.0,
        )
    assert isinstance(F, RenyiBall)
    # Candidates: P̂, and for the outputs with the largest upper ends, the distributions of F closest
    # to P̂ whose conditionals sit at the extremes that produced those upper ends.
    candidates = [F.center.p_x]
    for y in np.argsort(-upper_per_output)[:_CANDIDATE_OUTPUTS]:
        if where[y] is None:
            continue
        index, i, j = where[y]  # type: ignore[misc]
        for statistic, args in (
            (pairs[index].left[i], extremes.arg_high),
            (pairs[index].right[j], extremes.arg_low),
        ):
            s = statistic.sensitive_value
            if s is not None and definition.s_position(s) in args:
                candidates.append(
                    _closest_with_conditional(
                        F, definition.s_position(s), np.clip(args[definition.s_position(s)][y], 0.0, None)
                    )
                )
    scored = []
    for index, P in enumerate(candidates):
        if F.contains(P):
            value, found = _worst_at(definition, P, pairs, W, labels)  # type: ignore[arg-type]
            scored.append((value, index, found))
    scored.sort(key=lambda item: -item[0])
    best = scored[0][0] if scored else 0.0
    if F.n_x > _LOCAL_SEARCH_MAX_INPUTS:
        return best
    seen: set[tuple[int, int, int, int]] = set()
    for _, index, found in scored:
        if best >= target - 1e-9 or len(seen) >= _LOCAL_SEARCHES:
            break
        if found in seen or found[0] < 0:
            continue
        seen.add(found)
        pair_index, i, j, y = found
        pair = pairs[pair_index]
        refined = _local_search(definition, F, candidates[index], pair.left[i], pair.right[j], W[:, y])
        if refined is not None and F.contains(refined):
            best = max(best, _worst_at(definition, refined, pairs, W, labels)[0])  # type: ignore[arg-type]
    return best


def _closest_with_conditional(F: RenyiBall, s: int, R: np.ndarray) -> np.ndarray:
    """The distribution closest to ``P̂`` (in ``D_α``) whose conditional on ``s`` is ``R``.

    ``P(·, s) = x R`` and ``P(·, s') = (1 − x)/(1 − P̂_s) · P̂(·, s')`` elsewhere. Minimising
    ``D_α(P̂ || P)`` over ``x`` (Hölder) gives ``x = k / (k + 1 − P̂_s)`` with
    ``k = P̂_s e^{(α−1) D_α(P̂(·|s) || R) / α}`` (``k = P̂_s`` for α = 1), and then
    ``D_α(P̂ || P) = α/(α−1) · log(k + 1 − P̂_s)``, which is ``<= B`` exactly when ``R ∈ F_{U|s}``: the
    construction behind Theorem 1 (Lemmas A2 and A4). At the boundary ``x = (C^{1/α} − 1 + P̂_s)/C^{1/α}``
    and the other rows are scaled by ``C^{−1/α}``; the extracted text of Lemma A2 reads ``C^{1/α}``,
    which leaves the ball (verified numerically: the divergence exceeds B).
    """
    joint = F.center.probabilities.copy()
    alpha = F.order
    p_s = float(F.center.p_s[s])
    R = R / R.sum()
    if np.isclose(alpha, 1.0, rtol=0.0, atol=1e-12):
        x = p_s
    else:
        d = renyi_divergence(F.center.conditional_u_given_s()[s], R, alpha)
        k = p_s * np.exp((alpha - 1.0) * d / alpha)
        x = k / (k + 1.0 - p_s)
    if p_s < 1.0:
        joint *= (1.0 - x) / (1.0 - p_s)
    joint[s] = x * R
    return np.clip(joint.reshape(-1), 0.0, None) / joint.sum()


def _local_search(
    definition: RatioConstraints,
    F: RenyiBall,
    start: np.ndarray,
    left: Statistic,
    right: Statistic,
    w: np.ndarray,
) -> np.ndarray | None:
    """Maximise ``log left(P)ᵀw − log right(P)ᵀw`` over ``F`` from ``start`` (SLSQP, exact gradients).

    Each side is a constant plus a multiple of ``P(·|s)ᵀw_s``; the result only counts after the caller
    has checked that it lies in ``F``.
    """
    floor = 1e-12
    shape = F.shape
    labels = definition.input_labels()
    p_hat = F.center.p_x
    support = p_hat > 0
    alpha = F.order

    def side(statistic: Statistic, joint: np.ndarray) -> tuple[float, np.ndarray]:
        value = float(statistic.constant_part(labels) @ w)  # type: ignore[arg-type]
        grad = np.zeros(shape)
        s = statistic.sensitive_value
        if s is not None:
            c = sum(coef for coef, kind, _ in statistic.atoms if kind == "s")
            position = definition.s_position(s)
            block = w[definition._block(position)] if definition.on == "x" else w
            mass = joint[position].sum()
            conditional = float(joint[position] @ block) / mass
            value += c * conditional
            grad[position] = c * (block - conditional) / mass
        return value, grad.reshape(-1)

    def objective(p: np.ndarray) -> tuple[float, np.ndarray]:
        joint = p.reshape(shape)
        if np.any(joint.sum(axis=1) <= 0):
            return 1e6, np.zeros_like(p)
        top, g_top = side(left, joint)
        bottom, g_bottom = side(right, joint)
        if min(top, bottom) <= 0:
            return 1e6, np.zeros_like(p)
        return -(np.log(top) - np.log(bottom)), -(g_top / top - g_bottom / bottom)

    def slack(p: np.ndarray) -> float:
        return F.radius - renyi_divergence(p_hat, np.clip(p, floor, None), alpha)

    def slack_gradient(p: np.ndarray) -> np.ndarray:
        q = np.clip(p[support], floor, None)
        grad = np.zeros_like(p)
        if np.isclose(alpha, 1.0, rtol=0.0, atol=1e-12):
            grad[support] = p_hat[support] / q
        else:
            log_terms = alpha * np.log(p_hat[support]) + (1 - alpha) * np.log(q)
            grad[support] = np.exp(
                alpha * np.log(p_hat[support]) - alpha * np.log(q) - np.logaddexp.reduce(log_terms)
            )
        return grad

    constraints = [
        {"type": "eq", "fun": lambda p: np.sum(p) - 1.0, "jac": lambda p: np.ones_like(p)},
        {"type": "ineq", "fun": slack, "jac": slack_gradient},
    ]
    result = minimize(
        objective, np.clip(start, floor, None), jac=True, method="SLSQP", bounds=[(floor, 1.0)] * start.size,
        constraints=constraints, options={"maxiter": 100, "ftol": 1e-12},
    )  # fmt: skip
    candidate = np.clip(result.x, 0.0, None)
    total = candidate.sum()
    return candidate / total if total > 0 else None


def realized_eps(mechanism: Mechanism, definition: RatioConstraints, true_distribution) -> AuditReport:  # type: ignore[no-untyped-def]
    """The realized ε* of ``mechanism`` under the *true* distribution (Entropy paper §8.3, eq. 85):
    the same definition, audited at the single point ``P*`` instead of its uncertainty set."""
    from privopt.audit import audit
    from privopt.sets.finite import Point

    clone = object.__new__(type(definition))
    clone.__dict__.update(definition.__dict__)
    object.__setattr__(clone, "uncertainty", Point(true_distribution))
    return audit(mechanism, clone)
