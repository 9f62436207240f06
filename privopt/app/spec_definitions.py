"""The pieces of a spec's declarative ``[definition]``: labels, statistics, secrets and factories.

A spec names values by the labels of its data (``s = "Female"``, a record ``["Female", "White"]``);
the definition is built on the labels of its uncertainty set, which are the data's except for a set
without a reference distribution (the simplex), whose labels are positions. :class:`SpecLabels`
translates the first into the second, by position. A label written as a number matches a text label
with the same digits (a CSV's labels are text), when only one does.

Every mistake is a :class:`~privopt.errors.ValidationError` naming the key of the spec
(``[definition].pairs[0].left[0].s``) — see docs/custom-definitions.md for the format.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from privopt.callables import call, returned
from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.data.statistics import Statistic, given, joint, marginal, weights
from privopt.definitions.base import PrivacyDefinition
from privopt.errors import ValidationError
from privopt.sets.base import UncertaintySet

#: The keys of a statistic in a spec, each with the statistic it stands for (docs/custom-definitions.md).
STATISTIC_KEYS = ("s", "x", "event", "joint", "weights", "marginal")


def _shown(labels: Sequence[Hashable]) -> str:
    shown = ", ".join(map(repr, labels[:8]))
    return shown + (", ..." if len(labels) > 8 else "")


def label_index(value: Any, labels: Sequence[Hashable], where: str) -> int:
    """The position of ``value`` among ``labels`` (equal, else the only one whose text equals it)."""
    for i, label in enumerate(labels):
        if type(label) is type(value) and label == value:
            return i
    matches = [i for i, label in enumerate(labels) if str(label) == str(value)]
    if len(matches) == 1:
        return matches[0]
    raise ValidationError(where, f"a label among {_shown(labels)}", repr(value))


@dataclass(frozen=True)
class SpecLabels:
    """The data's labels (as written in the spec) and the definition's (the set's) by position."""

    data_s: tuple[Hashable, ...]
    data_u: tuple[Hashable, ...]
    s_labels: tuple[Hashable, ...]
    u_labels: tuple[Hashable, ...]
    on: InputAlphabet
    #: The definition's inputs are positions ``0, ..., n−1`` (ratio constraints without a set): a record
    #: ``(s, u)`` is its flat index ``s·|U| + u``.
    flat: bool = False

    @classmethod
    def positional(cls, P: JointDistribution, on: InputAlphabet) -> SpecLabels:
        """The data ``P``'s labels, for a definition whose inputs are positions (no set)."""
        data_s, data_u = tuple(P.s_labels or ()), tuple(P.u_labels or ())
        return cls(data_s, data_u, tuple(range(P.n_s)), tuple(range(P.n_u)), on, flat=True)

    @classmethod
    def of(cls, P: JointDistribution, F: UncertaintySet | None, on: InputAlphabet) -> SpecLabels:
        """The data ``P``'s labels, and the labels of ``F``'s reference (positions when it has none;
        ``F = None``: the data's own)."""
        data_s, data_u = tuple(P.s_labels or ()), tuple(P.u_labels or ())
        reference = P if F is None else F.reference()
        if reference is None:
            return cls(data_s, data_u, tuple(range(P.n_s)), tuple(range(P.n_u)), on)
        return cls(data_s, data_u, tuple(reference.s_labels or ()), tuple(reference.u_labels or ()), on)

    def s(self, value: Any, where: str) -> Hashable:
        return self.s_labels[label_index(value, self.data_s, where)]

    def u(self, value: Any, where: str) -> Hashable:
        return self.u_labels[label_index(value, self.data_u, where)]

    def _record_label(self, s: int, u: int) -> Hashable:
        """The label of the record ``(s, u)`` (positions): ``(s, u)``, or ``s`` alone when ``|U| = 1``
        (the flat index when the definition's inputs are positions)."""
        if self.flat:
            return s * len(self.u_labels) + u
        return self.s_labels[s] if len(self.u_labels) == 1 else (self.s_labels[s], self.u_labels[u])

    def records(self) -> list[tuple[int, int, Hashable]]:
        """Every record of ``X = S × U`` in s-major order: positions of ``s`` and ``u``, and label."""
        return [
            (s, u, self._record_label(s, u))
            for s in range(len(self.s_labels))
            for u in range(len(self.u_labels))
        ]

    def record(self, value: Any, where: str) -> Hashable:
        """A record written ``[s, u]`` (or ``s`` alone when ``U`` has one value)."""
        if not isinstance(value, list):
            if len(self.u_labels) == 1:
                return self.s(value, where)
            raise ValidationError(where, "a record [s, u] (a label of S and one of U)", repr(value))
        if len(value) != 2:
            raise ValidationError(where, "a record [s, u] (a label of S and one of U)", repr(value))
        s = label_index(value[0], self.data_s, f"{where}[0]")
        u = label_index(value[1], self.data_u, f"{where}[1]")
        return self._record_label(s, u)

    def input(self, value: Any, where: str) -> Hashable:
        """A mechanism input: a record when the mechanism reads ``X``, a label of ``U`` when it reads ``U``."""
        return self.record(value, where) if self.on == "x" else self.u(value, where)

    def statistic(self, key: str, value: Any, where: str) -> Statistic:
        """The statistic of the spec table ``{key = value}`` (one of :data:`STATISTIC_KEYS`)."""
        if key == "marginal":
            return marginal()
        if key == "s":
            return given(s=self.s(value, where))
        if key == "x":
            return given(x=self.input(value, where))
        if key == "weights":
            size = len(self.u_labels) if self.on == "u" else len(self.s_labels) * len(self.u_labels)
            if len(value) != size:
                raise ValidationError(
                    where, f"{size} numbers >= 0 (one per mechanism input)", f"{len(value)}"
                )
            return weights(value)
        records = tuple(self.record(v, f"{where}[{i}]") for i, v in enumerate(value))
        if key == "joint":
            return joint(records)
        # P(Y=y | X ∈ E) for records E of X = S × U; a single record is the input itself only on X.
        return given(event=records) if self.on == "x" else Statistic(((1.0, "event", records),))

    def event(
        self,
        records: list[Any] | None,
        s: Any | None,
        u: Any | None,
        where: str,
    ) -> list[Hashable]:
        """A Pufferfish secret: the listed records, or those whose ``s`` and ``u`` are among the given
        labels (a key left out is any value), or every record (nothing given)."""
        if records is not None:
            return [self.record(v, f"{where}.records[{i}]") for i, v in enumerate(records)]
        s_kept = _positions(s, self.data_s, f"{where}.s")
        u_kept = _positions(u, self.data_u, f"{where}.u")
        return [label for i, j, label in self.records() if i in s_kept and j in u_kept]


def _positions(values: Any | None, labels: Sequence[Hashable], where: str) -> set[int]:
    """The positions of a label or a list of labels (``None``: all of them)."""
    if values is None:
        return set(range(len(labels)))
    if not isinstance(values, list):
        return {label_index(values, labels, where)}
    return {label_index(v, labels, f"{where}[{i}]") for i, v in enumerate(values)}


# ---------------------------------------------------------------------- factories
FACTORY_FORM = (
    "'module:function', a function (P, eps) in a module importable from the spec's folder or sys.path"
)


def load_factory(text: str, folder: Path, where: str, form: str = FACTORY_FORM) -> Callable[..., Any]:
    """The function named ``module:function``; the module is imported from ``folder`` or ``sys.path``
    (``form`` says what is expected in errors)."""
    module_name, _, name = text.partition(":")
    if not (all(part.isidentifier() for part in module_name.split(".")) and name.isidentifier()):
        raise ValidationError(where, form, repr(text))
    sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise ValidationError(
                where, form, f"{text!r}: no module {exc.name!r} in {str(folder)!r} or on sys.path"
            ) from exc
        raise ValidationError(where, f"{form} that imports", f"{text!r}: {exc}") from exc
    except Exception as exc:  # the module's own code failed: say so, with its message
        raise ValidationError(
            where, f"{form} that imports", f"{text!r}: {type(exc).__name__}: {exc}"
        ) from exc
    finally:
        sys.path.remove(str(folder))
    function = getattr(module, name, None)
    if function is None:
        raise ValidationError(where, form, f"{text!r}: module {module_name!r} has no {name!r}")
    if not callable(function):
        raise ValidationError(where, form, f"{text!r}: {type(function).__name__} (not callable)")
    result: Callable[..., Any] = function
    return result


#: What a user function must be to be written out (po.save, Problem.to_spec) and read back elsewhere.
FUNCTION_FORM = (
    "a function importable as 'module:function' (defined at the top level of a module that another "
    "process can import: not a lambda, a nested function, a method or a function of __main__)"
)


def function_path(function: Callable[..., Any], where: str) -> str:
    """The import path ``module:function`` of a user function, checked to import back to the same
    function; a :class:`~privopt.errors.ValidationError` naming ``where`` otherwise."""
    module_name = getattr(function, "__module__", None)
    name = getattr(function, "__qualname__", None)
    shown = getattr(function, "__name__", type(function).__name__)
    if not isinstance(module_name, str) or not isinstance(name, str) or not name.isidentifier():
        raise ValidationError(where, FUNCTION_FORM, f"{shown!r}, which has no import path")
    if module_name == "__main__":
        raise ValidationError(
            where, FUNCTION_FORM, f"{name!r} in __main__ (move it to a module, e.g. mymodule.py)"
        )
    module = sys.modules.get(module_name)
    if module is None or getattr(module, name, None) is not function:
        raise ValidationError(where, FUNCTION_FORM, f"'{module_name}:{name}', which does not import back")
    return f"{module_name}:{name}"


def load_function(text: str, where: str, folder: Path | None = None) -> Callable[..., Any]:
    """The function named ``module:function`` (:func:`load_factory`; ``folder`` defaults to the
    working directory)."""
    return load_factory(text, Path.cwd() if folder is None else folder, where, FUNCTION_FORM)


def call_factory(
    function: Callable[..., Any], P: JointDistribution, eps: float, text: str, where: str
) -> PrivacyDefinition:
    """``function(P, eps)``, which must return a privacy definition; privopt's own errors raised inside
    it pass unchanged, any other error is reported as the factory's (:mod:`privopt.callables`)."""
    expected = "a factory that builds a privacy definition from (P, eps)"
    definition = call(function, where, expected, P, eps, name=repr(text))
    if not isinstance(definition, PrivacyDefinition):
        raise returned(
            function,
            where,
            "a factory returning a privacy definition (po.RatioConstraints, po.Pufferfish, po.MetricLDP, ...)",
            definition,
            name=repr(text),
        )
    return definition
