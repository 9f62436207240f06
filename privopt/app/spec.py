"""Problem specifications in TOML, for the command line (``privopt design spec.toml``).

A spec names the data, the privacy definition, the uncertainty set, the utility and the options;
see ``docs/spec-format.md`` for the format. Paths in ``[data]`` are relative to the spec file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import privopt as po
from privopt.errors import ValidationError

_DEFINITIONS = {
    "ldp": "LDP",
    "sensitiveldp": "SensitiveLDP",
    "rldp": "SensitiveLDP",
    "lip": "LIP",
    "pml": "PML",
}
_SETS = ("point", "renyi", "l1", "simplex")
_UTILITIES = ("mi", "nmi", "sibson")


def _section(document: dict[str, Any], name: str, required: bool = True) -> dict[str, Any]:
    value = document.get(name, {} if not required else None)
    if value is None:
        raise ValidationError(f"[{name}]", f"a [{name}] table in the spec", "none")
    if not isinstance(value, dict):
        raise ValidationError(f"[{name}]", "a TOML table", type(value).__name__)
    return value


def _choice(
    table: dict[str, Any],
    key: str,
    section: str,
    choices: tuple[str, ...] | dict[str, str],
    default: str | None = None,
) -> str:
    value = str(table.get(key, default if default is not None else "")).lower()
    allowed = tuple(choices)
    if value not in allowed:
        raise ValidationError(f"[{section}].{key}", f"one of {', '.join(allowed)}", repr(table.get(key)))
    return value


@dataclass(frozen=True)
class Spec:
    """A parsed problem specification."""

    path: Path
    data: dict[str, Any]
    definition: dict[str, Any]
    set: dict[str, Any]
    utility: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)
    output: dict[str, Any] = field(default_factory=dict)
    compare: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> Spec:
        source = Path(path)
        if not source.is_file():
            raise ValidationError("spec", "an existing TOML file", repr(str(source)))
        try:
            document = tomllib.loads(source.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise ValidationError("spec", "valid TOML", f"{source.name}: {exc}") from exc
        known = {"data", "definition", "set", "utility", "options", "output", "compare"}
        unknown = set(document) - known
        if unknown:
            raise ValidationError("spec", f"tables among {', '.join(sorted(known))}", repr(sorted(unknown)))
        return cls(
            source.resolve(),
            _section(document, "data"),
            _section(document, "definition"),
            _section(document, "set", required=False),
            _section(document, "utility", required=False),
            _section(document, "options", required=False),
            _section(document, "output", required=False),
            _section(document, "compare", required=False),
        )

    # ------------------------------------------------------------------ pieces
    def distribution(self) -> po.JointDistribution:
        data = self.data
        if "probabilities" in data:
            return po.JointDistribution(
                data["probabilities"],
                s_labels=data.get("s_labels"),
                u_labels=data.get("u_labels"),
                n=data.get("n"),
                sensitive=data.get("sensitive"),
                public=data.get("public"),
            )
        if "synthetic" in data:
            synthetic = data["synthetic"]
            shape = tuple(synthetic.get("shape", (2, 2)))
            rng = np.random.default_rng(int(synthetic.get("seed", 0)))
            n = int(synthetic.get("n", 1000))
            while True:  # Jeffreys-prior P*, then n samples (the papers' synthetic setting)
                counts = rng.multinomial(n, rng.dirichlet(np.full(shape[0] * shape[1], 0.5))).reshape(shape)
                if np.all(counts.sum(axis=1) > 0):
                    return po.JointDistribution.from_counts(counts)
        if "path" not in data:
            raise ValidationError("[data]", "path (a data file), probabilities, or synthetic", "none of them")
        location = (self.path.parent / str(data["path"])).resolve()
        sensitive, public = data.get("sensitive"), data.get("public")
        if sensitive is None:
            raise ValidationError("[data].sensitive", "the sensitive column name(s)", "missing")
        kind = _choice(data, "format", "data", ("adult", "csv"), default="csv")
        if kind == "adult":
            columns = [
                c
                for c in ([sensitive] if isinstance(sensitive, str) else sensitive)
                + ([public] if isinstance(public, str) else public or [])
            ]
            frame = po.datasets.load_adult(location, columns, split=str(data.get("split", "train")))
        else:
            if not location.is_file():
                raise ValidationError("[data].path", "an existing CSV file", repr(str(location)))
            frame = pd.read_csv(location)
        return po.JointDistribution.from_frame(frame, sensitive=sensitive, public=public)

    def uncertainty(self, P: po.JointDistribution) -> Any:
        kind = _choice(self.set, "kind", "set", _SETS, default="point")
        if kind == "point":
            return P
        if kind == "simplex":
            return po.Simplex(P.shape)
        if kind == "renyi":
            if "radius" in self.set:
                return po.RenyiBall(P, float(self.set["radius"]), float(self.set.get("order", 2.0)))
            return po.RenyiBall.confidence(P, n=self.set.get("n"), level=float(self.set.get("level", 0.95)))
        if "radius" in self.set:
            return po.L1Ball(P, float(self.set["radius"]))
        return po.L1Ball.confidence(P, n=self.set.get("n"), delta=float(self.set.get("delta", 1e-6)))

    def privacy_definition(self, P: po.JointDistribution) -> po.PrivacyDefinition:
        kind = _DEFINITIONS[_choice(self.definition, "kind", "definition", _DEFINITIONS)]
        if "eps" not in self.definition:
            raise ValidationError("[definition].eps", "the privacy parameter ε (nats)", "missing")
        eps = float(self.definition["eps"])
        if kind == "LDP":
            return po.LDP(eps)
        F = self.uncertainty(P)
        if kind == "PML":
            return po.PML(eps, F)
        on = str(self.definition.get("on", "x"))
        return getattr(po, kind)(eps, F, on=on)  # type: ignore[no-any-return]

    def utility_function(self, P: po.JointDistribution) -> po.SubConvexUtility:
        kind = _choice(self.utility, "kind", "utility", _UTILITIES, default="mi")
        on = str(self.definition.get("on", "x"))
        if kind == "mi":
            return po.MutualInformation(P, on=on)
        if kind == "nmi":
            return po.NormalizedMutualInformation(P, on=on)
        return po.SibsonMutualInformation(P, float(self.utility.get("alpha", 2.0)), on=on)

    def problem(self) -> tuple[po.JointDistribution, po.Problem]:
        P = self.distribution()
        options = {
            k: self.options[k]
            for k in ("envelope", "self_pairs", "vertex_limit", "timeout", "backend")
            if k in self.options
        }
        return P, po.Problem(self.privacy_definition(P), self.utility_function(P), **options)

    @property
    def route(self) -> str:
        return str(self.options.get("route", "auto"))

    def output_path(self, key: str) -> Path | None:
        value = self.output.get(key)
        return None if value is None else (self.path.parent / str(value)).resolve()
