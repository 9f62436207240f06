"""Numerical tolerances, named in one place.

Every comparison of floating-point numbers in privopt uses one of these constants (or a value a
user passes explicitly); nothing compares floats with ``==``.
"""

from __future__ import annotations

import math
import sys

#: A probability vector (or a row of a channel matrix) must sum to 1 within this absolute error.
PROBABILITY_ATOL: float = 1e-9

#: Entries in ``[-NEGATIVE_ATOL, 0)`` are rounding noise and are set to 0; below that is an error.
NEGATIVE_ATOL: float = 1e-12

#: An audit passes when the realized epsilon exceeds the target by at most this much (nats).
AUDIT_EPS_ATOL: float = 1e-7

#: Probabilities (or linear statistics of a column) at or below this are treated as exactly zero
#: when deciding whether a likelihood ratio is 0/0 (no leakage) or x/0 (infinite leakage).
ZERO_ATOL: float = 1e-15

#: In an audit, a ratio's *numerator* at or below this times its column's largest entry is rounding
#: noise of an exact zero and leaks nothing; denominators are compared with 0 exactly, so that
#: ratios as large as e^700 (ε = 700) stay finite.
ZERO_RTOL: float = 1e-15

#: Absolute tolerance of 1-D root finding in calibrations (in the calibrated parameter).
ROOT_XTOL: float = 1e-13

#: Largest privacy parameter accepted anywhere: ``e^ε`` must be a finite double (``ε <= log(max float)
#: ≈ 709.78``). Beyond it every likelihood-ratio bound overflows, so such an ε is refused up front.
EPS_MAX: float = math.log(sys.float_info.max)

#: Noise scales (Laplace ``b``, Gaussian ``σ``) are accepted in ``[1/NOISE_SCALE_MAX, NOISE_SCALE_MAX]``:
#: beyond, ``1/σ²`` or ``e^{2/b}`` leave the double range and the leakage formulas return NaN.
NOISE_SCALE_MAX: float = 1e100

#: Largest privacy parameter handed to a component mechanism where a theorem gives ``ε = ∞`` (e.g.
#: ``δ2 = log(1 + 2(e^{ε2} − 1)/d)`` with ``d = 0``): ``e^700`` is finite in double precision and GRR
#: at this level is the identity to machine precision.
COMPONENT_EPS_MAX: float = 700.0

#: Absolute tolerance (in the searched parameter) of the bounded 1-D searches that split a privacy
#: budget (independent and conditional reporting).
SPLIT_XTOL: float = 1e-9

#: Absolute accuracy of the 1-D maximisation over priors in an ℓ1 ball (additive-noise δ), in the
#: prior's coordinate.
PRIOR_XTOL: float = 1e-12

#: Decimal digits of the mpmath evaluations of the verification module (privopt.verify).
VERIFY_DPS: int = 50

#: An identity ``lhs = rhs`` holds at a sample point when ``|lhs − rhs| <= this · max(1, |lhs|, |rhs|)``
#: (evaluated at ``VERIFY_DPS`` digits, so rounding is ~1e-48 and any real discrepancy is far larger).
VERIFY_IDENTITY_RTOL: float = 1e-30

#: Comparisons between a paper's formula and a floating-point computation (privopt's library code, an
#: LP solver) agree when they differ by at most this, relative to ``max(1, |value|)``.
VERIFY_FLOAT_RTOL: float = 1e-7

#: Random draws allowed to find points of a claim's validity region before it is declared empty.
VERIFY_REGION_DRAWS: int = 2000

#: Default per-claim time limit (seconds) of the symbolic checker.
VERIFY_SYMBOLIC_SECONDS: float = 60.0

#: A solve is reported optimal (``Status.OPTIMAL``) when its certified relative gap is at most this
#: (LP solvers meet their constraints to ~1e-9, and a pricing certificate carries its search margin).
GAP_OPTIMAL_RTOL: float = 1e-6

#: Bounds within this of 0 (absolute, in the utility's units) close the gap: the relative gap
#: ``(upper − lower) / |upper|`` is undefined at an optimum of 0, and an LP solver's duals leave ~1e-10 of
#: rounding there (a 3×3 grid with a one-hot prior, ``MetricLDP`` and ``ExpectedDistortion``: 0 ≤ OPT ≤
#: 3.7e-10, reported ``feasible`` with a gap of 1 before).
ZERO_OPTIMUM_ATOL: float = 1e-9

#: The LP route leaves out of its LP the single rows ``a − F b`` whose coefficients span more than this
#: (``F`` beside 1: metric privacy at ``ε·d`` above 20.7), and moves the design into them afterwards: the
#: LP without them is a relaxation, so its multipliers (0 on those rows) still bound the optimum, and the
#: columns move towards the uniform one by about ``n / F`` of their mass. HiGHS and Clarabel failed
#: ("Solve error", InsufficientProgress) or returned a design 90 times below the optimum with a bound of
#: 1.5e5 on such LPs (factors of 1e13 to 1e55: a 2×2 grid of step 3 at ε = 30; 10 random points at
#: ε = 10).
LP_FACTOR_CAP: float = 1e9

#: Default relative gap at which column generation stops (``ColumnGenerationOptions.gap_tolerance``).
GAP_TOLERANCE: float = 1e-6

#: LP weights θ_v below this (relative to the largest) are zero when a mechanism is read off an LP.
THETA_RTOL: float = 1e-12

#: A floating-point vertex entry below this is rounding noise of an exact zero (vertex route).
VERTEX_NEGATIVE_ATOL: float = 1e-7

#: A projected vertex of the lifted slice ``max_a aᵀw <= t <= F min_b bᵀw`` is a vertex of the cone's
#: slice exactly when both sides are tight (vertex route); "tight" is within this, relative to the
#: larger side (rounding is ~1e-12; a non-vertex kept by it is still a point of the cone).
LIFT_TIGHT_RTOL: float = 1e-7

#: A Rényi order within this of a special value (1: KL; 2: χ², closed forms) is that value.
ORDER_ATOL: float = 1e-12

#: Absolute slack of a pricing certificate's re-check: a recomputed bound ``δ̄`` may exceed the claimed
#: one by this much (the claimed one already includes the search's rounding margin).
CERTIFICATE_ATOL: float = 1e-9

#: An output of a convex program's solution whose total probability (column sum) is below this
#: times the number of inputs is solver noise of an unused output (interior-point methods leave ~1e-11
#: there, which an exact audit reads as a leaky ratio); it is set to zero and the rows renormalised.
SOLVER_COLUMN_RTOL: float = 1e-8

#: The independent certificate checker (privopt.certificates): relative size of the rounding margin
#: added to every value it computes in floating point (the sums it forms have at most a few thousand
#: terms, each correct to a few ulps, so their error is far below this times their magnitude).
CHECK_ROUNDING_RTOL: float = 1e-12

#: HiGHS's primal and dual feasibility tolerances in the checker's slice LPs
#: (privopt.certificates.piecewise.SliceMaximiser). A bound proved from an LP's duals is loose by its
#: dual residual times the slice's variable bounds ``1/ν_j``; at HiGHS's default (1e-7) that was 4.5e-6
#: on a Hellinger claim of 1.6e-8 (Adult marital-status × education, inputs of mass ~1e-3), at this one
#: 2.7e-10.
CHECK_LP_FEASIBILITY_TOL: float = 1e-10

#: ... and HiGHS's own default (1e-7), at which an LP that fails at the tighter one is solved again
#: (a badly scaled cone may not allow 1e-10; the bound is proved whatever the duals' accuracy).
CHECK_LP_FALLBACK_FEASIBILITY_TOL: float = 1e-7

#: A route's dual bound on a slice LP (privopt.routes.pricing.slice_lp): relative size of the rounding
#: margin added to ``t + Σ r⁺U`` (sums of a few thousand products, each correct to a few ulps).
DUAL_BOUND_RTOL: float = 1e-12

#: A candidate point of a block polytope is kept when it meets the block's constraints within this
#: (relative to the block's bound): keeping a point slightly outside only raises the checked maximum.
CHECK_FEASIBILITY_ATOL: float = 1e-12

#: The checker's default time limit per certificate (seconds).
CHECK_SECONDS: float = 600.0

#: Two priced columns (each summing to 1) that agree to this in every entry are one column: an exact
#: pricer meets a vertex again from another of its enumerations.
COLUMN_DUPLICATE_ATOL: float = 1e-12

#: A column the checker exhibits to refute a claim must meet the cone's rows within this (the cone's
#: relative violation): it is built from block vertices in floating point, exact to a few ulps.
CHECK_COLUMN_RTOL: float = 1e-9

#: A distribution is in the convex hull of a group's statistics when a least-squares fit on the
#: simplex leaves at most this residual (the chain-rule bound's check of a cone's blocks).
CHECK_MEMBERSHIP_ATOL: float = 1e-9

#: A solution's upper bound may sit below its mechanism's value by this much, relative to
#: ``max(1, |value|)`` (the LP's and the utility's rounding); further below, the bound contradicts a
#: feasible point and the solve raises ``SolverError`` instead of reporting it.
BOUND_ORDER_RTOL: float = 1e-7

#: Staircase pricing on LDP cones (privopt.routes.pricing.staircase): relative margin added to every
#: ``δ̄`` for the rounding of the reduced costs the search compares.
STAIRCASE_ROUNDING_RTOL: float = 1e-12

#: The staircase pricer's f-divergence slope search closes an interval once its bound is within this
#: (relative to the magnitudes of the terms) of the best subset: below it the bounds only measure rounding.
STAIRCASE_SLOPE_FLOOR_RTOL: float = 1e-11

#: An input counts as surely in (out) of a slope interval's maximiser when its term's lower (upper)
#: bound is beyond this relative margin of 0; closer, it is undecided (both subsets are tried).
STAIRCASE_DECISION_RTOL: float = 1e-13

#: The staircase pricer's bound on the prior-free claim ``λ = μ*(ε)·p`` is stopped once below this (its
#: maximum is ``max_a h(a) − μ* <= 0`` in exact arithmetic, so only rounding is left).
PRIOR_FREE_TARGET: float = 1e-12

#: The checker's staircase method (privopt.certificates.staircase): a float determinant decides its sign
#: when its magnitude exceeds this times the sum of the absolute products it adds (the rounding of
#: ``(g_i × g_j)·g_x`` is below ``6·2^−53`` times that sum); otherwise it is decided in integers.
CHECK_DETERMINANT_RTOL: float = 1e-14

#: The rounding of ``ℓ_x = k(λ_x + tν_x)`` and ``C = Λ + tΣν`` in the checker's staircase method is
#: below this many units in the last place of ``k(|λ_x| + |t|ν_x)`` (three operations, each within half
#: a unit, with room to spare).
CHECK_FORMED_ULPS: float = 8.0

#: A single-input pair ``w_a <= e^{L} w_b`` is implied by a chain through another input whose lengths add
#: up to at most ``L`` within this (relative; :mod:`privopt.compiler.implied`): ``ε·d`` of Euclidean
#: distances of collinear points agrees only to rounding (``ε·√8`` against ``2·ε·√2``).
IMPLIED_PAIR_RTOL: float = 1e-12

#: A column moved into the cone towards the uniform column (a solver's rounding, docs/compiler.md) is
#: moved this much (relative) further than the violated rows need, so that rounding leaves it inside.
REPAIR_MARGIN: float = 1e-6

#: The tightest relative gap HiGHS's PDLP is asked for (its own floor, ``pdlp_optimality_tolerance``).
PDLP_MIN_TOLERANCE: float = 1e-10

#: The least share of each row that the deficit column of a first-order LP's repair carries
#: (:mod:`privopt.routes.pair_repair`): its entries ``1 − αs`` are then computed to a relative 10⁻⁶, well
#: inside the slack ``REPAIR_MARGIN`` leaves its ratios.
DEFICIT_FLOOR: float = 1e-10

#: A row ``gᵀw`` above 0 by at most this times ``|g|ᵀw`` is met: an LP's rounding, an excess of about
#: twice this on the pair's ratio, far below the audit's slack on ε (``AUDIT_EPS_ATOL``).
REPAIR_RTOL: float = 1e-12

#: A distance matrix is a grid's (privopt.data.grid.Grid.matching) when every entry is within this times
#: the largest distance of the grid's own (the grid's distances are exact to a few ulps).
GRID_MATCH_RTOL: float = 1e-9

#: Relative accuracy asked of the adaptive quadrature (scipy's QUADPACK) that integrates the planar
#: Laplace density over a cell of a grid (privopt.mechanisms.planar_laplace): each cell is one or a few
#: 1-D integrals of smooth functions, on which QUADPACK's error estimate is reliable.
PLANAR_QUAD_RTOL: float = 1e-12

#: The planar geometric's lattice sums over unbounded cells are truncated where the discarded mass is
#: below this times the cell's own mass (privopt.mechanisms.planar_geometric): far below a double's
#: resolution, so the sums are exact in floating point.
LATTICE_TAIL_RTOL: float = 2.0**-60

#: Largest ``ε·(a grid's diameter)`` for which a grid mechanism is built: beyond it the probability of
#: the farthest cell, about ``e^{−ε·diameter}``, leaves the range of doubles (``e^{−700} ≈ 1e−304``).
GRID_EXPONENT_MAX: float = 700.0

#: (routes/pricing/structure.py) Two statistics of a group agree (``V[r, u] = L_u`` off the diagonal, one common ``c``) when they
#: differ by at most this, relative to the group's largest entry.
ENVELOPE_STRUCTURE_RTOL: float = 1e-12

#: (routes/pricing/tree.py) Relative tolerance of the structure: a pair implied by its path, a factor a multiple of the unit.
TREE_STRUCTURE_RTOL: float = 1e-12

#: (routes/pricing/lip.py) Relative agreement required between the marginal and ``Σ_s P(s) q_s``.
LIP_STRUCTURE_RTOL: float = 1e-10

#: (certificates/check.py) A theorem bound passes when the checker's rigorous value is within this (relative) of the claimed
#: one: routes compute it by an LP whose feasibility tolerance is ~1e-7, the checker bounds that LP by
#: its duals and every reduced cost (the solution then reports the larger, proved value).
CHECK_THEOREM_RTOL: float = 1e-6

#: (certificates/piecewise.py) Relative agreement required between declared pieces and ``μ`` at those columns.
CHECK_PIECES_RTOL: float = 1e-9

#: (certificates/lagrangian.py) The normalisation ``ν`` may differ from the utility's ``p`` by this (relative, with the same zeros):
#: the limit is then tightened so that the proof for ``p`` covers ``ν``.
CHECK_LAGRANGIAN_WEIGHTS_RTOL: float = 1e-9

#: (certificates/envelope.py) Relative agreement required between a group's statistics for it to read as ``L + c e_u``.
CHECK_ENVELOPE_FORM_RTOL: float = 1e-12

#: (certificates/tree.py) Relative tolerance of the form: essential pairs, closed bounds equal to path sums, the unit.
CHECK_TREE_FORM_RTOL: float = 1e-12

#: (certificates/tree.py) The normalisation must be ``p`` to this relative accuracy.
CHECK_TREE_WEIGHTS_RTOL: float = 1e-12

#: (certificates/fdivergence.py) The refinement stops when the envelope's maximum exceeds the best column by at most this
#: (relative to ``1 + |value|``).
CHECK_HULL_CLOSE_RTOL: float = 1e-10

#: (certificates/fdivergence.py) Agreement required between the claim's ``ν`` and ``(P0 + P1)/2``.
CHECK_HULL_WEIGHTS_RTOL: float = 1e-12

#: (certificates/lip.py) Relative agreement required between the read statistics and the LIP shape.
CHECK_LIP_FORM_RTOL: float = 1e-10

#: (problem/check.py) Largest relative violation of the cone's rows by a solution's columns that still counts as inside.
SOLUTION_CONE_RTOL: float = 1e-7

#: (problem/curve.py) A neighbour's design lies in a point's cone when its columns violate the rows by at most this.
CURVE_CONE_RTOL: float = 1e-9

#: (routes/vertex.py, solvers/vertex_enumeration.py) Vertices closer than this (max norm, on Σw = 1) are one vertex (rounding splits a degenerate one).
VERTEX_MERGE_ATOL: float = 1e-9

#: (routes/colgen.py) Reduced costs at or below this are treated as zero (no improving column).
REDUCED_COST_TOL: float = 1e-9

#: (routes/colgen.py) The restricted master's dual feasibility tolerance: below ``REDUCED_COST_TOL``, so that every column
#: priced as improving can enter its basis.
MASTER_DUAL_TOL: float = 1e-10

#: (routes/pricing/fdivergence.py) A point is above a segment when it exceeds it by more than this (relative to the values' scale).
HULL_RTOL: float = 1e-9

#: The global pricer (privopt.routes.pricing.global_pricer): relative size of the margin added to SCIP's
#: dual bound, times ``1 + |D| + Σ|λ_x|u_x + max|μ|`` over the box — ten times the feasibility and dual
#: feasibility tolerances it sets on SCIP (1e-9). Measured on 180 random slices against exact vertex
#: enumeration: SCIP's own bound was never below the maximum by more than 1e-14 of that scale.
GLOBAL_PRICING_RTOL: float = 1e-8

#: The checker's spatial method (privopt.certificates.spatial): relative size of the margin added to
#: SCIP's dual bound, times ``1 + |D|`` plus the magnitudes of the objective's terms over the box — ten
#: times the feasibility and dual feasibility tolerances it sets on SCIP (1e-10). Measured on 180 random
#: slices against exact vertex enumeration: SCIP's bound was never below the maximum by more than
#: 7.5e-12 of that scale. Smaller than the global pricer's (``GLOBAL_PRICING_RTOL``), so that its
#: claims, re-proved, fit.
CHECK_SPATIAL_RTOL: float = 1e-9

#: (routes/colgen_route.py) A design column that violates the cone first loses its entries below this
#: times its largest (rounding residue of a pricer's formula), before any mixing with the uniform column.
SETTLE_RTOL: float = 1e-12

#: Row generation on the LP route adds a pair row ``aᵀw <= F bᵀw`` for an output whose column exceeds it
#: by more than this relative to ``max(aᵀw, F bᵀw)``: the cone's own violation measure
#: (``RowCone.violation``) far below the design's (``DESIGN_VIOLATION``, 1e-9).
ROW_GENERATION_RTOL: float = 1e-10

#: Row generation on the LP route brings back an output left out when its pricing LP's maximum exceeds
#: this share of ``Σ|ν|`` (the restricted LP's value scale): one left out at that price loosens the
#: certified bound by at most ``n`` times it, far below ``GAP_OPTIMAL_RTOL``.
ROW_GENERATION_PRICE_RTOL: float = 1e-10
