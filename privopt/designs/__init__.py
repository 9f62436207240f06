"""Designs built on the solver: named mechanisms for a definition, comparisons, NR, PolyOpt, SRLIP products."""

from privopt.designs.compare import compare
from privopt.designs.optimal import nr, optimal, polyopt
from privopt.designs.srlip_product import srlip_product

__all__ = ["compare", "nr", "optimal", "polyopt", "srlip_product"]
