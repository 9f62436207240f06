"""Problem specifications in TOML, for the command line (``privopt design spec.toml``).

A spec names the data, the privacy definition, the uncertainty set, the utility and the options.
The format is the pydantic model below (one class per table); ``docs/spec-format.md`` shows the
tables generated from it by :func:`reference_tables`, so the documentation and the checks cannot
drift apart. Paths in ``[data]`` and ``[output]`` are relative to the spec file.

Every mistake is a :class:`~privopt.errors.ValidationError` naming ``[table].key``: an unknown key
(with the closest valid one: "did you mean `kind`?"), a value of the wrong type (``eps = "one"``,
``eps = true``: nothing is coerced), a value out of range, or a key that means nothing for the
table's ``kind`` (``[set] kind = "l1"`` with ``level``). Nothing is silently ignored.
"""

from __future__ import annotations

import contextlib
import difflib
import math
import tomllib
import warnings
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

import numpy as np
import pydantic
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

import privopt as po
from privopt.app.files import read_csv, read_text
from privopt.app.spec_definitions import (
    FUNCTION_FORM,
    STATISTIC_KEYS,
    SpecLabels,
    call_factory,
    load_factory,
)
from privopt.data.distribution import InputAlphabet
from privopt.data.statistics import Statistic
from privopt.definitions import SRLIPComponent
from privopt.errors import ValidationError
from privopt.problem.problem import DEFAULT_TIME_LIMIT
from privopt.tolerances import EPS_MAX
from privopt.validation import as_float_array

#: Draws of the synthetic distribution tried before giving up on one that observes every sensitive
#: value (each draw succeeds with probability close to 1 once ``n`` is a few times ``|S|``).
SYNTHETIC_DRAWS = 1000


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


#: Choices are compared in lower case (``kind = "SensitiveLDP"`` and ``"sensitiveldp"`` are the same).
_LOWER = BeforeValidator(_lower)
DataFormat = Annotated[Literal["csv", "adult"], _LOWER]
Split = Annotated[Literal["train", "test", "all"], _LOWER]
DefinitionKind = Annotated[
    Literal["ldp", "sensitiveldp", "rldp", "lip", "pml", "ratio", "pufferfish", "metric", "srlip"], _LOWER
]
Alphabet = Annotated[Literal["x", "u"], _LOWER]
SetKind = Annotated[
    Literal["point", "renyi", "l1", "simplex", "finite", "polytope", "bounds", "none"], _LOWER
]
UtilityKind = Annotated[
    Literal["mi", "nmi", "sibson", "fdivergence", "gain", "distortion", "custom", "concave"], _LOWER
]
Route = Annotated[Literal["auto", "vertex", "colgen", "lp", "cvxpy", "closed_form"], _LOWER]
Backend = Annotated[Literal["auto", "cdd", "ppl"], _LOWER]

Label = str | int
Positive = Annotated[float, Field(gt=0)]
Count = Annotated[int, Field(ge=1)]
Probability = Annotated[float, Field(ge=0.0, le=1.0)]
#: A probability table: rows ``s``, columns ``u`` (or one list, a 1-D distribution).
Table = list[list[Probability]] | list[Probability]
Matrix = list[list[float]]
#: ``module:function``, a user function (imported from the spec's folder or sys.path).
FunctionPath = Annotated[str, Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")]


def _key_error(key: str, expected: str) -> PydanticCustomError:
    """An error about ``key`` of the table being validated (``""``: the table itself)."""
    return PydanticCustomError("spec_key", "{key}: expected {expected}", {"key": key, "expected": expected})


class _Table(BaseModel):
    """A TOML table: unknown keys are errors, types are strict (no coercion), no NaN or inf."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)

    #: The keys that apply to each kind of the table (``None``: all keys apply).
    kind_keys: ClassVar[dict[str, frozenset[str]] | None] = None

    def kind_of(self) -> str:
        return str(getattr(self, "kind", ""))

    @pydantic.model_validator(mode="after")
    def _keys_fit_the_kind(self) -> _Table:
        if self.kind_keys is None:
            return self
        kind = self.kind_of()
        allowed = self.kind_keys[kind]
        for key in sorted(self.model_fields_set - allowed - {"kind"}):
            raise _key_error(
                key, f"a key that applies to kind {kind!r} ({', '.join(sorted(allowed)) or 'none'})"
            )
        return self


class Synthetic(_Table):
    """``[data] synthetic = {...}``: a Jeffreys-prior ``P*`` over ``shape``, then ``n`` samples."""

    shape: Annotated[list[Count], Field(min_length=2, max_length=2)] = Field(
        default=[2, 2], description="[|S|, |U|], two integers >= 1"
    )
    seed: Annotated[int, Field(ge=0)] = Field(default=0, description="an integer >= 0, the random seed")
    n: Count = Field(default=1000, description="an integer >= |S|, the number of samples")

    @pydantic.model_validator(mode="after")
    def _enough_samples(self) -> Synthetic:
        if self.n < self.shape[0]:
            raise _key_error(
                "n", f"at least |S| = {self.shape[0]} samples (every sensitive value must be observed)"
            )
        return self


class DataTable(_Table):
    """``[data]``: one of a data file (``path``), inline ``probabilities``, or a ``synthetic`` draw."""

    path: str | None = Field(
        default=None, description="a file path: a CSV file, or the UCI Adult folder (format = 'adult')"
    )
    format: DataFormat = Field(
        default="csv", description="'csv' (a header row, then one row per record) or 'adult'"
    )
    sensitive: str | list[str] | None = Field(
        default=None,
        description="a column name or a list of them: S (required with path; with probabilities, its name)",
    )
    public: str | list[str] | None = Field(
        default=None, description="a column name or a list of them: U (with probabilities, its name)"
    )
    split: Split = Field(default="train", description="'train', 'test' or 'all' (adult only)")
    probabilities: list[list[float]] | list[float] | None = Field(
        default=None,
        description="a list of rows of numbers, P(s, u) with rows s and columns u, or one list (a 1-D distribution)",
    )
    n: Count | None = Field(
        default=None,
        description="an integer >= 1, the sample size behind probabilities (for confidence sets)",
    )
    s_labels: list[Label] | None = Field(
        default=None, description="a list of distinct strings or integers, the labels of S"
    )
    u_labels: list[Label] | None = Field(
        default=None, description="a list of distinct strings or integers, the labels of U"
    )
    synthetic: Synthetic | None = Field(
        default=None, description="a table such as { shape = [2, 3], seed = 7, n = 1000 }"
    )

    kind_keys: ClassVar[dict[str, frozenset[str]] | None] = {
        "path": frozenset({"path", "format", "sensitive", "public", "split"}),
        "probabilities": frozenset({"probabilities", "n", "s_labels", "u_labels", "sensitive", "public"}),
        "synthetic": frozenset({"synthetic"}),
    }

    def kind_of(self) -> str:
        sources = [key for key in ("path", "probabilities", "synthetic") if key in self.model_fields_set]
        if len(sources) != 1:
            raise _key_error("", "exactly one of the keys path, probabilities, synthetic")
        if sources == ["path"] and self.sensitive is None:
            raise _key_error("sensitive", "the sensitive column name(s), with path")
        return sources[0]


def _one_or_list(value: Any) -> Any:
    """A single statistic (a table or ``"marginal"``) stands for a list of one."""
    return value if isinstance(value, list) else [value]


def _shorthand(word: str, table: dict[str, Any], list_key: str | None = None) -> Callable[[Any], Any]:
    """Read the string ``word`` as the table ``table`` (and a list as ``{list_key = list}``)."""

    def expand(value: Any) -> Any:
        if isinstance(value, str) and value.lower() == word:
            return table
        if list_key is not None and isinstance(value, list):
            return {list_key: value}
        return value

    return expand


class StatisticTable(_Table):
    """A statistic of a column ``w = W[:, y]`` in `left` and `right` of a pair (kind ``ratio``): a table
    with exactly one of these keys, or the string `"marginal"` (docs/custom-definitions.md)."""

    s: Label | None = Field(default=None, description="a label of S: P(Y=y | S=s)")
    x: Label | list[Label] | None = Field(
        default=None,
        description="a mechanism input: P(Y=y | X=x), x a record [s, u] (a label of U when on = 'u')",
    )
    event: list[Label | list[Label]] | None = Field(
        default=None, description="a list of records [s, u]: P(Y=y | X ∈ event)"
    )
    joint: list[Label | list[Label]] | None = Field(
        default=None, description="a list of records [s, u]: P(Y=y, X ∈ event)"
    )
    weights: list[Annotated[float, Field(ge=0.0)]] | None = Field(
        default=None, description="a list of numbers >= 0, one per mechanism input: vᵀw"
    )
    marginal: Literal[True] | None = Field(
        default=None, description='true (or the string "marginal" instead of the table): P(Y=y)'
    )
    sum: Annotated[list[StatisticTable], Field(min_length=1)] | None = Field(
        default=None, description="a list of statistics: their sum (each may have a coefficient)"
    )
    coefficient: Annotated[float, Field(ge=0.0)] = Field(
        default=1.0, description="a number >= 0 multiplying the statistic (with one of the keys above)"
    )

    @pydantic.model_validator(mode="before")
    @classmethod
    def _marginal_shorthand(cls, value: Any) -> Any:
        return _shorthand("marginal", {"marginal": True})(value)

    def kind_of(self) -> str:
        given = sorted(self.model_fields_set - {"coefficient"})
        if len(given) != 1:
            keys = ", ".join((*STATISTIC_KEYS, "sum"))
            raise _key_error("", f"a statistic: exactly one of the keys {keys} (and a coefficient)")
        return given[0]

    @pydantic.model_validator(mode="after")
    def _one_key(self) -> StatisticTable:
        self.kind_of()
        return self


Statistics = Annotated[list[StatisticTable], BeforeValidator(_one_or_list), Field(min_length=1)]


class PairTable(_Table):
    """`[[definition.pairs]]`: one ratio pair of kind ``ratio``, ``max(left) <= e^{scale·ε} min(right)``
    for every output ``y`` and every distribution of the `[set]`."""

    left: Statistics = Field(description="a statistic or a list of them (the largest is bounded)")
    right: Statistics = Field(description="a statistic or a list of them (the smallest bounds)")
    scale: Positive = Field(default=1.0, description="a number > 0, the pair's level in units of ε")
    label: str = Field(default="", description="a text naming the pair in audit witnesses")


class SecretTable(_Table):
    """`[definition.secrets]` (kind ``pufferfish``): each secret is an event on the records ``(s, u)`` —
    a list of records, or a table of conditions on `s` and `u` (a key left out means any value;
    `{}` is every record)."""

    records: list[Label | list[Label]] | None = Field(
        default=None, description="a list of records [s, u] (or the list itself instead of the table)"
    )
    s: Label | list[Label] | None = Field(
        default=None, description="a label of S or a list of them: records whose S is among them"
    )
    u: Label | list[Label] | None = Field(
        default=None, description="a label of U or a list of them: records whose U is among them"
    )

    @pydantic.model_validator(mode="before")
    @classmethod
    def _records_shorthand(cls, value: Any) -> Any:
        return {"records": value} if isinstance(value, list) else value

    @pydantic.model_validator(mode="after")
    def _records_or_conditions(self) -> SecretTable:
        if self.records is not None and {"s", "u"} & self.model_fields_set:
            raise _key_error("records", "records or conditions on s and u, not both")
        return self


#: The names of two secrets (kind ``pufferfish``).
SecretPair = Annotated[list[str], Field(min_length=2, max_length=2)]
Distance = Annotated[float, Field(ge=0.0, allow_inf_nan=True)]


class DefinitionTable(_Table):
    """`[definition]`: the privacy definition — a built-in `kind`, a declarative one (`ratio`,
    `pufferfish`, `metric`), or a Python `factory`."""

    kind: DefinitionKind | None = Field(
        default=None,
        description="'LDP', 'SensitiveLDP' (alias 'RLDP'), 'LIP', 'PML', 'SRLIP', 'ratio', 'pufferfish' or "
        "'metric' (any case; required unless factory is given)",
    )
    eps: Annotated[float, Field(ge=0.0, le=EPS_MAX)] = Field(
        description=f"a number in [0, {EPS_MAX:.2f}], the privacy parameter ε in nats"
    )
    on: Alphabet = Field(
        default="x", description="'x': the mechanism reads X = S × U; 'u': only U (SRLIP: always U)"
    )
    pairs: list[PairTable] | None = Field(
        default=None,
        description="a list of pairs { left = ..., right = ... } (ratio; see [[definition.pairs]])",
    )
    secrets: dict[str, SecretTable] | None = Field(
        default=None, description="a table name = event (pufferfish; see [definition.secrets])"
    )
    discriminative_pairs: list[SecretPair] | None = Field(
        default=None, description='a list of pairs of secret names, e.g. [["a", "b"]] (pufferfish)'
    )
    directed: bool = Field(
        default=False,
        description="true or false; true: only P(y|a) <= e^ε P(y|b) for a pair [a, b] (pufferfish)",
    )
    distances: list[list[Distance]] | None = Field(
        default=None,
        description="a square matrix of numbers >= 0, d(x, x') between the mechanism inputs in the data's "
        "order (metric; inf: no constraint)",
    )
    name: str | None = Field(
        default=None, description="a text naming the definition in reports (ratio, pufferfish)"
    )
    attributes: list[Count] | None = Field(
        default=None,
        description="the sizes [|X^1|, ..., |X^m|] of the public attributes, whose product is |U| (srlip)",
    )
    component: Annotated[int, Field(ge=0)] | None = Field(
        default=None,
        description="an attribute index j: the per-attribute condition of SRLIP on X^j alone (srlip; "
        "privacy-funnel paper Thm. 4)",
    )
    factory: str | None = Field(
        default=None,
        description="'module:function': a Python function (P, eps) returning the definition; the module is "
        "imported from the spec's folder or sys.path (instead of kind)",
    )

    kind_keys: ClassVar[dict[str, frozenset[str]] | None] = {
        "ldp": frozenset({"eps", "on"}),
        "sensitiveldp": frozenset({"eps", "on"}),
        "rldp": frozenset({"eps", "on"}),
        "lip": frozenset({"eps", "on"}),
        "pml": frozenset({"eps"}),
        "ratio": frozenset({"eps", "on", "pairs", "name"}),
        "pufferfish": frozenset({"eps", "on", "secrets", "discriminative_pairs", "directed", "name"}),
        "metric": frozenset({"eps", "on", "distances"}),
        "srlip": frozenset({"eps", "attributes", "component"}),
        "factory": frozenset({"eps", "on", "factory"}),
    }
    #: The keys each kind cannot do without.
    required_keys: ClassVar[dict[str, tuple[str, ...]]] = {
        "ratio": ("pairs",),
        "pufferfish": ("secrets", "discriminative_pairs"),
        "metric": ("distances",),
        "srlip": ("attributes",),
    }

    def kind_of(self) -> str:
        if self.factory is not None:
            if self.kind is not None:
                raise _key_error("kind", "no kind with factory (the factory builds the definition)")
            return "factory"
        if self.kind is None:
            raise _key_error(
                "kind",
                "a kind ('LDP', 'SensitiveLDP', ..., 'ratio', 'pufferfish', 'metric', 'srlip') or a factory",
            )
        return self.kind

    @pydantic.model_validator(mode="after")
    def _required_keys_of_the_kind(self) -> DefinitionTable:
        kind = self.kind_of()
        for key in self.required_keys.get(kind, ()):
            if key not in self.model_fields_set:
                raise _key_error(
                    key, f"{type(self).model_fields[key].description}, required for kind {kind!r}"
                )
        return self


class SetTable(_Table):
    """``[set]``: the distributions the definition must hold for (not for LDP, metric, SRLIP or a factory);
    labelled like the data."""

    kind: SetKind = Field(
        default="point",
        description="'point' (P itself), 'renyi', 'l1', 'simplex', 'finite', 'polytope', 'bounds' or 'none' "
        "(ratio constraints on constant statistics only)",
    )
    level: Annotated[float, Field(gt=0.0, lt=1.0)] | None = Field(
        default=None,
        description="a number in (0, 1), the confidence 1 − β of the set (renyi: the χ² set, default 0.95; "
        "l1: the Weissman radius, default 1 − 1e-6)",
    )
    radius: Annotated[float, Field(ge=0.0)] | None = Field(
        default=None,
        description="a number >= 0, the radius (B for renyi, β for l1; instead of level)",
    )
    order: Annotated[float, Field(gt=0.0)] | None = Field(
        default=None, description="a number > 0, the Rényi order α (renyi with radius; default 2)"
    )
    n: Count | None = Field(
        default=None,
        description="an integer >= 1, the sample size of the confidence set (default: the data's)",
    )
    delta: Annotated[float, Field(gt=0.0, lt=1.0)] | None = Field(
        default=None,
        description="deprecated (use level = 1 − delta): the failure probability of the Weissman radius (l1)",
    )
    distributions: list[Table] | None = Field(
        default=None,
        description="a list of probability tables shaped like the data's (finite: the set's members)",
    )
    vertices: list[list[Probability]] | None = Field(
        default=None,
        description="a list of distributions on X = S × U, each a flat list in the data's order (polytope)",
    )
    lower: Matrix | None = Field(
        default=None, description="a |S| × |U| matrix of lower bounds on P(u|s) (bounds)"
    )
    upper: Matrix | None = Field(
        default=None, description="a |S| × |U| matrix of upper bounds on P(u|s) (bounds; default none)"
    )

    kind_keys: ClassVar[dict[str, frozenset[str]] | None] = {
        "point": frozenset(),
        "simplex": frozenset(),
        "renyi": frozenset({"level", "radius", "order", "n"}),
        "l1": frozenset({"level", "radius", "n", "delta"}),
        "finite": frozenset({"distributions"}),
        "polytope": frozenset({"vertices"}),
        "bounds": frozenset({"lower", "upper"}),
        "none": frozenset(),
    }
    #: The keys each kind cannot do without.
    required_keys: ClassVar[dict[str, tuple[str, ...]]] = {
        "finite": ("distributions",),
        "polytope": ("vertices",),
        "bounds": ("lower",),
    }

    @pydantic.model_validator(mode="after")
    def _radius_or_calibration(self) -> SetTable:
        given = self.model_fields_set
        for key in self.required_keys.get(self.kind, ()):
            if key not in given:
                raise _key_error(
                    key, f"{type(self).model_fields[key].description}, required for kind {self.kind!r}"
                )
        if "radius" in given:
            for key in sorted(given & {"level", "n", "delta"}):
                raise _key_error(key, f"no {key} when radius is given (the radius fixes the set)")
        elif "order" in given:
            raise _key_error("order", "order only with radius (the χ² calibration holds for order 2)")
        if {"level", "delta"} <= given:
            raise _key_error("delta", "level or the deprecated delta, not both")
        return self


class UtilityTable(_Table):
    """``[utility]``: what the mechanism maximises; distributions over the mechanism's inputs default
    to the data's (its ``P_X``, or ``P_U`` when the definition reads ``U``)."""

    kind: UtilityKind = Field(
        default="mi",
        description="'mi' (mutual information), 'nmi' (I / H(X)), 'sibson', 'fdivergence', 'gain' (expected "
        "gain), 'distortion' (minus the expected distortion), 'custom' (a sub-convex μ of your own) or "
        "'concave' (a cvxpy expression of your own)",
    )
    alpha: Annotated[float, Field(gt=1.0)] = Field(
        default=2.0, description="a number > 1, the order α (sibson)"
    )
    p: list[Probability] | None = Field(
        default=None,
        description="a distribution over the mechanism's inputs, in the data's order (instead of the data's)",
    )
    f: str | None = Field(
        default=None,
        description="'kl', 'tv', 'chi2', 'hellinger' or 'module:function', a convex f with f(1) = 0 "
        "(fdivergence)",
    )
    p0: list[Probability] | None = Field(
        default=None, description="the first distribution over the inputs (fdivergence; default the data's)"
    )
    p1: list[Probability] | None = Field(
        default=None, description="the second distribution over the inputs (fdivergence; required)"
    )
    slope_at_infinity: Annotated[float, Field(allow_inf_nan=True)] | None = Field(
        default=None, description="lim f(t)/t as t → ∞, for a user f (fdivergence; inf allowed)"
    )
    gain: Matrix | None = Field(
        default=None, description="a matrix with one row per input and one column per output (gain)"
    )
    loss: Literal["hamming"] | Matrix | None = Field(
        default=None, description="'hamming' (default) or a loss matrix, one row per input (distortion)"
    )
    mu: FunctionPath | None = Field(
        default=None,
        description="'module:function': μ of a (|X|, m) array of columns, sublinear (custom)",
    )
    transform: FunctionPath | None = Field(
        default=None, description="'module:function': an increasing g of Σ_y μ(w_y) (custom)"
    )
    builder: FunctionPath | None = Field(
        default=None,
        description="'module:function': a concave cvxpy expression of the channel W (concave)",
    )
    n_outputs: Count | None = Field(
        default=None, description="an integer >= 1, the number of outputs of W (concave)"
    )
    name: str | None = Field(
        default=None, description="a text naming the utility in reports (custom, concave)"
    )

    kind_keys: ClassVar[dict[str, frozenset[str]] | None] = {
        "mi": frozenset({"p"}),
        "nmi": frozenset({"p"}),
        "sibson": frozenset({"alpha", "p"}),
        "fdivergence": frozenset({"f", "p0", "p1", "slope_at_infinity"}),
        "gain": frozenset({"gain", "p"}),
        "distortion": frozenset({"loss", "p"}),
        "custom": frozenset({"mu", "transform", "name"}),
        "concave": frozenset({"builder", "n_outputs", "name"}),
    }
    #: The keys each kind cannot do without.
    required_keys: ClassVar[dict[str, tuple[str, ...]]] = {
        "fdivergence": ("f", "p1"),
        "gain": ("gain",),
        "custom": ("mu",),
        "concave": ("builder", "n_outputs"),
    }

    @pydantic.model_validator(mode="after")
    def _required_keys_of_the_kind(self) -> UtilityTable:
        for key in self.required_keys.get(self.kind, ()):
            if key not in self.model_fields_set:
                raise _key_error(
                    key, f"{type(self).model_fields[key].description}, required for kind {self.kind!r}"
                )
        return self


class ColgenTable(_Table):
    """``[options.colgen]``: budgets of column generation (all optional; see
    `po.routes.colgen.ColumnGenerationOptions`)."""

    time_limit: Positive | None = Field(default=None, description="seconds for the whole run (default 600)")
    max_iterations: Count | None = Field(default=None, description="master/pricing rounds")
    starts: Count | None = Field(default=None, description="random local searches per pricing round")
    columns_per_round: Count | None = Field(default=None, description="improving columns added per round")
    bound_fraction: Annotated[float, Field(ge=0.0, le=1.0)] | None = Field(
        default=None, description="share of the time budget reserved for the upper bound"
    )
    stabilized_fraction: Annotated[float, Field(ge=0.0, le=1.0)] | None = Field(
        default=None, description="share of the time budget in which stabilised rounds may run"
    )
    bound_nodes: Count | None = Field(default=None, description="node budget of the branch and bound")
    gap_tolerance: Annotated[float, Field(ge=0.0)] | None = Field(
        default=None, description="stop at this certified relative gap"
    )
    max_columns: Count | None = Field(default=None, description="columns generated in all")
    master_columns: Count | None = Field(default=None, description="columns the restricted master keeps")
    seed: Annotated[int, Field(ge=0)] | None = Field(default=None, description="seed of the random starts")


class OptionsTable(_Table):
    """``[options]``: solver options (all optional)."""

    envelope: str = Field(default="lower", description="'lower', 'box' or 'facets:k'")
    self_pairs: bool = Field(default=False, description="true or false; true: the paper-faithful PolyOpt")
    lip_counterpart: Literal["auto", "rectangular", "pairwise"] = Field(
        default="auto",
        description="'auto', 'rectangular' or 'pairwise': how LIP is compiled over a ball or polytope",
    )
    route: Route = Field(
        default="auto",
        description="'auto', 'vertex', 'colgen', 'cvxpy' (concave utilities) or 'closed_form'",
    )
    vertex_limit: Annotated[int, Field(ge=1)] | Annotated[float, Field(ge=1.0, allow_inf_nan=True)] = Field(
        default=10**9,
        description="a number >= 1 (inf: no limit): vertex enumerations whose McMullen bound exceeds it are "
        "refused",
    )
    time_limit: Annotated[float, Field(gt=0, allow_inf_nan=True)] | None = Field(
        default=None,
        description="a number > 0, the seconds allowed for the whole solve (inf: no limit; default 600)",
    )
    timeout: Annotated[float, Field(gt=0, allow_inf_nan=True)] | None = Field(
        default=None, description="deprecated: the former name of time_limit"
    )
    backend: Backend = Field(default="auto", description="'auto', 'cdd' or 'ppl'")
    solver: str | None = Field(
        default=None,
        description="the route's back end: 'HIGHS' (vertex, colgen), 'HIGHS', 'CLARABEL' or 'PDLP' (lp) or a "
        "cvxpy solver such as 'CLARABEL' (cvxpy); default: the route's",
    )
    colgen: ColgenTable = Field(
        default_factory=ColgenTable, description="a table of column-generation budgets ([options.colgen])"
    )
    memory_limit: int | str | None = Field(
        default=None,
        description="bytes the solve may allocate: a number or a size such as '16 GiB' (default: half the "
        "machine's memory); beyond it, exit code 3",
    )


def _time_limit(options: OptionsTable) -> float | None:
    """``[options] time_limit`` in seconds (``None``: no limit); ``timeout`` is its former name."""
    seconds = options.time_limit
    if options.timeout is not None:
        warnings.warn(
            "[options].timeout is deprecated: write time_limit (the same seconds for the whole solve)",
            FutureWarning,
            stacklevel=2,
        )
        if seconds is not None:
            raise ValidationError(
                "[options].timeout", "time_limit or the deprecated timeout, not both", "both"
            )
        seconds = options.timeout
    if seconds is None:
        return DEFAULT_TIME_LIMIT
    return None if math.isinf(seconds) else seconds


class OutputTable(_Table):
    """``[output]``: files to write (optional; written together or not at all)."""

    mechanism: str | None = Field(
        default=None, description="a file path for the mechanism CSV (rows: inputs)"
    )
    solution: str | None = Field(
        default=None, description="a file path for the solution JSON (po.load reads it)"
    )


class CompareTable(_Table):
    """``[compare]``: the named mechanisms to print beside the optimal one (``privopt compare``)."""

    mechanisms: list[str] | None = Field(
        default=None,
        description="a list of names such as 'grr', 'srr', 'ir', 'optimal' (default: all defined)",
    )


class SpecModel(_Table):
    """A whole spec file."""

    data: DataTable = Field(description="a [data] table: the data")
    definition: DefinitionTable = Field(description="a [definition] table: the privacy definition")
    set: SetTable = Field(default_factory=SetTable, description="a [set] table: the uncertainty set")
    utility: UtilityTable = Field(default_factory=UtilityTable, description="a [utility] table: the utility")
    options: OptionsTable = Field(
        default_factory=OptionsTable, description="an [options] table: solver options"
    )
    output: OutputTable = Field(default_factory=OutputTable, description="an [output] table: files to write")
    compare: CompareTable = Field(
        default_factory=CompareTable, description="a [compare] table: mechanisms to compare"
    )


# ---------------------------------------------------------------------- errors
def _argument(location: tuple[int | str, ...]) -> str:
    """``("set", "level")`` → ``[set].level``; list indices as ``[0]``."""
    if not location:
        return "spec"
    head, *rest = location
    text = f"[{head}]"
    for part in rest:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _members(annotation: Any) -> list[Any]:
    """The types an annotation allows: ``Annotated`` unwrapped, unions split, ``None`` dropped."""
    if get_origin(annotation) is Annotated:
        return _members(get_args(annotation)[0])
    if get_origin(annotation) in (Union, UnionType):
        return [member for arg in get_args(annotation) for member in _members(arg)]
    return [] if annotation is type(None) else [annotation]


def _walk(location: tuple[int | str, ...]) -> tuple[tuple[int | str, ...], list[Any]]:
    """Follow ``location`` through the model: keep its keys, list indices and table keys (a secret's
    name), drop pydantic's union-member tags (``'str'``, ``'list[float]'``); return the kept location
    and the types its end may hold."""
    kept: list[int | str] = []
    types: list[Any] = [SpecModel]
    for part in location:
        following = []
        for kind in (member for annotation in types for member in _members(annotation)):
            if isinstance(kind, type) and issubclass(kind, BaseModel):
                if isinstance(part, str) and part in kind.model_fields:
                    following.append(kind.model_fields[part].annotation)
            elif get_origin(kind) is list and isinstance(part, int):
                following.append(get_args(kind)[0])
            elif get_origin(kind) is dict and isinstance(part, str):
                following.append(get_args(kind)[1])
        if following:
            kept.append(part)
            types = following
    return tuple(kept), types


def _model_at(location: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The table model that holds the last key of ``location`` (``None``: no table holds it)."""
    _, types = _walk(location[:-1])
    for kind in (member for annotation in types for member in _members(annotation)):
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return kind
    return None


def _keys_only(location: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """``location`` without pydantic's union-member tags."""
    return _walk(location)[0]


def _value_at(document: Any, location: tuple[int | str, ...]) -> Any:
    for part in location:
        if part == 0 and not isinstance(document, list):
            continue  # a single item written for a list of one (a statistic in `left`)
        try:
            document = document[part]
        except (KeyError, IndexError, TypeError):
            return None
    return document


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _translate(error: pydantic.ValidationError, document: dict[str, Any]) -> ValidationError:
    """The first pydantic error as a privopt error naming ``[table].key``."""
    errors = error.errors(include_url=False)
    # An unknown key first: a misspelt key also leaves the key it meant missing.
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    kind = first["type"]
    raw = tuple(first["loc"])
    location = _keys_only(raw[:-1]) + raw[-1:] if kind == "extra_forbidden" else _keys_only(raw)
    if kind == "spec_key":  # raised by a validator above
        key, expected = first["ctx"]["key"], first["ctx"]["expected"]
        where = (*location, key) if key else location
        got = _value_at(document, where)
        if isinstance(got, dict):
            return ValidationError(_argument(where), expected, f"the keys {', '.join(got)}")
        return ValidationError(_argument(where), expected, "nothing" if got is None else _describe(got))
    if kind == "extra_forbidden":
        model = _model_at(location)
        valid = sorted(model.model_fields) if model is not None else []
        close = difflib.get_close_matches(str(location[-1]), valid, n=1, cutoff=0.5)
        hint = f" (did you mean `{close[0]}`?)" if close else ""
        return ValidationError(
            _argument(location), f"a key among {', '.join(valid)}", f"an unknown key{hint}"
        )
    # Type and range errors: report the whole key (not an element of it) with its description.
    while location and isinstance(location[-1], int):
        location = location[:-1]
    model = _model_at(location)
    field = model.model_fields.get(str(location[-1])) if model is not None and location else None
    if kind == "missing":
        expected = field.description if field is not None and field.description else "a value"
        return ValidationError(_argument(location), expected or "a value", "nothing (it is required)")
    expected = field.description if field is not None and field.description else first["msg"]
    value = _value_at(document, location)
    return ValidationError(_argument(location), str(expected), f"{type(value).__name__} {_describe(value)}")


@contextlib.contextmanager
def _in_table(name: str, renamed: dict[str, str] | None = None) -> Iterator[None]:
    """Name the table in errors raised while its objects are built (``eps`` → ``[definition].eps``);
    ``renamed`` maps an argument of the constructor to the key of the spec that holds it."""
    try:
        yield
    except ValidationError as exc:
        if exc.argument.startswith("["):
            raise
        key = (renamed or {}).get(exc.argument, exc.argument)
        raise type(exc)(f"[{name}].{key}", exc.expected, exc.got) from exc


def _statistic(labels: SpecLabels, table: StatisticTable, where: str) -> Statistic:
    key = table.kind_of()
    if key == "sum":
        assert table.sum is not None  # kind_of() says so
        terms = [_statistic(labels, term, f"{where}.sum[{i}]") for i, term in enumerate(table.sum)]
        try:
            total = sum(terms[1:], terms[0])
        except ValidationError as exc:  # terms that depend on P in different ways
            raise ValidationError(f"{where}.sum", exc.expected, exc.got) from exc
    else:
        total = labels.statistic(key, getattr(table, key), f"{where}.{key}" if key != "marginal" else where)
    return total if table.coefficient == 1.0 else total * table.coefficient


def _as_set(F: Any) -> po.UncertaintySet:
    """The set a definition ranges over (a distribution stands for the point ``{P}``)."""
    return F if isinstance(F, po.UncertaintySet) else po.Point(F)


# ---------------------------------------------------------------------- the spec
@dataclass(frozen=True)
class Spec:
    """A validated problem specification and the privopt objects it describes."""

    path: Path
    model: SpecModel

    @classmethod
    def parse(cls, text: str, path: str | Path = "spec.toml") -> Spec:
        """Validate TOML ``text``; ``path`` anchors the relative paths inside it."""
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValidationError("spec", "valid TOML", f"{Path(path).name}: {exc}") from exc
        try:
            model = SpecModel.model_validate(document)
        except pydantic.ValidationError as exc:
            raise _translate(exc, document) from None
        return cls(Path(path).resolve(), model)

    @classmethod
    def load(cls, path: str | Path) -> Spec:
        """Read and validate a spec file."""
        return cls.parse(read_text(path, "spec", "a TOML spec file"), path)

    def with_eps(self, eps: float) -> Spec:
        """The same spec at another ε (``privopt audit --eps``), validated like the file."""
        document = self.model.model_dump(exclude_unset=True)
        document["definition"]["eps"] = eps
        try:
            model = SpecModel.model_validate(document)
        except pydantic.ValidationError as exc:
            raise _translate(exc, document) from None
        return Spec(self.path, model)

    # ------------------------------------------------------------------ pieces
    def distribution(self) -> po.JointDistribution:
        data = self.model.data
        with _in_table("data"):
            if data.probabilities is not None:
                return po.JointDistribution(
                    as_float_array(data.probabilities, "probabilities", (1, 2)),
                    s_labels=None if data.s_labels is None else tuple(data.s_labels),
                    u_labels=None if data.u_labels is None else tuple(data.u_labels),
                    n=data.n,
                    sensitive=_name(data.sensitive),
                    public=_name(data.public),
                )
            if data.synthetic is not None:
                return _synthetic(data.synthetic)
            assert data.path is not None  # DataTable checks that path comes with sensitive
            assert data.sensitive is not None
            location = (self.path.parent / data.path).resolve()
            sensitive, public = data.sensitive, data.public
            if data.format == "adult":
                columns = [*_names(sensitive), *_names(public)]
                frame = po.datasets.load_adult(location, columns, split=data.split)
            else:
                frame = read_csv(location, "path", "a CSV file with a header row")
            return po.JointDistribution.from_frame(frame, sensitive=sensitive, public=public)

    def uncertainty(self, P: po.JointDistribution) -> Any:
        """The set of ``[set]`` around or beside the data ``P`` (``None`` for kind ``none``)."""
        table = self.model.set
        with _in_table("set"):
            if table.kind == "point":
                return P
            if table.kind == "none":
                return None
            if table.kind == "simplex":
                return po.Simplex(P.shape)
            if table.kind == "renyi":
                if table.radius is not None:
                    return po.RenyiBall(P, table.radius, 2.0 if table.order is None else table.order)
                level = 0.95 if table.level is None else table.level
                return po.RenyiBall.confidence(P, n=table.n, level=level)
            if table.kind == "l1":
                if table.radius is not None:
                    return po.L1Ball(P, table.radius)
                if table.delta is not None:
                    warnings.warn(
                        f"[set].delta is deprecated: write level = {1.0 - table.delta!r} (the confidence 1 − delta, "
                        "as for kind 'renyi')",
                        FutureWarning,
                        stacklevel=2,
                    )
                    level = 1.0 - table.delta
                else:
                    level = po.sets.l1.DEFAULT_L1_LEVEL if table.level is None else table.level
                return po.L1Ball.confidence(P, n=table.n, level=level)
            return self._listed_set(P)

    def _listed_set(self, P: po.JointDistribution) -> po.UncertaintySet:
        """A set given by its members, vertices or bounds, labelled like the data."""
        table = self.model.set
        if table.kind == "finite":
            assert table.distributions is not None  # required for kind 'finite'
            members = []
            for i, member in enumerate(table.distributions):
                with _in_table("set", renamed={"probabilities": f"distributions[{i}]"}):
                    array = as_float_array(member, "probabilities", (1, 2)).reshape(P.shape)
                    members.append(po.JointDistribution(array, s_labels=P.s_labels, u_labels=P.u_labels))
            return po.FiniteSet(members)
        if table.kind == "polytope":
            assert table.vertices is not None  # required for kind 'polytope'
            return po.Polytope(table.vertices, shape=P.shape)
        assert table.lower is not None  # required for kind 'bounds'
        with _in_table("set", renamed={"L": "lower", "U": "upper"}):
            return po.ConditionalBounds(table.lower, table.upper, reference=P)

    @property
    def on(self) -> InputAlphabet:
        """The alphabet the mechanism reads (SRLIP reads ``U``)."""
        definition = self.model.definition
        return "u" if definition.kind == "srlip" else definition.on

    def privacy_definition(self, P: po.JointDistribution) -> po.PrivacyDefinition:
        table = self.model.definition
        kind = table.kind_of()
        if kind in ("ldp", "metric", "factory", "srlip"):
            self._no_set(kind)
        if kind == "factory":
            assert table.factory is not None  # kind_of() says so
            where = "[definition].factory"
            function = load_factory(table.factory, self.path.parent, where)
            return call_factory(function, P, table.eps, table.factory, where)
        if kind == "ldp":
            with _in_table("definition"):
                return po.LDP(table.eps)
        if kind == "metric":
            return self._metric(P)
        if kind == "srlip":
            assert table.attributes is not None  # required for kind 'srlip'
            with _in_table("definition", renamed={"attribute": "component"}):
                if table.component is None:
                    return po.SRLIP(table.eps, P, table.attributes)
                return SRLIPComponent(table.eps, P, table.attributes, table.component)
        F = self.uncertainty(P)
        if F is None and kind != "ratio":
            raise ValidationError(
                "[set].kind", "a set of distributions for this definition ('none' is for ratio constraints)",
                "'none'",
            )  # fmt: skip
        with _in_table("definition"):
            if kind == "ratio":
                return self._ratio(P, F)
            if kind == "pufferfish":
                return self._pufferfish(P, F)
            if kind == "pml":
                return po.PML(table.eps, F)
            if kind == "lip":
                return po.LIP(table.eps, F, on=table.on)
            return po.SensitiveLDP(table.eps, F, on=table.on)

    def _no_set(self, kind: str) -> None:
        """LDP, metric privacy and a factory take no ``[set]`` (nothing would read it)."""
        if self.model.set.kind != "point":
            reason = {
                "ldp": "LDP (it holds for every distribution)",
                "metric": "metric privacy (no distribution is involved)",
                "factory": "a factory (it builds its own set from P)",
                "srlip": "SRLIP (it holds at the data's distribution)",
            }[kind]
            raise ValidationError("[set].kind", f"no [set] for {reason}", repr(self.model.set.kind))

    def _ratio(self, P: po.JointDistribution, F: Any) -> po.RatioConstraints:
        table = self.model.definition
        assert table.pairs is not None  # required for kind 'ratio'
        labels = SpecLabels.positional(P, table.on) if F is None else SpecLabels.of(P, _as_set(F), table.on)
        pairs = []
        for i, pair in enumerate(table.pairs):
            where = f"[definition].pairs[{i}]"
            sides = [
                [_statistic(labels, st, f"{where}.{side}[{j}]") for j, st in enumerate(getattr(pair, side))]
                for side in ("left", "right")
            ]
            pairs.append(po.RatioPair.of(sides[0], sides[1], pair.label, pair.scale))
        return po.RatioConstraints(
            pairs,
            table.eps,
            over=F,
            on=table.on,
            n_inputs=len(P.input_labels(table.on)) if F is None else None,
            name=table.name or "RatioConstraints",
        )

    def _pufferfish(self, P: po.JointDistribution, F: Any) -> po.Pufferfish:
        table = self.model.definition
        assert table.secrets is not None  # required for kind 'pufferfish'
        assert table.discriminative_pairs is not None
        labels = SpecLabels.of(P, _as_set(F), table.on)
        secrets: dict[Hashable, list[Hashable]] = {
            name: labels.event(secret.records, secret.s, secret.u, f"[definition].secrets.{name}")
            for name, secret in table.secrets.items()
        }
        for i, pair in enumerate(table.discriminative_pairs):
            for j, name in enumerate(pair):
                if name not in secrets:
                    raise ValidationError(
                        f"[definition].discriminative_pairs[{i}][{j}]",
                        f"the name of a secret ({', '.join(map(repr, secrets))})",
                        repr(name),
                    )
        for secret, event in secrets.items():
            if not event:
                raise ValidationError(
                    f"[definition].secrets.{secret}", "an event with at least one record", "none"
                )
        return po.Pufferfish(
            secrets,
            [(a, b) for a, b in table.discriminative_pairs],
            table.eps,
            F,
            on=table.on,
            directed=table.directed,
            name=table.name or "Pufferfish",
        )

    def _metric(self, P: po.JointDistribution) -> po.MetricLDP:
        table = self.model.definition
        assert table.distances is not None  # required for kind 'metric'
        inputs = P.input_labels(table.on)
        n = len(inputs)
        shape = (len(table.distances), *{len(row) for row in table.distances})
        if shape != (n, n):
            shown = ", ".join(map(repr, inputs[:6])) + (", ..." if n > 6 else "")
            got = " × ".join(map(str, shape)) if len(shape) == 2 else "rows of different lengths"
            raise ValidationError(
                "[definition].distances", f"a {n} × {n} matrix (rows and columns: the inputs {shown})", got
            )
        with _in_table("definition", renamed={"d": "distances"}):
            return po.MetricLDP(table.eps, table.distances, labels=inputs)

    def utility_function(
        self, P: po.JointDistribution, n_inputs: int | None = None
    ) -> po.SubConvexUtility | po.ConcaveUtility:
        """The utility of ``[utility]`` over the data ``P`` (``n_inputs``: the definition's inputs, when
        they are not the data's)."""
        table = self.model.utility
        on = self.on
        inputs = P.input_labels(on)
        size = len(inputs) if n_inputs is None else n_inputs

        def over(vector: list[float] | None, key: str) -> tuple[po.JointDistribution, InputAlphabet]:
            """A distribution over the inputs: the data's, or ``vector`` labelled like the inputs."""
            if vector is None:
                return P, on
            labels = inputs if len(vector) == len(inputs) else None
            with _in_table("utility", renamed={"probabilities": key}):
                return po.JointDistribution(as_float_array(vector, "probabilities", 1), s_labels=labels), "x"

        def function(text: str, key: str) -> Any:
            return load_factory(text, self.path.parent, f"[utility].{key}", FUNCTION_FORM)

        with _in_table("utility"):
            if table.kind in ("mi", "nmi", "sibson", "gain", "distortion"):
                D, alphabet = over(table.p, "p")
                if table.kind == "mi":
                    return po.MutualInformation(D, on=alphabet)
                if table.kind == "nmi":
                    return po.NormalizedMutualInformation(D, on=alphabet)
                if table.kind == "sibson":
                    return po.SibsonMutualInformation(D, table.alpha, on=alphabet)
                if table.kind == "gain":
                    assert table.gain is not None  # required for kind 'gain'
                    return po.ExpectedGain(D, table.gain, on=alphabet)
                loss = "hamming" if table.loss is None else table.loss
                return po.ExpectedDistortion(D, loss, on=alphabet)
            if table.kind == "fdivergence":
                assert table.f is not None  # required for kind 'fdivergence'
                f = table.f if ":" not in table.f else function(table.f, "f")
                P0, on0 = over(table.p0, "p0")
                P1, _ = over(table.p1, "p1")
                if on0 != "x":  # FDivergence reads P_X of a JointDistribution: pass P_U as a vector
                    P0 = po.JointDistribution(P.marginal(on0), s_labels=inputs)
                return po.FDivergence(f, P0, P1, slope_at_infinity=table.slope_at_infinity)
            if table.kind == "custom":
                assert table.mu is not None  # required for kind 'custom'
                return po.SubConvexUtility(
                    function(table.mu, "mu"),
                    input_size=size,
                    name=table.name or "custom",
                    transform=None if table.transform is None else function(table.transform, "transform"),
                )
            assert table.builder is not None  # required for kind 'concave'
            assert table.n_outputs is not None
            return po.ConcaveUtility(
                function(table.builder, "builder"),
                n_outputs=table.n_outputs,
                input_size=size,
                name=table.name or "concave",
            )

    def problem(self, *, progress: bool = True) -> tuple[po.JointDistribution, po.Problem]:
        """The data and the :class:`~privopt.Problem`; ``progress=False`` silences column generation."""
        P = self.distribution()
        options = self.model.options
        definition = self.privacy_definition(P)
        utility = self.utility_function(P, definition.input_size())
        colgen = {k: v for k, v in options.colgen.model_dump().items() if v is not None}
        with _in_table("options"):
            problem = po.Problem(
                definition,
                utility,
                envelope=options.envelope,
                self_pairs=options.self_pairs,
                lip_counterpart=options.lip_counterpart,
                vertex_limit=options.vertex_limit,
                time_limit=_time_limit(options),
                backend=options.backend,
                colgen={**colgen, "progress": progress},
                memory_limit=options.memory_limit,
            )
        return P, problem

    @property
    def solver(self) -> str | None:
        """The route's back end (``[options] solver``; ``None``: the route's default)."""
        return self.model.options.solver

    @property
    def route(self) -> str:
        return self.model.options.route

    @property
    def compare_names(self) -> list[str] | None:
        return self.model.compare.mechanisms

    def outputs(self, folder: Path | None = None) -> dict[str, Path]:
        """The files of ``[output]`` by key, relative to ``folder`` (default: the spec's folder)."""
        base = self.path.parent if folder is None else folder
        named = {"mechanism": self.model.output.mechanism, "solution": self.model.output.solution}
        return {key: (base / value).resolve() for key, value in named.items() if value is not None}


def _name(columns: str | list[str] | None) -> str | None:
    """The name of an attribute made of these columns (``a×b`` for several, as ``from_frame`` names them)."""
    return None if columns is None else "×".join(_names(columns))


def _names(columns: str | list[str] | None) -> list[str]:
    if columns is None:
        return []
    return [columns] if isinstance(columns, str) else list(columns)


def _synthetic(table: Synthetic) -> po.JointDistribution:
    """Jeffreys-prior ``P*``, then ``n`` samples (the papers' synthetic setting), redrawn until every
    sensitive value is observed — at most :data:`SYNTHETIC_DRAWS` times."""
    n_s, n_u = table.shape
    rng = np.random.default_rng(table.seed)
    for _ in range(SYNTHETIC_DRAWS):
        counts = rng.multinomial(table.n, rng.dirichlet(np.full(n_s * n_u, 0.5))).reshape(n_s, n_u)
        if np.all(counts.sum(axis=1) > 0):
            return po.JointDistribution.from_counts(counts)
    raise ValidationError(
        "synthetic.n",
        f"enough samples that some draw observes all {n_s} sensitive values",
        f"n = {table.n}: none of {SYNTHETIC_DRAWS} draws did",
    )


# ---------------------------------------------------------------------- documentation
#: Each table of the spec with its heading in docs/spec-format.md.
_TABLES: tuple[tuple[str, type[_Table]], ...] = (
    ("`[data]`", DataTable),
    ("`[data.synthetic]`", Synthetic),
    ("`[definition]`", DefinitionTable),
    ("`[[definition.pairs]]`", PairTable),
    ("A statistic (in `left` and `right`)", StatisticTable),
    ("`[definition.secrets]`", SecretTable),
    ("`[set]`", SetTable),
    ("`[utility]`", UtilityTable),
    ("`[options]`", OptionsTable),
    ("`[options.colgen]`", ColgenTable),
    ("`[output]`", OutputTable),
    ("`[compare]`", CompareTable),
)


def _default_text(field: Any) -> str:
    if field.is_required():
        return "required"
    default = field.get_default(call_default_factory=True)
    if default is None:
        return "—"
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, float) and math.isfinite(default) and default.is_integer():
        return f"{int(default)}.0"
    return f"`{default!r}`".replace("'", '"')


def reference_tables() -> str:
    """The key tables of ``docs/spec-format.md``, generated from the model (one row per key)."""
    parts = []
    for heading, model in _TABLES:
        summary = " ".join((model.__doc__ or "").replace("``", "`").split())
        lines = [f"### {heading}", "", summary, "", "| key | default | meaning |"]
        lines.append("|---|---|---|")
        for key, field in model.model_fields.items():
            meaning = str(field.description).replace("|", "\\|")
            lines.append(f"| `{key}` | {_default_text(field)} | {meaning} |")
        if model.kind_keys is not None:
            lines += ["", "Keys by kind: " + "; ".join(
                f"`{kind}`: {', '.join(f'`{k}`' for k in sorted(keys)) or 'none'}"
                for kind, keys in model.kind_keys.items()
            ) + "."]  # fmt: skip
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


if __name__ == "__main__":  # pragma: no cover - regenerates the tables of docs/spec-format.md
    print(reference_tables(), end="")
