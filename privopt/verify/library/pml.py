"""Claims of the PML paper (pml-empirical-distributions): Theorem 5 and its proof, Remark 3,
Proposition 2 and eq. (43), Proposition 3, Theorem 4."""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.optimize import linprog

from privopt.tolerances import VERIFY_FLOAT_RTOL
from privopt.verify.claims import Claim
from privopt.verify.library.common import (
    close,
    library_check,
    optional,
    random_distribution,
    relative,
    syms,
)
from privopt.verify.region import Param, Point, Region
from privopt.verify.statements import (
    AllOf,
    Discrepancy,
    Identity,
    Inequality,
    Numerical,
    Optimality,
    UtilitySpec,
    column_constraints,
)

PML = "PML paper"

p1, beta, eps = syms("p1 beta eps")
E = sp.exp(eps)
p2 = 1 - p1
#: The extreme points of the binary ℓ1 ball (proof of Theorem 5, Appendix C).
PI1 = (p1 + beta / 2, p2 - beta / 2)
PI2 = (p1 - beta / 2, p2 + beta / 2)


def theorem5_matrix() -> sp.Matrix:
    """Eq. (41): the binary robust-PML mechanism, rows ``x1, x2`` with ``p1 = P̂(x1) >= p2``."""
    return sp.Matrix(
        [
            [E * (1 - p1 + beta / 2), 1 - E * (1 - p1 - beta / 2)],
            [1 - E * (p1 - beta / 2), E * (p1 + beta / 2)],
        ]
    ) / (1 + beta * E)


def theorem5_region() -> Region:
    """``1/2 <= p1 < 1``, ``0 < β < 2 p2``, ``0 <= ε <= −log(p1 − β/2)`` (Theorem 5)."""
    return Region(
        (
            Param("p1", sp.Rational(1, 2), 1, upper_open=True),
            Param("beta", 0, 2 * (1 - p1), lower_open=True, upper_open=True),
            Param("eps", 0, -sp.log(p1 - beta / 2), exp_symbol="E"),
        )
    )


def _pml_at_extreme_points(matrix: sp.Matrix) -> AllOf:
    """``matrix`` is a mechanism with ``w[x] <= e^ε π(k)ᵀw`` at both extreme points, tight where
    Appendix C says: (89) at ``π(2)`` for column 1 and (90) at ``π(1)`` for column 2."""
    pairs = [
        (f"PML at π({k}), x{x + 1}", [int(i == x) for i in range(2)], list(pi))
        for k, pi in ((1, PI1), (2, PI2))
        for x in range(2)
    ]
    return column_constraints(matrix, pairs, E, tight=[("PML at π(2), x1", 0), ("PML at π(1), x2", 1)])


def _theorem5_cone() -> sp.Matrix:
    """Rows ``e_x − e^ε π(k)`` for ``x ∈ {1, 2}``, ``k ∈ {1, 2}``: ε-PML at both extreme points, which
    by Corollary 1 (PML is convex in the prior) is ε-PML on the whole ball."""
    rows = []
    for pi in (PI1, PI2):
        for x in range(2):
            rows.append([int(i == x) - E * pi[i] for i in range(2)])
    return sp.Matrix(rows)


def _float_point(region: Region, rng: np.random.Generator) -> dict[str, float]:
    return region.sample(rng, 1)[0].floats()


def _theorem5_library(region: Region):
    from privopt.audit import audit
    from privopt.data.mechanism import Mechanism
    from privopt.definitions import PML
    from privopt.sets import L1Ball

    def audited(rng: np.random.Generator) -> Discrepancy:
        x = _float_point(region, rng)
        W = np.array(
            theorem5_matrix().subs({p1: x["p1"], beta: x["beta"], eps: x["eps"]}).evalf(30).tolist(),
            dtype=float,
        )
        report = audit(
            Mechanism(np.clip(W, 0, None)), PML(x["eps"], L1Ball([x["p1"], 1 - x["p1"]], x["beta"]))
        )
        return close(report.eps, x["eps"], "realized PML over the ℓ1 ball (audit) vs ε")

    def closed_form(rng: np.random.Generator) -> Discrepancy:
        function = optional("privopt.mechanisms.pml_binary", "binary_pml_mechanism")
        x = _float_point(region, rng)
        W = np.array(
            theorem5_matrix().subs({p1: x["p1"], beta: x["beta"], eps: x["eps"]}).evalf(30).tolist(),
            dtype=float,
        )
        got = np.asarray(function(x["p1"], x["beta"], x["eps"]).matrix)
        return Discrepancy(
            float(np.max(np.abs(got - W))),
            VERIFY_FLOAT_RTOL,
            f"binary_pml_mechanism vs eq. (41): max |Δ| = {np.max(np.abs(got - W)):.3g}",
        )

    return library_check(
        ("audit of eq. (41) over the ℓ1 ball", audited),
        ("privopt.mechanisms.pml_binary.binary_pml_mechanism", closed_form),
    )


def theorem5_claims() -> list[Claim]:
    region = theorem5_region()
    W = theorem5_matrix()
    p11, p21 = W[0, 0], W[1, 0]
    source = f"{PML} Theorem 5, eq. (41)"
    variant = W.copy()
    variant[0, 0] = E * (1 - p1 - beta / 2) / (1 + beta * E)

    def compare(x: dict[str, float]):
        from privopt.definitions import PML
        from privopt.sets import L1Ball
        from privopt.utilities import MutualInformation

        prior = [x["p1"], 1 - x["p1"]]
        return PML(x["eps"], L1Ball(prior, x["beta"])), MutualInformation(prior)

    eq92 = (1 - E) * E * PI2[1] / (1 - E * (PI1[1] + PI2[0] - E * (PI2[0] * PI1[1] - PI1[0] * PI2[1])))
    return [
        Claim(
            "pml.thm5.pml",
            source,
            _pml_at_extreme_points(W),
            region,
            description="Eq. (41) is a mechanism (rows sum to 1, entries >= 0) and its PML at both extreme points "
            "of the ball is <= ε, with equality (= ε) for column 1 at π(2) and column 2 at π(1).",
            library=_theorem5_library(region),
        ),
        Claim(
            "pml.thm5.optimal",
            source,
            Optimality(W, _theorem5_cone(), UtilitySpec("any"), compare=compare),
            region,
            description="Eq. (41) maximises every sub-convex utility among mechanisms that are ε-PML for every "
            "prior in the ℓ1 ball (cone: ε-PML at the two extreme points, Corollary 1).",
            points=20,
        ),
        Claim(
            "pml.thm5.eq91",
            f"{PML} Appendix C, eq. (91)",
            Identity(p21, (1 - E * PI2[0]) / (E * PI2[1]) * p11),
            region,
            description="The relation (91) between p21 and p11 holds for the entries of eq. (41).",
        ),
        Claim(
            "pml.thm5.eq91_reference_as_printed",
            f"{PML} Appendix C, text before eq. (91)",
            Identity(1 - p21, E * ((1 - p11) * PI2[0] + (1 - p21) * PI2[1])),
            region,
            expect="fails",
            description="The text says (91) comes from substituting π(2) into (90) with equality; (90) is not tight "
            "at π(2) for eq. (41).",
            note="(91) is (89) with equality at π(2) (proved in pml.thm5.pml); the reference '(90)' is a misprint "
            "for '(89)'.",
        ),
        Claim(
            "pml.thm5.eq92",
            f"{PML} Appendix C, eq. (92)",
            Identity(eq92, p11),
            region,
            description="Eq. (92), p11 in terms of the extreme points, simplifies to the (1,1) entry of eq. (41).",
        ),
        Claim(
            "pml.thm5.eq93_as_printed",
            f"{PML} Appendix C, eq. (93)",
            Identity(E * (1 - p1 - beta / 2) / (1 + beta * E), p11),
            region,
            expect="fails",
            description="Eq. (93) as printed, p11 = e^ε(1 − p − β/2)/(1 + βe^ε), against eq. (41)'s (1,1) entry.",
            note="(93) has −β/2 where (92) simplifies to +β/2 (pml.thm5.eq92) and eq. (41) has +β/2; (94) "
            "agrees with (41). The LaTeX source reads 1-p-\\nicefrac{\\beta}{2}, so this is a misprint in (93), "
            "not extraction damage.",
        ),
        Claim(
            "pml.thm5.eq94",
            f"{PML} Appendix C, eq. (94)",
            Identity(1 - E * (p1 + beta / 2) / (1 + beta * E), p21),
            region,
            description="Eq. (94) equals the (2,1) entry of eq. (41).",
        ),
        Claim(
            "pml.thm5.eq93_in_eq41",
            f"{PML} eq. (41) with the (1,1) entry of eq. (93)",
            _pml_at_extreme_points(variant),
            region,
            expect="fails",
            description="A wrong variant of eq. (41): the sign of β/2 in the (1,1) entry flipped (what eq. (93) gives).",
            note="Falsified: its first row no longer sums to 1.",
        ),
    ]


def remark3_claims() -> list[Claim]:
    region = Region((Param("eps", 0, None, exp_symbol="E"),))
    at_half = theorem5_matrix().subs(p1, sp.Rational(1, 2))
    limit = sp.Matrix(2, 2, lambda i, j: sp.Limit(at_half[i, j], beta, 1, "-"))
    rr = sp.Matrix([[E, 1], [1, E]]) / (1 + E)

    def library(rng: np.random.Generator) -> Discrepancy:
        from privopt import mechanisms

        function = optional("privopt.mechanisms.pml_binary", "binary_pml_mechanism")
        e = float(rng.uniform(0.0, 5.0))
        got = np.asarray(function(0.5, 1.0 - 1e-12, e).matrix)
        want = mechanisms.randomized_response(e).matrix
        return Discrepancy(
            float(np.max(np.abs(got - want))),
            1e-9,
            f"binary_pml_mechanism(0.5, 1−1e-12, ε) vs RR: max |Δ| = {np.max(np.abs(got - want)):.3g}",
        )

    return [
        Claim(
            "pml.remark3",
            f"{PML} Remark 3, eq. (42)",
            Identity(limit, rr),
            region,
            description="As β → 1 with p1 = 1/2 (the ball becomes the whole simplex) eq. (41) tends to Warner's "
            "randomized response (42).",
            note="β = 1 = 2p2 is the boundary of Theorem 5's condition β < 2p2, so the statement is a limit.",
            library=library_check(
                ("binary_pml_mechanism near β = 1 vs mechanisms.randomized_response", library)
            ),
        )
    ]


def _ball_minimum(p: np.ndarray, beta_: float, w: np.ndarray) -> float:
    """``min_{Q ∈ simplex, ||Q − p||₁ <= β} Qᵀw`` by an LP (variables Q and t >= |Q − p|)."""
    n = p.size
    eye = np.eye(n)
    a_ub = np.vstack(
        [np.hstack([eye, -eye]), np.hstack([-eye, -eye]), np.hstack([np.zeros(n), np.ones(n)])[None, :]]
    )
    b_ub = np.concatenate([p, -p, [beta_]])
    a_eq = np.hstack([np.ones(n), np.zeros(n)])[None, :]
    result = linprog(
        np.concatenate([w, np.zeros(n)]),
        A_ub=a_ub,
        b_ub=b_ub,
        A_eq=a_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * (2 * n),
        method="highs",
    )
    if result.status != 0:
        raise RuntimeError(f"LP over the ℓ1 ball failed: {result.message}")
    return float(result.fun)


def _random_mechanism(rng: np.random.Generator, n: int) -> np.ndarray:
    """A random channel on ``n`` inputs, with zero entries half of the time (higher privacy regions),
    mixed with the constant channel half of the time (lower leakage)."""
    m = int(rng.integers(2, n + 2))
    W = rng.dirichlet(np.full(m, 0.7), size=n)
    if rng.random() < 0.5:
        W[rng.random(W.shape) < 0.35] = 0.0
        W[W.sum(axis=1) == 0, 0] = 1.0
    W = W / W.sum(axis=1, keepdims=True)
    if rng.random() < 0.5:
        mix = rng.random()
        W = (1 - mix) * W + mix * W.mean(axis=0, keepdims=True)
    return W[:, W.sum(axis=0) > 0]


def _pml_over_ball(W: np.ndarray, p: np.ndarray, beta_: float) -> float:
    """``sup_{Q ∈ ball} ε_min(W, Q)`` through the LP minimum of each column (an independent route)."""
    return max(float(np.log(W[:, y].max() / _ball_minimum(p, beta_, W[:, y]))) for y in range(W.shape[1]))


def _pml_at(W: np.ndarray, p: np.ndarray) -> float:
    p_y = p @ W
    return max(0.0, float(np.max(np.log(W.max(axis=0) / p_y))))


def prop2_claims() -> list[Claim]:
    S, M, m = syms("S M m")
    E_prime = E / (1 + beta * E / 2)
    region = Region(
        (
            Param("m", 0, 1),
            Param("M", m, 1),
            Param("S", m, M),
            Param("beta", 0, 2, lower_open=True, upper_open=True),
            Param("eps", 0, None, exp_symbol="E"),
        )
    )
    sample_region = Region(
        (Param("n", 2, 5, integer=True), Param("r", 0, 1, lower_open=True, upper_open=True))
    )

    def exact(point: Point, rng: np.random.Generator) -> Discrepancy:
        n = int(point.working["n"])
        p = random_distribution(rng, n, alpha=1.0, floor=0.02)
        beta_ = float(point.working["r"]) * 2 * p.min()
        W = _random_mechanism(rng, n)
        true = _pml_over_ball(W, p, beta_)
        e_prime = max(W[:, y].max() / (p @ W[:, y] + beta_ / 2 * W[:, y].min()) for y in range(W.shape[1]))
        via_prop2 = float(np.log(e_prime / (1 - beta_ * e_prime / 2)))
        return close(
            via_prop2,
            true,
            f"ε from the Prop. 2 cone vs LP worst case over the ball (P̂ = {np.round(p, 4).tolist()}, β = {beta_:.4g})",
        )

    def audited(rng: np.random.Generator) -> Discrepancy:
        from privopt.audit import audit
        from privopt.data.mechanism import Mechanism
        from privopt.definitions import PML
        from privopt.sets import L1Ball

        n = int(rng.integers(2, 6))
        p = random_distribution(rng, n, floor=0.02)
        beta_ = float(rng.uniform(0, 2 * p.min()))
        W = _random_mechanism(rng, n)
        report = audit(Mechanism(W), PML(0.0, L1Ball(p, beta_)))
        return close(report.eps, _pml_over_ball(W, p, beta_), "audit over the ℓ1 ball vs LP worst case")

    def shift(rng: np.random.Generator) -> Discrepancy:
        from privopt.sets.counterparts import pml_shift

        e, b = float(rng.uniform(0, 6)), float(rng.uniform(0, 2))
        want = float(np.log(np.exp(e) / (1 + b * np.exp(e) / 2))) - e
        return close(pml_shift(e, b), want, "pml_shift(ε, β) vs eq. (43) ε′ − ε")

    return [
        Claim(
            "pml.prop2.rearrangement",
            f"{PML} Proposition 2, eq. (43); Appendix D eqs. (97)–(98)",
            Identity(
                E * (S - beta / 2 * (M - m)) - M, (1 + beta * E / 2) * (E_prime * (S + beta / 2 * m) - M)
            ),
            region,
            description="With e^ε′ = e^ε/(1 + βe^ε/2) (43): e^ε(P̂ᵀw − β/2(max w − min w)) − max w = "
            "(1 + βe^ε/2)(e^ε′(P̂ᵀw + β/2·min w) − max w), so the worst case over the ball (97) is <= ε iff the "
            "Prop. 2 constraints hold at ε′ (the factor is positive).",
            library=library_check(("privopt.sets.counterparts.pml_shift", shift)),
        ),
        Claim(
            "pml.prop2.exact",
            f"{PML} Proposition 2",
            Numerical(exact),
            sample_region,
            description="For β < 2 min P̂ the Prop. 2 constraints at ε′ describe ε-PML over the ℓ1 ball exactly: "
            "the ε they give equals the worst case over the ball computed by an LP.",
            points=40,
            library=library_check(("audit(W, PML(ε, L1Ball))", audited)),
        ),
    ]


def _laplace_sup(q: float, b: float) -> float:
    """``sup_y ℓ(X → y)`` of ``Y = X + Laplace(b)``, ``P(X = 1) = q``, on a grid (mpmath, 50 digits)."""
    import mpmath

    with mpmath.workdps(50):
        q_, b_ = mpmath.mpf(q), mpmath.mpf(b)
        best = mpmath.mpf(0)
        for y in mpmath.linspace(-4, 4, 801):
            f_plus = mpmath.exp(-abs(y - 1) / b_)
            f_minus = mpmath.exp(-abs(y + 1) / b_)
            best = max(best, mpmath.log(max(f_plus, f_minus) / (q_ * f_plus + (1 - q_) * f_minus)))
        return float(best)


def prop3_claims() -> list[Claim]:
    q, b, y = syms("q b y")
    eq49 = 2 / b - sp.log(sp.exp(2 / b) * q + 1 - q)
    tail = sp.log(sp.exp(-(y - 1) / b) / (q * sp.exp(-(y - 1) / b) + (1 - q) * sp.exp(-(y + 1) / b)))
    region = Region(
        (
            Param("q", 0, sp.Rational(1, 2), lower_open=True),
            Param("b", 0, None, lower_open=True),
            Param("y", 1, None, lower_open=True),
        )
    )
    grid_region = Region(
        (Param("q", 0, 1, lower_open=True, upper_open=True), Param("b", sp.Rational(1, 20), 20))
    )

    def sup(point: Point, rng: np.random.Generator) -> Discrepancy:
        qq, bb = float(point.working["q"]), float(point.working["b"])
        p_min = min(qq, 1 - qq)
        want = 2 / bb - float(np.log(np.exp(2 / bb) * p_min + 1 - p_min))
        return Discrepancy(
            relative(_laplace_sup(qq, bb), want),
            1e-12,
            f"sup_y ℓ(X→y) = {_laplace_sup(qq, bb):.15g} vs eq. (49) {want:.15g}",
        )

    def library(rng: np.random.Generator) -> Discrepancy:
        laplace_pml = optional("privopt.mechanisms.additive_noise", "laplace_pml")
        qq, bb = float(rng.uniform(0.01, 0.99)), float(rng.uniform(0.05, 20))
        p_min = min(qq, 1 - qq)
        want = 2 / bb - float(np.log(np.exp(2 / bb) * p_min + 1 - p_min))
        return close(
            float(laplace_pml(bb, [1 - qq, qq])),
            want,
            "privopt.mechanisms.additive_noise.laplace_pml vs eq. (49)",
        )

    return [
        Claim(
            "pml.prop3.tail",
            f"{PML} Proposition 3, eq. (49); Appendix E eq. (104)",
            Identity(tail, eq49),
            region,
            description="For y > 1, with the less likely input p_min = P(X = 1) next to y, the leakage of the binary "
            "Laplace mechanism equals eq. (49) (independent of y).",
        ),
        Claim(
            "pml.prop3.laplace",
            f"{PML} Proposition 3, eq. (49)",
            Numerical(sup),
            grid_region,
            description="ε_min of Y = X + Laplace(b), X ∈ {−1, 1}, is 2/b − log(e^{2/b} p_min + 1 − p_min): the "
            "supremum of the leakage over a grid of outputs (50-digit arithmetic) equals eq. (49).",
            points=15,
            library=library_check(("privopt.mechanisms.additive_noise.laplace_pml", library)),
        ),
        Claim(
            "pml.remark4",
            f"{PML} Remark 4, eqs. (50)–(51)",
            Identity(
                (2 / b - sp.log((q - beta / 2) * (sp.exp(2 / b) - 1) + 1)).subs(
                    {q: sp.Rational(1, 2), beta: 1}
                ),
                2 / b,
            ),
            Region((Param("b", 0, None, lower_open=True),)),
            description="With p̂_min = 1/2 and β*(δ) = 1, eq. (50) gives ε(b, δ) = 2/b, the LDP level of the binary "
            "Laplace mechanism.",
        ),
    ]


def _privacy_region(eps_: float, p: np.ndarray) -> int:
    """The PML privacy region k of ε for prior ``p`` (Definition 4): ε ∈ [ε_{k−1}, ε_k)."""
    ordered = np.sort(p)[::-1]
    n = p.size
    for k in range(1, n):
        if eps_ < -np.log(ordered[: n - k].sum()):
            return k
    return n


def theorem4_claims() -> list[Claim]:
    sample_region = Region(
        (Param("n", 2, 5, integer=True), Param("r", 0, 1, lower_open=True, upper_open=True))
    )

    def bound(point: Point, rng: np.random.Generator) -> Discrepancy:
        n = int(point.working["n"])
        p = random_distribution(rng, n, alpha=1.0, floor=0.02)
        beta_ = float(point.working["r"]) * 2 * p.min()
        W = _random_mechanism(rng, n)
        while _pml_at(W, p) >= -np.log(p.max()):  # beyond the last privacy region (Definition 4)
            W = 0.5 * W + 0.5 * W.mean(axis=0, keepdims=True)
        eps_ = _pml_at(W, p)
        k = _privacy_region(eps_, p)
        limit = (
            -np.log(1 - beta_ / 2 * (np.exp(eps_) - 1) / p.min())
            if k == 1
            else -np.log(1 - beta_ * np.exp(eps_) / 2)
        )
        sensitivity = _pml_over_ball(W, p, beta_) - eps_
        return Discrepancy(
            max(0.0, (sensitivity - limit) / max(1.0, limit)),
            VERIFY_FLOAT_RTOL,
            f"sensitivity {sensitivity:.10g} vs bound (32) {limit:.10g} (region k = {k}, P = {np.round(p, 4).tolist()}, β = {beta_:.4g})",
        )

    # Equality for k = 1: the extremal mechanism of eq. (41) at β = 0, on a ball of radius β.
    W0 = theorem5_matrix().subs(beta, 0)
    bound1 = -sp.log(1 - beta / 2 * (E - 1) / p2)
    parts: dict[str, Identity | Inequality] = {
        "column 1 peaks at x1": Inequality(W0[1, 0], W0[0, 0], "<="),
        "column 2 peaks at x2": Inequality(W0[0, 1], W0[1, 1], "<="),
        "ε-PML at P̂ is tight, column 1": Identity(W0[0, 0], E * (p1 * W0[0, 0] + p2 * W0[1, 0])),
        "ε-PML at P̂ is tight, column 2": Identity(W0[1, 1], E * (p1 * W0[0, 1] + p2 * W0[1, 1])),
    }
    for k, pi in ((1, PI1), (2, PI2)):
        for j, top in ((0, 0), (1, 1)):
            sensitivity = sp.log(W0[top, j] / (pi[0] * W0[0, j] + pi[1] * W0[1, j])) - eps
            name = f"sensitivity of column {j + 1} at π({k})"
            parts[name] = (
                Identity(sensitivity, bound1) if (j, k) == (0, 2) else Inequality(sensitivity, bound1, "<=")
            )
    region1 = Region(
        (
            Param("p1", sp.Rational(1, 2), 1, upper_open=True),
            Param("beta", 0, 2 * (1 - p1), lower_open=True, upper_open=True),
            Param("eps", 0, -sp.log(p1), upper_open=True, exp_symbol="E"),
        )
    )
    N, k_, b_ = syms("N k beta")
    singular_region = Region(
        (
            Param("N", 2, 12, integer=True),
            Param("k", 1, N - 1, integer=True),
            Param("beta", 0, 2 / N, lower_open=True, upper_open=True),
        )
    )

    def singular_library(rng: np.random.Generator) -> Discrepancy:
        from privopt import mechanisms
        from privopt.audit import audit
        from privopt.definitions import PML
        from privopt.sets import L1Ball

        n = int(rng.integers(2, 11))
        k = int(rng.integers(1, n))
        bb = float(rng.uniform(0, 2 / n))
        report = audit(mechanisms.k_singular(n, k), PML(0.0, L1Ball(np.full(n, 1 / n), bb)))
        return close(
            report.eps - np.log(n / k),
            -np.log(1 - bb * n / (2 * k)),
            f"audit of the {k}-singular mechanism on {n} symbols: sensitivity vs bound (32)",
        )

    return [
        Claim(
            "pml.thm4.bound",
            f"{PML} Theorem 4, eq. (32)",
            Numerical(bound),
            sample_region,
            description="For a mechanism that is ε-PML w.r.t. P with ε in the k-th privacy region and β < 2 p_min, "
            "the leakage sensitivity over the ℓ1 ball is at most −log(1 − β(e^ε − 1)/(2p_min)) (k = 1) or "
            "−log(1 − βe^ε/2) (k > 1). Random P and mechanisms (with zeros half of the time); the sensitivity "
            "is computed by an LP over the ball.",
            points=60,
        ),
        Claim(
            "pml.thm4.equality_region1",
            f"{PML} Theorem 4, eq. (32), equality for k = 1",
            AllOf(parts),
            region1,
            description="For the extremal first-region mechanism (eq. (41) at β = 0) on a binary alphabet the "
            "sensitivity over a ball of radius β equals the k = 1 bound (attained by column 1 at π(2)).",
        ),
        Claim(
            "pml.thm4.equality_singular",
            f"{PML} Theorem 4, eq. (32), equality for k > 1",
            Identity(
                sp.log((1 / k_) / ((k_ / N - b_ / 2) / k_)) - sp.log(N / k_), -sp.log(1 - b_ * (N / k_) / 2)
            ),
            singular_region,
            description="A k-singular mechanism (zeros in every column) at the uniform prior, ε = log(N/k) (region "
            "N − k + 1 > 1): moving β/2 of mass off a column's support gives sensitivity exactly −log(1 − βe^ε/2).",
            library=library_check(("audit of mechanisms.k_singular over the ℓ1 ball", singular_library)),
        ),
    ]


def claims() -> list[Claim]:
    return [*theorem5_claims(), *remark3_claims(), *prop2_claims(), *prop3_claims(), *theorem4_claims()]


__all__ = ["claims", "theorem5_matrix", "theorem5_region"]
