"""A problem is data: po.save/po.load of whole problems in a new process, Problem.to_spec() on the
command line, solutions that carry their problem (re-audit with --solution, re-solve in Python).

Every definition, set and utility privopt ships is in :func:`problems` (a test checks the coverage), so
a new one cannot be added without its round trip. User functions live in ``tests/problem_functions.py``
and travel by import path, as a user's module would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import privopt as po
from privopt.app import json_forms
from privopt.app.cli import app
from privopt.app.spec import Spec
from tests import problem_functions as fn

REPO = Path(__file__).resolve().parents[1]
#: A new process finds ``tests.problem_functions`` as a user's process finds their module.
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def problems() -> dict[str, po.Problem]:
    """One problem per definition, set and utility privopt ships (and the options a problem keeps)."""
    labels = {"s_labels": ["F", "M"], "u_labels": ["a", "b"]}
    P = po.JointDistribution.from_counts([[7, 10], [26, 57]], **labels)
    P_large = po.JointDistribution.from_counts([[70, 100], [260, 570]], **labels)
    P2 = po.JointDistribution([[0.1, 0.2], [0.3, 0.4]], **labels)
    truth = po.JointDistribution([[0.08, 0.1], [0.25, 0.57]], **labels)
    three = po.JointDistribution.from_counts([[30], [50], [20]], s_labels=["lo", "mid", "hi"])
    P24 = po.JointDistribution.from_counts([[5, 9, 3, 7], [8, 2, 6, 4]])
    eps = np.log(2)
    mi = po.MutualInformation(P)
    vertices = np.array([[0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.3, 0.3], [0.15, 0.25, 0.2, 0.4]])
    lower = np.array([[0.2, 0.3], [0.1, 0.5]])
    line = np.abs(np.subtract.outer(np.arange(3), np.arange(3))).astype(float)
    ldp_pairs = [(po.given(x=i), po.given(x=j)) for i in range(3) for j in range(3) if i != j]
    renyi = po.RenyiBall.confidence(P)
    return {
        "LDP": po.Problem(po.LDP(1.0), mi),
        "LDP-on-u": po.Problem(po.LDP(1.0), po.MutualInformation(P, on="u")),
        "RLDP-point": po.Problem(po.SensitiveLDP(eps, P), mi),
        "RLDP-renyi": po.Problem(po.SensitiveLDP(eps, renyi), mi),
        "RLDP-renyi-utility-at-truth": po.Problem(po.SensitiveLDP(eps, renyi), po.MutualInformation(truth)),
        "RLDP-renyi-order-3-box": po.Problem(
            po.SensitiveLDP(eps, po.RenyiBall(P, 0.05, 3.0)), mi, envelope="box"
        ),
        "RLDP-simplex": po.Problem(po.SensitiveLDP(eps, po.Simplex((2, 2))), mi),
        "RLDP-finite": po.Problem(po.SensitiveLDP(eps, po.FiniteSet([P, P2])), mi, self_pairs=True),
        "RLDP-polytope": po.Problem(po.SensitiveLDP(eps, po.Polytope(vertices, shape=(2, 2))), mi),
        "RLDP-bounds": po.Problem(po.SensitiveLDP(eps, po.ConditionalBounds(lower, None, P)), mi),
        "RLDP-bounds-unlabelled": po.Problem(
            po.SensitiveLDP(eps, po.ConditionalBounds(lower, lower + 0.3)), mi
        ),
        "RLDP-on-u": po.Problem(po.SensitiveLDP(eps, P, on="u"), po.MutualInformation(P, on="u")),
        "LIP": po.Problem(po.LIP(eps, P), mi),
        "LIP-finite-nmi": po.Problem(po.LIP(eps, po.FiniteSet([P, P2])), po.NormalizedMutualInformation(P)),
        "LIP-renyi-pairwise": po.Problem(po.LIP(eps, renyi), mi, lip_counterpart="pairwise"),
        "PML-l1-confidence": po.Problem(po.PML(1.0, po.L1Ball.confidence(P_large, level=0.9)), mi),
        "PML-l1-sibson": po.Problem(po.PML(1.0, po.L1Ball(P, 0.05)), po.SibsonMutualInformation(P, 2.0)),
        "PML-polytope": po.Problem(po.PML(1.0, po.Polytope(vertices, shape=(2, 2))), mi),
        "SRLIP": po.Problem(po.SRLIP(1.0, P24, [2, 2]), po.MutualInformation(P24, on="u")),
        "SRLIP-component": po.Problem(
            po.definitions.SRLIPComponent(0.5, P24, [2, 2], 0), po.MutualInformation([0.4, 0.6])
        ),
        "metric": po.Problem(po.MetricLDP(1.0, line, ["lo", "mid", "hi"]), po.MutualInformation(three)),
        "metric-unlabelled-inf": po.Problem(
            po.MetricLDP(1.0, [[0, 1, np.inf], [1, 0, 1], [np.inf, 1, 0]]),
            po.MutualInformation([0.5, 0.3, 0.2]),
        ),
        "ratio": po.Problem(
            po.RatioConstraints(
                [
                    (0.5 * po.given(x=("F", "a")) + po.given(x=("M", "b")), po.given(s="M")),
                    (po.given(s="F"), po.marginal()),
                ],
                1.0,
                over=P,
            ),
            mi,
        ),
        "ratio-without-set": po.Problem(
            po.RatioConstraints(ldp_pairs, 1.0, n_inputs=3, name="my LDP"),
            po.MutualInformation([0.5, 0.3, 0.2]),
        ),
        "ratio-renyi-scaled": po.Problem(
            po.RatioConstraints(
                [
                    po.RatioPair.of(po.given(s="F"), po.given(s="M"), "F vs M", 2.0),
                    (po.given(s="M"), po.given(s="F")),
                ],
                0.5,
                over=renyi,
            ),
            mi,
        ),
        "pufferfish": po.Problem(
            po.Pufferfish(
                {s: (lambda x, s=s: x[0] == s) for s in ("F", "M")},
                [("F", "M")],
                1.0,
                renyi,
                directed=True,
                name="p",
            ),
            mi,
        ),
        "fdivergence-kl": po.Problem(po.LDP(1.0), po.FDivergence("kl", [0.5, 0.3, 0.2], [0.2, 0.3, 0.5])),
        "fdivergence-user-f": po.Problem(
            po.LDP(1.0),
            po.FDivergence(
                fn.squared_hellinger_f, [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], slope_at_infinity=np.inf
            ),
        ),
        "custom-mu": po.Problem(
            po.LDP(1.0),
            po.SubConvexUtility(fn.weighted_norm_mu, input_size=3, name="norm", transform=fn.log_transform),
        ),
        "gain": po.Problem(po.SensitiveLDP(eps, P), po.ExpectedGain(P, np.eye(4))),
        "distortion-hamming": po.Problem(po.LDP(1.0), po.ExpectedDistortion([0.5, 0.3, 0.2])),
        "distortion-matrix": po.Problem(po.LDP(1.0), po.ExpectedDistortion(three, line)),
        "concave-user-builder": po.Problem(
            po.LDP(1.0), po.ConcaveUtility(fn.hit_rate, n_outputs=3, input_size=3, name="hits")
        ),
        "options": po.Problem(
            po.SensitiveLDP(eps, renyi),
            mi,
            time_limit=None,
            vertex_limit=float("inf"),
            backend="cdd",
            colgen={"seed": 3, "starts": 2},
        ),
    }


@pytest.fixture(scope="module")
def catalog() -> dict[str, po.Problem]:
    return problems()


@pytest.fixture(scope="module")
def solved(catalog: dict[str, po.Problem]) -> dict[str, po.Solution]:
    return {name: problem.solve() for name, problem in catalog.items()}


def test_the_catalog_covers_every_definition_set_and_utility(catalog: dict[str, po.Problem]):
    definitions = {type(p.definition).__name__ for p in catalog.values()}
    utilities = {type(p.utility).__name__ for p in catalog.values()}
    sets = {type(p.definition.uncertainty).__name__ for p in catalog.values()} - {"NoneType"}
    kinds = set(json_forms.FORMS) - {"JointDistribution", "Problem"}
    assert kinds == definitions | utilities | sets


def _run(script: str, *args: str) -> str:
    process = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=REPO, env=ENV, check=False
    )
    assert process.returncode == 0, process.stderr
    return process.stdout


def test_saved_problems_solve_to_the_same_value_in_a_new_process(catalog, solved, tmp_path: Path):
    for name, problem in catalog.items():
        po.save(problem, tmp_path / f"{name}.json")
    script = (
        "import json, sys, pathlib, privopt as po\n"
        "folder = pathlib.Path(sys.argv[1])\n"
        "print(json.dumps({p.stem: po.load(p).solve().value for p in sorted(folder.glob('*.json'))}))\n"
    )
    values = json.loads(_run(script, str(tmp_path)))
    assert set(values) == set(catalog)
    for name, solution in solved.items():
        assert values[name] == pytest.approx(solution.value, rel=1e-9, abs=1e-12), name


def test_a_loaded_problem_keeps_its_parts(catalog):
    problem = catalog["options"]
    loaded = po.from_json(po.to_json(problem))
    assert (loaded.time_limit, loaded.vertex_limit, loaded.backend) == (None, float("inf"), "cdd")
    assert (loaded.colgen.seed, loaded.colgen.starts) == (3, 2)
    assert po.from_json(po.to_json(catalog["LIP-renyi-pairwise"])).options.lip_counterpart == "pairwise"
    lip = catalog["LIP-renyi-pairwise"]
    rectangular = po.Problem(lip.definition, lip.utility, lip_counterpart="rectangular")
    assert po.from_json(po.to_json(rectangular)).options.lip_counterpart == "rectangular"
    assert 'lip_counterpart = "rectangular"' in rectangular.to_spec()
    assert str(loaded.definition) == str(problem.definition)
    custom = po.from_json(po.to_json(catalog["custom-mu"])).utility
    assert custom.mu_function is fn.weighted_norm_mu
    assert custom.transform is fn.log_transform
    document = json.loads(po.to_json(catalog["custom-mu"]))
    assert document["data"]["utility"]["data"]["mu"] == "tests.problem_functions:weighted_norm_mu"


@pytest.mark.parametrize("name", list(problems()))
def test_to_spec_designs_the_same_mechanism_on_the_cli(name: str, catalog, solved, tmp_path: Path):
    problem, solution = catalog[name], solved[name]
    spec = tmp_path / "problem.toml"
    text = problem.to_spec(spec)
    assert spec.read_text() == text
    result = CliRunner().invoke(
        app, ["design", str(spec), "--out", str(tmp_path / "out"), "--json", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["value"] == pytest.approx(solution.value, rel=1e-9, abs=1e-12)
    designed = po.load(tmp_path / "out" / "solution.json").mechanism
    if solution.route != "colgen":  # a vertex LP or a convex program: the same data gives the same matrix
        np.testing.assert_allclose(designed.matrix, solution.mechanism.matrix, atol=1e-7)


def test_to_spec_with_user_functions_runs_in_the_installed_command(catalog, solved, tmp_path: Path):
    # The real entry point in a new process: the user's module is found on its path, as a factory is.
    for name in ("custom-mu", "concave-user-builder", "fdivergence-user-f"):
        spec = tmp_path / f"{name}.toml"
        catalog[name].to_spec(spec)
        process = subprocess.run(
            [str(Path(sys.executable).parent / "privopt"), "design", str(spec), "--json", "--quiet"],
            capture_output=True,
            text=True,
            env=ENV,
            cwd=tmp_path,
            check=False,
        )
        assert process.returncode == 0, process.stderr
        assert json.loads(process.stdout)["value"] == pytest.approx(solved[name].value, rel=1e-9)


def test_what_a_file_cannot_hold_is_a_clear_error():
    P = po.JointDistribution([[0.2, 0.3], [0.1, 0.4]])
    lam = po.Problem(po.LDP(1.0), po.SubConvexUtility(lambda w: np.abs(w).sum(axis=0), input_size=4))
    for call in (lambda: po.to_json(lam), lam.to_spec):
        with pytest.raises(
            po.ValidationError, match=r"utility.mu: expected a function importable as 'module:function'"
        ):
            call()

    class Mine(po.MutualInformation):
        pass

    with pytest.raises(po.ValidationError, match="a subclass defined elsewhere"):
        po.to_json(po.Problem(po.LDP(1.0), Mine(P)))
    tuples = po.JointDistribution([[0.2, 0.3], [0.1, 0.4]], s_labels=[("a", 1), ("b", 2)])
    with pytest.raises(po.ValidationError, match=r"data.s_labels\[0\]: expected labels a spec can hold"):
        po.Problem(po.SensitiveLDP(1.0, tuples), po.MutualInformation(tuples)).to_spec()
    po.from_json(
        po.to_json(po.Problem(po.SensitiveLDP(1.0, tuples), po.MutualInformation(tuples)))
    )  # JSON can


def test_a_function_path_that_does_not_import_is_named(tmp_path: Path):
    document = json.loads(po.to_json(problems()["custom-mu"]))
    document["data"]["utility"]["data"]["mu"] = "tests.problem_functions:no_such_function"
    with pytest.raises(po.ValidationError, match=r"utility\.mu: .* has no 'no_such_function'"):
        po.from_json(json.dumps(document))


# ---------------------------------------------------------------------- solutions carry their problem
def test_a_solution_json_alone_re_audits_on_the_cli_and_re_solves_in_python(solved, tmp_path: Path):
    solution = solved["RLDP-renyi"]
    po.save(solution, tmp_path / "solution.json")
    solution.mechanism.to_frame().to_csv(tmp_path / "mechanism.csv")
    document = json.loads((tmp_path / "solution.json").read_text())["data"]
    assert document["problem"]["definition"]["type"] == "SensitiveLDP"  # a key beside the others
    assert document["certificate"]["audit"]["definition"] == str(solution.problem.definition)
    privopt = str(Path(sys.executable).parent / "privopt")
    process = subprocess.run(
        [
            privopt,
            "audit",
            str(tmp_path / "mechanism.csv"),
            "--solution",
            str(tmp_path / "solution.json"),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert process.returncode == 0, process.stderr
    report = json.loads(process.stdout)
    assert report["upper"] == pytest.approx(solution.certificate.audit.upper, abs=1e-12)
    # GRR at ε = 2 is not ε = log 2 LDP w.r.t. S over the ball: exit code 1.
    pd.DataFrame(po.mechanisms.grr(4, 2.0).matrix).to_csv(tmp_path / "grr.csv")
    process = subprocess.run(
        [privopt, "audit", str(tmp_path / "grr.csv"), "--solution", str(tmp_path / "solution.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert process.returncode == 1
    script = "import sys, privopt as po\nprint(repr(po.load(sys.argv[1]).problem.solve().value))"
    assert float(_run(script, str(tmp_path / "solution.json"))) == pytest.approx(solution.value, rel=1e-12)


def test_design_writes_a_solution_that_re_audits_without_the_spec(catalog, tmp_path: Path):
    spec = tmp_path / "spec.toml"
    catalog["pufferfish"].to_spec(spec)
    out = tmp_path / "out"
    assert CliRunner().invoke(app, ["design", str(spec), "--out", str(out), "--quiet"]).exit_code == 0
    spec.unlink()  # nothing but the two files the design wrote
    result = CliRunner().invoke(
        app, ["audit", str(out / "mechanism.csv"), "--solution", str(out / "solution.json"), "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["satisfied"] is True
    loaded = po.load(out / "solution.json")
    assert loaded.problem.solve().value == pytest.approx(loaded.value, rel=1e-12)


def test_a_solution_without_a_writable_problem_warns_and_the_cli_says_so(tmp_path: Path):
    problem = po.Problem(po.LDP(1.0), po.SubConvexUtility(lambda w: np.abs(w).sum(axis=0), input_size=3))
    solution = problem.solve()
    assert solution.problem is problem
    with pytest.warns(UserWarning, match="written without its problem"):
        po.save(solution, tmp_path / "solution.json")
    assert po.load(tmp_path / "solution.json").problem is None
    po.save(solution.mechanism, tmp_path / "mechanism.json")
    result = CliRunner().invoke(
        app, ["audit", str(tmp_path / "mechanism.json"), "--solution", str(tmp_path / "solution.json")]
    )
    assert result.exit_code == 2
    assert "--solution: expected a solution that carries its problem" in result.output
    result = CliRunner().invoke(
        app,
        ["audit", str(tmp_path / "mechanism.json"), "--solution", str(tmp_path / "mechanism.json")],
    )
    assert result.exit_code == 2
    assert "--solution: expected a solution JSON" in result.output


def test_a_solution_file_without_a_problem_key_still_loads(solved):
    # Files written before solutions carried their problem.
    document = json.loads(po.to_json(solved["LDP"]))
    del document["data"]["problem"]
    assert po.from_json(json.dumps(document)).problem is None


def test_spec_made_from_python_is_valid_toml_that_names_its_parts(catalog):
    text = catalog["ratio"].to_spec()
    spec = Spec.parse(text, "problem.toml")
    assert spec.model.definition.kind == "ratio"
    assert 'sum = [{x = ["F", "a"], coefficient = 0.5}, {x = ["M", "b"]}]' in text
    assert "[definition.secrets]" in catalog["pufferfish"].to_spec()
    assert "time_limit = inf" in catalog["options"].to_spec()
    assert "p = [" in catalog["RLDP-renyi-utility-at-truth"].to_spec()  # the utility's own distribution
