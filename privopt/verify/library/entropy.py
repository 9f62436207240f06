"""Claims of the Entropy paper (rldp-mechanisms-entropy-2024): Theorem 1 and Lemma A2, Lemma 1,
Lemmas A5 and A7, Propositions 1–3, Lemma 2 (SRR), Theorem 6 (the MI decomposition of IR)."""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import sympy as sp
from scipy.optimize import minimize

from privopt.tolerances import VERIFY_FLOAT_RTOL
from privopt.verify.claims import Claim
from privopt.verify.library.common import (
    close,
    library_check,
    optional,
    random_distribution,
    relative,
    sym,
    syms,
)
from privopt.verify.region import Param, Point, Region
from privopt.verify.statements import AllOf, Discrepancy, Identity, Inequality, Numerical

ENTROPY = "Entropy paper"

rho, Bs = syms("rho Bs")
E = sp.exp(Bs)
ROOT = sp.sqrt((E - 1) * (E - (2 * rho - 1) ** 2))
XI_MINUS = (E + 2 * rho - 1 - ROOT) / (2 * E * rho)
XI_PLUS = (E + 2 * rho - 1 + ROOT) / (2 * E * rho)


def quadratic(xi: sp.Expr) -> sp.Expr:
    """``e^{B_s}ρξ² − (e^{B_s} + 2ρ − 1)ξ + ρ``: φ = 0 for α = 2 rewritten as a quadratic in ξ."""
    return E * rho * xi**2 - (E + 2 * rho - 1) * xi + rho


def _xi_region() -> Region:
    return Region(
        (Param("rho", 0, 1, lower_open=True, upper_open=True), Param("Bs", 0, None, exp_symbol="E"))
    )


# ---------------------------------------------------------------------- Rényi helpers (independent of privopt)
def renyi(p: np.ndarray, q: np.ndarray, alpha: float) -> float:
    """``D_α(p || q)`` (Entropy paper eq. 22), ``+inf`` if ``q`` misses mass of ``p`` (α >= 1)."""
    support = p > 0
    a, b = p[support], q[support]
    if np.any(b <= 0):
        return (
            np.inf
            if alpha >= 1
            else float(np.log(np.sum(a**alpha * np.where(b > 0, b, 0) ** (1 - alpha))) / (alpha - 1))
        )
    if abs(alpha - 1) < 1e-12:
        return float(np.sum(a * np.log(a / b)))
    return float(np.log(np.sum(a**alpha * b ** (1 - alpha))) / (alpha - 1))


def projection_radius(B: float, p_s: float, alpha: float) -> float:
    """``B_s`` of Theorem 1."""
    if abs(alpha - 1) < 1e-12:
        return B / p_s
    inner = np.exp((alpha - 1) * B / alpha) - (1 - p_s)
    return float(alpha / (alpha - 1) * np.log(inner / p_s)) if inner > 0 else np.inf


def phi(r: mpmath.mpf, xi: mpmath.mpf, b_s: mpmath.mpf, alpha: mpmath.mpf) -> mpmath.mpf:
    """``φ_{B_s}(ρ, ξ)`` of eq. (26)."""
    psi = (1 - r * xi) / (1 - r)
    if alpha == 1:
        return r * mpmath.log(1 / xi) + (1 - r) * mpmath.log(1 / psi) - b_s
    return mpmath.log(r * xi ** (1 - alpha) + (1 - r) * psi ** (1 - alpha)) / (alpha - 1) - b_s


def xi_plus(r: float, b_s: float, alpha: float) -> float:
    """``ξ⁺(ρ) = sup{ξ ∈ [1, 1/ρ] : φ <= 0}`` by bisection at 40 digits (ρ < 1)."""
    with mpmath.workdps(40):
        r_, b_, a_ = mpmath.mpf(r), mpmath.mpf(b_s), mpmath.mpf(alpha)
        lo, hi = mpmath.mpf(1), 1 / r_
        edge = hi * (1 - mpmath.mpf(10) ** -30)
        if phi(r_, edge, b_, a_) <= 0:
            return float(hi)
        for _ in range(150):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if phi(r_, mid, b_, a_) <= 0 else (lo, mid)
        return float(lo)


def exact_radius(center: np.ndarray, b_s: float, alpha: float) -> float:
    """``rad_s`` by Proposition 1: the maximum over subsets U1 of ``2ρ(ξ⁺(ρ) − 1)``, ``ρ = P̂(U1)``."""
    sums = {float(sum(c)) for r in range(1, center.size) for c in itertools.combinations(center, r)}
    return max(2 * r * (xi_plus(r, b_s, alpha) - 1) for r in sums)


def slsqp_radius(center: np.ndarray, b_s: float, alpha: float, rng: np.random.Generator) -> float:
    """``max ||R − P̂||₁`` over the Rényi ball by SLSQP, one sign pattern at a time (a convex feasible set
    and a linear objective: every KKT point is a global maximum)."""
    n = center.size
    best = 0.0
    for signs in itertools.product((-1.0, 1.0), repeat=n):
        c = np.array(signs)
        if np.all(c == c[0]):
            continue
        start = np.clip(center + 1e-3 * rng.normal(size=n), 1e-6, None)
        result = minimize(
            lambda R, c=c: -(c @ R),
            start / start.sum(),
            jac=lambda R, c=c: -c,
            method="SLSQP",
            bounds=[(1e-12, 1.0)] * n,
            constraints=[
                {"type": "eq", "fun": lambda R: R.sum() - 1.0},
                {"type": "ineq", "fun": lambda R: b_s - renyi(center, R, alpha)},
            ],
            options={"maxiter": 300, "ftol": 1e-14},
        )
        R = np.clip(result.x, 0, None)
        R = R / R.sum()
        if renyi(center, R, alpha) <= b_s + 1e-9:
            best = max(best, float(np.abs(R - center).sum()))
    return best


def _joint(point: Point, rng: np.random.Generator) -> tuple[np.ndarray, float, float, int]:
    n_s, n_u = int(point.working["n_s"]), int(point.working["n_u"])
    P = random_distribution(rng, n_s * n_u, alpha=1.0, floor=0.01).reshape(n_s, n_u)
    return P, float(point.working["alpha"]), float(point.working["B"]), int(rng.integers(n_s))


def _boundary(start: np.ndarray, target: np.ndarray, divergence, level: float) -> np.ndarray | None:
    """The point of the segment from ``start`` towards ``target`` where ``divergence`` reaches ``level``."""
    if divergence(target) <= level:
        return None
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if divergence((1 - mid) * start + mid * target) <= level else (lo, mid)
    return (1 - lo) * start + lo * target


def lemma_a2_point(
    P: np.ndarray, s: int, R: np.ndarray, B: float, alpha: float, exponent: float
) -> np.ndarray:
    """Lemma A2's distribution: row ``s`` is ``γR``, the other rows ``C^{exponent}·P̂``, ``C = e^{B(α−1)}``,
    ``γ = 1 − C^{exponent}(1 − P̂_s)`` (the extracted text has exponent ``1/α``; the proof needs ``−1/α``)."""
    C = np.exp(B * (alpha - 1))
    scale = C**exponent
    out = P * scale
    out[s] = (1 - scale * (1 - P[s].sum())) * R
    return out


def theorem1_claims() -> list[Claim]:
    alpha, B, ps = syms("alpha B ps")
    formula = alpha / (alpha - 1) * sp.log((sp.exp((alpha - 1) * B / alpha) - (1 - ps)) / ps)
    sample = Region(
        (
            Param("alpha", sp.Rational(1, 4), 4),
            Param("B", sp.Rational(1, 100), 1),
            Param("n_s", 2, 3, integer=True),
            Param("n_u", 2, 4, integer=True),
        )
    )

    def projection(point: Point, rng: np.random.Generator) -> Discrepancy:
        P, a, b, s = _joint(point, rng)
        p_hat = P.reshape(-1)
        cond = P[s] / P[s].sum()
        b_s = projection_radius(b, float(P[s].sum()), a)
        worst = 0.0
        # Upper: distributions on the boundary of F project into the ball of radius B_s.
        for _ in range(10):
            Q = _boundary(p_hat, rng.dirichlet(np.full(p_hat.size, 0.3)), lambda x: renyi(p_hat, x, a), b)
            if Q is None:
                continue
            Qs = Q.reshape(P.shape)[s]
            worst = max(worst, max(0.0, renyi(cond, Qs / Qs.sum(), a) - b_s) / max(1.0, b_s))
        # Attained: a boundary point R of the projected ball is the conditional of a P in F with D = B.
        R = _boundary(cond, np.eye(cond.size)[int(rng.integers(cond.size))], lambda x: renyi(cond, x, a), b_s)
        if R is not None and abs(a - 1) > 1e-9:
            A2 = lemma_a2_point(P, s, R, b, a, -1 / a)
            attained = abs(renyi(p_hat, A2.reshape(-1), a) - b) / max(1.0, b)
            conditional = float(np.abs(A2[s] / A2[s].sum() - R).max())
            worst = max(worst, attained, conditional)
        return Discrepancy(
            worst, 1e-8, f"α = {a:.4g}, B = {b:.4g}, B_s = {b_s:.6g}, P̂ = {np.round(P, 4).tolist()}, s = {s}"
        )

    def printed_a2(point: Point, rng: np.random.Generator) -> Discrepancy:
        P, a, b, s = _joint(point, rng)
        cond = P[s] / P[s].sum()
        b_s = projection_radius(b, float(P[s].sum()), a)
        R = _boundary(cond, np.eye(cond.size)[int(rng.integers(cond.size))], lambda x: renyi(cond, x, a), b_s)
        if R is None or abs(a - 1) < 1e-9:
            return Discrepancy.skip("no boundary point in the chosen direction (or α = 1, Lemma A4's case)")
        A2 = lemma_a2_point(P, s, R, b, a, 1 / a)
        if np.any(A2 < 0):
            return Discrepancy(
                float("inf"), 0.0, f"not a distribution (negative γ): α = {a:.4g}, B = {b:.4g}"
            )
        excess = renyi(P.reshape(-1), A2.reshape(-1) / A2.sum(), a) - b
        return Discrepancy(
            max(0.0, excess) / max(1.0, b),
            1e-8,
            f"D_α(P̂ || P) − B = {excess:.4g} (α = {a:.4g}, B = {b:.4g}, P̂ = {np.round(P, 4).tolist()}, s = {s})",
        )

    def library(rng: np.random.Generator) -> Discrepancy:
        from privopt.sets import RenyiBall

        n_s, n_u = int(rng.integers(2, 4)), int(rng.integers(2, 5))
        P = random_distribution(rng, n_s * n_u, floor=0.01).reshape(n_s, n_u)
        a, b = float(rng.uniform(0.25, 4)), float(rng.uniform(0.01, 1))
        s = int(rng.integers(n_s))
        got = RenyiBall(P, b, a).projection_radius(s)
        return close(
            got, projection_radius(b, float(P[s].sum()), a), f"RenyiBall.projection_radius (α = {a:.3g})"
        )

    return [
        Claim(
            "entropy.thm1.alpha1_limit",
            f"{ENTROPY} Theorem 1, eq. (24)",
            Identity(sp.Limit(formula, alpha, 1), B / ps),
            Region((Param("ps", 0, 1, lower_open=True), Param("B", 0, None))),
            description="The α = 1 case of B_s (B/P̂_s) is the limit α → 1 of the α ≠ 1 formula.",
        ),
        Claim(
            "entropy.thm1.projection",
            f"{ENTROPY} Theorem 1 and Lemma A2",
            Numerical(projection),
            sample,
            description="F_{U|s} is the Rényi ball of radius B_s: conditionals of boundary points of F stay within "
            "B_s, and a boundary point R of that ball is the conditional of the Lemma A2 distribution, which lies "
            "on the boundary of F (D_α(P̂||P) = B): the supremum is attained.",
            points=30,
            library=library_check(("RenyiBall.projection_radius", library)),
        ),
        Claim(
            "entropy.lemmaA2.as_extracted",
            f"{ENTROPY} Lemma A2 (text as extracted)",
            Numerical(printed_a2),
            sample,
            expect="fails",
            description="Lemma A2's construction as the extracted text reads it: the other rows scaled by C^{1/α}, "
            "γ = 1 − C^{1/α}(1 − P̂_s).",
            note="The construction leaves F (D_α(P̂||P) > B). With C^{−1/α} it works (entropy.thm1.projection), and "
            "the paper's own next step (A18) has C^{(α−1)/α}(1 − P̂_s) for the other rows, which is what C^{−1/α} "
            "gives; the minus sign of the exponent was most likely lost in extraction (as in Lemma A1's "
            "P_s = 1 − C^{1/α}(1 − P̂_s)).",
            points=30,
        ),
    ]


def lemma1_claims() -> list[Claim]:
    xi = sym("xi")
    region = _xi_region()
    phi2 = rho / xi + (1 - rho) ** 2 / (1 - rho * xi)

    def library(rng: np.random.Generator) -> Discrepancy:
        from privopt.sets import RenyiBall

        P = random_distribution(rng, 4, floor=0.01).reshape(2, 2)
        F = RenyiBall(P, float(rng.uniform(0.001, 2)), 2.0)
        s = int(rng.integers(2))
        r = float(rng.uniform(0.01, 0.99))
        lower, upper = F.xi(np.array([r]), s)
        e = np.exp(F.projection_radius(s))
        root = np.sqrt((e - 1) * (e - (2 * r - 1) ** 2))
        want = ((e + 2 * r - 1 - root) / (2 * e * r), (e + 2 * r - 1 + root) / (2 * e * r))
        return Discrepancy(
            max(relative(lower[0], want[0]), relative(upper[0], min(want[1], 1 / r))),
            VERIFY_FLOAT_RTOL,
            f"RenyiBall.xi vs Lemma 1 at ρ = {r:.4g}",
        )

    return [
        Claim(
            "entropy.lemma1.quadratic",
            f"{ENTROPY} Lemma 1",
            Identity(sp.Matrix([quadratic(XI_MINUS), quadratic(XI_PLUS)]), sp.zeros(2, 1)),
            region,
            description="ξ± of Lemma 1 are the roots of e^{B_s}ρξ² − (e^{B_s} + 2ρ − 1)ξ + ρ = 0.",
            library=library_check(("RenyiBall.xi (order 2)", library)),
        ),
        Claim(
            "entropy.lemma1.phi",
            f"{ENTROPY} Lemma 1 and eq. (26), α = 2",
            Identity(phi2 - E, quadratic(xi) / (xi * (1 - rho * xi))),
            Region((*region.params, Param("xi", 0, 1 / rho, lower_open=True, upper_open=True))),
            description="For α = 2, e^{φ + B_s} = ρ/ξ + (1 − ρ)²/(1 − ρξ), and e^{φ + B_s} − e^{B_s} is the quadratic "
            "divided by ξ(1 − ρξ) > 0: on ξ ∈ (0, 1/ρ), φ = 0 exactly at the roots.",
        ),
        Claim(
            "entropy.lemmaA5.domain",
            f"{ENTROPY} Lemma A5 (ψ >= 0 ⇔ ξ <= 1/ρ)",
            AllOf(
                {
                    "ξ⁺ <= 1/ρ": Inequality(XI_PLUS, 1 / rho),
                    "ξ⁻ <= 1": Inequality(XI_MINUS, 1),
                    "ξ⁺ >= 1": Inequality(XI_PLUS, 1, ">="),
                }
            ),
            region,
            description="ξ⁻ ∈ [0, 1] and ξ⁺ ∈ [1, 1/ρ]: the roots stay in the domain the derivation of Lemma A5 "
            "gives (ψ = (1 − ρξ)/(1 − ρ) >= 0).",
        ),
        Claim(
            "entropy.lemmaA5.domain_as_printed",
            f"{ENTROPY} eq. (28) and Lemma A5 (domain as printed)",
            Inequality(XI_PLUS, 1 / (1 - rho)),
            region,
            expect="fails",
            description="The printed domain of ξ⁺, [1, (1 − ρ)^{−1}), contains the root ξ⁺.",
            note="For ρ < 1/2 and large B_s the root ξ⁺ exceeds (1 − ρ)^{−1} (it tends to 1/ρ), so the printed "
            "domain would cut it off. Lemma A5's proof says ψ >= 0 ⇔ ξ <= ρ^{−1}: the upper end must be ρ^{−1}.",
        ),
    ]


def prop1_claims() -> list[Claim]:
    region = Region(
        (
            Param("alpha", sp.Rational(1, 4), 4),
            Param("Bs", sp.Rational(1, 50), 3),
            Param("n_u", 2, 4, integer=True),
        )
    )

    def radius(point: Point, rng: np.random.Generator) -> Discrepancy:
        a, b_s, n = float(point.working["alpha"]), float(point.working["Bs"]), int(point.working["n_u"])
        center = random_distribution(rng, n, floor=0.02)
        via_prop1 = exact_radius(center, b_s, a)
        direct = slsqp_radius(center, b_s, a, rng)
        return Discrepancy(
            relative(via_prop1, direct),
            1e-6,
            f"Prop. 1 gives {via_prop1:.10g}, SLSQP over the ball {direct:.10g} (α = {a:.4g}, B_s = {b_s:.4g}, P̂ = {np.round(center, 4).tolist()})",
        )

    def library(rng: np.random.Generator) -> Discrepancy:
        from privopt.sets import RenyiBall

        n_u = int(rng.integers(2, 5))
        P = random_distribution(rng, 2 * n_u, floor=0.01).reshape(2, n_u)
        a, b = float(rng.uniform(0.25, 4)), float(rng.uniform(0.01, 1))
        F = RenyiBall(P, b, a)
        s = int(rng.integers(2))
        center = P[s] / P[s].sum()
        want = exact_radius(center, F.projection_radius(s), a)
        return close(
            F.l1_radius(s, "exact"),
            min(want, 2.0),
            f"RenyiBall.l1_radius(method='exact') (α = {a:.3g})",
            1e-6,
        )

    return [
        Claim(
            "entropy.prop1.rad",
            f"{ENTROPY} Proposition 1, eq. (30)",
            Numerical(radius),
            region,
            description="rad_s = 2 max_{U1} P̂_{U1|s}(ξ⁺(P̂_{U1|s}) − 1) equals max ||R − P̂_{U|s}||₁ over the Rényi ball "
            "(computed independently by SLSQP for every sign pattern).",
            points=12,
            library=library_check(("RenyiBall.l1_radius(method='exact')", library)),
        )
    ]


def prop2_claims() -> list[Claim]:
    region = _xi_region()
    L_prop2 = (E + 2 * rho - 1 - ROOT) / (2 * E)
    rad_printed = (E + 2 * rho - 1 + ROOT) / E
    rad_corrected = rad_printed - 2 * rho
    Bt = sym("Bt")
    g = (Bt - 2 * Bt * rho + sp.sqrt(Bt**2 + 4 * Bt * rho - 4 * Bt * rho**2)) / (Bt + 1)
    rho_opt = (1 - sp.sqrt(Bt)) / 2
    bt_region = Region((Param("Bt", 0, 1, lower_open=True, upper_open=True),))
    xi31 = [
        (Bt + 2 * rho + sign * sp.sqrt(Bt**2 + 4 * rho * Bt - 4 * Bt * rho**2)) / (2 * rho * (Bt + 1))
        for sign in (-1, 1)
    ]
    lemma_region = Region(
        (Param("rho", 0, 1, lower_open=True, upper_open=True), Param("Bt", 0, None, lower_open=True))
    )
    sample = Region((Param("n_u", 2, 5, integer=True), Param("extra", 0, 2)))

    def condition(point: Point, rng: np.random.Generator) -> Discrepancy:
        n = int(point.working["n_u"])
        center = random_distribution(rng, n, floor=0.02)
        rho_min = float(center.min())
        b_s = float(np.log1p((1 - 2 * rho_min) ** 2)) + float(point.working["extra"])
        e = np.exp(b_s)
        closed = (e + 2 * rho_min - 1 + np.sqrt((e - 1) * (e - (2 * rho_min - 1) ** 2))) / e - 2 * rho_min
        exact = exact_radius(center, b_s, 2.0)
        return Discrepancy(
            relative(closed, exact),
            1e-9,
            f"closed form {closed:.12g} vs Prop. 1 {exact:.12g} (P̂ = {np.round(center, 4).tolist()}, B_s = {b_s:.4g})",
        )

    def bound(point: Point, rng: np.random.Generator) -> Discrepancy:
        n = int(point.working["n_u"])
        center = random_distribution(rng, n, floor=0.02)
        b_s = float(point.working["extra"])
        exact = exact_radius(center, b_s, 2.0)
        limit = float(np.sqrt(np.expm1(b_s)))
        return Discrepancy(
            max(0.0, exact - limit),
            1e-12,
            f"rad_s = {exact:.12g} vs √(e^B_s − 1) = {limit:.12g} (P̂ = {np.round(center, 4).tolist()}, B_s = {b_s:.4g})",
        )

    def library(rng: np.random.Generator) -> Discrepancy:
        from privopt.sets import RenyiBall

        P = random_distribution(rng, 6, floor=0.01).reshape(2, 3)
        F = RenyiBall(P, float(rng.uniform(0.001, 2)), 2.0)
        s = int(rng.integers(2))
        e = np.exp(F.projection_radius(s))
        r = P[s] / P[s].sum()
        want = (e + 2 * r - 1 - np.sqrt((e - 1) * (e - (2 * r - 1) ** 2))) / (2 * e)
        return Discrepancy(
            float(np.max(np.abs(F.lower_bounds()[s] - np.clip(want, 0, None)))),
            1e-12,
            "RenyiBall.lower_bounds vs Prop. 2.1",
        )

    return [
        Claim(
            "entropy.prop2.L",
            f"{ENTROPY} Proposition 2.1",
            Identity(L_prop2, rho * XI_MINUS),
            region,
            description="L_{u|s} = P̂_{u|s} ξ⁻(P̂_{u|s}) (Prop. 1) with Lemma 1's ξ⁻ is Prop. 2.1's closed form.",
            library=library_check(("RenyiBall.lower_bounds", library)),
        ),
        Claim(
            "entropy.prop2.rad",
            f"{ENTROPY} Proposition 2.2 (corrected)",
            Identity(rad_corrected, 2 * rho * (XI_PLUS - 1)),
            region,
            description="2ρ(ξ⁺(ρ) − 1) = (e^{B_s} + 2ρ − 1 + √((e^{B_s} − 1)(e^{B_s} − (2ρ − 1)²)))/e^{B_s} − 2ρ.",
        ),
        Claim(
            "entropy.prop2.rad_as_printed",
            f"{ENTROPY} Proposition 2.2 (as printed)",
            Identity(rad_printed, 2 * rho * (XI_PLUS - 1)),
            region,
            expect="fails",
            description="The printed rad_s, (e^{B_s} + 2P̂ − 1 + √(...))/e^{B_s}, against Proposition 1 at U1 = {u_min}.",
            note="The printed expression lacks the term −2P̂_{u_min|s} (a whole term, which extraction does not drop). "
            "The ISIT paper's eq. (11) (isit.eq11) has the corrected form.",
        ),
        Claim(
            "entropy.prop2.rad_condition",
            f"{ENTROPY} Proposition 2.2 and Lemma A7.1",
            Numerical(condition),
            sample,
            description="When e^{B_s} − 1 >= (1 − 2P̂_min)² (the condition the proof of Lemma A7 establishes), the "
            "maximum of Prop. 1 is at U1 = {u_min}: the corrected closed form equals the exact radius.",
            points=20,
        ),
        Claim(
            "entropy.prop2.printed_condition",
            f"{ENTROPY} Proposition 2.2 vs Lemma A7",
            Inequality((1 - 2 * rho) ** 2, (1 - rho) ** 2),
            Region((Param("rho", 0, sp.Rational(1, 2)),)),
            description="The printed condition B_s >= log(1 + (1 − P̂_min)²) implies the proof's e^{B_s} − 1 >= "
            "(1 − 2P̂_min)² (P̂_min <= 1/2): the statement is correct but stronger than needed.",
        ),
        Claim(
            "entropy.prop2.rad_bound",
            f"{ENTROPY} Proposition 2.3 (with the square root)",
            Numerical(bound),
            sample,
            description="rad_s <= √(e^{B_s} − 1) for every P̂ and B_s.",
            points=20,
        ),
        Claim(
            "entropy.lemmaA7.xi",
            f"{ENTROPY} Lemma A7, eq. (31)",
            Identity(sp.Matrix(xi31), sp.Matrix([XI_MINUS, XI_PLUS]).subs(Bs, sp.log(1 + Bt))),
            lemma_region,
            description="Lemma A7's ξ± in terms of B̃ = e^{B} − 1 are Lemma 1's.",
        ),
        Claim(
            "entropy.lemmaA7.A53",
            f"{ENTROPY} Lemma A7, eq. (A53)",
            Identity(2 * rho * ((XI_PLUS).subs(Bs, sp.log(1 + Bt)) - 1), g),
            lemma_region,
            description="2ρ(ξ⁺(ρ) − 1) = (B̃ − 2B̃ρ + √(B̃² + 4B̃ρ − 4B̃ρ²))/(B̃ + 1).",
        ),
        Claim(
            "entropy.lemmaA7.maximum",
            f"{ENTROPY} Lemma A7, eqs. (A54)–(A58)",
            AllOf(
                {
                    "(A54) stationary at ρ_opt": Identity(sp.diff(g, rho).subs(rho, rho_opt), 0),
                    "(A58) maximum": Identity(g.subs(rho, rho_opt), sp.sqrt(Bt)),
                }
            ),
            bt_region,
            description="For B̃ < 1, ρ_opt = (1 − √B̃)/2 is the stationary point of 2ρ(ξ⁺(ρ) − 1) and the maximum "
            "value there is √B̃ (so Prop. 2.3's bound is √(e^{B_s} − 1)).",
        ),
        Claim(
            "entropy.prop2.rad_bound_as_extracted",
            f"{ENTROPY} Proposition 2.3 and (A58) (as extracted)",
            Inequality(g, Bt),
            Region(
                (
                    Param("rho", 0, 1, lower_open=True, upper_open=True),
                    Param("Bt", 0, 1, lower_open=True, upper_open=True),
                )
            ),
            expect="fails",
            description="rad_s <= e^{B_s} − 1 (= B̃), as the extracted text of Prop. 2.3 and (A58) reads.",
            note="False for B̃ < 1: the maximum of 2ρ(ξ⁺ − 1) is √B̃ > B̃ (entropy.lemmaA7.maximum). Extraction drops "
            "square roots elsewhere in this text (Lemma 1's discriminant), and the ISIT paper's eq. (11) has √a_s, so "
            "this is most likely an extraction artefact, not a misprint.",
        ),
    ]


def srr_matrix(n_s: int, n_u: int, e: sp.Expr) -> sp.Matrix:
    """SRR (Definition 4) with ``e = e^ε``: ``e``, ``e^{−1}`` (same s, other u) or 1 (other s), over ``C``."""
    a = n_s * n_u
    C = e + (n_u - 1) / e + a - n_u
    entries = [
        [(e if x == y else (1 / e if x // n_u == y // n_u else sp.Integer(1))) / C for y in range(a)]
        for x in range(a)
    ]
    return sp.Matrix(entries)


def lemma2_claims() -> list[Claim]:
    eps = sym("eps")
    Ee = sp.exp(eps)
    region = Region((Param("eps", 0, None, exp_symbol="E"),))
    parts: dict[str, Identity | Inequality] = {}
    for n_s, n_u in ((2, 2), (2, 3)):
        a = n_s * n_u
        W = srr_matrix(n_s, n_u, Ee)
        for x in range(a):
            parts[f"{n_s}×{n_u}: row {x} sums to 1"] = Identity(sum(W.row(x)), 1)
        for y in range(a):
            for x, x2 in itertools.permutations(range(a), 2):
                if x // n_u != x2 // n_u:
                    parts[f"{n_s}×{n_u}: column {y}, inputs {x} vs {x2}"] = Inequality(W[x, y], Ee * W[x2, y])

    def audited(rng: np.random.Generator) -> Discrepancy:
        from privopt import mechanisms
        from privopt.audit import audit
        from privopt.definitions import SensitiveLDP
        from privopt.sets import Simplex

        n_s, n_u, e = int(rng.integers(2, 4)), int(rng.integers(1, 4)), float(rng.uniform(0, 4))
        report = audit(mechanisms.srr(n_s, n_u, e), SensitiveLDP(e, Simplex((n_s, n_u))))
        return close(report.eps, e, "audit(srr, SensitiveLDP(ε, Simplex)): realized ε vs ε")

    return [
        Claim(
            "entropy.lemma2.srr",
            f"{ENTROPY} Definition 4 and Lemma 2",
            AllOf(parts),
            region,
            description="SRR (2×2 and 2×3) is a mechanism with Q_{y|s,u} <= e^ε Q_{y|s',u'} for s != s': by "
            "Proposition 3 it is (ε, P_X)-RLDP.",
            note="The extracted Definition 4 shows e^ε for the same-s entries; the minus sign of e^{−ε} was lost "
            "(Example 4's SRR, 0.444/0.111/0.222 at ε = log 2, has e^{−ε}).",
            library=library_check(("audit of mechanisms.srr over the simplex", audited)),
        )
    ]


def _rldp_leakage(Q: np.ndarray, P: np.ndarray) -> float:
    """``max_{y, s != s'} log P(y|s)/P(y|s')`` at a joint distribution ``P`` (rows s, columns u)."""
    n_s, n_u = P.shape
    cond = P / P.sum(axis=1, keepdims=True)
    p_y = np.vstack([cond[s] @ Q[s * n_u : (s + 1) * n_u] for s in range(n_s)])
    best = 0.0
    for s, s2 in itertools.permutations(range(n_s), 2):
        best = max(best, float(np.max(np.log(p_y[s] / p_y[s2]))))
    return best


def prop3_claims() -> list[Claim]:
    region = Region((Param("n_s", 2, 3, integer=True), Param("n_u", 1, 3, integer=True)))

    def characterisation(point: Point, rng: np.random.Generator) -> Discrepancy:
        n_s, n_u = int(point.working["n_s"]), int(point.working["n_u"])
        a = n_s * n_u
        Q = rng.dirichlet(np.ones(a), size=a)
        ratio, where = 0.0, (0, 1, 0)
        for y in range(a):
            for x, x2 in itertools.permutations(range(a), 2):
                if x // n_u != x2 // n_u and np.log(Q[x, y] / Q[x2, y]) > ratio:
                    ratio, where = float(np.log(Q[x, y] / Q[x2, y])), (x, x2, y)
        sampled = max(
            _rldp_leakage(Q, rng.dirichlet(np.full(a, 0.3)).reshape(n_s, n_u) + 1e-300) for _ in range(200)
        )
        x, x2, _ = where
        P = np.full(a, 1e-300)
        P[x] = P[x2] = 0.5
        attained = _rldp_leakage(Q, P.reshape(n_s, n_u))
        size = max(max(0.0, sampled - ratio), abs(attained - ratio)) / max(1.0, ratio)
        return Discrepancy(
            size, 1e-9, f"ratio bound {ratio:.10g}, sampled sup {sampled:.10g}, proof's P {attained:.10g}"
        )

    def audited(rng: np.random.Generator) -> Discrepancy:
        from privopt.audit import audit
        from privopt.data.mechanism import Mechanism
        from privopt.definitions import SensitiveLDP
        from privopt.sets import Simplex

        n_s, n_u = int(rng.integers(2, 4)), int(rng.integers(1, 4))
        a = n_s * n_u
        Q = rng.dirichlet(np.ones(a), size=a)
        ratio = max(
            float(np.log(Q[x, y] / Q[x2, y]))
            for y in range(a)
            for x, x2 in itertools.permutations(range(a), 2)
            if x // n_u != x2 // n_u
        )
        report = audit(Mechanism(Q), SensitiveLDP(0.0, Simplex((n_s, n_u))))
        return close(report.eps, max(ratio, 0.0), "audit over Simplex vs the ratio bound of Prop. 3")

    return [
        Claim(
            "entropy.prop3",
            f"{ENTROPY} Proposition 3",
            Numerical(characterisation),
            region,
            description="(ε, P_X)-RLDP ⇔ Q_{y|s,u} <= e^ε Q_{y|s',u'} for s != s': for random mechanisms the worst "
            "RLDP leakage over 200 random distributions never exceeds the ratio bound, and the proof's "
            "distribution (½ on (s,u) and (s',u')) attains it.",
            points=20,
            library=library_check(("audit(Q, SensitiveLDP(ε, Simplex))", audited)),
        )
    ]


def _mi(joint: np.ndarray) -> float:
    """Mutual information of a 2-D joint distribution (nats)."""
    a, b = joint.sum(axis=1, keepdims=True), joint.sum(axis=0, keepdims=True)
    mask = joint > 0
    return float(np.sum(joint[mask] * np.log(joint[mask] / (a @ b)[mask])))


def ir_decomposition(P: np.ndarray, R1: np.ndarray, R2: np.ndarray) -> tuple[float, float]:
    """Both sides of Theorem 6 for ``IR = R1 ⊗ R2`` at the joint ``P[s, u]``, from the joint distribution
    ``p(s, u, y1, y2) = P(s, u) R1(y1|s) R2(y2|u)``: ``I(X; IR(X))`` and
    ``I(R1(S); S) + Σ_{y1} p(y1) I(U; Y2 | Y1 = y1)``."""
    n_s, n_u = P.shape
    joint = P[:, :, None, None] * R1[:, None, :, None] * R2[None, :, None, :]
    lhs = _mi(joint.reshape(n_s * n_u, -1))
    first = _mi(joint.sum(axis=(1, 3)))
    p_uy = joint.sum(axis=0)  # (u, y1, y2)
    second = sum(_mi(p_uy[:, y, :] / p_uy[:, y, :].sum()) * p_uy[:, y, :].sum() for y in range(p_uy.shape[1]))
    return lhs, first + second


def theorem6_claims() -> list[Claim]:
    region = Region((Param("n_s", 2, 3, integer=True), Param("n_u", 2, 3, integer=True)))
    what = "I(X; IR(X)) vs I(R1(S); S) + I(R2(U); U | R1(S))"

    def decomposition(point: Point, rng: np.random.Generator) -> Discrepancy:
        n_s, n_u = int(point.working["n_s"]), int(point.working["n_u"])
        P = rng.dirichlet(np.ones(n_s * n_u)).reshape(n_s, n_u)
        R1 = rng.dirichlet(np.ones(n_s + 1), size=n_s)
        R2 = rng.dirichlet(np.ones(n_u + 1), size=n_u)
        return close(*ir_decomposition(P, R1, R2), what, 1e-10)

    def kron(rng: np.random.Generator) -> Discrepancy:
        from privopt.data.distribution import JointDistribution
        from privopt.data.mechanism import Mechanism
        from privopt.utilities import MutualInformation

        n_s, n_u = int(rng.integers(2, 4)), int(rng.integers(2, 4))
        P = rng.dirichlet(np.ones(n_s * n_u)).reshape(n_s, n_u)
        R1 = Mechanism(rng.dirichlet(np.ones(n_s), size=n_s))
        R2 = Mechanism(rng.dirichlet(np.ones(n_u), size=n_u))
        value = MutualInformation(JointDistribution(P)).value(R1.kron(R2))
        return close(
            value,
            ir_decomposition(P, R1.matrix, R2.matrix)[1],
            "MutualInformation of R1.kron(R2) vs " + what,
        )

    def designed(rng: np.random.Generator) -> Discrepancy:
        from privopt.data.distribution import JointDistribution
        from privopt.data.mechanism import Mechanism
        from privopt.sets import RenyiBall
        from privopt.utilities import MutualInformation

        at = optional("privopt.mechanisms.independent_reporting", "independent_reporting_at")
        n_s, n_u = int(rng.integers(2, 4)), int(rng.integers(2, 4))
        P = JointDistribution(random_distribution(rng, n_s * n_u, floor=0.01).reshape(n_s, n_u), n=1000)
        e = float(rng.uniform(0.1, 3))
        W = np.asarray(at(RenyiBall.confidence(P), e, float(rng.uniform(0, e))).matrix)
        # W = R1 ⊗ R2 with R1 on S (|S| outputs) and R2 on U (|U| outputs): recover the factors.
        blocks = W.reshape(n_s, n_u, n_s, n_u)
        R1, R2 = blocks.sum(axis=3)[:, 0, :], blocks.sum(axis=2)[0, :, :]
        value = MutualInformation(P).value(Mechanism(W))
        return close(
            value, ir_decomposition(P.probabilities, R1, R2)[1], "independent_reporting_at: I_P̂ vs " + what
        )

    return [
        Claim(
            "entropy.thm6",
            f"{ENTROPY} Theorem 6",
            Numerical(decomposition),
            region,
            description="I_P(IR(X); X) = I_P(R1(S); S) + I_P(R2(U); U | R1(S)) for random P, R1, R2 (computed from "
            "the joint distribution of (S, U, R1(S), R2(U))).",
            points=50,
            library=library_check(
                ("MutualInformation of R1.kron(R2)", kron),
                ("privopt.mechanisms.independent_reporting_at", designed),
            ),
        )
    ]


def claims() -> list[Claim]:
    return [
        *theorem1_claims(),
        *lemma1_claims(),
        *prop1_claims(),
        *prop2_claims(),
        *lemma2_claims(),
        *prop3_claims(),
        *theorem6_claims(),
    ]
