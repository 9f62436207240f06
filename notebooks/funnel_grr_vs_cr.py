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
# # Privacy funnel 2020, Figs. 6–7 — GRR vs CR on synthetic data, and the role of α
#
# **The paper's claims** (§VIII-D/E; 100 Jeffreys distributions on S × X per setting; GRR and CR
# calibrated to exactly ε-LIP by solving eqs. 29 and 33 for α):
# * Fig. 6: *"the larger a is compared to c, the more utility CR provides compared to GRR. However, [...]
#   the difference between datasets has more impact on the utility than the difference between
#   methods."*
# * Fig. 7: *"the difference in mutual information can for a large part be explained by a difference in
#   α (ρ = 0.9815, ρ = 0.9889, and ρ = 0.9731)"*.
#
# The paper gives neither its (c, a) settings nor the ε of Fig. 7; we use (c, a) ∈ {(5, 2), (3, 3),
# (2, 5), (2, 10)} and ε = 1 for Fig. 7. CI uses 30 draws per setting, `PRIVOPT_FULL=1` the paper's 100.

# %%
import matplotlib.pyplot as plt  # noqa: F401  (activates the inline backend that displays figures)

from privopt.experiments import figure, reproduce
from privopt.experiments.figures import funnel
from privopt.experiments.figures.base import full_from_environment
from privopt.experiments.figures.summary import mean_table

FULL = full_from_environment()
print(figure("funnel-fig6").grid, "| full grid:", FULL)
result = reproduce("funnel-fig6", full=FULL)
mean_table(result.table, "nmi", ["setting", "eps"]).round(4)

# %%
result.figure

# %% [markdown]
# ## Fig. 7: utility difference against α difference (ε = 1)

# %%
funnel.plot_fig7(result.table)

# %% [markdown]
# ## Conclusion
#
# **Fig. 6 reproduced.** CR's advantage over GRR grows with a/c: at ε = 1 the mean NMI difference
# CR − GRR is +0.005 for (c, a) = (5, 2), +0.067 for (3, 3), +0.148 for (2, 5) and +0.285 for (2, 10)
# (reduced run). The spread between data sets (mean standard deviation 0.14) is larger than the mean
# difference between the methods (0.13), as the paper says — though not by much.
#
# **Fig. 7: reproduced qualitatively, with weaker correlation where a ≈ c.** ρ between α_CR − α_GRR and
# NMI(CR) − NMI(GRR) is 0.97–0.99 for a ≥ 2c, close to the paper's 0.97–0.99, but about 0.89–0.95 for
# (3, 3) and (5, 2): there both differences are small and the calibration's non-linearity shows. Draws
# where a calibration reaches α = ∞ are left out. The numbers of this run:

# %%
checks = result.checks + funnel.check_fig7(result.table)
for check in checks:
    print(check.sentence())
assert all(check.reproduced for check in checks)
