"""User functions for the problem round trips of tests/test_problem_files.py: importable by path
(``tests.problem_functions:kl_like_mu``) in a new process, as a user's own module would be."""

from __future__ import annotations

import cvxpy as cp
import numpy as np

#: The input distribution the functions below are about (three inputs).
P = np.array([0.5, 0.3, 0.2])


def weighted_norm_mu(columns: np.ndarray) -> np.ndarray:
    """A sublinear μ: the P-weighted 2-norm of each column (Sibson's μ at α = 2)."""
    return np.sqrt(P @ columns**2)


def log_transform(total: float) -> float:
    """An increasing g."""
    return float(np.log(total))


def squared_hellinger_f(t: np.ndarray) -> np.ndarray:
    """A convex f with f(1) = 0: the squared Hellinger generator (√t − 1)²."""
    return (np.sqrt(t) - 1.0) ** 2


def hit_rate(W: cp.Expression) -> cp.Expression:
    """A concave (linear) utility: the probability that the release equals the input."""
    return cp.sum(cp.multiply(P[:, None] * np.eye(3), W))
