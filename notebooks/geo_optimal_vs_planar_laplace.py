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
# # Optimal geo-indistinguishable mechanisms against the planar Laplace
#
# Bordenabe, Chatzikokolakis and Palamidessi (CCS 2014, "Optimal geo-indistinguishable mechanisms for
# location privacy") design the location mechanism of least expected loss under `ε·d`-privacy
# (geo-indistinguishability, Andrés et al., CCS 2013) on a grid of locations, and compare it with the
# mechanism everyone deploys: the **planar Laplace**, with and without the **optimal remapping** of
# its reports for the prior. This notebook redoes that comparison with privopt:
#
# - the optimum: `po.Problem(po.MetricLDP(ε, d), po.ExpectedDistortion(prior, d)).solve()`, audited and
#   with a certified bound;
# - the baselines by name in `po.compare`: `"planar_laplace"` and `"planar_geometric"`, discretised on
#   the grid as libqif's `geo_ind` does (the grid point nearest to `x + N`), and their
#   `"+remap"` variants (docs: *Mechanisms*, "Geo-indistinguishability on a grid").
#
# The map is a synthetic city: a square of cells of 250 m, people concentrated around a centre, two
# neighbourhood centres and a station (a seeded mixture of hot spots with noise), distances in km and
# ε per km. The reduced (CI) run uses a 6 × 6 grid (1.5 km a side); `PRIVOPT_FULL=1` uses 10 × 10 and
# more values of ε.

# %%
import os
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import privopt as po

FULL = os.environ.get("PRIVOPT_FULL") == "1"
SIDE = 10 if FULL else 6
SIDES = (3, 4, 5, 6, 7, 8, 9, 10) if FULL else (3, 4, 5, 6)
EPS_PER_KM = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0) if FULL else (0.5, 1.0, 2.0, 3.0)
STEP_KM = 0.25
BASELINES = ["planar_laplace", "planar_laplace+remap", "planar_geometric", "planar_geometric+remap"]


def city(side: int, seed: int = 7) -> np.ndarray:
    """A prior over the cells of a side × side grid: hot spots (relative positions in [0, 1]², spread
    in km, weight) times lognormal noise, normalised."""
    spots = [
        ((0.45, 0.5), 0.35, 1.0),
        ((0.15, 0.2), 0.2, 0.35),
        ((0.8, 0.75), 0.25, 0.45),
        ((0.85, 0.15), 0.1, 0.3),
    ]
    grid = po.Grid(side, side, STEP_KM)
    points = grid.locations
    extent = STEP_KM * (side - 1)
    density = np.full(grid.n, 0.02)
    for (cx, cy), spread, weight in spots:
        gap = np.hypot(points[:, 0] - cx * extent, points[:, 1] - cy * extent)
        density += weight * np.exp(-0.5 * (gap / spread) ** 2)
    density *= np.random.default_rng(seed).lognormal(0.0, 0.3, grid.n)
    return density / density.sum()


grid = po.Grid(SIDE, SIDE, STEP_KM)
d = grid.distances()  # km, Euclidean
prior = city(SIDE)
print(f"{grid.n} locations, cells of {STEP_KM * 1000:.0f} m, {STEP_KM * SIDE:g} km a side")

# %% [markdown]
# ## Expected loss against ε
#
# For each ε (per km), one call: `po.compare` builds the four baselines by name, audits each against
# `ε·d`-privacy, and adds the optimum. The expected loss is minus the utility (km); `seconds` is the
# time to build each mechanism (the optimum's: the whole certified solve).


# %%
def comparison(grid: po.Grid, prior: np.ndarray, eps: float) -> pd.DataFrame:
    d = grid.distances()
    table = po.compare(po.MetricLDP(eps, d), po.ExpectedDistortion(prior, d), BASELINES)
    table["loss (km)"] = -table["utility"]
    table["ε per km"] = eps
    return table


tables = [comparison(grid, prior, eps) for eps in EPS_PER_KM]
results = pd.concat(tables, ignore_index=True)
losses = results.pivot(index="ε per km", columns="mechanism", values="loss (km)")[[*BASELINES, "optimal"]]
losses.round(4)

# %%
assert results["satisfied"].all()  # every mechanism, remapped or not, passes its exact audit
for name in ("planar_laplace", "planar_geometric"):
    assert (losses["optimal"] <= losses[f"{name}+remap"] + 1e-9).all()
    assert (losses[f"{name}+remap"] <= losses[name] + 1e-12).all()
optimal_rows = results[results["mechanism"] == "optimal"]
assert (optimal_rows["status"] == "optimal").all()

# %% [markdown]
# The optimum is never worse than a remapped baseline, and remapping never hurts: both are theorems
# (the optimum is optimal among all `ε·d`-private mechanisms, the remapped ones among them since
# remapping is post-processing; `R = I` is a remapping). How much of the gap the remap closes depends
# on ε: at small ε the planar Laplace's report says little, the remap sends most reports to a few
# likely places and comes close to the optimum; as ε grows the reports are kept more often and the
# optimum's use of the prior matters more.

# %%
gain = pd.DataFrame(
    {
        "planar Laplace / optimal": losses["planar_laplace"] / losses["optimal"],
        "remapped / optimal": losses["planar_laplace+remap"] / losses["optimal"],
        "share of the gap closed by the remap": (losses["planar_laplace"] - losses["planar_laplace+remap"])
        / (losses["planar_laplace"] - losses["optimal"]),
    }
)
gain.round(3)

# %% [markdown]
# ## The baselines' privacy on the grid
#
# Snapping `x + N` to the nearest grid point is post-processing of a noise that is `ε·d`-private in
# the plane, so both baselines are `ε·d`-private on the grid. The exact audit shows how tight: the
# planar geometric attains ε (neighbouring interior cells are single lattice points), the planar
# Laplace stays below it (a cell has area, so the ratio `e^{ε·d}` is only approached far away). The
# remapped mechanisms keep the guarantee.

# %%
audited = results.pivot(index="ε per km", columns="mechanism", values="eps")[[*BASELINES, "optimal"]]
(audited.div(audited.index.to_series(), axis=0)).round(4)  # audited ε / ε

# %% [markdown]
# ## Loss and time against the size of the grid
#
# At a fixed ε = 2 per km, grids of growing side with the same cells (a growing map, its prior drawn by
# the same recipe): the optimum's loss and seconds, and the planar Laplace's, plain and remapped.

# %%
EPS_SIZE = 2.0
rows = []
for side in SIDES:
    g = po.Grid(side, side, STEP_KM)
    p = city(side)
    dist = g.distances()
    start = time.perf_counter()
    solution = po.Problem(po.MetricLDP(EPS_SIZE, dist), po.ExpectedDistortion(p, dist)).solve()
    solve_seconds = time.perf_counter() - start
    start = time.perf_counter()
    W = po.mechanisms.planar_laplace(g, EPS_SIZE)
    remap = po.mechanisms.optimal_remap(W, p, dist)
    remap_seconds = time.perf_counter() - start
    rows.append(
        {
            "grid": f"{side}×{side}",
            "locations": g.n,
            "optimal loss": -solution.value,
            "certified least loss": -solution.upper,
            "status": solution.status.value,
            "route": solution.route,
            "optimal seconds": solve_seconds,
            "planar Laplace loss": float(np.sum(p[:, None] * W.matrix * dist)),
            "remapped loss": remap.expected_loss,
            "planar Laplace + remap seconds": remap_seconds,
        }
    )
sizes = pd.DataFrame(rows)
sizes.round(4)

# %%
assert (sizes["optimal loss"] <= sizes["remapped loss"] + 1e-9).all()
assert (sizes["remapped loss"] <= sizes["planar Laplace loss"]).all()
assert (sizes["certified least loss"] <= sizes["optimal loss"] + 1e-9).all()

# %% [markdown]
# ## Pictures
#
# Left: expected loss against ε on the city grid. Right: seconds against the number of locations (the
# optimum's certified solve against building and remapping the planar Laplace).

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
styles = {
    "planar_laplace": ("planar Laplace", "s--"),
    "planar_laplace+remap": ("planar Laplace + remap", "s-"),
    "planar_geometric": ("planar geometric", "^--"),
    "planar_geometric+remap": ("planar geometric + remap", "^-"),
    "optimal": ("optimal (privopt)", "o-"),
}
for name, (label, style) in styles.items():
    axes[0].plot(losses.index, losses[name], style, label=label)
axes[0].set(xlabel="ε (per km)", ylabel="expected loss (km)", title=f"{SIDE}×{SIDE} city grid")
axes[0].legend()
axes[1].plot(sizes["locations"], sizes["optimal seconds"], "o-", label="optimal (certified solve)")
axes[1].plot(
    sizes["locations"], sizes["planar Laplace + remap seconds"], "s-", label="planar Laplace + remap"
)
axes[1].set(xlabel="locations", ylabel="seconds", yscale="log", title=f"time, ε = {EPS_SIZE:g} per km")
axes[1].legend()
for ax in axes:
    ax.grid(alpha=0.3)
fig.tight_layout()

# %% [markdown]
# The city's prior, and where a user at the station (the cross) is reported at ε = 2 per km by the
# optimal mechanism and by the remapped planar Laplace (darker is likelier; each map has its own scale).
# Both move the report towards the likely places in the centre: at this ε neither reports the station.

# %%
extent = STEP_KM * (SIDE - 1)
station = int(np.argmin(np.hypot(*(grid.locations - [0.85 * extent, 0.15 * extent]).T)))
optimum = po.Problem(po.MetricLDP(EPS_SIZE, d), po.ExpectedDistortion(prior, d)).solve().mechanism
remapped = po.mechanisms.optimal_remap(po.mechanisms.planar_laplace(grid, EPS_SIZE), prior, d).mechanism
maps = {
    "prior": prior,
    "optimal: report | station": optimum.matrix[station],
    "planar Laplace + remap: report | station": remapped.matrix[station],
}
fig, axes = plt.subplots(1, 3, figsize=(13, 4))
for ax, (title, values) in zip(axes, maps.items(), strict=True):
    image = ax.imshow(values.reshape(SIDE, SIDE), cmap="Blues", origin="lower", vmin=0)
    ax.plot(*divmod(station, SIDE)[::-1], "x", color="red", markersize=10)
    ax.set(title=title, xticks=[], yticks=[])
    fig.colorbar(image, ax=ax, fraction=0.046)
fig.tight_layout()

# %% [markdown]
# ## Conclusion
#
# On the 6 × 6 city grid of the reduced run the planar Laplace loses 1.3–1.9 times as much as the
# optimal `ε·d`-private mechanism (more at small ε), and its optimal remapping closes most of that gap:
# 98 % at ε = 0.5 per km, 84 % at ε = 3, where the remapped planar Laplace is still 5 % above the
# optimum. The planar geometric behaves like the planar Laplace. Every mechanism shown passed the exact
# audit of `ε·d`-privacy, and the optimum's loss comes with a certified lower bound. Building and
# remapping the planar Laplace takes milliseconds, the certified optimum seconds on grids of this size;
# the benchmark `python -m benchmarks bench_geo` times the optimum against libqif's `min_loss_given_d`.
