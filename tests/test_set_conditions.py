"""Sets check what they can before a solve: an ℓ1 ball that breaks PML paper Prop. 2's β < 2 min P̂ is
refused when a Problem is made (with the samples or the level that would meet it), while the set itself,
and audits over it, stay valid; a curve with such a point returns the others and names it; the
confidence levels' defaults are documented."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import privopt as po
from privopt.app.cli import app
from privopt.sets.l1 import DEFAULT_L1_LEVEL, weissman_radius

REPO = Path(__file__).resolve().parents[1]
COUNTS = [[70, 100, 30], [260, 570, 70]]  # 1,100 samples; min P̂ = 30/1100, so β must stay below 0.0545
P = po.JointDistribution.from_counts(COUNTS)


def test_a_ball_too_large_for_a_design_is_refused_when_the_problem_is_made():
    F = po.L1Ball.confidence(P, level=0.95)  # β = 0.1138 from 1,100 samples
    assert F.radius > 2 * P.p_x.min()
    definition = po.PML(1.0, F)  # the set and the definition are valid: PML's audit holds at any β
    assert po.audit(po.mechanisms.grr(6, 1.0), definition).satisfied
    with pytest.raises(po.ValidationError) as refused:
        po.Problem(definition, po.MutualInformation(P))
    message = str(refused.value)
    assert refused.value.argument == "radius"
    assert message.startswith("radius: expected β < 2·min P̂ = 0.0545455")
    assert "remedy: at least 4,789 samples at level 0.95" in message
    assert message.endswith("got β = 0.113801")
    # The remedy is right: 4,789 samples meet the condition at 0.95, 4,788 do not.
    assert weissman_radius(6, 4789, 0.05) < 2 * P.p_x.min() < weissman_radius(6, 4788, 0.05)
    more = po.JointDistribution(P.probabilities, n=4789)
    solved = po.Problem(po.PML(1.0, po.L1Ball.confidence(more, level=0.95)), po.MutualInformation(P)).solve()
    assert solved.status is po.Status.OPTIMAL


def test_the_remedy_names_the_level_that_meets_the_condition_at_the_balls_sample_size():
    four_thousand = po.JointDistribution(P.probabilities, n=4000)
    with pytest.raises(po.ValidationError, match=r"or a level of 0\.8385 or below with the 4,000 samples"):
        po.Problem(po.PML(1.0, po.L1Ball.confidence(four_thousand, level=0.95)), po.MutualInformation(P))
    lowered = po.L1Ball.confidence(four_thousand, level=0.8385)
    assert lowered.radius < 2 * P.p_x.min()
    with pytest.raises(po.ValidationError, match=r"a radius below 0\.0545455, got β = 0\.2$"):
        po.Problem(po.PML(1.0, po.L1Ball(P, 0.2)), po.MutualInformation(P))


def test_pairs_that_do_not_depend_on_the_distribution_need_no_condition():
    F = po.L1Ball(P, 0.2)
    constant = po.RatioConstraints(
        [(po.given(x=a), po.given(x=b)) for a in P.x_labels for b in P.x_labels if a != b], 1.0, over=F
    )
    solution = po.Problem(constant, po.MutualInformation(P)).solve()  # LDP's pairs: F is not used
    assert solution.value == pytest.approx(
        po.Problem(po.LDP(1.0), po.MutualInformation(P)).solve().value, abs=1e-9
    )


def test_a_curve_with_a_failing_point_returns_the_others_and_names_the_failure():
    ten_thousand = po.JointDistribution(P.probabilities, n=10_000)
    problem = po.Problem(po.PML(1.0, po.L1Ball.confidence(ten_thousand, level=0.95)), po.MutualInformation(P))
    with pytest.warns(
        UserWarning, match=r"curve: 1 of 3 points failed \(the first, n = 1000: ValidationError: radius"
    ):
        table = problem.curve(n=[1000, 10_000, 20_000])
    assert table["n"].tolist() == [1000, 10_000, 20_000]
    assert table["n"].dtype == np.int64  # sample sizes are integers
    failed, solved = table.iloc[0], table.iloc[1:]
    assert failed["status"] == "error"
    assert failed["error"].startswith("ValidationError: radius: expected β < 2·min P̂")
    assert "remedy: at least 4,789 samples at level 0.95" in failed["error"]
    assert np.isnan(failed["lower"])
    assert np.isnan(failed["upper"])
    assert not failed["checked"]
    assert solved["status"].eq("optimal").all()
    assert solved["error"].eq("").all()
    assert np.all(np.diff(solved["lower"]) > 0)  # more samples, a smaller ball, a larger optimum
    assert table.attrs["mechanisms"][0] is None
    assert isinstance(table.attrs["mechanisms"][1], po.Mechanism)


def test_the_cli_curve_shows_the_failed_point_and_its_error(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f"[data]\nprobabilities = {P.probabilities.tolist()}\nn = 10000\n"
        '[definition]\nkind = "PML"\neps = 1\n[set]\nkind = "l1"\nlevel = 0.95\n[utility]\nkind = "mi"\n'
    )
    result = CliRunner().invoke(app, ["curve", str(spec), "--n", "1000,10000"])
    assert result.exit_code == 0, result.output
    assert "error" in result.output
    assert "note: curve: 1 of 2 points failed (the first, n = 1000" in result.output


def test_the_default_confidence_levels_are_documented_with_their_reason():
    """RenyiBall.confidence's level is the Entropy paper's statistical 95 %; L1Ball.confidence's δ is the
    failure probability of an (ε, δ)-PML guarantee (PML paper eq. 37), kept as small as DP's δ — the
    defaults differ on purpose, and the page on sets says so with both numbers."""
    assert po.RenyiBall.confidence(P).level == 0.95
    assert po.L1Ball.confidence(P).level == DEFAULT_L1_LEVEL == 1 - 1e-6
    page = " ".join((REPO / "docs" / "concepts.md").read_text().split())
    assert "`RenyiBall.confidence` defaults to `level=0.95`" in page
    assert "`L1Ball.confidence` to `level=1 − 10⁻⁶`" in page
