"""The memory budget (privopt.memory): parsed, made current during a solve, and checked before every
large allocation — refused with a LimitError naming the size and the remedies, before the work.

Peak memory is measured in a subprocess (its own ``VmHWM``: ``ru_maxrss`` survives ``exec`` on Linux, so
a child forked from a large test process reported the parent's size), never by wall-clock limits
here; the times are in benchmarks/bench_memory.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from privopt.solvers.errors import BackendMemoryError
from privopt.solvers.subprocess_call import call_with_timeout

import privopt as po
from privopt import memory
from privopt.routes.pricing.slice_lp import SliceLP
from privopt.routes.simplicial_bound import convex_max_over_slice, distinct_rows

GiB = 2**30


# ------------------------------------------------------------------ the budget itself
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (4096, 4096),
        (2.5e9, 2_500_000_000),
        ("16 GiB", 16 * GiB),
        ("500MB", 500_000_000),
        ("1.5gib", int(1.5 * GiB)),
        ("2e9", 2_000_000_000),
        (" 64 KiB ", 65536),
    ],
)
def test_memory_limits_are_bytes_or_sizes_with_units(value, expected):
    assert memory.parse_memory_limit(value) == expected


@pytest.mark.parametrize("value", [0, -1, 0.5, "lots", "5 parsecs", "GiB", True, float("inf"), [1]])
def test_a_bad_memory_limit_is_named(value):
    with pytest.raises(
        po.ValidationError, match=r"^memory_limit: expected a number of bytes > 0, a size such as"
    ):
        po.Problem(po.LDP(1.0), po.MutualInformation([0.5, 0.5]), memory_limit=value)


def test_the_default_is_half_of_the_machine_and_a_solve_makes_its_own_current():
    machine = memory.machine_memory()
    assert machine is not None
    assert machine > 0
    assert memory.default_memory_limit() == int(memory.DEFAULT_SHARE * machine)
    problem = po.Problem(po.LDP(1.0), po.MutualInformation([0.5, 0.5]))
    assert problem.memory_limit == memory.default_memory_limit()
    assert (
        po.Problem(po.LDP(1.0), po.MutualInformation([0.5, 0.5]), memory_limit="3 GiB").memory_limit
        == 3 * GiB
    )
    assert memory.current_limit() == memory.default_memory_limit()
    with memory.limited("1 GiB") as outer:
        assert outer == memory.current_limit() == GiB
        with memory.limited(4096):
            assert memory.current_limit() == 4096
        assert memory.current_limit() == GiB
    assert memory.current_limit() == memory.default_memory_limit()


def test_require_names_the_size_the_limit_and_the_remedies():
    assert memory.format_bytes(11.9 * GiB) == "11.9 GiB"
    assert memory.format_bytes(512 * 2**20) == "512 MiB"
    assert memory.format_bytes(100) == "100 bytes"
    assert memory.dense_bytes(40_000, 40_000) == 12_800_000_000  # exact, no overflow
    with memory.limited("1 GiB"):
        memory.require(GiB, "exactly the limit", "none")
        with pytest.raises(po.LimitError) as caught:
            memory.require(12_800_000_000, "a dense 40,000 × 40,000 matrix", "fewer inputs")
    assert str(caught.value).startswith(
        "a dense 40,000 × 40,000 matrix needs about 11.9 GiB, more than the memory limit of 1 GiB. "
        "Remedies: fewer inputs, or a larger memory_limit="
    )


# ------------------------------------------------------------------ the case, measured in a subprocess
SENSITIVE_LDP = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import privopt as po
    import privopt.definitions.base as base

    def never(*args, **kwargs):
        raise AssertionError("the cone was compiled before the refusal")

    base.compile_pairs = never  # the refusal must come before any compilation
    n = int(sys.argv[1])
    counts = np.random.default_rng(0).integers(1, 20, size=(n, n))
    P = po.JointDistribution.from_counts(counts)
    try:
        po.Problem(po.SensitiveLDP(1.0, P), po.MutualInformation(P)).solve()
        outcome = {"error": None}
    except po.LimitError as exc:
        outcome = {"error": str(exc)}
    with open("/proc/self/status") as status:  # this process's peak, not its parent's before exec
        peak = next(line for line in status if line.startswith("VmHWM:"))
    outcome["peak_rss"] = int(peak.split()[1]) * 1024  # kB
    print(json.dumps(outcome))
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM is read from Linux's /proc")
@pytest.mark.parametrize("n", [200, 500])
def test_sensitive_ldp_on_a_large_point_estimate_is_refused_before_the_work(n):
    run = subprocess.run(
        [sys.executable, "-c", SENSITIVE_LDP, str(n)], capture_output=True, text=True, timeout=600, check=True
    )
    outcome = json.loads(run.stdout.strip().splitlines()[-1])
    inputs = n * n
    assert outcome["error"] is not None
    assert outcome["error"].startswith(
        f"column generation on {inputs:,} inputs (a restricted master of up to "
    )
    assert "GiB, more than the memory limit of" in outcome["error"] or "TiB, more than" in outcome["error"]
    assert "fewer inputs" in outcome["error"]
    assert "memory_limit=" in outcome["error"]
    assert outcome["peak_rss"] < GiB


def test_column_generation_is_refused_before_compiling_when_its_master_does_not_fit(monkeypatch):
    import privopt.definitions.base as base

    def never(*args, **kwargs):
        raise AssertionError("the cone was compiled before the refusal")

    monkeypatch.setattr(base, "compile_pairs", never)
    counts = np.random.default_rng(1).integers(1, 20, size=(30, 30))
    P = po.JointDistribution.from_counts(counts)
    problem = po.Problem(po.SensitiveLDP(1.0, P), po.MutualInformation(P), memory_limit="10 MiB")
    for route in ("auto", "colgen"):
        with pytest.raises(
            po.LimitError, match=r"column generation on 900 inputs .* more than the memory limit of 10 MiB"
        ):
            problem.solve(route=route)


# ------------------------------------------------------------------ the other large allocations
RENYI = po.RenyiBall.confidence(po.JointDistribution.from_counts([[7, 10, 3], [26, 57, 9]]))


def test_the_vertex_lp_and_the_exact_rows_are_checked():
    utility = po.MutualInformation(RENYI.center)
    solution = po.Problem(po.SensitiveLDP(1.0, RENYI), utility).solve(route="vertex")
    vertices = solution.stats.vertices
    needed = 4 * vertices * 6 * 8
    with pytest.raises(
        po.LimitError,
        match=rf"the vertex LP over {vertices} vertices of 6 inputs needs about .*route='colgen'",
    ):
        po.Problem(po.SensitiveLDP(1.0, RENYI), utility, memory_limit=needed - 8).solve(route="vertex")
    cone = po.SensitiveLDP(1.0, RENYI).row_cone()
    with (
        memory.limited(1000),
        pytest.raises(po.LimitError, match=r"the exact \(rational\) rows of the row cone"),
    ):
        cone.exact_matrix()
    with (
        memory.limited(100),
        pytest.raises(po.LimitError, match=r"expanding the row cone of .* into its \d+ rows"),
    ):
        cone.matrix()
    with memory.limited(100), pytest.raises(po.LimitError, match=r"the lifted system of the row cone"):
        cone.lifted()


def test_the_convex_program_is_checked_before_cvxpy_builds_it():
    n = 60
    utility = po.ExpectedGain(np.full(n, 1.0 / n), np.eye(n))
    with pytest.raises(
        po.LimitError, match=r"the convex program over 60 × 60 mechanisms .* needs about 2\d\d MiB"
    ):
        po.Problem(po.LDP(1.0), utility, memory_limit="50 MiB").solve(route="cvxpy")
    # The LP route holds the same program far smaller (LDP's lifted rows: 2n + 1 per output).
    assert po.Problem(po.LDP(1.0), utility, memory_limit="50 MiB").solve().route == "lp"


def test_a_dense_grr_matrix_is_checked():
    with (
        memory.limited("1 GiB"),
        pytest.raises(po.LimitError, match=r"the dense 100,000 × 100,000 GRR matrix needs about 74.5 GiB"),
    ):
        po.mechanisms.grr(100_000, 1.0)


def test_a_child_process_cannot_allocate_beyond_its_memory_limit():
    with pytest.raises(BackendMemoryError, match=r"ran out of memory \(it was allowed 0.0977 GiB\)"):
        call_with_timeout(lambda: np.ones(10**9).sum(), (), 600, "a big sum", memory_limit=100 * 2**20)
    assert (
        call_with_timeout(lambda: np.ones(10**6).sum(), (), 600, "a small sum", memory_limit=100 * 2**20)
        == 1e6
    )


def test_the_branch_and_bound_stops_within_the_budget_with_a_valid_bound():
    cone = po.LDP(0.7).row_cone(5)
    lp = SliceLP(cone)
    utility = po.MutualInformation([0.1, 0.15, 0.2, 0.25, 0.3])
    duals = np.full(5, 0.05)

    def f(V):
        return utility.mu(V.T) - V @ duals

    def gradient(v):
        return utility.gradient(v) - duals

    root = np.eye(5)
    full = convex_max_over_slice(f, root, lp.point_in_simplex, gradient, max_nodes=200)
    with memory.limited(10 * root.nbytes):  # a quarter of it holds one piece and its child
        held = convex_max_over_slice(f, root, lp.point_in_simplex, gradient, max_nodes=200)
    assert not held.complete
    assert held.nodes < full.nodes
    assert held.upper >= full.upper - 1e-12  # a bound that stopped early is weaker, never wrong
    assert held.upper >= float(np.max(f(full.cover))) - 1e-12


def test_distinct_rows_keeps_each_row_once_in_order():
    rng = np.random.default_rng(3)
    rows = rng.random((6, 4))
    pieces = [rows[[0, 1, 2]], rows[[2, 3, 0]], rows[[4, 5, 1]], np.vstack([rows[5], -0.0 * rows[5]])]
    kept = distinct_rows(pieces)
    np.testing.assert_array_equal(kept[:6], rows[[0, 1, 2, 3, 4, 5]])
    assert len(kept) == 7  # -0.0 × row is a row of zeros, distinct from the others


SPEC = """
[data]
probabilities = [[0.07, 0.10], [0.26, 0.57]]
n = 100

[definition]
kind = "SensitiveLDP"
eps = 0.7

[set]
kind = "renyi"

[options]
memory_limit = {limit}

[output]
mechanism = "mechanism.csv"
"""


def test_the_command_line_takes_a_memory_limit_and_exits_3_beyond_it(tmp_path):
    from typer.testing import CliRunner

    from privopt.app.cli import app

    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(limit='"64 MiB"'))
    assert CliRunner().invoke(app, ["design", str(spec), "--quiet"]).exit_code == 0
    spec.write_text(SPEC.format(limit="1000"))
    result = CliRunner().invoke(app, ["design", str(spec), "--quiet"])
    assert result.exit_code == 3
    assert result.stderr.count("\n") == 1
    assert "more than the memory limit of 1000 bytes" in result.stderr
    spec.write_text(SPEC.format(limit='"plenty"'))
    result = CliRunner().invoke(app, ["design", str(spec), "--quiet"])
    assert result.exit_code == 2
    assert "memory_limit: expected a number of bytes > 0" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mechanism.csv", "spec.toml"]
