"""The planar geometric mechanism on a grid: the planar Laplace's discrete counterpart (libqif's
``planar_geometric_grid``; Chatzikokolakis, ElSalamouny and Palamidessi, PoPETs 2017, "Efficient
utility improvement for location privacy", the mechanism for a discrete infinite domain).

The noise lives on the lattice ``step·ℤ²``: ``P(N = z) ∝ e^{−ε‖z‖}`` (Euclidean norm). It is
``ε·d``-private on the lattice for the Euclidean ``d`` (the triangle inequality, as for the planar
Laplace), and snapping ``x + N`` to the grid (:mod:`grid_snapping`, clamping to the border) is
post-processing, so the channel is ``ε·d``-private on the grid.

libqif sums each unbounded cell of offsets up to the radius holding ``1 − 10⁻⁶`` of the continuous
planar Laplace's mass (or the grid's border, whichever is farther) and normalises what it summed; near
that cut a border cell has lost a share of its mass that the cell one step closer has not, which can
break the ratio bound in the last digits. Here every sum runs until what is left of it is below
``LATTICE_TAIL_RTOL`` of the cell's own mass, so the sums are exact in floating point.
"""

from __future__ import annotations

import math

import numpy as np

from privopt.data.grid import Grid
from privopt.data.mechanism import Mechanism
from privopt.errors import ValidationError
from privopt.mechanisms.grid_snapping import AxisCell, axis_cells, check_grid, snapped_channel
from privopt.tolerances import LATTICE_TAIL_RTOL
from privopt.validation import FloatArray, check_eps

#: Most lattice points per axis that the sums visit (their cost grows as its square): a grid's own
#: size, plus about ``45/(ε·step)`` for the tails.
LATTICE_SIDE_MAX = 20_000

#: Entries of one block of lattice terms evaluated at once.
_BLOCK = 1 << 20


def lattice_extent(grid: Grid, eps: float) -> int:
    """The largest lattice coordinate ``K`` the sums need (in cells, ``eps`` per cell).

    Every cell of offsets has mass at least ``e^{−ε·D}`` (its nearest point is within the grid's
    diameter ``D``), and the points with a coordinate beyond ``K`` (counted up to four times by the
    reflections) weigh at most ``8 e^{−ε(K+1)/√2} / (1 − e^{−ε/√2})²``, as ``‖z‖ >= (|z1| + |z2|)/√2``.
    ``K`` makes that at most ``LATTICE_TAIL_RTOL · e^{−ε·D}``.
    """
    diameter = math.hypot(grid.rows - 1, grid.cols - 1)
    spread = math.log(8.0 / LATTICE_TAIL_RTOL) - 2.0 * math.log(-math.expm1(-eps / math.sqrt(2.0)))
    return math.ceil(math.sqrt(2.0) * (diameter + spread / eps))


def _points(cell: AxisCell, extent: int) -> tuple[FloatArray, FloatArray]:
    """The lattice coordinates of ``cell`` folded onto ``[0, K]``, with the number of signed points
    each stands for."""
    low = -extent if math.isinf(cell.lo) else max(math.ceil(cell.lo), -extent)
    high = extent if math.isinf(cell.hi) else min(math.floor(cell.hi), extent)
    signed = np.arange(low, high + 1)
    values, counts = np.unique(np.abs(signed), return_counts=True)
    return values.astype(np.float64), counts.astype(np.float64)


def _lattice_sum(eps: float, u: tuple[FloatArray, FloatArray], v: tuple[FloatArray, FloatArray]) -> float:
    """``Σ_{i,j} a_i b_j e^{−ε·hypot(u_i, v_j)}`` in blocks of rows."""
    (us, a), (vs, b) = u, v
    step = max(1, _BLOCK // vs.size)
    parts = [
        float(a[i : i + step] @ np.exp(-eps * np.hypot(us[i : i + step, None], vs[None, :])) @ b)
        for i in range(0, us.size, step)
    ]
    return math.fsum(parts)


def cell_masses(grid: Grid, eps: float) -> FloatArray:
    """The planar geometric's (unnormalised) mass ``Σ e^{−ε‖z‖}`` on the cell of every absolute offset
    ``(k1, k2)`` (:func:`~privopt.mechanisms.grid_snapping.axis_cells`)."""
    scaled = eps * grid.step
    extent = lattice_extent(grid, scaled)
    if extent > LATTICE_SIDE_MAX:
        raise ValidationError(
            "eps",
            f"ε·step large enough for the planar geometric's lattice sums to stay within "
            f"{LATTICE_SIDE_MAX:,} points per axis (about ε·step >= {60 / LATTICE_SIDE_MAX:.2g})",
            f"ε·step = {scaled:.4g}, which needs {extent:,}",
        )
    rows = [_points(cell, extent) for cell in axis_cells(grid.rows)]
    cols = [_points(cell, extent) for cell in axis_cells(grid.cols)]
    return np.array([[_lattice_sum(scaled, u, v) for v in cols] for u in rows])


def planar_geometric(grid: Grid, eps: float) -> Mechanism:
    """The planar geometric mechanism on ``grid`` (libqif's ``planar_geometric_grid``): lattice noise
    ``P(N = z) ∝ e^{−ε‖z‖}`` on ``step·ℤ²``, the report snapped to the grid (module docstring).

    It is ``ε·d``-private on the grid for the Euclidean ``d``; inputs and outputs are the grid's cells in
    index order (``r·cols + c``, :class:`~privopt.Grid`).

    Examples
    --------
    >>> import privopt as po
    >>> grid = po.Grid(3, 3)
    >>> W = po.mechanisms.planar_geometric(grid, 0.5)
    >>> po.audit(W, po.MetricLDP(0.5, grid.distances())).satisfied
    True
    """
    eps = check_eps(eps)
    grid = check_grid(grid, eps, "planar geometric")
    mass = cell_masses(grid, eps)
    channel = snapped_channel(grid, mass)
    return Mechanism(
        channel / channel.sum(axis=1, keepdims=True),  # every row sums to the lattice's total mass
        name=f"planar geometric(eps={eps:.4g})",
    )
