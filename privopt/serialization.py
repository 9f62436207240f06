"""JSON round trips for solutions, mechanisms, audits and compiled problems.

``po.save(obj, path)`` writes ``{"privopt": version, "type": ..., "data": ...}``; ``po.load(path)``
returns an equal object. Floats are written with ``repr`` precision, so a loaded mechanism has the
same matrix bit for bit; labels keep their Python types (tuples are tagged).
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from privopt.audit import AuditReport, Witness
from privopt.cone import RatioBlock, RatioGroup, RowCone
from privopt.errors import ValidationError
from privopt.estimate import VertexEstimate
from privopt.mechanism import Mechanism
from privopt.pricing.certificate import PricingCertificate
from privopt.problem import Certificate, CompiledProblem, Solution
from privopt.ratio_pairs import PairLabel, Term

_TUPLE = "__tuple__"


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
    if isinstance(value, dict) and _TUPLE in value:
        return tuple(decode_label(v) for v in value[_TUPLE])
    return value  # type: ignore[no-any-return]


def _plain(value: Any) -> Any:
    """Numbers, arrays and containers as JSON-native values."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# ---------------------------------------------------------------------- pieces
def _term(term: Term) -> dict[str, Any]:
    return {"kind": term.kind, "label": encode_label(term.label), "detail": term.detail}


def _term_back(data: dict[str, Any]) -> Term:
    return Term(data["kind"], decode_label(data["label"]), data["detail"])


def _mechanism(mechanism: Mechanism) -> dict[str, Any]:
    return {
        "matrix": mechanism.matrix.tolist(),
        "input_labels": [encode_label(v) for v in mechanism.input_labels],  # type: ignore[union-attr]
        "output_labels": [encode_label(v) for v in mechanism.output_labels],  # type: ignore[union-attr]
        "name": mechanism.name,
    }


def _mechanism_back(data: dict[str, Any]) -> Mechanism:
    return Mechanism(
        np.array(data["matrix"], dtype=np.float64),
        [decode_label(v) for v in data["input_labels"]],
        [decode_label(v) for v in data["output_labels"]],
        name=data["name"],
    )


def _audit(report: AuditReport) -> dict[str, Any]:
    witness = None
    if report.witness is not None:
        pair = report.witness.pair
        witness = {
            "output": encode_label(report.witness.output),
            "numerator": _term(pair.numerator),
            "denominator": _term(pair.denominator),
            "member": pair.member,
            "rule": pair.rule,
            "log_ratio": report.witness.log_ratio,
        }
    return {
        "definition": report.definition,
        "target": report.target,
        "lower": report.lower,
        "upper": report.upper,
        "satisfied": report.satisfied,
        "witness": witness,
        "per_output": report.per_output.tolist(),
        "tolerance": report.tolerance,
        "method": report.method,
    }


def _audit_back(data: dict[str, Any]) -> AuditReport:
    witness = None
    if data["witness"] is not None:
        w = data["witness"]
        pair = PairLabel(_term_back(w["numerator"]), _term_back(w["denominator"]), w["member"], w["rule"])
        witness = Witness(decode_label(w["output"]), pair, w["log_ratio"])
    return AuditReport(
        data["definition"], data["target"], data["lower"], data["upper"], data["satisfied"], witness,
        np.array(data["per_output"], dtype=np.float64), data["tolerance"], data["method"],
    )  # fmt: skip


def _certificate(certificate: Certificate) -> dict[str, Any]:
    return {
        "audit": _audit(certificate.audit),
        "cone_violation": certificate.cone_violation,
        "lp_duals": None if certificate.lp_duals is None else certificate.lp_duals.tolist(),
        "dual_bound": certificate.dual_bound,
        "max_reduced_cost": certificate.max_reduced_cost,
        "tolerance": certificate.tolerance,
        "pricing": None if certificate.pricing is None else certificate.pricing.to_dict(),
    }


def _certificate_back(data: dict[str, Any]) -> Certificate:
    duals = None if data["lp_duals"] is None else np.array(data["lp_duals"], dtype=np.float64)
    return Certificate(
        _audit_back(data["audit"]),
        data["cone_violation"],
        duals,
        data["dual_bound"],
        data["max_reduced_cost"],
        data["tolerance"],
        None if data.get("pricing") is None else PricingCertificate.from_dict(data["pricing"]),
    )


def _solution(solution: Solution) -> dict[str, Any]:
    return {
        "mechanism": _mechanism(solution.mechanism),
        "value": solution.value,
        "route": solution.route,
        "stats": _plain(solution.stats),
        "certificate": _certificate(solution.certificate),
    }


def _solution_back(data: dict[str, Any]) -> Solution:
    return Solution(
        _mechanism_back(data["mechanism"]),
        data["value"],
        data["route"],
        data["stats"],
        _certificate_back(data["certificate"]),
    )


def _cone(cone: RowCone) -> dict[str, Any]:
    return {
        "eps": cone.eps,
        "n_inputs": cone.n_inputs,
        "exact": cone.exact,
        "definition": cone.definition,
        "groups": [
            {"vectors": g.vectors.tolist(), "terms": [_term(t) for t in g.terms], "name": g.name}
            for g in cone.groups
        ],
        "blocks": [
            {
                "numerator": b.numerator,
                "denominator": b.denominator,
                "rule": b.rule,
                "member": b.member,
                "log_shift": b.log_shift,
                "exact_factor": None if b.exact_factor is None else str(b.exact_factor),
            }
            for b in cone.blocks
        ],
    }


def _cone_back(data: dict[str, Any]) -> RowCone:
    groups = tuple(
        RatioGroup(
            np.array(g["vectors"], dtype=np.float64), tuple(_term_back(t) for t in g["terms"]), g["name"]
        )
        for g in data["groups"]
    )
    blocks = tuple(
        RatioBlock(
            b["numerator"],
            b["denominator"],
            b["rule"],
            b["member"],
            b["log_shift"],
            None if b.get("exact_factor") is None else Fraction(b["exact_factor"]),
        )
        for b in data["blocks"]
    )
    return RowCone(data["eps"], data["n_inputs"], groups, blocks, data["exact"], data["definition"])


def _compiled(compiled: CompiledProblem) -> dict[str, Any]:
    estimate = compiled.estimate
    return {
        "cone": _cone(compiled.cone),
        "normalisation": compiled.normalisation,
        "estimate": {
            "dimension": estimate.dimension,
            "inequalities": estimate.inequalities,
            "bound": estimate.bound,
        },
        "route": compiled.route,
        "reason": compiled.reason,
    }


def _compiled_back(data: dict[str, Any]) -> CompiledProblem:
    e = data["estimate"]
    return CompiledProblem(
        _cone_back(data["cone"]),
        data["normalisation"],
        VertexEstimate(e["dimension"], e["inequalities"], e["bound"]),
        data["route"],
        data["reason"],
    )


_WRITERS = {
    Solution: ("Solution", _solution),
    Mechanism: ("Mechanism", _mechanism),
    AuditReport: ("AuditReport", _audit),
    Certificate: ("Certificate", _certificate),
    RowCone: ("RowCone", _cone),
    CompiledProblem: ("CompiledProblem", _compiled),
}
_READERS = {
    "Solution": _solution_back,
    "Mechanism": _mechanism_back,
    "AuditReport": _audit_back,
    "Certificate": _certificate_back,
    "RowCone": _cone_back,
    "CompiledProblem": _compiled_back,
}


# ---------------------------------------------------------------------- public
def to_json(obj: Any) -> str:
    """A JSON text for a Solution, Mechanism, AuditReport, Certificate, RowCone or CompiledProblem."""
    for cls, (name, writer) in _WRITERS.items():
        if isinstance(obj, cls):
            from privopt import __version__

            return json.dumps({"privopt": __version__, "type": name, "data": writer(obj)}, indent=1)
    raise ValidationError("obj", f"one of {', '.join(n for n, _ in _WRITERS.values())}", type(obj).__name__)


def from_json(text: str) -> Any:
    """The object written by :func:`to_json`."""
    try:
        document = json.loads(text)
        reader = _READERS[document["type"]]
        return reader(document["data"])
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValidationError(
            "text", "a privopt JSON document (written by po.save / to_json)", f"{type(exc).__name__}: {exc}"
        ) from exc


def save(obj: Any, path: str | Path) -> Path:
    """Write ``obj`` as JSON to ``path`` (see :func:`to_json`)."""
    target = Path(path)
    target.write_text(to_json(obj))
    return target


def load(path: str | Path) -> Any:
    """Read an object written by :func:`save`."""
    source = Path(path)
    if not source.is_file():
        raise ValidationError("path", "an existing JSON file written by po.save", repr(str(source)))
    return from_json(source.read_text())
