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
# # ISIT 2021, Fig. 2 — PolyOpt against GRR, IR and CR
#
# **The paper's claim** (ISIT paper §V): for |S| = |U| = 3, 200 distributions drawn from the Jeffreys
# prior, n = 1000 samples each and the 95% χ² set (α = 0.05), *"PolyOpt significantly outperforms the
# other algorithms"* in normalised mutual information `I_P̂(X;Y)/H(X)` averaged over the distributions,
# for ε ∈ [0.2, 8]; the authors add that their solver (MATLAB's MPT3) *"becomes more inaccurate at
# larger ε"*.
#
# The sweep below runs each (distribution, ε, mechanism) as one cell on all cores. CI runs a reduced
# grid (8 distributions × 6 ε); `PRIVOPT_FULL=1` runs the paper's 200 × 20 = 16,000 cells
# (measured on the 2-core machine: 597 s with joblib; `benchmarks/bench_sweep.py --quick` runs 20
# distributions with joblib in 61.7 s against 122.2 s serially, a 1.98× speed-up).

# %%
import matplotlib.pyplot as plt  # noqa: F401  (activates the inline backend that displays figures)

from privopt.experiments import figure, reproduce
from privopt.experiments.figures.base import full_from_environment
from privopt.experiments.figures.summary import mean_table

FULL = full_from_environment()
experiment = figure("isit-fig2")
print(experiment.grid, "| full grid:", FULL)

# %%
result = reproduce("isit-fig2", full=FULL)
print(f"{len(result.table)} rows, {int((result.table['status'] != 'ok').sum())} failed cells")
mean_table(result.table, "nmi", ["eps"]).round(4)

# %%
result.figure

# %% [markdown]
# ## Conclusion
#
# **Reproduced.** PolyOpt has the highest mean NMI at every ε of the grid. In the reduced run (8
# distributions) at ε = 1 PolyOpt reaches a mean NMI of 0.384 against 0.093 for CR, 0.072 for IR and
# 0.039 for GRR — four to ten times more — and the margin over the best other mechanism stays between
# 0.007 (ε = 8, where everything approaches the identity) and 0.301. On the full grid (200 × 20, run
# once on 2026-11-22) PolyOpt has the highest mean NMI at all 20 ε values, with a margin of 0.007 to
# 0.314 (ε = 1.02: PolyOpt 0.403, CR 0.099, IR 0.076, GRR 0.041). 60 of its 16,000 cells failed, all
# from one draw (no. 149) whose P̂ from 1000 samples has P̂(S = 2) = 0: the χ² set needs every P̂(s) > 0,
# and privopt records the cell as failed with that reason (GRR, which needs no conditional, is kept).
#
# The paper's remark about solver inaccuracy at large ε does not apply here: privopt's vertex
# enumeration is exact (rational arithmetic for small cones), and PolyOpt stays above GRR up to ε = 8 — as
# it must, since GRR's columns lie in the Γ cone. The numbers of this run:

# %%
print(result.summary())
assert result.reproduced, result.summary()
