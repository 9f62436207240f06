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
# # Robust mechanisms at Adult's scale: certified column generation
#
# **The paper's limit** (Entropy paper §8.1): for occupation vs education *"the polyhedron Γ̂ was
# 240-dimensional and was defined by 57,840 inequality constraints"*, and PolyOpt (vertex enumeration)
# was dropped; only IR, SRR, GRR and NR were shown. privopt's vertex route refuses it too (the
# McMullen bound is about 10^366 vertices).
#
# **What privopt claims instead**: `route="colgen"` designs an (ε, χ²-ball)-RLDP mechanism that
# (a) passes the robust audit, (b) has more mutual information than IR, SRR, GRR and CR, and (c) comes
# with a *certified* upper bound on the robust optimum, hence a gap. The bound is the better of the
# chain-rule bound and the pricing certificate `OPT ≤ 1ᵀλ + δ̄` of the master's duals λ, with δ̄ proved
# by the exact envelope pricer (the compiler page, §3 Routes); `solution.certificate.bound` holds λ
# and δ̄, and `po.check_certificate(problem, solution)` re-checks them independently. The pairs are the Adult
# pairs used by the papers, from 10 inputs (sex × race, 2 × 5) to 240 (occupation × education, 15 × 16).
# NR (the non-robust optimum at P̂) is out of enumeration's reach as well; it is shown *bounded*:
# column generation at the point for a short budget, a lower bound on NR's value.
#
# CI runs sex × race and occupation × education at ε = 1 with 30-second budgets; `PRIVOPT_FULL=1` runs
# the four pairs at ε ∈ {0.5, 1, 2} with the budgets of `BUDGETS` (about an hour). Thirty seconds
# certify sex × race's optimum but are far too short for occupation × education: there the master has
# barely started and the best upper bound is still the chain-rule bound (`upper_source`); the
# conclusion gives the full runs.

# %%
import matplotlib.pyplot as plt
import pandas as pd

from privopt.experiments.adult_colgen import BUDGETS, PAIRS, adult_colgen_run
from privopt.experiments.figures.base import full_from_environment

FULL = full_from_environment()
if FULL:
    plan = [(s, u, eps, BUDGETS[(s, u)], 60.0) for eps in (0.5, 1.0, 2.0) for s, u in PAIRS]
else:
    plan = [("sex", "race", 1.0, 30.0, 10.0), ("occupation", "education", 1.0, 30.0, 10.0)]
runs = [adult_colgen_run(s, u, eps, budget, nr_time_limit=nr) for s, u, eps, budget, nr in plan]
table = pd.DataFrame([run.row() for run in runs])
table[["pair", "eps", "seconds", "stopped", "audit", "realized_eps", "columns", "lower", "upper", "gap"]].round(6)

# %% [markdown]
# Mutual information (nats) of every mechanism beside the column-generation design (`lower`) and the
# certified upper bound on the robust optimum (`upper`). `mi_nr` is NR found by a bounded column generation at
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
# **Claimed and measured.** Certified column generation (`python -m benchmarks.bench_colgen
# --certified`, 2-core machine, 2026-11-25; MI in nats; the baselines from `privopt.designs.named` on the
# same data). The rows of marital-status × relationship and of the pairs with education were re-measured on
# 2026-11-26 with the stabilised rounds on (the default; the compiler page, §3). Every design passes its
# robust audit.
#
# | pair | ε | GRR | SRR | IR | CR | **colgen** (lower) | certified upper | gap | seconds |
# |---|---|---|---|---|---|---|---|---|---|
# | sex × race (2×5) | 0.5 | 0.0090 | 0.0346 | 0.1328 | 0.1988 | **0.539577** | 0.539577 | 3.4·10⁻¹⁰ | 2.3 |
# | sex × race (2×5) | 1 | 0.0433 | 0.1331 | 0.2578 | 0.2777 | **0.629359** | 0.629359 | 1.6·10⁻¹⁰ | 2.1 |
# | sex × race (2×5) | 2 | 0.2223 | 0.4394 | 0.4075 | 0.5237 | **0.818969** | 0.818969 | 1.2·10⁻¹⁰ | 4.2 |
# | marital-status × relationship (7×6) | 0.5 | 0.0031 | 0.0120 | 0.0185 | 0.0557 | **0.643178** | 0.643266 | 1.4·10⁻⁴ | 108 |
# | marital-status × relationship (7×6) | 1 | 0.0167 | 0.0452 | 0.0858 | 0.1002 | **0.792042** | 0.792318 | 3.5·10⁻⁴ | 109 |
# | marital-status × relationship (7×6) | 2 | 0.1142 | 0.1904 | 0.3912 | 0.3520 | **1.072632** | 1.074658 | 1.9·10⁻³ | 112 |
# | marital-status × education (7×16) | 0.5 | 0.0014 | 0.0112 | 0.0143 | 0.0638 | **0.597401** | 0.610110 | 2.1 % | 274 |
# | marital-status × education (7×16) | 1 | 0.0080 | 0.0397 | 0.0669 | 0.1285 | **1.292058** | 1.318312 | 2.0 % | 278 |
# | marital-status × education (7×16) | 2 | 0.0615 | 0.1482 | 0.3125 | 0.3651 | **1.840821** | 2.009213 | 8.4 % | 294 |
# | occupation × education (15×16) | 0.5 | 0.0007 | 0.0061 | 0.0099 | 0.0099 | **0.132485** | 0.137783 | 3.8 % | 492 |
# | occupation × education (15×16) | 1 | 0.0040 | 0.0204 | 0.0517 | 0.0517 | **0.560521** | 0.581892 | 3.7 % | 532 |
# | occupation × education (15×16) | 2 | 0.0323 | 0.0716 | 0.3156 | 0.3156 | **1.201527** | 1.602444 | 25.0 % | 532 |
#
# On sex × race the certified optimum is reached in seconds; on marital-status × relationship the gap
# is at most 2·10⁻³ within two minutes. Every design has 1.6 to 13 times the mutual information of the
# best of GRR, SRR, IR and CR (occupation × education, ε = 1: 0.561 nats against IR's 0.052).
#
# **What the certificate changed.** Before it, the only upper bound at these sizes came from the chain
# rule, `I(X;Y) ≤ max_W I(S;Y) + H(U|S)`, which ignores the uncertainty set: on occupation × education
# the gaps were 93 / 72 / 49 % (upper 1.839 / 1.931 / 2.282) and on marital-status × education
# 71 / 40 / 25 %. The certified bounds cut the occupation × education uppers to 0.138 / 0.582 / 1.602 and
# the marital-status × education gaps to 2.1 / 2.0 / 8.4 %. The stabilised rounds (a box step around the
# best dual point, once the master stalls) took occupation × education from 8.1 / 10.2 / 27.5 % to
# 3.8 / 3.7 / 25.0 %, with higher lower bounds.
#
# **What is not reached.** On the two pairs with education (16 values) the budget ends before the
# master converges: the gap left is the pricing bound δ̄ at the best dual point found, not a loose bound —
# so the design there is a certified lower bound on the optimum, within the stated gap, and is not
# called optimal. The goal of a 1 % gap on every pair is met on sex × race and marital-status ×
# relationship; marital-status × education and occupation × education are within 5 % at ε ≤ 1 (2.1 / 2.0 %
# and 3.8 / 3.7 %), but at 8.4 % and 25 % at ε = 2.
