"""Sample audits (docs/sample-audits.md): the ε lower bound for GRR (k = 2, ε = 1) at 99 % against the
reference figures of LDP-Auditor's formula (Clopper–Pearson intervals on each side, at α/2 each: 0.937 /
0.980 / 0.994 at 10⁴ / 10⁵ / 10⁶ reports per input). The goal of the sample-audit issue: at least those,
about 0.985 at 10⁵ with a joint test.

Both are computed on the same simulated reports: the reference on all of them (its one best event,
chosen without splitting, as LDP-Auditor does), privopt's ``audit_sampler(..., alternative="greater")``
with its own split (20 % to choose the test). Mean and minimum over seeds; the time of one audit.

Run: ``python -m benchmarks bench_sample_audit`` (about 30 s; ``--quick``: 2 seeds, no 10⁶).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy.stats import beta

import privopt as po
from benchmarks.timing import report

REFERENCE = {10_000: 0.937, 100_000: 0.980, 1_000_000: 0.994}


def reference_bound(counts_x: int, counts_other: int, n: int, alpha: float = 0.01) -> float:
    """LDP-Auditor's ε lower bound for one event: ``log(p_low / q_high)``, two-sided Clopper–Pearson
    intervals at ``1 − α/2`` on each probability (the figures above)."""
    low = beta.ppf(alpha / 4, counts_x, n - counts_x + 1)
    high = beta.ppf(1 - alpha / 4, counts_other + 1, n - counts_other)
    return float(np.log(low / high))


def run(per_input: int, seeds: range) -> dict[str, float]:
    W = po.mechanisms.grr(2, 1.0)
    sampler = po.clients.mechanism_sampler(W)
    ours, theirs, seconds = [], [], []
    for seed in seeds:
        start = time.perf_counter()
        result = po.audit_sampler(
            sampler, po.LDP(1.0), n=2 * per_input, alternative="greater", rng=seed, progress=False
        )
        seconds.append(time.perf_counter() - start)
        ours.append(result.eps_lower)
        ys = W.sample(np.repeat([0, 1], per_input), rng=seed + 10_000).reshape(2, per_input)
        zeros = (ys == 0).sum(axis=1)  # output 0 per input: the best event of either pair
        theirs.append(
            max(
                reference_bound(int(zeros[0]), int(zeros[1]), per_input),
                reference_bound(int(per_input - zeros[1]), int(per_input - zeros[0]), per_input),
            )
        )
    return {
        "ours": float(np.mean(ours)),
        "ours_min": float(np.min(ours)),
        "reference": float(np.mean(theirs)),
        "seconds": float(np.median(seconds)),
    }


def main() -> None:
    quick = "--quick" in sys.argv
    seeds = range(2) if quick else range(5)
    sizes = (10_000, 100_000) if quick else (10_000, 100_000, 1_000_000)
    rows = []
    for per_input in sizes:
        result = run(per_input, seeds)
        rows.append(
            (
                f"GRR k=2, eps=1, {per_input:.0e} per input",
                f"privopt {result['ours']:.4f} (min {result['ours_min']:.4f})  "
                f"LDP-Auditor formula {result['reference']:.4f} (figure {REFERENCE[per_input]:.3f})  "
                f"{result['seconds'] * 1e3:7.0f} ms per audit",
            )
        )
    report(f"Sample audit: 99 % lower bound on eps, mean over {len(seeds)} seeds", rows)
    needed = po.samples_needed(1.0, 1.2, alternative="greater")
    report(
        "Samples needed to show eps' = 1.2 against a claim of 1 (RR, 99 %, power 0.9)",
        [("reports per input", f"{needed}")],
    )


if __name__ == "__main__":
    main()
