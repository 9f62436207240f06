"""privopt.verify: bad claims get clear errors; symbolic time limits are reported, not raised."""

from __future__ import annotations

import pytest
import sympy as sp

from privopt import ValidationError
from privopt import verify as pv
from privopt.verify import verdicts

x, y = sp.symbols("x y", real=True)


def test_unknown_symbols_are_refused():
    with pytest.raises(ValidationError, match=r"unknown symbol\(s\) y"):
        pv.Claim("bad", "test", pv.Identity(x + y, 0), pv.Region((pv.Param("x", 0, 1),)))


def test_a_bound_in_a_later_parameter_is_refused():
    with pytest.raises(
        ValidationError, match=r"x.upper: expected a bound in the parameters declared before it"
    ):
        pv.Region((pv.Param("x", 0, y), pv.Param("y", 0, 1)))


@pytest.mark.parametrize(
    ("param", "message"),
    [
        (lambda: pv.Param("x", 1, 0), "consistent bounds"),
        (lambda: pv.Param("x", 1, 1, lower_open=True), "consistent bounds"),
        (lambda: pv.Param("x", 0, 1, integer=True, exp_symbol="E"), "an integer or an exp-parameter"),
        (lambda: pv.Param("not a name"), "a Python identifier"),
    ],
)
def test_inconsistent_assumptions_are_refused(param, message):
    with pytest.raises(ValidationError, match=message):
        param()


def test_duplicate_symbols_are_refused():
    with pytest.raises(ValidationError, match="each symbol declared once"):
        pv.Region((pv.Param("eps", 0, None, exp_symbol="x"), pv.Param("x", 0, 1)))


def test_an_empty_validity_region_is_refused():
    region = pv.Region((pv.Param("x", 0, 1), pv.Param("y", 0, x)), constraints=(y > x,))
    with pytest.raises(ValidationError, match="non-empty validity region"):
        pv.Claim("bad", "test", pv.Inequality(y, x), region)


def test_a_false_constraint_is_refused():
    with pytest.raises(ValidationError, match="the region is empty"):
        pv.Region((pv.Param("x", 0, 1),), constraints=(sp.false,))


def test_bad_statement_expectation_and_checkers():
    region = pv.Region((pv.Param("x", 0, 1),))
    with pytest.raises(ValidationError, match="statement"):
        pv.Claim("bad", "test", x >= 0, region)  # a sympy relation is not a statement
    with pytest.raises(ValidationError, match="'holds' or 'fails'"):
        pv.Claim("bad", "test", pv.Identity(x, x), region, expect="true")
    with pytest.raises(ValidationError, match="checkers"):
        pv.Claim("bad", "test", pv.Identity(x, x), region, checkers=("oracle",))


def test_unknown_claim_names_and_bad_options_are_refused():
    with pytest.raises(ValidationError, match="a shipped claim name or a prefix"):
        pv.verify(["no.such.claim"])
    with pytest.raises(ValidationError, match="'md' or 'json'"):
        pv.run(["isit.a_s"], format="html")
    with pytest.raises(ValidationError, match="time_limit"):
        pv.verify(["isit.a_s"], time_limit=0)


def test_symbolic_time_limit_is_reported_as_undecided():
    # 600 independent identities, each evaluated and simplified by sympy: far more than 0.2 s of work.
    n = sp.symbols("n", real=True)
    parts = {f"part {k}": pv.Identity(sp.sin(n + k) ** 2 + sp.cos(n + k) ** 2, 1) for k in range(600)}
    region = pv.Region((pv.Param("n", 0, 1),))
    claim = pv.Claim("slow", "test", pv.AllOf(parts), region, checkers=("symbolic",))
    result = pv.check_claim(claim, time_limit=0.2)
    assert result.verdict == verdicts.TIME_LIMIT
    assert "within 0.2 s and was stopped" in result.detail
    assert result.status == "undecided"


def test_an_error_in_a_numerical_check_is_reported_not_raised():
    def broken(point, rng):
        raise RuntimeError("boom")

    claim = pv.Claim("broken", "test", pv.Numerical(broken), pv.Region((pv.Param("x", 0, 1),)), points=3)
    result = pv.check_claim(claim)
    assert result.verdict == verdicts.ERROR
    assert "boom" in result.detail
    assert result.status == "UNEXPECTED"
