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
# # Privacy funnel 2020, Fig. 5 — Adult: Opt-LIP, CR, GRR and OUE
#
# **The paper's claims** (§VIII-C; ε-LIP, utility I(X;Y); S ∈ {marital-status, occupation}, X ∈
# {education, relationship, sex}): *"GRR and CR both perform somewhere between Opt-LIP and OUE. As the
# LIP value ε grows larger, GRR and CR grow close to Opt-LIP. At the same time, OUE falls off for large
# ε, having ½ H(X) as its limit."* The paper could not compute OUE for X = education (2¹⁶ outputs) and
# some Opt-LIP cases for S = occupation.
#
# privopt computes OUE's mutual information exactly without its 16 × 65,536 matrix
# (`po.mechanisms.unary_mutual_information`), and OUE/GRR/CR are calibrated to exactly ε-LIP (eqs. 29,
# 32, 33). CI runs S = marital-status; `PRIVOPT_FULL=1` adds S = occupation and more ε.

# %%
import matplotlib.pyplot as plt  # noqa: F401  (activates the inline backend that displays figures)

from privopt.experiments import failed, figure, reproduce
from privopt.experiments.figures.base import full_from_environment

FULL = full_from_environment()
print(figure("funnel-fig5").grid, "| full grid:", FULL)
result = reproduce("funnel-fig5", full=FULL)
result.table.pivot_table(index=["panel", "eps"], columns="mechanism", values="nmi").round(4)

# %% [markdown]
# Failed cells and their reason:

# %%
failed(result.table)[["panel", "eps", "mechanism", "error"]]

# %%
result.figure

# %% [markdown]
# ## Conclusion
#
# **OUE → H(X)/2: reproduced**, including for X = education, which the paper could not compute: at
# ε = 12 OUE's I(X;Y)/H(X) is 0.4999–0.5000 on all three panels. OUE reports the true value with
# probability exactly ½ in the limit, so this is also a theorem.
#
# **GRR and CR between OUE and Opt-LIP: reproduced** for 29 of 30 (panel, ε, GRR/CR) values in the
# reduced run.
# Opt-LIP ≥ GRR always (a theorem: GRR reads X and is ε-LIP); CR also reads S, so it is outside
# Opt-LIP's class and beats it on marital-status → sex at ε = 0.5 — the paper's "between" is not a
# theorem for CR.
#
# **GRR and CR approach Opt-LIP as ε grows: reproduced**: GRR's relative gap to Opt-LIP falls from
# 16–89% at ε = 0.5 to 0.0% at ε = 12.
#
# **No failed cell.** An earlier privopt failed the Opt-LIP design for marital-status → relationship at
# ε = 12 on its own audit (realized ε = 12 + 7.8·10⁻⁷, from the LP solver's feasibility tolerance); the
# mechanism's weights are now re-solved on their support, and it passes (a regression test in
# tests/test_compiler.py). The numbers of this run:

# %%
print(result.summary())
assert result.reproduced, result.summary()
