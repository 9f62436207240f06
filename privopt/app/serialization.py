"""JSON round trips for solutions, mechanisms, audits, compiled problems and privacy definitions.

``po.save(obj, path)`` writes ``{"privopt": version, "type": ..., "data": ...}``; ``po.load(path)``
returns an equal object. Floats are written with ``repr`` precision, so a loaded mechanism has the
same matrix bit for bit; labels keep their Python types (tuples are tagged). Definitions, uncertainty
sets and distributions are written by their own fields (:mod:`privopt.app.json_forms`), so a loaded
definition compiles to the same cone and gives the same optimum.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from privopt._version import __version__
from privopt.app.files import read_text, write_text
from privopt.app.json_forms import FORMS, decode_label, encode_label, form_of, problem, problem_back
from privopt.audit import AuditReport, Witness
from privopt.certificates import Bound, CertificateCheck, SliceBound, bound_from_dict
from privopt.compiler.cone import RatioBlock, RatioGroup, RowCone
from privopt.compiler.estimate import VertexEstimate
from privopt.data.mechanism import Mechanism
from privopt.data.terms import PairLabel, Term
from privopt.errors import PrivoptError, ValidationError
from privopt.problem import Certificate, CompiledProblem, Solution, SolveStats, Status


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
        "input_labels": [encode_label(v) for v in mechanism.input_labels],
        "output_labels": [encode_label(v) for v in mechanism.output_labels],
        "name": mechanism.name,
    }


def _mechanism_back(data: dict[str, Any]) -> Mechanism:
    return Mechanism(
        data["matrix"],
        tuple(decode_label(v) for v in data["input_labels"]),
        tuple(decode_label(v) for v in data["output_labels"]),
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
            "scale": pair.scale,
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
        pair = PairLabel(
            _term_back(w["numerator"]),
            _term_back(w["denominator"]),
            w["member"],
            w["rule"],
            w.get("scale", 1.0),
        )
        witness = Witness(decode_label(w["output"]), pair, w["log_ratio"])
    return AuditReport(
        data["definition"], data["target"], data["lower"], data["upper"], data["satisfied"], witness,
        np.array(data["per_output"], dtype=np.float64), data["tolerance"], data["method"],
    )  # fmt: skip


def _certificate(certificate: Certificate) -> dict[str, Any]:
    return {
        "audit": _audit(certificate.audit),
        "cone_violation": certificate.cone_violation,
        "bound": None if certificate.bound is None else certificate.bound.to_dict(),
        "check": None if certificate.check is None else certificate.check.to_dict(),
        "upper_source": certificate.upper_source,
        "tolerance": certificate.tolerance,
    }


def _check_back(data: dict[str, Any] | None) -> CertificateCheck | None:
    if data is None:
        return None
    proved, delta = data.get("proved_upper"), data.get("proved_delta")
    return CertificateCheck(
        bool(data["valid"]), str(data["reason"]), str(data["method"]), float(data["seconds"]),
        None if proved is None else float(proved), proved_delta=None if delta is None else float(delta),
    )  # fmt: skip


def _bound_back(data: dict[str, Any]) -> Bound | None:
    """The certificate's bound; files written before bounds were stored give the LP's duals as one."""
    if data.get("bound") is not None:
        return bound_from_dict(data["bound"])
    if data.get("lp_duals") is not None:
        duals = np.array(data["lp_duals"], dtype=np.float64)
        delta = max(0.0, float(data.get("max_reduced_cost") or 0.0))
        return SliceBound.build(duals, delta, "sum", np.ones(duals.size), "vertex LP (file without a bound)")
    return None


def _certificate_back(data: dict[str, Any]) -> Certificate:
    return Certificate(
        _audit_back(data["audit"]),
        data["cone_violation"],
        _bound_back(data),
        _check_back(data.get("check")),
        data["upper_source"],
        data["tolerance"],
    )


def _stats(stats: SolveStats) -> dict[str, Any]:
    return {name: _plain(getattr(stats, name)) for name in SolveStats.__dataclass_fields__}


def _stats_back(data: dict[str, Any]) -> SolveStats:
    values = dict(data)
    values["trace"] = tuple((float(t), float(v)) for t, v in values.get("trace", ()))
    return SolveStats(**values)


def _solution(solution: Solution) -> dict[str, Any]:
    return {
        "mechanism": _mechanism(solution.mechanism),
        "value": solution.value,
        "status": solution.status.value,
        "lower": solution.lower,
        "upper": solution.upper,
        "gap": solution.gap,
        "route": solution.route,
        "reason": solution.reason,
        "stats": _stats(solution.stats),
        "certificate": _certificate(solution.certificate),
        "problem": _solved_problem(solution),
    }


def _solved_problem(solution: Solution) -> dict[str, Any] | None:
    """The problem a solution solves, as data (``null`` when it has none, or when it holds a Python
    function that cannot be written out: then a warning says why)."""
    if solution.problem is None:
        return None
    try:
        return problem(solution.problem)
    except ValidationError as exc:
        warnings.warn(
            f"the solution is written without its problem, which cannot be written out: {exc}",
            UserWarning,
            stacklevel=4,
        )
        return None


def _solution_back(data: dict[str, Any]) -> Solution:
    return Solution(
        _mechanism_back(data["mechanism"]),
        data["value"],
        Status(data["status"]),
        data["lower"],
        data["upper"],
        data["route"],
        data["reason"],
        _stats_back(data["stats"]),
        _certificate_back(data["certificate"]),
        None if data.get("problem") is None else problem_back(data["problem"]),
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
                "log_factor": b.log_factor,
                "counterpart": b.counterpart,
                "member": b.member,
                "scale": b.scale,
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
            b["log_factor"],
            b["counterpart"],
            b["member"],
            b["scale"],
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
            "log10_bound": estimate.log10_bound,
            "bound": estimate.bound if estimate.bound != math.inf else None,
        },
        "route": compiled.route,
        "reason": compiled.reason,
    }


def _compiled_back(data: dict[str, Any]) -> CompiledProblem:
    e = data["estimate"]
    return CompiledProblem(
        _cone_back(data["cone"]),
        data["normalisation"],
        VertexEstimate(e["dimension"], e["inequalities"], e["log10_bound"]),
        data["route"],
        data["reason"],
    )


_WRITERS: dict[type, tuple[str, Callable[[Any], dict[str, Any]]]] = {
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
def _document(name: str, data: dict[str, Any]) -> str:
    return json.dumps({"privopt": __version__, "type": name, "data": data}, indent=1)


def to_json(obj: Any) -> str:
    """A JSON text for a Solution (with the problem it solves), Mechanism, AuditReport, Certificate,
    RowCone, CompiledProblem, a Problem, a privacy definition (the built-ins, RatioConstraints,
    Pufferfish, MetricLDP), an uncertainty set, a utility or a JointDistribution."""
    form = form_of(obj)
    if form is not None:
        return _document(form[0], form[1](obj))
    for cls, (name, writer) in _WRITERS.items():
        if isinstance(obj, cls):
            return _document(name, writer(obj))
    kinds = [
        *(n for n, _ in _WRITERS.values()),
        "Problem, a privacy definition, uncertainty set, utility or JointDistribution",
    ]
    raise ValidationError("obj", f"one of {', '.join(kinds)}", type(obj).__name__)


def from_json(text: str) -> Any:
    """The object written by :func:`to_json`.

    Raises :class:`~privopt.errors.ValidationError` for anything else: text that is not JSON, a
    document of an unknown type, missing fields, or values the object refuses (a matrix of strings).
    """
    if not isinstance(text, str):
        raise ValidationError("text", "a JSON text (str)", type(text).__name__)
    try:
        document = json.loads(text)
        name = document["type"]
        reader = _READERS[name] if name in _READERS else FORMS[name][1]
        return reader(document["data"])
    except PrivoptError:
        raise
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise ValidationError(
            "text", "a privopt JSON document (written by po.save / to_json)", detail[:200]
        ) from exc


def save(obj: Any, path: str | Path) -> Path:
    """Write ``obj`` as JSON to ``path`` (see :func:`to_json`), atomically: the file holds the old
    content or the new, never a part of it. Missing folders are created."""
    return write_text(path, to_json(obj))


def load(path: str | Path) -> Any:
    """Read an object written by :func:`save`."""
    return from_json(read_text(path, "path", "a JSON file written by po.save"))
