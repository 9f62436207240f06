"""The independent check of a slice bound within the time a route has left (the vertex route's three
strategies each prove their claim this way: docs/compiler.md §4)."""

from __future__ import annotations

import time

from privopt.certificates import CertificateCheck, SliceBound, check_bound
from privopt.routes.base import ProblemData, remaining
from privopt.tolerances import CHECK_SECONDS
from privopt.utilities import SubConvexUtility


def checked(
    data: ProblemData,
    utility: SubConvexUtility,
    bound: SliceBound,
    deadline: float | None,
    seconds: dict[str, float],
) -> CertificateCheck:
    """The independent checker's verdict on ``bound`` within the time left (timed in ``seconds``)."""
    start = time.perf_counter()
    left = remaining(deadline)
    check = check_bound(data.cone, utility, bound, time_limit=CHECK_SECONDS if left is None else left)
    seconds["check"] = seconds.get("check", 0.0) + time.perf_counter() - start
    return check
