"""Random-instance property suite (issue 51): every valid problem solves, and its answer is right.

Seeded sweeps over every shipped definition (LDP, LDP w.r.t. S, LIP, PML, SRLIP, Pufferfish, metric
LDP, ``RatioConstraints``) × every set it accepts (a point, a finite set, an ℓ1 ball, a Rényi ball, a
polytope, the simplex) × ε from 0 to well past the level where releasing the input is allowed ×
alphabets from 1×1 to 3×3 × degenerate priors (zeros, near-zeros, one symbol) × utilities (mutual
information, f-divergences, expected gain and distortion). Instance ``seed`` is
:func:`make_instance`\\ ``(seed)``; a failure message names the seed and the instance, and
``check_instance(seed)`` reproduces it.

For each instance:

1. ``solve()`` returns a :class:`~privopt.Solution` or raises a :class:`~privopt.PrivoptError`,
   never another exception;
2. the mechanism is a channel;
3. it passes a brute-force audit written here from each definition's mathematical statement (no
   privopt audit, compiler or certificate code is imported by the checker): at every distribution
   of the set where the set is polyhedral (exactly), at sampled distributions of a Rényi ball or of
   a set a definition is not affine on (a falsification check);
4. its value is at least every shipped explicit mechanism's that the audit accepts (where that is
   a theorem, see :func:`explicit_floor`);
5. where the problem is small, its value equals a brute-force vertex enumeration in exact
   (:class:`fractions.Fraction`) arithmetic over the cone built here from the definition (exact sets)
   and never exceeds it (a relaxation, for the inner approximations privopt compiles elsewhere);
6. the vertex, column-generation and closed-form routes agree within their certified gaps.

The CLI part runs generated spec files through ``privopt design --json``: exit 0 with a mechanism
that passes the same audit, or a one-line error with exit 2, 3 or 4 — never 70.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog
from typer.testing import CliRunner

import privopt as po
from privopt.app.cli import app
from tests.test_fuzz import to_toml

# ---------------------------------------------------------------------- tolerances
#: A mechanism's rows sum to 1 within this, and its entries are >= -this.
CHANNEL_ATOL = 1e-9
#: The audit accepts ``aᵀw <= e^{cε} bᵀw`` when the excess is at most ``AUDIT_RTOL`` times the larger
#: side plus ``AUDIT_ATOL`` times the column's largest entry (LP solutions meet rows to ~1e-9).
AUDIT_RTOL = 1e-7
AUDIT_ATOL = 1e-9
#: Explicit mechanisms are screened by the audit with a stricter slack (they are closed forms).
EXPLICIT_RTOL = 1e-10
#: Values of sub-convex utilities (an LP over exact vertices against privopt's LP) agree within this,
#: relative to ``max(1, |value|)``.
VALUE_RTOL = 1e-6
#: Concave utilities are solved by a conic solver to ~1e-7 relative accuracy; an LP here checks them.
CONCAVE_RTOL = 1e-5
#: Two routes agree when their intervals ``[lower, upper]`` overlap within this (relative).
ROUTE_RTOL = 1e-6
#: A probability at or below this is a zero of the set (a zero prior is exactly 0.0 in the instances;
#: near-zeros are 1e-12, well above it).
ZERO_PROBABILITY = 0.0
#: Exact vertex enumeration is attempted when it has at most this many active sets to try.
ENUMERATION_MAX_SUBSETS = 6000
#: Distributions sampled from a Rényi ball (or a set a definition is not affine on) for the audit.
AUDIT_SAMPLES = 120
#: Of those, how many also enter the relaxed cone of the upper-bound enumeration.
BOUND_SAMPLES = 3
#: A Rényi ball of at most this radius is sampled at its centre only (its divergence, evaluated in
#: double precision, cannot tell its points from points 1e-8 outside it).
RENYI_RESOLVED_RADIUS = 1e-12
#: The audit's slack on ε (a ratio exceeding e^ε by AUDIT_RTOL is accepted): where the cone at ε is
#: degenerate (ε = 0, rows 1e-13 apart) privopt's value may reach the optimum at ε + this, not at ε.
EPS_SLACK = AUDIT_RTOL
#: Bisection steps to a Rényi ball's boundary along a segment (2^-60 of its length).
BOUNDARY_STEPS = 60

#: The refusals that are privopt's stated limits, as ``(error class, phrase of its message, why)``; any
#: other refusal of a generated problem — a SolverError above all — is a failure.
STATED_REFUSALS: tuple[tuple[type[po.PrivoptError], str, str], ...] = (
    (po.ValidationError, "P(S=s) > 0 for every sensitive value", "a conditional given S=s needs P(S=s) > 0"),
    (po.ValidationError, "P(S=s) = 0 on the whole polytope", "the same, everywhere on a polytope"),
    (po.ValidationError, "an event of positive probability", "a conditional on an event of probability 0"),
    (po.ValidationError, "a definition that constrains nothing", "no pair at all: |S| = 1, one input"),
    (po.ValidationError, "the ball must stay inside the simplex", "ℓ1 balls need β < 2 min P̂ (PML Prop. 2)"),
    (po.NotSupportedError, "is not affine in the distribution in one way", "no robust counterpart rule"),
    (po.NotSupportedError, "which is not a value of S", "events other than S = s over balls and polytopes"),
    (po.InfeasibleError, "", "no mechanism: confirmed by the brute force where the set is exact"),
)

#: Seconds of column generation per solve (a budget of the route, never an assertion on time).
COLGEN_SECONDS = 1.0

#: ε near the identity's level ``log(1 / min P̂)`` is drawn up to this level (near-zero priors: 27.6).
IDENTITY_LEVEL_MAX = 12.0

#: Seeds of the default run (each a test item) and of the slow sweep (one test, aggregated).
DEFAULT_SEEDS = range(0, 100)
SLOW_SEEDS = range(10_000, 11_000)

DEFINITION_SETS: tuple[tuple[str, str], ...] = (
    ("LDP", "none"),
    ("MetricLDP", "none"),
    ("RatioConstraints", "none"),
    ("SRLIP", "point"),
    *(
        (definition, set_kind)
        for definition in ("SensitiveLDP", "LIP", "PML", "Pufferfish", "RatioConstraints")
        for set_kind in ("point", "finite", "l1", "renyi", "polytope", "simplex")
    ),
)

SHAPES = ((1, 1), (1, 2), (2, 1), (1, 3), (3, 1), (2, 2), (2, 3), (3, 2), (3, 3))
SHAPE_WEIGHTS = np.array([1.0, 2.0, 3.0, 1.0, 1.5, 3.0, 1.0, 1.0, 1.0])
SRLIP_ATTRIBUTES = ((1,), (2,), (3,), (2, 2), (2, 1), (1, 2))


# ---------------------------------------------------------------------- instances
@dataclass
class Instance:
    """A random problem, described by the numbers the checker needs (independent of privopt)."""

    seed: int
    definition: str
    set_kind: str
    shape: tuple[int, int]
    prior: np.ndarray  # (n_s, n_u) joint distribution: the set's reference and the utility's prior
    degeneracy: str
    eps: float
    on: str = "x"
    members: list[np.ndarray] = field(default_factory=list)  # finite set / polytope vertices
    radius: float = 0.0
    order: float = 2.0
    attributes: tuple[int, ...] = ()
    secrets: dict[str, list[int]] = field(default_factory=dict)  # record indices (s-major)
    secret_pairs: list[tuple[str, str]] = field(default_factory=list)
    directed: bool = False
    distances: np.ndarray | None = None
    ratio_pairs: list[tuple[list[tuple[str, Any]], list[tuple[str, Any]], float]] = field(
        default_factory=list
    )
    utility: str = "mi"
    utility_args: dict[str, Any] = field(default_factory=dict)

    @property
    def n_inputs(self) -> int:
        return self.shape[1] if self.on == "u" else self.shape[0] * self.shape[1]

    def describe(self) -> str:
        n_s, n_u = self.shape
        extra = ""
        if self.set_kind == "l1":
            extra = f" beta={self.radius:.4g}"
        elif self.set_kind == "renyi":
            extra = f" B={self.radius:.4g} order={self.order:g}"
        elif self.set_kind in ("finite", "polytope"):
            extra = f" members={len(self.members)}"
        return (
            f"seed={self.seed} {self.definition}/{self.set_kind} {n_s}x{n_u} on={self.on} eps={self.eps:.6g}"
            f"{extra} prior={self.degeneracy}:{np.round(self.prior.ravel(), 4).tolist()} utility={self.utility}"
        )


def _random_prior(rng: np.random.Generator, shape: tuple[int, int], degeneracy: str) -> np.ndarray:
    n = shape[0] * shape[1]
    p = rng.dirichlet(np.full(n, 0.8))
    if n > 1 and degeneracy in ("zero", "near_zero"):
        k = int(rng.integers(1, n))
        chosen = rng.choice(n, size=k, replace=False)
        p[chosen] = 0.0 if degeneracy == "zero" else 1e-12
    elif degeneracy == "single":
        p = np.zeros(n)
        p[rng.integers(n)] = 1.0
    return (p / p.sum()).reshape(shape)


def _other_distribution(rng: np.random.Generator, prior: np.ndarray) -> np.ndarray:
    """A second distribution of the same shape: a mixture with a random one, or a random one."""
    other = rng.dirichlet(np.full(prior.size, 0.8)).reshape(prior.shape)
    weight = float(rng.choice([0.0, 0.5, 0.8]))
    mixed = weight * prior + (1.0 - weight) * other
    return mixed / mixed.sum()


def _random_event(rng: np.random.Generator, n: int, shape: tuple[int, int]) -> list[int]:
    kind = rng.choice(["singleton", "block", "all", "random"])
    n_s, n_u = shape
    if kind == "singleton" or n == 1:
        return [int(rng.integers(n))]
    if kind == "block":
        s = int(rng.integers(n_s))
        return list(range(s * n_u, (s + 1) * n_u))
    if kind == "all":
        return list(range(n))
    size = int(rng.integers(1, n + 1))
    return sorted(int(i) for i in rng.choice(n, size=size, replace=False))


def _random_statistic(rng: np.random.Generator, inst: Instance, constant_only: bool) -> tuple[str, Any]:
    n = inst.n_inputs
    kinds = ["x", "weights"] if constant_only else ["x", "weights", "s", "marginal", "event", "joint"]
    kind = str(rng.choice(kinds))
    if kind == "x":
        return ("x", int(rng.integers(n)))
    if kind == "weights":
        v = rng.random(n) * (rng.random(n) < 0.8)
        return ("weights", np.round(v, 3))
    if kind == "s":
        return ("s", int(rng.integers(inst.shape[0])))
    if kind == "marginal":
        return ("marginal", None)
    return (kind, _random_event(rng, inst.shape[0] * inst.shape[1], inst.shape))


def make_instance(seed: int) -> Instance:
    """Instance ``seed``: the definition and set cycle through :data:`DEFINITION_SETS`, the rest is random."""
    rng = np.random.default_rng(seed)
    definition, set_kind = DEFINITION_SETS[seed % len(DEFINITION_SETS)]
    if definition in ("LDP", "MetricLDP") or (definition, set_kind) == ("RatioConstraints", "none"):
        shape = (int(rng.integers(1, 5)), 1)
    elif definition == "SRLIP":
        attributes = SRLIP_ATTRIBUTES[rng.integers(len(SRLIP_ATTRIBUTES))]
        shape = (int(rng.integers(1, 4)), int(np.prod(attributes)))
    else:
        shape = SHAPES[rng.choice(len(SHAPES), p=SHAPE_WEIGHTS / SHAPE_WEIGHTS.sum())]
    degeneracy = str(rng.choice(["none", "zero", "near_zero", "single"], p=[0.5, 0.2, 0.15, 0.15]))
    prior = _random_prior(rng, shape, degeneracy)
    band = rng.random()
    if band < 0.1:
        eps = 0.0
    elif band < 0.4:
        eps = float(rng.uniform(0.0, 2.0))
    elif band < 0.7:
        eps = float(rng.uniform(2.0, 8.0))
    else:  # about where releasing the input becomes allowed (PML at P̂: e^ε >= 1 / min P̂(x) > 0)
        level = min(-math.log(float(prior[prior > 0].min())), IDENTITY_LEVEL_MAX)
        eps = max(0.0, level + float(rng.uniform(-0.3, 1.0)))
    inst = Instance(seed, definition, set_kind, shape, prior, degeneracy, eps)
    if definition == "SRLIP":
        inst.attributes = attributes
        inst.on = "u"
    elif definition in ("SensitiveLDP", "LIP") and rng.random() < 0.25:
        inst.on = "u"
    if set_kind in ("finite", "polytope"):  # the members, or the vertices
        inst.members = [prior] + [_other_distribution(rng, prior) for _ in range(int(rng.integers(1, 3)))]
    elif set_kind == "l1":
        p_min = float(prior.min())
        choice = rng.random()
        inst.radius = (
            0.0 if choice < 0.15 else float(rng.uniform(0, 2 * p_min) if choice < 0.6 else rng.uniform(0, 1))
        )
    elif set_kind == "renyi":
        choice = rng.random()
        inst.radius = (
            0.0 if choice < 0.15 else float(rng.uniform(0, 0.3) if choice < 0.7 else rng.uniform(0.3, 2))
        )
        inst.order = float(rng.choice([0.5, 1.0, 2.0, 3.0]))
    n = inst.n_inputs
    if definition == "MetricLDP":
        d = rng.uniform(0.2, 3.0, size=(n, n))
        d[rng.random((n, n)) < 0.15] = np.inf
        np.fill_diagonal(d, 0.0)
        inst.distances = d
    elif definition == "Pufferfish":
        n_x = shape[0] * shape[1]
        names = [f"e{k}" for k in range(int(rng.integers(2, 4)))]
        inst.secrets = {name: _random_event(rng, n_x, shape) for name in names}
        count = int(rng.integers(1, 3))
        inst.secret_pairs = [tuple(str(v) for v in rng.choice(names, 2, replace=False)) for _ in range(count)]
        inst.directed = bool(rng.random() < 0.3)
    elif definition == "RatioConstraints":
        constant_only = set_kind == "none"
        for _ in range(int(rng.integers(1, 3))):
            left = [_random_statistic(rng, inst, constant_only) for _ in range(int(rng.integers(1, 3)))]
            right = [_random_statistic(rng, inst, constant_only) for _ in range(int(rng.integers(1, 3)))]
            inst.ratio_pairs.append((left, right, float(rng.choice([0.5, 1.0, 2.0]))))
    choice = rng.random()
    if choice < 0.6:
        inst.utility = "mi"
    elif choice < 0.85:
        inst.utility = str(rng.choice(["tv", "hellinger", "kl"]))
        inst.utility_args = {
            "p0": _input_prior(inst),
            "p1": rng.dirichlet(np.full(n, 1.0)),
        }
    else:
        inst.utility = str(rng.choice(["gain", "distortion"]))
        if inst.utility == "gain":
            inst.utility_args = {"gain": np.round(rng.random((n, int(rng.integers(1, 4)))), 3)}
    return inst


def _input_prior(inst: Instance) -> np.ndarray:
    """The utility's distribution over the mechanism's inputs."""
    return inst.prior.sum(axis=0) if inst.on == "u" else inst.prior.ravel()


# ---------------------------------------------------------------------- the privopt problem
def _labels(inst: Instance) -> tuple[Any, ...]:
    """Record labels of ``X = S × U`` as privopt names them for unlabelled data."""
    n_s, n_u = inst.shape
    return tuple((s, u) for s in range(n_s) for u in range(n_u)) if n_u > 1 else tuple(range(n_s))


def build_set(inst: Instance) -> Any:
    P = po.JointDistribution(inst.prior)
    if inst.set_kind == "point":
        return P
    if inst.set_kind == "finite":
        return po.FiniteSet([po.JointDistribution(m) for m in inst.members])
    if inst.set_kind == "polytope":
        return po.Polytope(np.vstack([m.ravel() for m in inst.members]), shape=inst.shape)
    if inst.set_kind == "l1":
        return po.L1Ball(P, inst.radius)
    if inst.set_kind == "renyi":
        return po.RenyiBall(P, inst.radius, inst.order)
    if inst.set_kind == "simplex":
        return po.Simplex(inst.shape)
    raise AssertionError(inst.set_kind)


def _privopt_statistic(inst: Instance, statistic: tuple[str, Any]) -> Any:
    kind, key = statistic
    records = _labels(inst)
    # Inputs are labelled by the set's reference distribution, else 0, 1, ...; events name records. A
    # one-record event is the input itself (po.given collapses it to given(x=...)), so it is written
    # with the input's label.
    labelled = inst.set_kind in ("point", "finite", "l1", "renyi")
    if kind == "event" and len(key) == 1:
        kind, key = "x", key[0]
    if kind == "x":
        return po.given(x=records[key] if labelled else key)
    if kind == "weights":
        return po.weights(key)
    if kind == "s":
        return po.given(s=key)
    if kind == "marginal":
        return po.marginal()
    if kind == "event":
        return po.given(event=[records[i] for i in key])
    return po.joint([records[i] for i in key])


def build_definition(inst: Instance) -> po.PrivacyDefinition:
    eps = inst.eps
    if inst.definition == "LDP":
        return po.LDP(eps)
    if inst.definition == "MetricLDP":
        return po.MetricLDP(eps, inst.distances)
    if inst.definition == "SRLIP":
        return po.SRLIP(eps, po.JointDistribution(inst.prior), inst.attributes)
    if inst.definition == "RatioConstraints":
        pairs = [
            po.RatioPair.of(
                [_privopt_statistic(inst, s) for s in left],
                [_privopt_statistic(inst, s) for s in right],
                "",
                scale,
            )
            for left, right, scale in inst.ratio_pairs
        ]
        if inst.set_kind == "none":
            return po.RatioConstraints(pairs, eps, n_inputs=inst.n_inputs)
        return po.RatioConstraints(pairs, eps, build_set(inst))
    F = build_set(inst)
    if inst.definition == "SensitiveLDP":
        return po.SensitiveLDP(eps, F, on=inst.on)
    if inst.definition == "LIP":
        return po.LIP(eps, F, on=inst.on)
    if inst.definition == "PML":
        return po.PML(eps, F)
    if inst.definition == "Pufferfish":
        records = _labels(inst)
        secrets = {name: [records[i] for i in event] for name, event in inst.secrets.items()}
        return po.Pufferfish(secrets, inst.secret_pairs, eps, F, directed=inst.directed)
    raise AssertionError(inst.definition)


def build_utility(inst: Instance) -> Any:
    p = _input_prior(inst)
    if inst.utility == "mi":
        return po.MutualInformation(p)
    if inst.utility in ("tv", "hellinger", "kl"):
        return po.FDivergence(inst.utility, inst.utility_args["p0"], inst.utility_args["p1"])
    if inst.utility == "gain":
        return po.ExpectedGain(p, inst.utility_args["gain"])
    return po.ExpectedDistortion(p, "hamming")


def build_problem(inst: Instance) -> po.Problem:
    """The problem, with column generation's budget (a solver option: where it stops early, its
    certified interval is still checked against the other routes)."""
    return po.Problem(
        build_definition(inst), build_utility(inst), colgen={"time_limit": COLGEN_SECONDS, "workers": 1}
    )


# ---------------------------------------------------------------------- brute force: the definitions
# Everything below is written from the definitions' mathematical statements (module docstring of each
# privopt definition, docs/design.md §3, the papers); it reads only numbers from the instance.
Pair = tuple[np.ndarray, np.ndarray, float]  # (a, b, c): the constraint aᵀw <= e^{cε} bᵀw


def _unit(n: int, index: int, like: np.ndarray) -> np.ndarray:
    """``e_index`` in the number type of ``like`` (floats, or exact rationals)."""
    out = np.zeros(n, dtype=like.dtype)
    out[index] = 1
    return out


def exact_distribution(P: np.ndarray) -> np.ndarray:
    """``P`` in exact rationals (each float converted exactly), divided by its exact sum so that it is
    a distribution exactly: the relations between statistics (``P(y) = Σ_s P(s) P(y|s)``) then hold
    exactly in the cone built from it, as they do in the definition."""
    exact = np.array([Fraction(float(v)) for v in P.ravel()], dtype=object)
    return (exact / exact.sum()).reshape(P.shape)


def _conditional(P: np.ndarray, records: list[int], on: str) -> np.ndarray | None:
    """``P(input | X ∈ records)`` over the mechanism's inputs; ``None`` when ``P(X ∈ records) = 0``
    (the conditional does not exist and a pair that needs it imposes nothing at ``P``)."""
    restricted = P.ravel() * 0
    restricted[records] = P.ravel()[records]
    mass = restricted.sum()
    if mass <= ZERO_PROBABILITY:
        return None
    restricted /= mass
    return restricted.reshape(P.shape).sum(axis=0) if on == "u" else restricted


def _statistic(inst: Instance, statistic: tuple[str, Any], P: np.ndarray) -> np.ndarray | None:
    """A ratio-pair statistic of a column as a vector over the inputs, at the distribution ``P``."""
    kind, key = statistic
    n = inst.n_inputs
    n_u = inst.shape[1]
    if kind == "x":
        return _unit(n, key, P)
    if kind == "weights":
        return np.asarray([Fraction(float(v)) for v in key] if P.dtype == object else key, dtype=P.dtype)
    if kind == "s":
        return _conditional(P, list(range(key * n_u, (key + 1) * n_u)), inst.on)
    if kind == "marginal":
        return P.sum(axis=0) if inst.on == "u" else P.ravel().copy()
    if kind == "event":
        # P(Y=y | X = x) = W[x, y] is an entry of the channel whatever the prior: a single record is a
        # constant statistic; a larger event needs P(X ∈ event) > 0.
        return _unit(n, key[0], P) if len(key) == 1 else _conditional(P, key, inst.on)
    restricted = P.ravel() * 0  # joint: P(Y=y, X ∈ event), not normalised
    restricted[key] = P.ravel()[key]
    return restricted.reshape(P.shape).sum(axis=0) if inst.on == "u" else restricted


def _group_pairs(left: list[np.ndarray | None], right: list[np.ndarray | None], scale: float) -> list[Pair]:
    """``max over left <= e^{cε} min over right``: every (left, right) combination; nothing where a
    statistic does not exist at this distribution."""
    if any(v is None for v in left + right):
        return []
    return [(a, b, scale) for a in left for b in right]  # type: ignore[misc]


def union_support(inst: Instance) -> np.ndarray:
    """Inputs with positive probability somewhere in the set (PML: the leakage to ``x`` counts where
    ``P(x) > 0``; on a convex set the constraint then holds on its closure by continuity, and a finite
    set stands for its convex hull for PML, privopt.FiniteSet docstring)."""
    if inst.set_kind in ("simplex",):
        return np.ones(inst.n_inputs, dtype=bool)
    if inst.set_kind in ("l1", "renyi") and inst.radius > 0:
        return np.ones(inst.n_inputs, dtype=bool)  # mass can move to any symbol within the ball
    points = inst.members if inst.set_kind in ("finite", "polytope") else [inst.prior]
    return np.any(np.vstack([m.ravel() for m in points]) > ZERO_PROBABILITY, axis=0)


def pairs_at(inst: Instance, P: np.ndarray) -> list[Pair]:
    """Every constraint the definition imposes on a column at the distribution ``P`` of its set."""
    n = inst.n_inputs
    n_s = inst.shape[0]
    unit = [_unit(n, x, P) for x in range(n)]
    out: list[Pair] = []
    if inst.definition == "LDP":  # W[x,y] <= e^ε W[x',y]
        out = [(unit[x], unit[z], 1.0) for x in range(n) for z in range(n) if x != z]
    elif inst.definition == "MetricLDP":  # W[x,y] <= e^{ε d(x,x')} W[x',y]
        assert inst.distances is not None
        out = [
            (unit[x], unit[z], float(inst.distances[x, z]))
            for x in range(n)
            for z in range(n)
            if x != z and np.isfinite(inst.distances[x, z])
        ]
    elif inst.definition == "SensitiveLDP":  # P(y|s) <= e^ε P(y|s'), P(y|s) = Σ_u P(u|s) W[(s,u), y]
        conditionals = [_statistic(inst, ("s", s), P) for s in range(n_s)]
        for s, t in itertools.permutations(range(n_s), 2):
            out += _group_pairs([conditionals[s]], [conditionals[t]], 1.0)
    elif inst.definition == "LIP":  # e^-ε <= P(y|s) / P(y) <= e^ε
        marginal = _statistic(inst, ("marginal", None), P)
        for s in range(n_s):
            conditional = _statistic(inst, ("s", s), P)
            out += _group_pairs([conditional], [marginal], 1.0) + _group_pairs([marginal], [conditional], 1.0)
    elif inst.definition == "PML":  # W[x,y] <= e^ε Σ_x' P(x') W[x',y] for x in the support
        out = [(unit[x], P.ravel().copy(), 1.0) for x in np.flatnonzero(union_support(inst))]
    elif inst.definition == "Pufferfish":  # P(y|a) <= e^ε P(y|b) for P with both secrets of P > 0
        for a, b in inst.secret_pairs:
            sides = [_statistic(inst, ("event", inst.secrets[k]), P) for k in (a, b)]
            out += _group_pairs([sides[0]], [sides[1]], 1.0)
            if not inst.directed:
                out += _group_pairs([sides[1]], [sides[0]], 1.0)
    elif inst.definition == "RatioConstraints":
        for left, right, scale in inst.ratio_pairs:
            out += _group_pairs(
                [_statistic(inst, s, P) for s in left], [_statistic(inst, s, P) for s in right], scale
            )
    elif inst.definition == "SRLIP":
        out = _srlip_pairs(inst, P)
    else:
        raise AssertionError(inst.definition)
    return out


def _srlip_pairs(inst: Instance, P: np.ndarray) -> list[Pair]:
    """Privacy-funnel paper Def. 3 (eq. 22): LIP w.r.t. ``p_{S,X|x^J}`` for every set ``J`` of known
    attributes short of all of them and every value ``x^J`` of positive probability; ``U`` is the
    row-major flattening of the attributes and the mechanism reads ``U``."""
    sizes = inst.attributes
    grid = np.indices(sizes).reshape(len(sizes), -1)  # attribute values of each u
    out: list[Pair] = []
    for size in range(len(sizes)):
        for known in itertools.combinations(range(len(sizes)), size):
            for values in itertools.product(*(range(sizes[a]) for a in known)):
                mask = np.ones(grid.shape[1], dtype=bool)
                for axis, value in zip(known, values, strict=True):
                    mask &= grid[axis] == value
                piece = P * mask[None, :]
                if piece.sum() <= ZERO_PROBABILITY:
                    continue
                prior = piece.sum(axis=0) / piece.sum()  # P(u | x^J)
                for s in range(P.shape[0]):
                    if piece[s].sum() <= ZERO_PROBABILITY:
                        continue
                    given_s = piece[s] / piece[s].sum()  # P(u | s, x^J)
                    out += [(given_s, prior, 1.0), (prior, given_s, 1.0)]
    return out


def _affine(inst: Instance) -> bool:
    """Whether every statistic is constant or affine in the joint ``P`` (then a constraint holds on a
    polytope iff it holds at its vertices)."""
    if inst.definition in ("LDP", "MetricLDP", "PML"):
        return True
    if inst.definition == "Pufferfish":
        n_x = inst.shape[0] * inst.shape[1]
        return all(len(e) == 1 or len(e) == n_x for e in inst.secrets.values())
    if inst.definition == "RatioConstraints":
        kinds = {kind for left, right, _ in inst.ratio_pairs for kind, key in left + right}
        events = [key for left, right, _ in inst.ratio_pairs for kind, key in left + right if kind == "event"]
        return kinds <= {"x", "weights", "marginal", "joint", "event"} and all(len(e) == 1 for e in events)
    return False


def l1_extreme_points(center: np.ndarray, beta: float) -> list[np.ndarray]:
    """The extreme points of ``{P in the simplex : ||P − P̂||₁ <= β}``: a linear function is minimised by
    moving ``β/2`` of mass to one receiver ``j`` from donors emptied in some order, the last one
    partially (or until every donor is empty); every such point, for every ``j`` and every set of
    emptied donors."""
    p = center.ravel()
    n = p.size
    budget = beta / 2.0
    out = [center.copy()]
    for j in range(n):
        others = [i for i in range(n) if i != j]
        for size in range(len(others) + 1):
            for emptied in itertools.combinations(others, size):
                taken = float(p[list(emptied)].sum())
                if taken > budget:
                    continue
                rest = [k for k in others if k not in emptied]
                partial = [k for k in rest if taken + p[k] >= budget] if taken < budget else [None]
                if not rest:
                    partial = [None]
                for k in partial:
                    q = p.copy()
                    q[list(emptied)] = 0.0
                    moved = taken
                    if k is not None:
                        q[k] -= budget - taken
                        moved = budget
                    q[j] += moved
                    out.append(q.reshape(center.shape))
    return out


def _renyi_divergence(p_hat: np.ndarray, p: np.ndarray, order: float) -> float:
    """``D_α(P̂ || P)`` (nats) from its definition."""
    support = p_hat > 0
    a, b = p_hat[support], p[support]
    if order >= 1.0 and np.any(b <= 0):
        return math.inf
    if math.isclose(order, 1.0):
        return float(np.sum(a * np.log(a / b)))
    total = float(np.sum(a**order * b ** (1.0 - order)))
    return math.inf if total <= 0 else math.log(total) / (order - 1.0)


def _renyi_samples(inst: Instance, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Points of the Rényi ball: on segments from the centre towards random distributions and point
    masses, at the boundary (bisection: ``D_α(P̂ || ·)`` is convex, so increasing along the segment)
    and inside it."""
    center = inst.prior.ravel()
    n = center.size
    if inst.radius <= RENYI_RESOLVED_RADIUS:
        return [inst.prior]  # D is quadratic at its centre: in floats, points 1e-8 away evaluate to 0
    out = []
    for k in range(count):
        target = np.eye(n)[k % n] if k < 2 * n else rng.dirichlet(np.full(n, 0.3))
        low, high = 0.0, 1.0
        if _renyi_divergence(center, target, inst.order) > inst.radius:
            for _ in range(BOUNDARY_STEPS):
                middle = (low + high) / 2.0
                inside = _renyi_divergence(center, (1 - middle) * center + middle * target, inst.order)
                low, high = (middle, high) if inside <= inst.radius else (low, middle)
        else:
            low = 1.0
        t = low if k % 3 else low * rng.random()
        point = (1 - t) * center + t * target
        assert _renyi_divergence(center, point, inst.order) <= inst.radius * (1 + 1e-9) + 1e-15
        out.append(point.reshape(inst.shape))
    return out


def set_points(inst: Instance, rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray], bool]:
    """``(points, samples, exact)``: distributions of the set at which the definition is checked. When
    ``exact``, the constraints at ``points`` are equivalent to the definition over the whole set; else
    ``points`` and ``samples`` are some of its distributions (a falsification check and a relaxation)."""
    n_s, n_u = inst.shape
    n_x = n_s * n_u
    if inst.set_kind in ("none", "point"):
        return [inst.prior], [], True
    if inst.set_kind == "finite":  # each member (for PML also their hull: the constraint is affine)
        return list(inst.members), [], True
    if inst.set_kind == "polytope":
        vertices = list(inst.members)
    elif inst.set_kind == "l1":
        vertices = l1_extreme_points(inst.prior, inst.radius)
    elif inst.set_kind == "simplex":
        # Point masses (the vertices), and one distribution per choice of u_s for every s: over the
        # simplex the conditionals P(·|s) range independently over the simplex on U, whose vertices
        # these are (Entropy paper Prop. 3); pairs of conditionals of distinct s are exact there.
        vertices = [np.eye(n_x)[x].reshape(inst.shape) for x in range(n_x)]
        for choice in itertools.product(range(n_u), repeat=n_s):
            point = np.zeros(inst.shape)
            point[np.arange(n_s), list(choice)] = 1.0 / n_s
            vertices.append(point)
        if inst.definition == "SensitiveLDP":
            return vertices, [], True
    else:  # a Rényi ball: its centre and points of it
        return [inst.prior], _renyi_samples(inst, rng, AUDIT_SAMPLES), False
    if _affine(inst):
        return vertices, [], True
    weights = rng.dirichlet(np.full(len(vertices), 0.5), size=AUDIT_SAMPLES)
    samples = [(w @ np.vstack([v.ravel() for v in vertices])).reshape(inst.shape) for w in weights]
    return vertices, samples, False


def constraint_matrix(
    inst: Instance, points: list[np.ndarray], exact: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(A, B, c)`` stacking every pair at every point: rows ``a_iᵀw <= e^{c_i ε} b_iᵀw`` (``A``, ``B`` in
    exact rationals when ``exact``)."""
    pairs = [pair for P in points for pair in pairs_at(inst, exact_distribution(P) if exact else P)]
    n = inst.n_inputs
    if not pairs:
        return np.zeros((0, n)), np.zeros((0, n)), np.zeros(0)
    return (
        np.vstack([a for a, _, _ in pairs]),
        np.vstack([b for _, b, _ in pairs]),
        np.array([c for _, _, c in pairs]),
    )


def audit_excess(inst: Instance, W: np.ndarray, points: list[np.ndarray], rtol: float = AUDIT_RTOL) -> float:
    """The largest violation of the definition by the channel ``W`` at ``points``, in units of the
    tolerance (``<= 1`` passes)."""
    A, B, c = constraint_matrix(inst, points)
    if A.shape[0] == 0:
        return 0.0
    left = A @ W
    right = np.exp(c * inst.eps)[:, None] * (B @ W)
    slack = rtol * np.maximum(left, right) + AUDIT_ATOL * W.max(axis=0, keepdims=True)
    return float(np.max((left - right) / slack))


# ---------------------------------------------------------------------- brute force: exact vertices
def exact_rows(inst: Instance, points: list[np.ndarray]) -> list[tuple[Fraction, ...]]:
    """The cone's rows ``a − e^{cε} b`` (``row·w <= 0``) in exact rationals (each float converted
    exactly), normalised and deduplicated; rows implied by ``w >= 0`` dropped."""
    A, B, c = constraint_matrix(inst, points, exact=True)
    rows: set[tuple[Fraction, ...]] = set()
    for a, b, scale in zip(A, B, c, strict=True):
        factor = Fraction(math.exp(scale * inst.eps))
        row = tuple(u - factor * v for u, v in zip(a, b, strict=True))
        if all(entry <= 0 for entry in row):
            continue  # implied by w >= 0
        top = max(abs(entry) for entry in row)
        rows.add(tuple(entry / top for entry in row))
    return sorted(rows)


def _solve_exact(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """The unique solution of a square system by Gaussian elimination in rationals (``None``: singular)."""
    n = len(rhs)
    rows = [[*r, b] for r, b in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = next((r for r in range(col, n) if rows[r][col] != 0), None)
        if pivot is None:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col], strict=True)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def slice_vertices(rows: list[tuple[Fraction, ...]], n: int) -> list[tuple[Fraction, ...]] | None:
    """The vertices of ``{w >= 0, row·w <= 0 for every row, Σ w = 1}``, exactly: every choice of
    ``n − 1`` active inequalities with the normalisation, solved in rationals and kept when feasible.
    ``None`` when there are more than ``ENUMERATION_MAX_SUBSETS`` choices (the problem is not small)."""
    inequalities = rows + [tuple(Fraction(-1) if i == j else Fraction(0) for i in range(n)) for j in range(n)]
    if math.comb(len(inequalities), n - 1) > ENUMERATION_MAX_SUBSETS:
        return None
    ones = [Fraction(1)] * n
    found: set[tuple[Fraction, ...]] = set()
    for active in itertools.combinations(inequalities, n - 1):
        w = _solve_exact([list(r) for r in active] + [ones], [Fraction(0)] * (n - 1) + [Fraction(1)])
        if w is None:
            continue
        if all(
            sum((r_i * w_i for r_i, w_i in zip(r, w, strict=True)), Fraction(0)) <= 0 for r in inequalities
        ):
            found.add(tuple(w))
    return sorted(found)


# ---------------------------------------------------------------------- brute force: utilities
def column_values(inst: Instance, columns: np.ndarray) -> np.ndarray:
    """``μ`` of each column (sub-convex utilities), from the definitions: ``I(X;Y)`` summands
    ``Σ_x p_x w_x log(w_x / pᵀw)``; the f-divergence perspectives ``q1 f(q0/q1)``."""
    columns = np.asarray(columns, dtype=float)
    if inst.utility == "mi":
        p = _input_prior(inst)
        q = p @ columns
        terms = np.zeros(columns.shape)
        positive = (p[:, None] * columns) > 0
        ratio = np.divide(columns, q[None, :], out=np.ones(columns.shape), where=positive)
        terms[positive] = (p[:, None] * columns * np.log(ratio))[positive]
        return terms.sum(axis=0)
    q0 = inst.utility_args["p0"] @ columns
    q1 = inst.utility_args["p1"] @ columns
    if inst.utility == "tv":
        return 0.5 * np.abs(q0 - q1)
    if inst.utility == "hellinger":  # 1 − Σ√(q0 q1) = Σ ½(√q0 − √q1)² over a channel's columns
        return 0.5 * (np.sqrt(q0) - np.sqrt(q1)) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):  # kl: q1 > 0 (P1 has full support)
        return np.where(q0 > 0, q0 * np.log(q0 / q1), 0.0)


def concave(inst: Instance) -> bool:
    return inst.utility in ("gain", "distortion")


def _gain(inst: Instance) -> np.ndarray:
    n = inst.n_inputs
    return inst.utility_args["gain"] if inst.utility == "gain" else -(1.0 - np.eye(n))


def utility_value(inst: Instance, W: np.ndarray) -> float:
    """The utility of a channel: ``Σ_y μ(W[:, y])``, or ``Σ_{x,y} p_x W[x,y] g[x,y]`` (gain; distortion
    is ``g = −[x != y]``)."""
    if concave(inst):
        return float(np.sum(_input_prior(inst)[:, None] * W * _gain(inst)))
    return float(column_values(inst, W).sum())


def vertex_lp_optimum(inst: Instance, vertices: list[tuple[Fraction, ...]]) -> float | None:
    """Entropy paper Thm. 3: ``max Σ_v θ_v μ(v)`` s.t. ``Σ_v θ_v v = 1``, ``θ >= 0`` over the exact
    vertices (``μ`` in floats); ``None`` when infeasible (no mechanism has its columns in the cone)."""
    n = inst.n_inputs
    if not vertices:
        return None
    V = np.array([[float(x) for x in v] for v in vertices]).T  # (n, m)
    res = linprog(-column_values(inst, V), A_eq=V, b_eq=np.ones(n), bounds=(0, None), method="highs")
    if res.status == 2:
        return None
    assert res.status == 0, res.message
    return float(-res.fun)


def concave_lp_optimum(inst: Instance, points: list[np.ndarray]) -> float | None:
    """The linear utility's optimum over channels with ``|Y|`` columns in the cone at ``points``
    (an LP in the entries of ``W``); ``None`` when infeasible."""
    A, B, c = constraint_matrix(inst, points)
    G = A - np.exp(c * inst.eps)[:, None] * B
    n = inst.n_inputs
    gain = _gain(inst)
    m = gain.shape[1]
    objective = -(_input_prior(inst)[:, None] * gain).ravel()  # W flattened row-major (x, y)
    rows = [np.kron(g, np.eye(m)[y]) for g in G for y in range(m)]  # Σ_x g_x W[x, y] <= 0
    res = linprog(
        objective,
        A_ub=np.vstack(rows) if rows else None,
        b_ub=np.zeros(len(rows)) if rows else None,
        A_eq=np.kron(np.eye(n), np.ones((1, m))),
        b_eq=np.ones(n),
        bounds=(0, None),
        method="highs",
    )
    if res.status == 2:
        return None
    assert res.status == 0, res.message
    return float(-res.fun)


# ---------------------------------------------------------------------- explicit mechanisms
def explicit_mechanisms(inst: Instance) -> Iterator[tuple[str, np.ndarray]]:
    """Shipped explicit mechanisms with the instance's inputs: GRR and SRR at a few levels at and above
    ε, the identity, and where they apply IR and CR (Rényi balls), the ε-LIP calibrated GRR (a known
    distribution) and the binary PML closed form (PML paper Thm. 5)."""
    n = inst.n_inputs
    n_s, n_u = inst.shape
    levels = sorted({inst.eps, inst.eps + 0.5, 2.0 * inst.eps, inst.eps + 2.0})
    yield "identity", np.eye(n)
    builders: list[tuple[str, Callable[[], po.Mechanism]]] = []
    for level in levels:
        builders.append((f"GRR({level:.3g})", lambda level=level: po.mechanisms.grr(n, level)))
        if inst.on == "x":
            builders.append((f"SRR({level:.3g})", lambda level=level: po.mechanisms.srr(n_s, n_u, level)))
    if inst.set_kind == "renyi" and inst.definition == "SensitiveLDP" and inst.on == "x":
        ball = build_set(inst)
        for split in (0.0, 0.5, 1.0):
            builders.append(
                (
                    f"IR(eps2={split:g}ε)",
                    lambda s=split: po.mechanisms.independent_reporting_at(ball, inst.eps, s * inst.eps),
                )
            )
            builders.append(
                (
                    f"CR(eps2={split:g}ε)",
                    lambda s=split: po.mechanisms.conditional_reporting_at(ball, inst.eps, s * inst.eps),
                )
            )
    if inst.definition == "LIP" and inst.set_kind == "point":
        P = po.JointDistribution(inst.prior)
        builders.append(("GRR-LIP", lambda: po.mechanisms.grr_calibrated_lip(P, inst.eps, inst.on)))
    if inst.definition == "PML" and inst.set_kind in ("point", "l1") and n == 2:
        p = inst.prior.ravel()
        beta = inst.radius if inst.set_kind == "l1" else 0.0
        order = [0, 1] if p[0] >= p[1] else [1, 0]  # the theorem's x1 is the likelier input
        builders.append(
            ("PML-binary", lambda: po.mechanisms.binary_pml_mechanism(float(p[order[0]]), beta, inst.eps))
        )
    for name, build in builders:
        try:
            matrix = build().matrix
        except po.PrivoptError:  # outside the mechanism's own range (its theorem's conditions)
            continue
        if name == "PML-binary" and order[0] == 1:
            matrix = matrix[[1, 0]]
        if matrix.shape[0] == n:
            yield name, matrix


def explicit_floor(inst: Instance, points: list[np.ndarray], exact: bool) -> list[tuple[str, float]]:
    """``(name, value)`` of the explicit mechanisms whose value the optimum must reach: those the audit
    accepts, when ``points`` describe the set exactly. Over an inner approximation (a Rényi ball; a
    polytope, ℓ1 ball or simplex for statistics not affine in ``P``) privopt compiles a rectangular
    cone over envelopes inside the simplex (docs/compiler.md §1), which contains a mechanism only if
    it satisfies the pairs for *independent* points of the simplex: so the floor takes only mechanisms
    that pass ε-LDP on their inputs (which implies every pair of conditionals and of a conditional
    against the marginal at any distributions) — for LDP w.r.t. S, those that pass Prop. 3's simplex
    condition — and none for general ratio constraints (statistics such as ``weights`` are not
    implied by LDP)."""
    out = []
    for name, W in explicit_mechanisms(inst):
        if concave(inst) and W.shape[1] != _gain(inst).shape[1]:
            continue
        if exact:
            accepted = audit_excess(inst, W, points, EXPLICIT_RTOL) <= 1.0
        elif inst.definition == "RatioConstraints":
            accepted = False
        elif inst.definition == "SensitiveLDP":
            simplex = Instance(**{**inst.__dict__, "set_kind": "simplex"})
            accepted = (
                audit_excess(simplex, W, set_points(simplex, np.random.default_rng(0))[0], EXPLICIT_RTOL)
                <= 1.0
            )
        else:
            ldp = Instance(**{**inst.__dict__, "definition": "LDP", "set_kind": "none"})
            accepted = audit_excess(ldp, W, [inst.prior], EXPLICIT_RTOL) <= 1.0
        if accepted:
            out.append((name, utility_value(inst, W)))
    return out


# ---------------------------------------------------------------------- one instance
@dataclass
class Outcome:
    """What checking one instance found: ``failures`` are violated properties (empty: it passed)."""

    inst: Instance
    status: str = "solved"  # or "refused: <privopt error class>"
    route: str = ""
    failures: list[str] = field(default_factory=list)
    exact_compared: bool = False
    bound_compared: bool = False
    floors: int = 0
    routes_compared: int = 0
    refusal: str = ""

    def fail(self, message: str) -> None:
        self.failures.append(f"{self.inst.describe()}: {message}")


def _scale(value: float) -> float:
    return max(1.0, abs(value))


def _solve(
    problem: po.Problem, outcome: Outcome, route: str = "auto"
) -> po.Solution | po.PrivoptError | None:
    """``problem.solve(route)``, a privopt error it raised, or ``None`` after recording any other
    exception as a failure (property 1)."""
    try:
        return problem.solve(route)
    except po.PrivoptError as exc:
        return exc
    except Exception as exc:  # the property under test: no raw exception escapes
        outcome.fail(f"route={route}: raw {type(exc).__name__}: {exc}")
        return None


def _check_mechanism(
    inst: Instance, outcome: Outcome, solution: po.Solution, points: list[np.ndarray], where: str
) -> None:
    W = solution.mechanism.matrix
    if not (np.all(W >= -CHANNEL_ATOL) and np.allclose(W.sum(axis=1), 1.0, rtol=0, atol=CHANNEL_ATOL)):
        outcome.fail(f"{where}: not a channel (min {W.min():.3g}, row sums {W.sum(axis=1)})")
        return
    excess = audit_excess(inst, W[:, W.max(axis=0) > 0], points)
    if excess > 1.0:
        outcome.fail(f"{where}: fails the brute-force audit ({excess:.3g} × the tolerance)")
    own = utility_value(inst, W)
    if abs(own - solution.value) > VALUE_RTOL * _scale(own):
        outcome.fail(f"{where}: value {solution.value!r}, but its mechanism's utility is {own!r}")


def _brute_force(inst: Instance, points: list[np.ndarray], slack: float = 0.0) -> float | str | None:
    """The optimum over the cone at ``points`` (exact vertices, or an LP for a linear utility) at
    ε + ``slack``; ``None``: infeasible; ``"large"``: too large to enumerate."""
    if slack > 0.0:
        inst = Instance(**{**inst.__dict__, "eps": inst.eps + slack})
    if concave(inst):
        return concave_lp_optimum(inst, points)
    rows = exact_rows(inst, points)
    vertices = slice_vertices(rows, inst.n_inputs)
    if vertices is None:
        return "large"
    return vertex_lp_optimum(inst, vertices)


def _stated(outcome: Outcome, exc: po.PrivoptError) -> None:
    """Record a refusal; one that is not among :data:`STATED_REFUSALS` is a failure."""
    outcome.status, outcome.refusal = f"refused: {type(exc).__name__}", str(exc)
    if not any(isinstance(exc, kind) and phrase in str(exc) for kind, phrase, _ in STATED_REFUSALS):
        outcome.fail(f"refused with {type(exc).__name__}, not a stated limit: {exc}")


def _route_limit(route: str, exc: po.PrivoptError) -> bool:
    """A route's stated limit: the closed form says when none applies; the vertex route refuses a cone
    whose McMullen bound exceeds ``vertex_limit`` (auto then takes column generation)."""
    if route == "closed_form":
        return isinstance(exc, po.ValidationError) and exc.argument == "route"
    return route == "vertex" and isinstance(exc, po.LimitError) and "vertex_limit" in str(exc)


def check_instance(seed: int, routes: bool = True) -> Outcome:
    """Check every property of the module docstring on instance ``seed``."""
    inst = make_instance(seed)
    outcome = Outcome(inst)
    try:
        problem = build_problem(inst)
    except po.PrivoptError as exc:  # refused when stated (e.g. LIP over the simplex): counted
        _stated(outcome, exc)
        return outcome
    except Exception as exc:  # the property under test
        outcome.fail(f"construction: raw {type(exc).__name__}: {exc}")
        return outcome
    rng = np.random.default_rng([seed, 51])
    points, samples, exact = set_points(inst, rng)
    solution = _solve(problem, outcome)
    if solution is None:
        return outcome
    bound_points = points if exact else points + samples[:BOUND_SAMPLES]
    if isinstance(solution, po.PrivoptError):
        _stated(outcome, solution)
        if isinstance(solution, po.InfeasibleError) and exact:
            optimum = _brute_force(inst, points)
            outcome.exact_compared = optimum != "large"
            if isinstance(optimum, float):
                outcome.fail(f"InfeasibleError ({solution}), but a brute-force optimum {optimum!r} exists")
        return outcome
    outcome.route = solution.route
    _check_mechanism(inst, outcome, solution, points + samples, "auto")
    lower, upper = solution.lower, solution.upper
    optimal = solution.status in (po.Status.OPTIMAL, po.Status.OPTIMAL_WITHIN_GAP)
    tol = (CONCAVE_RTOL if concave(inst) else VALUE_RTOL) * _scale(upper)
    # Property 4: the optimum is at least every explicit mechanism's value that lies in the cone.
    for name, value in explicit_floor(inst, points, exact):
        outcome.floors += 1
        if (lower if optimal else upper) < value - tol:
            outcome.fail(
                f"value {lower!r} (upper {upper!r}) below {name}'s {value!r}, which the audit accepts"
            )
    # Property 5: equal to the exact optimum over the cone built here (exact sets); never above the
    # optimum of a relaxation (constraints at some of the set's distributions) otherwise.
    optimum = _brute_force(inst, bound_points)
    if optimum is None:
        outcome.fail("solved, but the brute-force cone has no mechanism")
    elif isinstance(optimum, float):
        # Above: privopt's mechanism passes the audit at ε (+ its slack), so its value is at most the
        # optimum at ε + EPS_SLACK (computed only when it exceeds the one at ε: degenerate cones).
        relaxed = _brute_force(inst, bound_points, EPS_SLACK) if lower > optimum + tol else optimum
        above = not (isinstance(relaxed, float) and lower <= relaxed + tol)
        if exact:
            outcome.exact_compared = True
            if above or optimum > upper + tol or (optimal and lower < optimum - tol):
                outcome.fail(
                    f"[{lower!r}, {upper!r}] ({solution.route}) but the exact optimum is {optimum!r}"
                )
        else:
            outcome.bound_compared = True
            if above:
                outcome.fail(f"value {lower!r} above the relaxation's optimum {optimum!r}")
    # Property 6: the routes that apply agree within their gaps.
    if routes and not concave(inst):
        intervals = {solution.route: (lower, upper)}
        for route in ("vertex", "colgen", "closed_form"):
            if route in intervals:
                continue
            other = _solve(problem, outcome, route)
            if isinstance(other, po.Solution):
                _check_mechanism(inst, outcome, other, points + samples, route)
                intervals[route] = (other.lower, other.upper)
            elif isinstance(other, po.PrivoptError) and not _route_limit(route, other):
                outcome.fail(f"route={route} refused a problem auto solved: {type(other).__name__}: {other}")
        outcome.routes_compared = len(intervals)
        top = max(low for low, _ in intervals.values())
        bottom = min(high for _, high in intervals.values())
        if top > bottom + ROUTE_RTOL * _scale(bottom):
            outcome.fail(f"routes disagree: {intervals}")
    return outcome


# ---------------------------------------------------------------------- the sweeps
@functools.cache
def outcome_of(seed: int) -> Outcome:
    """:func:`check_instance`, once per seed and session (the summary test reads the per-seed ones)."""
    return check_instance(seed)


@dataclass
class Summary:
    """Counts over a sweep (reported by the slow test, and in docs/compiler.md)."""

    instances: int = 0
    solved: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    raw_exceptions: int = 0
    disagreements: int = 0
    exact: int = 0
    bounded: int = 0
    floors: int = 0
    route_checks: int = 0
    combinations: Counter[tuple[str, str]] = field(default_factory=Counter)
    solved_combinations: set[tuple[str, str]] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        inst = outcome.inst
        self.instances += 1
        key = (inst.definition, inst.set_kind)
        self.combinations[key] += 1
        if outcome.status == "solved":
            self.solved += 1
            self.solved_combinations.add(key)
        else:
            self.refused[outcome.status] += 1
        raw = [f for f in outcome.failures if ": raw " in f]
        self.raw_exceptions += len(raw)
        self.disagreements += len(outcome.failures) - len(raw)
        self.exact += outcome.exact_compared
        self.bounded += outcome.bound_compared
        self.floors += outcome.floors
        self.route_checks += outcome.routes_compared > 1
        self.failures += outcome.failures

    def __str__(self) -> str:
        refused = ", ".join(f"{n} {k.removeprefix('refused: ')}" for k, n in sorted(self.refused.items()))
        return (
            f"{self.instances} instances ({len(self.combinations)} definition × set combinations): "
            f"{self.solved} solved, refused with a stated limit: {refused or 'none'}; "
            f"{self.raw_exceptions} raw exceptions, {self.disagreements} disagreements; "
            f"{self.exact} equal to the exact brute-force optimum, {self.bounded} below a relaxation's, "
            f"{self.floors} explicit mechanisms checked below the optimum, {self.route_checks} with two or "
            "more routes compared"
        )


def sweep(seeds: range) -> Summary:
    summary = Summary()
    for seed in seeds:
        summary.add(outcome_of(seed))
    return summary


def assert_covering(summary: Summary, seeds: range) -> None:
    """The sweep is not vacuous: every definition × set was generated and most of them solved, the
    exact comparisons and the route cross-checks ran, and the grid's extremes were drawn."""
    assert set(summary.combinations) == set(DEFINITION_SETS)
    unsolved = set(DEFINITION_SETS) - summary.solved_combinations
    assert len(unsolved) <= len(DEFINITION_SETS) // 6, f"never solved: {sorted(unsolved)}"
    assert summary.solved >= summary.instances // 2
    assert summary.exact >= summary.instances // 4
    assert summary.bounded >= summary.instances // 20
    assert summary.route_checks >= summary.instances // 4
    assert summary.floors >= summary.instances
    instances = [make_instance(seed) for seed in seeds]
    assert {inst.degeneracy for inst in instances} == {"none", "zero", "near_zero", "single"}
    assert min(inst.eps for inst in instances) <= 0.0
    assert max(inst.eps for inst in instances) > 6.0
    assert {inst.shape for inst in instances} >= {(1, 1), (3, 3)}
    assert {inst.utility for inst in instances} == {"mi", "tv", "hellinger", "kl", "gain", "distortion"}


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
def test_random_instance(seed: int) -> None:
    """Properties 1–6 of the module docstring on instance ``seed`` (``check_instance(seed)`` reproduces)."""
    outcome = outcome_of(seed)
    assert not outcome.failures, "\n".join(outcome.failures)


def test_the_default_sweep_covers_the_grid() -> None:
    summary = sweep(DEFAULT_SEEDS)
    assert not summary.failures, "\n".join(summary.failures)
    assert_covering(summary, DEFAULT_SEEDS)


@pytest.mark.slow
def test_the_slow_sweep(capsys: pytest.CaptureFixture[str]) -> None:
    """1,000 further instances: 0 raw exceptions and 0 disagreements (the counts go to docs/compiler.md)."""
    summary = sweep(SLOW_SEEDS)
    with capsys.disabled():
        print(f"\nrandom-instance sweep, seeds {SLOW_SEEDS.start}–{SLOW_SEEDS.stop - 1}: {summary}")
    assert not summary.failures, "\n".join(summary.failures)
    assert summary.instances == 1000
    assert_covering(summary, SLOW_SEEDS)


# ---------------------------------------------------------------------- the command line
#: Instances whose specs go through ``privopt design --json`` (definitions and sets of every kind).
CLI_SEEDS = range(200, 236, 3)


def spec_text(inst: Instance) -> str:
    """The instance as a spec file: written here from docs/spec-format.md for the built-in definitions
    over their sets, by ``Problem.to_spec`` for the declarative ones (the writer is then under test too)."""
    if inst.definition not in ("LDP", "SensitiveLDP", "LIP", "PML"):
        return build_problem(inst).to_spec()
    definition: dict[str, Any] = {"kind": inst.definition, "eps": inst.eps}
    if inst.on == "u":
        definition["on"] = "u"
    document: dict[str, Any] = {"data": {"probabilities": inst.prior.tolist()}, "definition": definition}
    if inst.definition != "LDP":
        kinds = {"point": {}, "simplex": {}, "l1": {"radius": inst.radius}}
        kinds["renyi"] = {"radius": inst.radius, "order": inst.order}
        kinds["finite"] = {"distributions": [m.tolist() for m in inst.members]}
        kinds["polytope"] = {"vertices": [m.ravel().tolist() for m in inst.members]}
        document["set"] = {"kind": inst.set_kind, **kinds[inst.set_kind]}
    utility: dict[str, Any] = {"kind": "mi"}
    if inst.utility in ("tv", "hellinger", "kl"):
        p = inst.utility_args
        utility = {"kind": "fdivergence", "f": inst.utility, "p0": p["p0"].tolist(), "p1": p["p1"].tolist()}
    elif inst.utility == "gain":
        utility = {"kind": "gain", "gain": inst.utility_args["gain"].tolist()}
    elif inst.utility == "distortion":
        utility = {"kind": "distortion", "loss": "hamming"}
    document["utility"] = utility
    document["options"] = {"colgen": {"time_limit": COLGEN_SECONDS}}
    return to_toml(document)


@pytest.mark.parametrize("seed", CLI_SEEDS)
def test_random_specs_from_the_command_line(seed: int) -> None:
    """Exit 0 with JSON whose mechanism passes the brute-force audit and has the value the Python API
    finds; or a one-line error with exit 2, 3 or 4 for a problem the API refuses too — never 70."""
    inst = make_instance(seed)
    outcome = outcome_of(seed)
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "spec.toml"
        try:
            spec.write_text(spec_text(inst))
        except po.PrivoptError:  # the problem cannot be built: the API refused it first
            assert outcome.status.startswith("refused"), outcome.inst.describe()
            return
        result = CliRunner().invoke(app, ["design", str(spec), "--json", "--quiet", "--out", folder])
        if result.exit_code != 0:
            assert result.exit_code in (2, 3, 4), (inst.describe(), result.output)
            assert result.stderr.count("\n") == 1, result.stderr
            assert result.stderr.startswith("error: "), result.stderr
            assert json.loads(result.stdout)["error"]["exit_code"] == result.exit_code
            assert outcome.status.startswith("refused"), (inst.describe(), result.stderr)
            return
        reply = json.loads(result.stdout)
        W = pd.read_csv(Path(folder) / "mechanism.csv", index_col=0).to_numpy()
    assert outcome.status == "solved", (inst.describe(), outcome.refusal)
    rng = np.random.default_rng([seed, 51])
    points, samples, _ = set_points(inst, rng)
    assert np.all(W >= -CHANNEL_ATOL)
    assert np.allclose(W.sum(axis=1), 1.0, rtol=0, atol=CHANNEL_ATOL)
    assert audit_excess(inst, W[:, W.max(axis=0) > 0], points + samples) <= 1.0, inst.describe()
    value = utility_value(inst, W)
    tol = (CONCAVE_RTOL if concave(inst) else VALUE_RTOL) * _scale(value)
    assert abs(reply["value"] - value) <= tol, (inst.describe(), reply["value"], value)
    api = build_problem(inst).solve()
    assert api.lower - tol <= reply["upper"], inst.describe()  # the two intervals overlap
    assert reply["lower"] <= api.upper + tol, inst.describe()
    assert reply["rows"][0]["satisfied"] is True


# ---------------------------------------------------------------------- what the sweep found
# Each bug the sweeps found, as the smallest problem that showed it (each failed before its fix).


def test_a_one_by_one_concave_problem_solves() -> None:
    """cvxpy's gradient of a 1 × 1 expression is a number, not a sparse matrix (seed 6)."""
    solution = po.Problem(po.LDP(0.5), po.ExpectedGain([1.0], [[1.0]])).solve()
    assert solution.status is po.Status.OPTIMAL
    assert solution.value == pytest.approx(1.0, abs=CONCAVE_RTOL)


@pytest.mark.parametrize(
    "F", [po.Simplex((2, 2)), po.Polytope([[0.1, 0.2, 0.3, 0.4], [0.25] * 4], shape=(2, 2))]
)
def test_one_record_secrets_over_sets_without_labels(F: Any) -> None:
    """A one-record secret is the input itself: over a set without a reference distribution the inputs
    are 0, 1, ... (seed 26); the policy is LDP between the two records."""
    eps, p = 0.7, np.full(4, 0.25)
    policy = po.Pufferfish({"a": [(0, 0)], "b": [(1, 1)]}, [("a", "b")], eps, F)
    pairs = po.RatioConstraints(
        [(po.given(x=0), po.given(x=3)), (po.given(x=3), po.given(x=0))], eps, n_inputs=4
    )
    value = po.Problem(policy, po.MutualInformation(p)).solve().value
    assert value == pytest.approx(po.Problem(pairs, po.MutualInformation(p)).solve().value, rel=VALUE_RTOL)


def test_reporting_mechanisms_with_one_public_value() -> None:
    """``|U| = 1``: each projection of the ball is a point, of ℓ1 radius 0, at every order (seed 109)."""
    F = po.RenyiBall([[0.5], [0.3], [0.2]], 0.2, order=3.0)
    assert F.l1_radius(0) == 0.0
    for build in (po.mechanisms.independent_reporting_at, po.mechanisms.conditional_reporting_at):
        W = build(F, 1.0, 0.5).matrix
        assert np.allclose(W.sum(axis=1), 1.0, rtol=0, atol=CHANNEL_ATOL)


def test_total_variation_at_eps_zero() -> None:
    """At ε = 0 the cone is one of equalities and the uniform column meets its rows with equality: a
    design column off by rounding (1e-16) could not be repaired and was dropped (SolverError)."""
    P = po.JointDistribution(
        [[0.03890505753049838, 0.6069692396459394], [0.16816262038349344, 0.1859630824400687]]
    )
    p1 = [0.01438322257844226, 0.3698574866739991, 0.5041330519288101, 0.11162623881874857]
    solution = po.Problem(po.LIP(0.0, po.L1Ball(P, 0.01)), po.FDivergence("tv", P.p_x, p1)).solve()
    assert solution.certificate.audit_passed


def test_column_generation_with_a_near_zero_prior() -> None:
    """HiGHS called a point optimal that missed the slice's normalisation Σw = 1 (rows of 1e-12 and
    1e3): the pricing column was 0/0, and the NaN was blamed on the built-in μ (CallableError)."""
    prior = [1.030710248695105e-12, 0.9999999999989693]
    F = po.Polytope([prior, [0.5477551926882941, 0.45224480731170585]], shape=(2, 1))
    policy = po.Pufferfish({"e0": [1], "e1": [0, 1]}, [("e0", "e1"), ("e0", "e1")], 6.954063170373544, F)
    problem = po.Problem(policy, po.MutualInformation(prior), colgen={"time_limit": 3.0, "workers": 1})
    vertex = problem.solve()
    colgen = problem.solve("colgen")
    assert colgen.lower <= vertex.upper + VALUE_RTOL
    assert vertex.lower <= colgen.upper + VALUE_RTOL


def test_a_design_from_near_zero_coefficients_is_enumerated_exactly() -> None:
    """Rows with coefficients ~1e-12 fool a floating-point enumeration into a vertex just outside the
    cone; the design failed its own audit (seed 226). It is now enumerated again exactly."""
    tiny = 1.6e-12
    P = po.JointDistribution(np.array([[0.8753, tiny], [0.1247, tiny]]) / (1.0 + 2 * tiny))
    everything = [(0, 0), (0, 1), (1, 0), (1, 1)]
    policy = po.Pufferfish(
        {"all": everything, "a": [(1, 0)], "b": [(1, 1)]}, [("all", "a"), ("all", "b")], 3.25, P
    )
    solution = po.Problem(policy, po.MutualInformation(P)).solve()
    exact = po.Problem(policy, po.MutualInformation(P), backend="ppl").solve()
    assert solution.certificate.audit_passed
    assert solution.value == pytest.approx(exact.value, rel=VALUE_RTOL)


def test_design_from_the_command_line_with_one_likely_input(tmp_path: Path) -> None:
    """``H(X) = 0``: the NMI column has no value, and the design is written (seed 230: exit 70)."""
    spec = tmp_path / "spec.toml"
    spec.write_text(
        to_toml({"data": {"probabilities": [[1.0, 0.0]]}, "definition": {"kind": "LDP", "eps": 1.0}})
    )
    result = CliRunner().invoke(app, ["design", str(spec), "--json", "--quiet", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["rows"][0]
    assert math.isnan(row["nmi"])
    assert row["satisfied"] is True


def test_column_generation_for_ldp_at_eps_zero() -> None:
    """ε = 0: the staircase pricer divided by e^ε − 1 (raw ZeroDivisionError); it now declines."""
    solution = po.Problem(po.LDP(0.0), po.MutualInformation([0.5845, 0.4155])).solve("colgen")
    assert solution.value == pytest.approx(0.0, abs=VALUE_RTOL)


def test_an_l1_ball_on_one_symbol() -> None:
    """One symbol: the ball's vertex list was empty (raw ValueError in the rectangular rule)."""
    solution = po.Problem(po.LIP(1.0, po.L1Ball([[1.0]], 0.0)), po.MutualInformation([1.0])).solve()
    assert solution.mechanism.matrix.shape == (1, 1)


def test_linear_extremes_of_a_renyi_ball_with_a_near_zero_centre_entry() -> None:
    """Around ``P̂ = (2e-12, 1 − 2e-12)`` at order 3, ``D_3(P̂ || P) ≈ −log P(1)``: the smallest
    ``P(1)`` on the ball is ``e^{−B}``. The search for the multiplier stopped at ``λ − max c = e^-60``
    and reported 0.999 (an unsound cone and audit); beyond double precision it now refuses."""
    B = 0.18884679985964162
    F = po.RenyiBall([[2.118196323027479e-12, 0.9999999999978818]], B, order=3.0)
    assert F.joint_extremes(np.eye(2))[0][1] == pytest.approx(math.exp(-B), rel=1e-9)
    with pytest.raises(po.NotSupportedError, match="beyond double precision"):
        po.RenyiBall([[1e-100, 1.0]], B, order=10.0).joint_extremes(np.eye(2))


@pytest.mark.parametrize(
    ("prior", "eps"),
    [
        ([[0.2, 0.3], [0.1, 0.4]], 1.0),
        ([[0.0379, 0.8723], [0.0898, 1.03e-12]], 3.8),  # a near-zero conditional entry: ξ⁻ lost digits
        ([[0.129, 0.018], [0.120, 0.018], [0.379, 0.336]], 0.0),  # B_s came out 1e-16, not 0
    ],
)
@pytest.mark.parametrize("definition", [po.SensitiveLDP, po.LIP, po.PML])
def test_a_renyi_ball_of_radius_zero_is_its_centre(
    definition: Callable[..., Any], prior: list[list[float]], eps: float
) -> None:
    """``B = 0``: the ball and its conditional projections are the centre, exactly (the point envelope
    was refused; then rounding in ``B_s`` and ``ξ±`` left envelopes 1e-8 wide and audits 1e-6 off)."""
    P = po.JointDistribution(np.array(prior) / np.sum(prior))
    ball = po.Problem(definition(eps, po.RenyiBall(P, 0.0)), po.MutualInformation(P)).solve()
    point = po.Problem(definition(eps, P), po.MutualInformation(P)).solve()
    assert ball.value == pytest.approx(point.value, rel=VALUE_RTOL, abs=VALUE_RTOL)


@pytest.mark.parametrize(
    "definition",
    [
        po.LIP(
            0.0, po.JointDistribution([[0.6105165993774814, 0.058676534436933], [0.3308068661855856, 0.0]])
        ),
        po.MetricLDP(
            7.282865223854325,
            [
                [0, 2.082, 2.311, 2.598],
                [1.049, 0, np.inf, 0.677],
                [np.inf, 2.054, 0, 2.180],
                [2.799, 2.536, 1.981, 0],
            ],
        ),
    ],
)
def test_linear_utilities_are_solved_as_linear_programs(definition: po.PrivacyDefinition) -> None:
    """An interior-point solution left ~1e-9 where the optimum has zeros: at ε = 0 a ratio of that noise
    failed the audit (SolverError), and with near-zero priors Clarabel stopped 'optimal_inaccurate'."""
    p = np.array([0.6105165993774814, 0.058676534436933, 0.3308068661855856, 0.0])
    if isinstance(definition, po.MetricLDP):
        p = np.array([1.878e-12, 0.3388415177265159, 1.878e-12, 0.6611584822697281 - 3.756e-12])
    utility = po.ExpectedGain(p, np.eye(4)) if isinstance(definition, po.LIP) else po.ExpectedDistortion(p)
    solution = po.Problem(definition, utility).solve()
    assert solution.status is po.Status.OPTIMAL
    assert solution.certificate.audit_passed


def test_metric_ldp_with_factors_beyond_1e15() -> None:
    """ε·d up to 35: HiGHS refused the pricing LP's model (an entry above 1e15) and left it empty, and
    floating-point enumeration found no vertex, reported as InfeasibleError — yet the constant column
    is always in a metric cone."""
    d = [
        [0.0, np.inf, 2.4011388017570567, 2.057034716541564],
        [np.inf, 0.0, 2.9875680464423735, 0.8935141969270015],
        [2.8633293261711437, 0.5119334346161427, 0.0, np.inf],
        [0.4909097930645532, 1.281060127525707, 0.3102350069697782, 0.0],
    ]
    tiny = 7.322509672938557e-12
    problem = po.Problem(
        po.MetricLDP(11.70212300282122, d), po.MutualInformation([tiny, tiny, 1.0 - 3 * tiny, tiny])
    )
    vertex, colgen = problem.solve("vertex"), problem.solve("colgen")
    assert colgen.lower <= vertex.upper + VALUE_RTOL
    assert vertex.lower <= colgen.upper + VALUE_RTOL


def test_a_linear_program_with_near_zero_cone_entries() -> None:
    """HiGHS drops matrix entries below 1e-9 unless told otherwise: with P(S=1) = 7e-12 the LP's
    design ignored them and failed its audit (Clarabel stops 'optimal_inaccurate' there)."""
    tiny = 3.2570765220148115e-12
    P = po.JointDistribution([[tiny, 1.0 - 3 * tiny], [tiny, tiny]])
    gain = [[0.204, 0.78], [0.031, 0.954], [0.105, 0.73], [0.436, 0.908]]
    solution = po.Problem(po.LIP(12.6144, P), po.ExpectedGain(P, gain)).solve()
    assert solution.certificate.audit_passed
