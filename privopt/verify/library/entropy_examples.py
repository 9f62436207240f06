"""The Entropy paper's worked Examples 1–5: every printed number, recomputed.

The recomputation follows the paper's own formulas, written here independently of privopt's library
(Theorem 1, Prop. 2, Definition 3's Γ cone with exact vertex enumeration, the LP of Theorem 3, SRR,
IR); privopt's implementation is compared separately (the ``library`` checks). Printed numbers that
do not follow from the formulas ship as claims expected to fail, each with the value privopt gets
and the explanation; :func:`examples_table` lists every printed number with its recomputed value.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linprog
from scipy.stats import chi2

from privopt.verify.checkers.certificate import exact_vertices
from privopt.verify.checkers.numerical import printed_comparison
from privopt.verify.claims import Claim
from privopt.verify.library.common import close, library_check
from privopt.verify.statements import Discrepancy, Printed, PrintedNumber

ENTROPY = "Entropy paper"
P_HAT = np.array([[0.07, 0.10], [0.26, 0.57]])  # Example 1, rows s, columns u
P_TRUE = np.array([[0.1, 0.1], [0.2, 0.6]])
N_SAMPLES = 100
EPS = float(np.log(2))

PRINTED_V = (
    (0.0744, 0.3227, 0.5603, 0.0426),
    (0.2426, 0.2426, 0.4783, 0.0364),
    (0.3333, 0.3333, 0.1667, 0.1667),
    (0.1091, 0.4737, 0.2086, 0.2086),
    (0.0993, 0.4310, 0.0, 0.4697),
    (0.1121, 0.4864, 0.0, 0.4015),
    (0.3404, 0.3404, 0.0, 0.3191),
    (0.0770, 0.3343, 0.2944, 0.2944),
    (0.2234, 0.2234, 0.0, 0.5531),
    (0.4875, 0.1434, 0.0, 0.3690),
    (0.4360, 0.1283, 0.0, 0.4358),
    (0.4758, 0.1400, 0.1921, 0.1921),
    (0.3437, 0.1011, 0.2776, 0.2776),
    (0.1602, 0.1602, 0.6316, 0.0481),
    (0.1667, 0.1667, 0.3333, 0.3333),
    (0.3325, 0.0978, 0.5294, 0.0403),
)
PRINTED_MU = (
    0.1152,
    0.0942,
    0.0087,
    0.0135,
    0.1097,
    0.0968,
    0.0723,
    0.0080,
    0.1240,
    0.0878,
    0.1014,
    0.0106,
    0.0076,
    0.1240,
    0.0075,
    0.1083,
)
PRINTED_THETA = (1.1899, 0, 0, 0, 0, 0.7670, 0, 0, 0, 0, 1.4134, 0, 0, 0, 0, 0.6297)
PRINTED_Q = (
    (0.0885, 0.3840, 0.6667, 0.0507),
    (0.0860, 0.3731, 0.0, 0.3080),
    (0.6162, 0.1813, 0.0, 0.6159),
    (0.2094, 0.0616, 0.3333, 0.0254),
)


def _mi(p: np.ndarray, W: np.ndarray) -> float:
    """``I(X;Y)`` in nats for prior ``p`` and channel ``W`` (rows inputs)."""
    joint = p[:, None] * W
    q = joint.sum(axis=0, keepdims=True)
    mask = joint > 0
    return float(np.sum(joint[mask] * np.log((W / q)[mask])))


def _mu(p: np.ndarray, v: np.ndarray) -> float:
    """``μ(v) = Σ_x P_x v_x log(v_x / Pᵀv)`` (eq. 45)."""
    total = float(p @ v)
    mask = v > 0
    return float(np.sum(p[mask] * v[mask] * np.log(v[mask] / total)))


@cache
def _quantities() -> dict[str, Any]:
    """Every recomputed quantity of Examples 1–5 (Theorem 1 / Prop. 2 / Def. 3 / Thm 3 / IR)."""
    p = P_HAT.reshape(-1)
    B = float(np.log1p(chi2.ppf(0.95, 3) / N_SAMPLES))  # eq. (11): F⁻¹_{χ²,3}(0.95)/n
    p_s = P_HAT.sum(axis=1)
    cond = P_HAT / p_s[:, None]
    B_s = 2.0 * np.log((np.exp(B / 2) - (1 - p_s)) / p_s)  # Theorem 1, α = 2

    def lower(b_s: float, r: np.ndarray) -> np.ndarray:  # Prop. 2.1
        e = np.exp(b_s)
        return (e + 2 * r - 1 - np.sqrt((e - 1) * (e - (2 * r - 1) ** 2))) / (2 * e)

    L = np.vstack([lower(B_s[s], cond[s]) for s in range(2)])
    upper = 1 - L[:, ::-1]  # |U| = 2: R_u1 ∈ [L_u1, 1 − L_u2]
    rad = 2 * np.maximum(cond[:, 0] - L[:, 0], upper[:, 0] - cond[:, 0])
    # Definition 3: the Γ cone (with the s1 = s2 pairs, as printed), exact vertex enumeration.
    rows = []
    e = Fraction(float(np.exp(EPS)))
    Lf = [[Fraction(float(x)) for x in row] for row in L]
    for s1 in range(2):
        for s2 in range(2):
            for u1 in range(2):
                for u2 in range(2):
                    row = [Fraction(0)] * 4
                    row[2 * s1 + u1] += 1
                    row[2 * s2 + u2] -= e
                    for u in range(2):
                        row[2 * s1 + u] += Lf[s1][u]
                        row[2 * s1 + u1] -= Lf[s1][u]
                        row[2 * s2 + u] -= e * Lf[s2][u]
                        row[2 * s2 + u2] += e * Lf[s2][u]
                    rows.append(row)
    vertices = np.array([[float(x) for x in v] for v in exact_vertices(rows, 4)])
    mu = np.array([_mu(p, v) for v in vertices])
    lp = linprog(-mu, A_eq=vertices.T, b_eq=np.ones(4), bounds=[(0, None)] * len(vertices), method="highs-ds")
    theta = np.asarray(lp.x)
    used = theta > 1e-12
    Q = (vertices[used] * theta[used, None]).T  # (|X|, |Y|)
    # Example 4: GRR and SRR at ε = log 2.
    grr = np.full((4, 4), 1 / (np.exp(EPS) + 3))
    np.fill_diagonal(grr, np.exp(EPS) / (np.exp(EPS) + 3))
    C = np.exp(EPS) + np.exp(-EPS) + 2
    srr = (
        np.array(
            [
                [np.exp(EPS) if x == y else (np.exp(-EPS) if x // 2 == y // 2 else 1.0) for y in range(4)]
                for x in range(4)
            ]
        )
        / C
    )
    # Example 5: IR with GRR components, d from Theorem 5.
    spread = float(np.abs(cond[0] - cond[1]).sum())
    d = min(2.0, 2 * float(rad.max()) + spread)

    def ir(eps2: float) -> np.ndarray:
        e1, delta2 = EPS - eps2, np.log1p(2 * np.expm1(eps2) / d)
        r1 = np.array([[np.exp(e1), 1], [1, np.exp(e1)]]) / (np.exp(e1) + 1)
        r2 = np.array([[np.exp(delta2), 1], [1, np.exp(delta2)]]) / (np.exp(delta2) + 1)
        return np.kron(r1, r2)

    grid = np.linspace(0.0, EPS, 2001)
    values = np.array([_mi(p, ir(x)) for x in grid])
    best = float(grid[int(np.argmax(values))])
    return {
        "B": B,
        "D2": float(np.log(np.sum(p**2 / P_TRUE.reshape(-1)))),
        "p_s": p_s,
        "cond": cond,
        "B_s": B_s,
        "L": L,
        "upper": upper,
        "rad": rad,
        "lower": lower,
        "rows": len(rows),
        "vertices": vertices,
        "mu": mu,
        "theta": theta,
        "Q": Q,
        "I": float(-lp.fun),
        "I_true_Q": _mi(P_TRUE.reshape(-1), np.array(PRINTED_Q).T),
        "grr": grr,
        "srr": srr,
        "spread": spread,
        "d": d,
        "eps2": best,
        "ir": ir(best),
        "I_ir": float(values.max()),
    }


def _match(rows: tuple[tuple[float, ...], ...], candidates: np.ndarray) -> list[np.ndarray]:
    """For each printed row the nearest computed row (max-norm)."""
    return [candidates[int(np.argmin(np.abs(candidates - np.array(r)).max(axis=1)))] for r in rows]


def _printed(
    labels_values: Sequence[tuple[str, float] | tuple[str, float, int]],
    compute,
    decimals: int = 4,
    slack: float = 0.0,
) -> Printed:
    """Printed numbers ``(label, value[, decimals])`` against ``compute()``."""
    numbers = tuple(
        PrintedNumber(item[0], item[1], item[2] if len(item) > 2 else decimals) for item in labels_values
    )
    return Printed(numbers, compute, slack)


def claims() -> list[Claim]:
    q = _quantities

    def ex1() -> dict[str, float]:
        return {"B": q()["B"], "D_2(P̂||P*)": q()["D2"]}

    def conditionals() -> dict[str, float]:
        c, ps = q()["cond"], q()["p_s"]
        return {
            "P̂_s1": ps[0],
            "P̂_u1|s1": c[0, 0],
            "P̂_u2|s1": c[0, 1],
            "P̂_s2": ps[1],
            "P̂_u1|s2": c[1, 0],
            "P̂_u2|s2": c[1, 1],
        }

    def b_s() -> dict[str, float]:
        return {"B_s1": q()["B_s"][0], "B_s2": q()["B_s"][1]}

    def lower_bounds() -> dict[str, float]:
        L = q()["L"]
        return {"L_u1|s1": L[0, 0], "L_u2|s1": L[0, 1], "L_u1|s2": L[1, 0], "L_u2|s2": L[1, 1]}

    def lower_from_printed() -> dict[str, float]:
        lower, c = q()["lower"], q()["cond"]
        return {
            "L_u1|s1": lower(0.3782, c[0, 0]),
            "L_u2|s1": lower(0.3782, c[0, 1]),
            "L_u1|s2": lower(0.0900, c[1, 0]),
            "L_u2|s2": lower(0.0900, c[1, 1]),
        }

    def intervals() -> dict[str, float]:
        up, rad = q()["upper"], q()["rad"]
        return {"max R_u1|s1": up[0, 0], "max R_u1|s2": up[1, 0], "rad_s1": rad[0], "rad_s2": rad[1]}

    def intervals_from_printed() -> dict[str, float]:
        c = q()["cond"]
        up = (1 - 0.2829, 1 - 0.5337)
        low = (0.1620, 0.1923)
        return {
            "max R_u1|s1": up[0],
            "max R_u1|s2": up[1],
            "rad_s1": 2 * max(c[0, 0] - low[0], up[0] - c[0, 0]),
            "rad_s2": 2 * max(c[1, 0] - low[1], up[1] - c[1, 0]),
        }

    def f_prime_vertices() -> dict[str, float]:
        L = (0.1620, 0.2829, 0.1923, 0.5337)  # Example 2's printed lower bounds define its F'
        return {
            "v1 = (1 − L_u2|s1, L_u2|s1)": 1 - L[1],
            "v2 = (L_u1|s1, 1 − L_u1|s1)": 1 - L[0],
            "v3 = (1 − L_u2|s2, L_u2|s2)": 1 - L[3],
            "v4 = (L_u1|s2, 1 − L_u1|s2)": 1 - L[2],
        }

    def coefficient() -> dict[str, float]:
        return {"coefficient of P_s1,u1": 1 - 0.1620}

    def cone() -> dict[str, float]:
        return {"inequalities of form (43)": float(q()["rows"]), "vertices of Γ̂": float(len(q()["vertices"]))}

    def vertices() -> dict[str, float]:
        matched = _match(PRINTED_V, q()["vertices"])
        return {f"V[{i + 1},{j + 1}]": float(v[j]) for i, v in enumerate(matched) for j in range(4)}

    def mus() -> dict[str, float]:
        V, mu = q()["vertices"], q()["mu"]
        index = [int(np.argmin(np.abs(V - np.array(r)).max(axis=1))) for r in PRINTED_V]
        return {f"μ[{i + 1}]": float(mu[k]) for i, k in enumerate(index)}

    def thetas() -> dict[str, float]:
        V, theta = q()["vertices"], q()["theta"]
        index = [int(np.argmin(np.abs(V - np.array(r)).max(axis=1))) for r in PRINTED_V]
        return {f"θ̂[{i + 1}]": float(theta[k]) for i, k in enumerate(index)}

    def q_polyopt() -> dict[str, float]:
        columns = q()["Q"].T
        matched = _match(PRINTED_Q, columns)
        return {f"Q[y{i + 1}, x{j + 1}]": float(v[j]) for i, v in enumerate(matched) for j in range(4)}

    def utility() -> dict[str, float]:
        return {"I_P̂(X;Y)": q()["I"]}

    def utility_true() -> dict[str, float]:
        return {"I_P*(X;Y)": q()["I_true_Q"]}

    def ex4() -> dict[str, float]:
        grr, srr = q()["grr"], q()["srr"]
        p, pt = P_HAT.reshape(-1), P_TRUE.reshape(-1)
        return {
            "GRR diagonal": grr[0, 0],
            "GRR off-diagonal": grr[0, 1],
            "SRR diagonal": srr[0, 0],
            "SRR same s": srr[0, 1],
            "SRR other s": srr[0, 2],
            "I_P̂(X; GRR)": _mi(p, grr),
            "I_P̂(X; SRR)": _mi(p, srr),
            "I_P*(X; GRR)": _mi(pt, grr),
            "I_P*(X; SRR)": _mi(pt, srr),
        }

    def ex5() -> dict[str, float]:
        d, ir = q()["d"], q()["ir"]
        k = 2 / d
        return {
            "d": d,
            "2/d": k,
            "2/d − 1": k - 1,
            "2 − 2/d": 2 - k,
            "2·(2/d)": 2 * k,
            "2·(2/d − 1)": 2 * (k - 1),
            "optimal ε2": q()["eps2"],
            "I_P̂(X;Y)": q()["I_ir"],
            "Q_IR large entry": ir[0, 0],
            "Q_IR small entry": ir[0, 1],
            "I_P*(X;Y)": _mi(P_TRUE.reshape(-1), ir),
        }

    def ex5_from_printed() -> dict[str, float]:
        return {"d": min(2.0, 2 * max(0.6107, 0.3061) + float(q()["spread"]))}

    def polyopt_library(rng: np.random.Generator) -> Discrepancy:
        from privopt import designs
        from privopt.data.distribution import JointDistribution
        from privopt.sets import RenyiBall
        from privopt.utilities import MutualInformation

        P = JointDistribution(P_HAT, n=N_SAMPLES)
        value = MutualInformation(P).value(designs.polyopt(RenyiBall.confidence(P), EPS))
        return close(value, float(q()["I"]), "designs.polyopt: I_P̂(X;Y)")

    def ir_library(rng: np.random.Generator) -> Discrepancy:
        from privopt import mechanisms
        from privopt.data.distribution import JointDistribution
        from privopt.sets import RenyiBall

        P = JointDistribution(P_HAT, n=N_SAMPLES)
        design = mechanisms.independent_reporting(RenyiBall.confidence(P), EPS)
        return Discrepancy(
            max(abs(design.d - float(q()["d"])), abs(design.value - float(q()["I_ir"]))),
            1e-6,
            f"mechanisms.independent_reporting: d = {design.d:.6g}, ε2 = {design.eps2:.6g}, I = {design.value:.6g}",
        )

    def renyi_library(rng: np.random.Generator) -> Discrepancy:
        from privopt.data.distribution import JointDistribution
        from privopt.sets import RenyiBall

        F = RenyiBall.confidence(JointDistribution(P_HAT, n=N_SAMPLES))
        got = np.concatenate([[F.radius], F.projection_radii(), F.lower_bounds().reshape(-1)])
        want = np.concatenate([[q()["B"]], q()["B_s"], q()["L"].reshape(-1)])
        return Discrepancy(float(np.max(np.abs(got - want))), 1e-12, "RenyiBall.confidence: B, B_s, L")

    ex = ENTROPY + " Example"
    v_labels = [(f"V[{i + 1},{j + 1}]", PRINTED_V[i][j]) for i in range(16) for j in range(4)]
    q_labels = [(f"Q[y{i + 1}, x{j + 1}]", PRINTED_Q[i][j]) for i in range(4) for j in range(4)]
    theorem1 = "Theorem 1 gives B_s1 = 0.4067, B_s2 = 0.0903 (B = 0.0752, α = 2)"
    return [
        Claim(
            "entropy.ex1",
            f"{ex} 1",
            _printed([("B", 0.0752), ("D_2(P̂||P*)", 0.0281)], ex1),
            description="B = log(1 + F⁻¹_{χ²,3}(0.95)/100) and D_2(P̂||P*).",
        ),
        Claim(
            "entropy.ex2.conditionals",
            f"{ex} 2",
            _printed(
                [
                    ("P̂_s1", 0.17),
                    ("P̂_u1|s1", 0.4118),
                    ("P̂_u2|s1", 0.5882),
                    ("P̂_s2", 0.83),
                    ("P̂_u1|s2", 0.3133),
                    ("P̂_u2|s2", 0.6867),
                ],
                conditionals,
            ),
            description="The marginals and conditionals of P̂.",
        ),
        Claim(
            "entropy.ex2.Bs_as_printed",
            f"{ex} 2 (B_s1 = 0.3782, B_s2 = 0.0900)",
            _printed([("B_s1", 0.3782), ("B_s2", 0.0900)], b_s),
            expect="fails",
            description="The projection radii printed in Example 2, against Theorem 1.",
            note=f"{theorem1}. No single B reproduces both printed values (B_s1 = 0.3782 needs B = 0.0696, "
            "B_s2 = 0.0900 needs B = 0.0750); the text also calls the result 'Theorem 2'. Examples 3 and 5 were "
            "computed with Theorem 1's values (entropy.ex3.*, entropy.ex5).",
            library=library_check(("RenyiBall.confidence (B, B_s, L)", renyi_library)),
        ),
        Claim(
            "entropy.ex2.L_as_printed",
            f"{ex} 2 (L_u|s)",
            _printed(
                [("L_u1|s1", 0.1620), ("L_u2|s1", 0.2829), ("L_u1|s2", 0.1923), ("L_u2|s2", 0.5337)],
                lower_bounds,
            ),
            expect="fails",
            description="The printed lower bounds L_{u|s}, against Prop. 2.1 with Theorem 1's B_s.",
            note="Theorem 1 + Prop. 2.1 give L = 0.1552, 0.2727, 0.1921, 0.5334. The printed values are Prop. 2.1 at the "
            "printed B_s (entropy.ex2.L_from_printed_Bs): the L's are consistent with the misprinted B_s.",
        ),
        Claim(
            "entropy.ex2.L_from_printed_Bs",
            f"{ex} 2 (L_u|s from the printed B_s)",
            _printed(
                [("L_u1|s1", 0.1620), ("L_u2|s1", 0.2829), ("L_u1|s2", 0.1923), ("L_u2|s2", 0.5337)],
                lower_from_printed,
            ),
            description="Prop. 2.1 evaluated at the printed B_s1 = 0.3782 and B_s2 = 0.0900 reproduces the printed L's.",
        ),
        Claim(
            "entropy.ex2.rad_as_printed",
            f"{ex} 2 (F_U|s intervals and rad_s)",
            _printed(
                [("max R_u1|s1", 0.7171), ("max R_u1|s2", 0.4663), ("rad_s1", 0.6107), ("rad_s2", 0.3061)],
                intervals,
            ),
            expect="fails",
            description="The intervals [L_u1|s, 1 − L_u2|s] and rad_s = 2·max distance to their ends, against Theorem 1.",
            note="With Theorem 1: max R_u1|s1 = 0.7273, max R_u1|s2 = 0.4666, rad_s1 = 0.6310, rad_s2 = 0.3067. The printed "
            "values follow from the printed L's (entropy.ex2.rad_from_printed_L). The second rad is labelled rad_s1 in "
            "the text (a subscript misprint).",
        ),
        Claim(
            "entropy.ex2.rad_from_printed_L",
            f"{ex} 2 (intervals and rad_s from the printed L)",
            _printed(
                [("max R_u1|s1", 0.7171), ("max R_u1|s2", 0.4663), ("rad_s1", 0.6107), ("rad_s2", 0.3061)],
                intervals_from_printed,
            ),
            description="The printed intervals and radii follow from the printed L's.",
        ),
        Claim(
            "entropy.ex2.Fprime_vertices",
            f"{ex} 2 (vertices of F')",
            _printed(
                [
                    ("v1 = (1 − L_u2|s1, L_u2|s1)", 0.7171),
                    ("v2 = (L_u1|s1, 1 − L_u1|s1)", 0.8380),
                    ("v3 = (1 − L_u2|s2, L_u2|s2)", 0.4663),
                    ("v4 = (L_u1|s2, 1 − L_u1|s2)", 0.8077),
                ],
                f_prime_vertices,
            ),
            description="The vertices of F' = {P : P_U|s ∈ F_U|s} are (1 − L_u2|s, L_u2|s) and (L_u1|s, 1 − L_u1|s) on each s "
            "block (computed from the printed L's).",
        ),
        Claim(
            "entropy.ex2.coefficient_as_printed",
            f"{ex} 2 (0.1620 P_s1,u2 >= 0.83830 P_s1,u1)",
            _printed([("coefficient of P_s1,u1", 0.83830)], coefficient, decimals=5),
            expect="fails",
            description="The constraint 0.1620 <= P_u1|s1 rewritten linearly: 0.1620 P_s1,u2 <= (1 − 0.1620) P_s1,u1.",
            note="1 − 0.1620 = 0.8380; the printed 0.83830 has a stray digit (a typo; the vertex (0.1620, 0.8380) two lines "
            "later has it right).",
        ),
        Claim(
            "entropy.ex3.cone",
            f"{ex} 3 (16 inequalities, 16 vertices)",
            _printed([("inequalities of form (43)", 16), ("vertices of Γ̂", 16)], cone, decimals=0),
            description="Γ_ε with the s1 = s2 pairs has |S|²|U|² = 16 inequalities (4 of them, s1 = s2 and u1 = u2, are "
            "vacuous); with Theorem 1's L its slice Γ̂ has 16 vertices (exact enumeration).",
        ),
        Claim(
            "entropy.ex3.V",
            f"{ex} 3 (V)",
            _printed(v_labels, vertices, slack=2e-6),
            description="The 16 vertices of Γ̂ (matched to the nearest exact vertex).",
        ),
        Claim(
            "entropy.ex3.mu",
            f"{ex} 3 (μ)",
            _printed([(f"μ[{i + 1}]", v) for i, v in enumerate(PRINTED_MU)], mus, slack=2e-6),
            description="μ(v) (eq. 45) at each vertex.",
        ),
        Claim(
            "entropy.ex3.theta",
            f"{ex} 3 (θ̂)",
            _printed([(f"θ̂[{i + 1}]", float(v)) for i, v in enumerate(PRINTED_THETA)], thetas, slack=2e-6),
            description="The LP solution (46).",
        ),
        Claim(
            "entropy.ex3.Q",
            f"{ex} 3 (Q_PolyOpt)",
            _printed(q_labels, q_polyopt, slack=2e-6),
            description="The PolyOpt mechanism (columns θ̂_v v).",
            library=library_check(("designs.polyopt (paper-faithful) utility", polyopt_library)),
        ),
        Claim(
            "entropy.ex3.I",
            f"{ex} 3 (I_P̂ = 0.4228)",
            _printed([("I_P̂(X;Y)", 0.4228)], utility),
            description="I_P̂(X;Y) = μ·θ̂.",
        ),
        Claim(
            "entropy.ex3.I_true_as_printed",
            f"{ex} 3 (I_P* = 0.2804)",
            _printed([("I_P*(X;Y)", 0.2804)], utility_true),
            expect="fails",
            description="The 'true utility' of Q_PolyOpt under P* = (0.1, 0.1, 0.2, 0.6), computed from the printed matrix itself.",
            note="The printed Q_PolyOpt gives I_P*(X;Y) = 0.3702. No ordering of P*'s entries gives 0.2804 (the 12 orderings give "
            "0.2293–0.4704), while Examples 4 and 5 reproduce their I_P* with this P*.",
        ),
        Claim(
            "entropy.ex4",
            f"{ex} 4",
            _printed(
                [
                    ("GRR diagonal", 0.4, 1),
                    ("GRR off-diagonal", 0.2, 1),
                    ("SRR diagonal", 0.444, 3),
                    ("SRR same s", 0.111, 3),
                    ("SRR other s", 0.222, 3),
                    ("I_P̂(X; GRR)", 0.0419),
                    ("I_P̂(X; SRR)", 0.1005),
                    ("I_P*(X; GRR)", 0.0412),
                    ("I_P*(X; SRR)", 0.0942),
                ],
                ex4,
            ),
            description="GRR and SRR at ε = log 2 and their utilities under P̂ and P*.",
        ),
        Claim(
            "entropy.ex5",
            f"{ex} 5",
            _printed(
                [
                    ("d", 1.4591),
                    ("2/d", 1.3707),
                    ("2/d − 1", 0.3707),
                    ("2 − 2/d", 0.6293),
                    ("2·(2/d)", 2.7414),
                    ("2·(2/d − 1)", 0.7414),
                    ("optimal ε2", round(EPS, 4)),
                    ("I_P̂(X;Y)", 0.0755),
                    ("Q_IR large entry", 0.3517),
                    ("Q_IR small entry", 0.1483),
                    ("I_P*(X;Y)", 0.0718),
                ],
                ex5,
            ),
            description="IR with GRR components: d (Theorem 5, with Theorem 1's rad_s), the coefficients of δ2 and of the "
            "Kronecker product, the optimal split (the boundary ε2 = log 2), the utility and Q_IR.",
            library=library_check(("mechanisms.independent_reporting", ir_library)),
        ),
        Claim(
            "entropy.ex5.d_from_printed_rad",
            f"{ex} 5 (d from Example 2's printed rad_s)",
            _printed([("d", 1.4591)], ex5_from_printed),
            expect="fails",
            description="d recomputed from Example 2's printed rad_s1 = 0.6107.",
            note="Gives 1.4184, not 1.4591: Example 5 used Theorem 1's rad_s1 = 0.6310 (entropy.ex5), confirming that "
            "Example 2's printed B_s, L and rad are the odd ones out.",
        ),
    ]


def examples_table() -> pd.DataFrame:
    """Every printed number of Examples 1–5 with its recomputed value (one row per number)."""
    rows = []
    for claim in claims():
        assert isinstance(claim.statement, Printed)  # every example claim is made by _printed
        entries, _ = printed_comparison(claim.statement)
        for entry in entries:
            rows.append({"claim": claim.name, "source": claim.source, **entry})
    return pd.DataFrame(rows)
