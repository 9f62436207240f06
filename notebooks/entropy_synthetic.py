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
# # Entropy 2024, §8.2–8.4 (Figs. 3–5) — synthetic data: utility, realized ε*, utility robustness
#
# The three figures come from one experiment (Entropy paper §8.2): `P*` drawn from the Jeffreys prior
# (Dirichlet(1/2)), `P̂` from n = 32,561 draws of `P*`, mechanisms designed for the 95% χ² set around `P̂`.
# One sweep records, for each (draw, ε, mechanism), the NMI at `P̂` and at `P*` and the **realized ε***
# (eq. 85): the mechanism's privacy level under the true `P*`.
#
# **Claims.**
# * Fig. 3: *"PolyOpt outperformed IR, which outperformed SRR [...]. GRR was the worst overall, while NR
#   was the best overall, but only by a small margin."*
# * Fig. 4: *"NR's ε* was consistently greater than ε, while PolyOpt's ε* was consistently lesser [...]
#   at ε = 0.075 [...] the 75%-quantile of ε* of NR was 0.3897, more than 5 times the desired privacy
#   parameter."* (25% and 75% quantiles over 100 distributions.)
# * Fig. 5: at ε = 1.5, *"the difference in NMI, even at its most extreme, was less than 3% of the NMI
#   value [...] positive and negative approximately equally often."*
#
# The paper sizes X like its Adult experiments without saying which; CI uses |S| × |U| = 2 × 3 and
# 12 draws, `PRIVOPT_FULL=1` adds 2 × 5 with the paper's 100 draws.

# %%
import matplotlib.pyplot as plt  # noqa: F401  (activates the inline backend that displays figures)

from privopt.experiments import figure, reproduce
from privopt.experiments.figures import entropy
from privopt.experiments.figures.base import full_from_environment
from privopt.experiments.figures.summary import mean_table

FULL = full_from_environment()
print(figure("entropy-fig3").grid, "| full grid:", FULL)
fig3 = reproduce("entropy-fig3", full=FULL)
table = fig3.table
mean_table(table, "nmi", ["shape", "eps"]).round(4)

# %%
fig3.figure

# %% [markdown]
# ## Fig. 4: realized ε* of NR and PolyOpt
#
# The same table, seen through `eps_star`; the quantiles per ε:

# %%
quantiles = (
    table[table["mechanism"].isin(["nr", "polyopt"])]
    .groupby(["shape", "mechanism", "eps"])["eps_star"]
    .quantile([0.25, 0.75])
    .unstack()
)
quantiles.round(4)

# %%
entropy.plot_realized(table)

# %% [markdown]
# ## Fig. 5: utility robustness at ε = 1.5

# %%
entropy.plot_robustness(table)

# %% [markdown]
# ## Conclusion
#
# **Fig. 3 reproduced.** PolyOpt beats IR, SRR and GRR at every ε ≤ 2 (by 0.30–0.51 in mean NMI on
# 2 × 3, reduced run); NR is above PolyOpt by 0.162 at ε = 0.075 and by 0.004 at ε = 4 — "only by a small
# margin" at larger ε; GRR is the lowest at 6 of 7 ε values (at ε = 4 it passes IR).
#
# **Fig. 4: the qualitative claim reproduces, the printed number depends on X.** NR's 25% quantile of ε*
# is above ε at every ε and PolyOpt's 75% quantile is at or below ε at every ε (`P*` was inside the 95%
# set in 92% of the reduced draws). The paper's "0.3897 at ε = 0.075, more than 5 times ε" does not
# reproduce on the reduced grid: on 2 × 3 with 12 draws NR's 75% quantile is 0.268 (3.6 × ε). The size of
# the leak grows with |X|: with the paper's 100 draws at ε = 0.075 we measured 0.119 (2 × 2), 0.193
# (2 × 3), **0.381 (2 × 5, close to the paper's 0.3897)** and 0.486 (3 × 3). The paper does not say
# which X its Fig. 4 used; `PRIVOPT_FULL=1` includes 2 × 5.
#
# **Fig. 5 reproduced.** At ε = 1.5 the largest |I_P̂ − I_P*|/I_P̂ over PolyOpt, IR and SRR is 0.7%,
# below the paper's 3%, and the sign is positive in 58% of the designs. The numbers of this run:

# %%
checks = fig3.checks + entropy.check_realized(table) + entropy.check_robustness(table)
for check in checks:
    print(check.sentence())
qualitative = [check for check in checks if "0.3897" not in check.claim]  # the number depends on X (above)
assert all(check.reproduced for check in qualitative)
