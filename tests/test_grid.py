"""po.Grid: the locations of a rows × cols grid, their distances, and recognising a grid's distances."""

from __future__ import annotations

import math

import numpy as np
import pytest

import privopt as po


def test_locations_and_distances_by_hand():
    grid = po.Grid(2, 3, step=0.5)
    assert grid.n == 6
    assert grid.shape == (2, 3)
    assert grid.labels == ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2))
    # Cell (r, c) is the point (c·step, r·step), index r·cols + c (libqif's cell_to_point).
    np.testing.assert_allclose(grid.locations[4], [0.5, 0.5])
    euclidean, manhattan = grid.distances(), grid.distances("manhattan")
    # From (0, 0) to (1, 2): 0.5·√(1 + 4) and 0.5·(1 + 2).
    assert euclidean[0, 5] == pytest.approx(0.5 * math.sqrt(5.0), rel=1e-15)
    assert manhattan[0, 5] == pytest.approx(1.5, rel=1e-15)
    assert grid.diameter == pytest.approx(euclidean.max(), rel=1e-15)
    for d in (euclidean, manhattan):
        np.testing.assert_array_equal(d, d.T)
        assert np.all(np.diag(d) == 0.0)
        # A metric: the triangle inequality on every triple.
        assert np.all(d[:, None, :] <= d[:, :, None] + d[None, :, :] + 1e-12)
    assert np.all(euclidean <= manhattan + 1e-12)


@pytest.mark.parametrize(
    ("rows", "cols", "step", "metric"),
    [(4, 4, 1.0, "euclidean"), (3, 5, 0.25, "manhattan"), (5, 3, 2.0, "euclidean"), (1, 6, 1.0, "euclidean")],
)
def test_matching_recognises_a_grid(rows, cols, step, metric):
    grid = po.Grid(rows, cols, step)
    found = po.Grid.matching(grid.distances(metric))
    assert found is not None
    matched, kind = found
    assert (matched.rows, matched.cols) == (rows, cols)
    assert matched.step == pytest.approx(step, rel=1e-15)
    # On a line Euclidean and Manhattan agree: the Euclidean reading comes first.
    assert kind == ("euclidean" if rows == 1 else metric)


def test_matching_refuses_what_is_not_a_grid():
    grid = po.Grid(3, 3)
    d = grid.distances()
    moved = d.copy()
    moved[0, 8] = moved[8, 0] = d[0, 8] * (1 + 1e-6)
    assert po.Grid.matching(moved) is None
    shuffled = d[np.ix_([1, 0, *range(2, 9)], [1, 0, *range(2, 9)])]  # not in index order
    assert po.Grid.matching(shuffled) is None
    assert po.Grid.matching(1.0 - np.eye(4)) is None  # the discrete metric
    assert po.Grid.matching(np.zeros((1, 1))) is None
    infinite = d.copy()
    infinite[0, 8] = infinite[8, 0] = np.inf  # MetricLDP's "no constraint"
    assert po.Grid.matching(infinite) is None
    assert po.Grid.matching(np.ones((2, 3))) is None


def test_bad_input():
    with pytest.raises(po.ValidationError, match="rows: expected an integer >= 1"):
        po.Grid(0, 3)
    with pytest.raises(po.ValidationError, match="cols: expected an integer >= 1"):
        po.Grid(2, 2.5)  # type: ignore[arg-type]
    with pytest.raises(po.ValidationError, match=r"step: expected a finite number in \(0, inf\]"):
        po.Grid(2, 2, step=-1.0)
    with pytest.raises(po.ValidationError, match="metric: expected 'euclidean' or 'manhattan'"):
        po.Grid(2, 2).distances("chebyshev")  # type: ignore[arg-type]
    with pytest.raises(po.ValidationError, match="d: expected a 2-D array"):
        po.Grid.matching([1.0, 2.0])


def test_grid_is_a_frozen_value():
    grid = po.Grid(2, 2)
    assert grid == po.Grid(2, 2, 1.0)
    assert hash(grid) == hash(po.Grid(2, 2, 1.0))
    with pytest.raises(AttributeError):
        grid.rows = 3  # type: ignore[misc]


def test_docstring_example():
    import doctest
    import importlib

    module = importlib.import_module("privopt.data.grid")
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for test in finder.find(module, module.__name__):
        assert runner.run(test).failed == 0, test.name
