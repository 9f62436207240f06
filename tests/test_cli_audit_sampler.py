"""``privopt audit-sampler``: the exit codes of ``audit`` (0 pass, 1 a violation shown, 2 bad input),
``--json``, reproducible seeds with joblib and Dask, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from privopt.app.cli import app

SAMPLERS = """
import math

import privopt as po


def grr3(x, rng):
    p = math.exp(1.0) / (math.exp(1.0) + 2)
    return x if rng.random() < p else int((x + rng.integers(1, 3)) % 3)


def leaky(x, rng):
    return x if rng.random() < 0.9 else int((x + 1) % 3)


def broken(x, rng):
    raise KeyError(x)


srr = po.clients.mechanism_sampler(po.mechanisms.srr(2, 2, math.log(2), s_labels=[0, 1], u_labels=[0, 1]))


def srr_flat(x, rng):  # SRR called with flat indices x = s·|U| + u, as code written against a matrix is
    return int(po.mechanisms.srr(2, 2, math.log(2)).sample([x], rng)[0])
"""

SPEC = """
[data]
probabilities = [[0.07, 0.10], [0.26, 0.57]]
n = 100

[definition]
kind = "SensitiveLDP"
eps = 0.6931471805599453

[set]
kind = "renyi"
level = 0.95
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with the samplers' module, made the current folder (the module is imported from it)."""
    (tmp_path / "samplers_under_audit.py").write_text(SAMPLERS)
    (tmp_path / "spec.toml").write_text(SPEC)
    monkeypatch.chdir(tmp_path)
    return tmp_path


LDP = ["--definition", "ldp", "--eps", "1", "--inputs", "0,1,2", "--n", "30000", "--seed", "1"]


def test_a_correct_sampler_passes(here: Path):
    result = CliRunner().invoke(app, ["audit-sampler", "samplers_under_audit:grr3", *LDP, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["satisfied"] is True
    assert report["lower"] <= 1.0 <= report["upper"]
    assert report["test"]["kind"] in ("ratio", "odds")
    table = CliRunner().invoke(app, ["audit-sampler", "samplers_under_audit:grr3", *LDP])
    assert table.exit_code == 0
    assert "audit-sampler" in table.output
    assert "note:" in table.output


def test_inputs_as_flat_indices_and_reports_per_input(here: Path):
    """The spec's definition has labels (s, u); --inputs 0,1,2,3 names them by flat index, as a matrix's
    rows do for privopt audit, and --n-per-input counts per input."""
    arguments = [
        "audit-sampler",
        "samplers_under_audit:srr_flat",
        "--spec",
        "spec.toml",
        "--seed",
        "2",
        "--json",
    ]
    result = CliRunner().invoke(app, [*arguments, "--inputs", "0,1,2,3", "--n-per-input", "5000"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["per_input"] == {"(0, 0)": 2500, "(0, 1)": 2500, "(1, 0)": 2500, "(1, 1)": 2500}
    total = CliRunner().invoke(app, [*arguments, "--inputs", "0,1,2,3", "--n", "20000"])
    assert json.loads(total.stdout)["lower"] == report["lower"]  # 5000 per input of 4 is 20000 in all
    wrong = CliRunner().invoke(app, [*arguments, "--inputs", "0,1,2,7", "--n", "20000"])
    assert wrong.exit_code == 2
    assert "or flat indices 0 to 3 in that order" in wrong.output


def test_a_violation_exits_1(here: Path):
    result = CliRunner().invoke(app, ["audit-sampler", "samplers_under_audit:leaky", *LDP, "--quiet"])
    assert result.exit_code == 1
    assert "False" in result.output


def test_a_spec_and_a_sampler_object(here: Path):
    """SRR satisfies LDP w.r.t. S for every distribution, so over the spec's Rényi ball too."""
    result = CliRunner().invoke(
        app,
        [
            "audit-sampler",
            "samplers_under_audit:srr",
            "--spec",
            "spec.toml",
            "--n",
            "40000",
            "--seed",
            "2",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["lower"] <= 0.6931471805599453
    assert set(report["per_input"]) == {"(0, 0)", "(0, 1)", "(1, 0)", "(1, 1)"}


def test_seeded_runs_agree_with_jobs(here: Path):
    one = CliRunner().invoke(app, ["audit-sampler", "samplers_under_audit:grr3", *LDP, "--json"])
    two = CliRunner().invoke(
        app, ["audit-sampler", "samplers_under_audit:grr3", *LDP, "--json", "--jobs", "2"]
    )
    assert two.exit_code == 0, two.output
    assert json.loads(one.stdout)["lower"] == json.loads(two.stdout)["lower"]
    assert json.loads(one.stdout)["upper"] == json.loads(two.stdout)["upper"]


def test_a_dask_scheduler(here: Path):
    distributed = pytest.importorskip("distributed")  # the [dist] extra, installed by `make setup`
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        result = CliRunner().invoke(
            app,
            [
                "audit-sampler",
                "samplers_under_audit:grr3",
                *LDP,
                "--json",
                "--scheduler",
                cluster.scheduler_address,
            ],
        )
    assert result.exit_code == 0, result.output
    local = CliRunner().invoke(app, ["audit-sampler", "samplers_under_audit:grr3", *LDP, "--json"])
    assert json.loads(result.stdout)["lower"] == json.loads(local.stdout)["lower"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["samplers_under_audit:nope", *LDP], "sampler: expected 'module:function', a sampler"),
        (["no_such_module:f", *LDP], "no module 'no_such_module'"),
        (["samplers_under_audit:broken", *LDP], "the sampler raised KeyError: 0 for input 0"),
        (["samplers_under_audit:grr3", *LDP[:-4], "--n", "10"], "n: expected at least 32 reports"),
        (
            ["samplers_under_audit:grr3", "--definition", "ldp", "--eps", "1", "--n", "100"],
            "inputs: expected",
        ),
        (["samplers_under_audit:grr3", "--n", "100"], "--spec: expected a spec"),
        (["samplers_under_audit:grr3", *LDP, "--alternative", "both"], "alternative: expected one of"),
        (
            ["samplers_under_audit:grr3", *LDP, "--jobs", "2", "--scheduler", "127.0.0.1:1"],
            "--jobs: expected 1",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(here: Path, arguments: list[str], message: str):
    result = CliRunner().invoke(app, ["audit-sampler", *arguments])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1
    assert message in lines[0]
    assert "Traceback" not in result.output


def test_errors_as_json(here: Path):
    result = CliRunner().invoke(app, ["audit-sampler", "samplers_under_audit:broken", *LDP, "--json"])
    assert result.exit_code == 2
    error = json.loads(result.stdout.splitlines()[0])["error"]
    assert error["argument"] == "sampler"
    assert error["exit_code"] == 2
