"""Explicit mechanisms: randomized response, unary encodings, SRR, k-singular, LIP calibrations."""

from privopt.mechanisms.lip_calibration import (
    calibrate_grr_lip,
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
