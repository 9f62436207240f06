"""The planar Laplace mechanism on a grid (Andrés et al., CCS 2013, "Geo-indistinguishability", §4).

The planar Laplace centred at ``x`` has density ``D_ε(x)(z) = ε²/(2π) · e^{−ε·d(x, z)}`` on the plane
(Euclidean ``d``); it is ``ε·d``-private because ``d(x, z) − d(x', z) <= d(x, x')``. In polar
coordinates around ``x`` the angle is uniform and the radius has the density ``ε² r e^{−εr}``, so the
mass outside a disc of radius ``r`` is ``(1 + εr) e^{−εr}``.

On a grid it is discretised as libqif's ``planar_laplace_grid`` does (:mod:`grid_snapping`): report
the grid point nearest to ``x + N``, i.e. the channel ``W[x, y]`` is the mass of the noise on the
Voronoi cell of ``y`` (a square of side ``step``, unbounded on the grid's border). That is
post-processing of the continuous mechanism, so the channel is ``ε·d``-private on the grid for the
Euclidean distance (hence for the Manhattan one, which is larger) — exactly, not up to the
discretisation's precision loss that Andrés et al. bound for a mechanism computed in finite precision.

libqif integrates each cell by Monte Carlo (GSL's MISER, 50,000 points a cell) and cuts the
unbounded cells at the radius holding 0.9999 of the mass, so its rows sum to about 0.9998 and its
entries carry sampling error. Here every cell is integrated to ``PLANAR_QUAD_RTOL``: in polar
coordinates the radial integral is closed-form, leaving a smooth 1-D integral over the angle
(adaptive Gauss–Kronrod on each piece between the cell's corner directions).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import integrate

from privopt.data.grid import Grid
from privopt.data.mechanism import Mechanism
from privopt.errors import SolverError
from privopt.mechanisms.grid_snapping import axis_cells, check_grid, snapped_channel
from privopt.tolerances import PLANAR_QUAD_RTOL
from privopt.validation import FloatArray, check_eps

#: An interval ``[lo, hi]`` of ``[0, ∞)`` in cells (``hi`` may be ``inf``).
Interval = tuple[float, float]


def _outside(eps: float, r: float) -> float:
    """``(1 + εr) e^{−εr}``: the planar Laplace's mass outside the disc of radius ``r``."""
    return 0.0 if math.isinf(r) else (1.0 + eps * r) * math.exp(-eps * r)


def _between(eps: float, inner: float, outer: float) -> float:
    """The radial mass between ``inner`` and ``outer`` (the share of the annulus ``inner <= r <= outer``),
    ``e^{−ε·inner} [(1 + ε·inner)(1 − e^{−ε·gap}) − ε·gap·e^{−ε·gap}]``: the common factor taken out,
    so that a far cell keeps its relative precision."""
    if math.isinf(outer):
        return _outside(eps, inner)
    gap = max(outer - inner, 0.0)
    shrink = -math.expm1(-eps * gap)  # 1 − e^{−ε·gap}, exact for small gaps
    return math.exp(-eps * inner) * ((1.0 + eps * inner) * shrink - eps * gap * math.exp(-eps * gap))


def _along(length: float, cosine: float) -> float:
    """The distance along a ray at angle cosine ``cosine`` to the line at ``length`` (0 for 0)."""
    return 0.0 if length <= 0.0 else length / cosine


def rectangle_mass(eps: float, a: Interval, b: Interval) -> float:
    """The planar Laplace's mass (centred at the origin, ``ε`` per cell) on ``[a0, a1] × [b0, b1]``
    inside the first quadrant: ``(1/2π) ∫ [(1 + εr_in) e^{−εr_in} − (1 + εr_out) e^{−εr_out}] dθ`` over
    the directions ``θ`` that meet the rectangle, entering at ``r_in(θ)`` and leaving at ``r_out(θ)``."""
    (a0, a1), (b0, b1) = a, b

    def integrand(theta: float) -> float:
        cos, sin = math.cos(theta), math.sin(theta)
        inner = max(_along(a0, cos), _along(b0, sin))
        outer = min(_along(a1, cos), _along(b1, sin))
        return _between(eps, inner, outer)

    # Directions through the rectangle, split where the entering or leaving side changes (corners).
    low, high = math.atan2(b0, a1), math.atan2(b1, a0)
    corners = (math.atan2(b0, a0), math.atan2(b1, a1))
    ends = sorted({low, high, *(t for t in corners if low < t < high)})
    pieces = []
    for start, stop in itertools.pairwise(ends):
        value, _error, *trouble = integrate.quad(
            integrand, start, stop, epsabs=0.0, epsrel=PLANAR_QUAD_RTOL, limit=200, full_output=True
        )
        if len(trouble) > 1:  # QUADPACK's message: the accuracy was not reached
            raise SolverError(f"planar Laplace cell [{a0}, {a1}] × [{b0}, {b1}]: {trouble[1]}")
        pieces.append(value)
    return math.fsum(pieces) / (2.0 * math.pi)


def cell_masses(grid: Grid, eps: float) -> FloatArray:
    """The planar Laplace's mass on the cell of every absolute offset ``(k1, k2)``
    (:func:`~privopt.mechanisms.grid_snapping.axis_cells`)."""
    scaled = eps * grid.step  # distances in cells
    known: dict[tuple[Interval, Interval], float] = {}

    def mass_on(a: Interval, b: Interval) -> float:
        key = (min(a, b), max(a, b))  # the noise is symmetric in x and y
        if key not in known:
            known[key] = rectangle_mass(scaled, *key)
        return known[key]

    mass = np.empty(grid.shape)
    for k1, row_cell in enumerate(axis_cells(grid.rows)):
        for k2, col_cell in enumerate(axis_cells(grid.cols)):
            mass[k1, k2] = math.fsum(mass_on(a, b) for a in row_cell.halves() for b in col_cell.halves())
    return mass


def planar_laplace(grid: Grid, eps: float) -> Mechanism:
    """The planar Laplace mechanism of Andrés et al. (CCS 2013, §4) discretised on ``grid`` as libqif's
    ``planar_laplace_grid`` does: the grid point nearest to ``x + N``, ``N`` planar Laplace with
    parameter ``eps`` (module docstring).

    It is ``ε·d``-private on the grid for the Euclidean ``d`` (post-processing of the continuous
    mechanism); inputs and outputs are the grid's cells in index order (``r·cols + c``,
    :class:`~privopt.Grid`).

    Examples
    --------
    >>> import privopt as po
    >>> grid = po.Grid(3, 3)
    >>> W = po.mechanisms.planar_laplace(grid, 0.5)
    >>> po.audit(W, po.MetricLDP(0.5, grid.distances())).satisfied
    True
    """
    eps = check_eps(eps)
    grid = check_grid(grid, eps, "planar Laplace")
    channel = snapped_channel(grid, cell_masses(grid, eps))
    return Mechanism(channel, name=f"planar Laplace(eps={eps:.4g})")
