"""Certified column generation on LDP cones past vertex enumeration (staircase pricing and its checker).

``po.Problem(po.LDP(ε), utility).solve()`` on ``n`` symbols with a Dirichlet(1) prior (seeded), for
mutual information, NMI and the four built-in f-divergences (``P1`` a second Dirichlet draw): route,
status, lower and certified upper bound, gap, seconds, and the independent checker's method and
seconds. Then, at the final duals of a column generation (not the prior-free claim ``λ = μ*(ε)·p``,
which the route certifies first and which closes at the checker's root), the route's pricer and the
checker side by side: the pricer's ``δ̄`` at the route's tolerance, the checker's proof of it and its
refutation of ``δ̄ − 10⁻⁷``.

``--quick`` runs mutual information on 40 symbols at ε = 1 only.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

import privopt as po
from benchmarks.timing import peak_mib, report
from privopt.certificates import SliceBound, check_bound
from privopt.routes.colgen import ColumnGenerationOptions
from privopt.routes.colgen_route import column_generation
from privopt.routes.pricing import PricingRequest, Refusal
from privopt.routes.pricing.certificate import certified_pricer
from privopt.routes.pricing.staircase import prior_free_bound
from privopt.tolerances import GAP_TOLERANCE

#: Symbols, privacy levels and the prior's seed of the table.
SIZES, EPSILONS, SEED = (40, 60), (0.5, 1.0, 2.0), 2

#: f-divergence generators measured (on 40 symbols, ε = 1).
GENERATORS = ("tv", "kl", "chi2", "hellinger")

#: Sizes at which the pricer and the checker are compared at column generation's final duals.
DUAL_SIZES = (20, 40, 60)


def _utility(name: str, n: int) -> po.MutualInformation | po.FDivergence:
    rng = np.random.default_rng(SEED)
    p = rng.dirichlet(np.ones(n))
    if name == "mi":
        return po.MutualInformation(p)
    if name == "nmi":
        return po.NormalizedMutualInformation(p)
    return po.FDivergence(name, p, rng.dirichlet(np.ones(n)))


def _solve_row(name: str, n: int, eps: float) -> tuple[str, str]:
    problem = po.Problem(po.LDP(eps), _utility(name, n))
    start = time.perf_counter()
    solution = problem.solve()
    seconds = time.perf_counter() - start
    check = solution.certificate.check
    checked = "not checked" if check is None else f"{check.method} in {check.seconds:.3f} s"
    extra = f", μ*(ε) = {prior_free_bound(math.exp(eps)):.12f}" if name == "mi" else ""
    return (
        f"{name}, n = {n}, ε = {eps:g}",
        f"{solution.route} {solution.status.value}: {solution.lower:.12f} <= OPT <= {solution.upper:.12f} "
        f"(gap {solution.gap:.1e}) in {seconds:.2f} s{extra}; checker: {checked}",
    )


def _dual_row(n: int) -> tuple[str, str]:
    utility = _utility("mi", n)
    data = po.Problem(po.LDP(1.0), utility).get_problem_data()
    result = column_generation(utility, data.cone, ColumnGenerationOptions(progress=False))
    pricer = certified_pricer(utility, data.cone)
    assert not isinstance(pricer, Refusal)
    start = time.perf_counter()
    tolerance = 0.5 * GAP_TOLERANCE * max(abs(result.lower), 1e-3)
    outcome = pricer.price(result.duals, PricingRequest(tolerance=tolerance, max_nodes=10**8))
    pricer_seconds = time.perf_counter() - start
    proof = check_bound(
        data.cone, utility, SliceBound.build(result.duals, outcome.upper, "prior", utility.p, "b")
    )
    short = SliceBound.build(result.duals, outcome.upper - 1e-7, "prior", utility.p, "b")
    refutation = check_bound(data.cone, utility, short)
    return (
        f"final duals, MI, n = {n}, ε = 1",
        f"pricer δ̄ = {outcome.upper:.6e} ({outcome.nodes} states, {pricer_seconds * 1e3:.1f} ms); checker "
        f"{'proves' if proof.valid else 'DOES NOT PROVE'} it in {proof.seconds * 1e3:.1f} ms "
        f"({proof.method.split('(')[-1].rstrip(')')}), "
        f"{'refutes' if refutation.refuted else 'DOES NOT REFUTE'} δ̄ − 1e-7 in {refutation.seconds * 1e3:.1f} ms",
    )


def main() -> None:
    quick = "--quick" in sys.argv
    cases = (
        [("mi", 40, 1.0)]
        if quick
        else [(name, n, eps) for name in ("mi", "nmi") for n in SIZES for eps in EPSILONS]
        + [(name, 40, 1.0) for name in GENERATORS]
    )
    rows: list[tuple[str, str]] = []
    for name, n, eps in cases:
        row = _solve_row(name, n, eps)
        print(f"  {row[0]}: {row[1]}", flush=True)
        rows.append(row)
    for n in () if quick else DUAL_SIZES:
        row = _dual_row(n)
        print(f"  {row[0]}: {row[1]}", flush=True)
        rows.append(row)
    rows.append(("peak memory", f"{peak_mib():.0f} MiB"))
    report("LDP cones past vertex enumeration (staircase pricing, staircase checker)", rows)


if __name__ == "__main__":
    main()
