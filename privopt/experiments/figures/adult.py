"""Locating and caching the UCI Adult data for the figures that use it (never shipped with privopt)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import pandas as pd

from privopt.data.datasets import load_adult
from privopt.data.distribution import JointDistribution
from privopt.errors import ValidationError

#: Where the figures look for ``adult.data``: ``$PRIVOPT_ADULT``, then ``../shared/data/adult`` from the
#: working directory and from the repository, then this workplace's shared folder.
CANDIDATES = (
    Path("../shared/data/adult"),
    Path(__file__).resolve().parents[4] / "shared" / "data" / "adult",
    Path("/work/shared/data/adult"),
)


def adult_folder() -> Path:
    """The folder holding ``adult.data``; a :class:`ValidationError` says how to point to it."""
    candidates = ([Path(os.environ["PRIVOPT_ADULT"])] if "PRIVOPT_ADULT" in os.environ else []) + list(
        CANDIDATES
    )
    for folder in candidates:
        if (folder / "adult.data").is_file():
            return folder.resolve()
    raise ValidationError(
        "PRIVOPT_ADULT",
        "the folder of the UCI Adult files (adult.data)",
        f"none found in {[str(c) for c in candidates]}",
    )


def adult_available() -> bool:
    try:
        adult_folder()
    except ValidationError:
        return False
    return True


@lru_cache(maxsize=8)
def adult_frame(columns: tuple[str, ...]) -> pd.DataFrame:
    """The training split (n = 32,561, the papers' data) restricted to ``columns``, cached per process."""
    return load_adult(adult_folder(), list(columns))


def adult_joint(sensitive: str, public: str) -> JointDistribution:
    """The empirical ``P̂`` of (sensitive, public) on Adult, with ``n`` = 32,561."""
    return JointDistribution.from_frame(adult_frame((sensitive, public)), sensitive=sensitive, public=public)
