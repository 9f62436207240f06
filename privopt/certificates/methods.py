"""The checker's methods for slice bounds, in one registry (docs/compiler.md §4, "Certificates").

A slice bound claims ``δ̄ >= max {R(w) : w ∈ K}``, ``R = (μ(w) − λᵀw)/νᵀw``. Each :class:`CheckMethod`
says whether it applies to a claim (``applicable(context)``: ``None``, or a
:class:`~privopt.certificates.NotProved` saying why not) and proves what it can (``prove(context)``): a
:class:`Proof` — the bound on ``max R`` it proved (``inf`` for none), the best column it met (which
refutes the claim if its ratio, recomputed by the verdict, exceeds it), what it did and, when its bound
is above the claim, why — or a :class:`~privopt.certificates.NotProved`.
:func:`privopt.certificates.check_bound` tries the registered methods by priority: the first that
applies proves, and when it cannot within its time (its NotProved says why) the next that applies
tries, until the deadline; adding a method for a new cone or utility is one
:func:`register_check_method` call (docs/custom-definitions.md, "Your own pricer"), and the methods
shipped here are registered below, each over its own module of this package: none imports a route, and
each recomputes ``μ`` itself.
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from privopt.certificates import (
    envelope,
    fdivergence,
    graph,
    lagrangian,
    lip,
    piecewise,
    spatial,
    staircase,
    tree,
    vertices,
)
from privopt.certificates.outcome import NotProved, NotProvedReason
from privopt.compiler.cone import RowCone
from privopt.compiler.estimate import VertexEstimate
from privopt.errors import ValidationError
from privopt.utilities import SubConvexUtility
from privopt.validation import FloatArray


@dataclass(frozen=True)
class Proof:
    """What one method proved about ``max R`` over the cone (module docstring)."""

    #: ``max R <= bound`` is proved (``inf``: nothing was).
    bound: float
    #: The best column the method met (``None``: none kept); the verdict recomputes its ratio.
    column: FloatArray | None
    #: What the method did, e.g. ``"12 LPs"``.
    work: str
    #: Why ``bound`` is not below the claim, when it is not (a deadline, a budget).
    reason: str = ""


class SliceContext:
    """One claim as the methods see it: the cone, the utility, ``λ``, ``ν``, the claimed ``δ̄``, the
    limit a proof must reach (the claim plus the comparison's tolerance) and the deadline; the cone's
    forms are read once, on first use."""

    def __init__(
        self,
        cone: RowCone,
        utility: SubConvexUtility,
        duals: FloatArray,
        weights: FloatArray,
        claim: float,
        limit: float,
        deadline: float,
    ) -> None:
        self.cone, self.utility = cone, utility
        self.duals, self.weights = duals, weights
        self.claim, self.limit, self.deadline = claim, limit, deadline

    @functools.cached_property
    def envelope_form(self) -> envelope.EnvelopeForm | NotProved:
        return envelope.envelope_form(self.cone)

    @functools.cached_property
    def lip_form(self) -> lip.LipForm | NotProved:
        return lip.lip_form(self.cone)

    @functools.cached_property
    def tree_form(self) -> tree.TreeForm | NotProved:
        return tree.tree_form(self.cone)

    @functools.cached_property
    def graph_form(self) -> graph.GraphForm | NotProved:
        return graph.graph_form(self.cone)

    @functools.cached_property
    def pieces(self) -> FloatArray | NotProved:
        return piecewise.pieces(self.utility, self.cone.n_inputs)


@dataclass(frozen=True)
class CheckMethod:
    """A way of proving slice bounds: ``applicable(context)`` is ``None`` when it applies (else a
    :class:`~privopt.certificates.NotProved` saying why not), ``prove(context)`` returns its
    :class:`Proof` or a :class:`~privopt.certificates.NotProved` saying why it failed; ``description``
    names it in every :class:`~privopt.certificates.CertificateCheck`; methods are tried by ``priority``
    (lowest first). The checker calls them through :func:`applicability` and :func:`attempt`."""

    name: str
    description: str
    priority: int
    applicable: Callable[[SliceContext], NotProved | None]
    prove: Callable[[SliceContext], Proof | NotProved]


#: The registered methods, by priority (:func:`register_check_method`).
METHODS: list[CheckMethod] = []


def register_check_method(method: CheckMethod) -> CheckMethod:
    """Register ``method`` (replacing one of the same name); the registry stays sorted by priority."""
    if not isinstance(method, CheckMethod):
        raise ValidationError(
            "method", "a CheckMethod(name, description, priority, applicable, prove)", type(method).__name__
        )
    METHODS[:] = sorted([m for m in METHODS if m.name != method.name] + [method], key=lambda m: m.priority)
    return method


def unregister_check_method(name: str) -> None:
    """Remove the method called ``name`` (a no-op when there is none)."""
    METHODS[:] = [m for m in METHODS if m.name != name]


def applicability(method: CheckMethod, context: SliceContext) -> NotProved | None:
    """``method.applicable(context)``; a ``str`` from a user's method (deprecated) is read as a
    :class:`~privopt.certificates.NotProved` of reason ``CONE``."""
    return _typed(method, "applicable", method.applicable(context), NotProvedReason.CONE)


def attempt(method: CheckMethod, context: SliceContext) -> Proof | NotProved:
    """``method.prove(context)``; a ``str`` from a user's method (deprecated) is read as a
    :class:`~privopt.certificates.NotProved` of reason ``NUMERICS``."""
    return _typed(method, "prove", method.prove(context), NotProvedReason.NUMERICS)


_Outcome = TypeVar("_Outcome")


def _typed(
    method: CheckMethod, part: str, outcome: _Outcome | str, reason: NotProvedReason
) -> _Outcome | NotProved:
    if not isinstance(outcome, str):
        return outcome
    warnings.warn(
        f"the check method {method.name!r} returned a str from {part}; return a "
        "privopt.certificates.NotProved (a NotProvedReason and the message) instead: a str is deprecated",
        DeprecationWarning,
        stacklevel=3,
    )
    return NotProved(reason, outcome)


def method_for(context: SliceContext) -> tuple[CheckMethod | None, list[str]]:
    """The first registered method that applies, and why each before it does not."""
    chosen, refusals = methods_for(context)
    return (chosen[0] if chosen else None), refusals


def methods_for(context: SliceContext) -> tuple[list[CheckMethod], list[str]]:
    """Every registered method that applies, in order (the checker tries the next when one does not
    prove the claim in its time), and why each of the others does not."""
    chosen: list[CheckMethod] = []
    refusals: list[str] = []
    for method in METHODS:
        why = applicability(method, context)
        if why is None:
            chosen.append(method)
        else:
            refusals.append(f"{method.name}: {why}")
    return chosen, refusals


#: Where McMullen's bound puts a slice's vertices between 10^6 (below it the exact enumeration is the
#: method) and 10^this, the exact enumeration is tried first on :data:`TRIAL_SHARE` of the time left,
#: before SCIP's spatial branch and bound: McMullen's bound is far above most cones' counts (a 9-point
#: metric cone, 72 rows: 10^6.2 bound, 12,870 vertices in 5.3 s; per-input budgets on 10 inputs, 90
#: rows: 10^6.8 bound, 1,894 vertices in 0.5 s), where SCIP took minutes to prove a vertex LP's claim.
TRIAL_MAX_LOG10 = 12.0
TRIAL_SHARE = 0.25


def _seconds_left(context: SliceContext) -> float:
    return max(context.deadline - time.perf_counter(), 0.01)


# ----------------------------------------------------------------- the shipped methods
def _envelope_applies(context: SliceContext) -> NotProved | None:
    form = context.envelope_form
    if isinstance(form, NotProved):
        return form
    if envelope.work_estimate(form) > envelope.MAX_WORK:
        return NotProved(NotProvedReason.SIZE, "the envelope cone is too large to enumerate its products")
    return None


def _envelope_proof(context: SliceContext) -> Proof | NotProved:
    form = context.envelope_form
    assert not isinstance(form, NotProved)
    found = envelope.maximise_ratio(form, context.utility, context.duals, context.weights, context.deadline)
    if isinstance(found, NotProved):
        return found
    return Proof(found.value + found.margin, found.column, f"{found.points} points")


def _staircase_applies(context: SliceContext) -> NotProved | None:
    form = context.envelope_form
    if staircase.applies(form, context.utility):
        return None
    ldp = not isinstance(form, NotProved) and staircase.ldp_factor(form) is not None
    reason = NotProvedReason.UTILITY if ldp else NotProvedReason.CONE
    return NotProved(reason, "not an LDP cone with MI or an f-divergence")


def _staircase_proof(context: SliceContext) -> Proof | NotProved:
    form = context.envelope_form
    assert not isinstance(form, NotProved)
    found = staircase.maximise_ratio(
        form, context.utility, context.duals, context.weights, context.claim, context.limit, context.deadline
    )
    if isinstance(found, NotProved):
        return found
    bound = np.inf if found.refuting else found.value + found.margin
    return Proof(bound, found.column, f"{found.nodes:,} nodes")


def _lagrangian_applies(context: SliceContext) -> NotProved | None:
    form = context.envelope_form
    if isinstance(form, NotProved):
        return form
    return lagrangian.applicability(form, context.utility, context.weights)


def _lagrangian_proof(context: SliceContext) -> Proof:
    form = context.envelope_form
    assert not isinstance(form, NotProved)
    proof = lagrangian.prove_ratio_bound(
        form, context.utility, context.duals, context.weights, context.limit, context.deadline
    )
    work = f"{proof.points} points, {proof.intervals} intervals, {proof.nodes} nodes"
    return Proof(proof.upper, proof.column, work, proof.reason)


def _lip_applies(context: SliceContext) -> NotProved | None:
    if not isinstance(context.envelope_form, NotProved):
        return NotProved(NotProvedReason.OTHER_METHOD, "an envelope cone (its methods come first)")
    form = context.lip_form
    return form if isinstance(form, NotProved) else lip.applicable(form, context.utility, context.weights)


def _lip_proof(context: SliceContext) -> Proof | NotProved:
    form = context.lip_form
    assert not isinstance(form, NotProved)
    found = lip.maximise_ratio(form, context.utility, context.duals, context.deadline)
    if isinstance(found, NotProved):
        return found
    return Proof(found.value + found.margin, found.column, f"{found.points} points")


def _lattice_applies(
    context: SliceContext, form: Callable[[SliceContext], tree.LatticeForm | NotProved]
) -> NotProved | None:
    why = tree.applicability(context.utility, context.weights)
    if why is not None:
        return why
    read = form(context)
    return read if isinstance(read, NotProved) else None


def _lattice_proof(
    context: SliceContext, form: Callable[[SliceContext], tree.LatticeForm | NotProved]
) -> Proof:
    read = form(context)
    assert not isinstance(read, NotProved)
    proof = tree.prove_ratio_bound(
        read, context.utility, context.duals, context.weights, context.limit, context.deadline
    )
    return Proof(
        context.limit if proof.proved else np.inf, proof.column, f"{proof.nodes} nodes", proof.reason
    )


def _tree_form(context: SliceContext) -> tree.LatticeForm | NotProved:
    return context.tree_form


def _graph_form(context: SliceContext) -> tree.LatticeForm | NotProved:
    return context.graph_form


def _fdivergence_applies(context: SliceContext) -> NotProved | None:
    return fdivergence.applicable(context.utility, context.weights)


def _fdivergence_proof(context: SliceContext) -> Proof | NotProved:
    form = context.utility.perspective_form()
    assert form is not None
    found = fdivergence.maximise_ratio(
        context.cone, form, context.duals, context.weights, context.deadline, context.limit
    )
    if isinstance(found, NotProved):
        return found
    return Proof(found.value + found.margin, found.column, f"{found.points} LPs")


def _piecewise_applies(context: SliceContext) -> NotProved | None:
    if isinstance(context.pieces, NotProved):
        return context.pieces
    if not np.all(context.weights > 0.0):
        return NotProved(NotProvedReason.CLAIM, "the normalisation ν has a zero entry")
    return None


def _piecewise_proof(context: SliceContext) -> Proof | NotProved:
    pieces = context.pieces
    assert not isinstance(pieces, NotProved)
    found = piecewise.maximise_ratio(context.cone, pieces, context.duals, context.weights, context.deadline)
    if isinstance(found, NotProved):
        return found
    return Proof(found.value + found.margin, found.column, f"{found.points} LPs")


def _spatial_applies(context: SliceContext) -> NotProved | None:
    return spatial.applicable(context.cone, context.utility, context.weights)


def _spatial_proof(context: SliceContext) -> Proof | NotProved:
    found = spatial.maximise_ratio(
        context.cone, context.utility, context.duals, context.weights, context.limit, context.deadline
    )
    if isinstance(found, NotProved):
        return found
    return Proof(found.value + found.margin, found.column, f"{found.nodes:,} nodes", found.reason)


def _trial_applies(context: SliceContext) -> NotProved | None:
    log10 = VertexEstimate.for_slice(context.cone.n_inputs, context.cone.n_rows).log10_bound
    if log10 <= spatial.EXACT_FIRST_LOG10:
        return NotProved(
            NotProvedReason.OTHER_METHOD,
            "the exact enumeration takes the claim with the whole time (method 'vertices')",
        )
    if log10 > TRIAL_MAX_LOG10:
        return NotProved(
            NotProvedReason.SIZE, f"McMullen's bound, 10^{log10:.1f} vertices, is beyond a trial"
        )
    return None


def _trial_proof(context: SliceContext) -> Proof | NotProved:
    found = vertices.maximise_ratio(
        context.cone, context.utility, context.duals, context.weights, TRIAL_SHARE * _seconds_left(context)
    )
    if isinstance(found, NotProved):
        return NotProved(
            found.reason, f"the trial enumeration did not finish in its share of the time ({found})"
        )
    return Proof(found.value + found.margin, found.column, f"{found.vertices} vertices")


def _vertices_proof(context: SliceContext) -> Proof | NotProved:
    found = vertices.maximise_ratio(
        context.cone, context.utility, context.duals, context.weights, _seconds_left(context)
    )
    if isinstance(found, NotProved):
        return found
    return Proof(found.value + found.margin, found.column, f"{found.vertices} vertices")


for _method in (
    CheckMethod(
        "envelope", "envelope cone: every product of block vertices at every event of ρ", 10,
        _envelope_applies, _envelope_proof,
    ),
    CheckMethod(
        "staircase", "LDP cone: every staircase column, by the checker's own search", 20,
        _staircase_applies, _staircase_proof,
    ),
    CheckMethod(
        "lagrangian", "envelope cone: Lagrangian bounds, branch and bound over (s*, ρ) and block masses", 30,
        _lagrangian_applies, _lagrangian_proof,
    ),
    CheckMethod(
        "lip", "LIP cone: every vertex of the block masses, the best input of each block", 40,
        _lip_applies, _lip_proof,
    ),
    CheckMethod(
        "tree", "tree cone: Lagrangian bounds over lattice walks, bisection of level ranges", 50,
        lambda context: _lattice_applies(context, _tree_form),
        lambda context: _lattice_proof(context, _tree_form),
    ),
    CheckMethod(
        "graph",
        "graph cone: Lagrangian bounds over lattice walks, closures proved by LP duals, bisection, beside MIPs bounding −P log P by tangents",
        55,
        lambda context: _lattice_applies(context, _graph_form),
        lambda context: _lattice_proof(context, _graph_form),
    ),
    CheckMethod(
        "f-divergence hull",
        "f-divergence: the upper hull of (P0ᵀw, −λᵀw), lines proved by LP duals over the projected rows", 60,
        _fdivergence_applies, _fdivergence_proof,
    ),
    CheckMethod(
        "piecewise", "piecewise-linear utility: one LP per piece over the projected rows, proved by its duals",
        70, _piecewise_applies, _piecewise_proof,
    ),
    CheckMethod(
        "vertices trial",
        "exact vertex enumeration of the slice (pplpy, rational arithmetic), tried first on a share of the time",
        980, _trial_applies, _trial_proof,
    ),
    CheckMethod(
        "spatial",
        "any cone, entropy, power or perspective form: the checker's own model for SCIP's spatial branch and bound",
        990, _spatial_applies, _spatial_proof,
    ),
    CheckMethod(
        "vertices", "exact vertex enumeration of the slice (pplpy, rational arithmetic)", 1000,
        lambda context: None, _vertices_proof,
    ),
):  # fmt: skip
    register_check_method(_method)
