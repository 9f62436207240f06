"""Foundation benchmarks: sampling 10^6 records, MI of a 64×64 mechanism, exact OUE for k = 16.

Goals (issue: foundation): ``Mechanism.apply`` within 1.5× of a numpy inverse-CDF reference.
"""

from __future__ import annotations

import numpy as np

import privopt as po
from benchmarks.timing import median_seconds, peak_bytes, report
from privopt.mechanisms import optimised_unary_encoding, unary_lip, unary_mutual_information


def reference_inverse_cdf(matrix: np.ndarray, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Plain numpy: for each input symbol, search its row's CDF for that group's uniforms."""
    cdf = np.cumsum(matrix, axis=1)
    u = rng.random(x.size)
    y = np.empty(x.size, dtype=np.int64)
    for symbol in range(matrix.shape[0]):
        mask = x == symbol
        y[mask] = np.searchsorted(cdf[symbol], u[mask], side="right")
    return np.minimum(y, matrix.shape[1] - 1)


def main() -> None:
    rng = np.random.default_rng(0)
    k, n = 16, 1_000_000
    W = po.mechanisms.grr(k, 1.0)
    x = rng.integers(0, k, n)
    labels = np.asarray(W.input_labels)[x]
    W.sample(x[:10], rng=0)  # build the cached CDF once, as a user's first call would
    t_ref = median_seconds(lambda: reference_inverse_cdf(W.matrix, x, np.random.default_rng(1)))
    t_sample = median_seconds(lambda: W.sample(x, rng=1))
    t_apply = median_seconds(lambda: W.apply(labels, rng=1))
    report(
        "Mechanism sampling, GRR k=16, 10^6 records (median of 7)",
        [
            ("numpy inverse-CDF reference", f"{t_ref * 1e3:8.1f} ms"),
            ("Mechanism.sample (indices)", f"{t_sample * 1e3:8.1f} ms   ratio {t_sample / t_ref:.2f}×"),
            (
                "Mechanism.apply (labels)",
                f"{t_apply * 1e3:8.1f} ms   ratio {t_apply / t_ref:.2f}×  (goal ≤ 1.5×)",
            ),
        ],
    )

    p = rng.dirichlet(np.ones(64))
    M = po.Mechanism(rng.dirichlet(np.ones(64), size=64))
    mi = po.MutualInformation(p)
    t_mi = median_seconds(lambda: mi.value(M), repeat=51)
    report("Mutual information of a 64×64 mechanism", [("MutualInformation.value", f"{t_mi * 1e6:8.1f} µs")])

    P = po.JointDistribution(rng.dirichlet(np.full(32, 0.5)).reshape(2, 16))
    code = optimised_unary_encoding(16, 1.0)
    t_oue_mi = median_seconds(lambda: unary_mutual_information(code, P, on="u"), repeat=5)
    t_oue_lip = median_seconds(lambda: unary_lip(code, P, on="u"), repeat=5)
    t_dense = median_seconds(
        lambda: po.MutualInformation(P, on="u").value(po.mechanisms.oue(16, 1.0)), repeat=3
    )
    mem = peak_bytes(lambda: unary_mutual_information(code, P, on="u"))
    mem_dense = peak_bytes(lambda: po.MutualInformation(P, on="u").value(po.mechanisms.oue(16, 1.0)))
    report(
        "OUE, k = 16 (65,536 outputs), exact",
        [
            ("grouped MI (no matrix)", f"{t_oue_mi * 1e3:8.1f} ms, peak {mem / 2**20:.1f} MiB"),
            ("grouped LIP (prefix rule)", f"{t_oue_lip * 1e3:8.2f} ms"),
            ("dense matrix + generic MI", f"{t_dense * 1e3:8.1f} ms, peak {mem_dense / 2**20:.1f} MiB"),
        ],
    )


if __name__ == "__main__":
    main()
