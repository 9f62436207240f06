"""Certified gaps on definitions researchers invent (the user-definitions issue's table).

Each row is stated as a new user would, with :class:`~privopt.RatioConstraints` (per-pair scales) or
:class:`~privopt.MetricLDP`, mutual information under a seeded Dirichlet(1) prior, ``route="colgen"``
and ``colgen={"time_limit": T}`` (120 s by default, ``--budget S`` to change it). A row reports the
bounds, the relative gap, the seconds and whether the independent checker proved the upper bound.
``--seeds 1,2,3`` runs each row at several seeds (priors, budgets and graphs drawn from each);
``--sizes 20,40`` at several alphabet sizes (the grids keep their side); ``--only NAME`` one family;
``--sibson`` adds Sibson's α-MI (α = 2) under LDP on 8, 16 and 40 symbols; ``--adult`` adds KL, χ² and
Hellinger between Adult's marital-status × education prior ``P_X`` and the uniform one under LDP w.r.t. S
over the χ² ball (95 %), ``route="auto"``.

- ID-LDP (input-discriminative LDP, Gu et al., ICDE 2020): per-input budgets ``ε_x`` drawn from
  ``{1, 2, 4}·ε``, each pair at the level ``min(ε_x, ε_x')``;
- Blowfish (He et al., SIGMOD 2014): a policy graph in which each symbol is tied to 3 others drawn
  at random (the graph made connected by a path), each edge at level ``ε`` both ways;
- mixed levels: ``ε`` among the first half of the symbols, ``3ε`` for every other pair;
- a 6×6 and an 8×8 grid with the Manhattan metric, ``MetricLDP(0.4, d)``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

import privopt as po
from benchmarks.timing import report

BUDGET = 120.0
EPS = 1.0


def _pairs(levels: np.ndarray) -> list[tuple[po.Statistic, po.Statistic, float]]:
    """Both directions of every pair with a finite level (in units of ε)."""
    n = levels.shape[0]
    return [
        (po.given(x=a), po.given(x=b), float(levels[a, b]))
        for a in range(n)
        for b in range(n)
        if a != b and np.isfinite(levels[a, b])
    ]


def id_ldp(rng: np.random.Generator, n: int) -> po.RatioConstraints:
    budgets = rng.choice([1.0, 2.0, 4.0], size=n)
    levels = np.minimum.outer(budgets, budgets)
    return po.RatioConstraints(_pairs(levels), eps=EPS, n_inputs=n, name="ID-LDP")


def blowfish(rng: np.random.Generator, n: int) -> po.RatioConstraints:
    levels = np.full((n, n), np.inf)
    for a in range(n):
        others = rng.choice(np.delete(np.arange(n), a), size=3, replace=False)
        levels[a, others] = levels[others, a] = 1.0
    order = rng.permutation(n)  # a path through every symbol keeps the graph connected
    levels[order[:-1], order[1:]] = levels[order[1:], order[:-1]] = 1.0
    return po.RatioConstraints(_pairs(levels), eps=EPS, n_inputs=n, name="Blowfish")


def mixed(rng: np.random.Generator, n: int) -> po.RatioConstraints:
    levels = np.full((n, n), 3.0)
    levels[: n // 2, : n // 2] = 1.0
    return po.RatioConstraints(_pairs(levels), eps=EPS, n_inputs=n, name="mixed levels")


def grid(side: int) -> po.MetricLDP:
    cells = [(i, j) for i in range(side) for j in range(side)]
    d = np.array([[abs(a[0] - b[0]) + abs(a[1] - b[1]) for b in cells] for a in cells], dtype=float)
    return po.MetricLDP(0.4, d)


FAMILIES: dict[str, Callable[[np.random.Generator, int], tuple[po.PrivacyDefinition, int]]] = {
    "ID-LDP": lambda rng, n: (id_ldp(rng, n), n),
    "Blowfish": lambda rng, n: (blowfish(rng, n), n),
    "mixed levels": lambda rng, n: (mixed(rng, n), n),
    "6x6 grid metric": lambda rng, n: (grid(6), 36),
    "8x8 grid metric": lambda rng, n: (grid(8), 64),
}


def run(
    definition: po.PrivacyDefinition, utility: po.SubConvexUtility, budget: float, route: str = "colgen"
) -> str:
    start = time.perf_counter()
    try:
        solution = po.Problem(
            definition, utility, time_limit=budget, colgen={"time_limit": budget, "progress": False}
        ).solve(route=route)
    except po.PrivoptError as error:
        return f"{type(error).__name__} after {time.perf_counter() - start:.1f} s: {str(error)[:160]}"
    seconds = time.perf_counter() - start
    certificate = solution.certificate
    return (
        f"{solution.lower:.6f} <= OPT <= {solution.upper:.6f} (gap {100 * solution.gap:.3g} %), "
        f"{seconds:.1f} s, {solution.status.value}, "
        f"{'checked' if certificate.checked else 'NOT checked: ' + certificate.checked_by[:120]}"
    )


def _argument(name: str, default: str) -> str:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main() -> None:
    budget = float(_argument("--budget", str(BUDGET)))
    seeds = [int(s) for s in _argument("--seeds", "0").split(",")]
    sizes = [int(s) for s in _argument("--sizes", "40").split(",")]
    only = _argument("--only", "")
    rows = []
    for name, build in FAMILIES.items():
        if only and only != name:
            continue
        for n in sizes if "grid" not in name else sizes[:1]:
            for seed in seeds:
                rng = np.random.default_rng(seed)
                definition, inputs = build(rng, n)
                prior = np.random.default_rng(1000 + seed).dirichlet(np.ones(inputs))
                label = f"{name}, {inputs} symbols, seed {seed}, MI"
                rows.append((label, run(definition, po.MutualInformation(prior), budget)))
                print(f"  {label}: {rows[-1][1]}", flush=True)
    if "--sibson" in sys.argv:
        for n in (8, 16, 40):
            prior = np.random.default_rng(1000).dirichlet(np.ones(n))
            label = f"Sibson MI (α = 2) under LDP(1), {n} symbols"
            rows.append((label, run(po.LDP(1.0), po.SibsonMutualInformation(prior, 2.0), budget)))
            print(f"  {label}: {rows[-1][1]}", flush=True)
    if "--adult" in sys.argv:
        from privopt.experiments.figures.adult import adult_joint

        P = adult_joint("marital-status", "education")
        F = po.RenyiBall.confidence(P, level=0.95)
        uniform = np.full(P.n_x, 1.0 / P.n_x)
        for kind in ("kl", "chi2", "hellinger"):
            label = f"{kind.upper()}(P_X, uniform) under LDP w.r.t. S (χ² ball), Adult marital × education"
            rows.append(
                (label, run(po.SensitiveLDP(1.0, F), po.FDivergence(kind, P.p_x, uniform), budget, "auto"))
            )
            print(f"  {label}: {rows[-1][1]}", flush=True)
    report(f"certified gaps on user definitions (colgen, {budget:.0f} s each)", rows)


if __name__ == "__main__":
    main()
