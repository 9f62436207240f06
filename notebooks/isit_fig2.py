# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
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
# (`benchmarks/bench_sweep.py` measures it: FIG2_TIMING).

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
# 0.007 (ε = 8, where everything approaches the identity) and 0.301. FIG2_QUICK
#
# The paper's remark about solver inaccuracy at large ε does not apply here: privopt's vertex
# enumeration is exact (rational arithmetic for small cones), and PolyOpt stays above GRR up to ε = 8 — as
# it must, since GRR's columns lie in the Γ cone. The numbers of this run:

# %%
print(result.summary())
assert result.reproduced, result.summary()
