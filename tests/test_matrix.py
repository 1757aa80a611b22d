"""All-pairs matrix (issue 7): the vectorised dnd5e path answers exactly like /v1/cover."""

from __future__ import annotations

import pytest

from bench.dungeon import dungeon
from schemas.scene import SceneSchema
from service import rules
from service.app import sample_scene
from service.errors import RulesError, UnknownToken
from service.matrix import matrix
from service.rules.base import Attack, build_geometry
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


def test_token_subset_order_and_errors():
    geo = build_geometry(SCENES["sample"]())
    system = rules.get("dnd5e")
    got = matrix(geo, system, ["goblin", "archer"], "cover", {})
    assert got == {"tokens": ["goblin", "archer"], "cover": [[None, "half"], ["half", None]]}
    with pytest.raises(UnknownToken):
        matrix(geo, system, ["nope"], "cover", {})
    with pytest.raises(RulesError):
        matrix(geo, system, ["goblin", "goblin"], "cover", {})
