"""Explicit mechanisms: randomized response, unary encodings, SRR, k-singular, LIP calibrations, IR, CR,
additive noise, the binary PML closed form, the planar Laplace and geometric on a grid, and the optimal
remapping of any mechanism's output.

The optimisation-based designs (``nr``, ``optimal``, ``polyopt``, ``srlip_product``) live in
:mod:`privopt.designs`; their old names here still work, with a :class:`DeprecationWarning`.
"""

import warnings
from collections.abc import Callable
from typing import Any

from privopt.mechanisms.lip_calibration import (
    calibrate_grr_lip,
    calibrate_monotone,
    calibrate_oue_lip,
    grr_calibrated_lip,
    grr_lip,
    oue_calibrated_lip,
)
from privopt.mechanisms.randomized_response import grr, randomized_response
from privopt.mechanisms.secret_randomized_response import srr
from privopt.mechanisms.singular import k_singular
from privopt.mechanisms.unary_encoding import (
    UnaryEncoding,
    optimised_unary_encoding,
    oue,
    sue,
    symmetric_unary_encoding,
    unary_lip,
    unary_matrix,
    unary_mutual_information,
)

__all__ = [
    "UnaryEncoding",
    "calibrate_grr_lip",
    "calibrate_monotone",
    "calibrate_oue_lip",
    "grr",
    "grr_calibrated_lip",
    "grr_lip",
    "k_singular",
    "optimised_unary_encoding",
    "oue",
    "oue_calibrated_lip",
    "randomized_response",
    "srr",
    "sue",
    "symmetric_unary_encoding",
    "unary_lip",
    "unary_matrix",
    "unary_mutual_information",
]

from privopt.mechanisms.additive_noise import (
    ContinuousMechanism,
    GaussianGuarantee,
    gaussian_mechanism,
    gaussian_pml_guarantee,
    laplace_mechanism,
    laplace_pml,
    laplace_pml_estimated,
    laplace_scale,
    laplace_scale_estimated,
)
from privopt.mechanisms.conditional_reporting import (
    ConditionalReporting,
    conditional_reporting,
    conditional_reporting_at,
)
from privopt.mechanisms.conditional_reporting_lip import (
    calibrate_cr_lip,
    conditional_reporting_lip,
    cr_lip_channel,
    cr_lip_leakage,
)
from privopt.mechanisms.independent_reporting import (
    IndependentReporting,
    independent_reporting,
    independent_reporting_at,
    independent_reporting_d,
    projection_l1_radii,
)
from privopt.mechanisms.planar_geometric import planar_geometric
from privopt.mechanisms.planar_laplace import planar_laplace
from privopt.mechanisms.pml_binary import (
    binary_pml_mechanism,
    binary_pml_valid_range,
    randomized_response_limit,
)
from privopt.mechanisms.remap import Remap, optimal_remap, remap_for

__all__ += [
    "ConditionalReporting",
    "ContinuousMechanism",
    "GaussianGuarantee",
    "IndependentReporting",
    "Remap",
    "binary_pml_mechanism",
    "binary_pml_valid_range",
    "calibrate_cr_lip",
    "conditional_reporting",
    "conditional_reporting_at",
    "conditional_reporting_lip",
    "cr_lip_channel",
    "cr_lip_leakage",
    "gaussian_mechanism",
    "gaussian_pml_guarantee",
    "independent_reporting",
    "independent_reporting_at",
    "independent_reporting_d",
    "laplace_mechanism",
    "laplace_pml",
    "laplace_pml_estimated",
    "laplace_scale",
    "laplace_scale_estimated",
    "optimal_remap",
    "planar_geometric",
    "planar_laplace",
    "projection_l1_radii",
    "randomized_response_limit",
    "remap_for",
]

#: Deprecated names → their new home, filled by ``privopt/__init__.py`` (the API layer): this package
#: sits below :mod:`privopt.designs` and does not import it.
DEPRECATED: dict[str, tuple[str, Callable[..., Any]]] = {}


def __getattr__(name: str) -> Any:
    if name in DEPRECATED:
        where, function = DEPRECATED[name]
        warnings.warn(
            f"privopt.mechanisms.{name} is deprecated: use {where}", DeprecationWarning, stacklevel=2
        )
        return function
    raise AttributeError(f"module 'privopt.mechanisms' has no attribute {name!r}")
