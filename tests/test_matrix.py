"""All-pairs matrix (issue 7): the vectorised dnd5e path answers exactly like /v1/cover."""

from __future__ import annotations

import pytest

from bench.dungeon import dungeon
from schemas.scene import SceneSchema
from service import geometry, rules
from service.app import sample_scene
from service.errors import RulesError, UnknownToken
from service.matrix import matrix
from service.rules.base import Attack, build_geometry
from service.senses import prefetch_perception
from tests.scenes import load, tok, wall


def pairwise(geo, system, kind, options):
    toks = list(geo.scene.tokens)
    if kind == "cover":
        return [
            [None if a is t else system.cover(geo, a, t, Attack(), options).cover for t in toks]
            for a in toks
        ]
    return [
        [None if a is t else system.vision(geo, a, t, options).sense for t in toks] for a in toks
    ]


SCENES = {
    "sample": lambda: SceneSchema().load(sample_scene()),
    "dungeon": lambda: SceneSchema().load(dungeon(400, 12, seed=5)),
    "low walls, creatures, shared space, elevation": lambda: load(
        [
            wall("low", 250, -1000, 250, 1000, cover="low"),
            wall("w", 600, 0, 600, 150),
            wall("hi", 0, 300, 900, 300, height={"bottom": 0, "top": 10}),
        ],
        [
            tok("A", 0, 0),
            tok("B", 400, 0),
            tok("C", 150, 50),
            tok("D", 400, 0),
            tok("E", 700, 100, 2),
            tok("F", 100, 500, elevation=30),
            tok("G", 500, 600),
        ],
    ),
}


@pytest.mark.parametrize("method", ["paired-corners", "dmg-corner"])
@pytest.mark.parametrize("name", list(SCENES))
def test_dnd5e_cover_matrix_equals_each_cover_answer(name, method):
    geo = build_geometry(SCENES[name]())
    system = rules.get("dnd5e")
    options = {"cover_method": method}
    got = matrix(geo, system, None, "cover", options)
    assert got["tokens"] == [t.id for t in geo.scene.tokens]
    assert got["cover"] == pairwise(geo, system, "cover", options)


@pytest.mark.parametrize("ruleset", ["starfinder", "pf2e-variant"])
def test_other_rulesets_cover_matrix(ruleset):
    geo = build_geometry(SCENES["sample"]())
    system = rules.get(ruleset)
    assert matrix(geo, system, None, "cover", {})["cover"] == pairwise(geo, system, "cover", {})


def test_vision_matrix():
    geo = build_geometry(SCENES["sample"]())
    system = rules.get("dnd5e")
    got = matrix(geo, system, None, "vision", {})
    assert got["vision"] == pairwise(geo, system, "vision", {})
    for i, (row_s, row_c) in enumerate(zip(got["vision"], got["can_see"], strict=True)):
        for j, (sense, can) in enumerate(zip(row_s, row_c, strict=True)):
            if i == j:
                assert sense is None and can is None
            else:
                assert can is (sense not in (None, "hearing"))


VISION_SCENES = {
    **SCENES,
    "fog, one-way walls, a sound-only wall, darkvision": lambda: load(
        [
            wall("one-way", 300, -500, 300, 500, direction="left"),
            wall("glass", 0, 250, 250, 250, move="normal", sight="none", sound="normal"),
            wall("curtain", 500, 250, 900, 250, move="none", sight="normal", sound="none"),
        ],
        [
            tok("A", 0, 0, senses={"darkvision": 60}),
            tok("B", 400, 0, senses={"blindsight": 30, "hearing": 40}),
            tok("C", 100, 400, conditions=["invisible"]),
            tok("D", 600, 400, elevation=20, senses={"tremorsense": 60}),
            tok("E", 800, 0, 2, conditions=["blinded"]),
        ],
        regions=[
            {
                "id": "fog",
                "shape": {"type": "rect", "x": 650, "y": -100, "width": 100, "height": 400},
                "obscurement": "heavy",
            }
        ],
        environment={"light": "dim"},
    ),
}


@pytest.mark.parametrize("options", [{}, {"corner_inset": 0}, {"corner_inset": 10}])
@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize("name", list(VISION_SCENES))
def test_batched_vision_answers_exactly_as_each_pair(name, ruleset, options):
    """Issue 7: the centre lines traced ahead for all pairs change no answer, not a field."""
    geo = build_geometry(VISION_SCENES[name]())
    system = rules.get(ruleset)
    toks = list(geo.scene.tokens)
    alone = [[system.vision(geo, a, t, options) for t in toks if t is not a] for a in toks]
    with geometry.batch():
        prefetch_perception(
            geo, [(a, t) for a in toks for t in toks], inset=system.vision_inset(options)
        )
        batched = [[system.vision(geo, a, t, options) for t in toks if t is not a] for a in toks]
    assert batched == alone
    got = matrix(geo, system, None, "vision", options)
    assert got["vision"] == [
        [None if a is t else system.vision(geo, a, t, options).sense for t in toks] for a in toks
    ]


def test_batch_memo_is_dropped_after_the_batch():
    geo = build_geometry(SCENES["dungeon"]())
    toks = list(geo.scene.tokens)
    assert geometry.batch_memo() is None
    with geometry.batch() as memo:
        prefetch_perception(geo, [(toks[0], toks[1])])
        assert memo and geometry.batch_memo() is memo
    assert geometry.batch_memo() is None
    prefetch_perception(geo, [(toks[0], toks[1])])  # outside a batch: does nothing
    assert geometry.batch_memo() is None


def test_token_subset_order_and_errors():
    geo = build_geometry(SCENES["sample"]())
    system = rules.get("dnd5e")
    got = matrix(geo, system, ["goblin", "archer"], "cover", {})
    assert got == {"tokens": ["goblin", "archer"], "cover": [[None, "half"], ["half", None]]}
    with pytest.raises(UnknownToken):
        matrix(geo, system, ["nope"], "cover", {})
    with pytest.raises(RulesError):
        matrix(geo, system, ["goblin", "goblin"], "cover", {})


def test_batched_vision_traces_once_per_sense(monkeypatch):
    """The pairs' centre lines are traced in three vectorised calls, not three per pair."""
    geo = build_geometry(SCENES["dungeon"]())
    system = rules.get("dnd5e")
    calls = []
    real = geometry.trace
    monkeypatch.setattr(geometry, "trace", lambda *a, **k: calls.append(len(a[1])) or real(*a, **k))
    matrix(geo, system, None, "vision", {})
    n = len(geo.scene.tokens)
    assert calls[:3] == [n * (n - 1)] * 3
    assert len(calls) - 3 < n * (n - 1)  # most pairs answer from the lines traced ahead
