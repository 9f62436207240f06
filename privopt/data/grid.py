"""A rectangular grid of locations and its distances: the finite space of geo-indistinguishability.

Bordenabe, Chatzikokolakis and Palamidessi (CCS 2014, "Optimal geo-indistinguishable mechanisms for
location privacy") and libqif discretise a region of the plane into the centres of a ``rows × cols``
grid of square cells of side ``step``; the secret location and the report are both grid points, and
``ε·d``-privacy is stated for the Euclidean distance ``d`` between the centres (Andrés et al., CCS 2013,
"Geo-indistinguishability"). Cell ``(r, c)`` is the point ``(x, y) = (c·step, r·step)`` and has the
index ``r·cols + c`` (row-major, libqif's ``cell_to_point`` order).

:meth:`Grid.matching` recognises the distance matrix of a grid (in that order, at any step), so that a
:class:`~privopt.MetricLDP` stated on a grid's distances can be given the grid's mechanisms by name
(:mod:`privopt.mechanisms.catalog`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from privopt.errors import ValidationError
from privopt.tolerances import GRID_MATCH_RTOL
from privopt.validation import FloatArray, check_positive_int, check_real

#: The distances a grid offers: straight-line (ℓ2) and city-block (ℓ1).
GridMetric = Literal["euclidean", "manhattan"]

METRICS: tuple[GridMetric, ...] = ("euclidean", "manhattan")


@dataclass(frozen=True)
class Grid:
    """The centres of a ``rows × cols`` grid of square cells of side ``step`` (module docstring).

    Parameters
    ----------
    rows, cols:
        The number of cells along ``y`` and along ``x`` (each at least 1).
    step:
        The side of a cell, in the unit of the distances (> 0).

    Examples
    --------
    >>> import privopt as po
    >>> grid = po.Grid(2, 3, step=0.5)
    >>> grid.n, grid.labels[:2], float(grid.distances()[0, 5])
    (6, ((0, 0), (0, 1)), 1.118033988749895)
    """

    rows: int
    cols: int
    step: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", check_positive_int(self.rows, "rows"))
        object.__setattr__(self, "cols", check_positive_int(self.cols, "cols"))
        object.__setattr__(self, "step", check_real(self.step, "step", low=0.0, open_low=True))

    @property
    def n(self) -> int:
        """The number of locations, ``rows · cols``."""
        return self.rows * self.cols

    @property
    def shape(self) -> tuple[int, int]:
        return self.rows, self.cols

    @property
    def labels(self) -> tuple[tuple[int, int], ...]:
        """The cells ``(r, c)`` in index order (row-major)."""
        return tuple((r, c) for r in range(self.rows) for c in range(self.cols))

    @property
    def locations(self) -> FloatArray:
        """The centres as an ``(n, 2)`` array of points ``(x, y) = (c·step, r·step)``."""
        r, c = np.divmod(np.arange(self.n), self.cols)
        return np.column_stack([c, r]).astype(np.float64) * self.step

    def distances(self, metric: GridMetric = "euclidean") -> FloatArray:
        """The ``n × n`` matrix of distances between the centres: ``"euclidean"`` (ℓ2, the distance of
        geo-indistinguishability) or ``"manhattan"`` (ℓ1)."""
        if metric not in METRICS:
            raise ValidationError("metric", "'euclidean' or 'manhattan'", repr(metric))
        points = self.locations
        gaps = np.abs(points[:, None, :] - points[None, :, :])
        if metric == "manhattan":
            return np.asarray(gaps.sum(axis=-1), dtype=np.float64)
        return np.asarray(np.hypot(gaps[..., 0], gaps[..., 1]), dtype=np.float64)

    @property
    def diameter(self) -> float:
        """The largest Euclidean distance between two centres (corner to corner)."""
        return float(np.hypot(self.rows - 1, self.cols - 1) * self.step)

    @staticmethod
    def matching(d: ArrayLike) -> tuple[Grid, GridMetric] | None:
        """The grid and metric whose distance matrix ``d`` is (to ``GRID_MATCH_RTOL``), or ``None``.

        Every factorisation ``rows · cols = len(d)`` is tried, at the step ``d[0, 1]`` (the distance of
        the first two cells); a single row is tried before a single column, Euclidean before Manhattan
        (they coincide on a line)."""
        try:
            matrix = np.asarray(d, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValidationError("d", "a matrix of distances", type(d).__name__) from exc
        if matrix.ndim != 2:
            raise ValidationError("d", "a 2-D array", f"shape {matrix.shape}")
        n = matrix.shape[0]
        # A grid's distances are finite (MetricLDP's inf, "no constraint", is no grid's).
        if matrix.shape != (n, n) or n < 2 or not np.all(np.isfinite(matrix)) or not matrix[0, 1] > 0.0:
            return None
        step = float(matrix[0, 1])
        tolerance = GRID_MATCH_RTOL * float(np.max(np.abs(matrix)))
        for rows in (r for r in range(1, n + 1) if n % r == 0):
            grid = Grid(rows, n // rows, step)
            for metric in METRICS:
                first = _from_first_cell(grid, metric)  # a cheap necessary condition first
                if np.max(np.abs(first - matrix[0])) > tolerance:
                    continue
                if np.max(np.abs(grid.distances(metric) - matrix)) <= tolerance:
                    return grid, metric
        return None


def _from_first_cell(grid: Grid, metric: GridMetric) -> FloatArray:
    """The distances from cell ``(0, 0)`` to every cell."""
    r, c = np.divmod(np.arange(grid.n), grid.cols)
    gaps = c + r if metric == "manhattan" else np.hypot(c, r)
    return np.asarray(gaps, dtype=np.float64) * grid.step
