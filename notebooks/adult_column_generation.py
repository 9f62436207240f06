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
# # Robust mechanisms at Adult's scale: column generation on occupation × education
#
# **The paper's limit** (Entropy paper §8.1): for occupation vs education *"the polyhedron Γ̂ was
# 240-dimensional and was defined by 57,840 inequality constraints"*, and PolyOpt (vertex enumeration)
# was dropped; only IR, SRR, GRR and NR were shown. privopt's vertex route refuses it too (the
# McMullen bound is about 10^366 vertices).
#
# **What privopt claims instead**: `route="colgen"` designs an (ε, χ²-ball)-RLDP mechanism there that
# (a) passes the robust audit, (b) has more mutual information than IR, SRR, GRR and CR, and (c) comes
# with a certified upper bound on the optimum, hence a gap — within 10 minutes per ε for
# occupation × education (15 × 16) and 3 minutes for marital-status × education (7 × 16) and
# occupation × relationship (15 × 6). NR (the non-robust optimum at P̂) is out of enumeration's reach
# as well; it is shown *bounded*: column generation at the point for a short budget, a lower bound on
# NR's value.
#
# CI runs occupation × education at ε = 1 with a 30-second budget; `PRIVOPT_FULL=1` runs the three
# pairs at ε ∈ {0.5, 1, 2} with the full budgets (about 50 minutes).

# %%
import matplotlib.pyplot as plt
import pandas as pd

from privopt.experiments.adult_colgen import BUDGETS, PAIRS, adult_colgen_run
from privopt.experiments.figures.base import full_from_environment

FULL = full_from_environment()
if FULL:
    plan = [(s, u, eps, BUDGETS[(s, u)], 60.0) for eps in (0.5, 1.0, 2.0) for s, u in PAIRS]
else:
    plan = [("occupation", "education", 1.0, 30.0, 10.0)]
runs = [adult_colgen_run(s, u, eps, budget, nr_time_limit=nr) for s, u, eps, budget, nr in plan]
table = pd.DataFrame([run.row() for run in runs])
table[["pair", "eps", "seconds", "stopped", "audit", "realized_eps", "columns", "lower", "upper", "gap"]].round(4)

# %% [markdown]
# Mutual information (nats) of every mechanism beside the column-generation design (`lower`) and the
# certified upper bound on the optimum (`upper`). `mi_nr` is NR found by a bounded column generation at
# the point P̂ (not robust: it is not audited against the ball).

# %%
mi = table[["pair", "eps", "mi_grr", "mi_srr", "mi_ir", "mi_cr", "mi_nr", "lower", "upper"]]
mi.round(4)

# %%
failures = table[~(table["audit"] & table["beats_baselines"] & (table["upper"] >= table["lower"]))]
assert failures.empty, failures
print(
    f"{len(table)} runs: every design passes the robust audit and beats GRR, SRR, IR and CR; "
    f"gap {table['gap'].min():.1%} to {table['gap'].max():.1%}; longest run {table['seconds'].max():.0f} s"
)

# %% [markdown]
# Convergence of the master's value (the design's MI) over time, with the best low-complexity mechanism
# and the upper bound.

# %%
fig, axes = plt.subplots(1, len(runs), figsize=(4.5 * len(runs), 3.5), squeeze=False)
for ax, run in zip(axes[0], runs, strict=True):
    ax.plot(run.trace[:, 0], run.trace[:, 1], label="column generation")
    best = run.best_baseline
    ax.axhline(run.utilities[best], color="gray", linestyle="--", label=f"best baseline ({best})")
    ax.axhline(run.upper, color="black", linestyle=":", label="upper bound")
    ax.set(title=f"{run.pair}, ε = {run.eps:g}", xlabel="seconds", ylabel="I(X;Y) [nats]")
axes[0][0].legend(fontsize=8)
fig.tight_layout()

# %% [markdown]
# ## Conclusion
#
# **Claimed and measured.** Full run (`PRIVOPT_FULL=1`, 2-core machine, 2026-11-22; MI in nats):
#
# | pair | ε | GRR | SRR | IR | CR | NR (60 s, bounded) | **colgen** | upper | gap | stopped | seconds | audit |
# |---|---|---|---|---|---|---|---|---|---|---|---|---|
# | occupation × education | 0.5 | 0.0007 | 0.0061 | 0.0099 | 0.0099 | 1.8360 | **0.1273** | 1.8393 | 93% | time limit | 547 | pass |
# | occupation × education | 1 | 0.0040 | 0.0204 | 0.0517 | 0.0517 | 1.9269 | **0.5443** | 1.9315 | 72% | time limit | 551 | pass |
# | occupation × education | 2 | 0.0323 | 0.0716 | 0.3156 | 0.3156 | 2.2566 | **1.1731** | 2.2825 | 49% | time limit | 552 | pass |
# | marital-status × education | 0.5 | 0.0014 | 0.0112 | 0.0143 | 0.0638 | 2.0372 | **0.5859** | 2.0382 | 71% | converged | 103 | pass |
# | marital-status × education | 1 | 0.0080 | 0.0397 | 0.0669 | 0.1285 | 2.1227 | **1.2705** | 2.1251 | 40% | converged | 138 | pass |
# | marital-status × education | 2 | 0.0615 | 0.1482 | 0.3125 | 0.3651 | 2.3944 | **1.8071** | 2.4195 | 25% | converged | 67 | pass |
# | occupation × relationship | 0.5 | 0.0019 | 0.0068 | 0.0185 | 0.0253 | 1.4399 | **0.3751** | 1.4404 | 74% | converged | 85 | pass |
# | occupation × relationship | 1 | 0.0104 | 0.0256 | 0.0858 | 0.0517 | 1.5307 | **0.9116** | 1.5325 | 41% | converged | 67 | pass |
# | occupation × relationship | 2 | 0.0812 | 0.1194 | 0.3912 | 0.3156 | 1.8805 | **1.4284** | 1.8835 | 24% | converged | 57 | pass |
#
# Every design passes the robust audit (ε̂ is the upper end of the audit interval) and has 3.7 to 15
# times the mutual information of the best of GRR, SRR, IR and CR (occupation × education, ε = 1:
# 0.544 nats against IR's 0.052). The runs on the two smaller pairs converge (no improving column is
# found) in 1–2.5 minutes; on occupation × education the budget stops them while the value still rises
# slowly (ε = 1: 0.538 after 300 s, 0.544 after 540 s).
#
# The gaps are wide, and this notebook cannot say how much of them is the design's. The certified
# bound comes from the chain rule, `I(X;Y) ≤ max_W I(S;Y) + H(U|S)`, which ignores the uncertainty set;
# NR, whose cone contains the robust one, nearly reaches it in 60 s, so the robust optimum lies
# somewhere between the design and NR's value, and no bound in privopt separates them yet (the branch
# and bound over a 240-dimensional slice does not get past the simplex cover). On small instances, where
# enumeration gives the exact optimum, column generation is within 3·10⁻⁴ of it. The design is a lower
# bound on the optimum and is not called optimal.
