"""The global pricer (routes/pricing/global_pricer.py: SCIP's spatial branch and bound on any cone) and
the checker's own SCIP model (certificates/spatial.py): the pricer's δ̄ brackets exact vertex
enumeration for every form it states, the checker proves its claims and refutes mutated ones, column
generation certifies definitions and utilities no specialised pricer takes, and the budgets stop it."""

from __future__ import annotations

import time

import numpy as np
import pytest

import privopt as po
from privopt.certificates import NotProved, NotProvedReason, SliceBound, check_bound, methods, spatial
from privopt.certificates.objective import core_mu
from privopt.certificates.vertices import maximise_ratio
from privopt.routes.pricing import PRICERS, PricingRequest, Refusal, certified_pricer
from privopt.routes.pricing import global_pricer as gp
from privopt.utilities import EntropyForm, PowerForm

#: The pricer's δ̄ may exceed the exact maximum by its margin (GLOBAL_PRICING_RTOL times its scale,
#: a few units of 1e-8 on these slices) and its search tolerance.
BRACKET_ATOL = 1e-6


class CubeNorm(po.SubConvexUtility):
    """A user's utility that declares a separable power form: ``μ(w) = (Σ_x c_x w_x³)^{1/3}``."""

    def __init__(self, c: np.ndarray) -> None:
        self.c = np.asarray(c, dtype=float)
        super().__init__(lambda W: (self.c @ np.power(W, 3.0)) ** (1.0 / 3.0), input_size=self.c.size)

    def power_form(self) -> PowerForm | None:
        return PowerForm(self.c, 3.0)


class HalfInformation(po.SubConvexUtility):
    """A user's utility that declares an entropy form: half the mutual information."""

    def __init__(self, p: np.ndarray) -> None:
        self.p = np.asarray(p, dtype=float)
        super().__init__(lambda W: 0.5 * po.MutualInformation(self.p).mu(W), input_size=self.p.size)

    def entropy_form(self) -> EntropyForm | None:
        return EntropyForm(self.p, 0.5)


class WrongForm(CubeNorm):
    """A utility whose declared form is not its μ (the checker must not trust it)."""

    def power_form(self) -> PowerForm | None:
        return PowerForm(self.c, 2.0)


def cycle(n: int, eps: float, rng: np.random.Generator) -> po.RatioConstraints:
    """Pairs round a cycle, each way at its own level: a cone no specialised pricer takes."""
    pairs = [(po.given(x=i), po.given(x=(i + 1) % n), float(rng.choice([1.0, 2.0]))) for i in range(n)]
    pairs += [(po.given(x=(i + 1) % n), po.given(x=i), float(rng.choice([1.0, 3.0]))) for i in range(n)]
    return po.RatioConstraints(pairs, eps=eps, n_inputs=n)


def per_input(n: int, eps: float, rng: np.random.Generator) -> po.RatioConstraints:
    """Input-discriminative LDP: per-input budgets, each pair at the smaller one."""
    budgets = rng.choice([1.0, 2.0, 4.0], size=n)
    pairs = [
        (po.given(x=a), po.given(x=b), float(min(budgets[a], budgets[b])))
        for a in range(n)
        for b in range(n)
        if a != b
    ]
    return po.RatioConstraints(pairs, eps=eps, n_inputs=n)


def utilities(n: int, rng: np.random.Generator) -> dict[str, po.SubConvexUtility]:
    p = rng.dirichlet(np.ones(n))
    return {
        "MI": po.MutualInformation(p),
        "NMI": po.NormalizedMutualInformation(p),
        "Sibson 2": po.SibsonMutualInformation(p, 2.0),
        "Sibson 3.5": po.SibsonMutualInformation(p, 3.5),
        "user power form": CubeNorm(rng.uniform(0.5, 2.0, n)),
        "user entropy form": HalfInformation(p),
        "KL": po.FDivergence("kl", p, rng.dirichlet(np.ones(n))),
        "χ²": po.FDivergence("chi2", p, rng.dirichlet(np.ones(n))),
        "Hellinger": po.FDivergence("hellinger", p, rng.dirichlet(np.ones(n))),
    }


def _cases(seed: int) -> list[tuple[str, po.RowCone, po.SubConvexUtility, np.ndarray]]:
    rng = np.random.default_rng(seed)
    n = 5 + seed % 2
    found = []
    for definition in (cycle(n, 0.6, rng), per_input(n, 0.5, rng)):
        for name, utility in utilities(n, rng).items():
            cone = po.Problem(definition, utility).get_problem_data().cone
            pricer = gp.global_pricer(utility, cone)
            assert not isinstance(pricer, Refusal), (name, pricer)
            duals = rng.normal(size=n) * 0.4 + pricer.weights * rng.uniform(0.0, 2.0)
            found.append((name, cone, utility, duals))
    return found


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_the_pricers_bound_brackets_exact_vertex_enumeration_for_every_form(seed):
    for name, cone, utility, duals in _cases(seed):
        pricer = gp.global_pricer(utility, cone)
        assert not isinstance(pricer, Refusal)
        outcome = pricer.price(duals, PricingRequest(tolerance=0.0))
        exact = maximise_ratio(cone, utility, duals, pricer.weights, 60.0)
        assert not isinstance(exact, NotProved)
        assert outcome.complete, name
        assert exact.value <= outcome.upper, (name, exact.value, outcome.upper)
        assert outcome.upper - exact.value <= BRACKET_ATOL, (name, exact.value, outcome.upper)
        # Its best column is a point of the cone whose ratio, recomputed, is the exact maximum's.
        best = outcome.columns[0]
        assert cone.violation(best.column[:, None]) <= 1e-9
        ratio = (core_mu(utility, best.column[:, None])[0] - duals @ best.column) / (
            pricer.weights @ best.column
        )
        assert ratio == pytest.approx(best.ratio, abs=1e-9)
        assert exact.value - BRACKET_ATOL <= outcome.lower <= exact.value + 1e-9, name


@pytest.fixture
def spatial_everywhere(monkeypatch):
    """The checker's spatial method on small cones too (where exact enumeration, or its trial, otherwise
    comes first)."""
    monkeypatch.setattr(spatial, "EXACT_FIRST_LOG10", -np.inf)
    monkeypatch.setattr(methods, "TRIAL_MAX_LOG10", -np.inf)


def _claim(cone, utility, duals, delta, pricer) -> SliceBound:
    return SliceBound.build(duals, delta, pricer.traits.normalisation, pricer.weights, gp.GLOBAL_METHOD)


def test_the_checker_proves_the_pricers_claims_and_refutes_a_lowered_one(spatial_everywhere):
    for name, cone, utility, duals in _cases(2)[:9]:
        if name not in ("MI", "Sibson 2", "user power form", "KL"):
            continue
        pricer = gp.global_pricer(utility, cone)
        outcome = pricer.price(duals, PricingRequest(tolerance=0.0))
        check = check_bound(cone, utility, _claim(cone, utility, duals, outcome.upper, pricer))
        assert check.valid, (name, check.reason)
        if utility.power_form() is not None:  # (others may have a specialised method: tree, hull)
            assert check.method.startswith("any cone, entropy, power or perspective form"), name
        exact = maximise_ratio(cone, utility, duals, pricer.weights, 60.0).value
        lowered = check_bound(cone, utility, _claim(cone, utility, duals, exact - 1e-4, pricer))
        assert lowered.refuted, (name, lowered.reason)


def test_a_pair_dropped_from_the_pricers_model_only_loosens_it_a_pair_tightened_is_refuted(
    spatial_everywhere, monkeypatch
):
    """Leaving a pair out of the pricer's model is a relaxation: its δ̄ can only grow, so the checker
    still proves it (and the columns out of the cone are not returned). A pair *tightened* in the
    model shrinks it: the under-reported δ̄ is refuted by the checker's own model of the cone."""
    rng = np.random.default_rng(5)
    n = 6
    definition = cycle(n, 0.8, rng)
    utility = po.MutualInformation(rng.dirichlet(np.ones(n)))
    cone = po.Problem(definition, utility).get_problem_data().cone
    rows, upper = gp.slice_rows(cone, utility.p)
    refuted = 0
    for k in range(rows.shape[0]):
        if refuted and k >= 2:
            break
        for mutation in ("drop", "tighten") if k < 2 else ("tighten",):
            changed = rows.tolil()
            if mutation == "drop":
                changed[k, :] = 0.0
            else:
                changed[k, :] = np.where(changed[k].toarray() < 0.0, -1.0, changed[k].toarray())
            mutated = changed.tocsr()
            monkeypatch.setattr(gp, "slice_rows", lambda cone, weights, m=mutated: (m, upper))
            pricer = gp.global_pricer(utility, cone)
            duals = utility.p * 0.5
            outcome = pricer.price(duals, PricingRequest(tolerance=0.0))
            exact = maximise_ratio(cone, utility, duals, pricer.weights, 60.0).value
            check = check_bound(cone, utility, _claim(cone, utility, duals, outcome.upper, pricer))
            if mutation == "drop":
                assert outcome.upper >= exact
                assert check.valid, (k, check.reason)
                assert all(cone.violation(c.column[:, None]) <= 1e-9 for c in outcome.columns)
            elif outcome.upper < exact - 1e-6:
                assert check.refuted, (k, check.reason)
                refuted += 1
    assert refuted >= 1  # some tightened pair binds at the maximiser


def test_the_checker_does_not_trust_a_declared_form_that_is_not_mu(spatial_everywhere):
    rng = np.random.default_rng(3)
    n = 5
    utility = WrongForm(rng.uniform(0.5, 2.0, n))
    cone = po.Problem(cycle(n, 0.6, rng), utility).get_problem_data().cone
    assert spatial.applicable(cone, utility, utility.c) == NotProved(
        NotProvedReason.UTILITY, "its declared power form disagrees with μ"
    )
    assert spatial.applicable(cone, CubeNorm(utility.c), utility.c) is None


def test_column_generation_certifies_a_cycle_of_pairs_with_a_users_power_form():
    rng = np.random.default_rng(7)
    n = 6
    definition = cycle(n, 0.7, rng)
    for utility in (CubeNorm(rng.uniform(0.5, 2.0, n)),):
        problem = po.Problem(definition, utility, colgen={"progress": False, "time_limit": 60.0})
        cone = problem.get_problem_data().cone
        assert isinstance(certified_pricer(utility, cone), gp.GlobalPricer)
        solution = problem.solve(route="colgen")
        assert solution.certificate.checked, solution.certificate.checked_by
        assert gp.GLOBAL_METHOD in solution.certificate.bound.method
        assert solution.status in (po.Status.OPTIMAL, po.Status.OPTIMAL_WITHIN_GAP), solution.reason
        exact = po.Problem(definition, utility).solve(route="vertex")
        assert solution.value == pytest.approx(exact.value, rel=1e-5)


def test_sibson_under_ldp_gets_a_checked_certified_gap():
    p = np.random.default_rng(11).dirichlet(np.ones(5))
    problem = po.Problem(
        po.LDP(1.0), po.SibsonMutualInformation(p, 2.0), colgen={"progress": False, "time_limit": 60.0}
    )
    solution = problem.solve(route="colgen")
    assert solution.certificate.checked, solution.certificate.checked_by
    assert solution.gap <= 1e-5
    exact = po.Problem(po.LDP(1.0), po.SibsonMutualInformation(p, 2.0)).solve(route="vertex")
    assert solution.value == pytest.approx(exact.value, rel=1e-6)


def test_a_pricing_stops_at_its_node_budget_and_deadline_with_a_valid_bound():
    rng = np.random.default_rng(4)
    n = 9
    definition = per_input(n, 0.7, rng)
    utility = po.MutualInformation(rng.dirichlet(np.ones(n)))
    cone = po.Problem(definition, utility).get_problem_data().cone
    pricer = gp.global_pricer(utility, cone)
    duals = utility.p * 0.3
    exact = maximise_ratio(cone, utility, duals, pricer.weights, 60.0).value
    stopped = pricer.price(duals, PricingRequest(tolerance=0.0, max_nodes=1))
    assert stopped.nodes <= 1
    assert stopped.upper >= exact
    late = pricer.price(
        duals, PricingRequest(tolerance=0.0, deadline=0.0)
    )  # long past: SCIP gets MIN_SECONDS
    assert late.upper >= exact
    # The checker's deadline is honoured the same way: a proof stopped early is not a refutation.
    check = spatial.maximise_ratio(cone, utility, duals, pricer.weights, exact - 1.0, 0.0)
    assert check == NotProved(NotProvedReason.DEADLINE, "the time limit was reached")


def test_the_global_pricer_is_last_and_refuses_what_it_cannot_state():
    assert PRICERS[-1].name == "global"
    assert PRICERS[-1].priority == gp.GLOBAL_PRIORITY
    assert set(PRICERS[-1].proved_by) == {"spatial", "vertices trial", "vertices"}
    n = 4
    cone = po.Problem(po.LDP(1.0), po.MutualInformation(np.full(n, 0.25))).get_problem_data().cone
    plain = po.SubConvexUtility(lambda W: np.abs(W).max(axis=0), input_size=n)
    assert isinstance(gp.global_pricer(plain, cone), Refusal)
    user_f = po.FDivergence(lambda t: (t - 1.0) ** 4, np.full(n, 0.25), [0.1, 0.2, 0.3, 0.4])
    assert "user's f" in str(gp.global_pricer(user_f, cone))
    zero = po.MutualInformation([0.5, 0.5, 0.0, 0.0])
    assert "zero entry" in str(gp.global_pricer(zero, cone))


def test_the_checker_retries_when_scips_lp_solver_fails():
    # A cube norm over per-input budgets (10 inputs): SCIP's LP solver fails on the checker's model with
    # its default scaling ("error in LP solver"); the method retries without it (same tolerances, same
    # margin) and proves the global pricer's claim. (In a solve the exact trial enumeration proves this
    # claim first: 1,894 vertices; the spatial method is called here directly.)
    n = 10
    utility = CubeNorm(np.ones(n))
    problem = po.Problem(
        per_input(n, 0.5, np.random.default_rng(0)),
        utility,
        colgen={"progress": False, "time_limit": 30.0},
    )
    solution = problem.solve(route="colgen")
    assert gp.GLOBAL_METHOD in solution.certificate.bound.method
    assert solution.certificate.checked, solution.certificate.checked_by
    bound = solution.certificate.bound
    assert spatial.LP_RETRIES[0] == ()  # the first attempt keeps SCIP's own settings
    found = spatial.maximise_ratio(
        problem.get_problem_data().cone,
        utility,
        bound.duals,
        bound.weights,
        bound.delta + 1e-6,
        time.perf_counter() + 60,
    )
    assert not isinstance(found, NotProved), found
    assert found.value + found.margin <= bound.delta + 1e-6
