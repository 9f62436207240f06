# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Auditing code, not only matrices: samplers, a bug, and LDP libraries
#
# `po.audit` computes the realized ε of a *matrix*. Deployed mechanisms are *code*: `po.audit_sampler`
# treats the code as a black box, draws reports from it, and returns an interval `[eps_lower, eps_upper]`
# for the realized ε of the channel it implements, at 99 % confidence, under any privopt definition — with
# the test that produced the lower end (inputs, event, counts) as a witness. `report.satisfied` is False
# when the reports *show* a violation. The statistics are on the docs page *Audit code from its reports*.
#
# Three kinds of code, side by side with the exact audit of the matrix each should implement:
#
# 1. the samplers of designed mechanisms — GRR, and the optimal mechanism for LDP w.r.t. a sensitive
#    attribute over a Rényi ball (a robust definition: the audit is over the whole ball);
# 2. buggy code — a GRR that reports the truth 0.05 too often, an OUE whose q is computed for 2ε, and NR
#    (designed for the point estimate P̂) audited over the ball;
# 3. the clients of two LDP libraries, pure-ldp and multi-freq-ldpy (`pip install 'privopt[ldp]'`).
#
# CI runs 10⁴ reports per input; `PRIVOPT_FULL=1` runs 10⁵.

# %%
import math
import os

import numpy as np
import pandas as pd
from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Client
from multi_freq_ldpy.pure_frequency_oracles.UE import UE_Client
from pure_ldp.frequency_oracles.direct_encoding import DEClient
from pure_ldp.frequency_oracles.local_hashing import LHClient
from pure_ldp.frequency_oracles.unary_encoding import UEClient

import privopt as po
from privopt.mechanisms.unary_encoding import UnaryEncoding, unary_matrix

FULL = os.environ.get("PRIVOPT_FULL") == "1"
PER_INPUT = 100_000 if FULL else 10_000
EPS = 1.0

# %% [markdown]
# ## The cases
#
# Each case is a sampler, the definition it claims and — where there is one — the matrix the code should
# implement. The designed mechanisms' samplers are `po.clients.mechanism_sampler(W)`. The bugs are
# written as the code a developer might have written.

# %%
P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=300)  # Entropy paper Example 1's P̂, n = 300
F = po.RenyiBall.confidence(P)  # its 95 % χ² ball
robust = po.Problem(po.SensitiveLDP(EPS, F), po.MutualInformation(P)).solve().mechanism
nr = po.designs.nr(P, EPS)  # optimal for P̂ alone


def buggy_grr(x, rng):
    """GRR on 4 symbols whose probability of the truth is 0.05 too high."""
    p = math.exp(EPS) / (math.exp(EPS) + 3) + 0.05
    return x if rng.random() < p else int(rng.choice([y for y in range(4) if y != x]))


buggy_grr.inputs = (0, 1, 2, 3)  # the inputs to draw for (privopt's samplers carry theirs)


def buggy_grr_matrix():
    p = math.exp(EPS) / (math.exp(EPS) + 3) + 0.05
    matrix = np.full((4, 4), (1 - p) / 3)
    np.fill_diagonal(matrix, p)
    return po.Mechanism(matrix)


oue_2eps = po.Mechanism(unary_matrix(UnaryEncoding(4, 0.5, 1 / (math.exp(2 * EPS) + 1), "OUE, q for 2ε")))

cases = {
    "GRR (designed)": (po.clients.mechanism_sampler(po.mechanisms.grr(4, EPS)), po.LDP(EPS), po.mechanisms.grr(4, EPS)),
    "robust design over the ball": (po.clients.mechanism_sampler(robust), po.SensitiveLDP(EPS, F), robust),
    "GRR, truth +0.05 (bug)": (buggy_grr, po.LDP(EPS), buggy_grr_matrix()),
    "OUE, q for 2ε (bug)": (po.clients.mechanism_sampler(oue_2eps), po.LDP(EPS), oue_2eps),
    "NR at P̂": (po.clients.mechanism_sampler(nr), po.SensitiveLDP(EPS, P), nr),
    "NR over the ball (bug)": (po.clients.mechanism_sampler(nr), po.SensitiveLDP(EPS, F), nr),
    "pure-ldp DE (GRR)": (po.clients.pure_ldp(DEClient(EPS, 4)), po.LDP(EPS), po.mechanisms.grr(4, EPS, labels=(1, 2, 3, 4))),
    "pure-ldp OUE": (po.clients.pure_ldp(UEClient(EPS, 4, use_oue=True)), po.LDP(EPS), po.mechanisms.oue(4, EPS, labels=(1, 2, 3, 4))),
    "pure-ldp OLH": (po.clients.pure_ldp(LHClient(EPS, 4, use_olh=True)), po.LDP(EPS), None),
    "multi-freq-ldpy GRR": (po.clients.multi_freq_ldpy(GRR_Client, 4, EPS), po.LDP(EPS), po.mechanisms.grr(4, EPS)),
    "multi-freq-ldpy OUE": (po.clients.multi_freq_ldpy(UE_Client, 4, EPS), po.LDP(EPS), po.mechanisms.oue(4, EPS)),
}  # fmt: skip

# %% [markdown]
# ## The audits
#
# For each case: the exact audit of the matrix, the sample audit of the code (`PER_INPUT` reports per
# input, 99 % two-sided), and the verdict. For the buggy GRR the "matrix" is the one the bug implements
# (the design is GRR, ε = 1).

# %%
rows = []
reports = {}
for name, (sampler, definition, matrix) in cases.items():
    n_inputs = len(definition.input_labels() or sampler.inputs)
    report = po.audit_sampler(sampler, definition, n=n_inputs * PER_INPUT, rng=2026, progress=False)
    reports[name] = report
    exact = po.audit(matrix, definition) if matrix is not None else None
    rows.append(
        {
            "case": name,
            "definition": definition.name,
            "exact ε of the matrix": "—" if exact is None else (f"{exact.eps:.3f}" if exact.exact else f"[{exact.lower:.3f}, {exact.upper:.3f}]"),
            "sample ε interval": f"[{report.eps_lower:.3f}, {report.eps_upper:.3f}]",
            "verdict": "violation shown" if not report.satisfied else "no violation shown",
            "test": report.witness.test if report.witness else "—",
        }
    )  # fmt: skip
pd.DataFrame(rows).set_index("case")

# %% [markdown]
# Every interval contains the exact realized ε of the matrix the code implements. The correct samplers
# pass; the three bugs are shown at 99 % confidence. NR is the instructive one: at the point estimate P̂
# its sampler passes, exactly as its matrix does — only the audit *over the ball* shows that it is not
# robust. The libraries' GRR and OUE clients pass at their ε (their OLH too, after post-processing its
# `(value, seed)` reports into the inputs they support).
#
# ## The witnesses
#
# A lower bound comes with the test behind it: which two sides were compared (for a robust definition,
# at which distribution of the ball), on which event, and the counts in each stream. Anyone can re-check
# it with the exact test named.

# %%
for name in ("GRR, truth +0.05 (bug)", "NR over the ball (bug)", "pure-ldp OUE"):
    print(f"{name}:\n{reports[name]}\n")

# %% [markdown]
# ## Does the code implement the design?
#
# The sample audit asks whether the code is private. `po.conformance` asks a different question: does the
# code draw from the design's rows? A χ² test per input (Monte Carlo when expected counts are small). The
# buggy GRR is private at ε ≈ 1.2 — and not the design.

# %%
grr4 = po.mechanisms.grr(4, EPS)
checks = {
    "GRR (designed)": (po.clients.mechanism_sampler(grr4), grr4),
    "GRR, truth +0.05 (bug)": (buggy_grr, grr4),
    "pure-ldp DE (GRR)": cases["pure-ldp DE (GRR)"][0::2],
    "multi-freq-ldpy OUE": cases["multi-freq-ldpy OUE"][0::2],
}
pd.DataFrame(
    [
        {"code": name, "design": design.name or repr(design), "p-value": (c := po.conformance(s, design, n=4 * PER_INPUT, rng=7, progress=False)).p_value, "worst input": c.worst_input}
        for name, (s, design) in checks.items()
    ]
).set_index("code")  # fmt: skip

# %% [markdown]
# ## How many reports?
#
# `po.samples_needed(eps, eps_alt)` is the number of reports per input with which the audit shows, with
# probability 0.9, that a claim ε is violated by a channel of realized ε′ — binary randomized response at
# ε′, or a given mechanism. The buggy GRR needs a few thousand per input; a subtler bug many more.

# %%
pd.DataFrame(
    [
        {"alternative": f"RR at ε′ = {alt}", "reports per input": po.samples_needed(EPS, alt)}
        for alt in (1.05, 1.1, 1.2, 1.5, 2.0)
    ]
    + [{"alternative": "GRR, truth +0.05", "reports per input": po.samples_needed(EPS, mechanism=buggy_grr_matrix())}]
).set_index("alternative")  # fmt: skip
