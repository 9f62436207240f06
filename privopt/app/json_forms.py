"""JSON-native forms of labels, distributions, uncertainty sets, statistics, privacy definitions,
utilities and whole problems.

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

Utilities are written by the distribution they were built from (a JointDistribution by its fields, a
vector as a list) and their parameters; a function of the user's (a custom ``μ`` and its transform, a
concave builder, an f-divergence's ``f``) by its import path ``module:function``
(:func:`~privopt.app.spec_definitions.function_path`), imported again when read. A
:class:`~privopt.Problem` is its definition, utility and options (``vertex_limit`` and ``time_limit``
``null`` for no limit; column generation's ``progress``, which only says how to show a run, is not
written).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from privopt.app.spec_definitions import function_path, load_function
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
from privopt.memory import default_memory_limit
from privopt.problem import Problem
from privopt.routes.colgen_options import MACHINE_OPTIONS, ColumnGenerationOptions
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
from privopt.utilities import (
    ConcaveUtility,
    ExpectedDistortion,
    ExpectedGain,
    FDivergence,
    MutualInformation,
    NormalizedMutualInformation,
    SibsonMutualInformation,
    SubConvexUtility,
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
        lambda F: {"center": distribution(F.center), "radius": F.radius, "level": F.level},
        lambda d: L1Ball(distribution_back(d["center"]), d["radius"], level=_l1_level(d)),
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


def _l1_level(data: dict[str, Any]) -> float | None:
    """An ℓ1 ball's confidence (files written before privopt 0.2 hold its failure probability)."""
    if "level" in data:
        level: float | None = data["level"]
        return level
    return None if data["delta"] is None else 1.0 - float(data["delta"])


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


# ---------------------------------------------------------------------- utilities
def _input_distribution(P: JointDistribution | np.ndarray) -> dict[str, Any]:
    """A utility's distribution: a JointDistribution by its fields, a vector as a list."""
    if isinstance(P, JointDistribution):
        return {"type": "JointDistribution", "data": distribution(P)}
    return {"type": "vector", "data": np.asarray(P).tolist()}


def _input_distribution_back(data: dict[str, Any]) -> JointDistribution | np.ndarray:
    if data["type"] == "JointDistribution":
        return distribution_back(data["data"])
    if data["type"] == "vector":
        return np.array(data["data"], dtype=np.float64)
    raise ValidationError("type", "'JointDistribution' or 'vector'", repr(data["type"]))


def _function(function: Callable[..., Any] | None, where: str) -> str | None:
    return None if function is None else function_path(function, where)


def _function_back(text: str | None, where: str) -> Any:
    return None if text is None else load_function(text, where)


def _information(u: MutualInformation) -> dict[str, Any]:
    return {"distribution": _input_distribution(u.distribution), "on": u.on}


def _sibson(u: SibsonMutualInformation) -> dict[str, Any]:
    return {"distribution": _input_distribution(u.distribution), "alpha": u.alpha, "on": u.on}


def _f_divergence(u: FDivergence) -> dict[str, Any]:
    return {
        "f": u.kind if u.kind is not None else {"function": _function(u.f, "utility.f")},
        "P0": _input_distribution(u.distributions[0]),
        "P1": _input_distribution(u.distributions[1]),
        "slope_at_infinity": u.slope_at_infinity,
    }


def _f_divergence_back(data: dict[str, Any]) -> FDivergence:
    f = data["f"]
    return FDivergence(
        f if isinstance(f, str) else _function_back(f["function"], "utility.f"),
        _input_distribution_back(data["P0"]),
        _input_distribution_back(data["P1"]),
        slope_at_infinity=data["slope_at_infinity"],
    )


def _sub_convex(u: SubConvexUtility) -> dict[str, Any]:
    return {
        "mu": _function(u.mu_function, "utility.mu"),
        "input_size": u.input_size,
        "name": u.name,
        "transform": _function(u.transform, "utility.transform"),
        "input_labels": None if u.input_labels is None else _labels(u.input_labels),
    }


def _sub_convex_back(data: dict[str, Any]) -> SubConvexUtility:
    utility = SubConvexUtility(
        _function_back(data["mu"], "utility.mu"),
        input_size=data["input_size"],
        name=data["name"],
        transform=_function_back(data["transform"], "utility.transform"),
    )
    if data["input_labels"] is not None:
        utility.input_labels = _labels_back(data["input_labels"])
    return utility


def _concave(u: ConcaveUtility) -> dict[str, Any]:
    return {
        "builder": _function(u.builder, "utility.builder"),
        "n_outputs": u.n_outputs,
        "input_size": u.input_size,
        "name": u.name,
    }


_UTILITY_FORMS: dict[type, tuple[Callable[[Any], dict[str, Any]], Callable[..., Any]]] = {
    MutualInformation: (
        _information,
        lambda d: MutualInformation(_input_distribution_back(d["distribution"]), on=d["on"]),
    ),
    NormalizedMutualInformation: (
        _information,
        lambda d: NormalizedMutualInformation(_input_distribution_back(d["distribution"]), on=d["on"]),
    ),
    SibsonMutualInformation: (
        _sibson,
        lambda d: SibsonMutualInformation(
            _input_distribution_back(d["distribution"]), d["alpha"], on=d["on"]
        ),
    ),
    FDivergence: (_f_divergence, _f_divergence_back),
    SubConvexUtility: (_sub_convex, _sub_convex_back),
    ExpectedGain: (
        lambda u: {
            "distribution": _input_distribution(u.distribution),
            "gain": u.gain.tolist(),
            "on": u.on,
        },
        lambda d: ExpectedGain(_input_distribution_back(d["distribution"]), d["gain"], on=d["on"]),
    ),
    ExpectedDistortion: (
        lambda u: {
            "distribution": _input_distribution(u.distribution),
            "loss": u.loss if isinstance(u.loss, str) else u.loss.tolist(),
            "on": u.on,
        },
        lambda d: ExpectedDistortion(_input_distribution_back(d["distribution"]), d["loss"], on=d["on"]),
    ),
    ConcaveUtility: (
        _concave,
        lambda d: ConcaveUtility(
            _function_back(d["builder"], "utility.builder"),
            n_outputs=d["n_outputs"],
            input_size=d["input_size"],
            name=d["name"],
        ),
    ),
}


def utility(u: SubConvexUtility | ConcaveUtility) -> dict[str, Any]:
    """``{"type": ..., "data": ...}`` for one of privopt's utilities (a user function by its import
    path ``module:function``)."""
    writer, _ = _form(_UTILITY_FORMS, u, "a utility")
    return {"type": type(u).__name__, "data": writer(u)}


def utility_back(data: dict[str, Any]) -> SubConvexUtility | ConcaveUtility:
    _, reader = _reader(_UTILITY_FORMS, data["type"], "a utility")
    result: SubConvexUtility | ConcaveUtility = reader(data["data"])
    return result


def definition(d: PrivacyDefinition) -> dict[str, Any]:
    """``{"type": ..., "data": ...}`` for one of privopt's definitions."""
    writer, _ = _form(_DEFINITION_FORMS, d, "a privacy definition")
    return {"type": type(d).__name__, "data": writer(d)}


def definition_back(data: dict[str, Any]) -> PrivacyDefinition:
    _, reader = _reader(_DEFINITION_FORMS, data["type"], "a privacy definition")
    result: PrivacyDefinition = reader(data["data"])
    return result


# ---------------------------------------------------------------------- problems
def problem(p: Problem) -> dict[str, Any]:
    """A :class:`~privopt.Problem` by its definition, utility and options (``vertex_limit`` and
    ``time_limit``: ``null`` for no limit; ``memory_limit`` only when it is not the machine's default)."""
    colgen = p.colgen
    return {
        "definition": definition(p.definition),
        "utility": utility(p.utility),
        "options": {
            "envelope": p.options.envelope,
            "self_pairs": p.options.self_pairs,
            "lip_counterpart": p.options.lip_counterpart,
            "vertex_limit": None if math.isinf(p.vertex_limit) else p.vertex_limit,
            "time_limit": p.time_limit,
            "backend": p.backend,
            # the machine's default is not pinned into the file: it belongs to where the file is solved
            **({} if p.memory_limit == default_memory_limit() else {"memory_limit": p.memory_limit}),
            "colgen": {
                name: getattr(colgen, name)
                for name in ColumnGenerationOptions.__dataclass_fields__
                if name not in MACHINE_OPTIONS
            },
        },
    }


def problem_back(data: dict[str, Any]) -> Problem:
    options = dict(data["options"])
    if options["vertex_limit"] is None:
        options["vertex_limit"] = math.inf
    if "timeout" in options:  # a file written before time_limit was the option's name
        options["time_limit"] = options.pop("timeout")
    return Problem(definition_back(data["definition"]), utility_back(data["utility"]), **options)


#: Every type with a JSON form here, by name: writer and reader of its ``data``.
FORMS: dict[str, tuple[Callable[[Any], dict[str, Any]], Callable[[dict[str, Any]], Any]]] = {
    **{cls.__name__: form for cls, form in _DEFINITION_FORMS.items()},
    **{cls.__name__: form for cls, form in _SET_FORMS.items()},
    **{cls.__name__: form for cls, form in _UTILITY_FORMS.items()},
    "JointDistribution": (distribution, distribution_back),
    "Problem": (problem, problem_back),
}


def form_of(obj: Any) -> tuple[str, Callable[[Any], dict[str, Any]]] | None:
    """The type tag and writer for a definition, set, utility, distribution or problem (``None`` for
    other objects)."""
    if isinstance(obj, PrivacyDefinition):
        writer, _ = _form(_DEFINITION_FORMS, obj, "a privacy definition")
    elif isinstance(obj, UncertaintySet):
        writer, _ = _form(_SET_FORMS, obj, "an uncertainty set")
    elif isinstance(obj, (SubConvexUtility, ConcaveUtility)):
        writer, _ = _form(_UTILITY_FORMS, obj, "a utility")
    elif type(obj) is JointDistribution:
        writer = distribution
    elif type(obj) is Problem:
        writer = problem
    else:
        return None
    return type(obj).__name__, writer
