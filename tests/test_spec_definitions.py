"""Declarative definitions in spec files: ``[definition] kind = "ratio" | "pufferfish" | "metric"`` and
``factory = "module:function"``.

Each spec is checked against the same definition written in Python (the optimum of both is computed
here); every mistake is a ValidationError naming ``[table].key``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import privopt as po
from privopt.app.cli import app
from privopt.app.spec import Spec

REPO = Path(__file__).resolve().parents[1]
DATA = """
[data]
probabilities = [[0.07, 0.10], [0.26, 0.57]]
n = 100
s_labels = ["F", "M"]
u_labels = ["w", "b"]
"""
P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100, s_labels=("F", "M"), u_labels=("w", "b"))
MINORITY = ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other"]


def parse(text: str, path: str | Path = "/tmp/spec.toml") -> Spec:
    return Spec.parse(text, path)


def optimum(definition: po.PrivacyDefinition, on: str = "x") -> float:
    return po.Problem(definition, po.MutualInformation(P, on=on)).solve().value


def spec_optimum(text: str, path: str | Path = "/tmp/spec.toml") -> tuple[po.PrivacyDefinition, float]:
    _, problem = parse(text, path).problem()
    return problem.definition, problem.solve().value


def test_ratio_spec_equals_the_python_definition():
    text = (
        DATA
        + """
[definition]
kind = "ratio"
eps = 1.0
name = "LIPbyHand"
pairs = [
  { left = { s = "F" }, right = "marginal" },
  { left = "marginal", right = { s = "F" } },
  { left = [{ x = ["M", "w"] }, { x = ["M", "b"] }], right = { event = [["F", "w"], ["F", "b"]] }, scale = 2 },
]
"""
    )
    definition, value = spec_optimum(text)
    expected = po.RatioConstraints(
        [
            (po.given(s="F"), po.marginal()),
            (po.marginal(), po.given(s="F")),
            po.RatioPair.of(
                [po.given(x=("M", "w")), po.given(x=("M", "b"))],
                po.given(event=[("F", "w"), ("F", "b")]),
                scale=2.0,
            ),
        ],
        1.0,
        over=P,
        name="LIPbyHand",
    )
    assert repr(definition) == repr(expected)
    assert value == pytest.approx(optimum(expected), abs=1e-12)


def test_ratio_spec_on_u_with_weights_and_joint():
    text = (
        DATA
        + """
[definition]
kind = "ratio"
eps = 0.5
on = "u"
[[definition.pairs]]
left = { x = "w" }
right = { weights = [0.5, 0.5] }
[[definition.pairs]]
left = { joint = [["F", "b"], ["M", "b"]] }
right = { joint = [["F", "w"], ["M", "w"]] }
scale = 3.0
"""
    )
    _, value = spec_optimum(text)
    expected = po.RatioConstraints(
        [
            (po.given(x="w"), po.weights([0.5, 0.5])),
            po.RatioPair.of(
                po.joint([("F", "b"), ("M", "b")]), po.joint([("F", "w"), ("M", "w")]), scale=3.0
            ),
        ],
        0.5,
        over=P,
        on="u",
    )
    assert value == pytest.approx(optimum(expected, on="u"), abs=1e-12)


def test_ratio_spec_over_the_simplex_uses_positions_for_labels():
    """The simplex has no reference distribution: its labels are positions, the spec's are the data's."""
    text = (
        DATA
        + """
[definition]
kind = "ratio"
eps = 1.0
pairs = [{ left = { s = "F" }, right = { s = "M" } }, { left = { s = "M" }, right = { s = "F" } }]
[set]
kind = "simplex"
"""
    )
    _, value = spec_optimum(text)
    assert value == pytest.approx(optimum(po.SensitiveLDP(1.0, po.Simplex((2, 2)))), abs=1e-12)


def test_a_number_matches_a_text_label():
    text = (
        DATA.replace('["F", "M"]', '["1", "2"]')
        + """
[definition]
kind = "ratio"
eps = 1.0
pairs = [{ left = { s = 1 }, right = { s = 2 } }, { left = { s = 2 }, right = { s = "1" } }]
"""
    )
    definition, _ = spec_optimum(text)
    assert [pair.left[0].sensitive_value for pair in definition.pair_spec] == ["1", "2"]


def test_pufferfish_spec_equals_the_python_definition():
    text = (
        DATA
        + """
[definition]
kind = "pufferfish"
eps = 0.8
directed = true
discriminative_pairs = [["women", "everyone"], ["F-w", "M-any"]]

[definition.secrets]
women = { s = "F" }
everyone = {}
F-w = [["F", "w"]]
M-any = { s = "M", u = ["w", "b"] }
"""
    )
    definition, value = spec_optimum(text)
    expected = po.Pufferfish(
        {
            "women": [("F", "w"), ("F", "b")],
            "everyone": list(P.x_labels),
            "F-w": [("F", "w")],
            "M-any": [("M", "w"), ("M", "b")],
        },
        [("women", "everyone"), ("F-w", "M-any")],
        0.8,
        P,
        directed=True,
    )
    assert definition.events == expected.events
    assert value == pytest.approx(optimum(expected), abs=1e-12)


def test_metric_spec_equals_the_python_definition():
    text = (
        DATA
        + """
[definition]
kind = "metric"
eps = 0.5
distances = [[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, inf], [3, 2, 1, 0]]
"""
    )
    definition, value = spec_optimum(text)
    d = np.array([[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, np.inf], [3, 2, 1, 0]])
    expected = po.MetricLDP(0.5, d, labels=P.x_labels)
    assert definition.input_labels() == P.x_labels
    assert value == pytest.approx(optimum(expected), abs=1e-12)


def test_metric_spec_on_a_grid_compares_the_planar_mechanisms_by_name(tmp_path: Path):
    # The data's four inputs on a 2 × 2 grid (step 0.5): [compare] names the planar Laplace and its
    # optimal remapping for the distortion's prior and loss, as po.compare does in Python.
    grid = po.Grid(2, 2, step=0.5)
    d = grid.distances()
    rows = ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in d)
    spec = tmp_path / "geo.toml"
    spec.write_text(
        DATA
        + f"""
[definition]
kind = "metric"
eps = 2.0
distances = [{rows}]

[utility]
kind = "distortion"
loss = [{rows}]

[compare]
mechanisms = ["planar_laplace", "planar_laplace+remap", "optimal"]
"""
    )
    result = CliRunner().invoke(app, ["compare", str(spec), "--json"])
    assert result.exit_code == 0, result.output
    found = {row["mechanism"]: row for row in json.loads(result.output)}
    assert list(found) == ["planar_laplace", "planar_laplace+remap", "optimal"]
    W = po.mechanisms.planar_laplace(grid, 2.0)
    assert found["planar_laplace"]["utility"] == pytest.approx(
        -float(np.sum(P.p_x[:, None] * W.matrix * d)), rel=1e-12
    )
    remapped = po.mechanisms.optimal_remap(W, P.p_x, d).expected_loss
    assert found["planar_laplace+remap"]["utility"] == pytest.approx(-remapped, rel=1e-12)
    assert all(row["satisfied"] for row in found.values())


def _write_factory(folder: Path, module: str, body: str) -> None:
    (folder / f"{module}.py").write_text("import privopt as po\n\n" + body)


def test_factory_builds_the_definition_from_the_spec_folder(tmp_path: Path):
    module = f"policy_{tmp_path.name}"
    _write_factory(
        tmp_path,
        module,
        "def build(P, eps):\n"
        "    pairs = [(po.given(s=a), po.given(s=b)) for a in P.s_labels for b in P.s_labels if a != b]\n"
        "    return po.RatioConstraints(pairs, eps, over=P, name='ByFactory')\n",
    )
    spec = tmp_path / "spec.toml"
    spec.write_text(DATA + f'[definition]\nfactory = "{module}:build"\neps = 0.7\n')
    definition, value = spec_optimum(spec.read_text(), spec)
    assert definition.name == "ByFactory"
    assert definition.eps == 0.7
    assert value == pytest.approx(optimum(po.SensitiveLDP(0.7, P)), abs=1e-12)
    assert str(tmp_path) not in __import__("sys").path  # the folder is on sys.path only while importing


@pytest.mark.parametrize(
    ("body", "factory", "pattern"),
    [
        (
            "",
            "{m}:build",
            r"\[definition\]\.factory: expected 'module:function'.*module '{m}' has no 'build'",
        ),
        ("build = 3\n", "{m}:build", r"\[definition\]\.factory: .*int \(not callable\)"),
        (
            "def build(P, eps):\n    return {'kind': 'ldp'}\n",
            "{m}:build",
            r"\[definition\]\.factory: expected a factory returning a privacy definition .*returned dict",
        ),
        (
            "def build(P, eps):\n    raise RuntimeError('no policy for ' + str(eps))\n",
            "{m}:build",
            r"\[definition\]\.factory: .*raised RuntimeError: no policy for 1\.0",
        ),
        (
            "def build(P, eps):\n    return po.LDP(-eps)\n",
            "{m}:build",
            r"^eps: expected a finite number >= 0",  # privopt's own error inside the factory passes unchanged
        ),
        (
            "import not_a_module_anywhere\n",
            "{m}:build",
            r"\[definition\]\.factory: .*that imports.*not_a_module_anywhere",
        ),
        (
            "raise ValueError('broken module')\n",
            "{m}:build",
            r"\[definition\]\.factory: .*ValueError: broken module",
        ),
        ("", "missing_module_xyz:build", r"\[definition\]\.factory: .*no module 'missing_module_xyz' in"),
        ("", "{m}.build", r"\[definition\]\.factory: expected 'module:function'.*got '{m}\.build'"),
        ("", "{m}:", r"\[definition\]\.factory: expected 'module:function'"),
    ],
)
def test_bad_factories_are_named(tmp_path: Path, body: str, factory: str, pattern: str):
    module = f"bad_{tmp_path.name}"
    _write_factory(tmp_path, module, body)
    spec = tmp_path / "spec.toml"
    spec.write_text(DATA + f'[definition]\nfactory = "{factory.format(m=module)}"\neps = 1.0\n')
    with pytest.raises(po.ValidationError, match=pattern.format(m=module)):
        Spec.load(spec).problem()


RATIO = DATA + '[definition]\nkind = "ratio"\neps = 1\n'
PUFFERFISH = DATA + '[definition]\nkind = "pufferfish"\neps = 1\n'
METRIC = DATA + '[definition]\nkind = "metric"\neps = 1\n'


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        (
            RATIO + 'pairs = [{ left = { s = "F", x = ["F", "w"] }, right = "marginal" }]\n',
            r"\[definition\]\.pairs\[0\]\.left\[0\]: expected a statistic: exactly one of the keys s, x, event, "
            r"joint, weights, marginal, sum \(and a coefficient\), got the keys s, x",
        ),
        (
            RATIO + 'pairs = [{ left = { s = "X" }, right = "marginal" }]\n',
            r"\[definition\]\.pairs\[0\]\.left\[0\]\.s: expected a label among 'F', 'M', got 'X'",
        ),
        (
            RATIO + 'pairs = [{ left = { sss = "F" }, right = "marginal" }]\n',
            r"\[definition\]\.pairs\[0\]\.left\[0\]\.sss: expected a key among coefficient, event, joint, "
            r"marginal, s, sum, weights, x, got an unknown key \(did you mean `s`\?\)",
        ),
        (
            RATIO + 'pairs = [{ left = "margnal", right = "marginal" }]\n',
            r"\[definition\]\.pairs\[0\]\.left: expected a statistic or a list of them .*got str 'margnal'",
        ),
        (
            RATIO + 'pairs = [{ left = { s = 1.5 }, right = "marginal" }]\n',
            r"\[definition\]\.pairs\[0\]\.left\[0\]\.s: expected a label of S.*got float 1\.5",
        ),
        (
            RATIO + 'pairs = [{ left = { x = ["F", "w"] }, right = { x = ["M", "b"] }, scale = -1 }]\n',
            r"\[definition\]\.pairs\[0\]\.scale: expected a number > 0.*got int -1",
        ),
        (
            RATIO + 'pairs = [{ left = { x = ["F", "w"] }, rihgt = { x = ["M", "b"] } }]\n',
            r"\[definition\]\.pairs\[0\]\.rihgt: .*\(did you mean `right`\?\)",
        ),
        (
            RATIO + 'pairs = [{ left = { x = ["F", "w", "b"] }, right = "marginal" }]\n',
            r"\[definition\]\.pairs\[0\]\.left\[0\]\.x: expected a record \[s, u\]",
        ),
        (
            RATIO + 'pairs = [{ left = { x = ["F", "q"] }, right = "marginal" }]\n',
            r"\[definition\]\.pairs\[0\]\.left\[0\]\.x\[1\]: expected a label among 'w', 'b', got 'q'",
        ),
        (
            RATIO + 'pairs = [{ left = { weights = [1, 2, 3] }, right = "marginal" }]\n',
            r"\[definition\]\.pairs\[0\]\.left\[0\]\.weights: expected 4 numbers >= 0 .*got 3",
        ),
        (RATIO, r"\[definition\]\.pairs: expected a list of pairs .*required for kind 'ratio', got nothing"),
        (
            RATIO + "distances = [[0]]\npairs = []\n",
            r"\[definition\]\.distances: expected a key that applies to kind 'ratio'",
        ),
        (
            DATA + "[definition]\neps = 1\n",
            r"\[definition\]\.kind: expected a kind .* or a factory, got nothing",
        ),
        (
            RATIO + 'factory = "a:b"\n',
            r"\[definition\]\.kind: expected no kind with factory .*got 'ratio'",
        ),
        (
            PUFFERFISH
            + 'secrets = { f = { s = "F" }, m = { s = "Q" } }\ndiscriminative_pairs = [["f", "m"]]\n',
            r"\[definition\]\.secrets\.m\.s: expected a label among 'F', 'M', got 'Q'",
        ),
        (
            PUFFERFISH
            + 'secrets = { f = { s = "F" }, m = { s = ["M", "Q"] } }\ndiscriminative_pairs = [["f", "m"]]\n',
            r"\[definition\]\.secrets\.m\.s\[1\]: expected a label among 'F', 'M', got 'Q'",
        ),
        (
            PUFFERFISH
            + 'secrets = { f = { s = "F" }, m = { s = "M", v = 1 } }\ndiscriminative_pairs = [["f", "m"]]\n',
            r"\[definition\]\.secrets\.m\.v: expected a key among records, s, u, got an unknown key",
        ),
        (
            PUFFERFISH
            + 'secrets = { f = { s = "F" }, m = { s = "M" } }\ndiscriminative_pairs = [["f", "x"]]\n',
            r"\[definition\]\.discriminative_pairs\[0\]\[1\]: expected the name of a secret \('f', 'm'\), got 'x'",
        ),
        (
            PUFFERFISH + 'secrets = { f = { s = "F" }, m = { s = "M" } }\ndiscriminative_pairs = [["f"]]\n',
            r"\[definition\]\.discriminative_pairs: expected a list of pairs of secret names",
        ),
        (
            PUFFERFISH
            + 'secrets = { f = { s = "F" }, m = { records = [["F", "w"]], s = "M" } }\ndiscriminative_pairs = [["f", "m"]]\n',
            r"\[definition\]\.secrets\.m\.records: expected records or conditions on s and u, not both",
        ),
        (
            PUFFERFISH + 'secrets = { f = { s = "F" }, m = [] }\ndiscriminative_pairs = [["f", "m"]]\n',
            r"\[definition\]\.secrets\.m: expected an event with at least one record, got none",
        ),
        (
            PUFFERFISH + 'secrets = { f = { s = "F" } }\n',
            r"\[definition\]\.discriminative_pairs: .*required for kind 'pufferfish'",
        ),
        (
            METRIC + "distances = [[0, 1, 2], [1, 0, 1], [2, 1, 0]]\n",
            r"\[definition\]\.distances: expected a 4 × 4 matrix \(rows and columns: the inputs \('F', 'w'\), .*got 3 × 3",
        ),
        (
            METRIC + "distances = [[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, 0, 0]]\n",
            r"\[definition\]\.distances: expected distances d\(x, x'\) > 0 between distinct inputs",
        ),
        (
            METRIC + "distances = [[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, nan, 0]]\n",
            r"\[definition\]\.distances: expected a square matrix of numbers >= 0",
        ),
        (
            METRIC + 'distances = [[0, 1], [1, 0]]\non = "u"\n[set]\nkind = "renyi"\n',
            r"\[set\]\.kind: expected no \[set\] for metric privacy",
        ),
        (
            DATA + '[definition]\nfactory = "m:f"\neps = 1\n[set]\nkind = "simplex"\n',
            r"\[set\]\.kind: expected no \[set\] for a factory",
        ),
    ],
)
def test_bad_declarative_definitions_name_the_key(text: str, pattern: str):
    with pytest.raises(po.ValidationError, match=pattern):
        parse(text).problem()


def test_the_example_solves_with_json_and_creates_the_out_folder(tmp_path: Path, monkeypatch):
    """Done when of issue 14: `privopt design examples/custom_definition.toml --json --out new/dir`."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        app, ["design", str(REPO / "examples" / "custom_definition.toml"), "--json", "--out", "new/dir"]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["definition"].startswith("Pufferfish('WhiteVsMinority', eps=1, 4 secrets")
    assert document["status"] == "optimal"
    assert document["rows"][0]["satisfied"] is True
    written = {Path(path).name for path in document["written"].values()}
    assert written == {"custom_definition_mechanism.csv", "custom_definition_solution.json"}
    assert sorted(p.name for p in (tmp_path / "new" / "dir").iterdir()) == sorted(written)
    # The mechanism it wrote passes an audit against the spec, and loses to no weaker policy.
    mechanism = tmp_path / "new" / "dir" / "custom_definition_mechanism.csv"
    audit = CliRunner().invoke(
        app, ["audit", str(mechanism), "--spec", str(REPO / "examples" / "custom_definition.toml")]
    )
    assert audit.exit_code == 0, audit.output


def test_the_example_is_the_python_pufferfish_it_documents():
    spec = Spec.load(REPO / "examples" / "custom_definition.toml")
    data, problem = spec.problem()
    everyone = [("White", "Female"), ("White", "Male")]
    minority = [(s, u) for s in MINORITY for u in ("Female", "Male")]
    expected = po.Pufferfish(
        {
            "white": everyone,
            "minority": minority,
            "white women": [("White", "Female")],
            "minority women": [(s, "Female") for s in MINORITY],
        },
        [("white", "minority"), ("white women", "minority women")],
        1.0,
        data,
        name="WhiteVsMinority",
    )
    assert problem.definition.events == expected.events
    value = problem.solve().value
    assert value == pytest.approx(po.Problem(expected, po.MutualInformation(data)).solve().value, abs=1e-12)
    # The policy protects less than LDP w.r.t. race, so its optimum is at least as large.
    assert value >= po.Problem(po.SensitiveLDP(1.0, data), po.MutualInformation(data)).solve().value - 1e-9


def test_with_eps_keeps_a_declarative_definition():
    spec = Spec.load(REPO / "examples" / "custom_definition.toml").with_eps(0.25)
    _, problem = spec.problem()
    assert problem.definition.eps == 0.25
    assert re.match(r"Pufferfish\('WhiteVsMinority', eps=0\.25, 4 secrets", repr(problem.definition))
