"""Explicit mechanisms: randomized response, unary encodings, SRR, k-singular, LIP calibrations."""

from privopt.mechanisms.lip_calibration import (
    calibrate_grr_lip,
    calibrate_monotone,
    calibrate_oue_lip,
    grr_calibrated_lip,
    grr_lip,
    oue_calibrated_lip,
)
from privopt.mechanisms.optimal import nr, optimal, polyopt
from privopt.mechanisms.randomized_response import grr, randomized_response
from privopt.mechanisms.secret_randomized_response import srr
from privopt.mechanisms.singular import k_singular
from privopt.mechanisms.srlip_product import srlip_product
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
    "nr",
    "optimal",
    "optimised_unary_encoding",
    "oue",
    "oue_calibrated_lip",
    "polyopt",
    "randomized_response",
    "srlip_product",
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
from privopt.mechanisms.pml_binary import (
    binary_pml_mechanism,
    binary_pml_valid_range,
    randomized_response_limit,
)

__all__ += [
    "ConditionalReporting",
    "ContinuousMechanism",
    "GaussianGuarantee",
    "IndependentReporting",
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
    "projection_l1_radii",
    "randomized_response_limit",
]
