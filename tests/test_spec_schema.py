"""The spec-file schema (privopt.app.spec): every mistake named as ``[table].key``, nothing ignored."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import privopt as po
from privopt.app.spec import SYNTHETIC_DRAWS, Spec, SpecModel, reference_tables

REPO = Path(__file__).resolve().parents[1]
BASE = """
[data]
probabilities = [[0.07, 0.10], [0.26, 0.57]]
n = 100

[definition]
kind = "SensitiveLDP"
eps = 0.7
"""
SYNTHETIC = '[data]\nsynthetic = {{ {} }}\n[definition]\nkind = "SensitiveLDP"\neps = 1\n'


def parse(text: str) -> Spec:
    return Spec.parse(text, "/tmp/spec.toml")


def build(text: str) -> po.Problem:
    return parse(text).problem()[1]


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # Typos that used to be ignored silently (a weaker set, a default level, no output file).
        (BASE + '[set]\nknd = "renyi"\n', r"\[set\]\.knd: expected a key among .* \(did you mean `kind`\?\)"),
        (BASE + '[set]\nkind = "renyi"\nlevle = 0.5\n', r"\[set\]\.levle: .*did you mean `level`\?"),
        (BASE + '[output]\nmechansim = "m.csv"\n', r"\[output\]\.mechansim: .*did you mean `mechanism`\?"),
        (
            BASE + "[setz]\nkind = 1\n",
            r"\[setz\]: expected a key among compare, data, .*did you mean `set`\?",
        ),
        (SYNTHETIC.format("shape = [2, 2], sedd = 1"), r"\[data\]\.synthetic\.sedd: .*did you mean `seed`\?"),
        # Wrong types are refused, never coerced.
        (
            BASE.replace("eps = 0.7", 'eps = "one"'),
            r"\[definition\]\.eps: expected a number in \[0, 709\.78\].*got str 'one'",
        ),
        (BASE.replace("eps = 0.7", 'eps = "1.0"'), r"\[definition\]\.eps: .*got str '1\.0'"),
        (BASE.replace("eps = 0.7", "eps = [1.0]"), r"\[definition\]\.eps: .*got list \[1\.0\]"),
        (BASE.replace("eps = 0.7", "eps = {a = 1}"), r"\[definition\]\.eps: .*got dict"),
        (BASE.replace("eps = 0.7", "eps = true"), r"\[definition\]\.eps: .*got bool True"),
        (BASE.replace("eps = 0.7", "eps = nan"), r"\[definition\]\.eps: .*got float nan"),
        (BASE.replace("eps = 0.7", "eps = 800"), r"\[definition\]\.eps: .*got int 800"),
        (BASE.replace("eps = 0.7", "eps = -1"), r"\[definition\]\.eps: .*got int -1"),
        (
            SYNTHETIC.format("shape = [0, 2]"),
            r"\[data\]\.synthetic\.shape: expected \[\|S\|, \|U\|\], two integers >= 1, got list \[0, 2\]",
        ),
        (SYNTHETIC.format("shape = [2]"), r"\[data\]\.synthetic\.shape: .*got list \[2\]"),
        (SYNTHETIC.format("shape = [2, 2, 2]"), r"\[data\]\.synthetic\.shape: .*got list \[2, 2, 2\]"),
        (
            SYNTHETIC.format("shape = [2, 2], n = -5"),
            r"\[data\]\.synthetic\.n: expected an integer >= \|S\|.*got int -5",
        ),
        (SYNTHETIC.format("shape = [2, 2], n = 0"), r"\[data\]\.synthetic\.n: .*got int 0"),
        (
            SYNTHETIC.format("shape = [3, 2], n = 1"),
            r"\[data\]\.synthetic\.n: expected at least \|S\| = 3 samples",
        ),
        (
            SYNTHETIC.format('seed = "abc"'),
            r"\[data\]\.synthetic\.seed: expected an integer >= 0.*got str 'abc'",
        ),
        (
            BASE + '[set]\nkind = "renyi"\nlevel = "high"\n',
            r"\[set\]\.level: expected a number in \(0, 1\).*got str 'high'",
        ),
        (BASE + '[set]\nkind = "renyi"\nlevel = 1.5\n', r"\[set\]\.level: .*got float 1\.5"),
        (
            BASE + '[utility]\nkind = "sibson"\nalpha = "x"\n',
            r"\[utility\]\.alpha: expected a number > 1.*got str 'x'",
        ),
        (
            BASE + '[options]\ntime_limit = "x"\n',
            r"\[options\]\.time_limit: expected a number > 0.*got str 'x'",
        ),
        (BASE + "[options]\nself_pairs = 1\n", r"\[options\]\.self_pairs: expected true or false"),
        (BASE + "[output]\nmechanism = 5\n", r"\[output\]\.mechanism: expected a file path.*got int 5"),
        (BASE + '[compare]\nmechanisms = ["grr", 5]\n', r"\[compare\]\.mechanisms: expected a list of names"),
        (BASE.replace("0.57", '"a"'), r"\[data\]\.probabilities: expected a list of rows of numbers"),
        # Choices, combinations and required keys.
        (
            BASE.replace('"SensitiveLDP"', '"DP"'),
            r"\[definition\]\.kind: expected 'LDP', 'SensitiveLDP' .*got str 'DP'",
        ),
        (BASE.replace("eps = 0.7\n", ""), r"\[definition\]\.eps: .*got nothing \(it is required\)"),
        ('[definition]\nkind = "LDP"\neps = 1\n', r"\[data\]: expected a \[data\] table.*got nothing"),
        (
            BASE.replace("n = 100", "synthetic = { shape = [2, 2] }"),
            r"\[data\]: expected exactly one of the keys path, probabilities, synthetic, got the keys probabilities, synthetic",
        ),
        (
            '[data]\npath = "x.csv"\n[definition]\nkind = "LDP"\neps = 1\n',
            r"\[data\]\.sensitive: expected the sensitive column name",
        ),
        (
            BASE.replace("n = 100", 'n = 100\nsplit = "test"'),
            r"\[data\]\.split: expected a key that applies to kind 'probabilities'",
        ),
        (
            BASE + '[set]\nkind = "l1"\norder = 2.0\n',
            r"\[set\]\.order: expected a key that applies to kind 'l1'",
        ),
        (
            BASE + '[set]\nkind = "renyi"\nradius = 0.1\nlevel = 0.9\n',
            r"\[set\]\.level: expected no level when radius is given",
        ),
        (BASE + "[utility]\nalpha = 3.0\n", r"\[utility\]\.alpha: expected a key that applies to kind 'mi'"),
        (
            BASE.replace('"SensitiveLDP"', '"LDP"').replace("eps = 0.7", "eps = 0.7\ndirected = true"),
            r"\[definition\]\.directed: expected a key that applies to kind 'ldp'",
        ),
        ("", r"spec: expected valid TOML|\[data\]"),
        ("[data\n", r"spec: expected valid TOML"),
    ],
)
def test_bad_specs_name_the_key(text: str, pattern: str) -> None:
    with pytest.raises(po.ValidationError, match=pattern) as info:
        parse(text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        (BASE.replace("0.57", "0.6"), r"\[data\]\.probabilities: expected probabilities summing to 1"),
        (
            BASE.replace("[0.26, 0.57]", "[0.83]"),
            r"\[data\]\.probabilities: expected an array of real numbers",
        ),
        (
            BASE.replace("n = 100", "n = 100\ns_labels = ['a', 'a']"),
            r"\[data\]\.s_labels: expected distinct labels",
        ),
        (
            BASE.replace('"SensitiveLDP"', '"LDP"') + '[set]\nkind = "renyi"\n',
            r"\[set\]\.kind: expected no \[set\] for LDP",
        ),
        (
            BASE + '[options]\nenvelope = "bogus"\n',
            r"\[options\]\.envelope: expected 'lower', 'box' or 'facets:k'",
        ),
        (BASE.replace("n = 100\n", "") + '[set]\nkind = "renyi"\n', r"\[set\]\.n: expected the sample size"),
    ],
)
def test_errors_raised_while_building_name_the_table(text: str, pattern: str) -> None:
    with pytest.raises(po.ValidationError, match=pattern):
        build(text)


def test_synthetic_data_terminates_and_is_seeded() -> None:
    # n = |S| is legal; a draw that observes every sensitive value is found, and it is reproducible.
    first = parse(SYNTHETIC.format("shape = [3, 2], seed = 4, n = 3")).distribution()
    again = parse(SYNTHETIC.format("shape = [3, 2], seed = 4, n = 3")).distribution()
    assert first.n == 3
    assert (first.probabilities == again.probabilities).all()
    assert SYNTHETIC_DRAWS >= 100


def test_case_insensitive_choices_and_defaults() -> None:
    spec = parse(BASE.replace('"SensitiveLDP"', '"rldp"') + '[set]\nKIND = "renyi"\n'.replace("KIND", "kind"))
    assert spec.model.definition.kind == "rldp"
    assert spec.model.set.kind == "renyi"
    assert spec.model.options.time_limit is None  # 600 s, the Problem's default
    assert spec.route == "auto"
    _, problem = spec.problem()
    assert isinstance(problem.definition, po.SensitiveLDP)
    assert problem.time_limit == 600.0


def test_audit_eps_override_is_validated() -> None:
    spec = parse(BASE)
    assert spec.with_eps(0.2).model.definition.eps == 0.2
    with pytest.raises(po.ValidationError, match=r"\[definition\]\.eps"):
        spec.with_eps(-1.0)


def test_example_specs_are_valid() -> None:
    for path in (REPO / "examples").glob("*.toml"):
        Spec.load(path)


def test_docs_show_the_tables_generated_from_the_model() -> None:
    doc = (REPO / "docs" / "spec-format.md").read_text()
    generated = reference_tables()
    assert generated in doc, (
        "regenerate with: python -m privopt.app.spec (and paste into docs/spec-format.md)"
    )
    # Every key of every table is documented.
    for table in SpecModel.model_fields:
        assert f"### `[{table}]`" in doc
    for key in ("kind", "eps", "level", "radius", "delta", "synthetic", "time_limit", "timeout", "mechanism"):
        assert re.search(rf"\| `{key}` \|", doc)


def test_l1_delta_is_deprecated_for_level() -> None:
    base = BASE.replace('"SensitiveLDP"', '"PML"')
    old = Spec.parse(base + '[set]\nkind = "l1"\ndelta = 0.05\n', "spec.toml")
    new = Spec.parse(base + '[set]\nkind = "l1"\nlevel = 0.95\n', "spec.toml")
    P = new.distribution()
    with pytest.warns(FutureWarning, match=r"\[set\]\.delta is deprecated: write level = 0\.95"):
        radius = old.uncertainty(P).radius
    assert new.uncertainty(P).radius == pytest.approx(radius, rel=1e-12)
