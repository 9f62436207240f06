"""The command line, through typer's CliRunner and as a subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import privopt as po
from privopt.app.cli import app
from privopt.app.spec import Spec

REPO = Path(__file__).resolve().parents[1]
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

[options]
self_pairs = true

[output]
mechanism = "mechanism.csv"
solution = "solution.json"
"""


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return path


def test_design_writes_mechanism_and_solution(spec: Path):
    result = CliRunner().invoke(app, ["design", str(spec), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    # Entropy paper Example 3 (paper-faithful PolyOpt): I = 0.4228.
    assert report["rows"][0]["utility"] == pytest.approx(0.4228, abs=1e-4)
    solution = po.load(spec.parent / "solution.json")
    assert solution.value == pytest.approx(report["rows"][0]["utility"])
    frame = pd.read_csv(spec.parent / "mechanism.csv", index_col=0)
    np.testing.assert_allclose(frame.to_numpy(), solution.mechanism.matrix, atol=1e-12)


def test_design_table(spec: Path):
    result = CliRunner().invoke(app, ["design", str(spec)])
    assert result.exit_code == 0
    assert "0.4228" in result.output
    assert "vertex" in result.output


def test_audit_exit_codes(spec: Path, tmp_path: Path):
    CliRunner().invoke(app, ["design", str(spec)])
    csv = str(tmp_path / "mechanism.csv")
    passing = CliRunner().invoke(app, ["audit", csv, "--spec", str(spec), "--json"])
    assert passing.exit_code == 0
    assert json.loads(passing.output)["satisfied"] is True
    # The robust mechanism is not ε-LDP w.r.t. X (it has zeros): exit code 1 and the witness.
    failing = CliRunner().invoke(app, ["audit", csv, "--definition", "ldp", "--eps", "0.5"])
    assert failing.exit_code == 1
    assert "LDP: w[x] <= e^ε w[x']" in failing.output


def test_errors_are_one_line_without_traceback(tmp_path: Path):
    result = CliRunner().invoke(app, ["design", str(tmp_path / "missing.toml")])
    assert result.exit_code == 2
    assert "spec: expected an existing TOML spec file" in result.output
    bad = tmp_path / "bad.toml"
    bad.write_text("[data]\nprobabilities = [[0.5, 0.6]]\n[definition]\nkind = 'LDP'\neps = 1\n")
    result = CliRunner().invoke(app, ["design", str(bad)])
    assert result.exit_code == 2
    assert "probabilities: expected probabilities summing to 1" in result.output
    assert "Traceback" not in result.output
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("[data]\nprobabilities = [[0.5, 0.5]]\n[definition]\nkind = 'DP'\neps = 1\n")
    result = CliRunner().invoke(app, ["design", str(unknown)])
    assert result.exit_code == 2
    assert (
        "[definition].kind: expected 'LDP', 'SensitiveLDP' (alias 'RLDP'), 'LIP', 'PML', 'SRLIP', 'ratio'"
        in result.output
    )
    assert "got str 'DP'" in result.output


def test_debug_shows_the_traceback_and_keeps_the_exit_code(tmp_path: Path):
    result = CliRunner().invoke(app, ["design", str(tmp_path / "missing.toml"), "--debug"])
    assert result.exit_code == 2
    assert "Traceback" in result.output
    assert "privopt.errors.ValidationError: spec: expected an existing TOML spec file" in result.output


def test_subprocess_entry_point(spec: Path):
    process = subprocess.run(
        [str(Path(sys.executable).parent / "privopt"), "design", str(spec), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert process.returncode == 0, process.stderr
    assert json.loads(process.stdout)["rows"][0]["satisfied"] is True
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "privopt.app.cli",
            "audit",
            "nothing.csv",
            "--definition",
            "ldp",
            "--eps",
            "1",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert process.returncode == 2
    assert process.stderr.strip().startswith("error: mechanism: expected an existing mechanism CSV")
    assert "Traceback" not in process.stderr


@pytest.mark.data
def test_adult_example_spec(adult_dir, tmp_path: Path):
    # The shipped spec, pointed at wherever the data lives on this machine.
    text = (
        (REPO / "examples" / "adult_sex_race.toml")
        .read_text()
        .replace('"../../shared/data/adult"', repr(str(adult_dir)))
    )
    spec = tmp_path / "adult.toml"
    spec.write_text(text)
    result = CliRunner().invoke(app, ["design", str(spec), "--json"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.output)["rows"][0]
    assert row["satisfied"] is True
    assert 0 < row["nmi"] < 1


COMPARE = '\n[compare]\nmechanisms = ["grr", "srr", "ir", "optimal"]\n'


def test_compare_names_resolve_to_the_papers_mechanisms(spec: Path):
    spec.write_text(SPEC + COMPARE)
    result = CliRunner().invoke(app, ["compare", str(spec), "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["mechanism"]: row for row in json.loads(result.output)}
    assert list(rows) == ["grr", "srr", "ir", "optimal"]
    # Entropy paper Examples 4 (GRR, SRR), 5 (IR) and 3 (PolyOpt with the s1 = s2 pairs).
    assert rows["grr"]["utility"] == pytest.approx(0.0419, abs=1e-4)
    assert rows["srr"]["utility"] == pytest.approx(0.1005, abs=1e-4)
    assert rows["ir"]["utility"] == pytest.approx(0.0755, abs=1e-4)
    assert rows["optimal"]["utility"] == pytest.approx(0.4228, abs=1e-4)
    assert all(row["satisfied"] for row in rows.values())


def test_design_prints_the_comparison_of_its_spec(spec: Path):
    spec.write_text(SPEC + COMPARE)
    result = CliRunner().invoke(app, ["design", str(spec), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    assert [row["mechanism"] for row in rows] == ["optimal", "grr", "srr", "ir"]
    assert rows[0]["utility"] > max(row["utility"] for row in rows[1:])


def test_compare_default_lists_every_mechanism_of_the_definition(spec: Path):
    result = CliRunner().invoke(app, ["compare", str(spec), "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["mechanism"]: row for row in json.loads(result.output)}
    assert set(rows) == {"grr", "oue", "srr", "ir", "cr", "nr", "optimal"}
    # NR is optimal for the point P̂ only: more utility, and it fails the robust audit.
    assert rows["nr"]["utility"] > rows["optimal"]["utility"]
    assert not rows["nr"]["satisfied"]


def test_compare_unknown_mechanism_is_a_one_line_error(spec: Path):
    spec.write_text(SPEC + '\n[compare]\nmechanisms = ["grr", "laplace"]\n')
    result = CliRunner().invoke(app, ["compare", str(spec)])
    assert result.exit_code == 2
    assert "compare.mechanisms" in result.output
    assert "'laplace'" in result.output
    assert "srr" in result.output  # the message lists what exists


# ---------------------------------------------------------------------- the error contract
def _one_error_line(result) -> str:
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.output
    return result.stderr


@pytest.mark.parametrize("command", ["design", "audit", "compare", "verify", "reproduce"])
def test_every_command_takes_json_quiet_and_debug(command: str):
    result = CliRunner().invoke(app, [command, "--help"])
    assert result.exit_code == 0
    for option in ("--json", "--quiet", "--debug"):
        assert option in result.output


def test_json_errors_are_a_json_object_on_stdout_only(tmp_path: Path):
    result = CliRunner().invoke(app, ["design", str(tmp_path / "missing.toml"), "--json"])
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error == {
        "type": "ValidationError",
        "message": f"spec: expected an existing TOML spec file, got '{tmp_path / 'missing.toml'}'",
        "argument": "spec",
        "exit_code": 2,
    }
    _one_error_line(result)


def test_long_errors_are_never_wrapped(tmp_path: Path):
    long_name = "x" * 400
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace('kind = "renyi"', f'kind = "renyi"\n{long_name} = 1'))
    result = CliRunner().invoke(app, ["design", str(spec)])
    assert result.exit_code == 2
    line = _one_error_line(result)
    assert long_name in line
    assert len(line) > 400


def test_usage_errors_are_one_line_too(spec: Path):
    result = CliRunner().invoke(app, ["audit", "m.csv", "--eps", "abc"])
    assert result.exit_code == 2
    assert "Invalid value for '--eps'" in _one_error_line(result)
    result = CliRunner().invoke(app, ["design", str(spec), "--bogus", "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["exit_code"] == 2
    assert "No such option: --bogus" in _one_error_line(result)


def test_limit_reached_is_exit_code_3(tmp_path: Path):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        "[data]\nsynthetic = { shape = [30, 30], seed = 1, n = 100000 }\n"
        '[definition]\nkind = "SensitiveLDP"\neps = 1.0\n[options]\nroute = "vertex"\n'
    )
    result = CliRunner().invoke(app, ["design", str(spec), "--json"])
    assert result.exit_code == 3
    error = json.loads(result.stdout)["error"]
    assert error["type"] == "LimitError"
    assert "at most about 10^366 vertices" in error["message"]


def test_design_out_creates_the_folder(spec: Path, tmp_path: Path):
    out = tmp_path / "new" / "dir"
    result = CliRunner().invoke(app, ["design", str(spec), "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = json.loads(result.stdout)["written"]
    assert written == {"mechanism": str(out / "mechanism.csv"), "solution": str(out / "solution.json")}
    assert po.load(out / "solution.json").mechanism.n_inputs == 4
    # Without [output], --out still writes both files.
    bare = tmp_path / "bare.toml"
    bare.write_text(SPEC.split("[output]")[0])
    result = CliRunner().invoke(app, ["design", str(bare), "--json", "--out", str(tmp_path / "other")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "other").iterdir()) == ["mechanism.csv", "solution.json"]


def test_quiet_prints_the_table_only(spec: Path):
    result = CliRunner().invoke(app, ["design", str(spec), "--quiet"])
    assert result.exit_code == 0
    assert "wrote" not in result.output
    assert "0.4228" in result.output


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (b"", r"mechanism: expected a non-empty mechanism CSV .*got an empty file"),
        (b"\x00\x01\xff\xfe binary", r"mechanism: expected a mechanism CSV .* \(text\), got binary data"),
        (b"\xff\xfe\xfa", r"mechanism: expected a mechanism CSV .* \(UTF-8 text\), got undecodable byte"),
        (
            b",0,1\n0,0.5,abc\n1,0.5,0.5\n",
            r"mechanism: expected a number in every cell .*got 'abc' at the row labelled 0, column 1 of",
        ),
        (
            b",0,1\n0,0.5,0.6\n1,0.5,0.5\n",
            r"mechanism: expected a mechanism CSV: output labels in the first row, input labels in the first "
            r"column.*got the row labelled 0 sums to 1.1 in .* \(its first row and column were read as labels\)",
        ),
        (b",0,1\n", r"mechanism: expected a mechanism CSV: .*got .*: 1 row\(s\) of 3 cell\(s\)"),
    ],
)
def test_bad_mechanism_files_are_named(tmp_path: Path, content: bytes, pattern: str):
    path = tmp_path / "m.csv"
    path.write_bytes(content)
    result = CliRunner().invoke(app, ["audit", str(path), "--definition", "ldp", "--eps", "1"])
    assert result.exit_code == 2
    assert re.search(pattern, _one_error_line(result))


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (b"", r"spec: expected a non-empty TOML spec file"),
        (b"\x00\x00", r"spec: expected a TOML spec file \(text\), got binary data"),
    ],
)
def test_bad_spec_files_are_named(tmp_path: Path, content: bytes, pattern: str):
    path = tmp_path / "spec.toml"
    path.write_bytes(content)
    result = CliRunner().invoke(app, ["design", str(path)])
    assert result.exit_code == 2
    assert re.search(pattern, _one_error_line(result))


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (b"", r"\[data\]\.path: expected a non-empty CSV file with a header row"),
        (b"\x00binary", r"\[data\]\.path: expected a CSV file with a header row \(text\)"),
        (b"sex,race\n", r"\[data\]\.path: expected a CSV file with a header row with at least one data row"),
        (b"sex,race\nF,a\nM\n", r"\[data\]\.frame: expected no missing values"),
        (
            b"sex,race\nF,a\nM,b,c,d\n",
            r"\[data\]\.path: expected a CSV file with a header row, got .*Error tokenizing",
        ),
    ],
)
def test_bad_data_files_are_named(tmp_path: Path, content: bytes, pattern: str):
    (tmp_path / "data.csv").write_bytes(content)
    spec = tmp_path / "spec.toml"
    spec.write_text(
        '[data]\npath = "data.csv"\nsensitive = "sex"\npublic = "race"\n[definition]\nkind = "SensitiveLDP"\neps = 1\n'
    )
    result = CliRunner().invoke(app, ["design", str(spec)])
    assert result.exit_code == 2
    assert re.search(pattern, _one_error_line(result))


def test_audit_refuses_contradictory_options(spec: Path, tmp_path: Path):
    CliRunner().invoke(app, ["design", str(spec), "--quiet"])
    csv = str(tmp_path / "mechanism.csv")
    result = CliRunner().invoke(app, ["audit", csv, "--spec", str(spec), "--definition", "ldp"])
    assert result.exit_code == 2
    assert (
        "--definition: expected one of --spec, --solution or --definition, got --spec and --definition"
        in (_one_error_line(result))
    )
    result = CliRunner().invoke(app, ["audit", csv, "--definition", "lip", "--eps", "1"])
    assert "--definition: expected 'ldp'" in _one_error_line(result)
    result = CliRunner().invoke(app, ["audit", csv, "--definition", "ldp", "--eps", "nan"])
    assert "--eps: expected a finite number" in _one_error_line(result)


def test_verify_and_reproduce_take_json():
    result = CliRunner().invoke(app, ["verify", "--claims", "nonexistent-claim", "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["type"] == "ValidationError"
    result = CliRunner().invoke(app, ["reproduce", "fig-42", "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["argument"] == "name"


def test_verify_json_prints_json():
    result = CliRunner().invoke(app, ["verify", "--claims", "funnel.eq29", "--json"])
    assert result.exit_code in (0, 1), result.output
    json.loads(result.stdout)


def test_reproduce_json_writes_its_files_together(tmp_path: Path):
    out = tmp_path / "new" / "out"
    result = CliRunner().invoke(app, ["reproduce", "pml-fig3", "--json", "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["reproduced"] is True
    assert report["claims"]
    assert sorted(Path(f).name for f in report["written"]) == [
        "pml-fig3-claims.csv",
        "pml-fig3.csv",
        "pml-fig3.png",
    ]
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_a_csv_without_labels_is_read_as_a_bare_matrix(tmp_path: Path):
    """np.savetxt writes no labels: its rows are flat indices, audited as po.audit audits the matrix
    (the first row and column are not taken for labels)."""
    W = po.mechanisms.srr(2, 2, 1.0)
    np.savetxt(tmp_path / "bare.csv", W.matrix, delimiter=",")
    W.to_frame().to_csv(tmp_path / "labelled.csv")
    spec = tmp_path / "spec.toml"
    spec.write_text(
        "[data]\nprobabilities = [[0.07, 0.10], [0.26, 0.57]]\nn = 100\n"
        '[definition]\nkind = "SensitiveLDP"\neps = 1\n[set]\nkind = "point"\n'
    )
    expected = po.audit(W, po.SensitiveLDP(1.0, po.JointDistribution([[0.07, 0.10], [0.26, 0.57]])))
    for name in ("bare.csv", "labelled.csv"):
        result = CliRunner().invoke(app, ["audit", str(tmp_path / name), "--spec", str(spec), "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["upper"] == pytest.approx(expected.upper, abs=1e-12)
    # A bare file whose rows do not sum to 1 is read with labels, and the error says so.
    np.savetxt(tmp_path / "scaled.csv", 0.9 * W.matrix, delimiter=",")
    result = CliRunner().invoke(app, ["audit", str(tmp_path / "scaled.csv"), "--spec", str(spec)])
    assert result.exit_code == 2
    assert "a bare matrix of numbers whose every row sums to 1" in _one_error_line(result)
    assert "(its first row and column were read as labels)" in _one_error_line(result)


def test_audit_matches_csv_rows_by_label_in_any_order(spec: Path, tmp_path: Path):
    # Issue reproducer on the CLI: the CSV's row labels are text ("(0, 1)") and are matched to the
    # definition's tuple labels, so a reordered file audits to the same ε; foreign labels are bad input.
    assert CliRunner().invoke(app, ["design", str(spec)]).exit_code == 0
    frame = pd.read_csv(tmp_path / "mechanism.csv", index_col=0)
    frame.iloc[::-1].to_csv(tmp_path / "reversed.csv")
    eps = {}
    for name in ("mechanism.csv", "reversed.csv"):
        result = CliRunner().invoke(app, ["audit", str(tmp_path / name), "--spec", str(spec), "--json"])
        assert result.exit_code == 0, result.output
        eps[name] = json.loads(result.output)["upper"]
    assert eps["reversed.csv"] == pytest.approx(eps["mechanism.csv"], abs=1e-12)
    # Read by position, the reversed matrix is a different (leaky) mechanism: the test can fail.
    loaded = Spec.load(spec)
    definition = loaded.privacy_definition(loaded.distribution())
    by_position = po.audit(po.Mechanism(frame.to_numpy()[::-1]), definition)
    assert by_position.upper > eps["mechanism.csv"] + 0.1
    frame.index = [f"q{i}" for i in range(len(frame))]
    frame.to_csv(tmp_path / "foreign.csv")
    result = CliRunner().invoke(app, ["audit", str(tmp_path / "foreign.csv"), "--spec", str(spec)])
    assert result.exit_code == 2
    assert "labels that match nothing: 'q0'" in result.output
