"""The base class of privacy definitions.

A definition is a privacy parameter ε plus a rule that turns it into linear-ratio constraints on the
columns of a mechanism (:class:`~privopt.definitions.ratio_pairs.RatioPairs`, DESIGN.md §3). The same
constraints serve the exact audit (here) and the compiler (row cones).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from privopt.audit import AuditReport, Witness
from privopt.distribution import InputAlphabet, JointDistribution, _check_on
from privopt.errors import NotSupportedError, ShapeError, ValidationError
from privopt.sets.base import UncertaintySet
from privopt.sets.finite import Point
from privopt.validation import check_eps

if TYPE_CHECKING:
    from privopt.definitions.ratio_pairs import RatioPairs
    from privopt.mechanism import Mechanism


class PrivacyDefinition(ABC):
    """A privacy notion with parameter ``eps`` (natural log)."""

    eps: float

    @property
    def name(self) -> str:
        return type(self).__name__

    def input_size(self) -> int | None:
        """Number of mechanism inputs the definition is about (``None``: any)."""
        return None

    def input_labels(self) -> tuple[Hashable, ...] | None:
        """Labels of the mechanism inputs, when the definition knows them."""
        return None

    @abstractmethod
    def ratio_pairs(self, n_inputs: int, input_labels: tuple[Hashable, ...] | None = None) -> RatioPairs:
        """The exact finite family of constraints ``a_iᵀw <= e^ε b_iᵀw`` for ``n_inputs`` inputs.

        ``input_labels`` name the inputs in witnesses when the definition does not know them.
        """

    def with_eps(self, eps: float) -> PrivacyDefinition:
        """The same definition at another ε."""
        return replace(self, eps=eps)  # type: ignore[type-var]

    def check_mechanism(self, mechanism: Mechanism) -> None:
        expected = self.input_size()
        if expected is not None and mechanism.n_inputs != expected:
            hint = ""
            reads_u = (
                isinstance(self, DistributionalDefinition) and self.on == "x" and self.uncertainty.n_u > 1
            )
            if reads_u and mechanism.n_inputs == self.uncertainty.n_u:  # type: ignore[attr-defined]
                hint = " (this mechanism reads U only: pass on='u')"
            raise ShapeError(
                "mechanism", f"{expected} inputs to match {self.name}{hint}", f"{mechanism.n_inputs}"
            )

    def audit(self, mechanism: Mechanism, *, tolerance: float) -> AuditReport:
        """Exact audit through the definition's ratio pairs (override for sets that are not finite)."""
        self.check_mechanism(mechanism)
        pairs = self.ratio_pairs(mechanism.n_inputs, mechanism.input_labels)
        per_output, arg = pairs.leakage(mechanism.matrix)
        realized = float(per_output.max()) if per_output.size else 0.0
        witness = None
        if per_output.size and arg[int(np.argmax(per_output))] >= 0:
            y = int(np.argmax(per_output))
            witness = Witness(mechanism.output_labels[y], pairs.labels[arg[y]], float(per_output[y]))  # type: ignore[index]
        return AuditReport(
            definition=str(self),
            target=self.eps,
            lower=realized,
            upper=realized,
            satisfied=realized <= self.eps + tolerance,
            witness=witness,
            per_output=per_output,
            tolerance=tolerance,
            method=f"exact: {pairs.n_pairs} ratio pairs",
        )


def as_uncertainty_set(value: Any, argument: str) -> UncertaintySet:
    """A set of distributions from a set, a :class:`JointDistribution` or an array (a point)."""
    if isinstance(value, UncertaintySet):
        return value
    if isinstance(value, JointDistribution):
        return Point(value)
    try:
        return Point(JointDistribution(value))
    except ValidationError as exc:
        raise ValidationError(
            argument, "a JointDistribution, a probability array or an uncertainty set", exc.got or repr(value)
        ) from exc


@dataclass(frozen=True, eq=False)
class DistributionalDefinition(PrivacyDefinition):
    """A definition that depends on the distribution through a set ``F`` (a point for the non-robust case).

    ``on`` says what the mechanism reads: ``"x"`` for ``X = S × U`` (the RLDP papers) or ``"u"`` for
    the public part only, with ``S`` latent (the privacy-funnel paper's setting, where its ``X`` is
    privopt's ``U``).
    """

    eps: float
    uncertainty: UncertaintySet
    on: InputAlphabet = "x"

    def __init__(
        self, eps: float, uncertainty: UncertaintySet | JointDistribution | ArrayLike, on: InputAlphabet = "x"
    ) -> None:
        object.__setattr__(self, "eps", check_eps(eps))
        object.__setattr__(self, "uncertainty", as_uncertainty_set(uncertainty, "F"))
        object.__setattr__(self, "on", _check_on(on))

    def with_eps(self, eps: float) -> PrivacyDefinition:
        return type(self)(eps, self.uncertainty, self.on)

    def input_size(self) -> int:
        return self.uncertainty.n_x if self.on == "x" else self.uncertainty.n_u

    def input_labels(self) -> tuple[Hashable, ...] | None:
        reference = self.uncertainty.reference()
        return None if reference is None else reference.input_labels(self.on)

    def ratio_pairs(self, n_inputs: int, input_labels: tuple[Hashable, ...] | None = None) -> RatioPairs:
        from privopt.definitions.ratio_pairs import RatioPairs

        if n_inputs != self.input_size():
            raise ShapeError("n_inputs", f"{self.input_size()}", f"{n_inputs}")
        members = self.uncertainty.members()
        if members is not None:
            parts = [self.pairs_for(p, None if len(members) == 1 else i) for i, p in enumerate(members)]
            return RatioPairs.concatenate(parts)
        return self.pairs_for_set(input_labels)

    @abstractmethod
    def pairs_for(self, distribution: JointDistribution, member: int | None) -> RatioPairs:
        """The pairs for one distribution (the vertex rule applies them to every member)."""

    def pairs_for_set(self, input_labels: tuple[Hashable, ...] | None) -> RatioPairs:
        """The pairs for a set that is not listed by members (override per definition)."""
        raise NotSupportedError(
            f"{self.name} over {self.uncertainty!r} has no exact finite form here; "
            "use a Point or a FiniteSet of distributions"
        )

    def __str__(self) -> str:
        on = "" if self.on == "x" else ", on='u'"
        return f"{self.name}(eps={self.eps:.6g}, F={self.uncertainty!r}{on})"
