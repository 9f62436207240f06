"""The compiler and its routes against the papers' examples, theorems and brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from privopt.solvers import polytope_vertices
from scipy.optimize import linprog

import privopt as po
from tests.conftest import random_distribution

# Entropy paper Example 3: the rows of V (the 16 vertices of Γ̂, columns ordered as X).
PAPER_V = np.array(
    [
        [0.0744, 0.3227, 0.5603, 0.0426], [0.2426, 0.2426, 0.4783, 0.0364], [0.3333, 0.3333, 0.1667, 0.1667],
        [0.1091, 0.4737, 0.2086, 0.2086], [0.0993, 0.4310, 0, 0.4697], [0.1121, 0.4864, 0, 0.4015],
        [0.3404, 0.3404, 0, 0.3191], [0.0770, 0.3343, 0.2944, 0.2944], [0.2234, 0.2234, 0, 0.5531],
        [0.4875, 0.1434, 0, 0.3690], [0.4360, 0.1283, 0, 0.4358], [0.4758, 0.1400, 0.1921, 0.1921],
        [0.3437, 0.1011, 0.2776, 0.2776], [0.1602, 0.1602, 0.6316, 0.0481], [0.1667, 0.1667, 0.3333, 0.3333],
        [0.3325, 0.0978, 0.5294, 0.0403],
    ]
)  # fmt: skip
# Example 3's mechanism Q_PolyOpt (rows are outputs there; privopt's columns).
PAPER_Q = np.array(
    [
        [0.0885, 0.3840, 0.6667, 0.0507],
        [0.0860, 0.3731, 0, 0.3080],
        [0.6162, 0.1813, 0, 0.6159],
        [0.2094, 0.0616, 0.3333, 0.0254],
    ]
)


@pytest.fixture
def example_problem(example1):
    F = po.RenyiBall.confidence(example1)
    return F, po.SensitiveLDP(np.log(2), F), po.MutualInformation(example1)


def _rows_match(found: np.ndarray, expected: np.ndarray, atol: float) -> bool:
    return all(np.any(np.max(np.abs(found - row), axis=1) <= atol) for row in expected)


def test_example3_paper_faithful_polyopt(example_problem):
    _F, definition, mi = example_problem
    compiled = po.Problem(definition, mi, self_pairs=True).compile()
    assert compiled.cone.n_rows == 12  # 16 inequalities of Def. 3, minus 4 vacuous (s1 = s2, u1 = u2)
    solution = po.Problem(definition, mi, self_pairs=True).solve()
    assert solution.stats.vertices == 16  # Example 3: V has 16 rows
    assert solution.value == pytest.approx(0.4228, abs=1e-4)  # I_P̂(X;Y) = μ·θ̂ = 0.4228
    columns = solution.mechanism.matrix.T
    assert _rows_match(columns, PAPER_Q, atol=1e-3)
    assert _rows_match(PAPER_Q, columns, atol=1e-3)
    # The mechanism's columns are the paper's vertices scaled by θ̂; its audited ε is <= ε over F.
    assert solution.certificate.audit.upper <= np.log(2) + 1e-7
    # Every printed vertex is a vertex privopt finds (V to 1e-3), via the enumeration itself.
    cone = compiled.cone
    rows = cone.matrix().toarray()
    n = 4
    vertices = polytope_vertices(
        np.vstack([rows, -np.eye(n)]), np.zeros(rows.shape[0] + n), np.ones((1, n)), [1.0]
    ).vertices
    assert len(vertices) == 16
    assert _rows_match(vertices, PAPER_V, atol=1e-3)
    assert _rows_match(PAPER_V, vertices, atol=1e-3)


def test_dropping_self_pairs_strictly_increases_utility(example_problem):
    _, definition, mi = example_problem
    faithful = po.Problem(definition, mi, self_pairs=True).solve()
    variant = po.Problem(definition, mi, self_pairs=False).solve()
    assert variant.value > faithful.value + 0.1  # 0.5630 vs 0.4228
    for solution in (faithful, variant):
        assert solution.certificate.audit.satisfied
        assert solution.certificate.audit.upper <= np.log(2) + 1e-7


def test_pml_example1_optimum(example1):
    # PML paper Example 1 / eq. 34: optimal for ε = log 9/8 and P = (0.4, 0.2, 0.2, 0.2).
    p = np.array([0.4, 0.2, 0.2, 0.2])
    W34 = np.array(
        [
            [0.325, 0.225, 0.225, 0.225],
            [0.45, 0.1, 0.225, 0.225],
            [0.45, 0.225, 0.1, 0.225],
            [0.45, 0.225, 0.225, 0.1],
        ]
    )
    solution = po.Problem(po.PML(np.log(9 / 8), p), po.MutualInformation(p)).solve()
    assert solution.value == pytest.approx(po.MutualInformation(p).value(W34), abs=1e-9)


def _binary_mechanism(p0: np.ndarray, p1: np.ndarray, eps: float) -> np.ndarray:
    """Kairouz et al.'s binary mechanism: report 0 w.p. e^ε/(1+e^ε) iff P0(x) >= P1(x)."""
    e = np.exp(eps)
    return np.where((p0 >= p1)[:, None], [e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)])


def test_kairouz_binary_mechanism_optimal_for_tv(rng):
    for _ in range(5):
        k = int(rng.integers(3, 6))
        p0, p1 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        tv = po.FDivergence("tv", p0, p1)
        for eps in (0.1, 0.5, 1.0, 2.0, 4.0):
            optimum = po.Problem(po.LDP(eps), tv).solve().value
            assert optimum == pytest.approx(tv.value(_binary_mechanism(p0, p1, eps)), abs=1e-10)


def test_kairouz_randomized_response_optimal_for_kl_at_large_eps(rng):
    # "There exists ε* such that for all ε >= ε*, randomized response maximises KL" (slides).
    for _ in range(3):
        p0, p1 = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        kl = po.FDivergence("kl", p0, p1)
        for eps in (20.0, 25.0):  # the threshold is about 11 for the first pair drawn here
            optimum = po.Problem(po.LDP(eps), kl).solve().value
            assert optimum == pytest.approx(kl.value(po.mechanisms.grr(4, eps)), rel=1e-9)
        # ... and at small ε it is not (the binary mechanism is better there).
        assert po.Problem(po.LDP(0.5), kl).solve().value > kl.value(po.mechanisms.grr(4, 0.5)) + 1e-6


@pytest.mark.parametrize("on", ["x", "u"])
def test_ordering_lip_sensitive_ldp_ldp(rng, on):
    # ε-LDP ⇒ ε-LDP w.r.t. S ⇒ ε-LIP (privacy-funnel Lemma 1), so the optima are ordered the other way.
    for _ in range(6):
        P = random_distribution(rng, (2, 3), alpha=1.0)
        mi = po.MutualInformation(P, on=on)
        eps = float(rng.uniform(0.2, 2.0))
        lip = po.Problem(po.LIP(eps, P, on=on), mi).solve().value
        sldp = po.Problem(po.SensitiveLDP(eps, P, on=on), mi).solve().value
        ldp = po.Problem(po.LDP(eps), mi).solve().value
        assert lip >= sldp - 1e-9 >= ldp - 2e-9


def test_nr_beats_robust_and_sets_are_monotone(rng):
    for _ in range(4):
        counts = rng.multinomial(300, rng.dirichlet(np.full(4, 0.5))).reshape(2, 2) + 1
        P = po.JointDistribution.from_counts(counts)
        mi = po.MutualInformation(P)
        eps = float(rng.uniform(0.3, 2.0))
        nr = po.Problem(po.SensitiveLDP(eps, P), mi).solve().value
        small = po.Problem(po.SensitiveLDP(eps, po.RenyiBall.confidence(P, level=0.80)), mi).solve().value
        large = po.Problem(po.SensitiveLDP(eps, po.RenyiBall.confidence(P, level=0.99)), mi).solve().value
        simplex = po.Problem(po.SensitiveLDP(eps, po.Simplex(P.shape)), mi).solve().value
        assert nr >= small - 1e-9 >= large - 2e-9 >= simplex - 3e-9


def test_finite_sets_are_monotone(rng):
    members = [random_distribution(rng, (2, 2), alpha=1.0) for _ in range(3)]
    mi = po.MutualInformation(members[0])
    values = [
        po.Problem(po.SensitiveLDP(0.7, po.FiniteSet(members[: k + 1])), mi).solve().value for k in range(3)
    ]
    assert values[0] >= values[1] - 1e-9 >= values[2] - 2e-9


def test_every_solution_passes_its_audit_and_dual_certificate(rng):
    P = random_distribution(rng, (2, 3), alpha=1.0)
    for definition in [
        po.LDP(1.0),
        po.SensitiveLDP(1.0, P),
        po.LIP(1.0, P),
        po.PML(1.0, P),
        po.SensitiveLDP(1.0, po.Simplex((2, 3))),
    ]:
        solution = po.Problem(definition, po.MutualInformation(P)).solve()
        assert solution.certificate.audit.satisfied
        assert solution.certificate.cone_violation <= 1e-9
        assert solution.mechanism.n_outputs <= 6
        # Strong duality of the vertex LP, and μ(v) <= λᵀv at every vertex.
        assert solution.certificate.dual_bound == pytest.approx(solution.value, abs=1e-9)
        assert solution.certificate.max_reduced_cost <= 1e-9


def _full_mechanism_polytope_optimum(
    definition: po.PrivacyDefinition, utility: po.SubConvexUtility, n: int
) -> float:
    """Brute force: the maximum of a convex utility over the polytope of all n×n mechanisms whose
    columns lie in the cone is attained at one of its vertices; enumerate them (n² dimensions)."""
    G = definition.row_cone(n).matrix().toarray()
    k = n  # |Y| = |X| suffices (Entropy Thm. 3)
    rows, rhs = [], []
    for y in range(k):  # G W[:, y] <= 0
        block = np.zeros((G.shape[0], n * k))
        block[:, y::k] = G
        rows.append(block)
        rhs.append(np.zeros(G.shape[0]))
    rows.append(-np.eye(n * k))
    rhs.append(np.zeros(n * k))
    a_eq = np.kron(np.eye(n), np.ones((1, k)))
    vertices = polytope_vertices(
        np.vstack(rows), np.concatenate(rhs), a_eq, np.ones(n), backend="ppl"
    ).vertices
    return max(utility.value(np.clip(v.reshape(n, k), 0, None)) for v in vertices)


def test_vertex_route_equals_brute_force_on_small_cases(rng):
    for _ in range(3):
        p = rng.dirichlet(np.ones(3))
        P = po.JointDistribution(p)
        mi = po.MutualInformation(p)
        for definition in (po.LDP(0.8), po.PML(0.8, p)):
            optimum = po.Problem(definition, mi).solve().value
            assert optimum == pytest.approx(_full_mechanism_polytope_optimum(definition, mi, 3), abs=1e-9)
        del P


def test_random_feasible_mechanisms_never_beat_the_optimum(rng):
    P = random_distribution(rng, (2, 2), alpha=1.0)
    F = po.RenyiBall.confidence(po.JointDistribution.from_counts(np.round(P.probabilities * 200) + 1))
    definition = po.SensitiveLDP(1.0, F)
    mi = po.MutualInformation(F.center)
    optimum = po.Problem(definition, mi).solve().value
    G = definition.row_cone().matrix().toarray()
    checked = 0
    for _ in range(400):
        W = rng.dirichlet(np.full(4, 0.3), size=4)
        # Mix with the uniform channel until every column is in the cone.
        for t in np.linspace(0, 1, 21):
            V = (1 - t) * W + t / 4
            if np.all(G @ V <= 1e-12):
                assert mi.value(V) <= optimum + 1e-9
                checked += 1
                break
    assert checked > 100


def test_pml_l1_prop2_equals_vertex_rule(rng):
    # The ε′ transform (Prop. 2) and the vertex rule on the ball's vertices P̂ + β/2(e_j − e_i) give
    # the same optimum.
    for _ in range(4):
        p = rng.dirichlet(np.full(4, 3.0))
        beta = float(rng.uniform(0.0, 1.9 * p.min()))
        ball = po.L1Ball(p, beta)
        mi = po.MutualInformation(p)
        eps = float(rng.uniform(0.2, 2.0))
        prop2 = po.Problem(po.PML(eps, ball), mi).solve()
        vertex_rule = po.Problem(po.PML(eps, po.Polytope(ball.vertices())), mi).solve()
        assert prop2.value == pytest.approx(vertex_rule.value, abs=1e-9)
        assert prop2.certificate.audit.upper <= eps + 1e-9


@pytest.mark.parametrize("route", ["lp", "cvxpy"])
def test_linear_gain_equals_independent_lp(rng, route):
    p = rng.dirichlet(np.ones(4))
    gain = rng.random((4, 3))
    utility = po.ExpectedGain(p, gain)
    eps = 0.9
    problem = po.Problem(po.LDP(eps), utility)
    assert problem.plan()[0] == "lp"  # an affine utility: one linear program
    solution = problem.solve(route=route)
    assert solution.route == route
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.checked
    # Independent route: the same LP written by hand for scipy (variables W[x, y] row-major).
    n, k = 4, 3
    c = -(p[:, None] * gain).ravel()
    a_eq = np.kron(np.eye(n), np.ones((1, k)))
    rows = []
    for y in range(k):
        for x, x2 in itertools.permutations(range(n), 2):
            row = np.zeros(n * k)
            row[x * k + y], row[x2 * k + y] = 1.0, -np.exp(eps)
            rows.append(row)
    lp = linprog(
        c, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=a_eq, b_eq=np.ones(n), bounds=(0, None)
    )
    assert solution.value == pytest.approx(-lp.fun, abs=1e-7)
    assert solution.certificate.audit.satisfied


def test_cvxpy_route_hamming_distortion_is_grr_for_uniform():
    # Uniform prior, Hamming loss: GRR maximises P(Y = X) under ε-LDP (Kairouz et al.).
    p = np.full(4, 0.25)
    solution = po.Problem(po.LDP(1.0), po.ExpectedDistortion(p)).solve()
    assert solution.value == pytest.approx(
        po.ExpectedDistortion(p).value(po.mechanisms.grr(4, 1.0)), abs=1e-7
    )


def test_srlip(rng):
    table = rng.dirichlet(np.ones(18)).reshape(2, 9)
    P = po.JointDistribution(table)
    attributes = (3, 3)
    product = po.designs.srlip_product(P, attributes, 1.0)
    assert po.audit(product, po.SRLIP(1.0, P, attributes)).satisfied  # Theorem 4
    mi = po.MutualInformation(P, on="u")
    srlip = po.Problem(po.SRLIP(1.0, P, attributes), mi).solve().value
    lip = po.Problem(po.LIP(1.0, P, on="u"), mi).solve().value
    assert mi.value(product) <= srlip + 1e-9 <= lip + 2e-9  # SRLIP ⇒ LIP (Lemma 2); the product is feasible


def test_srlip_audit_against_direct_formula(rng):
    table = rng.dirichlet(np.ones(12)).reshape(2, 2, 3)
    P = po.JointDistribution(table.reshape(2, 6))
    W = rng.dirichlet(np.ones(4), size=6)
    worst = 0.0
    for known in [(), (0,), (1,)]:
        for values in itertools.product(*(range(table.shape[1 + a]) for a in known)):
            mask = np.ones((2, 3), dtype=bool)
            for axis, value in zip(known, values, strict=True):
                index = [slice(None), slice(None)]
                index[axis] = np.arange(table.shape[1 + axis]) != value
                mask[tuple(index)] = False
            joint = (table * mask).reshape(2, 6)
            p_y = joint.sum(axis=0) @ W / joint.sum()
            for s in range(2):
                p_y_s = joint[s] @ W / joint[s].sum()
                worst = max(worst, float(np.max(np.abs(np.log(p_y_s / p_y)))))
    assert po.audit(po.Mechanism(W), po.SRLIP(1.0, P, (2, 3))).eps == pytest.approx(worst, abs=1e-12)


def test_cone_violation_shortcut_equals_the_pairwise_rows(rng):
    # RowCone.violation takes max_a aᵀw and min_b bᵀw per block; the pairwise expansion is the reference.
    P = random_distribution(rng, (3, 3))
    counts = po.JointDistribution.from_counts(np.round(P.p_x.reshape(3, 3) * 400) + 1)
    definitions = [
        (po.SensitiveLDP(0.8, po.RenyiBall.confidence(counts)), {"self_pairs": True}),
        (po.SensitiveLDP(0.8, po.RenyiBall.confidence(counts)), {"envelope": "box"}),
        (po.LIP(0.5, P), {}),
        (po.PML(0.7, po.L1Ball(P, 0.5 * float(P.p_x.min()))), {}),
        (po.LDP(1.2), {}),
    ]
    seen = []
    for definition, options in definitions:
        cone = po.Problem(definition, po.MutualInformation(P.p_x), **options).compile().cone
        pairs, log_factors = cone.pairs(), cone.log_factors()
        for scale in (0.3, 3.0):
            columns = rng.dirichlet(np.full(9, scale), size=12).T
            num = np.asarray(pairs.numerators @ columns)
            den = np.asarray(pairs.denominators @ columns) * np.exp(log_factors)[:, None]
            reference = max(0.0, float(np.max((num - den) / np.maximum(np.maximum(num, den), 1e-300))))
            assert cone.violation(columns) == pytest.approx(reference, abs=1e-12), definition
            seen.append(reference)
    assert min(seen) > 0.0  # random columns violate every cone: the comparison is not 0 == 0


@pytest.mark.data
def test_large_eps_design_passes_its_audit_to_rounding(adult_dir):
    """ε = 12, LIP on Adult's marital-status → relationship: entries ~5e-7, where an LP's feasibility
    tolerance alone moved the realized ε to 12 + 7.8e-7 (an audit failure) before the weights were
    re-solved on their support."""
    frame = po.datasets.load_adult(adult_dir, ["marital-status", "relationship"])
    P = po.JointDistribution.from_frame(frame, sensitive="marital-status", public="relationship")
    solution = po.Problem(po.LIP(12.0, P, on="u"), po.MutualInformation(P, on="u")).solve()
    assert solution.certificate.audit.upper - 12.0 < 1e-12
    assert np.abs(solution.mechanism.matrix.sum(axis=1) - 1.0).max() < 1e-14


def test_auto_backend_drops_redundant_rows_and_validates_against_all_of_them():
    """The unit square with x + y <= 3 (redundant) and x <= 1 twice: cdd keeps the four facets, and
    the vertices are those of the full system."""
    from privopt.solvers.vertex_enumeration import _irredundant

    a_ub = np.array([[1.0, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [1, 0]])
    b_ub = np.array([1.0, 1, 0, 0, 3, 1])
    kept = _irredundant(a_ub, b_ub, np.zeros((0, 2)), np.zeros(0))
    assert 4 not in kept
    assert len(kept) == 4
    result = polytope_vertices(a_ub, b_ub, backend="auto")
    assert result.backend == "cdd (validated)"
    expected = {(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)}
    assert {tuple(np.round(v, 12) + 0.0) for v in result.vertices} == expected


def test_pml_over_an_l1_ball_the_transform_and_the_vertex_rule_agree(rng):
    # The ε′ transform (PML paper Prop. 2, |X|² rows) and the vertex rule over the ball's n(n−1)
    # vertices (the same ball written as a Polytope) are independent exact constructions.
    for trial in range(3):
        p = rng.dirichlet(np.full(3, 2.0))
        ball = po.L1Ball(p, 1.5 * float(p.min()))
        polytope = po.Polytope(ball.vertices(), shape=(3, 1))
        mi = po.MutualInformation(p)
        for eps in (0.3, 1.0):
            transform = po.Problem(po.PML(eps, ball), mi)
            assert {b.counterpart for b in transform.compile().cone.blocks} == {"l1-transform"}
            vertex = po.Problem(po.PML(eps, polytope), mi)
            assert {b.counterpart for b in vertex.compile().cone.blocks} == {"vertex"}
            assert transform.solve(route="vertex").value == pytest.approx(vertex.solve().value, abs=1e-9), (
                trial
            )


def test_with_eps_recompiles_every_eps_dependent_factor(rng):
    # The ε′ transform's factor depends on ε nonlinearly: a definition moved to another ε must give
    # the optimum of a fresh one.
    p = rng.dirichlet(np.full(3, 2.0))
    ball = po.L1Ball(p, 1.5 * float(p.min()))
    mi = po.MutualInformation(p)
    moved = po.Problem(po.PML(0.3, ball).with_eps(1.2), mi).solve().value
    assert moved == pytest.approx(po.Problem(po.PML(1.2, ball), mi).solve().value, abs=1e-12)
    metric = po.MetricLDP(0.2, np.abs(np.subtract.outer(np.arange(3), np.arange(3))))
    assert po.Problem(metric.with_eps(0.9), mi).solve().value == pytest.approx(
        po.Problem(po.MetricLDP(0.9, metric.distances), mi).solve().value, abs=1e-12
    )


def test_metric_ldp_matches_an_lp_written_by_hand():
    # Issue: MetricLDP(0.5, |i − j|) on 4 points against the cone w_i <= e^{0.5|i−j|} w_j written
    # directly: its normalised slice enumerated by pycddlib, then the vertex LP by scipy.
    import cdd
    from scipy.optimize import linprog

    n, eps = 4, 0.5
    d = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    rows = [np.eye(n)[i] - np.exp(eps * d[i, j]) * np.eye(n)[j] for i in range(n) for j in range(n) if i != j]
    inequalities = np.vstack(
        [np.column_stack([np.zeros(len(rows)), -np.array(rows)]), np.hstack([np.zeros((n, 1)), np.eye(n)])]
    )
    equality = np.hstack([[-1.0], np.ones(n)])[None, :]
    matrix = cdd.matrix_from_array(
        np.vstack([inequalities, equality]), rep_type=cdd.RepType.INEQUALITY, lin_set={len(inequalities)}
    )
    generators = np.array(cdd.copy_generators(cdd.polyhedron_from_matrix(matrix)).array)
    vertices = generators[:, 1:]
    mi = po.MutualInformation(p)
    lp = linprog(-mi.mu(vertices.T), A_eq=vertices.T, b_eq=np.ones(n), bounds=(0, None), method="highs")
    solution = po.Problem(po.MetricLDP(eps, d), mi).solve()
    assert solution.value == pytest.approx(-lp.fun, abs=1e-9)
    report = po.audit(solution.mechanism, po.MetricLDP(eps, d))
    assert report.eps == pytest.approx(eps, abs=1e-9)
    assert report.witness is not None
    assert report.witness.pair.scale >= 1.0
    # LDP at the same ε is stricter than d-privacy with d >= 1 between distinct points.
    assert po.Problem(po.LDP(eps), mi).solve().value < solution.value


@pytest.mark.parametrize("route", ["lp", "cvxpy"])
def test_interior_point_noise_is_dropped_and_the_design_matches_an_lp(route):
    # Interior-point solvers leave ~1e-11 in outputs the optimum does not use; read as probabilities,
    # their ratios broke the exact audit (realized 0.52 for ε = 0.5). The same problem as an LP over the
    # entries of W (scipy/HiGHS) gives the reference value.
    from scipy.optimize import linprog

    n, eps = 5, 0.5
    d = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
    p = np.full(n, 1.0 / n)
    solution = po.Problem(po.LDP(eps), po.ExpectedDistortion(p, d)).solve(route=route)
    assert solution.route == route
    assert solution.certificate.audit.eps <= eps + 1e-7
    rows = []  # W[x, y] <= e^eps W[x', y] for every y, x != x'
    for y in range(n):
        for x in range(n):
            for x2 in range(n):
                if x != x2:
                    row = np.zeros((n, n))
                    row[x, y], row[x2, y] = 1.0, -np.exp(eps)
                    rows.append(row.ravel())
    sums = np.kron(np.eye(n), np.ones(n))
    lp = linprog(
        (p[:, None] * d).ravel(), A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=sums, b_eq=np.ones(n)
    )
    assert solution.value == pytest.approx(-lp.fun, abs=1e-6)


def _ball():
    P = random_distribution(np.random.default_rng(11), (2, 3))
    return po.RenyiBall.confidence(P, n=500, level=0.9)


def _rescale_cases():
    positions = np.array([0.0, 1.0, 2.5, 4.0])
    return [
        ("LDP w.r.t. S over a Rényi ball", po.SensitiveLDP(0.7, _ball())),
        ("LDP", po.LDP(0.7)),
        ("metric (scales per pair)", po.MetricLDP(0.7, np.abs(np.subtract.outer(positions, positions)))),
        ("PML over an ℓ1 ball (a factor not linear in ε)", po.PML(0.7, po.L1Ball([0.2, 0.3, 0.5], 0.05))),
        ("LIP over a Rényi ball (joint envelope)", po.LIP(0.7, _ball())),
    ]


@pytest.mark.parametrize(("name", "definition"), _rescale_cases(), ids=[case[0] for case in _rescale_cases()])
def test_a_rescaled_cone_is_the_cone_compiled_at_that_eps(name, definition):
    # A curve compiles once along ε: the cone at 0.7 rescaled to another ε has the same groups, blocks,
    # factors (exact ones too), text and rows as the cone compiled there.
    n = definition.input_size() or 4
    cone = definition.row_cone(n)
    for eps in (0.2, 1.3, 3.0):
        other = definition.with_eps(eps)
        fresh, again = other.row_cone(n), other.rescaled_cone(cone)
        assert (again.eps, again.definition, again.exact) == (fresh.eps, fresh.definition, fresh.exact)
        assert again.blocks == fresh.blocks
        assert len(again.groups) == len(fresh.groups)
        for a, b in zip(again.groups, fresh.groups, strict=True):
            np.testing.assert_array_equal(a.vectors, b.vectors)
        np.testing.assert_array_equal(again.matrix().toarray(), fresh.matrix().toarray())


def test_with_eps_hands_the_compiled_cone_on_rescaled():
    ball = _ball()
    problem = po.Problem(po.SensitiveLDP(0.7, ball), po.MutualInformation(ball.center))
    assert problem.with_eps(1.3).definition.eps == 1.3  # not compiled yet: compiled when asked
    data = problem.get_problem_data()
    moved = problem.with_eps(1.3)
    assert moved.get_problem_data().cone.groups is data.cone.groups  # not compiled again
    cold = po.Problem(po.SensitiveLDP(1.3, ball), po.MutualInformation(ball.center))
    assert moved.get_problem_data().cone.blocks == cold.get_problem_data().cone.blocks
    assert moved.solve().value == pytest.approx(cold.solve().value, abs=1e-12)
