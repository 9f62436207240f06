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
# # ISIT 2021, Fig. 3 — GRR, IR and CR on 5×5 as n varies
#
# **The paper's claims** (ISIT paper §V, Fig. 3; |S| = |U| = 5, Jeffreys distributions, PolyOpt
# omitted): *"GRR outperforms IR and CR for large enough ε, typically around ε = 4. However, [...] at
# ε ≈ 1, IR and CR clearly outperform GRR. Furthermore, CR performs better for larger n."*
#
# The paper does not list its values of n; we use n ∈ {10², 10⁴} in CI and {10², 10³, 10⁴, 10⁵} with
# `PRIVOPT_FULL=1`.

# %%
import matplotlib.pyplot as plt  # noqa: F401  (activates the inline backend that displays figures)

from privopt.experiments import figure, reproduce
from privopt.experiments.figures.base import full_from_environment
from privopt.experiments.figures.summary import mean_table

FULL = full_from_environment()
print(figure("isit-fig3").grid, "| full grid:", FULL)
result = reproduce("isit-fig3", full=FULL)
mean_table(result.table, "nmi", ["n", "eps"]).round(4)

# %%
result.figure

# %% [markdown]
# ## Conclusion
#
# **Reproduced.** At ε = 1 both IR and CR beat GRR for every n (reduced run: n = 10², IR 0.043 and CR
# 0.042 against GRR 0.013; n = 10⁴, CR 0.062, IR 0.043, GRR 0.013). GRR overtakes both from ε = 4 at
# n = 10² — the paper's "around ε = 4" — but only from ε = 6 at n = 10⁴, because CR's budget for the
# public part grows with n (its utility depends on the χ² set, which shrinks like 1/n). CR improves with
# n (0.042 → 0.062 at ε = 1) while IR hardly moves.
#
# Note that the paper's conclusion (§VI) says the opposite of its §V — *"IR performing better for larger
# n"* — which is not what its Fig. 3 text nor privopt finds: IR's utility barely depends on n here. The
# numbers of this run:

# %%
print(result.summary())
assert result.reproduced, result.summary()
