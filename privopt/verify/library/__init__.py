"""The shipped claims: the papers' statements, closed forms and worked examples.

Each module builds the claims of one paper; :func:`shipped_claims` collects them (built once, on
first use). Claims whose name ends in a misprint label (``as_printed``, ``as_extracted``, ...) are
expected to fail: they document a misprint or an extraction artefact, next to the corrected claim.
"""

from __future__ import annotations

from functools import cache

from privopt.verify.claims import Claim


@cache
def _build() -> tuple[Claim, ...]:
    from privopt.verify.library import entropy, entropy_examples, funnel, isit, kairouz, pml

    claims: list[Claim] = []
    for module in (pml, entropy, entropy_examples, funnel, isit, kairouz):
        claims.extend(module.claims())
    names = [c.name for c in claims]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:  # pragma: no cover - a packaging error, caught by the tests
        raise RuntimeError(f"duplicate claim names: {sorted(duplicates)}")
    return tuple(claims)


def shipped_claims() -> list[Claim]:
    """Every claim of the shipped library, in report order."""
    return list(_build())


def claim_names() -> list[str]:
    return [c.name for c in _build()]


__all__ = ["claim_names", "shipped_claims"]
