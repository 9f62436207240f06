"""Theorem 4 of the privacy-funnel paper: an ε-SRLIP mechanism as a product of per-attribute ones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from privopt.data.distribution import JointDistribution
from privopt.data.mechanism import Mechanism
from privopt.definitions.srlip import SRLIPComponent, _attribute_table
from privopt.problem import Problem
from privopt.utilities import MutualInformation
from privopt.validation import check_eps


def srlip_product(P: JointDistribution, attributes: Sequence[int], eps: float, **options: Any) -> Mechanism:
    """``Q = Q^1 ⊗ ... ⊗ Q^m`` with each ``Q^j`` the ``I(X^j; Y^j)``-optimal mechanism satisfying
    Theorem 4's condition at ``ε/m`` (eqs. 23–26). By Theorem 4 the product is ε-SRLIP; it is not the
    optimal ε-SRLIP mechanism (the paper's §VIII-B)."""
    eps = check_eps(eps)
    table = _attribute_table(P, attributes)
    m = len(attributes)
    product: Mechanism | None = None
    for j in range(m):
        p_j = table.sum(axis=tuple(a for a in range(table.ndim) if a != 1 + j))
        component = (
            Problem(SRLIPComponent(eps / m, P, attributes, j), MutualInformation(p_j), **options)
            .solve()
            .mechanism
        )
        product = component if product is None else product.kron(component)
    assert product is not None
    return Mechanism(product.matrix, P.u_labels, None, name=f"SRLIP product (eps={eps:.4g})")


__all__ = ["srlip_product"]
