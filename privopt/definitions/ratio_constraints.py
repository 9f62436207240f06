"""Generic linear-ratio privacy definitions: the layer every definition compiles through.

``RatioConstraints(pairs, eps, over=F)`` demands, for every output ``y`` and every ``P ∈ F``::

    max_{a ∈ A} a(P)ᵀw  <=  e^{cε} · min_{b ∈ B} b(P)ᵀw        for each pair (A, B, c),

where ``A`` and ``B`` are groups of :mod:`privopt.data.statistics` (a single statistic is a group of
one) and ``c`` the pair's scale (1 unless stated: metric privacy). The built-in definitions (LDP, LDP
w.r.t. S, LIP, PML, SRLIP, metric LDP, Pufferfish) are subclasses that only say which pairs they
impose. The robust counterpart over ``F`` is formed, pair by pair, by the first rule of ``F`` that
applies (:mod:`privopt.sets.counterparts`: constant, member, vertex, rectangular, ℓ1 transform).

A pair no rule handles — e.g. a conditional against the marginal (LIP) over a Rényi ball — is refused
when the definition is constructed, with a message naming the pair and the dependence of each side.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any, ClassVar

from privopt.compiler.cone import CompileOptions
from privopt.compiler.ratio_pairs import RatioPair
from privopt.data.distribution import InputAlphabet, _check_on
from privopt.data.statistics import given
from privopt.definitions.base import PrivacyDefinition, as_uncertainty_set
from privopt.errors import ValidationError
from privopt.validation import check_positive_int

#: What ``pairs`` holds (named in errors).
PAIR_FORMS = (
    "(left, right) or (left, right, scale) tuples of statistics (or of lists of them), or RatioPair objects"
)


def _as_pair(item: Any) -> RatioPair:
    """A pair as given to :class:`RatioConstraints`: a :class:`RatioPair`, ``(left, right)`` or
    ``(left, right, scale)`` (:meth:`RatioPair.of`)."""
    if isinstance(item, RatioPair):
        return item
    if isinstance(item, tuple | list) and len(item) == 2:
        return RatioPair.of(item[0], item[1])
    if isinstance(item, tuple | list) and len(item) == 3:
        return RatioPair.of(item[0], item[1], scale=item[2])
    raise ValidationError("pairs", PAIR_FORMS, repr(item))


class RatioConstraints(PrivacyDefinition):
    """A privacy definition given by linear-ratio constraints (module docstring).

    Parameters
    ----------
    pairs:
        ``(left, right)`` pairs of statistics (or of lists of statistics), ``(left, right, scale)``
        with a per-pair level ``e^{scale·ε}``, or :class:`RatioPair` (:meth:`RatioPair.of`, which also
        takes a label).
    eps:
        Privacy parameter (nats).
    over:
        The distributions the constraints must hold for: a JointDistribution, a set, or ``None`` when
        every statistic is constant.
    on:
        ``"x"`` (the mechanism reads ``X = S × U``) or ``"u"`` (it reads ``U`` only).
    n_inputs:
        Number of mechanism inputs when ``over`` is ``None``.
    name:
        Used in reports.
    """

    #: The constructor argument that takes the set of distributions (named in errors).
    _set_argument: ClassVar[str] = "over"

    def __init__(
        self,
        pairs: Iterable[Any],
        eps: float,
        over: Any = None,
        *,
        on: InputAlphabet = "x",
        n_inputs: int | None = None,
        name: str = "RatioConstraints",
    ) -> None:
        F = None if over is None else as_uncertainty_set(over, self._set_argument)
        super().__init__(eps, F, _check_on(on))
        if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
            raise ValidationError("pairs", "an iterable of ratio pairs", type(pairs).__name__)
        self._pairs = tuple(_as_pair(p) for p in pairs)
        self._size = None if n_inputs is None else check_positive_int(n_inputs, "n_inputs")
        if not isinstance(name, str):
            raise ValidationError("name", "a string", type(name).__name__)
        self._title = name
        self._check_constrains(self._check_rules())

    def _check_constrains(self, pairs: tuple[RatioPair, ...] | None) -> None:
        """Refuse a definition with no pair (``pairs``: those on its inputs, ``None`` when they are not
        known yet): it would allow every mechanism (the identity included)."""
        if not (self._pairs if pairs is None else pairs):
            raise ValidationError(
                "pairs", "at least one ratio pair (a definition that constrains nothing is refused)", "none"
            )

    # ------------------------------------------------------------------ facts
    @property
    def name(self) -> str:
        return self._title

    @property
    def pair_spec(self) -> tuple[RatioPair, ...]:
        """The pairs as given to the constructor (subclasses build theirs in :meth:`pairs_for`)."""
        return self._pairs

    def input_size(self) -> int | None:
        if self._uncertainty is None:
            return self._size
        return super().input_size()

    def input_labels(self) -> tuple[Hashable, ...] | None:
        if self._uncertainty is None:
            return None if self._size is None else tuple(range(self._size))
        return super().input_labels()

    def s_labels(self) -> tuple[Hashable, ...]:
        """The values of the sensitive attribute ``S`` (labels of the set's reference, else indices)."""
        F = self._uncertainty
        if F is None:
            return ()
        reference = F.reference()
        return reference.s_labels if reference is not None else tuple(range(F.n_s))

    def pairs_for(self, labels: tuple[Hashable, ...], options: CompileOptions) -> tuple[RatioPair, ...]:
        """The pairs imposed on a mechanism with these input labels (subclasses build them)."""
        return self._pairs

    def __str__(self) -> str:
        """``Kind('name', eps=..., k pairs, F=..., on='u')``: the name when it is not the kind's, the
        number of pairs when they were given to the constructor, the set and ``on`` when they apply."""
        kind = type(self).__name__
        fields = [] if self.name == kind else [repr(self.name)]
        fields.append(f"eps={self.eps:.6g}")
        if self._pairs:
            fields.append(count(len(self._pairs), "pair"))
        return f"{kind}({', '.join(fields + self._set_fields())})"

    def _set_fields(self) -> list[str]:
        """``F=...`` and ``on='u'`` when they apply (for ``__str__``)."""
        fields = [] if self._uncertainty is None else [f"F={self._uncertainty!r}"]
        return fields if self._on == "x" else [*fields, "on='u'"]


def count(number: int, noun: str) -> str:
    """``"1 pair"``, ``"3 pairs"``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def sensitive_value_pairs(s_labels: Sequence[Hashable], self_pairs: bool) -> list[RatioPair]:
    """``P(Y=y|S=s) <= e^ε P(Y=y|S=s')`` for ``s != s'`` (and ``s = s'`` when asked)."""
    conditionals = [given(s=s) for s in s_labels]  # shared by the pairs (a statistic caches its checks)
    return [
        RatioPair.of(a, b)
        for i, a in enumerate(conditionals)
        for j, b in enumerate(conditionals)
        if i != j or self_pairs
    ]
