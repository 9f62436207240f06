"""The optimal remapping of a mechanism's output for a prior and a loss (Bayesian post-processing).

Whoever receives the report ``y`` of a mechanism ``W`` and knows the prior ``p`` can replace it by the
estimate ``z`` that minimises the posterior expected loss: ``Σ_x p_x W[x, y] loss(x, z)``. Bordenabe,
Chatzikokolakis and Palamidessi (CCS 2014, "Optimal geo-indistinguishable mechanisms for location
privacy") show that geo-indistinguishability is closed under such remappings, so the optimal
``ε·d``-private mechanism cannot be improved by one, while a mechanism made independently of the
prior, such as the planar Laplace, can; Chatzikokolakis, ElSalamouny and Palamidessi (PoPETs 2017)
apply it to the planar Laplace and geometric.

The remapping is a linear program in a channel ``R`` from reports to estimates (minimise
``Σ_{x,y,z} p_x W[x, y] R[y, z] loss(x, z)`` over row-stochastic ``R``); it separates into one LP per
report over the simplex, whose optimum is at a vertex: the estimate of least posterior loss. So ``R``
is deterministic and the remapped mechanism is ``W·R``, which merges the reports mapped to one
estimate. Remapping is post-processing: ``W·R`` keeps every privacy guarantee of ``W``, and its
expected loss is ``Σ_y min_z Σ_x p_x W[x, y] loss(x, z)``, never more than keeping the reports when
they are estimates themselves (``R = I`` is one of the choices).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.data.mechanism import Mechanism
from privopt.errors import ShapeError, ValidationError
from privopt.memory import dense_bytes, require
from privopt.utilities import ExpectedDistortion, ExpectedGain
from privopt.validation import FloatArray, as_float_array, check_labels, check_probability_vector


@dataclass(frozen=True, eq=False)
class Remap:
    """The optimal remapping of a mechanism for a prior and a loss (module docstring).

    Attributes
    ----------
    mechanism:
        The remapped mechanism ``W·R``: inputs as ``W``'s, outputs the estimates.
    estimates:
        For every report ``y`` of ``W``, the index of the estimate it is mapped to (the estimate of
        least posterior loss; among equal ones, the first).
    matrix:
        The deterministic channel ``R`` from reports to estimates (``R[y, estimates[y]] = 1``).
    expected_loss:
        ``Σ_x p_x Σ_z (W·R)[x, z] loss(x, z)``, the least expected loss of any post-processing of ``W``.
    """

    mechanism: Mechanism
    estimates: tuple[int, ...]
    matrix: FloatArray
    expected_loss: float


def _mechanism(mechanism: Mechanism | ArrayLike) -> Mechanism:
    return mechanism if isinstance(mechanism, Mechanism) else Mechanism(mechanism)


def optimal_remap(
    mechanism: Mechanism | ArrayLike,
    prior: JointDistribution | ArrayLike,
    loss: ArrayLike,
    estimate_labels: Sequence[Hashable] | None = None,
) -> Remap:
    """The optimal remapping of ``mechanism``'s reports for ``prior`` and ``loss`` (module docstring).

    Parameters
    ----------
    mechanism:
        The channel ``W`` (a :class:`~privopt.Mechanism` or a row-stochastic matrix).
    prior:
        The distribution of the inputs (a vector, or a JointDistribution whose ``P_X`` it is).
    loss:
        ``loss[x, z]``: the loss of estimating input ``x`` by estimate ``z``; one row per input and one
        column per estimate, any real numbers (a gain ``g`` is the loss ``−g``). For a location
        mechanism, the distance matrix of the grid (the estimates are the locations).
    estimate_labels:
        Labels of the estimates (default: ``mechanism``'s input labels when there are as many
        estimates as inputs, else ``0, 1, ...``).

    Examples
    --------
    >>> import numpy as np, privopt as po
    >>> grid = po.Grid(3, 3)
    >>> d = grid.distances()
    >>> W = po.mechanisms.planar_laplace(grid, 0.8)
    >>> prior = np.full(9, 1 / 9)
    >>> remap = po.mechanisms.optimal_remap(W, prior, d)
    >>> remap.estimates  # the corners are reported as the centre, the edges' midpoints kept
    (4, 1, 4, 3, 4, 5, 4, 7, 4)
    >>> round(float(prior @ (W.matrix * d).sum(axis=1)), 4), round(remap.expected_loss, 4)
    (1.096, 1.0633)
    """
    W = _mechanism(mechanism)
    p = prior.p_x if isinstance(prior, JointDistribution) else check_probability_vector(prior, "prior")
    if p.size != W.n_inputs:
        raise ShapeError(
            "prior", f"a distribution over the mechanism's {W.n_inputs} inputs", f"{p.size} symbols"
        )
    costs = as_float_array(loss, "loss", 2)
    if costs.shape[0] != W.n_inputs:
        raise ShapeError("loss", f"a matrix with {W.n_inputs} rows (one per input)", f"shape {costs.shape}")
    n_estimates = costs.shape[1]
    if estimate_labels is None and n_estimates == W.n_inputs:
        estimate_labels = W.input_labels
    labels = check_labels(estimate_labels, n_estimates, "estimate_labels")
    require(dense_bytes(W.n_outputs, n_estimates), "the reports' posterior losses", "fewer estimates")
    posterior_loss = W.matrix.T @ (p[:, None] * costs)  # [y, z]: Σ_x p_x W[x, y] loss[x, z]
    chosen = np.argmin(posterior_loss, axis=1)
    R = np.zeros((W.n_outputs, n_estimates))
    R[np.arange(W.n_outputs), chosen] = 1.0
    R.setflags(write=False)
    remapped = Mechanism(W.matrix @ R, W.input_labels, labels, name=f"{W.name}+remap" if W.name else "remap")
    expected = float(np.sum(posterior_loss[np.arange(W.n_outputs), chosen]))
    return Remap(remapped, tuple(int(z) for z in chosen), R, expected)


def linear_loss(utility: object) -> tuple[FloatArray, FloatArray] | None:
    """The prior and the loss matrix of a linear utility: ``ExpectedDistortion`` (its loss) or
    ``ExpectedGain`` (minus its gain); ``None`` for any other utility."""
    if isinstance(utility, ExpectedDistortion):
        p = _prior_of(utility.distribution, utility.on)
        loss = 1.0 - np.eye(p.size) if isinstance(utility.loss, str) else utility.loss
        return p, np.asarray(loss, dtype=np.float64)
    if isinstance(utility, ExpectedGain):
        return _prior_of(utility.distribution, utility.on), -utility.gain
    return None


def _prior_of(given: JointDistribution | FloatArray, on: InputAlphabet) -> FloatArray:
    return given.marginal(on) if isinstance(given, JointDistribution) else given


def remap_for(mechanism: Mechanism | ArrayLike, utility: object) -> Remap:
    """:func:`optimal_remap` for the prior and loss of a linear utility, ``po.ExpectedDistortion`` or
    ``po.ExpectedGain`` (the utility's estimates are the remapped mechanism's outputs, so the utility
    can evaluate it)."""
    found = linear_loss(utility)
    if found is None:
        raise ValidationError(
            "utility", "a linear utility (po.ExpectedDistortion or po.ExpectedGain)", type(utility).__name__
        )
    prior, loss = found
    return optimal_remap(mechanism, prior, loss)
