"""Row and output generation on the LP route (privopt.routes.row_generation): the same optimum as the
flat LP, multipliers that certify it for every row and every output, and a design in the cone."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

import privopt as po
from privopt.errors import LimitError
from privopt.routes.row_generation import PairRows, _separator, solve_by_rows


def _pair_rows(points: np.ndarray, eps: float) -> sp.csr_matrix:
    """All pair rows ``w_a − e^{ε d(a,b)} w_b <= 0`` of a Euclidean point set."""
    d = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    n = d.shape[0]
    a, b = np.nonzero(~np.eye(n, dtype=bool))
    r = np.arange(a.size)
    return sp.csr_matrix(
        (np.concatenate([np.ones(a.size), -np.exp(eps * d[a, b])]), (np.r_[r, r], np.r_[a, b])),
        shape=(a.size, n),
    )


def _flat(rows: sp.csr_matrix, C: np.ndarray) -> float:
    """The flat LP by scipy's linprog: every row for every output."""
    n, k = C.shape
    A = sp.block_diag([rows] * k, format="csr")
    sums = sp.hstack([sp.eye(n)] * k, format="csr")
    found = linprog(
        -C.T.ravel(), A_ub=A, b_ub=np.zeros(A.shape[0]), A_eq=sums, b_eq=np.ones(n), method="highs"
    )
    assert found.status == 0
    return -float(found.fun)


def _certified(rows: sp.csr_matrix, C: np.ndarray, weights: np.ndarray) -> float:
    """The bound the multipliers prove, over all rows and all outputs: ``Σ_x max_y (C − Rᵀβ)_{x,y}``."""
    assert np.all(weights >= 0.0)
    return float((C - np.asarray(rows.T @ weights.T)).max(axis=1).sum())


def test_pair_rows_reads_heads_tails_lengths_and_general_rows() -> None:
    rows = sp.csr_matrix(
        np.array(
            [
                [1.0, -2.0, 0.0],  # w0 <= 2 w1
                [-3.0, 0.0, 1.0],  # w2 <= 3 w0
                [1.0, 1.0, -5.0],  # general: three entries
                [1.0, 0.5, 0.0],  # general: no negative entry
            ]
        )
    )
    pairs = PairRows.of(rows)
    assert list(pairs.index) == [0, 1]
    assert list(pairs.head) == [0, 2]
    assert list(pairs.tail) == [1, 0]
    assert np.allclose(pairs.length, np.log([2.0, 3.0]))
    assert list(pairs.general) == [2, 3]


def test_initial_rows_are_each_inputs_shortest_pairs_with_ties_and_every_general_row() -> None:
    points = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    rows = _pair_rows(points, 1.0)
    pairs = PairRows.of(rows)
    first = PairRows.of(rows).initial(1)
    # input 0's shortest pairs out are to 1 and 2 (a tie at length 1): both kept; 3's shortest is to 1 or 2
    kept = {(int(pairs.head[i]), int(pairs.tail[i])) for i in np.flatnonzero(np.isin(pairs.index, first))}
    assert {(0, 1), (0, 2), (1, 0), (2, 0)} <= kept
    assert (0, 3) not in kept
    assert (3, 0) not in kept
    mixed = sp.vstack([rows, sp.csr_matrix(np.array([[1.0, 1.0, 1.0, -10.0]]))], format="csr")
    assert rows.shape[0] in PairRows.of(mixed).initial(1)


@pytest.mark.parametrize(("seed", "n", "eps"), [(0, 16, 0.5), (1, 20, 0.3), (2, 12, 2.0), (3, 25, 1.0)])
def test_row_generation_reaches_the_flat_optimum_and_certifies_it(seed: int, n: int, eps: float) -> None:
    rng = np.random.default_rng(seed)
    points = rng.uniform(0.0, 4.0, size=(n, 2))
    rows = _pair_rows(points, eps)
    d = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    prior = rng.dirichlet(np.ones(n))
    C = -prior[:, None] * d
    found = solve_by_rows(rows, C, None, False)
    expected = _flat(rows, C)
    value = float(np.sum(C * found.columns.T))
    assert value == pytest.approx(expected, rel=1e-7, abs=1e-9)
    assert _certified(rows, C, found.weights) == pytest.approx(expected, rel=1e-7, abs=1e-9)
    assert found.held < rows.shape[0] * n  # fewer rows than the flat LP
    assert np.allclose(found.columns.sum(axis=0), 1.0, atol=1e-7)


def test_outputs_left_out_are_priced_and_certified() -> None:
    """On a grid with a peaked prior most outputs carry no mass: they are left out after the first LP,
    and the pricing LPs' multipliers certify them."""
    grid = po.Grid(5, 5)
    d = grid.distances("euclidean")
    prior = np.random.default_rng(7).dirichlet(np.full(25, 0.3))
    rows = _pair_rows(grid.locations, 0.5)
    C = -prior[:, None] * d
    found = solve_by_rows(rows, C, None, False)
    assert found.outputs < 25
    assert found.pricing_lps > 0
    assert _certified(rows, C, found.weights) == pytest.approx(_flat(rows, C), rel=1e-7)


def test_the_separator_adds_structure_and_no_values() -> None:
    """The rows ``Σ_y w_y = 1`` reach Clarabel with ``n`` more columns whose entries are explicit zeros
    in every row (what keeps them last in its ordering): the values are the rows', the structure a full
    ``n × n`` block more, which a sparse matrix that drops its zeros would lose."""
    n, outputs = 4, 3
    sums = sp.hstack([sp.eye(n)] * outputs, format="csr")
    padded = _separator(sums)
    assert padded.shape == (n, n * outputs + n)
    assert np.array_equal(padded.toarray()[:, : n * outputs], sums.toarray())
    assert not padded.toarray()[:, n * outputs :].any()
    assert padded.nnz == sums.nnz + n * n
    structure = sp.csc_matrix((np.ones(padded.nnz), padded.indices, padded.indptr), shape=padded.shape)
    assert structure.toarray()[:, n * outputs :].all()


@pytest.mark.parametrize("seed", [1, 4])
def test_outputs_left_out_are_certified_with_the_multipliers_they_were_priced_at(seed: int) -> None:
    """At ε = 1e-9 every column is nearly constant and the LP's duals are far from unique: the vertex
    polish's multipliers have another ν than the one the outputs left out were priced at, and the two
    mixed proved a bound 1–3 % above the optimum (status 'feasible' on 11 points; fuzzing)."""
    rng = np.random.default_rng(seed)
    points = rng.uniform(0.0, 5.0, size=(11, 2))
    d = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    rows = _pair_rows(points, 1e-9)
    C = -np.full(11, 1 / 11)[:, None] * d
    found = solve_by_rows(rows, C, None, False)
    assert found.outputs < 11
    # At ε → 0 the optimum reports the one output of least expected loss.
    assert _flat(rows, C) == pytest.approx(C.sum(axis=0).max(), rel=1e-7)
    assert _certified(rows, C, found.weights) == pytest.approx(_flat(rows, C), rel=1e-7, abs=1e-9)
    assert float(np.sum(C * found.columns.T)) == pytest.approx(_flat(rows, C), rel=1e-7, abs=1e-9)


def test_general_rows_are_kept_from_the_start() -> None:
    """Rows that are not single-input pairs (here a dense random row per input) are held from the first
    LP on, and the optimum is the flat one."""
    rng = np.random.default_rng(5)
    n = 10
    rows = _pair_rows(rng.uniform(0.0, 3.0, size=(n, 2)), 0.8)
    general = sp.csr_matrix(rng.uniform(0.0, 1.0, size=(3, n)) - 0.6)
    rows = sp.vstack([rows, general], format="csr")
    C = rng.normal(size=(n, n))
    found = solve_by_rows(rows, C, None, False)
    assert _certified(rows, C, found.weights) == pytest.approx(_flat(rows, C), rel=1e-7, abs=1e-9)
    assert float(np.sum(C * found.columns.T)) == pytest.approx(_flat(rows, C), rel=1e-7, abs=1e-9)


def test_time_limit_is_a_limit_error() -> None:
    rows = _pair_rows(po.Grid(6, 6).locations, 0.5)
    C = -np.random.default_rng(0).dirichlet(np.ones(36))[:, None] * np.ones((36, 36))
    with pytest.raises(LimitError, match="time limit"):
        solve_by_rows(rows, C, 1e-6, False)


@pytest.mark.parametrize(("side", "seed"), [(5, 0), (5, 1), (6, 0)])
def test_the_lp_route_by_rows_matches_the_flat_lp_on_a_euclidean_grid(side: int, seed: int) -> None:
    """Through the public API: auto (row generation) against ``solver='HIGHS'`` (the flat LP, a vertex).
    The design is the restricted LP's vertex (HiGHS's crossover from Clarabel's point): Clarabel's point
    moved into the cone lost 3e-9 on the 6×6 grid."""
    d = po.Grid(side, side).distances("euclidean")
    prior = np.random.default_rng(seed).dirichlet(np.ones(side * side))
    problem = po.Problem(po.MetricLDP(0.5, d), po.ExpectedDistortion(prior, d))
    by_rows = problem.solve(route="lp")
    flat = problem.solve(route="lp", solver="HIGHS")
    assert "row and output generation" in by_rows.reason
    assert by_rows.status == po.Status.OPTIMAL
    assert by_rows.certificate.checked
    assert by_rows.value == pytest.approx(flat.value, rel=1e-12, abs=1e-12)
    assert by_rows.certificate.audit.satisfied


def test_the_vertex_polish_survives_a_crossover_that_crashes() -> None:
    """HiGHS 1.16's crossover from a given point crashes on this instance's first restricted LP (a
    segmentation fault in the process that calls it); the polish runs it in a child, so the caller gets
    ``None`` or a vertex of the same LP, and lives on."""
    from privopt.routes import row_generation as rg

    rng = np.random.default_rng(0)
    points = rng.uniform(0.0, 4.0, size=(16, 2))
    rows = _pair_rows(points, 0.5)
    d = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    C = -rng.dirichlet(np.ones(16))[:, None] * d
    table = rg._Rows(rows, 16)
    table.held[PairRows.of(rows).initial(rg.INITIAL_PAIRS), :] = True
    outputs = np.arange(16)
    columns, nu, beta = rg._restricted(table, C, outputs, None, False)
    polished = rg._polish(table, C, outputs, (columns, nu, beta), None)
    if polished is not None:
        vertex, _ = polished
        held = rows[np.flatnonzero(table.held[:, 0])]
        assert np.all(held @ vertex.T <= 1e-9)
        assert float(np.sum(C * vertex.T)) >= float(np.sum(C * columns.T)) - 1e-9
