"""``Problem.to_spec()``: a problem built in Python as the equivalent TOML spec (docs/spec-format.md).

The spec states a problem from one labelled distribution, ``[data]``; the writer chooses it so that the
spec rebuilds the same definition, set and utility from it:

- the definition's reference distribution (the centre of a ball, the first member of a finite set,
  the point, SRLIP's distribution): the set is then written around it (a ball by its radius and
  order, so the spec holds exactly the Python set);
- for a set without one (simplex, polytope, bounds without a reference), the utility's distribution
  when it has that shape, else the uniform one;
- for definitions without a set (LDP, metric privacy, ratio constraints on constant statistics), the
  utility's distribution when its inputs carry the definition's labels, else a one-dimensional table
  labelled like the definition's inputs.

A utility whose distribution is not the data's (e.g. mutual information under the true ``P*`` beside a
ball around ``P̂``) is written with its own ``p``, in the data's input order. User functions (a custom
``μ``, a concave builder, an ``f``) are written by their import path ``module:function``, as a
factory is; a function without one (a lambda, a nested function, one in ``__main__``) is a
:class:`~privopt.errors.ValidationError`, and so is a label a spec cannot hold (labels are strings or
integers) or a subclass defined outside privopt.

:func:`problem_to_spec` is registered with :mod:`privopt.problem.problem` by ``privopt/__init__.py``
(docs/design.md, "Layers": the problem layer cannot import this one).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import tomlkit
from tomlkit.items import Array, InlineTable, Item, Table

from privopt.app.files import write_text
from privopt.app.spec_definitions import function_path
from privopt.data.distribution import InputAlphabet, JointDistribution
from privopt.data.labels import unlabelled
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
from privopt.problem.problem import DEFAULT_TIME_LIMIT
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

#: The spec's kind of each definition whose pairs a spec can state.
_DEFINITION_KINDS: dict[type, str] = {
    LDP: "LDP",
    SensitiveLDP: "SensitiveLDP",
    LIP: "LIP",
    PML: "PML",
    SRLIP: "SRLIP",
    SRLIPComponent: "SRLIP",
    MetricLDP: "metric",
    RatioConstraints: "ratio",
    Pufferfish: "pufferfish",
}
#: The spec's kind of each utility.
_UTILITY_KINDS: dict[type, str] = {
    MutualInformation: "mi",
    NormalizedMutualInformation: "nmi",
    SibsonMutualInformation: "sibson",
    FDivergence: "fdivergence",
    ExpectedGain: "gain",
    ExpectedDistortion: "distortion",
    SubConvexUtility: "custom",
    ConcaveUtility: "concave",
}


def problem_to_spec(problem: Problem, path: str | Path | None = None) -> str:
    """The TOML spec of ``problem`` (module docstring), written to ``path`` when one is given
    (atomically: :func:`privopt.app.files.write_text`)."""
    document = tomlkit.document()
    for name, table in problem_spec(problem).items():
        document[name] = _table(table)
    text = tomlkit.dumps(document)
    if path is not None:
        write_text(path, text)
    return text


#: An array whose one-line form is longer than this is written one element per line.
_LINE = 100


def _table(values: dict[str, Any], depth: int = 0) -> Table:
    """A TOML table: a table in a top-level one stays a table (``[options.colgen]``,
    ``[definition.secrets]``); deeper ones and everything else are inline values."""
    table = tomlkit.table()
    for key, value in values.items():
        table[key] = _table(value, depth + 1) if isinstance(value, dict) and depth == 0 else _inline(value)
    return table


def _inline(value: Any, nested: bool = False) -> Item:
    """A value on one line; an array of arrays or a long array outside an inline table gets one element
    per line."""
    if isinstance(value, dict):
        inline: InlineTable = tomlkit.inline_table()
        for key, item in value.items():
            inline[key] = _inline(item, nested=True)
        return inline
    if isinstance(value, list):
        array: Array = tomlkit.array()
        array.extend(_inline(item, nested) for item in value)
        long = any(isinstance(item, list) for item in value) or len(array.as_string()) > _LINE
        if long and not nested:
            array.multiline(True)
        return array
    return tomlkit.item(value)


def problem_spec(problem: Problem) -> dict[str, Any]:
    """The spec of ``problem`` as the TOML document's tables."""
    definition, utility = problem.definition, problem.utility
    kind = _kind(_DEFINITION_KINDS, definition, "a privacy definition")
    utility_kind = _kind(_UTILITY_KINDS, utility, "a utility")
    data, on = _data(definition, utility)
    document: dict[str, Any] = {"data": _data_table(data)}
    document["definition"] = _definition_table(definition, kind, data, on)
    set_table = _set_table(definition)
    if set_table is not None:
        document["set"] = set_table
    document["utility"] = _utility_table(utility, utility_kind, data, on)
    options = _options_table(problem)
    if options:
        document["options"] = options
    return document


def _kind(kinds: dict[type, str], obj: Any, what: str) -> str:
    found = kinds.get(type(obj))
    if found is None:
        known = ", ".join(cls.__name__ for cls in kinds)
        raise ValidationError(
            "problem",
            f"{what} of privopt's own ({known}); a subclass defined elsewhere has code a spec cannot hold",
            type(obj).__name__,
        )
    return found


# ---------------------------------------------------------------------- the data
def _utility_distribution(utility: Any) -> tuple[JointDistribution | None, InputAlphabet]:
    """The labelled distribution a utility was built from, and the alphabet it reads."""
    given = getattr(utility, "distribution", None)
    if isinstance(given, JointDistribution):
        return given, getattr(utility, "on", "x")
    return None, "x"


def _data(definition: PrivacyDefinition, utility: Any) -> tuple[JointDistribution, InputAlphabet]:
    """The ``[data]`` distribution and the alphabet the mechanism reads (module docstring)."""
    if isinstance(definition, SRLIP | SRLIPComponent):
        return definition.distribution, "u"
    F = definition.uncertainty
    U, utility_on = _utility_distribution(utility)
    if F is not None:
        reference = F.reference()
        if reference is not None:
            return reference, definition.on
        if U is not None and U.shape == F.shape:
            return U, definition.on
        return JointDistribution(np.full(F.shape, 1.0 / F.n_x)), definition.on
    labels = definition.input_labels()
    if U is not None and (labels is None or U.input_labels(utility_on) == tuple(labels)):
        return U, utility_on
    n = len(labels) if labels is not None else utility.input_size
    names = None if labels is None or unlabelled(tuple(labels)) else tuple(labels)
    p = np.asarray(getattr(utility, "p", np.full(n, 1.0 / n)), dtype=np.float64)
    if definition.on == "u":  # one value of S: the inputs are U's labels
        return JointDistribution(p[None, :], u_labels=names), "u"
    return JointDistribution(p, s_labels=names), "x"


def _spec_label(label: Hashable, where: str) -> str | int:
    if isinstance(label, np.integer):
        return int(label)
    if isinstance(label, str) or (isinstance(label, int) and not isinstance(label, bool)):
        return label
    raise ValidationError(
        where, "labels a spec can hold (strings or integers)", f"{label!r} ({type(label).__name__})"
    )


def _labels(labels: Sequence[Hashable], where: str) -> list[str | int]:
    return [_spec_label(label, f"{where}[{i}]") for i, label in enumerate(labels)]


def _data_table(P: JointDistribution) -> dict[str, Any]:
    table: dict[str, Any] = {}
    if P.n_u == 1 and unlabelled(P.u_labels):
        table["probabilities"] = P.probabilities[:, 0].tolist()
    else:
        table["probabilities"] = P.probabilities.tolist()
    if not unlabelled(P.s_labels):
        table["s_labels"] = _labels(P.s_labels, "data.s_labels")
    if not unlabelled(P.u_labels):
        table["u_labels"] = _labels(P.u_labels, "data.u_labels")
    if P.n is not None:
        table["n"] = P.n
    if P.sensitive is not None:
        table["sensitive"] = P.sensitive
    if P.public is not None:
        table["public"] = P.public
    return table


# ---------------------------------------------------------------------- the definition
def _record(label: Hashable, where: str) -> Any:
    """A record ``(s, u)`` as the spec writes it: ``[s, u]``, or ``s`` alone when ``|U| = 1``."""
    if isinstance(label, tuple):
        return [_spec_label(part, f"{where}[{i}]") for i, part in enumerate(label)]
    return _spec_label(label, where)


def _atom(kind: str, key: object, on: InputAlphabet, where: str) -> dict[str, Any]:
    """One atom of a statistic (:mod:`privopt.data.statistics`) as a spec statistic table."""
    if kind == "marginal":
        return {"marginal": True}
    if kind in ("weights", "event", "joint"):
        if not isinstance(key, tuple):
            raise TypeError(f"a {kind} atom keeps a tuple, got {key!r}")
        if kind == "weights":
            return {"weights": [float(v) for v in key]}
        return {kind: [_record(r, f"{where}.{kind}[{i}]") for i, r in enumerate(key)]}
    if not isinstance(key, Hashable):
        raise TypeError(f"an {kind} atom keeps a label, got {key!r}")
    if kind == "s" or (kind == "x" and on == "u"):
        return {kind: _spec_label(key, f"{where}.{kind}")}
    return {"x": _record(key, f"{where}.x")}


def _statistic(statistic: Statistic, on: InputAlphabet, where: str) -> dict[str, Any]:
    tables = []
    for coefficient, kind, key in statistic.atoms:
        table = _atom(kind, key, on, where)
        if coefficient != 1.0:
            table["coefficient"] = float(coefficient)
        tables.append(table)
    return tables[0] if len(tables) == 1 else {"sum": tables}


def _definition_table(
    definition: PrivacyDefinition, kind: str, data: JointDistribution, on: InputAlphabet
) -> dict[str, Any]:
    table: dict[str, Any] = {"kind": kind, "eps": definition.eps}
    if kind in ("LDP", "SensitiveLDP", "LIP", "ratio", "pufferfish") and on == "u":
        table["on"] = "u"
    if isinstance(definition, SRLIP | SRLIPComponent):
        table["attributes"] = list(definition.attributes)
        if isinstance(definition, SRLIPComponent):
            table["component"] = definition.attribute
    elif isinstance(definition, MetricLDP):
        table["distances"] = definition.distances.tolist()
    elif isinstance(definition, Pufferfish):
        table.update(_pufferfish(definition, data))
    elif type(definition) is RatioConstraints:
        pairs = []
        for i, pair in enumerate(definition.pair_spec):
            where = f"definition.pairs[{i}]"
            entry: dict[str, Any] = {
                "left": [_statistic(st, on, f"{where}.left[{j}]") for j, st in enumerate(pair.left)],
                "right": [_statistic(st, on, f"{where}.right[{j}]") for j, st in enumerate(pair.right)],
            }
            if pair.scale != 1.0:
                entry["scale"] = pair.scale
            if pair.label:
                entry["label"] = pair.label
            pairs.append(entry)
        table["pairs"] = pairs
        if definition.name != "RatioConstraints":
            table["name"] = definition.name
    return table


def _pufferfish(definition: Pufferfish, data: JointDistribution) -> dict[str, Any]:
    names = {secret: str(secret) for secret in definition.events}
    if len(set(names.values())) != len(names):
        raise ValidationError(
            "definition.secrets", "secret names that stay distinct as text (a spec names them)", repr(names)
        )
    order = {record: i for i, record in enumerate(data.x_labels)}
    table: dict[str, Any] = {
        "secrets": {
            names[secret]: {
                "records": [
                    _record(r, f"definition.secrets.{names[secret]}")
                    for r in sorted(event, key=lambda r: order.get(r, len(order)))
                ]
            }
            for secret, event in definition.events.items()
        },
        "discriminative_pairs": [[names[a], names[b]] for a, b in definition.discriminative_pairs],
    }
    if definition.directed:
        table["directed"] = True
    if definition.name != "Pufferfish":
        table["name"] = definition.name
    return table


# ---------------------------------------------------------------------- the set
def _set_table(definition: PrivacyDefinition) -> dict[str, Any] | None:
    if isinstance(definition, LDP | MetricLDP | SRLIP | SRLIPComponent):
        return None
    F = definition.uncertainty
    if F is None:
        return {"kind": "none"}
    return _set(F)


def _set(F: UncertaintySet) -> dict[str, Any]:
    if isinstance(F, Point):
        return {"kind": "point"}
    if isinstance(F, Simplex):
        return {"kind": "simplex"}
    if isinstance(F, RenyiBall):
        return {"kind": "renyi", "radius": F.radius, "order": F.order}
    if isinstance(F, L1Ball):
        return {"kind": "l1", "radius": F.radius}
    if isinstance(F, FiniteSet):
        return {"kind": "finite", "distributions": [P.probabilities.tolist() for P in F.distributions]}
    if isinstance(F, Polytope):
        return {"kind": "polytope", "vertices": F.vertex_array.tolist()}
    if isinstance(F, ConditionalBounds):
        table: dict[str, Any] = {"kind": "bounds", "lower": F.lower.tolist()}
        if F.upper is not None:
            table["upper"] = F.upper.tolist()
        return table
    raise ValidationError(
        "problem", "an uncertainty set of privopt's own (a spec cannot hold another)", type(F).__name__
    )


# ---------------------------------------------------------------------- the utility
def _in_data_order(
    vector: np.ndarray, labels: tuple[Hashable, ...] | None, data_labels: tuple[Hashable, ...]
) -> list[float]:
    """``vector`` (over inputs labelled ``labels``) in the order of the data's inputs (by position
    when either side is unlabelled or the labels differ, as privopt matches rows)."""
    if labels is not None and set(labels) == set(data_labels) and len(labels) == len(data_labels):
        index = {label: i for i, label in enumerate(labels)}
        vector = vector[[index[label] for label in data_labels]]
    return [float(v) for v in vector]


def _distribution_key(
    table: dict[str, Any],
    key: str,
    vector: np.ndarray,
    labels: tuple[Hashable, ...] | None,
    data: JointDistribution,
    on: InputAlphabet,
) -> None:
    """Write ``vector`` as ``table[key]`` unless it is the data's own marginal."""
    data_labels = data.input_labels(on)
    ordered = _in_data_order(vector, labels, data_labels)
    own = data.marginal(on)
    if len(ordered) != own.size or not np.array_equal(np.asarray(ordered), own):
        table[key] = ordered


def _utility_table(utility: Any, kind: str, data: JointDistribution, on: InputAlphabet) -> dict[str, Any]:
    table: dict[str, Any] = {"kind": kind}
    labels = utility.input_labels if isinstance(utility, SubConvexUtility) else None
    if isinstance(utility, MutualInformation | SibsonMutualInformation):
        _distribution_key(table, "p", utility.p, labels, data, on)
        if isinstance(utility, SibsonMutualInformation):
            table["alpha"] = utility.alpha
    elif isinstance(utility, FDivergence):
        if utility.kind is not None:
            table["f"] = utility.kind
        else:
            assert utility.f is not None  # FDivergence keeps a user f when it has no kind
            table["f"] = function_path(utility.f, "utility.f")
        table["p0"] = _in_data_order(utility.p0, labels, data.input_labels(on))
        table["p1"] = _in_data_order(utility.p1, labels, data.input_labels(on))
        if utility.slope_at_infinity is not None:
            table["slope_at_infinity"] = float(utility.slope_at_infinity)
    elif isinstance(utility, ExpectedGain | ExpectedDistortion):
        given = utility.distribution
        p = given.marginal(utility.on) if isinstance(given, JointDistribution) else given
        given_labels = given.input_labels(utility.on) if isinstance(given, JointDistribution) else None
        _distribution_key(table, "p", p, given_labels, data, on)
        if isinstance(utility, ExpectedGain):
            table["gain"] = utility.gain.tolist()
        elif not (isinstance(utility.loss, str) and utility.loss == "hamming"):
            table["loss"] = utility.loss if isinstance(utility.loss, str) else utility.loss.tolist()
    elif isinstance(utility, SubConvexUtility):
        table["mu"] = function_path(utility.mu_function, "utility.mu")
        if utility.transform is not None:
            table["transform"] = function_path(utility.transform, "utility.transform")
        if utility.name != "custom":
            table["name"] = utility.name
    else:
        assert isinstance(utility, ConcaveUtility)
        table["builder"] = function_path(utility.builder, "utility.builder")
        table["n_outputs"] = utility.n_outputs
        if utility.name != "concave":
            table["name"] = utility.name
    return table


# ---------------------------------------------------------------------- options
def _options_table(problem: Problem) -> dict[str, Any]:
    """The options that differ from the spec's defaults (``inf``: no limit)."""
    table: dict[str, Any] = {}
    if problem.options.envelope != "lower":
        table["envelope"] = problem.options.envelope
    if problem.options.self_pairs:
        table["self_pairs"] = True
    if problem.options.lip_counterpart != "auto":
        table["lip_counterpart"] = problem.options.lip_counterpart
    if problem.vertex_limit != 10**9:
        table["vertex_limit"] = problem.vertex_limit
    if problem.time_limit != DEFAULT_TIME_LIMIT:
        table["time_limit"] = math.inf if problem.time_limit is None else problem.time_limit
    if problem.backend != "auto":
        table["backend"] = problem.backend
    if problem.memory_limit != default_memory_limit():
        table["memory_limit"] = problem.memory_limit
    defaults = ColumnGenerationOptions()
    colgen = {
        name: getattr(problem.colgen, name)
        for name in ColumnGenerationOptions.__dataclass_fields__
        if name not in MACHINE_OPTIONS and getattr(problem.colgen, name) != getattr(defaults, name)
    }
    if colgen:
        table["colgen"] = colgen
    return table
