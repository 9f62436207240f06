"""Independent reporting (Entropy paper §7, Theorems 5–6, Example 5) and the shared 1-D search."""

from __future__ import annotations

import numpy as np
import pytest

import privopt as po
from privopt.data.information import mutual_information
from privopt.mechanisms.independent_reporting import maximise_on_interval, relaxed_eps
from tests.conftest import random_distribution


def random_ball(rng: np.random.Generator, shape: tuple[int, int], n: int) -> po.RenyiBall:
    """The papers' experiment: Jeffreys P*, n samples, the 95% χ² set around the empirical P̂."""
    while True:
        p_star = rng.dirichlet(np.full(shape[0] * shape[1], 0.5))
        counts = rng.multinomial(n, p_star).reshape(shape)
        if np.all(counts.sum(axis=1) > 0):
            return po.RenyiBall.confidence(po.JointDistribution.from_counts(counts))


# ------------------------------------------------------------------ Example 5
def test_example5_d_split_utility_and_matrix(example1):
    F = po.RenyiBall.confidence(example1)
    design = po.mechanisms.independent_reporting(F, np.log(2))
    # Entropy paper Example 5 prints d = 1.4591, the optimum at the boundary ε2 = log 2 and I = 0.0755.
    assert design.d == pytest.approx(1.4591, abs=1e-4)
    assert design.eps2 == pytest.approx(np.log(2), abs=1e-9)
    assert design.eps1 == pytest.approx(0.0, abs=1e-9)
    assert design.value == pytest.approx(0.0755, abs=1e-4)
    # Example 5's Q_IR (the paper's Q is privopt's W transposed; this one is symmetric).
    printed = np.array(
        [
            [0.3517, 0.1483, 0.3517, 0.1483],
            [0.1483, 0.3517, 0.1483, 0.3517],
            [0.3517, 0.1483, 0.3517, 0.1483],
            [0.1483, 0.3517, 0.1483, 0.3517],
        ]
    )
    np.testing.assert_allclose(design.mechanism.matrix, printed.T, atol=1e-4)
    assert design.audit is not None
    assert design.audit.upper <= np.log(2) + 1e-7


def test_example5_ingredients(example1):
    F = po.RenyiBall.confidence(example1)
    # rad_s from Theorem 1's B_s (docs/verifying.md, "What the library found"): 0.6310 and 0.3067. Example 5 prints max{0.6107, 0.3061},
    # which would give d = 2·0.6107 + 0.1970 = 1.4184, not its own d = 1.4591 = 2·0.6310 + 0.1970.
    np.testing.assert_allclose(po.mechanisms.projection_l1_radii(F), [0.6310, 0.3067], atol=1e-4)
    # δ2 = log(1 + 2/d (e^{ε2} − 1)) = log(1.3707 e^{ε2} − 0.3707) (Example 5).
    d = po.mechanisms.independent_reporting_d(F)
    for eps2 in (0.1, 0.4, np.log(2)):
        assert relaxed_eps(eps2, d) == pytest.approx(np.log(1.3707 * np.exp(eps2) - 0.3707), abs=1e-4)


def test_example5_objective_has_two_local_maxima(example1):
    # The objective of eq. 81 on Example 5 decreases from ε2 = 0, has an interior minimum and rises to
    # the boundary: a local maximum at each end. The search must return the better end, and nothing on
    # a fine grid (an independent brute force) may beat it.
    F = po.RenyiBall.confidence(example1)
    utility = po.MutualInformation(example1)
    grid = np.linspace(0.0, np.log(2), 2001)
    values = [utility.value(po.mechanisms.independent_reporting_at(F, np.log(2), t)) for t in grid]
    interior = int(np.argmin(values))
    assert 0 < interior < len(grid) - 1
    assert values[0] > values[interior]
    assert values[-1] > values[0]
    design = po.mechanisms.independent_reporting(F, np.log(2), verify_audit=False)
    assert design.value >= max(values) - 1e-12


def test_radii_match_isit_eq11(rng):
    # ISIT eq. 11, written out here from the χ² radius B_χ² = e^B − 1 of eq. 2:
    #   a_s = (√(B_χ² + 1) + P̂_s − 1)² / P̂_s² − 1,  u_s = argmin_u P̂(u|s) (zeros included),
    #   d_s = (a_s(1 − 2P̂_{u_s|s}) + √(a_s² + 4a_s P̂_{u_s|s} − 4a_s P̂²_{u_s|s})) / (a_s + 1) if a_s >= 1,
    #   d_s = √a_s otherwise.
    # It is Prop. 2's closed form of rad_s (a_s >= 1) or its upper bound (a_s < 1).
    equal = 0
    for _ in range(30):
        F = random_ball(
            rng, (int(rng.integers(2, 4)), int(rng.integers(2, 5))), int(rng.choice([20, 100, 1000]))
        )
        P = F.center
        chi2 = np.expm1(F.radius)
        radii = po.mechanisms.projection_l1_radii(F)
        for s in range(P.n_s):
            p_s, p_min = P.p_s[s], P.conditional_u_given_s()[s].min()
            a = (np.sqrt(chi2 + 1) + p_s - 1) ** 2 / p_s**2 - 1
            if a >= 1:
                d = (a * (1 - 2 * p_min) + np.sqrt(a**2 + 4 * a * p_min - 4 * a * p_min**2)) / (a + 1)
                assert radii[s] == pytest.approx(min(d, 2.0), abs=1e-9)
                equal += 1
            else:
                assert radii[s] <= np.sqrt(a) + 1e-12
    assert equal >= 5


# ------------------------------------------------------------------ Theorem 6
def test_theorem6_utility_decomposition(rng):
    # I(IR(X); X) = I(R1(S); S) + I(R2(U); U | R1(S)), the right side computed from the joint law of
    # (S, U, R1(S)) independently of the Kronecker matrix.
    for _ in range(10):
        P = random_distribution(rng, (int(rng.integers(2, 5)), int(rng.integers(2, 5))))
        R1 = po.mechanisms.grr(P.n_s, rng.uniform(0, 3)).matrix
        R2 = po.mechanisms.grr(P.n_u, rng.uniform(0, 3)).matrix
        left = mutual_information(P.p_x, np.kron(R1, R2))
        first = mutual_information(P.p_s, R1)
        joint_u_y1 = P.probabilities.T @ R1  # P(u, y1)
        p_y1 = joint_u_y1.sum(axis=0)
        second = sum(p_y1[k] * mutual_information(joint_u_y1[:, k] / p_y1[k], R2) for k in range(R1.shape[1]))
        assert left == pytest.approx(first + second, abs=1e-12)


# ------------------------------------------------------------------ robust audit on random instances
def test_ir_passes_robust_audit_on_random_instances(rng):
    # Theorem 5 promises (ε, F)-RLDP; the audit's upper end (exact over the product of the Rényi
    # projections) must confirm it. 24 seeded instances.
    for trial in range(24):
        shape = [(2, 2), (2, 3), (3, 2), (3, 3)][trial % 4]
        F = random_ball(rng, shape, int(rng.choice([100, 1000, 10000])))
        eps = float(rng.uniform(0.1, 3.0))
        design = po.mechanisms.independent_reporting(F, eps)
        report = po.audit(design.mechanism, po.SensitiveLDP(eps, F))
        assert report.upper <= eps + 1e-7, (trial, report)
        assert design.eps1 + design.eps2 == pytest.approx(eps, abs=1e-12)
        assert design.value == pytest.approx(
            po.MutualInformation(F.center).value(design.mechanism), abs=1e-12
        )


def test_search_beats_fine_grid(rng):
    # The scan + bounded refinements must be at least as good as an independent 801-point grid.
    for _ in range(6):
        F = random_ball(rng, (3, 3), 300)
        eps = float(rng.uniform(0.2, 3.0))
        utility = po.MutualInformation(F.center)
        grid = max(
            utility.value(po.mechanisms.independent_reporting_at(F, eps, t)) for t in np.linspace(0, eps, 801)
        )
        assert po.mechanisms.independent_reporting(F, eps, verify_audit=False).value >= grid - 1e-12


def test_custom_components(rng):
    # Any pair of LDP components (here OUE for U) is accepted; the result still passes its audit.
    F = random_ball(rng, (2, 3), 1000)
    design = po.mechanisms.independent_reporting(F, 1.0, R2=po.mechanisms.oue)
    assert design.mechanism.shape == (6, 2 * 2**3)
    assert po.audit(design.mechanism, po.SensitiveLDP(1.0, F)).upper <= 1.0 + 1e-7


def test_point_mass_conditional_radius():
    # P̂(·|s=0) = (1, 0): F_{U|0} = {R : −log R_0 <= B_0}, so rad_0 = 2(1 − e^{−B_0}) (the mass that can
    # move onto the zero symbol). The design must then still pass its audit.
    P = po.JointDistribution.from_counts([[30, 0], [25, 45]])
    F = po.RenyiBall.confidence(P)
    radii = po.mechanisms.projection_l1_radii(F)
    assert radii[0] == pytest.approx(2.0 * (1.0 - np.exp(-F.projection_radius(0))), abs=1e-12)
    for design in (po.mechanisms.independent_reporting(F, 1.0), po.mechanisms.conditional_reporting(F, 1.0)):
        assert design.audit is not None
        assert design.audit.upper <= 1.0 + 1e-7


# ------------------------------------------------------------------ the 1-D search
def test_maximise_on_interval_finds_global_of_multimodal_function():
    # Local maxima at t = 0 (boundary, 1.6), 0.2 (1.5) and 0.8 (2.0, the narrowest): the global one wins.
    def f(t: float) -> float:
        bumps = ((1.6, 0.0, 0.02), (1.5, 0.2, 0.1), (2.0, 0.8, 0.05))
        return sum(h * np.exp(-(((t - c) / w) ** 2)) for h, c, w in bumps)

    result = maximise_on_interval(f, 0.0, 1.0)
    assert result.argmax == pytest.approx(0.8, abs=1e-6)
    assert result.value == pytest.approx(2.0, abs=1e-9)
    assert result.refined >= 3


def test_maximise_on_interval_boundary_and_infeasible_points():
    result = maximise_on_interval(lambda t: None if t < 0.5 else -((t - 2.0) ** 2), 0.0, 1.0)
    assert result.argmax == pytest.approx(1.0, abs=1e-12)  # boundary optimum of the feasible part
    with pytest.raises(po.InfeasibleError, match=r"found no feasible point"):
        maximise_on_interval(lambda t: None, 0.0, 1.0, what="ε2")


# ------------------------------------------------------------------ bad input
def test_ir_bad_input(example1):
    F = po.RenyiBall.confidence(example1)
    with pytest.raises(po.ValidationError, match=r"F: expected a po.RenyiBall"):
        po.mechanisms.independent_reporting(po.Simplex((2, 2)), 1.0)
    with pytest.raises(po.ValidationError, match=r"eps: expected a finite number >= 0"):
        po.mechanisms.independent_reporting(F, -1.0)
    with pytest.raises(po.ValidationError, match=r"eps2: expected a split 0 <= ε2 <= ε"):
        po.mechanisms.independent_reporting_at(F, 0.5, 0.7)
    with pytest.raises(po.ValidationError, match=r"R1: expected a factory"):
        po.mechanisms.independent_reporting(F, 1.0, R1="grr")  # type: ignore[arg-type]


def test_ir_no_feasible_split(example1):
    # A component that refuses every level leaves the 1-D search without a feasible point.
    def refuses(k: int, eps: float) -> po.Mechanism:
        raise po.ValidationError("eps", "a level this component supports", repr(eps))

    F = po.RenyiBall.confidence(example1)
    with pytest.raises(po.InfeasibleError, match=r"1-D search over ε2 ∈ \[0, 1\] found no feasible point"):
        po.mechanisms.independent_reporting(F, 1.0, R2=refuses)
