"""Definitions, uncertainty sets and distributions as data: ``po.save`` / ``po.load`` round trips.

A loaded definition must compile to the same cone and give the same optimum as the one saved (both
computed here, on the same problem); the optimum is compared to 1e-12 because a reloaded probability
table is renormalised, which may move its last bit.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import privopt as po
from privopt.app.json_forms import FORMS

P = po.JointDistribution.from_counts(
    [[30, 20, 10], [5, 40, 60]], s_labels=["a", "b"], u_labels=["north", "mid", "south"]
)
UNIFORM = po.JointDistribution(
    np.full((2, 3), 1 / 6), s_labels=["a", "b"], u_labels=["north", "mid", "south"]
)
SRLIP_TABLE = np.array([[0.145, 0.105, 0.135, 0.115], [0.105, 0.145, 0.115, 0.135]])
LINE = np.abs(np.subtract.outer(np.arange(4), np.arange(4))).astype(float)
LINE_WITH_GAP = LINE.copy()
LINE_WITH_GAP[0, 3] = math.inf  # the pair (0, 3) unconstrained: JSON has no inf, it is written as null


def _cases() -> dict[str, tuple[po.PrivacyDefinition, object]]:
    mi = po.MutualInformation(P)
    return {
        "LDP": (po.LDP(1.0), mi),
        "SensitiveLDP-point": (po.SensitiveLDP(1.0, P), mi),
        "SensitiveLDP-renyi": (po.SensitiveLDP(1.0, po.RenyiBall.confidence(P)), mi),
        "SensitiveLDP-renyi-order3": (po.SensitiveLDP(1.0, po.RenyiBall(P, 0.05, 3.0)), mi),
        "SensitiveLDP-finite": (po.SensitiveLDP(1.0, po.FiniteSet([P, UNIFORM])), mi),
        "SensitiveLDP-simplex": (po.SensitiveLDP(1.0, po.Simplex((2, 3))), mi),
        "SensitiveLDP-bounds": (
            po.SensitiveLDP(
                1.0,
                po.ConditionalBounds(
                    [[0.3, 0.2, 0.1], [0.05, 0.3, 0.4]], [[0.6, 0.5, 0.4], [0.2, 0.5, 0.7]], P
                ),
            ),
            mi,
        ),
        "SensitiveLDP-polytope-on-u": (
            po.SensitiveLDP(1.0, po.Polytope([P.p_x, UNIFORM.p_x], shape=(2, 3)), on="u"),
            po.MutualInformation(P, on="u"),
        ),
        "LIP": (po.LIP(1.0, P), mi),
        "PML-l1": (po.PML(1.0, po.L1Ball(P, 0.05, level=0.95)), mi),
        "PML-polytope": (po.PML(1.0, po.Polytope([P.p_x, UNIFORM.p_x], shape=(2, 3))), mi),
        "SRLIP": (
            po.SRLIP(0.2, SRLIP_TABLE, [2, 2]),
            po.MutualInformation(po.JointDistribution(SRLIP_TABLE), on="u"),
        ),
        "MetricLDP": (
            po.MetricLDP(0.5, LINE_WITH_GAP, labels=["w", "x", "y", "z"]),
            po.MutualInformation(np.full(4, 0.25)),
        ),
        "RatioConstraints": (
            po.RatioConstraints(
                [(po.given(s="a"), [po.marginal()]), (po.marginal(), po.given(s="a"))],
                0.5,
                over=P,
                name="Mine",
            ),
            mi,
        ),
        "RatioConstraints-constant": (
            po.RatioConstraints(
                [
                    po.RatioPair.of(po.given(x=0), po.weights([0, 0.5, 0.5]), "mine", 2.0),
                    (po.given(x=1) + po.given(x=2), 2 * po.given(x=0)),
                ],
                0.5,
                n_inputs=3,
            ),
            po.MutualInformation(np.full(3, 1 / 3)),
        ),
        "Pufferfish": (
            po.Pufferfish(
                {
                    "a": lambda record: record[0] == "a",  # a predicate: saved as the records it selects
                    "north-or-mid": [("a", "north"), ("b", "mid"), ("b", "north")],
                    "everyone": list(P.x_labels),
                },
                [("a", "everyone"), ("north-or-mid", "everyone")],
                1.0,
                po.FiniteSet([P, UNIFORM]),
                name="Policy",
            ),
            mi,
        ),
        "Pufferfish-directed-on-u": (
            po.Pufferfish(
                {("b", 1): [("b", "north")], 7: [("a", "south"), ("b", "south")]},
                [(("b", 1), 7)],
                0.5,
                P,
                on="u",
                directed=True,
            ),
            po.MutualInformation(P, on="u"),
        ),
    }


CASES = _cases()


@pytest.mark.parametrize("name", list(CASES))
def test_a_loaded_definition_gives_the_same_optimum(name, tmp_path):
    definition, utility = CASES[name]
    path = po.save(definition, tmp_path / "nested" / "definition.json")
    loaded = po.load(path)
    assert type(loaded) is type(definition)
    assert repr(loaded) == repr(definition)
    assert loaded.eps == definition.eps
    assert loaded.on == definition.on
    assert loaded.input_labels() == definition.input_labels()
    n_inputs = utility.input_size
    cone, cone_back = definition.row_cone(n_inputs), loaded.row_cone(n_inputs)
    assert len(cone.groups) == len(cone_back.groups)
    for group, group_back in zip(cone.groups, cone_back.groups, strict=True):
        np.testing.assert_allclose(group_back.vectors, group.vectors, rtol=0, atol=1e-15)
    expected = po.Problem(definition, utility).solve().value
    assert po.Problem(loaded, utility).solve().value == pytest.approx(expected, rel=0, abs=1e-12)


def test_pufferfish_predicates_are_saved_as_their_events():
    definition, _ = CASES["Pufferfish"]
    document = json.loads(po.to_json(definition))
    secrets = {name: records for name, records in document["data"]["secrets"]}
    assert secrets["a"] == [{"__tuple__": ["a", u]} for u in ("north", "mid", "south")]
    loaded = po.from_json(po.to_json(definition))
    assert loaded.events == definition.events
    assert loaded.discriminative_pairs == definition.discriminative_pairs


def test_metric_distances_keep_inf_as_null():
    definition, _ = CASES["MetricLDP"]
    document = json.loads(po.to_json(definition))
    assert document["data"]["distances"][0][3] is None
    np.testing.assert_array_equal(po.from_json(po.to_json(definition)).distances, LINE_WITH_GAP)


@pytest.mark.parametrize(
    "obj",
    [
        P,
        po.Point(P),
        po.FiniteSet([P, UNIFORM]),
        po.Simplex((2, 3)),
        po.RenyiBall.confidence(P, level=0.9),
        po.L1Ball.confidence(P),
        po.Polytope([P.p_x, UNIFORM.p_x], shape=(2, 3)),
        po.ConditionalBounds([[0.3, 0.2, 0.1], [0.05, 0.3, 0.4]]),
    ],
    ids=lambda obj: type(obj).__name__,
)
def test_sets_and_distributions_round_trip_with_their_fields(obj):
    loaded = po.from_json(po.to_json(obj))
    assert type(loaded) is type(obj)
    assert repr(loaded) == repr(obj)
    # Probability tables are renormalised when read (as by every constructor): equal to the last bits.
    _assert_same_document(json.loads(po.to_json(loaded)), json.loads(po.to_json(obj)))


def _assert_same_document(got: object, expected: object) -> None:
    if isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-15, abs=1e-17)
    elif isinstance(expected, dict):
        assert isinstance(got, dict)
        assert got.keys() == expected.keys()
        for key in expected:
            _assert_same_document(got[key], expected[key])
    elif isinstance(expected, list):
        assert isinstance(got, list)
        assert len(got) == len(expected)
        for a, b in zip(got, expected, strict=True):
            _assert_same_document(a, b)
    else:
        assert got == expected


def test_every_definition_class_of_the_api_has_a_json_form():
    kinds = {name for name in po.__all__ if isinstance(getattr(po, name), type)}
    definitions = {name for name in kinds if issubclass(getattr(po, name), po.PrivacyDefinition)}
    assert definitions - {"PrivacyDefinition"} <= set(FORMS)
    sets = {name for name in kinds if issubclass(getattr(po, name), po.UncertaintySet)}
    assert sets - {"UncertaintySet"} <= set(FORMS)


def test_a_subclass_defined_elsewhere_is_refused_by_name():
    class Mine(po.RatioConstraints):
        pass

    definition = Mine([(po.given(s="a"), po.given(s="b"))], 1.0, over=P)
    with pytest.raises(
        po.ValidationError, match=r"obj: expected a privacy definition of privopt's own.*got Mine"
    ):
        po.to_json(definition)


def test_an_unknown_type_in_a_document_is_a_validation_error():
    document = json.loads(po.to_json(po.SensitiveLDP(1.0, P)))
    document["data"]["uncertainty"]["type"] = "Ellipsoid"
    with pytest.raises(
        po.ValidationError, match=r"type: expected an uncertainty set among .*got 'Ellipsoid'"
    ):
        po.from_json(json.dumps(document))
    document["type"] = "Nonsense"
    with pytest.raises(po.ValidationError, match="text: expected a privopt JSON document"):
        po.from_json(json.dumps(document))


def test_a_loaded_definition_is_checked_like_a_new_one():
    document = json.loads(po.to_json(po.SensitiveLDP(1.0, P)))
    document["data"]["eps"] = -1.0
    with pytest.raises(po.ValidationError, match="eps"):
        po.from_json(json.dumps(document))
