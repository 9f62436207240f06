"""McMullen's bound through logarithms: exact where small, finite and fast at any size."""

from __future__ import annotations

import math

import pytest

from privopt.compiler.estimate import (
    EXACT_DIGITS,
    VertexEstimate,
    format_count,
    log10_mcmullen_bound,
    mcmullen_bound,
)


@pytest.mark.parametrize(
    ("dimension", "facets"), [(1, 2), (2, 5), (3, 8), (8, 63), (11, 144), (15, 256), (40, 300)]
)
def test_log_bound_matches_the_exact_bound(dimension: int, facets: int) -> None:
    exact = mcmullen_bound(dimension, facets)
    assert log10_mcmullen_bound(dimension, facets) == pytest.approx(math.log10(exact), abs=1e-9)


def test_degenerate_sizes() -> None:
    assert mcmullen_bound(0, 5) == 1
    assert log10_mcmullen_bound(0, 5) == 0.0
    assert mcmullen_bound(3, 3) == 0
    assert log10_mcmullen_bound(3, 3) == -math.inf
    assert VertexEstimate(3, 3, -math.inf).bound_text == "0"


def test_entropy_paper_example_bound() -> None:
    # The Entropy paper's 2×2 example: a bound of 28 (16 vertices).
    estimate = VertexEstimate.for_slice(4, 12 - 4)
    assert estimate.bound == mcmullen_bound(3, 12)
    assert isinstance(estimate.bound, int)


def test_a_200_by_200_problem_gets_an_estimate_not_an_overflow() -> None:
    # SensitiveLDP on a 200 × 200 synthetic table: 39,800 cone rows over 40,000 inputs. The exact
    # integer has ~16,500 digits (str() of it raised ValueError past Python's 4,300-digit limit).
    estimate = VertexEstimate.for_slice(40_000, 39_800)
    assert estimate.log10_bound == pytest.approx(16548.5, abs=1.0)
    assert estimate.bound == math.inf
    assert estimate.bound > 10**9  # compares with any limit
    assert str(estimate) == "at most about 10^16548 vertices (McMullen; dimension 39999, 79800 inequalities)"


def test_the_exact_integer_is_kept_up_to_exact_digits() -> None:
    small = VertexEstimate.for_slice(900, 870)  # 30 × 30: about 10^366
    assert small.log10_bound > EXACT_DIGITS
    assert small.bound == math.inf
    medium = VertexEstimate.for_slice(16, 128)  # 2 × 8 at a Rényi ball: 144 inequalities
    assert isinstance(medium.bound, int)
    assert format_count(medium.bound) == medium.bound_text == "2.92e+11"


def test_format_count_handles_huge_integers_without_str() -> None:
    assert format_count(10**5000) == "about 10^5000"
    assert format_count(123456) == "1.23e+05"
    assert format_count(math.inf) == "more than 10^300"
    assert format_count(0) == "0"
