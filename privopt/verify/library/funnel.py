"""Claims of the privacy-funnel paper (privacy-funnel-ldp-lip-2020): eq. (29) (LIP of GRR), eq. (32)
(LIP of OUE), Propositions 1–2 (conditional reporting, CR).

The paper's data item X is privopt's public part U; the LIP of a mechanism Q w.r.t. S is eq. (27),
``max_{y,s} |log(Σ_x Q(y|x) p(x|s) / Σ_x Q(y|x) p(x))|``. The text of this paper is an OCR scan and
its equations are garbled; the formulas below are read from the derivations (and recomputed).
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from privopt.tolerances import VERIFY_FLOAT_RTOL
from privopt.verify.claims import Claim
from privopt.verify.library.common import close, library_check, optional, random_distribution, sym
from privopt.verify.region import Param, Region
from privopt.verify.statements import AllOf, Discrepancy, Identity, Inequality

FUNNEL = "Privacy-funnel paper"

alpha = sym("alpha")
E = sp.exp(alpha)


def _simplex_params(prefix: str, n: int) -> tuple[list[sp.Expr], list[Param]]:
    """``n`` probabilities ``prefix1..prefix(n−1)`` and the last one as ``1 − Σ``, with nested bounds."""
    symbols = sp.symbols(f"{prefix}1:{n}", real=True)
    params, used = [], sp.Integer(0)
    for s in symbols:
        params.append(Param(s.name, 0, 1 - used))
        used = used + s
    return [*symbols, 1 - used], params


def _alpha_param() -> Param:
    return Param("alpha", 0, None, exp_symbol="E")


def _random_joint(rng: np.random.Generator):
    from privopt.data.distribution import JointDistribution

    n_s, n_u = int(rng.integers(2, 4)), int(rng.integers(2, 6))
    return JointDistribution(random_distribution(rng, n_s * n_u, floor=0.005).reshape(n_s, n_u))


def eq29_claims() -> list[Claim]:
    a = 4
    cond, c_params = _simplex_params("c", a)  # p(x|s)
    marg, m_params = _simplex_params("m", a)  # p(x)
    grr = sp.Matrix(a, a, lambda x, y: (E if x == y else 1) / (E + a - 1))
    parts = {}
    for y in range(a):
        ratio = sum(grr[x, y] * cond[x] for x in range(a)) / sum(grr[x, y] * marg[x] for x in range(a))
        parts[f"output {y}"] = Identity(ratio, (1 + (E - 1) * cond[y]) / (1 + (E - 1) * marg[y]))

    def audited(rng: np.random.Generator) -> Discrepancy:
        from privopt import mechanisms
        from privopt.audit import audit
        from privopt.definitions import LIP

        P = _random_joint(rng)
        a_ = float(rng.uniform(0, 5))
        report = audit(mechanisms.grr(P.n_u, a_), LIP(0.0, P, on="u"))
        return close(
            mechanisms.grr_lip(P, a_, on="u"),
            report.eps,
            "grr_lip (eq. 29) vs audit(grr, LIP) (eq. 27)",
        )

    return [
        Claim(
            "funnel.eq29",
            f"{FUNNEL} eq. (29)",
            AllOf(parts),
            Region((_alpha_param(), *c_params, *m_params)),
            description="For GRR^α on 4 symbols, the ratio of eq. (27), Σ_x GRR(y|x)p(x|s) / Σ_x GRR(y|x)p(x), equals "
            "(1 + (e^α − 1)p(y|s)) / (1 + (e^α − 1)p(y)) for every output (any alphabet: only Σ_x p(x|s) = 1 is used).",
            library=library_check(("privopt.mechanisms.grr_lip vs audit(grr, LIP)", audited)),
        )
    ]


def eq32_claims() -> list[Claim]:
    a = 3
    cond, c_params = _simplex_params("c", a)
    marg, m_params = _simplex_params("m", a)
    q = 1 / (E + 1)

    def oue(y: tuple[int, ...], x: int) -> sp.Expr:  # P(bit vector y | x), eq. (30)
        out = sp.Integer(1)
        for k in range(a):
            bit = sp.Rational(1, 2) if k == x else q
            out *= bit if y[k] else 1 - bit
        return out

    parts = {}
    for y in itertools.product((0, 1), repeat=a):
        ratio = sum(oue(y, x) * cond[x] for x in range(a)) / sum(oue(y, x) * marg[x] for x in range(a))
        inside_c = sum(cond[x] for x in range(a) if y[x])
        inside_m = sum(marg[x] for x in range(a) if y[x])
        parts[f"output {''.join(map(str, y))}"] = Identity(
            ratio, (1 + (E - 1) * inside_c) / (1 + (E - 1) * inside_m)
        )

    def audited(rng: np.random.Generator) -> Discrepancy:
        from privopt import mechanisms
        from privopt.audit import audit
        from privopt.definitions import LIP

        P = _random_joint(rng)
        a_ = float(rng.uniform(0, 5))
        code = mechanisms.optimised_unary_encoding(P.n_u, a_)
        report = audit(mechanisms.oue(P.n_u, a_), LIP(0.0, P, on="u"))
        return close(
            mechanisms.unary_lip(code, P, on="u"), report.eps, "unary_lip (eq. 32) vs audit(oue, LIP)"
        )

    return [
        Claim(
            "funnel.eq32",
            f"{FUNNEL} eqs. (30)–(32)",
            AllOf(parts),
            Region((_alpha_param(), *c_params, *m_params)),
            description="For OUE^α on 3 symbols (p = 1/2, q = 1/(e^α + 1)), the ratio of eq. (27) at every output "
            "y ⊆ X equals (1 + (e^α − 1)Σ_{x∈y} p(x|s)) / (1 + (e^α − 1)Σ_{x∈y} p(x)), so eq. (32) is the LIP of OUE.",
            note="The OCR text of eq. (32) is garbled; the formula is read from eq. (31) and recomputed here.",
            library=library_check(("privopt.mechanisms.unary_lip vs audit(oue, LIP)", audited)),
        )
    ]


def _cr(c: int, a: int) -> tuple[list[Param], list[sp.Expr], list[list[sp.Expr]], sp.Matrix]:
    """Symbols, prior ``p_s``, conditionals ``p(x|s)`` and the channel of CR^α (Algorithm 1)."""
    prior, s_params = _simplex_params("ps", c)
    conditionals, params = [], [*s_params]
    for s in range(c):
        cond, cp = _simplex_params(f"c{s}_", a)
        conditionals.append(cond)
        params += cp
    rows = []
    for s in range(c):
        for x in range(a):
            rows.append(
                [
                    (E * int(x == y) + sum(conditionals[t][y] for t in range(c) if t != s)) / (E + c - 1)
                    for y in range(a)
                ]
            )
    return [_alpha_param(), *params], prior, conditionals, sp.Matrix(rows)


def cr_claims() -> list[Claim]:
    prop1, prop2 = {}, {}
    regions = []
    for c, a in ((2, 2), (3, 2)):
        params, prior, cond, W = _cr(c, a)
        regions.append(params)
        p_ys = [[sum(W[s * a + x, y] * cond[s][x] for x in range(a)) for y in range(a)] for s in range(c)]
        p_y = [sum(prior[s] * p_ys[s][y] for s in range(c)) for y in range(a)]
        for y in range(a):
            total = sum(cond[t][y] for t in range(c))
            marginal = sum(prior[t] * cond[t][y] for t in range(c))
            for s in range(c):
                prop1[f"|S| = {c}: y = {y}, s = {s}"] = Identity(
                    p_ys[s][y] / p_y[y], ((E - 1) * cond[s][y] + total) / ((E - 1) * marginal + total)
                )
                for s2 in range(c):
                    if s2 != s:
                        prop2[f"|S| = {c}: y = {y}, s = {s} vs {s2}"] = Inequality(
                            p_ys[s][y], E * p_ys[s2][y]
                        )

    def leakage(rng: np.random.Generator) -> Discrepancy:
        from privopt.audit import audit
        from privopt.definitions import LIP

        cr_lip_leakage = optional("privopt.mechanisms.conditional_reporting_lip", "cr_lip_leakage")
        cr_lip_channel = optional("privopt.mechanisms.conditional_reporting_lip", "cr_lip_channel")
        P = _random_joint(rng)
        a_ = float(rng.uniform(0, 5))
        report = audit(cr_lip_channel(P, a_), LIP(0.0, P))
        cond, marg = P.conditional_u_given_s(), P.p_u
        b = cond.sum(axis=0)
        want = float(np.max(np.abs(np.log(np.expm1(a_) * cond + b) - np.log(np.expm1(a_) * marg + b))))
        return Discrepancy(
            max(abs(report.eps - want), abs(float(cr_lip_leakage(P, a_)) - want)) / max(1.0, want),
            VERIFY_FLOAT_RTOL,
            f"eq. (33) {want:.10g}, audit of cr_lip_channel {report.eps:.10g}, cr_lip_leakage {cr_lip_leakage(P, a_):.10g}",
        )

    def ldp(rng: np.random.Generator) -> Discrepancy:
        from privopt.audit import audit
        from privopt.definitions import SensitiveLDP

        cr_lip_channel = optional("privopt.mechanisms.conditional_reporting_lip", "cr_lip_channel")
        P = _random_joint(rng)
        a_ = float(rng.uniform(0, 5))
        report = audit(cr_lip_channel(P, a_), SensitiveLDP(a_, P))
        return Discrepancy(
            max(0.0, report.eps - a_),
            1e-9,
            f"audit(cr_lip_channel, SensitiveLDP(α, P)): {report.eps:.10g} vs α = {a_:.10g}",
        )

    region2 = Region(tuple(regions[0]))
    region3 = Region(tuple(regions[1]))
    return [
        Claim(
            "funnel.prop1",
            f"{FUNNEL} Proposition 1, eq. (33)",
            AllOf({k: v for k, v in prop1.items() if k.startswith("|S| = 2")}),
            region2,
            description="For CR^α (|S| = 2, |X| = 2) P(y|s)/P(y) = ((e^α − 1)p(y|s) + Σ_s' p(y|s')) / ((e^α − 1)p(y) + "
            "Σ_s' p(y|s')): its LIP is L(α) of eq. (33), so CR^α is ε-LIP iff ε >= L(α).",
            library=library_check(("privopt.mechanisms.conditional_reporting_lip", leakage)),
        ),
        Claim(
            "funnel.prop1.three_secrets",
            f"{FUNNEL} Proposition 1, eq. (33)",
            AllOf({k: v for k, v in prop1.items() if k.startswith("|S| = 3")}),
            region3,
            description="The same with |S| = 3 secrets.",
        ),
        Claim(
            "funnel.prop2",
            f"{FUNNEL} Proposition 2",
            AllOf({k: v for k, v in prop2.items() if k.startswith("|S| = 2")}),
            region2,
            description="CR^α is α-LDP w.r.t. S: P(y|s) <= e^α P(y|s') (|S| = 2, |X| = 2); hence also L(α) <= α.",
            library=library_check(("audit(cr_lip_channel, SensitiveLDP(α, P))", ldp)),
        ),
        Claim(
            "funnel.prop2.three_secrets",
            f"{FUNNEL} Proposition 2",
            AllOf({k: v for k, v in prop2.items() if k.startswith("|S| = 3")}),
            region3,
            description="The same with |S| = 3 secrets.",
        ),
    ]


def claims() -> list[Claim]:
    return [*eq29_claims(), *eq32_claims(), *cr_claims()]
