"""The independent checker on envelope cones beyond its event enumeration (``privopt.certificates.lagrangian``).

For Adult's pairs whose cones the exact event enumeration cannot take (marital-status × relationship,
marital-status × education, occupation × education; χ² set at 95 %, ε ∈ {0.5, 1, 2}):

1. column generation runs for :data:`COLGEN_SECONDS` and its certificate's duals ``λ`` are kept;
2. the solver's own pricer bounds ``δ(λ)`` at the route's tolerance (``0.5·gap_tolerance·value``, as the
   route does when it certifies): that tight claim ``δ̄`` and the pricer's seconds are the baseline;
3. the checker proves the claim with no room and with ``δ̄`` raised by ``s·value`` for ``s`` in
   :data:`SLACKS` (the route would then report the correspondingly larger upper bound); each row gives
   the seconds, the verdict and the checker/pricer time ratio. :data:`RECOMMENDED_SLACK` is marked.

``--quick`` runs occupation × education at ε = 1 with 30 s of column generation.
"""

from __future__ import annotations

import sys
import time

import privopt as po
from benchmarks.timing import peak_mib, report
from privopt.certificates import NotProved, SliceBound, check_bound, envelope
from privopt.experiments.figures.adult import adult_available, adult_joint
from privopt.routes.colgen import ColumnGenerationOptions
from privopt.routes.colgen_route import column_generation, seed_columns
from privopt.routes.pricing import PricingRequest, Refusal, envelope_pricer
from privopt.tolerances import GAP_TOLERANCE

#: Pairs beyond the event enumeration, smallest first.
PAIRS: tuple[tuple[str, str], ...] = (
    ("marital-status", "relationship"),
    ("marital-status", "education"),
    ("occupation", "education"),
)

#: Column-generation seconds before the duals are taken.
COLGEN_SECONDS = 120.0

#: The claim's slack, relative to the design's value (0: the pricer's claim as it is).
SLACKS = (0.0, 1e-6, 1e-5, 1e-4)

#: The slack this benchmark recommends the route to add to its claim (module docstring of
#: privopt.certificates.lagrangian; docs/compiler.md §4).
RECOMMENDED_SLACK = 0.0

#: Seconds the checker gets per claim.
CHECK_LIMIT = 600.0


def _rows(sensitive: str, public: str, eps: float, colgen_seconds: float) -> list[tuple[str, str]]:
    P = adult_joint(sensitive, public)
    problem = po.Problem(
        po.SensitiveLDP(eps, po.RenyiBall.confidence(P, level=0.95)), po.MutualInformation(P)
    )
    data = problem.get_problem_data()
    form = envelope.envelope_form(data.cone)
    assert not isinstance(form, NotProved)
    assert envelope.work_estimate(form) > envelope.MAX_WORK
    options = ColumnGenerationOptions(time_limit=colgen_seconds, progress=False)
    result = column_generation(data.utility, data.cone, options, seed_columns(data))
    label = f"{sensitive} × {public}, ε = {eps:g}"
    if result.certificate is None:
        return [(label, "no certificate from column generation")]
    duals, value = result.certificate.duals, result.lower
    pricer = envelope_pricer(data.utility, data.cone)
    assert not isinstance(pricer, Refusal)
    start = time.perf_counter()
    outcome = pricer.price(
        duals, PricingRequest(tolerance=0.5 * GAP_TOLERANCE * max(abs(value), 1e-3), max_nodes=10**7)
    )
    pricer_seconds = time.perf_counter() - start
    rows = [
        (
            label,
            f"value {value:.6f}, pricer δ̄ = {outcome.upper:.9g} (found {outcome.lower:.9g}, "
            f"{'complete' if outcome.complete else 'INCOMPLETE'}) in {pricer_seconds:.1f} s",
        )
    ]
    for slack in SLACKS:
        delta = outcome.upper + slack * abs(value)
        bound = SliceBound.build(duals, delta, "prior", data.utility.p, "bench")
        check = check_bound(data.cone, data.utility, bound, time_limit=CHECK_LIMIT)
        mark = " (recommended)" if slack == RECOMMENDED_SLACK else ""
        verdict = "proved" if check.valid else ("REFUTED" if check.refuted else "not proved")
        rows.append(
            (
                f"  slack {slack:g}·value{mark}",
                f"{check.seconds:6.1f} s ({check.seconds / pricer_seconds:.2f}× the pricer), {verdict}; "
                f"{check.method.split('(')[-1].rstrip(')')}",
            )
        )
    return rows


def main() -> None:
    quick = "--quick" in sys.argv
    if not adult_available():
        report("Checker on large envelope cones", [("skipped", "no UCI Adult files (set PRIVOPT_ADULT)")])
        return
    rows: list[tuple[str, str]] = []
    cases = (
        [("occupation", "education", 1.0)]
        if quick
        else [(s, u, e) for s, u in PAIRS for e in (0.5, 1.0, 2.0)]
    )
    for sensitive, public, eps in cases:
        found = _rows(sensitive, public, eps, 30.0 if quick else COLGEN_SECONDS)
        for name, text in found:
            print(f"  {name}: {text}", flush=True)
        rows.extend(found)
    rows.append(("peak memory", f"{peak_mib():.0f} MiB"))
    report("Independent checker on Adult's large envelope cones (Lagrangian method)", rows)


if __name__ == "__main__":
    main()
