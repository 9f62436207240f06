"""The base class of privacy definitions: a parameter ε and declared ratio pairs over a set.

A definition *declares* ratio pairs ``max over left <= e^{cε} min over right`` of linear statistics of a
column (:class:`~privopt.compiler.ratio_pairs.RatioPair`) and the set of distributions they must hold
for; the compiler turns them into a :class:`~privopt.compiler.cone.RowCone`
(:func:`~privopt.compiler.compile.compile_pairs`). A definition knows nothing about how it is audited or
solved: :mod:`privopt.audit` and :mod:`privopt.routes` read its compiled cone.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Any, Self

from privopt.compiler.compile import compile_pairs, rescaled, select_rule
from privopt.compiler.cone import CompileOptions, RowCone
from privopt.compiler.ratio_pairs import RatioPair, RatioPairs
from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.errors import NotSupportedError, PrivoptError, ShapeError, ValidationError
from privopt.sets.base import UncertaintySet
from privopt.sets.counterparts import ConstantRule, CounterpartRule, Layout, layout_for
from privopt.sets.finite import Point
from privopt.validation import FloatArray, check_eps


class PrivacyDefinition(ABC):
    """A privacy notion with parameter ``eps`` (natural log), declared as ratio pairs.

    Definitions are immutable: :meth:`with_eps` and :meth:`with_uncertainty` return new ones.
    """

    def __init__(self, eps: float, uncertainty: UncertaintySet | None, on: InputAlphabet) -> None:
        self._eps = check_eps(eps)
        self._uncertainty = uncertainty
        self._on: InputAlphabet = on

    @property
    def eps(self) -> float:
        """The privacy parameter (nats)."""
        return self._eps

    @property
    def uncertainty(self) -> UncertaintySet | None:
        """The distributions the definition must hold for (``None``: none are involved)."""
        return self._uncertainty

    @property
    def on(self) -> InputAlphabet:
        """``"x"`` when the mechanism reads ``X = S × U``, ``"u"`` when it reads ``U`` only."""
        return self._on

    @property
    def name(self) -> str:
        return type(self).__name__

    def input_size(self) -> int | None:
        """Number of mechanism inputs the definition is about (``None``: any)."""
        F = self._uncertainty
        if F is None:
            return None
        return F.n_x if self._on == "x" else F.n_u

    def input_labels(self) -> tuple[Hashable, ...] | None:
        """Labels of the mechanism inputs, when the definition knows them."""
        F = self._uncertainty
        if F is None:
            return None
        reference = F.reference()
        if reference is not None:
            return reference.input_labels(self._on)
        return tuple(range(F.n_x if self._on == "x" else F.n_u))

    @abstractmethod
    def pairs_for(self, labels: tuple[Hashable, ...], options: CompileOptions) -> tuple[RatioPair, ...]:
        """The ratio pairs imposed on a mechanism whose inputs are ``labels``."""

    def with_eps(self, eps: float) -> Self:
        """The same definition at another ε (every ε-dependent factor is recomputed when compiled)."""
        clone = copy.copy(self)
        clone._eps = check_eps(eps)
        return clone

    def with_uncertainty(self, uncertainty: Any) -> Self:
        """The same definition over another set of distributions (e.g. the true ``P*``, Entropy §8.3)."""
        clone = copy.copy(self)
        clone._uncertainty = as_uncertainty_set(uncertainty, "uncertainty")
        clone._check_rules()
        return clone

    # ------------------------------------------------------------------ compilation
    def layout(self, labels: tuple[Hashable, ...], options: CompileOptions | None = None) -> Layout:
        """How statistics are laid on inputs ``labels`` (sensitive values, blocks, envelope)."""
        F = self._uncertainty
        reference = None if F is None else F.reference()
        shape = None if F is None else F.shape
        return layout_for(labels, self._on, reference, shape, (options or CompileOptions()).envelope)

    def resolve_inputs(
        self, n_inputs: int | None = None, input_labels: tuple[Hashable, ...] | None = None
    ) -> tuple[Hashable, ...]:
        """The input labels of a mechanism with ``n_inputs`` inputs (default: the definition's own)."""
        expected = self.input_size()
        if n_inputs is None:
            if input_labels is not None:
                n_inputs = len(input_labels)
            elif expected is None:
                raise ValidationError(
                    "n_inputs", f"the number of mechanism inputs ({self.name} does not fix it)", "None"
                )
            else:
                n_inputs = expected
        if expected is not None and n_inputs != expected:
            raise ShapeError("n_inputs", f"{expected} inputs for {self.name}", f"{n_inputs}")
        labels = input_labels or self.input_labels() or tuple(range(n_inputs))
        if len(labels) != n_inputs:
            raise ShapeError("input_labels", f"{n_inputs} labels", f"{len(labels)}")
        return tuple(labels)

    def row_cone(
        self,
        n_inputs: int | None = None,
        input_labels: tuple[Hashable, ...] | None = None,
        options: CompileOptions | None = None,
    ) -> RowCone:
        """Compile to a :class:`~privopt.compiler.cone.RowCone` on ``n_inputs`` inputs (default: the
        definition's)."""
        options = options or CompileOptions()
        labels = self.resolve_inputs(n_inputs, input_labels)
        return compile_pairs(
            self.pairs_for(labels, options),
            self._eps,
            self._uncertainty,
            self.layout(labels, options),
            str(self),
        )

    def rescaled_cone(self, cone: RowCone) -> RowCone:
        """:meth:`row_cone` from ``cone``, this definition's own cone at another ε (same pairs, inputs and
        set): only the blocks' factors change (:func:`~privopt.compiler.compile.rescaled`)."""
        return rescaled(cone, self._eps, self._uncertainty, str(self))

    def ratio_pairs(
        self, n_inputs: int | None = None, input_labels: tuple[Hashable, ...] | None = None
    ) -> RatioPairs:
        """The exact finite constraints ``a_iᵀw <= e^{c_i ε} b_iᵀw`` (when the cone describes the definition
        exactly with each pair at its own level)."""
        cone = self.row_cone(n_inputs, input_labels)
        if not cone.plain:
            raise NotSupportedError(f"{self} has no exact description by ratio pairs at its own levels")
        return cone.pairs()

    def _check_rules(self) -> tuple[RatioPair, ...] | None:
        """Refuse, when the definition is made, pairs that no rule of its set handles; returns the pairs
        checked (``None`` when the inputs are not known yet)."""
        labels = self.input_labels()
        if labels is None:
            return None
        options = CompileOptions()
        pairs = self.pairs_for(labels, options)
        self.rules_for(pairs, labels, options)
        return pairs

    def pml_ball(self) -> tuple[float, FloatArray, float] | None:
        """``(ε, P̂_X, β)`` when the definition is ε-PML over an ℓ1 ball (PML paper Thm. 5), else ``None``."""
        return None

    def sensitive_ldp_eps(self) -> float | None:
        """An ``ε`` such that every mechanism satisfying this definition is ε-LDP w.r.t. S, over X = S × U,
        for every distribution of its uncertainty set (``None``: none is declared); the chain-rule bound
        reads it (``routes/theorem_bounds.py``)."""
        return None

    def check_compilable(self) -> None:
        """Raise, with the remedy, when this definition's cone cannot be compiled over its set: the set
        breaks a condition its rules need (:meth:`~privopt.UncertaintySet.check_compilable`: an ℓ1 ball
        with ``β >= 2 min P̂``) and a pair depends on the distribution. A ``Problem`` calls it when it is
        made. The set and the definition themselves stay valid: PML's audit over an ℓ1 ball, by its
        worst prior, holds at any radius (docs/concepts.md, "Sets of distributions")."""
        F, labels = self._uncertainty, self.input_labels()
        if F is None or labels is None:
            return
        try:
            F.check_compilable()
        except PrivoptError:
            options = CompileOptions()
            rules = self.rules_for(self.pairs_for(labels, options), labels, options)
            if not all(isinstance(rule, ConstantRule) for rule in rules):
                raise

    def counterpart_choice(self, labels: tuple[Hashable, ...], options: CompileOptions) -> bool:
        """Whether ``options.lip_counterpart`` changes this definition's cone on ``labels`` (only
        LIP over a set without an exact counterpart)."""
        return False

    def rules_for(
        self, pairs: Sequence[RatioPair], labels: tuple[Hashable, ...], options: CompileOptions
    ) -> list[CounterpartRule]:
        """The robust-counterpart rule of the set that compiles each of ``pairs`` (a
        :class:`~privopt.errors.NotSupportedError` for a pair that none handles)."""
        layout = self.layout(labels, options)
        rules = () if self._uncertainty is None else self._uncertainty.counterpart_rules()
        return [select_rule(pair, self._uncertainty, rules, layout, self.name) for pair in pairs]

    def __repr__(self) -> str:
        return str(self)


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
