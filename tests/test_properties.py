"""Property tests over random distributions and mechanisms (theorems that must always hold)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import privopt as po

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def channels(draw, max_in: int = 6, max_out: int = 6):
    n_in = draw(st.integers(2, max_in))
    n_out = draw(st.integers(1, max_out))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    sparsity = draw(st.sampled_from([0.0, 0.3]))
    matrix = rng.dirichlet(np.full(n_out, 0.7), size=n_in)
    matrix[rng.random(matrix.shape) < sparsity] = 0.0
    matrix[np.arange(n_in), rng.integers(0, n_out, n_in)] += 0.1  # keep rows non-zero
    matrix /= matrix.sum(axis=1, keepdims=True)
    p = rng.dirichlet(np.full(n_in, 0.5))
    return p, po.Mechanism(matrix), rng


@SETTINGS
@given(channels())
def test_mi_bounds(data):
    p, W, _ = data
    mi = po.MutualInformation(p).value(W)
    assert -1e-12 <= mi <= min(po.entropy(p), np.log(W.n_outputs)) + 1e-12


@SETTINGS
@given(channels())
def test_mi_invariant_under_output_relabelling(data):
    p, W, rng = data
    order = rng.permutation(W.n_outputs)
    mi = po.MutualInformation(p)
    assert np.isclose(mi.value(W), mi.value(W.permute_outputs(order)), rtol=0, atol=1e-12)


@SETTINGS
@given(channels(), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_data_processing_inequality(data, n_post, seed):
    p, W, _ = data
    post = np.random.default_rng(seed).dirichlet(np.ones(n_post), size=W.n_outputs)
    mi = po.MutualInformation(p)
    assert mi.value(W.then(post)) <= mi.value(W) + 1e-12
    for kind in ("kl", "tv", "chi2", "hellinger"):
        q = np.roll(p, 1)
        f = po.FDivergence(kind, p, q)
        assert f.value(W.then(post)) <= f.value(W) + 1e-10


@SETTINGS
@given(channels(max_in=6), st.floats(0.0, 3.0))
def test_audit_invariant_under_output_permutation(data, eps):
    p, W, rng = data
    order = rng.permutation(W.n_outputs)
    permuted = W.permute_outputs(order)
    n = W.n_inputs
    joint = po.JointDistribution(p.reshape(n, 1) if n % 2 else p.reshape(2, n // 2))
    definitions = [po.LDP(eps), po.PML(eps, p), po.SensitiveLDP(eps, po.Simplex(joint.shape))]
    if np.all(joint.p_s > 0):
        definitions += [po.SensitiveLDP(eps, joint), po.LIP(eps, joint)]
    for definition in definitions:
        a, b = po.audit(W, definition), po.audit(permuted, definition)
        assert a.eps == b.eps or np.isclose(a.eps, b.eps, rtol=0, atol=1e-12)
        assert a.satisfied == b.satisfied
        np.testing.assert_allclose(a.per_output[order], b.per_output, atol=1e-12)


@SETTINGS
@given(channels())
def test_post_processing_never_increases_ldp(data):
    _p, W, rng = data
    post = rng.dirichlet(np.ones(3), size=W.n_outputs)
    assert po.audit(W.then(post), po.LDP(1.0)).eps <= po.audit(W, po.LDP(1.0)).eps + 1e-12
