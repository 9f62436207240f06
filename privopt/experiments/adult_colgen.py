"""Optimal-quality RLDP mechanisms on Adult's large pairs by column generation (issue: scale).

The Entropy paper dropped PolyOpt for its larger Adult experiments: for occupation × education the
polytope had 57,840 inequalities in 240 dimensions and vertex enumeration ran out of memory
(Entropy paper §8.1). :func:`adult_colgen_run` designs the (ε, χ²-ball)-RLDP mechanism there by
``route="colgen"`` (certified: the χ² ball's row cone is an envelope cone, so the upper bound is the
better of the exact pricing bound and the chain-rule bound) and sets it beside the papers'
low-complexity mechanisms on the same data:

* ``grr``, ``srr``, ``ir``, ``cr`` — built as :mod:`privopt.designs.named` builds them;
* ``nr`` (bounded) — the non-robust optimum at the point P̂ (Entropy §8), itself too large to
  enumerate at these sizes: column generation at the point with ``nr_time_limit`` seconds gives a
  lower bound on it (its value is reported with its own upper bound);
* ``colgen`` — its value (the master's lower bound), its certified upper bound, the relative gap,
  the stopping reason, the robust audit's verdict and realized ε, the columns generated and the
  convergence trace.

The benchmark ``benchmarks/bench_colgen.py`` and the notebook ``notebooks/adult_column_generation``
both call it, with the budgets of :data:`BUDGETS` (every run within 10 minutes) or shorter ones in
reduced mode.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privopt.data.information import mutual_information
from privopt.definitions.sensitive_ldp import SensitiveLDP
from privopt.experiments.figures.adult import adult_joint
from privopt.problem import Problem
from privopt.sets.renyi import RenyiBall
from privopt.utilities import MutualInformation

#: The Adult pairs of the certified-optimum issue, ``(sensitive, public)``, smallest first.
PAIRS: tuple[tuple[str, str], ...] = (
    ("sex", "race"),  # 2 × 5 = 10
    ("marital-status", "relationship"),  # 7 × 6 = 42
    ("marital-status", "education"),  # 7 × 16 = 112
    ("occupation", "education"),  # 15 × 16 = 240
)

#: Column-generation seconds per ε (each run, audit included, within 10 minutes).
BUDGETS: dict[tuple[str, str], float] = {
    ("sex", "race"): 120.0,
    ("marital-status", "relationship"): 120.0,
    ("marital-status", "education"): 300.0,
    ("occupation", "education"): 540.0,
}

#: The low-complexity mechanisms the designed one is compared with.
BASELINES = ("grr", "srr", "ir", "cr")


@dataclass(frozen=True)
class AdultColgenRun:
    """One pair and ε: the baselines' MI, the colgen design's bounds, and how the run went.

    ``utilities`` maps a mechanism name to its mutual information ``I_P̂(X; Y)`` in nats;
    ``nmi`` divides by ``H(X)``. ``lower`` is the designed mechanism's MI, ``upper`` a certified
    bound on every mechanism in the cone (``upper_source`` says which), ``gap = (upper − lower) /
    upper``.
    """

    pair: str
    size: tuple[int, int]
    eps: float
    entropy: float
    utilities: dict[str, float]
    lower: float
    upper: float
    upper_source: str
    gap: float
    stopped: str
    seconds: float
    audit_passed: bool
    realized_eps: float
    columns: int
    iterations: int
    nr_upper: float | None = None
    trace: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)), repr=False)

    @property
    def best_baseline(self) -> str:
        named = {k: v for k, v in self.utilities.items() if k in BASELINES}
        return max(named, key=named.__getitem__)

    @property
    def beats_baselines(self) -> bool:
        """Whether the design's MI is at least every low-complexity mechanism's."""
        return all(self.lower >= self.utilities[name] for name in BASELINES if name in self.utilities)

    def row(self) -> dict[str, Any]:
        """A flat record (for a DataFrame): the bounds, the run and each mechanism's MI."""
        out: dict[str, Any] = {
            "pair": self.pair,
            "eps": self.eps,
            "lower": self.lower,
            "upper": self.upper,
            "gap": self.gap,
            "nmi_lower": self.lower / self.entropy,
            "nmi_upper": self.upper / self.entropy,
            "stopped": self.stopped,
            "seconds": self.seconds,
            "audit": self.audit_passed,
            "realized_eps": self.realized_eps,
            "columns": self.columns,
            "beats_baselines": self.beats_baselines,
        }
        out.update({f"mi_{name}": value for name, value in self.utilities.items()})
        return out


def adult_colgen_run(
    sensitive: str,
    public: str,
    eps: float,
    time_limit: float,
    *,
    nr_time_limit: float | None = None,
    beta: float = 0.05,
    seed: int = 0,
) -> AdultColgenRun:
    """Design the ``(ε, F)``-RLDP mechanism on Adult's ``(sensitive, public)`` by column generation.

    ``F`` is the χ² confidence set at level ``1 − beta`` around the empirical ``P̂`` (n = 32,561;
    Entropy paper eq. 20). The utility is ``I_P̂(X; Y)``. The run is audited by
    :meth:`Problem.solve` (robust audit over ``F``).
    """
    from privopt.data.mechanism import as_mechanism
    from privopt.designs.named import available

    P = adult_joint(sensitive, public)
    F = RenyiBall.confidence(P, level=1.0 - beta)
    utility = MutualInformation(P)
    problem = Problem(
        SensitiveLDP(eps, F),
        utility,
        colgen={"time_limit": time_limit, "progress": False, "seed": seed},
    )
    builders = available(problem)
    utilities = {
        name: mutual_information(P.p_x, as_mechanism(builders[name](), name).matrix) for name in BASELINES
    }
    nr_upper = None
    if nr_time_limit is not None:
        nr = Problem(
            SensitiveLDP(eps, P),
            utility,
            colgen={"time_limit": nr_time_limit, "progress": False, "seed": seed},
        ).solve(route="colgen")
        utilities["nr"], nr_upper = nr.value, nr.upper
    start = time.perf_counter()
    solution = problem.solve(route="colgen")
    seconds = time.perf_counter() - start
    stats = solution.stats
    return AdultColgenRun(
        pair=f"{sensitive} × {public}",
        size=(P.n_s, P.n_u),
        eps=eps,
        entropy=P.entropy(),
        utilities=utilities,
        lower=solution.value,
        upper=solution.upper,
        upper_source=solution.certificate.upper_source,
        gap=solution.gap,
        stopped=str(stats.stopped),
        seconds=seconds,
        audit_passed=solution.certificate.audit_passed,
        realized_eps=solution.certificate.audit.upper,
        columns=int(stats.columns or 0),
        iterations=int(stats.iterations or 0),
        nr_upper=nr_upper,
        trace=np.asarray(stats.trace),
    )
