"""ε-LDP w.r.t. a sensitive attribute S, for a known distribution or a set of them (RLDP).

Entropy paper Definition 1 and privacy-funnel paper Definition 1: for all ``s, s'``, ``y`` and every
``P`` in the set ``F``::

    P(Y=y | S=s) <= e^ε P(Y=y | S=s'),   with  P(Y=y|S=s) = Σ_x P(x|s) W[x, y].

In column form: ``P(·|s)ᵀw <= e^ε P(·|s')ᵀw`` (DESIGN.md §3). With ``F`` a single point this is the
non-robust mechanism NR's constraint; with ``F`` a set it is (ε, F)-RLDP.

The constraint is linear in the *conditionals* ``P(·|s)``, not in the joint ``P``. For a set whose
conditional projections ``F_{U|s}`` can be enclosed in polytopes ``D_s`` (the simplex, Rényi
balls, polytopes of joint distributions), the robust counterpart is the vertex rule on
``D_{s1} × D_{s2}`` (Entropy paper eqs. 40–41, Theorem 2): exact for the simplex (Prop. 3), sound but
conservative for the others, whose audit is then an interval.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from privopt.cone import CompileOptions, ConeBuilder
from privopt.definitions.base import DistributionalDefinition
from privopt.distribution import JointDistribution
from privopt.errors import NotSupportedError
from privopt.ratio_pairs import Term
from privopt.sets.conditional_bounds import ConditionalBounds
from privopt.sets.simplex import Simplex

if TYPE_CHECKING:
    from privopt.audit import AuditReport
    from privopt.mechanism import Mechanism


@dataclass(frozen=True, eq=False, init=False)
class SensitiveLDP(DistributionalDefinition):
    """ε-LDP w.r.t. ``S`` for every distribution in ``F`` ((ε, F)-RLDP).

    Parameters
    ----------
    eps:
        Privacy parameter (nats).
    uncertainty:
        A :class:`~privopt.JointDistribution` (non-robust), a :class:`~privopt.FiniteSet` (each
        member), :class:`~privopt.Simplex` (every distribution), :class:`~privopt.RenyiBall` or
        :class:`~privopt.Polytope`.
    on:
        ``"x"`` if the mechanism reads ``X = S × U`` (default), ``"u"`` if it reads ``U`` only.
    """

    def member_blocks(
        self,
        builder: ConeBuilder,
        distribution: JointDistribution,
        member: int | None,
        labels: tuple[Hashable, ...],
    ) -> None:
        conditional = distribution.conditional(self.on)
        where = "" if member is None else f" (member {member})"
        groups = [
            builder.group(conditional[i : i + 1], [Term("s", s)], f"P(·|s={s!r}){where}")
            for i, s in enumerate(distribution.s_labels)  # type: ignore[arg-type]
        ]
        for i, a in enumerate(groups):
            for j, b in enumerate(groups):
                if i != j:
                    builder.block(a, b, "LDP w.r.t. S at a known distribution", member)

    def set_blocks(self, builder: ConeBuilder, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        envelope = getattr(self.uncertainty, "conditional_envelope", None)
        if envelope is None:
            return super().set_blocks(builder, labels, options)
        n_s, n_u = self.uncertainty.shape
        reference = self.uncertainty.reference()
        s_labels = reference.s_labels if reference is not None else tuple(range(n_s))
        exact = isinstance(self.uncertainty, (Simplex, ConditionalBounds))
        if exact:
            rule = "vertex rule on each D_s (exact: the set is rectangular in the conditionals)"
        else:
            rule = f"vertex rule on the '{options.envelope}' envelope D_s (Entropy Def. 3 / Theorem 2)"
        groups = []
        for s in range(n_s):
            vertices = envelope(s, options.envelope)
            if self.on == "x":
                embedded = np.zeros((vertices.shape[0], n_s * n_u))
                embedded[:, s * n_u : (s + 1) * n_u] = vertices
                vertices = embedded
            terms = [Term("s", s_labels[s], f"vertex {k} of D_s") for k in range(vertices.shape[0])]
            groups.append(builder.group(vertices, terms, f"vertices of D_s for s={s_labels[s]!r}"))
        for i, a in enumerate(groups):
            for j, b in enumerate(groups):
                if i != j:
                    builder.block(a, b, rule)
                elif options.self_pairs:
                    builder.block(a, b, "s1 = s2 pair (kept by the paper-faithful PolyOpt; vacuous for RLDP)")
        return exact

    def audit(self, mechanism: Mechanism, *, tolerance: float) -> AuditReport:
        from privopt.robust_audit import audit_sensitive_ldp_over_set

        if self.uncertainty.members() is not None or isinstance(
            self.uncertainty, (Simplex, ConditionalBounds)
        ):
            return super().audit(mechanism, tolerance=tolerance)
        if not hasattr(self.uncertainty, "conditional_envelope"):
            raise NotSupportedError(f"{self.name} over {self.uncertainty!r} cannot be audited")
        self.check_mechanism(mechanism)
        return audit_sensitive_ldp_over_set(self, mechanism, tolerance)
