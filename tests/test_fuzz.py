"""Property-based tests (hypothesis): bad input anywhere gets a privopt error, never a raw exception.

* The API: every public constructor and entry point of the data, sets, utilities, mechanisms and
  serialisation layers, fed generated bad values for one argument at a time (the others valid),
  raises a :class:`~privopt.errors.PrivoptError` — a :class:`~privopt.errors.ValidationError` naming
  that argument, in one line.
* The command line: generated bad spec files and mechanism CSVs give exit code 2 and one line on
  stderr that names the ``[table].key`` at fault.
* Valid random instances solved from the command line pass a brute-force audit written here from
  the definitions (Entropy paper Def. 1, privacy-funnel paper Def. 2), independent of privopt's own.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cvxpy as cp
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import privopt as po
from privopt.app.cli import app
from privopt.app.spec import SpecModel
from privopt.tolerances import EPS_MAX

P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100)
FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------- bad values
NAN_INF = st.sampled_from([math.nan, math.inf, -math.inf])
NOT_A_NUMBER = st.one_of(
    st.text(max_size=6),
    st.booleans(),
    st.none(),
    st.lists(st.floats(allow_nan=False), min_size=1, max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), min_size=1, max_size=1),
    st.just(np.array([1.0, 2.0])),
)
BAD_EPS = st.one_of(
    NOT_A_NUMBER, NAN_INF, st.floats(max_value=-1e-12), st.floats(min_value=EPS_MAX * 1.0001, max_value=1e300)
)
BAD_PROBABILITY_LEVEL = st.one_of(
    NOT_A_NUMBER, NAN_INF, st.floats(max_value=0.0), st.floats(min_value=1.0, max_value=1e300)
)
BAD_NON_NEGATIVE = st.one_of(NOT_A_NUMBER, NAN_INF, st.floats(max_value=-1e-12))
BAD_COUNT = st.one_of(
    st.text(max_size=4),
    st.booleans(),
    st.floats(),
    st.integers(max_value=0),
    st.lists(st.integers(), max_size=2),
)
BAD_TABLE = st.one_of(
    st.lists(st.lists(st.floats(0, 1), min_size=2, max_size=2), min_size=2, max_size=2).filter(
        lambda rows: abs(sum(map(sum, rows)) - 1.0) > 1e-6
    ),
    st.just([[0.5, "a"], [0.25, 0.25]]),
    st.just([[0.5, 0.5], [0.5]]),
    st.just([[1.2, -0.2]]),
    st.just([[math.nan, 1.0]]),
    st.just([]),
    st.just(np.ones((2, 2, 2)) / 8),
    st.text(max_size=5),
    st.none(),
)
BAD_STOCHASTIC = st.one_of(
    st.lists(st.lists(st.floats(0, 1), min_size=2, max_size=2), min_size=2, max_size=2).filter(
        lambda rows: any(abs(sum(row) - 1.0) > 1e-6 for row in rows)
    ),
    st.just([[0.5, "b"], [0.5, 0.5]]),
    st.just([[math.inf, 0.0], [0.5, 0.5]]),
    st.just([0.5, 0.5]),
    st.just([[1.5, -0.5], [0.5, 0.5]]),
    st.none(),
)
BAD_BUILDERS = st.sampled_from(
    [
        lambda W: cp.sum_squares(W),  # convex
        lambda W: W,  # not a scalar
        lambda W: cp.Constant(1.0),  # a constant
        lambda W: 1.0,  # not a cvxpy expression
        lambda W: cp.sqrt(W[0, 0]) * cp.sqrt(W[1, 0]),  # not DCP
        lambda W: W[5, 5],  # wrong shape
        lambda W: 1 / 0,  # raises
        "not callable",
    ]
)


def _builder_ok(W: Any) -> Any:
    return cp.sum(cp.log(W + 1.0))


@dataclass(frozen=True)
class Case:
    """One argument of one public entry point, and bad values for it."""

    name: str
    call: Callable[[Any], object]
    argument: str | None  # the argument the error must name (None: any privopt error)
    bad: st.SearchStrategy[Any]


CASES = [
    Case("LDP.eps", lambda v: po.LDP(v), "eps", BAD_EPS),
    Case("SensitiveLDP.eps", lambda v: po.SensitiveLDP(v, P), "eps", BAD_EPS),
    Case("LIP.eps", lambda v: po.LIP(v, P), "eps", BAD_EPS),
    Case("grr.eps", lambda v: po.mechanisms.grr(3, v), "eps", BAD_EPS),
    Case("grr.k", lambda v: po.mechanisms.grr(v, 1.0), "k", BAD_COUNT),
    Case("oue.eps", lambda v: po.mechanisms.oue(3, v), "eps", BAD_EPS),
    Case(
        "RenyiBall.confidence.level",
        lambda v: po.RenyiBall.confidence(P, level=v),
        "level",
        BAD_PROBABILITY_LEVEL,
    ),
    Case("RenyiBall.confidence.n", lambda v: po.RenyiBall.confidence(P, n=v), "n", BAD_COUNT),
    Case("RenyiBall.radius", lambda v: po.RenyiBall(P, v), "radius", BAD_NON_NEGATIVE),
    Case(
        "RenyiBall.order",
        lambda v: po.RenyiBall(P, 0.1, v),
        "order",
        st.one_of(BAD_NON_NEGATIVE, st.just(0.0)),
    ),
    Case("L1Ball.radius", lambda v: po.L1Ball(P, v), "radius", BAD_NON_NEGATIVE),
    Case(
        "L1Ball.confidence.level", lambda v: po.L1Ball.confidence(P, level=v), "level", BAD_PROBABILITY_LEVEL
    ),
    Case(
        "FiniteSet",
        lambda v: po.FiniteSet(v),
        "distributions",
        st.one_of(st.integers(), st.floats(), st.none(), st.booleans(), st.text(max_size=4), st.just(P)),
    ),
    Case(
        "Simplex",
        lambda v: po.Simplex(v),
        None,
        st.one_of(st.just((0, 2)), st.just(("a", 2)), st.integers(max_value=0)),
    ),
    Case("JointDistribution", lambda v: po.JointDistribution(v), "probabilities", BAD_TABLE),
    Case("Mechanism", lambda v: po.Mechanism(v), "matrix", BAD_STOCHASTIC),
    Case(
        "MutualInformation.P",
        lambda v: po.MutualInformation(v),
        "P",
        st.one_of(
            BAD_TABLE,  # 2-D tables are refused too: P is a distribution over the inputs (a vector)
            st.lists(st.floats(0, 1), min_size=1, max_size=3).filter(lambda p: abs(sum(p) - 1.0) > 1e-6),
            st.just(["a", 0.5]),
            st.just([1.5, -0.5]),
        ),
    ),
    Case(
        "Sibson.alpha",
        lambda v: po.SibsonMutualInformation(P, v),
        "alpha",
        st.one_of(NOT_A_NUMBER, NAN_INF, st.floats(max_value=1.0)),
    ),
    Case(
        "SubConvexUtility.input_size",
        lambda v: po.SubConvexUtility(lambda w: w.sum(axis=0), input_size=v),
        "input_size",
        BAD_COUNT,
    ),
    Case(
        "ConcaveUtility.n_outputs",
        lambda v: po.ConcaveUtility(_builder_ok, n_outputs=v, input_size=4),
        "n_outputs",
        BAD_COUNT,
    ),
    Case(
        "ConcaveUtility.input_size",
        lambda v: po.ConcaveUtility(_builder_ok, n_outputs=2, input_size=v),
        "input_size",
        BAD_COUNT,
    ),
    Case(
        "ConcaveUtility.builder",
        lambda v: po.ConcaveUtility(v, n_outputs=2, input_size=4),
        "builder",
        BAD_BUILDERS,
    ),
    Case(
        "ExpectedGain.gain",
        lambda v: po.ExpectedGain(P, v),
        "gain",
        st.one_of(
            st.text(max_size=3), st.just([[1.0, math.nan]] * 4), st.just([1.0, 2.0]), st.just([[1.0]] * 3)
        ),
    ),
    Case(
        "binary_pml_mechanism.p1",
        lambda v: po.mechanisms.binary_pml_mechanism(v, 0.01, 0.3),
        "p1",
        st.one_of(
            NOT_A_NUMBER, NAN_INF, st.floats(max_value=0.4999), st.floats(min_value=1.0, max_value=1e300)
        ),
    ),
    Case(
        "laplace_pml.beta",
        lambda v: po.mechanisms.laplace_pml(1.0, [0.3, 0.7], beta=v),
        "beta",
        BAD_NON_NEGATIVE,
    ),
    Case(
        "gaussian_pml_guarantee.delta2",
        lambda v: po.mechanisms.gaussian_pml_guarantee(1.0, 1.0, [0.3, 0.7], 100, v),
        "delta2",
        BAD_PROBABILITY_LEVEL,
    ),
    Case(
        "gaussian_mechanism.sigma",
        lambda v: po.mechanisms.gaussian_mechanism(v),
        "sigma",
        st.one_of(
            NOT_A_NUMBER, NAN_INF, st.floats(max_value=0.0), st.floats(min_value=1.01e100, max_value=1e300)
        ),
    ),
    Case(
        "from_json",
        lambda v: po.from_json(v),
        None,
        st.one_of(st.text(max_size=30), st.integers(), st.none()),
    ),
    Case(
        "from_json.document",
        lambda v: po.from_json(json.dumps(v)),
        None,
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(
                    [
                        *("Mechanism", "Solution", "AuditReport", "RowCone", "Bogus"),
                        *(
                            "SensitiveLDP",
                            "Pufferfish",
                            "MetricLDP",
                            "RatioConstraints",
                            "RenyiBall",
                            "Point",
                        ),
                    ]
                ),
                "data": st.one_of(
                    st.dictionaries(
                        st.sampled_from(
                            [
                                *("matrix", "input_labels", "output_labels", "name", "eps", "uncertainty"),
                                *("secrets", "distances", "labels", "pairs", "center"),
                            ]
                        ),
                        st.one_of(
                            st.text(max_size=3),
                            st.lists(st.lists(st.text(max_size=2), max_size=2), max_size=2),
                        ),
                        max_size=4,
                    ),
                    st.text(max_size=3),
                ),
            }
        ),
    ),
    Case(
        "save.path",
        lambda v: po.save(po.mechanisms.grr(2, 1.0), v),
        "path",
        st.one_of(st.integers(), st.none(), st.just("")),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
@FAST
@given(data=st.data())
def test_bad_arguments_get_a_named_privopt_error(case: Case, data: st.DataObject) -> None:
    value = data.draw(case.bad, label=case.name)
    with pytest.raises(po.PrivoptError) as info:
        case.call(value)
    if case.argument is not None:
        assert isinstance(info.value, po.ValidationError)
        assert info.value.argument == case.argument, str(info.value)
        assert "\n" not in str(info.value)


@FAST
@given(content=st.binary(max_size=64))
def test_load_of_any_bytes_is_a_privopt_error(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.json"
        path.write_bytes(content)
        with pytest.raises(po.PrivoptError):
            po.load(path)


# ---------------------------------------------------------------------- spec files
BASE: dict[str, Any] = {
    "data": {"probabilities": [[0.07, 0.10], [0.26, 0.57]], "n": 100},
    "definition": {"kind": "SensitiveLDP", "eps": 0.7},
    "set": {"kind": "renyi", "level": 0.95},
    "utility": {"kind": "sibson", "alpha": 2.0},
    "options": {
        "self_pairs": False,
        "time_limit": 60.0,
        "route": "auto",
        "backend": "auto",
        "vertex_limit": 1000,
    },
    "output": {"mechanism": "m.csv"},
}


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):  # a TOML basic string: JSON's escapes, and DEL escaped too
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))


def to_toml(document: dict[str, Any]) -> str:
    scalars = [f"{key} = {toml_value(v)}" for key, v in document.items() if not isinstance(v, dict)]
    tables = [
        f"[{key}]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in table.items())
        for key, table in document.items()
        if isinstance(table, dict)
    ]
    return "\n".join(scalars) + "\n" + "\n".join(tables)


def bad_choice(valid: tuple[str, ...]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.text(max_size=8).filter(lambda v: v.lower() not in valid), st.integers(), st.booleans()
    )


TOML_NOT_A_NUMBER = st.one_of(st.text(max_size=6), st.booleans(), st.lists(st.integers(), max_size=2))
MUTATIONS: dict[tuple[str, str], st.SearchStrategy[Any]] = {
    ("definition", "eps"): st.one_of(
        TOML_NOT_A_NUMBER, NAN_INF, st.floats(max_value=-1e-9), st.floats(min_value=710, max_value=1e300)
    ),
    ("definition", "kind"): bad_choice(("ldp", "sensitiveldp", "rldp", "lip", "pml")),
    ("definition", "on"): bad_choice(("x", "u")),
    ("set", "kind"): bad_choice(("point", "renyi", "l1", "simplex")),
    ("set", "level"): st.one_of(
        TOML_NOT_A_NUMBER, NAN_INF, st.floats(max_value=0.0), st.floats(min_value=1.0, max_value=1e300)
    ),
    ("set", "n"): st.one_of(
        st.text(max_size=3), st.floats(allow_nan=False, allow_infinity=False), st.integers(max_value=0)
    ),
    ("utility", "kind"): bad_choice(("mi", "nmi", "sibson")),
    ("utility", "alpha"): st.one_of(TOML_NOT_A_NUMBER, NAN_INF, st.floats(max_value=1.0)),
    # time_limit = inf is valid (no limit): only NaN, -inf and non-positive numbers are mistakes
    ("options", "time_limit"): st.one_of(
        TOML_NOT_A_NUMBER, st.sampled_from([math.nan, -math.inf]), st.floats(max_value=0.0)
    ),
    ("options", "self_pairs"): st.one_of(st.integers(), st.text(max_size=3), st.floats(allow_nan=False)),
    ("options", "route"): bad_choice(("auto", "vertex", "colgen")),
    ("options", "backend"): bad_choice(("auto", "cdd", "ppl")),
    ("options", "vertex_limit"): st.one_of(
        TOML_NOT_A_NUMBER, st.integers(max_value=0), st.floats(max_value=0.99)
    ),
    ("output", "mechanism"): st.one_of(
        st.integers(), st.floats(allow_nan=False), st.booleans(), st.lists(st.text(max_size=2), max_size=2)
    ),
    ("data", "n"): st.one_of(
        st.text(max_size=3), st.floats(allow_nan=False, allow_infinity=False), st.integers(max_value=0)
    ),
    ("data", "probabilities"): st.one_of(
        st.lists(st.lists(st.floats(0, 1), min_size=2, max_size=2), min_size=2, max_size=2).filter(
            lambda rows: abs(sum(map(sum, rows)) - 1.0) > 1e-6
        ),
        st.just([[0.5, -0.1], [0.3, 0.3]]),
        st.just([[0.5, 0.5], [0.5]]),
        st.text(max_size=3),
    ),
}


def _identifier(table: str) -> st.SearchStrategy[str]:
    fields = SpecModel.model_fields[table].annotation.model_fields  # type: ignore[union-attr]
    return st.from_regex(r"[a-z][a-z_]{0,11}", fullmatch=True).filter(lambda key: key not in fields)


@st.composite
def bad_specs(draw: st.DrawFn) -> tuple[str, str]:
    """A spec with one mistake, and the ``[table].key`` (or ``[table]``) its error must name."""
    document = json.loads(json.dumps(BASE))
    kind = draw(st.sampled_from(["value", "value", "value", "unknown key", "missing", "scalar table"]))
    if kind == "value":
        table, key = draw(st.sampled_from(sorted(MUTATIONS)))
        document[table][key] = draw(MUTATIONS[(table, key)])
        return to_toml(document), f"[{table}]"
    if kind == "unknown key":
        table = draw(st.sampled_from(sorted(BASE)))
        key = draw(_identifier(table))
        document[table][key] = draw(st.one_of(st.integers(), st.text(max_size=3)))
        return to_toml(document), f"[{table}].{key}"
    if kind == "missing":
        table, key = draw(
            st.sampled_from([("definition", "eps"), ("definition", "kind"), ("data", "probabilities")])
        )
        del document[table][key]
        return to_toml(document), f"[{table}]"
    table = draw(st.sampled_from(["data", "definition", "set", "options"]))
    document[table] = draw(st.one_of(st.integers(), st.text(max_size=3), st.booleans()))
    return to_toml(document), f"[{table}]"


def test_the_base_spec_is_valid() -> None:
    from privopt.app.spec import Spec

    Spec.parse(to_toml(BASE)).problem()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=bad_specs())
def test_bad_specs_exit_2_with_one_line_naming_the_key(case: tuple[str, str]) -> None:
    text, where = case
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "spec.toml"
        spec.write_text(text)
        result = CliRunner().invoke(app, ["design", str(spec), "--quiet"])
        assert result.exit_code == 2, result.output
        assert result.stderr.count("\n") == 1
        assert result.stderr.startswith("error: ")
        assert where in result.stderr, (where, result.stderr)
        assert not (Path(folder) / "m.csv").exists()


GOOD_CSV = pd.DataFrame([[0.7, 0.3], [0.4, 0.6]], index=["a", "b"], columns=["y0", "y1"])


@FAST
@given(
    row=st.integers(0, 1),
    column=st.integers(0, 1),
    cell=st.one_of(
        st.sampled_from(["abc", "", "nan", "inf", "-0.5", "1e400", "--"]),
        st.floats(min_value=1.001, max_value=1e6).map(str),
        st.floats(max_value=-1e-6, min_value=-1e6).map(str),
    ),
)
def test_bad_mechanism_csvs_exit_2(row: int, column: int, cell: str) -> None:
    frame = GOOD_CSV.astype(object)
    frame.iat[row, column] = cell
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.csv"
        frame.to_csv(path)
        result = CliRunner().invoke(app, ["audit", str(path), "--definition", "ldp", "--eps", "1"])
        assert result.exit_code == 2, result.output
        assert result.stderr.count("\n") == 1
        assert "mechanism" in result.stderr or "matrix" in result.stderr


# ---------------------------------------------------------------------- valid instances
def brute_force_eps(W: np.ndarray, definition: str, p: np.ndarray) -> float:
    """The realized ε from the definitions themselves, by enumerating every pair (0/0 leaks nothing)."""
    n_s, n_u = p.shape
    if definition == "ldp":
        rows = W
    else:
        conditional = p / p.sum(axis=1, keepdims=True)  # P(u|s)
        rows = np.stack([conditional[s] @ W[s * n_u : (s + 1) * n_u] for s in range(n_s)])  # P(y|s)
    if definition == "lip":
        p_y = p.sum(axis=1) @ rows
        pairs = [(rows[s, y], p_y[y]) for s in range(n_s) for y in range(W.shape[1])]
        pairs += [(b, a) for a, b in pairs]
    else:
        pairs = [
            (rows[a, y], rows[b, y])
            for a in range(len(rows))
            for b in range(len(rows))
            for y in range(W.shape[1])
        ]
    worst = 0.0
    for top, bottom in pairs:
        if top <= 1e-15:
            continue
        worst = max(worst, math.inf if bottom <= 1e-15 else math.log(top / bottom))
    return worst


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n_s=st.integers(2, 3),
    n_u=st.integers(1, 2),
    seed=st.integers(0, 10**6),
    eps=st.floats(0.2, 3.0),
    kind=st.sampled_from(["ldp", "sensitiveldp", "lip"]),
)
def test_cli_solutions_pass_a_brute_force_audit(n_s: int, n_u: int, seed: int, eps: float, kind: str) -> None:
    document = {
        "data": {"synthetic": {"shape": [n_s, n_u], "seed": seed, "n": 500}},
        "definition": {"kind": kind, "eps": eps},
    }
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "spec.toml"
        spec.write_text(to_toml(document))
        result = CliRunner().invoke(app, ["design", str(spec), "--json", "--quiet", "--out", folder])
        assert result.exit_code == 0, result.output
        frame = pd.read_csv(Path(folder) / "mechanism.csv", index_col=0)
        W = frame.to_numpy()
        from privopt.app.spec import Spec

        p = Spec.load(spec).distribution().probabilities
    assert np.all(W >= 0)
    np.testing.assert_allclose(W.sum(axis=1), 1.0, atol=1e-9)
    assert brute_force_eps(W, kind, p) <= eps + 1e-6
    row = json.loads(result.stdout)["rows"][0]
    assert row["satisfied"] is True
