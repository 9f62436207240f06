"""Samplers of real LDP clients (the ``privopt[ldp]`` extra, installed by ``make setup`` and CI): the
current releases of pure-ldp and multi-freq-ldpy pass their ε, conform to privopt's matrices, and are
reproducible. These tests import the libraries directly: a missing library fails them, never skips."""

from __future__ import annotations

import math

import numpy as np
import pytest
from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Client
from multi_freq_ldpy.pure_frequency_oracles.LH import LH_Client
from multi_freq_ldpy.pure_frequency_oracles.UE import UE_Client
from pure_ldp.frequency_oracles.direct_encoding import DEClient
from pure_ldp.frequency_oracles.local_hashing import LHClient
from pure_ldp.frequency_oracles.unary_encoding import UEClient

import privopt as po

EPS, D = 1.0, 4


def clients() -> dict[str, po.clients.Sampler]:
    return {
        "pure-ldp DE (GRR)": po.clients.pure_ldp(DEClient(EPS, D)),
        "pure-ldp OUE": po.clients.pure_ldp(UEClient(EPS, D, use_oue=True)),
        "multi-freq-ldpy GRR": po.clients.multi_freq_ldpy(GRR_Client, D, EPS),
        "multi-freq-ldpy OUE": po.clients.multi_freq_ldpy(UE_Client, D, EPS),
    }


@pytest.mark.parametrize("name", list(clients()))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grr_and_oue_clients_pass_at_their_eps(name, seed):
    sampler = clients()[name]
    assert sampler.eps == EPS
    report = po.audit_sampler(sampler, po.LDP(EPS), n=D * 10_000, rng=seed, progress=False)
    assert report.satisfied, report
    assert report.eps_lower <= EPS <= report.eps_upper


@pytest.mark.parametrize(
    "sampler",
    [
        po.clients.pure_ldp(LHClient(EPS, D, use_olh=True)),
        po.clients.multi_freq_ldpy(LH_Client, D, EPS),
        po.clients.pure_ldp(UEClient(EPS, D)),
        po.clients.multi_freq_ldpy(UE_Client, D, EPS, optimal=False),
    ],
    ids=["pure-ldp OLH", "multi-freq-ldpy OLH", "pure-ldp SUE", "multi-freq-ldpy SUE"],
)
def test_olh_and_sue_clients_run_and_pass(sampler):
    """Local hashing runs (with xxhash < 4, which the extra pins) and reports the supports of its pairs.
    A false alarm has probability <= 0.5 % per run: at most one in three seeds (pure-ldp's OLH has one
    at seed 0, lower bound 1.0025; none in seeds 100-199)."""
    reports = [
        po.audit_sampler(sampler, po.LDP(EPS), n=D * 10_000, rng=seed, progress=False) for seed in range(3)
    ]
    assert sum(not report.satisfied for report in reports) <= 1
    assert all(isinstance(y, int) and 0 <= y < 2**D for y in reports[0].outputs)


def test_clients_conform_to_privopts_matrices():
    """The DE client is GRR on the items 1..d; OUE clients are privopt's OUE with bitmask outputs."""
    items = tuple(range(1, D + 1))
    checks = [
        (po.clients.pure_ldp(DEClient(EPS, D)), po.mechanisms.grr(D, EPS, labels=items)),
        (po.clients.multi_freq_ldpy(GRR_Client, D, EPS), po.mechanisms.grr(D, EPS)),
        (po.clients.pure_ldp(UEClient(EPS, D, use_oue=True)), po.mechanisms.oue(D, EPS, labels=items)),
        (po.clients.multi_freq_ldpy(UE_Client, D, EPS), po.mechanisms.oue(D, EPS)),
    ]
    for sampler, design in checks:
        result = po.conformance(sampler, design, n=D * 5000, rng=4, progress=False)
        assert result.p_value > 1e-3, (sampler, result)


def test_library_samplers_are_reproducible_across_processes():
    """The clients draw from global generators; the sampler seeds them from each chunk's seed, so the
    counts do not depend on the process that draws them."""
    for sampler in (po.clients.pure_ldp(DEClient(EPS, D)), po.clients.multi_freq_ldpy(GRR_Client, D, EPS)):
        kwargs = {"n": 20_000, "rng": 9, "progress": False}
        serial = po.audit_sampler(sampler, po.LDP(EPS), **kwargs)
        parallel = po.audit_sampler(sampler, po.LDP(EPS), n_jobs=2, **kwargs)
        assert serial.interval == parallel.interval
        assert serial.witness == parallel.witness


def test_items_and_indexing():
    """pure-ldp maps items with index_mapper (default x ↦ x − 1); a custom mapper needs the items."""
    shifted = po.clients.pure_ldp(DEClient(EPS, D, index_mapper=lambda x: x - 10), inputs=range(10, 14))
    assert shifted.inputs == (10, 11, 12, 13)
    reports = shifted([10] * 200, np.random.default_rng(0))
    assert set(reports) <= {10, 11, 12, 13}
    assert reports.count(10) / 200 == pytest.approx(math.e / (math.e + 3), abs=0.1)
    with pytest.raises(po.ValidationError, match=r"^inputs:"):
        po.clients.pure_ldp(DEClient(EPS, D, index_mapper=lambda x: ord(x) - 97))
    with pytest.raises(po.ValidationError, match=r"^inputs:"):
        po.clients.pure_ldp(DEClient(EPS, D), inputs=[0, 1])  # 0 maps to -1


def test_unsupported_clients_are_refused():
    with pytest.raises(po.NotSupportedError, match="DEClient, UEClient or LHClient"):
        po.clients.pure_ldp(object())
    with pytest.raises(po.NotSupportedError, match="GRR_Client, UE_Client or LH_Client"):
        po.clients.multi_freq_ldpy(print, D, EPS)
    with pytest.raises(po.ValidationError, match=r"^k:"):
        po.clients.multi_freq_ldpy(GRR_Client, 1, EPS)


def test_a_mechanism_sampler_refuses_unknown_labels():
    sampler = po.clients.mechanism_sampler(po.mechanisms.grr(2, EPS))
    assert sampler.vectorized
    assert sampler.inputs == (0, 1)
    with pytest.raises(po.ValidationError, match=r"^x:"):
        sampler([5], np.random.default_rng(0))
    with pytest.raises(po.ValidationError, match=r"^mechanism:"):
        po.clients.mechanism_sampler(np.eye(2))
