"""JSON-native forms of labels, distributions, uncertainty sets, statistics and privacy definitions.

:func:`privopt.save` writes a definition as ``{"type": name, "data": fields}``; the set it ranges over,
its statistics and its distribution are nested with their own type tags where there is a choice.
Reading one back calls the public constructor with the stored arguments, so a loaded object passes the
same checks as a new one and compiles to the same cone (a probability table is renormalised when read,
as by every constructor, which may move the last bit of its entries).

Definitions are written by their *own* fields, not by their compiled cone:

- the built-ins by their constructor arguments (``SensitiveLDP``: ε, the set and ``on``);
- :class:`~privopt.RatioConstraints` by its pairs of statistics;
- :class:`~privopt.Pufferfish` by its secrets as evaluated events (``definition.events``: a predicate
  given as a Python function is stored as the records it selects) and its discriminative pairs;
- :class:`~privopt.MetricLDP` by its distance matrix (``inf``, no constraint, as ``null``) and labels.

A subclass of one of these written outside privopt is refused: its own ``pairs_for`` is code, which a
JSON document cannot hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from privopt.compiler.ratio_pairs import RatioPair
from privopt.data.distribution import JointDistribution
from privopt.data.statistics import Statistic
from privopt.definitions import (
    LDP,
    LIP,
    PML,
    SRLIP,
    MetricLDP,
    PrivacyDefinition,
    Pufferfish,
    RatioConstraints,
    SensitiveLDP,
    SRLIPComponent,
)
from privopt.errors import ValidationError
from privopt.sets import (
    ConditionalBounds,
    FiniteSet,
    L1Ball,
    Point,
    Polytope,
    RenyiBall,
    Simplex,
    UncertaintySet,
)

_TUPLE = "__tuple__"


# ---------------------------------------------------------------------- labels
def encode_label(label: Any) -> Any:
    """A JSON-native form of a label (tuples tagged so that they come back as tuples)."""
    if isinstance(label, np.generic):
        return label.item()
    if isinstance(label, tuple):
        return {_TUPLE: [encode_label(v) for v in label]}
    if label is None or isinstance(label, (str, int, float, bool)):
        return label
    raise ValidationError("label", "a str, number, bool, None or tuple of those (to write JSON)", repr(label))


def decode_label(value: Any) -> Hashable:
    """The label :func:`encode_label` wrote."""
    if isinstance(value, dict) and _TUPLE in value:
        return tuple(decode_label(v) for v in value[_TUPLE])
    if isinstance(value, (list, dict)):
        raise ValidationError("label", "a str, number, bool, None or tagged tuple", repr(value))
    return value


def _labels(labels: Any) -> list[Any]:
    return [encode_label(v) for v in labels]


def _labels_back(values: list[Any]) -> tuple[Hashable, ...]:
    return tuple(decode_label(v) for v in values)


# ---------------------------------------------------------------------- distributions
def distribution(P: JointDistribution) -> dict[str, Any]:
    """The fields of a :class:`~privopt.JointDistribution` (its table, labels, n and names)."""
    return {
        "probabilities": P.probabilities.tolist(),
        "s_labels": _labels(P.s_labels),
        "u_labels": _labels(P.u_labels),
        "n": P.n,
        "sensitive": P.sensitive,
        "public": P.public,
    }


def distribution_back(data: dict[str, Any]) -> JointDistribution:
    return JointDistribution(
        np.array(data["probabilities"], dtype=np.float64),
        s_labels=_labels_back(data["s_labels"]),
        u_labels=_labels_back(data["u_labels"]),
        n=data["n"],
        sensitive=data["sensitive"],
        public=data["public"],
    )


def _optional_distribution(P: JointDistribution | None) -> dict[str, Any] | None:
    return None if P is None else distribution(P)


def _optional_distribution_back(data: dict[str, Any] | None) -> JointDistribution | None:
    return None if data is None else distribution_back(data)


def _matrix(array: Any) -> list[Any] | None:
    return None if array is None else np.asarray(array).tolist()


# ---------------------------------------------------------------------- sets
_SET_FORMS: dict[type[UncertaintySet], tuple[Callable[[Any], dict[str, Any]], Callable[..., Any]]] = {
    Point: (
        lambda F: {"distribution": distribution(F.distribution)},
        lambda d: Point(distribution_back(d["distribution"])),
    ),
    FiniteSet: (
        lambda F: {"distributions": [distribution(p) for p in F.distributions]},
        lambda d: FiniteSet([distribution_back(p) for p in d["distributions"]]),
    ),
    Simplex: (lambda F: {"dims": list(F.dims)}, lambda d: Simplex(tuple(d["dims"]))),
    RenyiBall: (
        lambda F: {
            "center": distribution(F.center),
            "radius": F.radius,
            "order": F.order,
            "level": F.level,
        },
        lambda d: RenyiBall(distribution_back(d["center"]), d["radius"], d["order"], level=d["level"]),
    ),
    L1Ball: (
        lambda F: {"center": distribution(F.center), "radius": F.radius, "delta": F.delta},
        lambda d: L1Ball(distribution_back(d["center"]), d["radius"], delta=d["delta"]),
    ),
    Polytope: (
        lambda F: {"vertices": F.vertex_array.tolist(), "shape": list(F.shape)},
        lambda d: Polytope(np.array(d["vertices"], dtype=np.float64), shape=tuple(d["shape"])),
    ),
    ConditionalBounds: (
        lambda F: {
            "lower": F.lower.tolist(),
            "upper": _matrix(F.upper),
            "reference": _optional_distribution(F.center),
        },
        lambda d: ConditionalBounds(d["lower"], d["upper"], _optional_distribution_back(d["reference"])),
    ),
}


def uncertainty_set(F: UncertaintySet) -> dict[str, Any]:
    """``{"type": ..., "data": ...}`` for one of privopt's uncertainty sets."""
    writer, _ = _form(_SET_FORMS, F, "an uncertainty set")
    return {"type": type(F).__name__, "data": writer(F)}


def uncertainty_set_back(data: dict[str, Any]) -> UncertaintySet:
    _, reader = _reader(_SET_FORMS, data["type"], "an uncertainty set")
    result: UncertaintySet = reader(data["data"])
    return result


def _optional_set(F: UncertaintySet | None) -> dict[str, Any] | None:
    return None if F is None else uncertainty_set(F)


def _optional_set_back(data: dict[str, Any] | None) -> UncertaintySet | None:
    return None if data is None else uncertainty_set_back(data)


# ---------------------------------------------------------------------- statistics and pairs
def statistic(st: Statistic) -> list[list[Any]]:
    """The atoms ``[coefficient, kind, key]`` of a statistic (:mod:`privopt.data.statistics`)."""
    atoms = []
    for coefficient, kind, key in st.atoms:
        if kind in ("event", "joint"):
            encoded: Any = _labels(key)
        elif kind == "weights" and isinstance(key, tuple):  # weights(v) keeps v as a tuple of floats
            encoded = [float(v) for v in key]
        else:  # "x" and "s": one label; "marginal": None
            encoded = encode_label(key)
        atoms.append([coefficient, kind, encoded])
    return atoms


def statistic_back(atoms: list[list[Any]]) -> Statistic:
    decoded = []
    for coefficient, kind, key in atoms:
        if kind in ("event", "joint"):
            value: object = _labels_back(key)
        elif kind == "weights":
            value = tuple(float(v) for v in key)
        elif kind in ("x", "s", "marginal"):
            value = decode_label(key)
        else:
            raise ValidationError(
                "statistic", "atoms of kind x, weights, s, event, marginal or joint", repr(kind)
            )
        decoded.append((float(coefficient), kind, value))
    return Statistic(tuple(decoded))


def ratio_pair(pair: RatioPair) -> dict[str, Any]:
    return {
        "left": [statistic(st) for st in pair.left],
        "right": [statistic(st) for st in pair.right],
        "label": pair.label,
        "scale": pair.scale,
    }


def ratio_pair_back(data: dict[str, Any]) -> RatioPair:
    return RatioPair.of(
        [statistic_back(st) for st in data["left"]],
        [statistic_back(st) for st in data["right"]],
        data["label"],
        data["scale"],
    )


# ---------------------------------------------------------------------- definitions
def _distances(matrix: np.ndarray) -> list[list[float | None]]:
    """A distance matrix with ``inf`` (no constraint) as ``None``: JSON has no infinity."""
    return [[None if math.isinf(v) and v > 0 else float(v) for v in row] for row in matrix.tolist()]


def _distances_back(rows: list[list[float | None]]) -> np.ndarray:
    return np.array([[math.inf if v is None else v for v in row] for row in rows], dtype=np.float64)


def _pufferfish(d: Pufferfish) -> dict[str, Any]:
    F = d.uncertainty
    assert F is not None  # a Pufferfish definition always has its distributions
    reference = F.reference()
    order = {record: i for i, record in enumerate(reference.x_labels if reference is not None else ())}
    return {
        "eps": d.eps,
        "secrets": [
            [encode_label(name), _labels(sorted(event, key=lambda r: order.get(r, len(order))))]
            for name, event in d.events.items()
        ],
        "discriminative_pairs": [[encode_label(a), encode_label(b)] for a, b in d.discriminative_pairs],
        "distributions": uncertainty_set(F),
        "on": d.on,
        "directed": d.directed,
        "name": d.name,
    }


def _pufferfish_back(data: dict[str, Any]) -> Pufferfish:
    return Pufferfish(
        {decode_label(name): list(_labels_back(records)) for name, records in data["secrets"]},
        [(decode_label(a), decode_label(b)) for a, b in data["discriminative_pairs"]],
        data["eps"],
        uncertainty_set_back(data["distributions"]),
        on=data["on"],
        directed=data["directed"],
        name=data["name"],
    )


def _ratio_constraints(d: RatioConstraints) -> dict[str, Any]:
    return {
        "eps": d.eps,
        "pairs": [ratio_pair(p) for p in d.pair_spec],
        "over": _optional_set(d.uncertainty),
        "on": d.on,
        "n_inputs": d.input_size() if d.uncertainty is None else None,
        "name": d.name,
    }


def _ratio_constraints_back(data: dict[str, Any]) -> RatioConstraints:
    return RatioConstraints(
        [ratio_pair_back(p) for p in data["pairs"]],
        data["eps"],
        _optional_set_back(data["over"]),
        on=data["on"],
        n_inputs=data["n_inputs"],
        name=data["name"],
    )


_DEFINITION_FORMS: dict[
    type[PrivacyDefinition], tuple[Callable[[Any], dict[str, Any]], Callable[..., Any]]
] = {
    LDP: (lambda d: {"eps": d.eps}, lambda data: LDP(data["eps"])),
    SensitiveLDP: (
        lambda d: {"eps": d.eps, "uncertainty": uncertainty_set(d.uncertainty), "on": d.on},
        lambda data: SensitiveLDP(data["eps"], uncertainty_set_back(data["uncertainty"]), on=data["on"]),
    ),
    LIP: (
        lambda d: {"eps": d.eps, "uncertainty": uncertainty_set(d.uncertainty), "on": d.on},
        lambda data: LIP(data["eps"], uncertainty_set_back(data["uncertainty"]), on=data["on"]),
    ),
    PML: (
        lambda d: {"eps": d.eps, "uncertainty": uncertainty_set(d.uncertainty)},
        lambda data: PML(data["eps"], uncertainty_set_back(data["uncertainty"])),
    ),
    SRLIP: (
        lambda d: {
            "eps": d.eps,
            "distribution": distribution(d.distribution),
            "attributes": list(d.attributes),
        },
        lambda data: SRLIP(data["eps"], distribution_back(data["distribution"]), data["attributes"]),
    ),
    SRLIPComponent: (
        lambda d: {
            "eps": d.eps,
            "distribution": distribution(d.distribution),
            "attributes": list(d.attributes),
            "attribute": d.attribute,
        },
        lambda data: SRLIPComponent(
            data["eps"], distribution_back(data["distribution"]), data["attributes"], data["attribute"]
        ),
    ),
    MetricLDP: (
        lambda d: {"eps": d.eps, "distances": _distances(d.distances), "labels": _labels(d.labels)},
        lambda data: MetricLDP(
            data["eps"], _distances_back(data["distances"]), list(_labels_back(data["labels"]))
        ),
    ),
    RatioConstraints: (_ratio_constraints, _ratio_constraints_back),
    Pufferfish: (_pufferfish, _pufferfish_back),
}


def _form(
    forms: dict[Any, tuple[Callable[[Any], dict[str, Any]], Callable[..., Any]]], obj: Any, what: str
) -> tuple[Callable[[Any], dict[str, Any]], Callable[..., Any]]:
    """The JSON form of ``obj``'s exact type (a subclass written elsewhere has code JSON cannot hold)."""
    found = forms.get(type(obj))
    if found is None:
        known = ", ".join(cls.__name__ for cls in forms)
        raise ValidationError(
            "obj",
            f"{what} of privopt's own ({known}); a subclass defined elsewhere cannot be written as JSON",
            type(obj).__name__,
        )
    return found


def _reader(
    forms: dict[Any, tuple[Callable[[Any], dict[str, Any]], Callable[..., Any]]], name: str, what: str
) -> tuple[Callable[[Any], dict[str, Any]], Callable[..., Any]]:
    for cls, form in forms.items():
        if cls.__name__ == name:
            return form
    known = ", ".join(cls.__name__ for cls in forms)
    raise ValidationError("type", f"{what} among {known}", repr(name))


#: Every type with a JSON form here, by name: writer and reader of its ``data``.
FORMS: dict[str, tuple[Callable[[Any], dict[str, Any]], Callable[[dict[str, Any]], Any]]] = {
    **{cls.__name__: form for cls, form in _DEFINITION_FORMS.items()},
    **{cls.__name__: form for cls, form in _SET_FORMS.items()},
    "JointDistribution": (distribution, distribution_back),
}


def form_of(obj: Any) -> tuple[str, Callable[[Any], dict[str, Any]]] | None:
    """The type tag and writer for a definition, set or distribution (``None`` for other objects)."""
    if isinstance(obj, PrivacyDefinition):
        writer, _ = _form(_DEFINITION_FORMS, obj, "a privacy definition")
    elif isinstance(obj, UncertaintySet):
        writer, _ = _form(_SET_FORMS, obj, "an uncertainty set")
    elif type(obj) is JointDistribution:
        writer = distribution
    else:
        return None
    return type(obj).__name__, writer
