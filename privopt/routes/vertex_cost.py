"""How long vertex enumeration of a cone slice takes: the prediction behind ``route="auto"``.

McMullen's bound (:mod:`privopt.compiler.estimate`) holds for every input but is loose by orders of
magnitude on the papers' cones, so ``"auto"`` decides from *measured* enumeration times instead
(``python -m benchmarks.bench_vertex_cost`` re-measures them). :data:`MEASURED` is the slowest time seen
for the Γ cones of each shape (Jeffreys-drawn P̂, n ∈ {1,000, 32,561}, ε ∈ {0.5, 1, 2}, 2 cores). A
cone is predicted from the measurement of the same slice dimension with the nearest number of rows,
scaled by ``(rows / measured rows)^k`` with ``k = min(ROWS_EXPONENT, max(1, ⌊d/2⌋))`` — a slice of
dimension ``d`` has ``O(m^⌊d/2⌋)`` vertices (McMullen), so in low dimension the rows count for less
than the fit across dimensions says (LIP over a 2 × 2 ℓ1 ball, d = 3 and 336 rows, enumerates in
0.06 s; the exponent 3.24 predicted 3,090 s and sent it to a 25 s column generation); beyond the
measured dimensions, from the largest
one, times :data:`GROWTH_PER_DIMENSION` per extra dimension. At one size times vary by two orders of
magnitude with ε and the sample size (3×4: 1.6 s to 46 s), so the prediction is the slowest case: a
problem predicted slow goes to column generation, and one that overruns anyway falls back to it after
:data:`AUTO_VERTEX_SHARE` of the timeout. Cones the
vertex route enumerates through their one-variable lift (:func:`lifted_slice`) are predicted from
:data:`MEASURED_LIFTED` (the nearest measured dimension; beyond the largest, times the growth per
dimension).
"""

from __future__ import annotations

import json
import math
import sys
from importlib import resources

import numpy as np

from privopt.routes.base import ProblemData, per_problem
from privopt.routes.pricing import EnvelopePricer, Refusal, envelope_pricer
from privopt.routes.pricing.envelope import slice_objective
from privopt.routes.pricing.fdivergence import fdivergence_weights
from privopt.routes.pricing.lip import MAX_SENSITIVE as LIP_MAX_SENSITIVE
from privopt.routes.pricing.lip import LipPricer, lip_structure
from privopt.routes.pricing.staircase import staircase_pricer
from privopt.tolerances import PROBABILITY_ATOL
from privopt.utilities import PerspectiveForm, SubConvexUtility
from privopt.validation import FloatArray

#: Share of the solve's timeout that ``route="auto"`` gives vertex enumeration before falling back
#: to column generation.
AUTO_VERTEX_SHARE = 0.25

#: The measured times (``vertex_timings.json`` beside this module, written by
#: ``python -m benchmarks.bench_vertex_cost --write`` on the machine it runs on): data, not code.
_TIMINGS = json.loads(resources.files("privopt.routes").joinpath("vertex_timings.json").read_text())

#: ``(slice dimension |X| − 1, cone rows, slowest enumeration in seconds)`` of the Γ cones of 2×2, 2×3,
#: 3×2, 2×4, 3×3, 2×5, 2×6 and 3×4 (cdd validated, in this process or a forked child).
MEASURED: tuple[tuple[int, int, float], ...] = tuple(
    (int(d), int(rows), float(seconds)) for d, rows, seconds in _TIMINGS["projected"]
)

#: Slope of log(seconds) against log(rows) over :data:`MEASURED` (least squares).
ROWS_EXPONENT: float = float(_TIMINGS["rows_exponent"])

#: Growth of the slowest time per extra dimension (3×3 → 3×4: 0.2 s → 46 s over 3 dimensions).
GROWTH_PER_DIMENSION: float = float(_TIMINGS["growth_per_dimension"])

#: ``(slice dimension, slowest enumeration in seconds)`` of the *lifted* slices
#: (:func:`lifted_slice`) of the Γ cones with the s1 = s2 pairs, same shapes and settings as
#: :data:`MEASURED`.
MEASURED_LIFTED: tuple[tuple[int, float], ...] = tuple(
    (int(d), float(seconds)) for d, seconds in _TIMINGS["lifted"]
)


#: Exact pricing over block-vertex products (:mod:`privopt.routes.pricing.products`): the vertex
#: route uses it on envelope cones without self pairs when one ``(s*, ρ)``'s products have at most
#: this many combinations (4×3: 160,000; 3×4: 110,592; 2×6: 73,984; 3×5 and 4×4: over a million).
PRODUCT_EVENT_LIMIT = 200_000

#: Predicted seconds of a solve by exact product pricing on a cone within the limit (measured
#: 2026-11-26, PolyOpt cones at n = 1,000, ε = 1, without self pairs, 2 busy cores: 3×3 65–113 ms,
#: 2×5 54–100 ms, 2×6 0.38 s, 3×4 0.35 s, 4×3 0.47 s, in 10–21 rounds, check and audit included).
PRODUCT_SECONDS = 0.5


#: Exact product pricing replaces enumerations predicted to take longer than this. With the flat
#: combinations (:mod:`privopt.routes.pricing.products`), whole solves measured side by side on 5
#: PolyOpt instances each (ε = 1, n = 1,000, medians): 2×5 (predicted 0.125 s) 33.8 ms priced against
#: 46.7 ms enumerated; 2×4 (0.015 s) 20.1 against 19.0 ms; 2×3 (0.005 s) 15.3 against 11.1 ms.
PRODUCT_MIN_SECONDS = 0.05

#: The linear pieces' LP and the f-divergence hull replace enumerations predicted to take longer than
#: this.
PRICING_MIN_SECONDS = 0.15

#: Largest cone (inputs) on which the vertex route prices an f-divergence by its hull: the LP over
#: every vertex converges in seconds on 40 inputs (a metric cone: 11 s), but not within minutes on
#: Adult's 112 (1,100 rounds of 280 LPs left δ̄ at 0.05), where column generation goes on instead.
HULL_MAX_INPUTS = 64


@per_problem
def product_pricing(data: ProblemData) -> EnvelopePricer | None:
    """The envelope pricer whose block-vertex products the vertex route prices exactly over instead of
    enumerating (back end ``"auto"``, mutual information on an envelope cone without self pairs, small
    products, and an enumeration predicted to take longer than :data:`PRODUCT_MIN_SECONDS`), else ``None``."""
    if data.options.backend != "auto" or not isinstance(data.utility, SubConvexUtility):
        return None
    if predicted_vertex_seconds(data, lifted=False) <= PRODUCT_MIN_SECONDS:
        return None
    pricer = envelope_pricer(data.utility, data.cone)
    if isinstance(pricer, Refusal):
        return None
    structure = pricer.structure
    if structure.self_pairs or structure.hub is not None or structure.free.size:  # products of blocks only
        return None
    sizes = [2**block.size + block.size * 2 ** (block.size - 1) for block in structure.blocks]
    return pricer if float(np.prod(sizes, dtype=np.float64)) <= PRODUCT_EVENT_LIMIT else None


@per_problem
def lip_pricing(data: ProblemData) -> LipPricer | None:
    """The exact LIP pricer (:mod:`privopt.routes.pricing.lip`) when the cone is LIP's at a known
    distribution, the utility mutual information (or NMI) under that distribution and ``|S|`` small."""
    if data.options.backend != "auto" or not isinstance(data.utility, SubConvexUtility):
        return None
    if data.utility.entropy_form() is None:
        return None
    structure = lip_structure(data.cone)
    if isinstance(structure, Refusal) or structure.prior.size > LIP_MAX_SENSITIVE:
        return None
    objective = slice_objective(data.utility)
    if isinstance(objective, Refusal) or objective.weights.shape != structure.marginal.shape:
        return None
    if np.max(np.abs(objective.weights - structure.marginal)) > PROBABILITY_ATOL:
        return None  # the utility is measured under another distribution than the definition's
    return LipPricer(structure, objective)


@per_problem
def piecewise_pricing(data: ProblemData) -> FloatArray | None:
    """The linear pieces of a piecewise-linear utility (:mod:`privopt.routes.pricing.piecewise`) when
    the vertex route prices with them: back end ``"auto"`` and an enumeration predicted to take longer
    than :data:`PRICING_MIN_SECONDS`."""
    if data.options.backend != "auto" or not isinstance(data.utility, SubConvexUtility):
        return None
    pieces = data.utility.linear_pieces()
    if pieces is None or pieces.ndim != 2 or pieces.shape[1] != data.n_inputs:
        return None
    if predicted_vertex_seconds(data, lifted=lifted_slice(data) is not None) <= PRICING_MIN_SECONDS:
        return None
    return pieces


@per_problem
def fdivergence_pricing(data: ProblemData) -> tuple[PerspectiveForm, FloatArray] | None:
    """The perspective form and normalisation ``ν = (P0 + P1)/2`` of an f-divergence priced exactly on any cone
    (:mod:`privopt.routes.pricing.fdivergence`): back end ``"auto"``, ``ν`` positive, not total
    variation (one LP, :func:`piecewise_pricing`), not an LDP cone (staircase pricing), at most
    :data:`HULL_MAX_INPUTS` inputs, and an enumeration predicted to take longer than
    :data:`PRICING_MIN_SECONDS`."""
    utility = data.utility
    if data.options.backend != "auto" or not isinstance(utility, SubConvexUtility):
        return None
    form = utility.perspective_form()
    if form is None or form.kind == "tv":
        return None
    if data.n_inputs > HULL_MAX_INPUTS or not isinstance(staircase_pricer(utility, data.cone), Refusal):
        return None  # LDP cones: staircase pricing in column generation is faster and as exact
    weights = fdivergence_weights(form)
    if weights is None or weights.size != data.n_inputs:
        return None
    if predicted_vertex_seconds(data, lifted=lifted_slice(data) is not None) <= PRICING_MIN_SECONDS:
        return None
    return form, weights


def exact_pricing(data: ProblemData) -> bool:
    """Whether the vertex route solves the LP over every vertex by exact pricing instead of
    enumerating (block-vertex products on envelope cones, the LIP pricer, the hull of an
    f-divergence, or one LP per piece of a piecewise-linear utility): no vertex limit then."""
    return (
        product_pricing(data) is not None
        or lip_pricing(data) is not None
        or piecewise_pricing(data) is not None
        or fdivergence_pricing(data) is not None
    )


def _grown(seconds: float, dimensions: int) -> float:
    """``seconds`` grown by :data:`GROWTH_PER_DIMENSION` per dimension (``inf`` past a float's range:
    a 30×30 alphabet is 899 dimensions)."""
    exponent = math.log(seconds) + dimensions * math.log(GROWTH_PER_DIMENSION)
    return math.exp(exponent) if exponent < math.log(sys.float_info.max) else math.inf


def lifted_slice(data: ProblemData) -> tuple[FloatArray, FloatArray, float] | None:
    """The one-variable lift (:meth:`~privopt.compiler.cone.RowCone.single_lift`) that the vertex route
    enumerates instead of the projected slice, or ``None``. Only in floating point (back end ``"auto"``
    or ``"cdd"``): the lift's projected points are not validated one by one; a lost vertex shows when
    the independent checker refutes the LP's duals."""
    if data.options.backend not in ("auto", "cdd") or not isinstance(data.utility, SubConvexUtility):
        return None
    return data.cone.single_lift()


def predicted_vertex_seconds(data: ProblemData, lifted: bool | None = None) -> float:
    """The predicted wall time of the vertex route's enumeration of ``data``'s cone slice (module
    docstring): through its lift when ``lifted`` (by default, when the vertex route would use it), else
    the projected slice; :data:`PRODUCT_SECONDS` where the route prices over block-vertex products."""
    if lifted is None and exact_pricing(data):
        return PRODUCT_SECONDS
    d, rows = data.n_inputs - 1, max(data.cone.n_rows, 1)
    if lifted is None:
        lifted = lifted_slice(data) is not None
    if lifted:
        nearest = min(MEASURED_LIFTED, key=lambda m: (abs(m[0] - d), -m[0]))
        return _grown(nearest[1], max(d - nearest[0], 0))
    dimensions = sorted({m[0] for m in MEASURED})
    reference = min(dimensions, key=lambda k: (abs(k - d), -k))
    candidates = [m for m in MEASURED if m[0] == reference]
    _, reference_rows, seconds = min(candidates, key=lambda m: abs(np.log(m[1] / rows)))
    if reference != d:
        return _grown(max(seconds for _, _, seconds in candidates), d - reference)
    return float(seconds * (rows / reference_rows) ** min(ROWS_EXPONENT, max(1, d // 2)))
