"""po.compare, and the ordering of the compiler's optimum against IR, CR, SRR and GRR."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import privopt as po
from tests.test_independent_reporting import random_ball


def test_ordering_optimum_beats_low_complexity_mechanisms(rng):
    # The compiler's optimum for SensitiveLDP(ε, F) is >= IR, CR, SRR and GRR on 24 seeded instances.
    # For SRR, GRR (ε-LDP w.r.t. S for every distribution) and IR this is a theorem once the mechanism
    # lies in the compiled cone, which is asserted; CR can lie outside that cone (it is private over F,
    # not over the envelope D_s ⊇ F_{U|s} the cone uses), so for CR the ordering is the papers'
    # empirical claim (ISIT Fig. 2), checked here.
    for trial in range(24):
        shape = [(2, 2), (2, 3), (3, 2)][trial % 3]
        F = random_ball(rng, shape, int(rng.choice([100, 300, 1000])))
        eps = float(rng.uniform(0.3, 3.0))
        definition = po.SensitiveLDP(eps, F)
        candidates = {
            "IR": po.mechanisms.independent_reporting(F, eps).mechanism,
            "CR": po.mechanisms.conditional_reporting(F, eps).mechanism,
            "SRR": po.mechanisms.srr(*shape, eps),
            "GRR": po.mechanisms.grr(shape[0] * shape[1], eps),
        }
        table = po.compare(definition, po.MutualInformation(F.center), candidates).set_index("mechanism")
        assert table["satisfied"].all(), table
        optimum = table.loc["optimal", "utility"]
        for name in candidates:
            assert optimum >= table.loc[name, "utility"] - 1e-9, (trial, name, table)
        cone = po.Problem(definition, po.MutualInformation(F.center)).compile().cone
        for name in ("IR", "SRR", "GRR"):
            assert cone.violation(candidates[name].matrix) <= 1e-9, (trial, name)


def test_compare_table_example4(example1):
    # Entropy paper Example 4: I_P̂(X; GRR) = 0.0419 and I_P̂(X; SRR) = 0.1005 at ε = log 2.
    eps = np.log(2)
    F = po.RenyiBall.confidence(example1)
    table = po.compare(
        po.SensitiveLDP(eps, F),
        po.MutualInformation(example1),
        [("GRR", po.mechanisms.grr(4, eps)), ("SRR", po.mechanisms.srr(2, 2, eps))],
    )
    assert list(table.columns) == [
        "mechanism",
        "outputs",
        "utility",
        "nmi",
        "eps",
        "eps_lower",
        "eps_upper",
        "satisfied",
        "seconds",
        "audit_seconds",
        "status",
        "note",
        "error",
    ]
    rows = table.set_index("mechanism")
    assert rows.loc["GRR", "utility"] == pytest.approx(0.0419, abs=1e-4)
    assert rows.loc["SRR", "utility"] == pytest.approx(0.1005, abs=1e-4)
    assert rows.loc["SRR", "nmi"] == pytest.approx(rows.loc["SRR", "utility"] / example1.entropy(), abs=1e-12)
    assert rows.loc["optimal", "note"] == "vertex"
    assert rows.loc["optimal", "status"] == "optimal"
    assert rows.loc["GRR", "status"] == ""
    assert np.isnan(rows.loc["GRR", "seconds"])  # given as a mechanism, not built here


def test_compare_accepts_designs_callables_and_interval_audits(example1):
    F = po.RenyiBall.confidence(example1)
    eps = 1.0
    table = po.compare(
        po.SensitiveLDP(eps, F),
        po.MutualInformation(example1),
        {
            "IR": lambda: po.mechanisms.independent_reporting(F, eps),
            "CR": po.mechanisms.conditional_reporting(F, eps),
        },
        optimum=False,
    )
    assert list(table["mechanism"]) == ["IR", "CR"]
    assert table.loc[0, "seconds"] > 0.0
    assert (table["eps_lower"] <= table["eps_upper"] + 1e-12).all()
    assert table["satisfied"].all()


def test_compare_beyond_the_vertex_limit_uses_column_generation(example1):
    # Above the vertex limit the auto route switches to column generation, and the row says so.
    table = po.compare(
        po.SensitiveLDP(1.0, po.RenyiBall.confidence(example1)),
        po.MutualInformation(example1),
        [po.mechanisms.srr(2, 2, 1.0)],
        vertex_limit=1,
        colgen={"time_limit": 30, "progress": False},
    )
    assert list(table["mechanism"]) == ["SRR(eps=1)", "optimal"]
    assert table.loc[1, "note"] == "colgen"
    assert table.loc[1, "utility"] >= table.loc[0, "utility"]


def test_compare_without_distribution_has_nan_nmi():
    P = np.array([0.5, 0.3, 0.2])
    table = po.compare(po.LDP(1.0), po.FDivergence("tv", P, [0.2, 0.3, 0.5]), [po.mechanisms.grr(3, 1.0)])
    assert isinstance(table, pd.DataFrame)
    assert table["nmi"].isna().all()
    assert table.set_index("mechanism").loc["optimal", "utility"] >= table.loc[0, "utility"] - 1e-12


def test_compare_bad_input(example1):
    with pytest.raises(po.ValidationError, match=r"mechanisms\['x'\]: expected a Mechanism"):
        po.compare(po.LDP(1.0), po.MutualInformation(example1), {"x": 3})
    with pytest.raises(po.ValidationError, match=r"definition: expected a privacy definition"):
        po.compare("LDP", po.MutualInformation(example1), [])  # type: ignore[arg-type]


def test_named_mechanisms_for_lip_and_ldp(example1):
    from privopt.designs.named import available, resolve

    lip = po.Problem(po.LIP(1.0, example1), po.MutualInformation(example1))
    assert set(available(lip)) == {"grr", "oue", "cr"}
    builders, optimum = resolve(["grr", "cr", "optimal"], lip)
    table = po.compare(lip.definition, lip.utility, builders, optimum=optimum).set_index("mechanism")
    assert table["satisfied"].all()
    # The calibrated GRR meets ε-LIP with equality (funnel eq. 27 is solved for α).
    assert table.loc["grr", "eps"] == pytest.approx(1.0, abs=1e-6)
    assert table.loc["optimal", "utility"] >= table.loc[["grr", "cr"], "utility"].max() - 1e-9
    ldp = po.Problem(po.LDP(1.0), po.MutualInformation(example1.p_x))
    assert set(available(ldp)) == {"grr", "oue"}
    other = po.JointDistribution([[0.1, 0.1], [0.3, 0.5]])
    robust_lip = po.Problem(po.LIP(1.0, po.FiniteSet([example1, other])), po.MutualInformation(example1))
    assert available(robust_lip) == {}  # the calibrations hold at one known distribution only


def test_compare_builds_named_mechanisms_for_geo_indistinguishability():
    # MetricLDP on a grid's distances names the planar Laplace and geometric, and with a linear utility
    # their remapped variants; po.compare builds (and times) them by name beside the optimum.
    grid = po.Grid(3, 3)
    d = grid.distances()
    prior = np.random.default_rng(1).dirichlet(np.ones(grid.n))
    definition, utility = po.MetricLDP(1.0, d), po.ExpectedDistortion(prior, d)
    names = ["planar_laplace", "planar_laplace+remap", "planar_geometric", "planar_geometric+remap"]
    table = po.compare(definition, utility, names).set_index("mechanism")
    assert list(table.index) == [*names, "optimal"]
    assert table["satisfied"].all()
    assert (table.loc[names, "seconds"] > 0).all()
    for name in ("planar_laplace", "planar_geometric"):
        W = getattr(po.mechanisms, name)(grid, 1.0)
        assert table.loc[name, "utility"] == pytest.approx(utility.value(W), rel=1e-12)
        remapped = po.mechanisms.optimal_remap(W, prior, d).expected_loss
        assert table.loc[f"{name}+remap", "utility"] == pytest.approx(-remapped, rel=1e-12)
        assert table.loc[name, "utility"] <= table.loc[f"{name}+remap", "utility"] + 1e-12
        assert table.loc[f"{name}+remap", "utility"] <= table.loc["optimal", "utility"] + 1e-9
    # The planar geometric meets ε exactly (neighbouring interior cells); the planar Laplace stays below.
    assert table.loc["planar_geometric", "eps"] == pytest.approx(1.0, rel=1e-12)
    assert table.loc["planar_laplace", "eps"] < 1.0
    # Names, mechanisms and the optimum by name mix in one call; labels of a mapping are kept.
    mixed = po.compare(
        definition, utility, {"PL": "planar_laplace", "GRR": po.mechanisms.grr(9, 1.0)}, optimum=False
    )
    assert list(mixed["mechanism"]) == ["PL", "GRR"]
    only = po.compare(definition, utility, ["planar_laplace", "optimal"], optimum=False)
    assert list(only["mechanism"]) == ["planar_laplace", "optimal"]


def test_named_mechanisms_for_metric_ldp_and_linear_utilities(example1):
    from privopt.designs.named import available

    grid = po.Grid(2, 3, step=0.5)
    d = grid.distances("manhattan")
    uniform = np.full(grid.n, 1 / grid.n)
    on_grid = po.Problem(po.MetricLDP(1.0, d), po.MutualInformation(uniform))
    assert set(available(on_grid)) == {"planar_laplace", "planar_geometric"}  # no remap: MI is not linear
    line = np.abs(np.subtract.outer(np.arange(4), np.arange(4))) ** 2  # not a grid's distances
    assert available(po.Problem(po.MetricLDP(1.0, line), po.MutualInformation(np.full(4, 0.25)))) == {}
    # Any named mechanism has its remapped variant under a linear utility (here the Hamming loss).
    ldp = po.Problem(po.LDP(1.0), po.ExpectedDistortion(example1.p_x))
    assert set(available(ldp)) == {"grr", "oue", "grr+remap", "oue+remap"}
    table = po.compare(ldp.definition, ldp.utility, ["oue+remap"], optimum=False)
    assert table.loc[0, "outputs"] == 4  # OUE's 2⁴ reports remapped onto the 4 estimates
    assert table.loc[0, "satisfied"]


def test_compare_refuses_an_unknown_name():
    grid = po.Grid(2, 2)
    d = grid.distances()
    pattern = (
        r"mechanisms\['planar_lapalce'\]: expected a mechanism or one of the names among planar_laplace, "
    )
    with pytest.raises(po.ValidationError, match=pattern):
        po.compare(po.MetricLDP(1.0, d), po.ExpectedDistortion(np.full(4, 0.25), d), ["planar_lapalce"])
