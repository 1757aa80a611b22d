"""Roll20 import, issues 14 and 15: what is a creature, private lights, ``_path`` paths.

The two small exports of shared/cases/imports-2 (README.md rows ``roll20-private-token-
light.json`` and ``roll20-gm-layer-marker.json``) are checked for the scene facts they must
carry; the answers built on those facts (vision, lighting) belong to the lighting tests.
Hand-made pages check each rule by itself. References: shared/FORMATS.md B.2, B.4;
``adapters.roll20`` "Decisions"; shared/RULES.md GEO-3 (walls), COV rules (cover).
"""

from __future__ import annotations

import json

import pytest

from adapters import detect
from adapters.roll20 import to_scene
from schemas.scene import SceneSchema
from service.engine.scene import build_scene
from service.rules import get
from service.rules.ask import cover_one
from service.rules.base import Attack
from tests.adapters.common import checked
from tests.adapters.test_roll20 import exporter, graphic, module, path
from tests.conftest import SHARED

RULESETS = ("dnd5e", "starfinder", "pf2e-variant")


def convert(export, **kw) -> dict:
    """Run the adapter and check that the canonical scene loads (every result must)."""
    return checked(to_scene(export, **kw), SceneSchema().load)


def case(name: str) -> dict:
    """A small export of shared/cases/imports-2 (skips when ../shared is absent)."""
    file = SHARED / "cases" / "imports-2" / name
    if not file.exists():
        pytest.skip(f"../shared is not beside this checkout ({file} missing): case skipped")
    return json.loads(file.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- imports-2 cases


def test_case_private_token_light_is_seen_by_its_controllers_only():
    """imports-2 ``roll20-private-token-light.json``: the goblin's light
    (``light_otherplayers`` false, no sight) lights only for the goblin (``seen_by``
    "controllers"); no public light anywhere; the page is dark (legacy lighting without
    global illumination)."""
    result = convert(case("roll20-private-token-light.json"))
    scene = result["scene"]
    tokens = {t["name"]: t for t in scene["tokens"]}
    assert set(tokens) == {"Goblin", "Fighter"}
    assert tokens["Goblin"]["light"] == {"bright": 60, "dim": 60, "seen_by": "controllers"}
    assert tokens["Fighter"]["light"]["dim"] == 0
    assert tokens["Fighter"]["senses"]["darkvision"] == 0
    # no public light: every lit token's light is private, no scene light
    assert {t["light"]["seen_by"] for t in scene["tokens"] if t["light"]["dim"] > 0} == {
        "controllers"
    }
    assert scene["lights"] == []
    assert scene["environment"]["light"] == "dark"
    assert (
        "maps[0].graphics: 1 token lights seen only by their controllers (light_otherplayers "
        "false) kept as private lights (seen_by controllers): they light nothing for anyone "
        "else"
    ) in result["warnings"]


def test_case_private_token_light_through_auto_detection():
    """The same file through format detection (what ``POST /v1/import/auto`` runs) keeps the
    private light."""
    result = detect.to_scene(case("roll20-private-token-light.json"))
    goblin = next(t for t in result["scene"]["tokens"] if t["id"] == "gob")
    assert goblin["light"]["seen_by"] == "controllers"


def test_case_gm_layer_marker_is_not_a_creature():
    """imports-2 ``roll20-gm-layer-marker.json``: ``room-marker-7`` (unnamed, GM layer, no
    character, empty bars) is not a token and the warning names it."""
    result = convert(case("roll20-gm-layer-marker.json"))
    assert [t["id"] for t in result["scene"]["tokens"]] == ["archer", "orc"]
    assert result["stats"]["tokens"] == 2
    assert result["scene"]["lights"] == []
    assert (
        "maps[0].graphics: 1 graphics on the GM layer are not creatures (no represented "
        "character, bar value or name), skipped: room-marker-7"
    ) in result["warnings"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_case_gm_layer_marker_gives_no_cover(ruleset):
    """imports-2 ``roll20-gm-layer-marker.json``: nothing stands between Archer and Orc, so
    cover is ``none`` in every ruleset (the marker was a Large hidden creature before)."""
    scene = SceneSchema().load(convert(case("roll20-gm-layer-marker.json"))["scene"])
    archer, orc = scene.tokens
    system = get(ruleset)
    answer = cover_one(system, build_scene(scene), archer, orc, Attack(), {})
    assert answer.cover == "none"


# --------------------------------------------------------------------------- what a creature is


# graphic fields -> is it a token?
CREATURES = [
    pytest.param({"name": "", "represents": "-char1"}, True, id="represents"),
    pytest.param({"name": "Orc"}, True, id="named"),
    pytest.param({"name": "Orc", "showname": False}, True, id="name-hidden"),
    pytest.param({"name": "", "bar1_value": "7"}, True, id="bar1"),
    pytest.param({"name": "", "bar3_value": 0}, True, id="bar3-zero"),
    pytest.param({"name": "", "bar4_value": "12"}, True, id="bar4"),
    pytest.param({"name": ""}, False, id="unnamed"),
    pytest.param({"name": "  ", "represents": "", "bar1_value": ""}, False, id="blanks"),
    pytest.param({"name": None, "represents": None}, False, id="nulls"),
    pytest.param({"name": "Ace of spades", "cardid": "-card1"}, False, id="card"),
    pytest.param({"name": "Ace", "_subtype": "card"}, False, id="card-subtype"),
]


@pytest.mark.parametrize("fields, is_token", CREATURES)
@pytest.mark.parametrize("layer", ["objects", "gmlayer"])
def test_what_a_creature_is(fields, is_token, layer):
    """A token-layer graphic is a creature when it represents a character, carries a bar
    value or has a name (shown or not); otherwise it is skipped with a warning naming it."""
    result = convert(
        module(graphics=[graphic(id="g7", layer=layer, **{"represents": "", **fields})])
    )
    tokens = result["scene"]["tokens"]
    assert [(t["id"], t["hidden"]) for t in tokens] == (
        [("g7", layer == "gmlayer")] if is_token else []
    )
    label = "GM layer" if layer == "gmlayer" else "token layer"
    skipped = (
        f"maps[0].graphics: 1 graphics on the {label} are not creatures (no represented "
        "character, bar value or name), skipped: g7"
    )
    assert (skipped in result["warnings"]) is not is_token


def test_skipped_graphics_are_named_by_id_per_layer():
    graphics = [graphic(id=f"m{k}", name="", represents="", layer="gmlayer") for k in range(14)]
    graphics += [
        graphic(id="", _id="api-id", name="", represents="", layer="objects"),
        graphic(id=None, name="", represents="", layer="objects"),
        graphic(id="orc", name="Orc"),
    ]
    result = convert(module(graphics=graphics))
    assert [t["id"] for t in result["scene"]["tokens"]] == ["orc"]
    assert result["stats"]["tokens"] == 1
    skipped = [w for w in result["warnings"] if "are not creatures" in w]
    assert skipped == [
        "maps[0].graphics: 14 graphics on the GM layer are not creatures (no represented "
        "character, bar value or name), skipped: m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, "
        "m11, ...",
        "maps[0].graphics: 2 graphics on the token layer are not creatures (no represented "
        "character, bar value or name), skipped: api-id, graphic-15",
    ]


def test_lit_graphic_that_is_not_a_creature_is_a_scene_light():
    """A torch prop on the token layer (no name, no character) lights the scene; its light is
    kept as a scene light at the graphic's centre, public or private as Roll20 showed it."""
    torches = [
        graphic(id="torch", name="", represents="", left=140, top=210, light_radius=40,
                light_dimradius=20, light_otherplayers=True),
        graphic(id="gm-glow", name="", represents="", layer="gmlayer", left=350, top=70,
                light_radius=30, light_otherplayers=False),
    ]  # fmt: skip
    result = convert(module(graphics=torches, showlighting=True))
    assert result["scene"]["tokens"] == []
    lights = {light["id"]: light for light in result["scene"]["lights"]}
    assert lights["torch"] == {
        "id": "torch",
        "x": 140,
        "y": 210,
        "bright": 20,
        "dim": 40,
        "angle": 360,
        "rotation": 0,
        "darkness": False,
        "walls": True,
        "seen_by": "everyone",
    }
    assert (lights["gm-glow"]["dim"], lights["gm-glow"]["seen_by"]) == (30, "controllers")
    assert (
        "maps[0].graphics: 1 graphics on the token layer are not creatures (no represented "
        "character, bar value or name), skipped: torch; 1 of them emit light, kept as scene "
        "lights"
    ) in result["warnings"]
    assert (
        "maps[0].graphics[1]: light shown only to its controllers in Roll20 "
        "(light_otherplayers false): seen_by controllers, it lights nothing for any observer"
    ) in result["warnings"]


def test_private_scene_light_off_the_token_layers():
    """A walls-layer light only its controllers see is a scene light with ``seen_by``
    "controllers" (it lights for no observer), not a light everyone sees."""
    g = graphic(id="lamp", layer="walls", light_radius=50, light_otherplayers="false")
    light = convert(module(graphics=[g], showlighting=True))["scene"]["lights"][0]
    assert (light["dim"], light["seen_by"]) == (50, "controllers")


def test_udl_lights_are_public_and_night_vision_is_darkvision():
    """Updated Dynamic Lighting has no private light: emitted light is seen by everyone and
    Night Vision (what only the token's controllers see) is the token's darkvision; legacy
    ``light_otherplayers`` is ignored on a UDL page."""
    g = graphic(
        emits_bright_light=True,
        bright_light_distance=20,
        has_night_vision=True,
        night_vision_distance=60,
        light_radius=40,
        light_otherplayers=False,
    )
    tok = convert(module(graphics=[g], dynamic_lighting_enabled=True))["scene"]["tokens"][0]
    assert tok["light"] == {"bright": 20, "dim": 20, "seen_by": "everyone"}
    assert tok["senses"]["darkvision"] == 60


def test_private_light_reaches_the_loaded_scene():
    """The canonical scene built from a private light keeps ``seen_by`` through the schema."""
    g = graphic(light_radius=30, light_otherplayers=False, light_hassight=False)
    scene = SceneSchema().load(convert(module(graphics=[g], showlighting=True))["scene"])
    assert scene.tokens[0].light.seen_by == "controllers"
    assert scene.tokens[0].light.dim == 30


# --------------------------------------------------------------------------- paths under _path


def api_path(points, left, top, width, height, *, as_string=True, **kw) -> dict:
    """A walls-layer path as a Roll20 API object stores it: ``_id``, ``_path``."""
    doc = path(points, left, top, width, height, as_string=as_string, **kw)
    doc["_id"] = doc.pop("id")
    doc["_path"] = doc.pop("path")
    doc["_type"] = doc.pop("type")
    return doc


@pytest.mark.parametrize("as_string", [True, False], ids=["json-string", "array"])
def test_path_under_underscore_path_gives_the_same_walls(as_string):
    """FORMATS.md B.2: a path saved from an API object (``_path``, ``_id``) is read like a
    betteR20 ``path``: same walls, same ids, no warning; no wall is dropped."""
    points = [(0, 0), (140, 0), (140, 70)]
    plain = convert(module([path(points, 105, 35, 140, 70, id="p9")]))
    api = convert(module([api_path(points, 105, 35, 140, 70, id="p9", as_string=as_string)]))
    assert api["scene"]["walls"] == plain["scene"]["walls"]
    assert [w["id"] for w in api["scene"]["walls"]] == ["p9-0", "p9-1"]
    assert api["warnings"] == plain["warnings"] == []


def test_path_keeps_path_over_underscore_path():
    doc = path([(0, 0), (70, 0)], 35, 0, 70, 0)
    doc["_path"] = json.dumps([["M", 0, 0], ["L", 0, 70]])
    walls = convert(module([doc]))["scene"]["walls"]
    assert [w["c"] for w in walls] == [[0, 0, 70, 0]]


def test_unreadable_underscore_path_is_warned_not_dropped_silently():
    doc = api_path([(0, 0), (70, 0)], 35, 0, 70, 0)
    doc["_path"] = "not json"
    result = convert(module([doc]))
    assert result["scene"]["walls"] == []
    assert result["warnings"] == ["maps[0].paths[0]._path: not valid JSON, path skipped"]


def test_r20exporter_door_with_underscore_path_and_id():
    door = {
        "_id": "d1",
        "x": 100,
        "y": 100,
        "isOpen": False,
        "isLocked": False,
        "isSecret": False,
        "_path": {"handle0": {"x": -35, "y": 0}, "handle1": {"x": 35, "y": 0}},
    }
    walls = convert(exporter(doors=[door]))["scene"]["walls"]
    assert [(w["id"], w["c"], w["door"]) for w in walls] == [("d1", [65, 100, 135, 100], "door")]
