"""Every function a user hands to privopt is called so that what it raises or returns wrong is a privopt
error naming it (privopt.callables): utilities' μ and f, transforms, cvxpy builders, Pufferfish
predicates, metric distances, component and mechanism factories, spec factories, sweep cells."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

import privopt as po
from privopt.callables import call, describe, returned
from privopt.experiments import Sweep

P = po.JointDistribution([[0.07, 0.10], [0.26, 0.57]], n=100)


def strings_mu(columns):
    return ["high"] * columns.shape[1]


def raising_mu(columns):
    raise KeyError("the column's label")


# ------------------------------------------------------------------ the helper
def test_describe_names_functions_lambdas_partials_and_objects():
    assert describe(strings_mu) == "strings_mu"
    assert describe(po.mechanisms.grr) == "grr"
    assert describe(lambda x: x).startswith("<lambda> (test_callables.py:")
    assert describe(functools.partial(strings_mu)) == "partial(strings_mu)"

    class Scorer:
        def __call__(self, columns):
            return columns.sum(axis=0)

    assert describe(Scorer()) == "a Scorer object"
    assert describe(Scorer().__call__) == "Scorer.__call__"


def test_call_wraps_what_is_not_a_privopt_error_and_chains_the_cause():
    with pytest.raises(po.CallableError) as caught:
        call(raising_mu, "mu", "a function returning numbers", np.ones((2, 2)))
    error = caught.value
    assert isinstance(error, po.ValidationError)
    assert error.argument == "mu"
    assert (
        str(error)
        == 'mu: expected a function returning numbers, got raising_mu raised KeyError: "the column\'s label"'
    )
    assert isinstance(error.__cause__, KeyError)
    # privopt's own errors say what is wrong already: they pass unchanged
    with pytest.raises(po.ValidationError, match=r"^eps: expected a finite number >= 0") as own:
        call(lambda: po.LDP(-1.0), "factory", "a factory")
    assert not isinstance(own.value, po.CallableError)
    # running out of memory is a limit, not bad input
    with pytest.raises(po.LimitError, match=r"^mu: .*ran out of memory"):
        call(lambda: (_ for _ in ()).throw(MemoryError("Unable to allocate 12 GiB")), "mu", "numbers")
    # an interrupt is not the function's failure
    with pytest.raises(KeyboardInterrupt):
        call(lambda: (_ for _ in ()).throw(KeyboardInterrupt), "mu", "numbers")
    error = returned(strings_mu, "mu", "numbers", "x", name="'module:strings_mu'")
    assert str(error) == "mu: expected numbers, got 'module:strings_mu' returned str 'x'"


# ------------------------------------------------------------------ utilities
def test_a_utility_whose_mu_returns_strings_is_named_in_solve():
    utility = po.SubConvexUtility(strings_mu, input_size=4)
    with pytest.raises(
        po.CallableError,
        match=r"^mu: expected a function of a \(\|X\|, m\) array .*got strings_mu returned list \['high'",
    ):
        po.Problem(po.LDP(1.0), utility).solve()


@pytest.mark.parametrize(
    ("mu", "pattern"),
    [
        (raising_mu, r"got raising_mu raised KeyError"),
        (
            lambda W: np.full(W.shape[1], np.nan),
            r"none of them NaN, got <lambda> \(test_callables.py:\d+\) returned ndarray",
        ),
        (lambda W: {"a": 1}, r"got <lambda> \(test_callables.py:\d+\) returned dict"),
    ],
)
def test_a_failing_or_wrong_mu_is_named(mu, pattern):
    utility = po.SubConvexUtility(mu, input_size=2)
    with pytest.raises(po.CallableError, match=pattern):
        utility.value(np.eye(2))


def test_mu_with_the_wrong_number_of_values_is_a_shape_error_naming_it():
    utility = po.SubConvexUtility(lambda W: np.ones(W.shape[1] + 1), input_size=2)
    with pytest.raises(
        po.ShapeError, match=r"mu: expected one value per column \(2\), got 3 values from <lambda>"
    ):
        utility.value(np.eye(2))


def test_transform_and_f_divergence_generators_are_named():
    def bad_transform(total):
        return "a lot"

    utility = po.SubConvexUtility(lambda W: W.sum(axis=0), input_size=2, transform=bad_transform)
    with pytest.raises(po.CallableError, match=r"^transform: .*got bad_transform returned str 'a lot'"):
        utility.value(np.eye(2))

    def chi(t):
        if t.size > 1:
            raise ArithmeticError("no vectors, please")
        return (t - 1.0) ** 2

    divergence = po.FDivergence(chi, [0.3, 0.7], [0.6, 0.4])
    with pytest.raises(po.CallableError, match=r"^f: .*got chi raised ArithmeticError: no vectors, please"):
        divergence.value(np.array([[0.8, 0.2], [0.3, 0.7]]))
    with pytest.raises(po.CallableError, match=r"^f: .*got <lambda> .* returned str"):
        po.FDivergence(lambda t: "zero", [0.3, 0.7], [0.6, 0.4])


def test_a_concave_builder_failing_at_evaluation_is_named():
    calls = []

    def gain(W):
        calls.append(1)
        if len(calls) > 1:  # fine when checked, wrong when a mechanism is evaluated
            raise RuntimeError("lost the loss matrix")
        return po.ExpectedGain(np.full(2, 0.5), np.eye(2)).expression(W)

    utility = po.ConcaveUtility(gain, n_outputs=2, input_size=2)
    with pytest.raises(
        po.CallableError, match=r"^builder: .*got .*gain raised RuntimeError: lost the loss matrix"
    ):
        utility.value(np.eye(2))


# ------------------------------------------------------------------ definitions
def test_pufferfish_predicates_are_named():
    def bad(record):
        return record[2]  # records are (s, u): there is no third field

    with pytest.raises(po.CallableError, match=r"^secrets\['a'\]: .*got .*bad raised IndexError"):
        po.Pufferfish({"a": bad, "b": lambda r: r[0] == 1}, [("a", "b")], 1.0, P)
    with pytest.raises(
        po.CallableError,
        match=r"^secrets\['a'\]: expected a predicate .*returning True or False .*returned str 'yes'",
    ):
        po.Pufferfish({"a": lambda r: "yes", "b": lambda r: r[0] == 1}, [("a", "b")], 1.0, P)


def test_metric_distances_are_named():
    def far(a, b):
        return "far" if a != b else 0.0

    with pytest.raises(
        po.CallableError,
        match=r"^d: expected a function of two input labels returning a number \(at 'x', 'y'\), got far returned str 'far'",
    ):
        po.MetricLDP(1.0, far, labels=["x", "y"])
    with pytest.raises(po.CallableError, match=r"^d: .*got <lambda> .* raised ZeroDivisionError"):
        po.MetricLDP(1.0, lambda a, b: 1 / 0, labels=["x", "y"])


# ------------------------------------------------------------------ factories
def test_component_factories_fail_loudly_instead_of_skipping_splits():
    F = po.RenyiBall.confidence(P)

    def noisy(k, eps):
        raise OSError("the RNG service is down")

    for design, argument in (
        (po.mechanisms.independent_reporting, "R2"),
        (po.mechanisms.conditional_reporting, "R"),
    ):
        with pytest.raises(
            po.CallableError,
            match=rf"^{argument}: expected a factory \(k, eps\) -> Mechanism .*got noisy raised OSError",
        ):
            design(F, 1.0, **{argument: noisy})
    with pytest.raises(po.CallableError, match=r"^R1: .*got <lambda> .* returned ndarray"):
        po.mechanisms.independent_reporting(F, 1.0, R1=lambda k, eps: np.eye(k))


def test_compare_factories_are_named():
    # po.compare never drops a row: a factory that raises or returns something else is a row whose
    # status and error name the function (the CallableError's message).
    definition, utility = po.LDP(1.0), po.MutualInformation(P)
    table = po.compare(
        definition,
        utility,
        {"raises": lambda: (_ for _ in ()).throw(ValueError("not yet")), "four": lambda: 4},
        optimum=False,
    ).set_index("mechanism")
    assert table.loc["raises", "status"] == "error"
    assert re.search(
        r"mechanisms\['raises'\]: .*got <lambda> .* raised ValueError: not yet", table.loc["raises", "error"]
    )
    assert table.loc["four", "status"] == "error"
    assert re.search(
        r"mechanisms\['four'\]: expected a function returning a Mechanism .*returned int 4",
        table.loc["four", "error"],
    )


# ------------------------------------------------------------------ sweeps
def divides(cell):
    return {"ratio": 1 / cell["k"]}


def test_a_cell_that_raises_is_recorded_naming_the_function_and_the_line():
    table = Sweep(divides, {"k": [1, 0]}, backend="serial", progress=False).run()
    assert table["status"].tolist() == ["ok", "failed"]
    error = table["error"].iloc[1]
    # What was raised, by which function: not a complaint about the return type (issue 55).
    assert error.startswith("divides raised ZeroDivisionError: division by zero")
    assert error.endswith(f"(at test_callables.py:{divides.__code__.co_firstlineno + 1})")  # the user's line
