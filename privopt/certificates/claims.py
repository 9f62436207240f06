"""What a route claims about the optimum: the bound objects a certificate carries.

Every route ends with a *claim* ``OPT <= upper`` and the evidence for it, as one of these values;
:func:`privopt.certificates.check_bound` re-derives the claim by its own methods (docs/compiler.md,
"Certificates"). Three kinds cover every route:

- :class:`SliceBound` — the dual of the vertex LP (Entropy paper Thm. 3's LP; Kairouz et al. Thm. 4).
  For duals ``λ``, a normalisation ``νᵀw = 1`` (``ν >= 0`` and ``νᵀw > 0`` on the cone but at 0) and
  ``δ̄ >= max {μ(w) − λᵀw : w ∈ K, νᵀw = 1}``, every mechanism ``W`` with columns in ``K`` has
  ``Σ_y μ(w_y) <= Σ_x λ_x + (Σ_x ν_x)·max(0, δ̄)``: write ``w_y = c_y v_y`` with ``νᵀv_y = 1``; then
  ``Σ_y c_y v_y = 1`` gives ``Σ_y c_y = Σ_x ν_x`` and ``μ(w_y) <= c_y (λᵀv_y + δ̄)``. The vertex and
  column-generation routes claim it (``ν = 1``: the slice ``Σ_x w_x = 1``; ``ν = p``: ``pᵀw = 1``).
- :class:`LinearBound` — the cvxpy route's Lagrangian dual: for a concave utility ``U`` and a
  supergradient ``G`` at the design ``W*``, ``U(W) <= U(W*) + ⟨G, W − W*⟩``, and for multipliers
  ``β_y >= 0`` of the cone rows, ``max ⟨G, W⟩ <= Σ_x max_y (G_y − Rᵀβ_y)_x`` over channels with
  columns in ``{R w <= 0}`` (weak LP duality).
- :class:`TheoremBound` — a bound a theorem gives (the chain rule of :mod:`privopt.routes.theorem_bounds`),
  with the data the checker needs to re-derive it.

Values are in the utility's *core* units (``Σ_y μ(w_y)`` before an increasing transform such as
Sibson's ``α/(α−1) log``), except :class:`LinearBound` and :class:`TheoremBound`, which are in the
utility's own units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from privopt.errors import ValidationError
from privopt.utilities import ConcaveUtility, SubConvexUtility
from privopt.validation import FloatArray

#: The normalisations of :class:`SliceBound`: ``Σ_x w_x = 1`` (the vertex LP), ``pᵀw = 1`` (the
#: utility's prior: the envelope and LDP pricing bounds for mutual information) or ``νᵀw = 1`` with
#: ``ν = (P0 + P1)/2`` (an f-divergence's two distributions: the LDP pricing bound).
NORMALISATIONS = ("sum", "prior", "mixture")


def _vector(values: Any, name: str) -> FloatArray:
    array = np.array(values, dtype=np.float64)
    if array.ndim != 1 or array.size == 0:
        raise ValidationError(name, "a non-empty vector", f"shape {array.shape}")
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class SliceBound:
    """``OPT <= upper = Σλ + (Σν)·max(0, delta)`` (module docstring), in the utility's core units.

    Attributes
    ----------
    duals:
        ``λ``, one per input.
    delta:
        The claimed ``δ̄ >= max {μ(w) − λᵀw : w ∈ K, νᵀw = 1}``.
    normalisation:
        ``"sum"`` (``ν = 1``), ``"prior"`` (``ν`` = the utility's input distribution ``p``) or
        ``"mixture"`` (``ν = (P0 + P1)/2`` for an f-divergence).
    weights:
        ``ν`` itself (ones, ``p`` or ``(P0 + P1)/2``).
    upper:
        ``Σλ + (Σν)·max(0, δ̄)``.
    method:
        How the route proved ``δ̄`` (the checker does not rely on it).
    """

    duals: FloatArray
    delta: float
    normalisation: str
    weights: FloatArray
    upper: float
    method: str

    @classmethod
    def build(
        cls, duals: FloatArray, delta: float, normalisation: str, weights: FloatArray, method: str
    ) -> SliceBound:
        """The bound with its ``upper`` computed from ``duals``, ``delta`` and ``weights``."""
        lam, nu = _vector(duals, "duals"), _vector(weights, "weights")
        upper = float(np.sum(lam)) + float(np.sum(nu)) * max(0.0, float(delta))
        return cls(lam, float(delta), normalisation, nu, upper, method)

    def __post_init__(self) -> None:
        if self.normalisation not in NORMALISATIONS:
            raise ValidationError("normalisation", "'sum', 'prior' or 'mixture'", repr(self.normalisation))

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "slice",
            "duals": [float(v) for v in self.duals],
            "delta": float(self.delta),
            "normalisation": self.normalisation,
            "weights": [float(v) for v in self.weights],
            "upper": float(self.upper),
            "method": self.method,
        }


@dataclass(frozen=True, eq=False)
class LinearBound:
    """The cvxpy route's dual bound (module docstring), in the utility's units.

    Attributes
    ----------
    cone_duals:
        ``β`` of shape ``(cone rows, outputs)``, one column of multipliers per output: a dense array (the
        cvxpy route) or a scipy sparse matrix (the LP route, whose multipliers vanish off the tight rows).
    upper:
        The claimed bound ``U(W*) − ⟨G, W*⟩ + Σ_x max_y (G_y − Rᵀβ_y)_x``.
    method:
        The solver that produced ``β``.
    """

    cone_duals: FloatArray | sp.spmatrix
    upper: float
    method: str

    def to_dict(self) -> dict[str, Any]:
        duals: Any
        if sp.issparse(self.cone_duals):
            coo = sp.coo_matrix(self.cone_duals)
            duals = {
                "shape": list(coo.shape),
                "rows": coo.row.tolist(),
                "cols": coo.col.tolist(),
                "values": coo.data.tolist(),
            }
        else:
            duals = np.asarray(self.cone_duals, dtype=np.float64).tolist()
        return {"kind": "linear", "cone_duals": duals, "upper": float(self.upper), "method": self.method}


@dataclass(frozen=True, eq=False)
class TheoremBound:
    """A bound a theorem gives, with the data to re-derive it (in the utility's units).

    Attributes
    ----------
    name:
        The theorem (``"chain rule"``: ``I(X;Y) <= max_{ε-LDP} I(S;Y) + H(U|S)`` for mechanisms that
        are ε-LDP w.r.t. S under the utility's own distribution).
    value:
        The claimed bound.
    parameters:
        What the theorem needs (chain rule: ``eps``, ``shape`` ``(|S|, |U|)``).
    """

    name: str
    value: float
    parameters: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    @property
    def upper(self) -> float:
        return self.value

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "theorem",
            "name": self.name,
            "value": float(self.value),
            "parameters": self.parameters,
            "description": self.description,
        }


#: Every kind of bound a certificate can carry.
Bound = SliceBound | LinearBound | TheoremBound


def upper_in_units(bound: Bound, utility: SubConvexUtility | ConcaveUtility) -> float:
    """The bound on the utility itself (a :class:`SliceBound` bounds ``Σ_y μ(w_y)``: the utility's
    increasing transform is applied)."""
    if isinstance(bound, SliceBound) and isinstance(utility, SubConvexUtility):
        return utility.from_core(bound.upper)
    if isinstance(bound, SliceBound) and isinstance(utility, ConcaveUtility):
        view = utility.pieces_view()  # an affine utility's slice bound is its pieces view's
        return float(bound.upper) if view is None else view.from_core(bound.upper)
    return float(bound.upper)


def bound_from_dict(data: dict[str, Any]) -> Bound:
    """The bound a :meth:`to_dict` wrote (solutions saved as JSON)."""
    kind = data.get("kind")
    if kind == "slice":
        return SliceBound(
            _vector(data["duals"], "duals"),
            float(data["delta"]),
            str(data["normalisation"]),
            _vector(data["weights"], "weights"),
            float(data["upper"]),
            str(data["method"]),
        )
    if kind == "linear":
        given = data["cone_duals"]
        duals: FloatArray | sp.spmatrix
        if isinstance(given, dict):  # sparse, as to_dict writes it
            duals = sp.csr_matrix(
                (np.array(given["values"], dtype=np.float64), (given["rows"], given["cols"])),
                shape=tuple(given["shape"]),
            )
        else:
            duals = np.array(given, dtype=np.float64)
        return LinearBound(duals, float(data["upper"]), str(data["method"]))
    if kind == "theorem":
        return TheoremBound(
            str(data["name"]),
            float(data["value"]),
            dict(data.get("parameters", {})),
            str(data.get("description", "")),
        )
    raise ValidationError("bound", "a bound of kind 'slice', 'linear' or 'theorem'", repr(kind))
