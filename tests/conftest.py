"""Shared fixtures. Numbers asserted in tests name their source (paper, equation, or computation)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import privopt as po

REPO = Path(__file__).resolve().parents[1]
_ADULT_CANDIDATES = [
    *([Path(os.environ["PRIVOPT_ADULT"])] if "PRIVOPT_ADULT" in os.environ else []),
    REPO.parent / "shared" / "data" / "adult",  # the development layout
    Path("/work/shared/data/adult"),  # this workplace's shared data, for clones made elsewhere
]
ADULT_DIR = next((p for p in _ADULT_CANDIDATES if (p / "adult.data").is_file()), _ADULT_CANDIDATES[0])


@pytest.fixture
def example1() -> po.JointDistribution:
    """Entropy paper Example 1: P̂ estimated from n = 100 samples."""
    return po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261122)


@pytest.fixture
def adult_dir() -> Path:
    if not (ADULT_DIR / "adult.data").is_file():
        pytest.skip(f"UCI Adult data not found in {ADULT_DIR} (set PRIVOPT_ADULT)")
    return ADULT_DIR


def random_distribution(
    rng: np.random.Generator, shape: tuple[int, int], alpha: float = 0.5
) -> po.JointDistribution:
    """A Dirichlet(alpha) joint distribution (alpha = 1/2 is the Jeffreys prior of the papers)."""
    return po.JointDistribution(rng.dirichlet(np.full(shape[0] * shape[1], alpha)).reshape(shape))


def random_mechanism(rng: np.random.Generator, n_in: int, n_out: int) -> po.Mechanism:
    return po.Mechanism(rng.dirichlet(np.ones(n_out), size=n_in))
