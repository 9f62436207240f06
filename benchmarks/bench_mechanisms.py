"""Low-complexity mechanisms (issue: low-complexity and additive-noise mechanisms). Medians of wall time.

Goals: independent and conditional reporting on |S| = |U| = 5 and on Adult's occupation × education
(15 × 16) < 1 s each; Laplace calibration < 10 ms. The design (radii, 1-D search) and the robust audit
that every design runs are timed separately: the audit's lower end (a local search over the Rényi
ball) dominates on 15 × 16.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import privopt as po
from benchmarks.timing import median_seconds, report

ADULT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult"


def synthetic_ball(seed: int = 0, n: int = 1000) -> po.RenyiBall:
    """ISIT paper §V: Jeffreys P*, n samples, the 95% χ² set; |S| = |U| = 5."""
    rng = np.random.default_rng(seed)
    while True:
        counts = rng.multinomial(n, rng.dirichlet(np.full(25, 0.5))).reshape(5, 5)
        if np.all(counts.sum(axis=1) > 0):
            return po.RenyiBall.confidence(po.JointDistribution.from_counts(counts))


def adult_ball() -> po.RenyiBall | None:
    folder = ADULT if (ADULT / "adult.data").is_file() else Path("/work/shared/data/adult")
    if not (folder / "adult.data").is_file():
        return None
    frame = po.datasets.load_adult(str(folder), ["occupation", "education"])
    return po.RenyiBall.confidence(
        po.JointDistribution.from_frame(frame, sensitive="occupation", public="education")
    )


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:9.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:9.1f} µs"


def main() -> None:
    quick = "--quick" in sys.argv
    repeat = 3 if quick else 7
    cases = [("|S| = |U| = 5 (n = 1000)", synthetic_ball())]
    adult = adult_ball()
    if adult is not None:
        cases.append(("Adult occupation × education (15 × 16)", adult))
    eps = 1.0
    for title, F in cases:
        rows = []
        for name, design in (
            ("IR", po.mechanisms.independent_reporting),
            ("CR", po.mechanisms.conditional_reporting),
        ):
            build = median_seconds(lambda d=design, F=F: d(F, eps, verify_audit=False), repeat=repeat)
            result = design(F, eps, verify_audit=False)
            audit = median_seconds(
                lambda r=result, F=F: po.audit(r.mechanism, po.SensitiveLDP(eps, F)), repeat=1 if quick else 3
            )
            rows.append(
                (
                    f"{name} design (radii + 1-D search, {result.evaluations} evaluations)",
                    _ms(build) + "   (goal < 1 s)",
                )
            )
            rows.append((f"{name} robust audit (po.audit, run by default)", _ms(audit)))
        report(f"Independent / conditional reporting at ε = {eps}: {title}", rows)

    prior = [0.3, 0.7]
    calibration = median_seconds(
        lambda: po.mechanisms.laplace_scale_estimated(1.0, prior, 1000, 1e-9), repeat=101
    )
    delta1 = median_seconds(
        lambda: po.mechanisms.gaussian_mechanism(1.5).delta(0.4, po.L1Ball([0.5, 0.5], 0.1)), repeat=repeat
    )
    report(
        "Additive noise (PML paper §VI)",
        [
            ("Laplace calibration b(ε = 1, δ = 1e-9, m = 1000)", _ms(calibration) + "   (goal < 10 ms)"),
            ("Gaussian δ1 over an ℓ1 ball (scan + Brent)", _ms(delta1)),
        ],
    )


if __name__ == "__main__":
    main()
