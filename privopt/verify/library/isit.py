"""Claims of the ISIT paper (rldp-isit-2021) against the Entropy paper: eq. (5) (P^min_{u|s}) and
eq. (11) (d_s). The ISIT paper's B is the χ² radius itself (eq. 2): the Entropy paper's order-2
radius is ``log(1 + B)``, and its ``a_s`` is ``e^{B_s} − 1``."""

from __future__ import annotations

import numpy as np
import sympy as sp

from privopt.verify.claims import Claim
from privopt.verify.library.common import random_distribution, sym, syms
from privopt.verify.library.entropy import XI_PLUS, exact_radius
from privopt.verify.region import Param, Point, Region
from privopt.verify.statements import Discrepancy, Identity, Inequality, Numerical

ISIT = "ISIT paper"


def claims() -> list[Claim]:
    Bc, ps, rho, a = syms("Bc ps rho a")
    a_s = (sp.sqrt(Bc + 1) + ps - 1) ** 2 / ps**2 - 1  # ISIT, before eq. (5)
    p_min_isit = (a_s + 2 * rho - sp.sqrt(a_s**2 + 4 * a_s * rho - 4 * a_s * rho**2)) / (
        2 * a_s + 2
    )  # eq. (5)
    B = sp.log(1 + Bc)
    e_bs = ((sp.exp(B / 2) - (1 - ps)) / ps) ** 2  # Entropy Theorem 1, α = 2: e^{B_s}
    L_entropy = (e_bs + 2 * rho - 1 - sp.sqrt((e_bs - 1) * (e_bs - (2 * rho - 1) ** 2))) / (
        2 * e_bs
    )  # Prop. 2.1
    d_s = (a * (1 - 2 * rho) + sp.sqrt(a**2 + 4 * a * rho - 4 * a * rho**2)) / (a + 1)  # eq. (11), a_s >= 1
    Bs = sym("Bs")
    region = Region(
        (
            Param("Bc", 0, None, lower_open=True),
            Param("ps", 0, 1, lower_open=True),
            Param("rho", 0, 1, lower_open=True, upper_open=True),
        )
    )
    sample = Region((Param("n_u", 2, 5, integer=True), Param("a", 0, 4, lower_open=True)))

    def upper_bound(point: Point, rng: np.random.Generator) -> Discrepancy:
        n, a_ = int(point.working["n_u"]), float(point.working["a"])
        center = random_distribution(rng, n, floor=0.02)
        r = float(center.min())
        d = (
            (a_ * (1 - 2 * r) + np.sqrt(a_**2 + 4 * a_ * r - 4 * a_ * r**2)) / (a_ + 1)
            if a_ >= 1
            else np.sqrt(a_)
        )
        rad = exact_radius(center, float(np.log1p(a_)), 2.0)
        return Discrepancy(
            max(0.0, rad - d),
            1e-12,
            f"rad_s = {rad:.12g} vs d_s = {d:.12g} (P̂ = {np.round(center, 4).tolist()}, a_s = {a_:.4g})",
        )

    return [
        Claim(
            "isit.eq5",
            f"{ISIT} eq. (5) vs Entropy paper Prop. 2.1",
            Identity(p_min_isit, L_entropy),
            region,
            description="P^min_{u|s} of the ISIT paper (with a_s from its χ² radius B) is the Entropy paper's L_{u|s} with "
            "B_Entropy = log(1 + B): the same function (a_s = e^{B_s} − 1).",
        ),
        Claim(
            "isit.a_s",
            f"{ISIT} a_s vs Entropy paper Theorem 1",
            Identity(a_s, e_bs - 1),
            region,
            description="a_s = (√(B + 1) + P̂_s − 1)² P̂_s^{−2} − 1 equals e^{B_s} − 1 with Theorem 1's B_s for α = 2.",
        ),
        Claim(
            "isit.eq11",
            f"{ISIT} eq. (11) vs Entropy paper Prop. 2.2",
            Identity(d_s.subs(a, sp.exp(Bs) - 1), 2 * rho * (XI_PLUS - 1)),
            Region(
                (Param("rho", 0, 1, lower_open=True, upper_open=True), Param("Bs", 0, None, exp_symbol="E"))
            ),
            description="The first branch of d_s, (a_s(1 − 2P̂) + √(a_s² + 4a_sP̂ − 4a_sP̂²))/(a_s + 1), is 2P̂(ξ⁺(P̂) − 1): "
            "the corrected Prop. 2.2, with the −2P̂ term the Entropy paper's print lacks.",
        ),
        Claim(
            "isit.eq11.branch",
            f"{ISIT} eq. (11) condition vs Entropy paper Lemma A7",
            Inequality((1 - 2 * rho) ** 2, a),
            Region((Param("rho", 0, sp.Rational(1, 2)), Param("a", 1, None))),
            description="The ISIT branch condition a_s >= 1 implies the condition of Lemma A7 (a_s >= (1 − 2P̂_min)²), so "
            "the closed form is used only where it is exact.",
        ),
        Claim(
            "isit.eq11.bound",
            f"{ISIT} eq. (11)",
            Numerical(upper_bound),
            sample,
            description="d_s (both branches: the closed form for a_s >= 1, √a_s below) is at least the exact rad_s "
            "(Entropy Prop. 1), as Theorem 3 needs.",
            points=20,
        ),
    ]
