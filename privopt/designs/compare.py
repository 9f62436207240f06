"""Compare mechanisms under one privacy definition and one utility: ``po.compare``.

One row per mechanism with its utility, its normalised mutual information ``I(X;Y)/H(X)`` (Entropy
paper §8's NMI), its audited ε (an interval for sets the audit cannot enumerate, such as Rényi balls)
and the time it took to build; the compiler's optimum is added when it is within the compiler's limits.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from privopt.audit import audit
from privopt.callables import call, returned
from privopt.data.distribution import JointDistribution
from privopt.data.information import entropy
from privopt.data.mechanism import Mechanism, as_mechanism
from privopt.definitions.base import PrivacyDefinition
from privopt.designs.named import OPTIMUM_NAMES, resolve
from privopt.errors import PrivoptError, ValidationError, failure_status, failure_text
from privopt.problem import Problem
from privopt.utilities import ConcaveUtility, MutualInformation, SubConvexUtility, as_utility

#: A mechanism, something holding one (``.mechanism``: a Solution or a design), a zero-argument
#: callable returning either (then its run time is measured), or the name of a mechanism that
#: :mod:`privopt.designs.named` builds for the definition (``"grr"``, ``"planar_laplace+remap"``, ...).
MechanismLike = Mechanism | Any | Callable[[], Any] | str

COLUMNS = [
    "mechanism",
    "outputs",
    "utility",
    "nmi",
    "eps",
    "eps_lower",
    "eps_upper",
    "satisfied",
    "seconds",
    "audit_seconds",
    "status",
    "note",
    "error",
]


def _entries(mechanisms: Iterable[Any] | Mapping[str, Any]) -> list[tuple[str, Any]]:
    if isinstance(mechanisms, Mechanism):  # one mechanism (iterable over its rows, like an array)
        mechanisms = [mechanisms]
    if isinstance(mechanisms, Mapping):
        return [(str(k), v) for k, v in mechanisms.items()]
    if isinstance(mechanisms, (str, bytes)) or not isinstance(mechanisms, Iterable):
        raise ValidationError(
            "mechanisms",
            "a list of mechanisms, (name, mechanism) pairs or a {name: mechanism} mapping",
            type(mechanisms).__name__,
        )
    out = []
    for i, item in enumerate(mechanisms):
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            out.append(item)
        elif isinstance(item, str):  # a name: its row is named by it
            out.append((item, item))
        else:
            name = (
                getattr(item, "name", "") or getattr(getattr(item, "mechanism", None), "name", "") or f"#{i}"
            )
            out.append((str(name), item))
    return out


def _nmi_distribution(definition: PrivacyDefinition, utility: Any) -> np.ndarray | None:
    """The input distribution for the NMI column: the utility's (mutual information) or the definition's."""
    if isinstance(utility, MutualInformation):
        return utility.p
    uncertainty = getattr(definition, "uncertainty", None)
    reference = uncertainty.reference() if uncertainty is not None else None
    if isinstance(reference, JointDistribution):
        return reference.marginal(getattr(definition, "on", "x"))
    return None


def compare(
    definition: PrivacyDefinition,
    utility: SubConvexUtility | ConcaveUtility,
    mechanisms: Iterable[Any] | Mapping[str, Any] = (),
    *,
    optimum: bool = True,
    **problem_options: Any,
) -> pd.DataFrame:
    """A tidy table comparing ``mechanisms`` under ``definition`` and ``utility``.

    Parameters
    ----------
    definition:
        The privacy definition every mechanism is audited against.
    utility:
        The utility evaluated on every mechanism.
    mechanisms:
        A list of mechanisms, ``(name, mechanism)`` pairs, a ``{name: mechanism}`` mapping, or one
        :class:`~privopt.Mechanism`. Each
        entry is a :class:`~privopt.Mechanism`, an object with a ``.mechanism`` (a
        :class:`~privopt.Solution`, an IR/CR design), or a zero-argument callable returning one — then
        ``seconds`` is the time to build it — or the name of a mechanism the papers pair with the
        definition (:mod:`privopt.mechanisms.catalog`: ``"grr"``, ``"cr"``, ``"planar_laplace"``, and
        ``"<name>+remap"``, its optimal remapping, for a linear utility; ``"nr"``), built and timed here;
        ``"optimal"`` asks for the optimum's row (as ``optimum=True`` does). An unknown name is a
        :class:`~privopt.ValidationError` that lists the names there are.
    optimum:
        Add a row ``"optimal"`` from ``Problem(definition, utility, **problem_options).solve()``.
        No row is ever dropped: a mechanism that cannot be built (its callable raised), solved (the
        optimum: infeasible, above a limit, not supported) or evaluated is a row with ``NaN`` values,
        its ``status`` (``"infeasible"``, ``"limit"``, ``"not_supported"`` or ``"error"``) and the
        ``error``.

    Returns
    -------
    pandas.DataFrame
        Columns ``mechanism, outputs, utility, nmi, eps, eps_lower, eps_upper, satisfied, seconds,
        audit_seconds, status, note, error``; ``eps`` is the audited (upper) ε, ``eps_lower`` the lower
        end of the audit interval (equal to ``eps`` for exact audits); ``nmi`` is ``I(X;Y)/H(X)`` for the
        distribution of the utility (mutual information) or of the definition, ``NaN`` without one;
        ``status`` is the solution's for the optimum, ``""`` for an explicit mechanism, or the failure;
        ``error`` is ``""`` or what went wrong.

    Examples
    --------
    >>> import numpy as np, privopt as po
    >>> P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100)
    >>> F = po.RenyiBall.confidence(P)
    >>> table = po.compare(po.SensitiveLDP(np.log(2), F), po.MutualInformation(P),
    ...                    {"SRR": po.mechanisms.srr(2, 2, np.log(2))})
    >>> list(table["mechanism"])
    ['SRR', 'optimal']

    Named mechanisms: geo-indistinguishability on a grid, the planar Laplace with and without the
    optimal remapping for the prior and the loss (Bordenabe et al., CCS 2014):

    >>> grid = po.Grid(3, 3)
    >>> d = grid.distances()
    >>> prior = np.full(9, 1 / 9)
    >>> table = po.compare(po.MetricLDP(1.0, d), po.ExpectedDistortion(prior, d),
    ...                    ["planar_laplace", "planar_laplace+remap"])
    >>> list(table["mechanism"])
    ['planar_laplace', 'planar_laplace+remap', 'optimal']
    """
    if not isinstance(definition, PrivacyDefinition):
        raise ValidationError(
            "definition", "a privacy definition such as po.LDP(eps)", type(definition).__name__
        )
    utility = as_utility(utility)
    entries = _entries(mechanisms)
    problem: Problem | None = None
    names = [item for _, item in entries if isinstance(item, str)]
    if names:  # built by name for this problem (privopt.designs.named)
        problem = Problem(definition, utility, **problem_options)
        for label, item in entries:
            if isinstance(item, str):
                try:
                    resolve([item], problem)
                except ValidationError as exc:
                    raise ValidationError(
                        f"mechanisms[{label!r}]", f"a mechanism or one of the {exc.expected}", exc.got
                    ) from None
        builders, wanted = resolve(names, problem)
        optimum = optimum or wanted
        entries = [
            (label, builders[item.lower()] if isinstance(item, str) else item)
            for label, item in entries
            if not (isinstance(item, str) and item.lower() in OPTIMUM_NAMES)
        ]
    distribution = _nmi_distribution(definition, utility)
    h = entropy(distribution) if distribution is not None else 0.0
    rows = []

    def row(name: str, mechanism: Mechanism, seconds: float, note: str, status: str = "") -> dict[str, Any]:
        start = time.perf_counter()
        report = audit(mechanism, definition)
        audit_seconds = time.perf_counter() - start
        value = utility.value(mechanism)
        nmi = np.nan
        if distribution is not None and h > 0.0:
            nmi = MutualInformation(distribution).value(mechanism) / h
        return {
            "mechanism": name,
            "outputs": mechanism.n_outputs,
            "utility": value,
            "nmi": nmi,
            "eps": report.upper,
            "eps_lower": report.lower,
            "eps_upper": report.upper,
            "satisfied": report.satisfied,
            "seconds": seconds,
            "audit_seconds": audit_seconds,
            "status": status,
            "note": note,
            "error": "",
        }

    def failed(name: str, seconds: float, exc: BaseException, note: str = "") -> dict[str, Any]:
        values: dict[str, Any] = dict.fromkeys(COLUMNS, np.nan)
        values.update(
            mechanism=name,
            satisfied=None,
            seconds=seconds,
            status=failure_status(exc),
            note=note,
            error=failure_text(exc),
        )
        return values

    for name, item in entries:
        seconds = np.nan
        start = time.perf_counter()
        factory = callable(item) and not isinstance(item, Mechanism)
        try:
            if factory:
                built_by, item = item, call(item, f"mechanisms[{name!r}]", "a function building a mechanism")
                seconds = time.perf_counter() - start
                if not isinstance(item, Mechanism) and not isinstance(
                    getattr(item, "mechanism", None), Mechanism
                ):
                    raise returned(
                        built_by,
                        f"mechanisms[{name!r}]",
                        "a function returning a Mechanism (or a design)",
                        item,
                    )
            built = as_mechanism(item, name)
        except ValidationError as exc:
            if exc.argument == f"mechanisms[{name!r}]" and not factory:
                raise  # not a mechanism at all: a mistake in the call, not a failed design
            rows.append(failed(name, time.perf_counter() - start, exc))
            continue
        except Exception as exc:  # a user's builder failed: its row says how
            rows.append(failed(name, time.perf_counter() - start, exc))
            continue
        try:
            rows.append(row(name, built, seconds, ""))
        except PrivoptError as exc:
            rows.append(failed(name, seconds, exc))
    if optimum:
        start = time.perf_counter()
        try:
            solution = (problem or Problem(definition, utility, **problem_options)).solve()
            rows.append(
                row(
                    "optimal",
                    solution.mechanism,
                    time.perf_counter() - start,
                    solution.route,
                    solution.status.value,
                )
            )
        except PrivoptError as exc:
            rows.append(failed("optimal", time.perf_counter() - start, exc))
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["outputs"] = table["outputs"].astype("Int64")  # a failed row has none
    return table
