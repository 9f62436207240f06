"""The planar Laplace and planar geometric mechanisms on a grid, against computations made here from
their definitions (Andrés et al., CCS 2013; libqif's ``geo_ind`` discretisation), their audits, and
libqif itself when it is installed."""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pytest
from scipy import integrate
from scipy.special import k1

import privopt as po
from privopt.mechanisms import grid_snapping

# The modules (the package's names of the same spelling are the functions).
planar_laplace = importlib.import_module("privopt.mechanisms.planar_laplace")
planar_geometric = importlib.import_module("privopt.mechanisms.planar_geometric")

LIBQIF_PLANAR_LAPLACE_CELL_RTOL = 2e-3  # libqif integrates by Monte Carlo (MISER, 50,000 points)
LIBQIF_PLANAR_GEOMETRIC_RTOL = 1e-5  # libqif cuts its lattice sums at 1 − 10⁻⁶ of the mass


def _voronoi(k: int, m: int) -> tuple[float, float]:
    """The cell of grid index ``k`` of ``m`` along one axis, in cells: unbounded at the border."""
    return (-math.inf if k == 0 else k - 0.5), (math.inf if k == m - 1 else k + 0.5)


def test_planar_laplace_is_the_density_integrated_over_the_voronoi_cells():
    # W[x, y] = ∫_{V(y)} ε²/(2π) e^{−ε‖z − x‖} dz over the Voronoi cell V(y) of y (Cartesian dblquad),
    # on a 2 × 3 grid of step 0.5 at ε = 1.4 per unit of distance.
    grid, eps = po.Grid(2, 3, step=0.5), 1.4
    W = po.mechanisms.planar_laplace(grid, eps)
    density = lambda v, u: eps**2 / (2 * math.pi) * math.exp(-eps * math.hypot(u, v))  # noqa: E731
    expected = np.empty((grid.n, grid.n))
    for i, (r, c) in enumerate(grid.labels):
        for j, (r2, c2) in enumerate(grid.labels):
            (x0, x1), (y0, y1) = _voronoi(c2, grid.cols), _voronoi(r2, grid.rows)
            s = grid.step
            expected[i, j] = integrate.dblquad(
                density, (x0 - c) * s, (x1 - c) * s, (y0 - r) * s, (y1 - r) * s, epsabs=0, epsrel=1e-11
            )[0]
    np.testing.assert_allclose(W.matrix, expected, rtol=1e-9)
    # The integrals themselves sum to 1 over the cells, which tile the plane.
    np.testing.assert_allclose(expected.sum(axis=1), 1.0, rtol=1e-9)


def test_planar_laplace_rectangle_masses_against_the_marginal():
    # A quadrant holds 1/4 of the mass. The planar Laplace's marginal density along one axis is
    # ∫ ε²/(2π) e^{−ε√(t² + s²)} ds = (ε²/π)|t| K₁(ε|t|) (a modified Bessel function), so the band
    # [a, ∞) × [0, ∞) holds half of ∫_a^∞ (ε²/π) t K₁(εt) dt, and [0, a] × [0, ∞) the rest of 1/4.
    eps = 0.8
    whole = planar_laplace.rectangle_mass(eps, (0.0, math.inf), (0.0, math.inf))
    assert whole == pytest.approx(0.25, rel=1e-13)
    for a in (0.3, 1.0, 4.5):
        near = planar_laplace.rectangle_mass(eps, (0.0, a), (0.0, math.inf))
        far = planar_laplace.rectangle_mass(eps, (a, math.inf), (0.0, math.inf))
        marginal = integrate.quad(lambda t: eps**2 / math.pi * t * k1(eps * t), a, math.inf, epsrel=1e-12)[0]
        assert far == pytest.approx(marginal / 2, rel=1e-9)
        assert near + far == pytest.approx(0.25, rel=1e-12)


def _lattice_channel(grid: po.Grid, eps: float, extent: int) -> np.ndarray:
    """libqif's planar geometric re-derived: every lattice offset z in [−K, K]² with weight
    e^{−ε·step·‖z‖}, added into the grid point that clamping x + z gives, rows normalised."""
    u, v = np.meshgrid(np.arange(-extent, extent + 1), np.arange(-extent, extent + 1), indexing="ij")
    weight = np.exp(-eps * grid.step * np.hypot(u, v)).ravel()
    W = np.zeros((grid.n, grid.n))
    for i, (r, c) in enumerate(grid.labels):
        rows = np.clip(r + u.ravel(), 0, grid.rows - 1)
        cols = np.clip(c + v.ravel(), 0, grid.cols - 1)
        np.add.at(W[i], rows * grid.cols + cols, weight)
    return W / W.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(
    ("rows", "cols", "step", "eps"), [(3, 4, 0.5, 1.0), (1, 5, 1.0, 0.7), (4, 4, 1.0, 2.0)]
)
def test_planar_geometric_is_the_lattice_noise_snapped_to_the_grid(rows, cols, step, eps):
    grid = po.Grid(rows, cols, step)
    W = po.mechanisms.planar_geometric(grid, eps)
    # K = 200 cells: the mass beyond it is below e^{−200·ε·step/√2}, nothing next to e^{−ε·diameter}.
    np.testing.assert_allclose(W.matrix, _lattice_channel(grid, eps, 200), rtol=1e-12)


@pytest.mark.parametrize("build", [po.mechanisms.planar_laplace, po.mechanisms.planar_geometric])
@pytest.mark.parametrize(("side", "eps"), [(3, 0.5), (5, 0.5), (4, 2.0), (6, 1.0)])
def test_the_baselines_are_eps_d_private_on_the_grid(build, side, eps):
    # Snapping x + N to the grid is post-processing of a noise that is ε·d-private in the plane (on the
    # lattice): the channel passes the exact audit for the Euclidean distance, hence the Manhattan one.
    grid = po.Grid(side, side)
    W = build(grid, eps)
    assert np.allclose(W.matrix.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert (W.matrix > 0).all()
    euclidean = po.audit(W, po.MetricLDP(eps, grid.distances()))
    assert euclidean.satisfied, euclidean
    assert po.audit(W, po.MetricLDP(eps, grid.distances("manhattan"))).satisfied
    if build is po.mechanisms.planar_geometric:
        # Interior cells are single lattice points: neighbours x, x' in the middle row and the report
        # x' give the ratio e^{ε·1} exactly, so the realized ε is ε itself.
        assert euclidean.eps == pytest.approx(eps, rel=1e-12)
    else:
        # A cell has area: the ratio only tends to e^{ε·d} for reports far in the direction of x − x'.
        assert eps * 0.98 < euclidean.eps < eps


def test_planar_laplace_realized_eps_rises_towards_eps_with_the_grid():
    eps = 0.5
    realized = [
        po.audit(
            po.mechanisms.planar_laplace(po.Grid(n, n), eps), po.MetricLDP(eps, po.Grid(n, n).distances())
        ).eps
        for n in (3, 5, 7)
    ]
    assert realized == sorted(realized)
    assert realized[-1] < eps


def test_snapping_of_a_unit_mass_at_offset_zero_is_the_identity():
    grid = po.Grid(3, 2)
    mass = np.zeros(grid.shape)
    mass[0, 0] = 1.0
    np.testing.assert_array_equal(grid_snapping.snapped_channel(grid, mass), np.eye(grid.n))
    with pytest.raises(po.ShapeError, match=r"mass: expected a 3 × 2 table"):
        grid_snapping.snapped_channel(grid, np.ones((2, 3)))


def test_libqif_agrees_within_its_own_precision():
    qif = pytest.importorskip("qif")
    for side, eps in ((3, 0.5), (5, 0.5)):
        grid = po.Grid(side, side)
        ours = po.mechanisms.planar_geometric(grid, eps).matrix
        theirs = qif.mechanism.geo_ind.planar_geometric_grid(side, side, 1.0, eps)
        np.testing.assert_allclose(ours, theirs, rtol=LIBQIF_PLANAR_GEOMETRIC_RTOL)
        ours = po.mechanisms.planar_laplace(grid, eps).matrix
        theirs = qif.mechanism.geo_ind.planar_laplace_grid(side, side, 1.0, eps)
        np.testing.assert_allclose(ours, theirs, rtol=LIBQIF_PLANAR_LAPLACE_CELL_RTOL)


def test_bad_input():
    with pytest.raises(po.ValidationError, match=r"grid: expected a po\.Grid"):
        po.mechanisms.planar_laplace(np.zeros((3, 3)), 1.0)  # type: ignore[arg-type]
    with pytest.raises(po.ValidationError, match="eps: expected ε > 0"):
        po.mechanisms.planar_geometric(po.Grid(2, 2), 0.0)
    with pytest.raises(po.ValidationError, match="eps: expected a finite number >= 0"):
        po.mechanisms.planar_laplace(po.Grid(2, 2), -1.0)
    with pytest.raises(po.ValidationError, match=r"eps: expected ε · \(the grid's diameter\) <= 700"):
        po.mechanisms.planar_laplace(po.Grid(30, 30), 20.0)
    with pytest.raises(po.ValidationError, match="eps: expected ε·step large enough"):
        po.mechanisms.planar_geometric(po.Grid(2, 2, step=0.001), 1.0)


@pytest.mark.parametrize("module", [planar_laplace, planar_geometric])
def test_docstring_examples(module):
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for test in finder.find(module, module.__name__):
        assert runner.run(test).failed == 0, test.name
