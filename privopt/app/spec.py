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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
import pydantic
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

import privopt as po
from privopt.app.files import read_csv, read_text
from privopt.errors import ValidationError
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
DefinitionKind = Annotated[Literal["ldp", "sensitiveldp", "rldp", "lip", "pml"], _LOWER]
Alphabet = Annotated[Literal["x", "u"], _LOWER]
SetKind = Annotated[Literal["point", "renyi", "l1", "simplex"], _LOWER]
UtilityKind = Annotated[Literal["mi", "nmi", "sibson"], _LOWER]
Route = Annotated[Literal["auto", "vertex", "colgen"], _LOWER]
Backend = Annotated[Literal["auto", "cdd", "ppl"], _LOWER]

Label = str | int
Positive = Annotated[float, Field(gt=0)]
Count = Annotated[int, Field(ge=1)]


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
        default=None, description="a column name or a list of them: S (required with path)"
    )
    public: str | list[str] | None = Field(default=None, description="a column name or a list of them: U")
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
        "probabilities": frozenset({"probabilities", "n", "s_labels", "u_labels"}),
        "synthetic": frozenset({"synthetic"}),
    }

    def kind_of(self) -> str:
        sources = [key for key in ("path", "probabilities", "synthetic") if key in self.model_fields_set]
        if len(sources) != 1:
            raise _key_error("", "exactly one of the keys path, probabilities, synthetic")
        if sources == ["path"] and self.sensitive is None:
            raise _key_error("sensitive", "the sensitive column name(s), with path")
        return sources[0]


class DefinitionTable(_Table):
    """``[definition]``: the privacy definition."""

    kind: DefinitionKind = Field(
        description="'LDP', 'SensitiveLDP' (alias 'RLDP'), 'LIP' or 'PML' (any case)"
    )
    eps: Annotated[float, Field(ge=0.0, le=EPS_MAX)] = Field(
        description=f"a number in [0, {EPS_MAX:.2f}], the privacy parameter ε in nats"
    )
    on: Alphabet = Field(default="x", description="'x': the mechanism reads X = S × U; 'u': only U")

    kind_keys: ClassVar[dict[str, frozenset[str]] | None] = {
        "ldp": frozenset({"eps"}),
        "sensitiveldp": frozenset({"eps", "on"}),
        "rldp": frozenset({"eps", "on"}),
        "lip": frozenset({"eps", "on"}),
        "pml": frozenset({"eps"}),
    }


class SetTable(_Table):
    """``[set]``: the distributions the definition must hold for (not for LDP)."""

    kind: SetKind = Field(default="point", description="'point' (P itself), 'renyi', 'l1' or 'simplex'")
    level: Annotated[float, Field(gt=0.0, lt=1.0)] | None = Field(
        default=None,
        description="a number in (0, 1), the confidence level 1 − β of the χ² set (renyi; default 0.95)",
    )
    radius: Annotated[float, Field(ge=0.0)] | None = Field(
        default=None,
        description="a number >= 0, the radius (B for renyi, β for l1; instead of level or delta)",
    )
    order: Annotated[float, Field(gt=1.0)] | None = Field(
        default=None, description="a number > 1, the Rényi order α (renyi with radius; default 2)"
    )
    n: Count | None = Field(
        default=None,
        description="an integer >= 1, the sample size of the confidence set (default: the data's)",
    )
    delta: Annotated[float, Field(gt=0.0, lt=1.0)] | None = Field(
        default=None,
        description="a number in (0, 1), the failure probability of the Weissman radius (l1; default 1e-6)",
    )

    kind_keys: ClassVar[dict[str, frozenset[str]] | None] = {
        "point": frozenset(),
        "simplex": frozenset(),
        "renyi": frozenset({"level", "radius", "order", "n"}),
        "l1": frozenset({"radius", "n", "delta"}),
    }

    @pydantic.model_validator(mode="after")
    def _radius_or_calibration(self) -> SetTable:
        given = self.model_fields_set
        if "radius" in given:
            for key in sorted(given & {"level", "n", "delta"}):
                raise _key_error(key, f"no {key} when radius is given (the radius fixes the set)")
        elif "order" in given:
            raise _key_error("order", "order only with radius (the χ² calibration holds for order 2)")
        return self


class UtilityTable(_Table):
    """``[utility]``: what the mechanism maximises."""

    kind: UtilityKind = Field(
        default="mi", description="'mi' (mutual information), 'nmi' (I / H(X)) or 'sibson'"
    )
    alpha: Annotated[float, Field(gt=1.0)] = Field(
        default=2.0, description="a number > 1, the order α (sibson)"
    )

    kind_keys: ClassVar[dict[str, frozenset[str]] | None] = {
        "mi": frozenset(),
        "nmi": frozenset(),
        "sibson": frozenset({"alpha"}),
    }


class OptionsTable(_Table):
    """``[options]``: solver options (all optional)."""

    envelope: str = Field(default="lower", description="'lower', 'box' or 'facets:k'")
    self_pairs: bool = Field(default=False, description="true or false; true: the paper-faithful PolyOpt")
    route: Route = Field(
        default="auto", description="'auto', 'vertex' or 'colgen' (the spec's utilities are sub-convex)"
    )
    vertex_limit: Annotated[int, Field(ge=1)] | Annotated[float, Field(ge=1.0)] = Field(
        default=10**9,
        description="a number >= 1: vertex enumerations whose McMullen bound exceeds it are refused",
    )
    timeout: Positive = Field(
        default=600.0, description="a number > 0, the seconds allowed for the vertex enumeration"
    )
    backend: Backend = Field(default="auto", description="'auto', 'cdd' or 'ppl'")


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


def _model_at(location: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The table model that holds the last key of ``location`` (``None`` below a list)."""
    model: type[BaseModel] = SpecModel
    for part in location[:-1]:
        if isinstance(part, int) or part not in model.model_fields:
            return None
        annotation = model.model_fields[part].annotation
        candidates = [a for a in getattr(annotation, "__args__", (annotation,)) if isinstance(a, type)]
        tables = [a for a in candidates if issubclass(a, BaseModel)]
        if not tables:
            return None
        model = tables[0]
    return model


def _keys_only(location: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """Drop pydantic's union-member tags (``'list[float]'``, ``'constrained-int'``) from a location."""
    kept: list[int | str] = []
    for part in location:
        model = _model_at((*kept, part))
        if isinstance(part, int) or (model is not None and part in model.model_fields):
            kept.append(part)
    return tuple(kept)


def _value_at(document: Any, location: tuple[int | str, ...]) -> Any:
    for part in location:
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
    first = error.errors(include_url=False)[0]
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
def _in_table(name: str) -> Iterator[None]:
    """Name the table in errors raised while its objects are built (``eps`` → ``[definition].eps``)."""
    try:
        yield
    except ValidationError as exc:
        if exc.argument.startswith("["):
            raise
        raise type(exc)(f"[{name}].{exc.argument}", exc.expected, exc.got) from exc


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
        table = self.model.set
        with _in_table("set"):
            if table.kind == "point":
                return P
            if table.kind == "simplex":
                return po.Simplex(P.shape)
            if table.kind == "renyi":
                if table.radius is not None:
                    return po.RenyiBall(P, table.radius, 2.0 if table.order is None else table.order)
                level = 0.95 if table.level is None else table.level
                return po.RenyiBall.confidence(P, n=table.n, level=level)
            if table.radius is not None:
                return po.L1Ball(P, table.radius)
            return po.L1Ball.confidence(P, n=table.n, delta=1e-6 if table.delta is None else table.delta)

    def privacy_definition(self, P: po.JointDistribution) -> po.PrivacyDefinition:
        table = self.model.definition
        if table.kind == "ldp":
            if self.model.set.kind != "point":
                raise ValidationError(
                    "[set].kind",
                    "no [set] for LDP (it holds for every distribution)",
                    repr(self.model.set.kind),
                )
            with _in_table("definition"):
                return po.LDP(table.eps)
        F = self.uncertainty(P)
        with _in_table("definition"):
            if table.kind == "pml":
                return po.PML(table.eps, F)
            if table.kind == "lip":
                return po.LIP(table.eps, F, on=table.on)
            return po.SensitiveLDP(table.eps, F, on=table.on)

    def utility_function(self, P: po.JointDistribution) -> po.SubConvexUtility:
        table = self.model.utility
        on = self.model.definition.on
        with _in_table("utility"):
            if table.kind == "mi":
                return po.MutualInformation(P, on=on)
            if table.kind == "nmi":
                return po.NormalizedMutualInformation(P, on=on)
            return po.SibsonMutualInformation(P, table.alpha, on=on)

    def problem(self, *, progress: bool = True) -> tuple[po.JointDistribution, po.Problem]:
        """The data and the :class:`~privopt.Problem`; ``progress=False`` silences column generation."""
        P = self.distribution()
        options = self.model.options
        definition = self.privacy_definition(P)
        utility = self.utility_function(P)
        with _in_table("options"):
            problem = po.Problem(
                definition,
                utility,
                envelope=options.envelope,
                self_pairs=options.self_pairs,
                vertex_limit=int(options.vertex_limit),
                timeout=options.timeout,
                backend=options.backend,
                colgen={"progress": progress},
            )
        return P, problem

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
_TABLES: tuple[tuple[str, type[_Table]], ...] = (
    ("data", DataTable),
    ("data.synthetic", Synthetic),
    ("definition", DefinitionTable),
    ("set", SetTable),
    ("utility", UtilityTable),
    ("options", OptionsTable),
    ("output", OutputTable),
    ("compare", CompareTable),
)


def _default_text(field: Any) -> str:
    if field.is_required():
        return "required"
    default = field.get_default(call_default_factory=True)
    if default is None:
        return "—"
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, float) and math.isfinite(default) and default == int(default):
        return f"{int(default)}.0"
    return f"`{default!r}`".replace("'", '"')


def reference_tables() -> str:
    """The key tables of ``docs/spec-format.md``, generated from the model (one row per key)."""
    parts = []
    for name, model in _TABLES:
        summary = (model.__doc__ or "").strip().replace("``", "`")
        lines = [f"### `[{name}]`", "", summary, "", "| key | default | meaning |"]
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
