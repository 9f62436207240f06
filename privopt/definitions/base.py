"""The base classes of privacy definitions.

A definition is a privacy parameter ε plus a rule that compiles it into a
:class:`~privopt.compiler.cone.RowCone`: blocks of linear-ratio constraints on the columns of a mechanism
(DESIGN.md §3). The same cone serves the exact audit (for sets the cone describes exactly) and the
optimisation routes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np

from privopt.audit import AuditReport, Witness
from privopt.compiler.cone import CompileOptions, ConeBuilder, RowCone
from privopt.compiler.ratio_pairs import RatioPairs
from privopt.data.distribution import JointDistribution
from privopt.errors import NotSupportedError, ShapeError, ValidationError
from privopt.sets.base import UncertaintySet
from privopt.sets.finite import Point

if TYPE_CHECKING:
    from privopt.data.mechanism import Mechanism


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
    def with_eps(self, eps: float) -> PrivacyDefinition:
        """The same definition at another ε."""

    @abstractmethod
    def build_cone(self, builder: ConeBuilder, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        """Add this definition's groups and blocks to ``builder``; return whether the cone is exact."""

    def row_cone(
        self,
        n_inputs: int | None = None,
        input_labels: tuple[Hashable, ...] | None = None,
        options: CompileOptions | None = None,
    ) -> RowCone:
        """Compile to a :class:`~privopt.compiler.cone.RowCone` on ``n_inputs`` inputs (default: the definition's)."""
        expected = self.input_size()
        if n_inputs is None:
            if expected is None:
                raise ValidationError(
                    "n_inputs", f"the number of mechanism inputs ({self.name} does not fix it)", "None"
                )
            n_inputs = expected
        elif expected is not None and n_inputs != expected:
            raise ShapeError("n_inputs", f"{expected} inputs for {self.name}", f"{n_inputs}")
        labels = input_labels or self.input_labels() or tuple(range(n_inputs))
        builder = ConeBuilder(self.eps, n_inputs, str(self))
        exact = self.build_cone(builder, tuple(labels), options or CompileOptions())
        return builder.build(exact)

    def ratio_pairs(self, n_inputs: int, input_labels: tuple[Hashable, ...] | None = None) -> RatioPairs:
        """The exact finite constraints ``a_iᵀw <= e^ε b_iᵀw`` (when the cone describes the definition exactly)."""
        cone = self.row_cone(n_inputs, input_labels)
        if not cone.exact or np.any(cone.shifts() != 0.0):
            raise NotSupportedError(f"{self} has no exact description by ratio pairs at a common ε")
        return cone.pairs()

    def check_mechanism(self, mechanism: Mechanism) -> None:
        expected = self.input_size()
        if expected is not None and mechanism.n_inputs != expected:
            hint = ""
            F = getattr(self, "uncertainty", None)
            if (
                F is not None
                and getattr(self, "on", "x") == "x"
                and F.n_u > 1
                and mechanism.n_inputs == F.n_u
            ):
                hint = " (this mechanism reads U only: pass on='u')"
            raise ShapeError(
                "mechanism", f"{expected} inputs to match {self.name}{hint}", f"{mechanism.n_inputs}"
            )

    def audit(self, mechanism: Mechanism, *, tolerance: float) -> AuditReport:
        """Exact audit through the definition's ratio pairs (definitions over other sets override this)."""
        self.check_mechanism(mechanism)
        return pairs_report(
            self, mechanism, self.ratio_pairs(mechanism.n_inputs, mechanism.input_labels), tolerance
        )


def pairs_report(
    definition: PrivacyDefinition,
    mechanism: Mechanism,
    pairs: RatioPairs,
    tolerance: float,
    method: str | None = None,
) -> AuditReport:
    """An exact :class:`AuditReport` from ratio pairs that describe the definition exactly."""
    per_output, arg = pairs.leakage(mechanism.matrix)
    realized = float(per_output.max()) if per_output.size else 0.0
    witness = None
    if per_output.size and arg[int(np.argmax(per_output))] >= 0:
        y = int(np.argmax(per_output))
        witness = Witness(mechanism.output_labels[y], pairs.labels[arg[y]], float(per_output[y]))  # type: ignore[index]
    return AuditReport(
        definition=str(definition),
        target=definition.eps,
        lower=realized,
        upper=realized,
        satisfied=realized <= definition.eps + tolerance,
        witness=witness,
        per_output=per_output,
        tolerance=tolerance,
        method=method or f"exact: {pairs.n_pairs} ratio pairs",
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
