"""Additive planar noise snapped to a grid: the discretisation of libqif's ``geo_ind`` mechanisms.

A location mechanism that adds noise ``N`` to the true cell centre ``x`` and reports the grid point
nearest to ``x + N`` (Andrés et al., CCS 2013, §4: discretisation to a grid, and truncation by
remapping points outside the region to the closest point of the grid) has the channel

    W[x, y] = P(x + N ∈ V(y)),

where ``V(y)`` is the Voronoi cell of ``y`` among the grid's centres: a square of side ``step`` for an
inner point, and a half-strip or a quadrant reaching to infinity for a point on the border. Coordinate
by coordinate, "nearest grid point" is rounding and clamping to ``[0, cols − 1] × [0, rows − 1]``.

libqif (``planar_laplace_grid``, ``planar_geometric_grid``) builds the channel the same way: the mass
of the noise on every cell of offsets ``o`` from ``−(m − 1)`` to ``m − 1`` along an axis of ``m``
cells (the outermost offset taking the whole unbounded rest of its axis), added into the output that
clamping maps ``x + o`` to. This module does that sum, for noise symmetric under the reflections of
the plane's axes (the planar Laplace and planar geometric are radial): the mass of a cell depends only
on the absolute offsets, given as a ``rows × cols`` table.

Because the report is a function of ``x + N``, snapping is post-processing: the channel is exactly as
``d``-private on the grid as the noise is in the plane, whatever the grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privopt.data.grid import Grid
from privopt.errors import ShapeError, ValidationError
from privopt.memory import dense_bytes, require
from privopt.tolerances import GRID_EXPONENT_MAX
from privopt.validation import FloatArray


@dataclass(frozen=True)
class AxisCell:
    """The offsets ``[lo, hi]`` (in cells, along one axis) that snap to one absolute offset ``k``:
    ``[k − ½, k + ½]`` inside, ``[k − ½, ∞)`` for the outermost ``k = m − 1``, ``[−½, ½]`` for ``k = 0``,
    and the whole line for an axis of one cell."""

    lo: float
    hi: float

    def halves(self) -> tuple[tuple[float, float], ...]:
        """The cell folded onto ``[0, ∞)``: its non-negative part and the mirror of its negative part
        (a radial noise has the same mass on both)."""
        parts = []
        if self.hi > 0.0:
            parts.append((max(self.lo, 0.0), self.hi))
        if self.lo < 0.0:
            parts.append((max(-self.hi, 0.0), -self.lo))
        return tuple(parts)


def axis_cells(m: int) -> tuple[AxisCell, ...]:
    """The cells of absolute offsets ``k = 0, …, m − 1`` along an axis of ``m`` grid cells."""
    if m == 1:
        return (AxisCell(-math.inf, math.inf),)
    cells = [AxisCell(-0.5, 0.5)]
    cells += [AxisCell(k - 0.5, k + 0.5) for k in range(1, m - 1)]
    cells.append(AxisCell(m - 1.5, math.inf))
    return tuple(cells)


def check_grid(grid: object, eps: float, name: str) -> Grid:
    """``grid`` as a :class:`~privopt.Grid` on which the mechanism ``name`` can be built at ``eps``
    (a checked ε; the noise needs ``ε > 0``)."""
    if eps <= 0.0:
        raise ValidationError("eps", f"ε > 0 for the {name} (at ε = 0 the noise has no distribution)", "0")
    if not isinstance(grid, Grid):
        raise ValidationError("grid", "a po.Grid(rows, cols, step)", type(grid).__name__)
    exponent = eps * grid.diameter
    if exponent > GRID_EXPONENT_MAX:
        raise ValidationError(
            "eps",
            f"ε · (the grid's diameter) <= {GRID_EXPONENT_MAX:g} for the {name} (its farthest cell has "
            "probability about e^(−ε·diameter), which must be a positive double)",
            f"ε = {eps:g} on a grid of diameter {grid.diameter:g}: {exponent:.4g}",
        )
    require(
        dense_bytes(grid.n, grid.n), f"the dense {grid.n:,} × {grid.n:,} {name} channel", "a smaller grid"
    )
    return grid


def _snapping(m: int) -> FloatArray:
    """``S[x, x', o] = 1`` when clamping ``x + o`` to ``[0, m − 1]`` gives ``x'`` (offsets
    ``o = −(m − 1), …, m − 1`` at index ``o + m − 1``)."""
    offsets = np.arange(-(m - 1), m)
    targets = np.clip(np.arange(m)[:, None] + offsets[None, :], 0, m - 1)
    S = np.zeros((m, m, offsets.size))
    x, o = np.indices(targets.shape)
    S[x, targets, o] = 1.0
    return S


def snapped_channel(grid: Grid, mass: FloatArray) -> FloatArray:
    """The ``n × n`` channel of reporting the grid point nearest to ``x + N`` (module docstring).

    ``mass[k1, k2]`` is the noise's mass on the cell of absolute offsets ``(k1, k2)`` (rows, columns) of
    :func:`axis_cells`; for a radial noise the cells of offsets ``(±k1, ±k2)`` have the same mass.
    Rows sum to the total mass of the signed offsets (1 for a normalised noise).
    """
    if mass.shape != grid.shape:
        raise ShapeError("mass", f"a {grid.rows} × {grid.cols} table", f"shape {mass.shape}")
    rows = np.abs(np.arange(-(grid.rows - 1), grid.rows))
    cols = np.abs(np.arange(-(grid.cols - 1), grid.cols))
    signed = mass[np.ix_(rows, cols)]  # B[o1, o2] over the signed offsets
    through_rows = np.einsum("ipa,ab->ipb", _snapping(grid.rows), signed)
    channel = np.einsum("ipb,jqb->ijpq", through_rows, _snapping(grid.cols))
    return np.asarray(channel.reshape(grid.n, grid.n), dtype=np.float64)
