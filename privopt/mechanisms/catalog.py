"""The papers' low-complexity mechanisms by name, built for one definition and its data.

Spec files (``[compare] mechanisms = ["grr", "srr", "ir", "optimal"]``), :func:`privopt.compare` and the
seeds of column generation name mechanisms instead of constructing them. Each name resolves to the
mechanism the papers pair with the definition:

=========  ===========================================  ============================================
name       SensitiveLDP(ε, F) (RLDP)                     LIP(ε, P)
=========  ===========================================  ============================================
``grr``    GRR_ε on X (ε-LDP, hence RLDP)               GRR calibrated to ε-LIP (funnel eq. 27)
``oue``    OUE_ε on X                                   OUE calibrated to ε-LIP (funnel §VIII-C)
``srr``    SRR_ε (Entropy paper Def. 4)                 —
``ir``     best IR split (Entropy paper §7, eq. 81)     —
``cr``     best CR split (ISIT paper §IV-C)             CR calibrated to ε-LIP (funnel Thm. 2)
=========  ===========================================  ============================================

For :class:`~privopt.LDP` the names ``grr`` and ``oue`` are the plain ε-LDP mechanisms. For
:class:`~privopt.MetricLDP` on the distances of a grid (:meth:`privopt.Grid.matching`: Euclidean or
Manhattan, any step, cells in index order) they are the geo-indistinguishability baselines
``planar_laplace`` and ``planar_geometric`` (:mod:`privopt.mechanisms.planar_laplace`,
:mod:`privopt.mechanisms.planar_geometric`).

With a linear utility (:class:`~privopt.ExpectedDistortion`, :class:`~privopt.ExpectedGain`) every
name ``m`` also has the variant ``m+remap``: ``m`` followed by the optimal remapping of its reports
for the utility's prior and loss (:func:`~privopt.mechanisms.remap.optimal_remap`; Bordenabe et al.,
CCS 2014), whose outputs are the utility's estimates.

Designs that need the solver (``nr``, the optimum) are added by :mod:`privopt.designs.named`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from privopt.data.grid import Grid
from privopt.data.mechanism import Mechanism, as_mechanism
from privopt.definitions.base import PrivacyDefinition
from privopt.definitions.ldp import LDP
from privopt.definitions.lip import LIP
from privopt.definitions.metric import MetricLDP
from privopt.definitions.sensitive_ldp import SensitiveLDP
from privopt.mechanisms.conditional_reporting import conditional_reporting
from privopt.mechanisms.conditional_reporting_lip import conditional_reporting_lip
from privopt.mechanisms.independent_reporting import independent_reporting
from privopt.mechanisms.lip_calibration import grr_calibrated_lip, oue_calibrated_lip
from privopt.mechanisms.planar_geometric import planar_geometric
from privopt.mechanisms.planar_laplace import planar_laplace
from privopt.mechanisms.randomized_response import grr
from privopt.mechanisms.remap import linear_loss, remap_for
from privopt.mechanisms.secret_randomized_response import srr
from privopt.mechanisms.unary_encoding import oue
from privopt.sets.finite import Point
from privopt.sets.renyi import RenyiBall
from privopt.utilities import ConcaveUtility, SubConvexUtility

#: A zero-argument function building a mechanism (or a design holding one as ``.mechanism``).
Builder = Callable[[], object]

#: The suffix that names a mechanism followed by its optimal remapping (module docstring).
REMAP_SUFFIX = "+remap"


def _relabel(mechanism: Mechanism, labels: tuple[Hashable, ...] | None) -> Mechanism:
    if labels is None:
        return mechanism
    return Mechanism(mechanism.matrix, labels, mechanism.output_labels, name=mechanism.name)


def _ldp_builders(definition: PrivacyDefinition, n_inputs: int) -> dict[str, Builder]:
    eps, labels = definition.eps, definition.input_labels()
    return {
        "grr": lambda: _relabel(grr(n_inputs, eps), labels),
        "oue": lambda: _relabel(oue(n_inputs, eps), labels),
    }


def _sensitive_builders(
    definition: SensitiveLDP, utility: SubConvexUtility | None, n_inputs: int
) -> dict[str, Builder]:
    builders = _ldp_builders(definition, n_inputs)
    eps, F = definition.eps, definition.uncertainty
    assert F is not None
    reference = F.reference()
    if definition.on == "x" and reference is not None:
        builders["srr"] = lambda: srr(
            reference.n_s, reference.n_u, eps, reference.s_labels, reference.u_labels
        )
    if definition.on == "x" and isinstance(F, RenyiBall):
        # Not audited here: every consumer checks the mechanism itself (po.compare audits each row,
        # column generation keeps only the columns inside the cone).
        builders["ir"] = lambda: independent_reporting(F, eps, utility=utility, verify_audit=False)
        builders["cr"] = lambda: conditional_reporting(F, eps, utility=utility, verify_audit=False)
    return builders


def _lip_builders(definition: LIP) -> dict[str, Builder]:
    builders: dict[str, Builder] = {}
    F = definition.uncertainty
    if isinstance(F, Point):  # the calibrations need the distribution itself
        P, eps, on = F.distribution, definition.eps, definition.on
        builders["grr"] = lambda: grr_calibrated_lip(P, eps, on)
        builders["oue"] = lambda: oue_calibrated_lip(P, eps, on)
        if on == "x":
            builders["cr"] = lambda: conditional_reporting_lip(P, eps)
    return builders


def _metric_builders(definition: MetricLDP) -> dict[str, Builder]:
    """The planar Laplace and geometric when the definition's distances are a grid's."""
    found = Grid.matching(definition.distances)
    if found is None:
        return {}
    grid, eps, labels = found[0], definition.eps, definition.input_labels()
    return {
        "planar_laplace": lambda: _relabel(planar_laplace(grid, eps), labels),
        "planar_geometric": lambda: _relabel(planar_geometric(grid, eps), labels),
    }


def _remapped(name: str, builder: Builder, utility: ConcaveUtility) -> Builder:
    def build() -> Mechanism:
        return remap_for(as_mechanism(builder(), name), utility).mechanism

    return build


def _explicit(
    definition: PrivacyDefinition, utility: SubConvexUtility | ConcaveUtility, n_inputs: int
) -> dict[str, Builder]:
    sub_convex = utility if isinstance(utility, SubConvexUtility) else None
    if isinstance(definition, SensitiveLDP):
        return _sensitive_builders(definition, sub_convex, n_inputs)
    if isinstance(definition, LIP):
        return _lip_builders(definition)
    if isinstance(definition, LDP):
        return _ldp_builders(definition, n_inputs)
    if isinstance(definition, MetricLDP):
        return _metric_builders(definition)
    return {}


def available(
    definition: PrivacyDefinition, utility: SubConvexUtility | ConcaveUtility, n_inputs: int
) -> dict[str, Builder]:
    """The named explicit mechanisms that exist for ``definition``: name → zero-argument builder
    (with the ``+remap`` variants for a linear utility, module docstring)."""
    builders = _explicit(definition, utility, n_inputs)
    if isinstance(utility, ConcaveUtility) and linear_loss(utility) is not None:
        for name, builder in list(builders.items()):
            builders[name + REMAP_SUFFIX] = _remapped(name, builder, utility)
    return builders
