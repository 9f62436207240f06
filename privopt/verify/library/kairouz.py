"""Claims of Kairouz et al. (extremal-ldp-mechanisms-slides): the binary mechanism is optimal for total
variation (for every ε, P0, P1), and randomized response is optimal for KL above a threshold ε*."""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp
from scipy.optimize import linprog

from privopt.verify.claims import Claim
from privopt.verify.library.common import close, library_check, rational_distribution, relative
from privopt.verify.region import Param, Point, Region
from privopt.verify.statements import Discrepancy, Numerical, Optimality, OptimalityInstance, UtilitySpec

KAIROUZ = "Kairouz et al."

#: Grid of ε for the search of the randomized-response threshold.
THRESHOLD_GRID = np.round(np.arange(0.05, 12.0001, 0.05), 10)


def binary_mechanism(p0: list, p1: list, e: sp.Expr) -> sp.Matrix:
    """The binary mechanism: ``Q(0|x) = e^ε/(1 + e^ε)`` if ``P0(x) >= P1(x)``, else ``1/(1 + e^ε)``."""
    rows = []
    for a, b in zip(p0, p1, strict=True):
        top = e / (1 + e) if a >= b else 1 / (1 + e)
        rows.append([top, 1 - top])
    return sp.Matrix(rows)


def ldp_cone(k: int, e: sp.Expr) -> sp.Matrix:
    """Rows ``e_x − e^ε e_x'`` (``x != x'``): ε-LDP."""
    return sp.Matrix(
        [[int(i == x) - e * int(i == x2) for i in range(k)] for x, x2 in itertools.permutations(range(k), 2)]
    )


def staircase_optimum(p0: np.ndarray, p1: np.ndarray, eps: float, kind: str) -> float:
    """The optimum of the staircase LP (Kairouz et al., Main Result 2) over the patterns ``{1, e^ε}^k``."""
    k = p0.size
    patterns = np.array(
        [[np.exp(eps) if b else 1.0 for b in bits] for bits in itertools.product((0, 1), repeat=k)]
    )
    patterns = patterns / patterns.sum(axis=1, keepdims=True)
    q0, q1 = patterns @ p0, patterns @ p1
    mu = q0 * np.log(q0 / q1) if kind == "kl" else 0.5 * np.abs(q0 - q1)
    result = linprog(
        -mu, A_eq=patterns.T, b_eq=np.ones(k), bounds=[(0, None)] * len(patterns), method="highs"
    )
    return float(-result.fun)


def rr_kl(p0: np.ndarray, p1: np.ndarray, eps: float) -> float:
    """``D_KL(P0 RR || P1 RR)`` for k-ary randomized response."""
    k = p0.size
    W = np.full((k, k), 1.0 / (np.exp(eps) + k - 1))
    np.fill_diagonal(W, np.exp(eps) / (np.exp(eps) + k - 1))
    m0, m1 = p0 @ W, p1 @ W
    return float(np.sum(m0 * np.log(m0 / m1)))


def rr_kl_threshold(p0: np.ndarray, p1: np.ndarray, rtol: float = 1e-9) -> float:
    """The smallest ε of :data:`THRESHOLD_GRID` from which randomized response is KL-optimal on the rest of
    the grid (``inf`` if it is not optimal at the grid's end)."""
    optimal = [rr_kl(p0, p1, e) >= staircase_optimum(p0, p1, e, "kl") * (1 - rtol) for e in THRESHOLD_GRID]
    if not optimal[-1]:
        return float("inf")
    k = len(optimal) - 1
    while k > 0 and optimal[k - 1]:
        k -= 1
    return float(THRESHOLD_GRID[k])


def claims() -> list[Claim]:
    region = Region((Param("k", 2, 4, integer=True), Param("eps", 0, sp.log(8), exp_symbol="E")))

    def instance(point: Point, rng: np.random.Generator) -> OptimalityInstance:
        from privopt.definitions import LDP
        from privopt.utilities import FDivergence

        k, e = int(point.working["k"]), point.working["eps"]
        p0, p1 = rational_distribution(rng, k), rational_distribution(rng, k)
        r0 = [sp.Rational(x.numerator, x.denominator) for x in p0]
        r1 = [sp.Rational(x.numerator, x.denominator) for x in p1]
        floats = (np.array([float(x) for x in p0]), np.array([float(x) for x in p1]))
        eps = float(sp.log(e))
        return OptimalityInstance(
            binary_mechanism(r0, r1, e),
            ldp_cone(k, e),
            UtilitySpec("tv", p0=tuple(r0), p1=tuple(r1)),
            (LDP(eps), FDivergence("tv", *floats)),
            f"P0 = {[str(x) for x in p0]}, P1 = {[str(x) for x in p1]}",
        )

    def threshold(point: Point, rng: np.random.Generator) -> Discrepancy:
        k = int(point.working["k"])
        p0 = rng.dirichlet(np.ones(k))
        p1 = rng.dirichlet(np.ones(k))
        last = float(THRESHOLD_GRID[-1])
        gap = relative(staircase_optimum(p0, p1, last, "kl"), rr_kl(p0, p1, last))
        found = rr_kl_threshold(p0, p1)
        return Discrepancy(
            gap,
            1e-9,
            f"threshold ε* = {found:.2f} (P0 = {np.round(p0, 4).tolist()}, P1 = {np.round(p1, 4).tolist()})",
        )

    def compiler(rng: np.random.Generator) -> Discrepancy:
        from privopt.definitions import LDP
        from privopt.problem import Problem
        from privopt.utilities import FDivergence

        k = int(rng.integers(2, 5))
        p0, p1 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        eps = float(rng.uniform(0.1, 6))
        kind = "kl" if rng.random() < 0.5 else "tv"
        value = Problem(LDP(eps), FDivergence(kind, p0, p1)).solve(route="vertex").value
        return close(
            value,
            staircase_optimum(p0, p1, eps, kind),
            f"compiler optimum for LDP + {kind} vs the staircase LP",
        )

    return [
        Claim(
            "kairouz.binary_tv",
            f"{KAIROUZ}: optimality of binary mechanisms for total variation",
            Optimality(instance=instance),
            region,
            description="For any P0, P1 and ε >= 0 the binary mechanism maximises ||M0 − M1||_TV over ε-LDP mechanisms "
            "(random rational P0, P1 on 2–4 symbols; exact LDP cone, exact dual LP).",
            points=20,
        ),
        Claim(
            "kairouz.rr_kl",
            f"{KAIROUZ}: optimality of randomized response in the low-privacy regime (KL)",
            Numerical(threshold),
            Region((Param("k", 2, 3, integer=True),)),
            description="For random P0, P1 randomized response maximises D_KL(M0||M1) over ε-LDP mechanisms for all ε on "
            "the grid from a threshold ε* on (found numerically with the staircase LP; checked at ε = 12).",
            points=10,
            library=library_check(("privopt's compiler vs the staircase LP (LDP, KL and TV)", compiler)),
        ),
    ]
