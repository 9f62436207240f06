"""Certified column generation's knobs in one typed place (privopt.routes.pricing.tuning, issue 52)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import privopt as po
from privopt.routes.pricing import certified_generation, tuning
from tests.test_independent_reporting import random_ball


def test_every_knob_is_a_documented_field_with_its_unit():
    source = Path(tuning.__file__).read_text(encoding="utf-8")
    for item in dataclasses.fields(tuning.ColumnGenerationTuning):
        head = source.index(f"    {item.name}: ")
        comment = source[source.rindex("\n\n", 0, head) : head]
        assert "#: Unit:" in comment, item.name
        assert isinstance(getattr(tuning.DEFAULT, item.name), int | float)
    # The module that used to hold them as constants holds none of them now.
    for item in dataclasses.fields(tuning.ColumnGenerationTuning):
        assert item.name.upper() not in vars(certified_generation)


@pytest.mark.parametrize(
    ("changes", "field"),
    [({"smoothing": 1.5}, "smoothing"), ({"grow": 0.5}, "grow"), ({"round_slack": -1.0}, "round_slack"),
     ({"probe_nodes": float("nan")}, "probe_nodes")],
)  # fmt: skip
def test_a_bad_knob_is_refused_by_name(changes, field):
    with pytest.raises(po.ValidationError, match=field), tuning.tuned(**changes):
        pass


def test_an_unknown_knob_is_refused_with_the_known_ones():
    with pytest.raises(po.ValidationError, match=r"knobs among .*settled_growth"), tuning.tuned(speed=2.0):
        pass


def test_tuned_applies_to_the_block_only_and_nests():
    assert tuning.active() is tuning.DEFAULT
    with tuning.tuned(settled_growth=0.01) as outer:
        assert tuning.active().settled_growth == pytest.approx(0.01)
        with tuning.tuned(probe_nodes=9):
            assert tuning.active().probe_nodes == 9
            assert tuning.active().settled_growth == pytest.approx(0.01)  # the outer change holds
        assert tuning.active() is outer
    assert tuning.active() is tuning.DEFAULT


def test_a_run_reads_the_tuning_in_force(monkeypatch):
    # Certified column generation reads its knobs through active() while it runs: inside tuned(), the
    # values it gets are the block's.
    seen = []

    def spy():
        seen.append(tuning.active())
        return seen[-1]

    monkeypatch.setattr(certified_generation, "active", spy)
    F = random_ball(np.random.default_rng(2), (3, 4), 1000)
    problem = po.Problem(
        po.SensitiveLDP(1.0, F),
        po.MutualInformation(F.center),
        colgen={"progress": False, "time_limit": 10.0},
    )
    with tuning.tuned(reserve=0.05, settled_growth=0.0456):
        problem.solve(route="colgen")
    assert seen
    assert all(knobs.reserve == pytest.approx(0.05) for knobs in seen)
    assert all(knobs.settled_growth == pytest.approx(0.0456) for knobs in seen)
