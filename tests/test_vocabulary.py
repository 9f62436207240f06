"""One vocabulary: time_limit everywhere (timeout deprecated), counts named per input or in all, ratio
pairs as 3-tuples, readable cone and audit texts, a CLI curve header that says what it sweeps, failed
sweep rows that say what was raised, plots and distributions whose errors say what to pass, and the
reproduce command's worker count."""

from __future__ import annotations

import doctest
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import privopt as po
from privopt.app.cli import app
from privopt.app.plot import utility_curves
from privopt.app.spec import Spec
from privopt.experiments import Sweep

P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100)  # Entropy paper Example 1
MI = po.MutualInformation(P)


# ---------------------------------------------------------------------- time_limit
def test_time_limit_is_the_one_name_and_timeout_still_works_with_a_warning():
    definition = po.SensitiveLDP(1.0, P)
    assert po.Problem(definition, MI).time_limit == 600.0
    assert po.Problem(definition, MI, time_limit=5).time_limit == 5.0
    assert po.Problem(definition, MI, time_limit=None).time_limit is None
    with pytest.warns(DeprecationWarning, match=r"Problem\(timeout=\) is deprecated: pass time_limit="):
        old = po.Problem(definition, MI, timeout=5)
    assert old.time_limit == 5.0
    with pytest.warns(DeprecationWarning, match=r"Problem\.timeout is deprecated: use Problem\.time_limit"):
        assert old.timeout == 5.0
    with (
        pytest.warns(DeprecationWarning, match="timeout"),
        pytest.raises(
            po.ValidationError, match=r"^timeout: expected time_limit= or the deprecated timeout=, not both"
        ),
    ):
        po.Problem(definition, MI, timeout=5, time_limit=7)
    with (
        pytest.warns(DeprecationWarning, match="timeout"),
        pytest.raises(po.ValidationError, match=r"^timeout: expected a positive number"),
    ):
        po.Problem(definition, MI, timeout=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name warns about nothing
        po.Problem(definition, MI, time_limit=5).with_eps(2.0)


def test_spec_files_and_problem_files_use_time_limit_and_read_the_old_name(tmp_path):
    base = '[data]\nprobabilities = [[0.07, 0.10], [0.26, 0.57]]\nn = 100\n[definition]\nkind = "SensitiveLDP"\neps = 1\n'
    _, problem = Spec.parse(base + "[options]\ntime_limit = 30\n", "spec.toml").problem()
    assert problem.time_limit == 30.0
    with pytest.warns(FutureWarning, match=r"\[options\]\.timeout is deprecated: write time_limit"):
        _, old = Spec.parse(base + "[options]\ntimeout = inf\n", "spec.toml").problem()
    assert old.time_limit is None
    with (
        pytest.warns(FutureWarning),
        pytest.raises(po.ValidationError, match=r"time_limit or the deprecated timeout, not both"),
    ):
        Spec.parse(base + "[options]\ntimeout = 3\ntime_limit = 4\n", "spec.toml").problem()
    problem = po.Problem(po.SensitiveLDP(1.0, P), MI, time_limit=42)
    assert "time_limit = 42" in problem.to_spec()
    text = po.to_json(problem)
    assert '"time_limit": 42.0' in text
    document = json.loads(text)
    options = document["data"]["options"]
    options["timeout"] = options.pop("time_limit")  # a file written by an earlier privopt
    assert po.from_json(json.dumps(document)).time_limit == 42.0


# ---------------------------------------------------------------------- ratio pairs
def test_ratio_constraints_take_3_tuples_and_ratio_pair_of_is_documented():
    pairs = [(po.given(x=0), po.given(x=1), 2.0), (po.given(x=1), po.given(x=0))]
    definition = po.RatioConstraints(pairs, 0.5, n_inputs=2)
    assert [pair.scale for pair in definition.pair_spec] == [2.0, 1.0]
    assert definition.pair_spec[0] == po.RatioPair.of(po.given(x=0), po.given(x=1), scale=2.0)
    # x = 0 may be e^{2·0.5} = e times as likely as x = 1, x = 1 only e^{0.5} times x = 0: output 0's
    # ratio 2 passes with the pair's scale 2 and fails at scale 1.
    W = [[0.4, 0.6], [0.2, 0.8]]
    assert po.audit(W, definition).eps == pytest.approx(np.log(2) / 2)
    assert not po.audit(W, po.RatioConstraints([pair[:2] for pair in pairs], 0.5, n_inputs=2)).satisfied
    with pytest.raises(
        po.ValidationError, match=r"^pairs: expected \(left, right\) or \(left, right, scale\) tuples"
    ):
        po.RatioConstraints([(po.given(x=0),)], 1.0, n_inputs=2)
    with pytest.raises(po.ValidationError, match=r"^scale: expected a finite number > 0, got 'x'"):
        po.RatioConstraints([(po.given(x=0), po.given(x=1), "x")], 1.0, n_inputs=2)
    with pytest.raises(po.ValidationError, match=r"^label: expected a string"):
        po.RatioPair.of(po.given(x=0), po.given(x=1), 2.0)  # the third positional is the label
    documented = po.RatioPair.of.__doc__ or ""
    assert "scale" in documented
    assert "(left, right, scale)" in documented
    examples = doctest.DocTestFinder().find(po.RatioPair.of, "RatioPair.of", globs={})
    assert examples[0].examples  # and they run:
    assert doctest.DocTestRunner().run(examples[0]).failed == 0


def test_describe_names_single_rows_and_pairs_add_up_with_the_audit():
    pairs = [(po.given(x=a), po.given(x=b)) for a in range(3) for b in range(3)]  # 3 are a ratio with itself
    definition = po.RatioConstraints(pairs, 1.0, n_inputs=3)
    assert str(definition) == "RatioConstraints(eps=1, 9 pairs)"
    text = po.Problem(definition, po.MutualInformation(np.full(3, 1 / 3))).describe()
    assert "6 rows (3 vacuous ones left out: a statistic against itself)" in text
    assert "  row 0: max over P(Y=y|X=0) <= e^eps min over P(Y=y|X=1)" in text
    assert "  no rows (vacuous): max over P(Y=y|X=0) <= e^eps min over P(Y=y|X=0)" in text
    assert "rows 0-0" not in text
    assert "  rows 0–11: max over" in po.LDP(1.0).row_cone(4).describe()  # 4·3 rows of one block
    report = po.audit(po.mechanisms.grr(3, 1.0), definition)
    assert report.method == "exact: 6 rows, 3 vacuous ones left out: a statistic against itself"


# ---------------------------------------------------------------------- the CLI
def test_the_cli_curve_header_shows_the_grid_it_sweeps(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        '[data]\nprobabilities = [[0.07, 0.10], [0.26, 0.57]]\nn = 100\n[definition]\nkind = "SensitiveLDP"\n'
        'eps = 1\n[set]\nkind = "point"\n'
    )
    result = CliRunner().invoke(app, ["curve", str(spec), "--eps", "0.5,1,2"])
    assert result.exit_code == 0, result.output
    header = result.output[result.output.index("SensitiveLDP(") :].splitlines()[0]  # after the progress bar
    assert header.startswith("SensitiveLDP(eps=0.5…2 (3 points), F=Point(")
    assert "eps=1," not in header  # the spec's one ε is not what the curve solves
    as_json = CliRunner().invoke(app, ["curve", str(spec), "--eps", "0.5,1,2", "--json", "--quiet"])
    assert json.loads(as_json.stdout)["definition"].startswith("SensitiveLDP(eps=0.5…2 (3 points)")


def test_reproduce_takes_the_number_of_worker_processes(tmp_path, monkeypatch):
    import privopt.experiments as experiments

    seen = {}
    real = experiments.reproduce

    def spy(name, **kwargs):
        seen.update(kwargs)
        return real(name, **kwargs)

    monkeypatch.setattr(experiments, "reproduce", spy)
    result = CliRunner().invoke(
        app, ["reproduce", "pml-fig3", "--out", str(tmp_path), "--jobs", "1", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert (seen["backend"], seen["n_jobs"]) == ("serial", 1)
    CliRunner().invoke(app, ["reproduce", "pml-fig3", "--out", str(tmp_path), "--jobs", "2", "--quiet"])
    assert (seen["backend"], seen["n_jobs"]) == ("joblib", 2)
    bad = CliRunner().invoke(app, ["reproduce", "pml-fig3", "--out", str(tmp_path), "--jobs", "0"])
    assert bad.exit_code == 2
    assert (
        "error: --jobs: expected a number of processes (-1: every core, 1: this process), got 0" in bad.output
    )


# ---------------------------------------------------------------------- errors that say what to do
def _boom(cell):
    raise RuntimeError("the disk is full")


def test_a_failed_sweep_row_says_what_was_raised():
    table = Sweep(_boom, {"k": [1]}, backend="serial", progress=False).run()
    error = table["error"].iloc[0]
    assert error.startswith("_boom raised RuntimeError: the disk is full (at test_vocabulary.py:")
    assert "expected" not in error  # not the return type: the function raised


def test_utility_curves_says_which_column_to_pass():
    table = Sweep(
        lambda c: {"mi": float(c["eps"])}, {"eps": [0.5, 1.0]}, backend="serial", progress=False
    ).run()
    with pytest.raises(
        po.ValidationError,
        match=r"^y: expected a column of the table \(its columns: eps, mi, .*\): pass y=, got 'nmi'",
    ):
        utility_curves(table, hue=None)
    assert utility_curves(table, y="mi", hue=None).axes[0].get_ylabel() == "I(X;Y) (nats)"


def test_a_table_of_counts_points_to_from_counts():
    with pytest.raises(po.ValidationError, match=r"from_counts\(counts\), which keeps n\), got sum 100\.0"):
        po.JointDistribution([[10, 20], [30, 40]])
    with pytest.raises(
        po.ValidationError, match=r"^probabilities: expected probabilities summing to 1, got sum 1\.1"
    ):
        po.JointDistribution([[0.1, 0.2], [0.3, 0.5]])  # not counts: no hint
    assert po.JointDistribution.from_counts([[10, 20], [30, 40]]).n == 100


def test_problem_files_written_by_this_version_hold_no_timeout(tmp_path: Path):
    path = po.save(po.Problem(po.SensitiveLDP(1.0, P), MI, time_limit=None), tmp_path / "problem.json")
    options = json.loads(path.read_text())["data"]["options"]
    assert "timeout" not in options
    assert options["time_limit"] is None
