"""The independent certificate checker (privopt.certificates): its methods against exact enumeration,
faults injected into the solver that it must catch, and every family's optimum checked."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import privopt as po
from privopt.certificates import (
    LinearBound,
    NotProved,
    NotProvedReason,
    SliceBound,
    TheoremBound,
    check_bound,
    envelope,
    vertices,
)
from privopt.certificates.envelope import block_points
from privopt.certificates.vertices import enumerate_slice, exact_rows
from privopt.routes.colgen import ColumnGenerationOptions
from privopt.routes.colgen_route import column_generation
from privopt.routes.pricing import PricingCertificate, PricingRequest, envelope_pricer
from privopt.routes.pricing import envelope as pricing_envelope
from privopt.routes.pricing.blocks import BlockGeometry, BlockTable
from tests.test_independent_reporting import random_ball


def _cone(problem: po.Problem):
    return problem.get_problem_data().cone


# ----------------------------------------------------------------- the checker's own methods
def test_block_points_contain_every_vertex_of_the_block_polytope():
    # Against exact enumeration of {w >= 0 : D <= L·w + c w_u <= T} (pplpy), including L with zeros,
    # D = T and sums of L + c other than 1.
    from privopt.solvers.vertex_enumeration import polytope_vertices

    rng = np.random.default_rng(1)
    for trial in range(30):
        k = int(rng.integers(1, 5))
        lower = rng.dirichlet(np.ones(k)) * rng.uniform(0.05, 0.9)
        if trial % 3 == 0:
            lower[rng.integers(k)] = 0.0
        slack = float(rng.uniform(0.05, 1.2))
        D = float(rng.uniform(0.5, 2.0))
        T = D if trial % 7 == 0 else D * float(rng.uniform(1.01, 4.0))
        rows = np.vstack(
            [-np.eye(k), -(lower[None, :] + slack * np.eye(k)), lower[None, :] + slack * np.eye(k)]
        )
        bounds = np.concatenate([np.zeros(k), -np.full(k, D), np.full(k, T)])
        exact = polytope_vertices(rows, bounds, backend="ppl").vertices
        points = block_points(lower, slack, D, T)
        for vertex in exact:
            assert np.min(np.max(np.abs(points - vertex), axis=1)) < 1e-9, (trial, vertex)
        sides = points @ lower
        assert np.all(points >= -1e-12)
        assert np.all(sides[:, None] + slack * points >= D - 1e-9)
        assert np.all(sides[:, None] + slack * points <= T + 1e-9)


def _random_problem(rng: np.random.Generator, trial: int) -> po.Problem:
    shape = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4)][trial % 5]
    P = po.JointDistribution(rng.dirichlet(np.full(shape[0] * shape[1], 0.7)).reshape(shape), n=500)
    eps = float(rng.choice([0.3, 1.0, 2.0]))
    definition = [
        po.SensitiveLDP(eps, po.RenyiBall.confidence(P)),
        po.LDP(eps),
        po.SensitiveLDP(eps, po.Simplex(shape)),
    ][trial % 3]
    utility = [
        po.MutualInformation(P),
        po.NormalizedMutualInformation(P),
        po.FDivergence("hellinger", P.p_x, rng.dirichlet(np.ones(P.n_x))),
    ][trial % 3 if trial % 2 else 0]
    return po.Problem(definition, utility, self_pairs=bool(trial % 4 == 1))


def test_envelope_method_equals_exact_vertex_enumeration():
    # The two methods share nothing but the cone: on envelope cones their maxima of (μ − λᵀw)/νᵀw
    # agree for random λ, under both normalisations and for separable and general utilities.
    rng = np.random.default_rng(2)
    for trial in range(24):
        problem = _random_problem(rng, trial)
        cone = _cone(problem)
        form = envelope.envelope_form(cone)
        assert not isinstance(form, NotProved), form
        duals = rng.normal(scale=0.3, size=cone.n_inputs) + 0.1
        for weights in (np.ones(cone.n_inputs), rng.uniform(0.2, 1.0, cone.n_inputs)):
            by_events = envelope.maximise_ratio(form, problem.utility, duals, weights, None)
            by_vertices = vertices.maximise_ratio(cone, problem.utility, duals, weights, 60.0)
            assert not isinstance(by_events, NotProved)
            assert not isinstance(by_vertices, NotProved)
            assert by_events.value == pytest.approx(by_vertices.value, abs=1e-10), trial


def test_envelope_form_is_refused_where_the_structure_is_absent(example1):
    lip = po.Problem(po.LIP(1.0, example1), po.MutualInformation(example1))
    refused = envelope.envelope_form(_cone(lip))
    assert isinstance(refused, NotProved)
    assert refused.reason == NotProvedReason.CONE
    F = random_ball(np.random.default_rng(1), (2, 4), 200)  # |U| = 2 boxes are lower envelopes
    box = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), envelope="box")
    assert isinstance(envelope.envelope_form(_cone(box)), NotProved)


def _vertex_solution(problem: po.Problem):
    solution = problem.solve(route="vertex")
    assert isinstance(solution.certificate.bound, SliceBound)
    return solution, solution.certificate.bound


@pytest.mark.parametrize("field", ["duals", "delta", "weights", "upper"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_certificate_with_nan_or_inf_anywhere_is_refused(field, bad, example1):
    problem = po.Problem(
        po.SensitiveLDP(1.0, po.RenyiBall.confidence(example1)), po.MutualInformation(example1)
    )
    _, bound = _vertex_solution(problem)
    value = getattr(bound, field)
    if isinstance(value, np.ndarray):
        value = value.copy()
        value[1] = bad
    else:
        value = bad
    check = check_bound(_cone(problem), problem.utility, dataclasses.replace(bound, **{field: value}))
    assert not check.valid
    assert "not finite" in check.reason


def test_linear_and_theorem_bounds_with_nan_or_inf_are_refused(example1):
    problem = po.Problem(po.LDP(1.0), po.ExpectedGain(example1.p_x, np.eye(4)))
    solution = problem.solve()
    bound = solution.certificate.bound
    assert isinstance(bound, LinearBound)
    duals = bound.cone_duals.copy()
    duals[0, 0] = np.nan
    for bad in (dataclasses.replace(bound, cone_duals=duals), dataclasses.replace(bound, upper=np.inf)):
        check = check_bound(_cone(problem), problem.utility, bad, mechanism=solution.mechanism.matrix)
        assert not check.valid
    theorem = TheoremBound("chain rule", np.nan, {"shape": [2, 2]})
    assert not check_bound(_cone(problem), po.MutualInformation(example1), theorem).valid


def test_an_inconsistent_or_lowered_claim_is_refuted(example1):
    problem = po.Problem(
        po.SensitiveLDP(1.0, po.RenyiBall.confidence(example1)), po.MutualInformation(example1)
    )
    solution, bound = _vertex_solution(problem)
    cone, utility = _cone(problem), problem.utility
    assert check_bound(cone, utility, bound).valid
    wrong_upper = dataclasses.replace(bound, upper=bound.upper - 1e-3)
    assert "is not Σλ" in check_bound(cone, utility, wrong_upper).reason
    lowered = SliceBound.build(bound.duals - 0.01, bound.delta, "sum", bound.weights, "tampered")
    check = check_bound(cone, utility, lowered)
    assert check.refuted
    assert check.column is not None
    # The refuting column is in the cone and has the ratio the reason states.
    assert cone.violation(check.column[:, None]) <= 1e-9
    assert check.proved_upper >= solution.value


# ----------------------------------------------------------------- faults injected into the solver
def test_a_pricer_that_under_reports_its_bound_is_caught(monkeypatch):
    # The pricer's bound made 0.2 too small: the solve said "optimal" with a wrong value before; now
    # the upper bound contradicts the mechanism's value or the checker refutes it — a SolverError.
    price = pricing_envelope.EnvelopePricer.price

    def under_reporting(self, duals, request, **kwargs):
        return dataclasses.replace(
            price(self, duals, request, **kwargs), upper=price(self, duals, request, **kwargs).upper - 0.2
        )

    F = random_ball(np.random.default_rng(3), (3, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen={"progress": False})
    monkeypatch.setattr(pricing_envelope.EnvelopePricer, "price", under_reporting)
    with pytest.raises(po.SolverError, match=r"refuted|below its own mechanism's value"):
        problem.solve(route="colgen")


def test_a_slightly_under_reported_bound_is_refuted_not_clipped(monkeypatch):
    # Small enough that upper stays above the value: only the independent checker can tell.
    price = pricing_envelope.EnvelopePricer.price

    def under_reporting(self, duals, request, **kwargs):
        outcome = price(self, duals, request, **kwargs)
        return dataclasses.replace(outcome, upper=outcome.upper - 2e-3)

    F = random_ball(np.random.default_rng(6), (3, 3), 1000)
    problem = po.Problem(
        po.SensitiveLDP(1.0, F),
        po.MutualInformation(F.center),
        colgen={"progress": False, "max_iterations": 20},
    )
    monkeypatch.setattr(pricing_envelope.EnvelopePricer, "price", under_reporting)
    with pytest.raises(po.SolverError, match="refuted"):
        problem.solve(route="colgen")


@pytest.mark.parametrize("room", [1e-3, 10.0])
def test_a_check_stopped_by_its_time_limit_keeps_the_weaker_bound_it_proved(monkeypatch, room):
    # The slice certificate's check made to stop with a weaker δ̄ proved (δ̄ + room), as a proof that
    # the time limit stops reports it: the solution keeps that weaker bound, checked, where it is below
    # the other claims (the chain-rule theorem's), and the theorem's bound where it is not.
    import privopt.problem.problem as problem_module
    from privopt.certificates import CertificateCheck

    real = problem_module.check_bound

    def stopped(cone, utility, bound, **kwargs):
        if not isinstance(bound, SliceBound):
            return real(cone, utility, bound, **kwargs)
        delta = bound.delta + room
        upper = float(np.sum(bound.duals)) + float(np.sum(bound.weights)) * max(0.0, delta)
        reason = f"not proved: the time limit was reached; the proof reached δ̄ <= {delta:.6g}"
        return CertificateCheck(False, reason, "stopped", 0.0, upper, proved_delta=delta)

    F = random_ball(np.random.default_rng(6), (3, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen={"progress": False})
    claimed = problem.solve(route="colgen")
    monkeypatch.setattr(problem_module, "check_bound", stopped)
    solution = problem.solve(route="colgen")
    assert solution.certificate.checked
    assert solution.value == pytest.approx(claimed.value, rel=1e-9)
    bound = solution.certificate.bound
    if room < 1.0:
        assert isinstance(bound, SliceBound)
        assert bound.delta == pytest.approx(claimed.certificate.bound.delta + room, rel=1e-12)
        # U = Σλ + (Σν)·δ̄ with ν = p (Σν = 1), in MI's own units: room more than the claim.
        assert solution.upper == pytest.approx(claimed.upper + room, rel=1e-9)
        assert "not the claimed" in solution.certificate.check.reason
        assert solution.status is not po.Status.OPTIMAL
        # The stopped check's proved δ̄ survives a certificate's JSON.
        from privopt.app.serialization import from_json, to_json

        check = stopped(None, None, claimed.certificate.bound)
        back = from_json(to_json(dataclasses.replace(claimed.certificate, check=check))).check
        assert back.proved_delta == check.proved_delta
        assert back.proved_upper == check.proved_upper
    else:
        assert isinstance(bound, TheoremBound)
        assert solution.upper < claimed.upper + room


def test_dropping_the_fractional_block_vertices_in_the_pricer_is_caught(monkeypatch):
    # The solver's pricer made to forget the fractional vertices of its blocks: some of its certificates
    # now claim a δ̄ below the true maximum (exact vertex enumeration says by how much), and the
    # independent checker, which enumerates block vertices itself, refutes exactly those.
    table_geometry = BlockTable.geometry

    def subset_vertices_only(self, D, T):
        found = table_geometry(self, D, T)
        keep = found.free < 0
        return BlockGeometry(
            *(part[keep] for part in (found.mass, found.entropy, found.subset, found.free)),
            found.set_factor[keep],
            found.free_factor[keep],
        )

    monkeypatch.setattr(BlockTable, "geometry", subset_vertices_only)
    rng = np.random.default_rng(4)
    wrong = 0
    for trial in range(24):
        F = random_ball(rng, [(3, 3), (2, 4)][trial % 2], int(rng.choice([100, 1000])))
        problem = po.Problem(po.SensitiveLDP(float(rng.uniform(0.5, 2.0)), F), po.MutualInformation(F.center))
        cone, utility = _cone(problem), problem.utility
        pricer = envelope_pricer(utility, cone)
        duals = utility.p * rng.uniform(0.2, 1.5) + rng.normal(scale=0.02, size=cone.n_inputs)
        certificate = PricingCertificate.from_outcome(
            duals, pricer.price(duals, PricingRequest(tolerance=1e-10))
        )
        true = vertices.maximise_ratio(cone, utility, duals, utility.p, 60.0)
        assert not isinstance(true, NotProved)
        check = check_bound(cone, utility, certificate.to_bound(utility.p))
        if true.value > certificate.delta + 1e-7:
            wrong += 1
            assert check.refuted, (trial, true.value, certificate.delta)
        else:
            assert check.valid, (trial, check.reason)
    assert wrong >= 1  # the mutation does produce wrong certificates on these instances


def test_the_cvxpy_route_without_its_multipliers_is_not_optimal(monkeypatch, example1):
    from privopt.routes.cvxpy_route import CvxpyRoute

    problem = po.Problem(po.LDP(1.0), po.ExpectedGain(example1.p_x, np.eye(4)))
    reference = problem.solve(route="cvxpy")
    assert reference.status is po.Status.OPTIMAL
    assert reference.certificate.checked
    withheld = LinearBound(np.zeros((0, 4)), reference.upper, "withheld")
    monkeypatch.setattr(CvxpyRoute, "_dual_bound", staticmethod(lambda *args: withheld))
    solution = po.Problem(po.LDP(1.0), po.ExpectedGain(example1.p_x, np.eye(4))).solve(route="cvxpy")
    assert solution.status is po.Status.FEASIBLE
    assert not solution.certificate.checked
    assert "not independently checked" in solution.reason
    lowered = dataclasses.replace(reference.certificate.bound, upper=reference.value - 0.05)
    monkeypatch.setattr(CvxpyRoute, "_dual_bound", staticmethod(lambda *args: lowered))
    with pytest.raises(po.SolverError):
        po.Problem(po.LDP(1.0), po.ExpectedGain(example1.p_x, np.eye(4))).solve(route="cvxpy")


def test_a_bound_below_the_mechanism_value_is_an_error_naming_both(monkeypatch):
    # Never clip: an upper bound below a feasible point's value is a solver error, not a status.
    from privopt.routes.colgen_route import ColumnGenerationRoute

    F = random_ball(np.random.default_rng(3), (2, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen={"progress": False})
    solve = ColumnGenerationRoute.solve

    def low(self, data, deadline):
        result = solve(self, data, deadline)
        return dataclasses.replace(result, upper=result.lower - 0.1, bounds=())

    monkeypatch.setattr(ColumnGenerationRoute, "solve", low)
    with pytest.raises(po.SolverError, match=r"upper bound 0\.\d+ is below its own mechanism's value 0\.\d+"):
        problem.solve(route="colgen")


def test_the_exact_round_certificate_is_the_checked_one():
    # Certified column generation's best certificate (a PricingCertificate) and the bound the solution
    # carries agree, and the checker proves it without the pricer.
    F = random_ball(np.random.default_rng(9), (2, 4), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center))
    cone, utility = _cone(problem), problem.utility
    result = column_generation(utility, cone, ColumnGenerationOptions(progress=False))
    assert result.certificate is not None
    bound = result.bounds[0]
    assert bound.upper == pytest.approx(result.certificate.upper)
    assert check_bound(cone, utility, bound).valid
    assert pricing_envelope.ENVELOPE_METHOD in bound.method


# ----------------------------------------------------------------- every family's optimum is checked
def _families(example1: po.JointDistribution) -> list[tuple[str, po.Problem, str]]:
    P = example1
    F = po.RenyiBall.confidence(P)
    other = po.JointDistribution([[0.1, 0.2], [0.3, 0.4]])
    line = po.JointDistribution(np.array([[0.1, 0.2, 0.3, 0.25, 0.15]]))
    distance = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :]).astype(float)
    pufferfish = po.Pufferfish(
        secrets={s: (lambda x, s=s: x[0] == s) for s in P.s_labels},
        discriminative_pairs=[(P.s_labels[0], P.s_labels[1])],
        eps=1.0,
        distributions=P,
    )
    binary = po.JointDistribution(np.array([[0.7, 0.3]]))
    mi = po.MutualInformation(P)
    return [
        ("LDP", po.Problem(po.LDP(1.0), mi), "vertex"),
        ("LDP w.r.t. S, point", po.Problem(po.SensitiveLDP(1.0, P), mi), "vertex"),
        (
            "LDP w.r.t. S, finite set",
            po.Problem(po.SensitiveLDP(1.0, po.FiniteSet([P, other])), mi),
            "vertex",
        ),
        ("LDP w.r.t. S, Rényi ball", po.Problem(po.SensitiveLDP(1.0, F), mi), "vertex"),
        ("LDP w.r.t. S, Rényi ball, colgen", po.Problem(po.SensitiveLDP(1.0, F), mi), "colgen"),
        (
            "LDP w.r.t. S, Rényi ball, NMI",
            po.Problem(po.SensitiveLDP(1.0, F), po.NormalizedMutualInformation(P)),
            "vertex",
        ),
        ("LIP", po.Problem(po.LIP(1.0, P), mi), "vertex"),
        (
            "LIP, colgen",
            po.Problem(po.LIP(1.0, P), mi, colgen={"progress": False, "time_limit": 10.0}),
            "colgen",
        ),
        ("PML, ℓ1 ball", po.Problem(po.PML(1.0, po.L1Ball(P, radius=0.05)), mi), "vertex"),
        (
            "PML, binary closed form",
            po.Problem(po.PML(0.2, po.L1Ball(binary, radius=0.05)), po.MutualInformation(binary)),
            "closed_form",
        ),
        ("Pufferfish", po.Problem(pufferfish, mi), "vertex"),
        ("metric", po.Problem(po.MetricLDP(0.5, distance), po.MutualInformation(line)), "vertex"),
        ("Sibson", po.Problem(po.LDP(1.0), po.SibsonMutualInformation(P, 2.0)), "vertex"),
        ("TV", po.Problem(po.LDP(1.0), po.FDivergence("tv", P.p_x, other.p_x)), "vertex"),
        ("cvxpy, expected gain", po.Problem(po.LDP(1.0), po.ExpectedGain(P.p_x, np.eye(4))), "cvxpy"),
        ("lp, expected gain", po.Problem(po.LDP(1.0), po.ExpectedGain(P.p_x, np.eye(4))), "lp"),
        ("lp, distortion", po.Problem(po.SensitiveLDP(1.0, P), po.ExpectedDistortion(P.p_x)), "lp"),
        (
            "lp, Rényi ball, gain",
            po.Problem(po.SensitiveLDP(1.0, F), po.ExpectedGain(P.p_x, np.eye(4))),
            "lp",
        ),
        ("cvxpy, distortion", po.Problem(po.SensitiveLDP(1.0, P), po.ExpectedDistortion(P.p_x)), "cvxpy"),
    ]


def test_every_family_and_route_reports_optimal_only_with_a_checked_certificate(example1):
    for name, problem, route in _families(example1):
        solution = problem.solve(route=route)
        assert solution.route == route, name
        # Every route reaches the optimum on these small problems but LIP's column generation, whose
        # simplicial bound leaves a gap: its bound is checked all the same.
        assert solution.status is po.Status.OPTIMAL or name == "LIP, colgen", (name, solution.reason)
        assert solution.certificate.checked, (name, solution.certificate.checked_by)
        again = po.check_certificate(problem, solution)
        assert again.valid, (name, again.reason)
        assert again.proved_upper <= solution.upper + 1e-9 * max(1.0, abs(solution.upper)), name
        assert solution.upper >= solution.value


def test_check_certificate_refuses_a_solution_of_another_problem(example1):
    problem = po.Problem(po.SensitiveLDP(1.0, example1), po.MutualInformation(example1))
    solution = problem.solve()
    looser = po.Problem(po.SensitiveLDP(2.0, example1), po.MutualInformation(example1))
    better = looser.solve()
    assert better.value > solution.value + 1e-3
    assert not po.check_certificate(problem, better).valid  # its mechanism is outside the ε = 1 cone
    assert not po.check_certificate(looser, solution).valid  # its bound is below the ε = 2 optimum
    with pytest.raises(po.ValidationError, match="solution"):
        po.check_certificate(problem, "not a solution")


def test_certificate_passed_is_deprecated_for_audit_passed(example1):
    solution = po.Problem(po.LDP(1.0), po.MutualInformation(example1)).solve()
    with pytest.warns(DeprecationWarning, match="audit_passed"):
        assert solution.certificate.passed
    assert solution.certificate.audit_passed


# ----------------------------------------------------------------- options that do what they say
@pytest.mark.slow  # three colgen runs
def test_heuristic_colgen_honours_max_columns_and_gap_tolerance(example1):
    problem = po.Problem(
        po.LIP(1.0, example1), po.MutualInformation(example1), colgen={"progress": False, "max_columns": 1}
    )
    solution = problem.solve(route="colgen")
    assert solution.stats.columns <= 1
    assert solution.stats.stopped == "column limit"
    loose = po.Problem(
        po.LIP(1.0, example1),
        po.MutualInformation(example1),
        colgen={"progress": False, "gap_tolerance": 0.5},
    ).solve(route="colgen")
    assert loose.gap <= 0.5
    assert loose.stats.stopped == "converged"
    assert loose.status in (po.Status.OPTIMAL, po.Status.OPTIMAL_WITHIN_GAP)
    assert loose.certificate.checked


def test_a_failed_lp_keeps_its_piece_in_the_simplicial_bound():
    # An LP that fails (numerical difficulties) proves nothing: the piece must stay, or the bound could
    # fall below the maximum.
    from privopt.routes.simplicial_bound import convex_max_over_slice

    rng = np.random.default_rng(0)
    target = rng.normal(size=4)

    def f(V):
        return np.sum((V - target) ** 2, axis=1)

    def failing(vertices, c):
        return None, False

    result = convex_max_over_slice(f, np.eye(4), failing, lambda v: v, max_nodes=50)
    assert result.upper >= float(np.max(f(np.eye(4)))) - 1e-12
    assert not result.complete


def test_exact_rows_are_the_cone_the_floats_describe(example1):
    problem = po.Problem(po.LIP(1.0, example1), po.MutualInformation(example1))
    cone = _cone(problem)
    points = enumerate_slice(exact_rows(cone), cone.n_inputs)
    assert cone.violation(points.T) <= 1e-12
    assert np.allclose(points.sum(axis=1), 1.0)


def test_an_exact_enumeration_too_large_for_this_process_stops_at_its_time_limit():
    """A 2×6 Euclidean grid's metric cone has only 92 rows but a McMullen bound of 10^8.1 vertices: ppl
    ran in this process, where nothing stops it, and a column generation run of 3 s spent minutes in the
    check (fuzzing). Its enumeration now runs in a child stopped at the limit."""
    import time

    from privopt.certificates import NotProved, NotProvedReason
    from privopt.certificates.vertices import maximise_ratio

    grid = po.Grid(2, 6)
    p = np.full(grid.n, 1 / grid.n)
    utility = po.MutualInformation(p)
    cone = po.Problem(po.MetricLDP(2.0, grid.distances()), utility).get_problem_data().cone
    assert len(exact_rows(cone)) <= 120
    start = time.perf_counter()
    found = maximise_ratio(cone, utility, np.zeros(grid.n), p, 1.0)
    assert time.perf_counter() - start < 10.0
    assert isinstance(found, NotProved)
    assert found.reason is NotProvedReason.DEADLINE
