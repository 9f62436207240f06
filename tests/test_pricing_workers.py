"""Exact pricing on several processes (privopt.routes.pricing.workers): the stars' shares, the same
bound as the serial search, the common incumbent, a killed worker, and column generation with them."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
from joblib import Parallel, delayed

import privopt as po
from privopt.errors import ValidationError
from privopt.routes.colgen import ColumnGenerationOptions
from privopt.routes.pricing import EnvelopePricer, PricingRequest, envelope_pricer
from privopt.routes.pricing import workers as workers_module
from privopt.routes.pricing.workers import StarWorkers, deal, pricing_processes
from tests.test_independent_reporting import random_ball
from tests.test_pricing import _brute_delta, _cone, _slice_vertices


def test_deal_balances_the_measured_loads_and_covers_every_star():
    loads = {0: 7.0, 1: 1.0, 2: 3.0, 3: 3.0, 4: 2.0, 5: 2.0}
    shares = deal(list(range(6)), loads, 2)
    assert sorted(s for share in shares for s in share) == list(range(6))
    totals = sorted(sum(loads[s] for s in share) for share in shares)
    assert totals == [9.0, 9.0]  # longest first: 7, 2 | 3, 3, 2, 1
    # Without measurements every star counts alike; never more shares than stars.
    assert [len(share) for share in deal([0, 1, 2, 3, 4], {}, 2)] == [3, 2]
    assert deal([4, 9], {}, 8) == [[4], [9]]
    # A star not measured counts as the mean of the measured ones.
    assert deal([0, 1, 2], {0: 4.0, 1: 2.0}, 2) == [[0], [1, 2]]


def _wait_until_up(workers: StarWorkers) -> None:
    for _ in range(600):
        if workers._ready() is not None:
            return
        time.sleep(0.1)
    raise AssertionError("the workers did not start within 60 s")


@pytest.fixture
def wide_cone():
    """A 3 × 3 cone at large ε (three stars, wide ρ ranges), its utility, pricer and exact vertices."""
    F = random_ball(np.random.default_rng(11), (3, 3), 1000)
    cone, utility = _cone(F, 2.5), po.MutualInformation(F.center)
    pricer = envelope_pricer(utility, cone)
    assert isinstance(pricer, EnvelopePricer)
    assert len(pricer.structure.stars) == 3
    return cone, utility, pricer, _slice_vertices(cone)


@pytest.mark.slow
def test_the_workers_prove_the_serial_bound_with_columns_of_the_cone(wide_cone):
    """Once the workers are up, pricings are split over them: their bound is above the brute-force δ
    and within the tolerance of it, as the serial search's, and their columns are in the cone with
    their stated ratios."""
    cone, utility, pricer, vertices = wide_cone
    rng = np.random.default_rng(5)
    with StarWorkers(pricer, 2) as workers:
        first = pricer.price(
            np.full(9, 0.05), PricingRequest(tolerance=1e-9), parallel=workers
        )  # here: the workers are not up yet
        assert workers.parallel_pricings == 0
        assert workers.pool is None  # a quick pricing does not start them
        assert first.complete
        assert sorted(workers.loads) == [0, 1, 2]  # every star's seconds measured
        workers.start()
        _wait_until_up(workers)
        for _ in range(4):
            duals = rng.uniform(-0.05, 0.15, size=9)
            exact = _brute_delta(utility, vertices, duals)
            serial = pricer.price(duals, PricingRequest(tolerance=1e-9))
            parallel = pricer.price(
                duals, PricingRequest(tolerance=1e-9, deadline=time.perf_counter() + 120), parallel=workers
            )
            assert parallel.complete
            assert exact - 1e-12 <= parallel.upper <= exact + 1e-7
            assert parallel.upper == pytest.approx(serial.upper, abs=1e-7)
            assert parallel.lower == pytest.approx(exact, abs=1e-9)
            assert 0 < len(parallel.columns) <= 16
            for column in parallel.columns:
                v = column.column
                assert cone.violation(v) <= 1e-9
                ratio = (utility.mu(v[:, None])[0] - duals @ v) / (utility.p @ v)
                assert ratio == pytest.approx(column.ratio, abs=1e-9)
        assert workers.parallel_pricings == 4
        assert workers.failure is None


@pytest.mark.slow
def test_a_long_pricing_starts_the_workers(wide_cone, monkeypatch):
    _, _, pricer, _ = wide_cone
    monkeypatch.setattr(workers_module, "PARALLEL_SECONDS", 0.0)
    with StarWorkers(pricer, 2) as workers:
        pricer.price(np.full(9, 0.05), PricingRequest(tolerance=1e-9), parallel=workers)
        assert workers.parallel_pricings == 0  # that pricing ran here
        assert workers.pool is not None
        _wait_until_up(workers)
        pricer.price(np.full(9, 0.05), PricingRequest(tolerance=1e-9), parallel=workers)
        assert workers.parallel_pricings == 1


@pytest.mark.slow
def test_a_killed_worker_costs_the_time_not_the_bound(wide_cone):
    """Workers killed between pricings: the next pricing runs here (same bound), with a warning, and
    so do the later ones; the incumbents' file is removed."""
    _, utility, pricer, vertices = wide_cone
    duals = np.full(9, 0.04)
    exact = _brute_delta(utility, vertices, duals)
    with StarWorkers(pricer, 2) as workers:
        workers.start()
        _wait_until_up(workers)
        pool = workers.pool
        assert pool is not None
        path = pool.path
        assert os.path.exists(path)
        for pid in list(pool.executor._processes):
            os.kill(pid, signal.SIGKILL)
        time.sleep(1.0)
        with pytest.warns(RuntimeWarning, match="pricing goes on in this process"):
            outcome = pricer.price(
                duals, PricingRequest(tolerance=1e-9, deadline=time.perf_counter() + 60), parallel=workers
            )
        assert exact - 1e-12 <= outcome.upper <= exact + 1e-7
        assert workers.failure is not None
        assert workers.pool is None
        assert not os.path.exists(path)
        again = pricer.price(
            duals, PricingRequest(tolerance=1e-9), parallel=workers
        )  # here, and the workers stay given up
        assert again.upper == pytest.approx(outcome.upper, abs=1e-7)
        assert workers.pool is None
        assert workers.parallel_pricings == 0


@pytest.mark.slow
def test_certified_column_generation_on_the_workers_closes_the_gap(monkeypatch):
    """The whole run with its pricings on two workers (the cone counted as large, any pricing as
    long): the exact optimum inside its certified bounds, the certificate checked independently. (The
    run is shorter than the workers' start, so each pricing waits for them here.)"""
    monkeypatch.setattr(workers_module, "PARALLEL_SUBSETS", 1)
    monkeypatch.setattr(workers_module, "PARALLEL_SECONDS", 0.0)
    used = []
    original_close, original_ready = StarWorkers.close, StarWorkers._ready

    def spy(self):
        used.append(self.parallel_pricings)
        original_close(self)

    def waiting(self):
        if self.pool is not None:
            for future in self.pool.starting:
                future.result(timeout=60)
        return original_ready(self)

    monkeypatch.setattr(StarWorkers, "close", spy)
    monkeypatch.setattr(StarWorkers, "_ready", waiting)
    F = random_ball(np.random.default_rng(3), (3, 3), 1000)
    definition, utility = po.SensitiveLDP(1.0, F), po.MutualInformation(F.center)
    exact = po.Problem(definition, utility, backend="ppl").solve(route="vertex").value
    problem = po.Problem(definition, utility, colgen={"progress": False, "workers": 2})
    solution = problem.solve(route="colgen")
    assert solution.upper >= exact - 1e-9 >= solution.lower - 2e-9
    assert solution.gap <= 1e-4
    assert solution.certificate.checked
    assert po.check_certificate(problem, solution).valid
    assert used
    assert used[0] > 0  # pricings ran on the workers


def _processes_here() -> int:
    return pricing_processes(None)


@pytest.mark.slow
def test_the_default_is_every_core_here_and_one_inside_a_worker():
    assert pricing_processes(None) == workers_module.available_cores()
    assert pricing_processes(3) == 3
    inside = Parallel(n_jobs=2)(delayed(_processes_here)() for _ in range(2))
    assert inside == [1, 1]


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_a_bad_worker_count_is_a_validation_error(bad):
    with pytest.raises(ValidationError, match=r"colgen\.workers"):
        ColumnGenerationOptions(workers=bad)


def test_problem_files_do_not_store_the_worker_count():
    F = random_ball(np.random.default_rng(3), (2, 3), 1000)
    problem = po.Problem(po.SensitiveLDP(1.0, F), po.MutualInformation(F.center), colgen={"workers": 1})
    data = po.app.serialization.to_json(problem)
    assert "workers" not in data
    assert po.app.serialization.from_json(data).colgen.workers is None
