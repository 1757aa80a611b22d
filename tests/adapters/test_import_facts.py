"""Import facts of FORMATS.md pitfalls 13, 14 and 16, and the import's own bookkeeping.

Each table holds the instance of ``shared/cases/next/handed-3.json`` and more of its kind:
Foundry tokens whose sight gives no darkvision (pitfall 13), scenes that restrict no vision
(pitfall 14), Roll20 light props that are not creatures (pitfall 16), one summary warning
for many null entries, ``stats.read`` counting only the wall heights it read, and an empty
``?scene=`` choosing nothing.
"""

from __future__ import annotations

import pytest

from adapters import detect
from adapters.foundry import UNLIMITED_RANGE
from adapters.foundry import to_scene as foundry
from adapters.roll20 import to_scene as roll20
from adapters.uvtt import to_scene as uvtt
from service.app import create_app
from tests.conftest import load_real


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": False}).test_client()


def _foundry_doc(version: str | None, tokens: list, **kw) -> dict:
    doc = {
        "_id": "s0",
        "name": "Scene",
        "width": 1200,
        "height": 600,
        "padding": 0,
        "grid": {"type": 1, "size": 100, "distance": 5, "units": "ft"},
        "tokenVision": True,
        "darkness": 1,
        "globalLight": False,
        "walls": [],
        "lights": [],
        "tokens": tokens,
    }
    if version is not None:
        doc["_stats"] = {"coreVersion": version}
    doc.update(kw)
    return doc


def _token(**kw) -> dict:
    return {"_id": "t0", "name": "Sentry", "actorId": "a0", "x": 300, "y": 200, **kw}


# ----------------------------------------------------------------- FORMATS pitfall 13

# (core version, token fields, darkvision) -- sight.range null is 0 before v13, unlimited
# from v13; sight.enabled false (<= v9 vision false) is no vision source at all
SIGHT = [
    pytest.param(
        "11.315",
        {"width": 2, "height": 2, "sight": {"enabled": False, "range": None}},
        0,
        id="v11-large-disabled-null (handed-3)",
    ),
    pytest.param("10.312", {"sight": {"enabled": True, "range": None}}, 0, id="v10-null-range"),
    pytest.param("12.331", {"sight": {"enabled": True, "range": None}}, 0, id="v12-null-range"),
    pytest.param(
        "13.345", {"sight": {"enabled": True, "range": None}}, UNLIMITED_RANGE, id="v13-null"
    ),
    pytest.param("13.345", {"sight": {"enabled": False, "range": None}}, 0, id="v13-disabled"),
    pytest.param(
        "12.331",
        {"sight": {"enabled": False, "range": 60, "visionMode": "darkvision"}},
        0,
        id="v12-disabled-darkvision-60",
    ),
    pytest.param(None, {"vision": False, "dimSight": 30}, 0, id="v9-vision-false"),
    pytest.param(None, {"vision": True, "dimSight": 30}, 30, id="v9-vision-true"),
    pytest.param("10.312", {"sight": {"enabled": True, "range": 30}}, 30, id="v10-enabled-30"),
]


@pytest.mark.parametrize("version, fields, darkvision", SIGHT)
def test_sight_without_a_vision_source_gives_no_darkvision(version, fields, darkvision):
    """FORMATS pitfall 13: neither a disabled sight nor a null range before v13 gives
    darkvision; a token concerned is counted in one warning."""
    result = foundry(_foundry_doc(version, [_token(**fields)]))
    assert result["scene"]["tokens"][0]["senses"]["darkvision"] == darkvision
    told = [w for w in result["warnings"] if "sight" in w]
    assert len(told) == (darkvision == 0)


def test_sight_warnings_count_the_tokens_once():
    """FORMATS pitfall 13: "warn once with the count of tokens concerned"."""
    tokens = [_token(_id=f"t{k}", sight={"enabled": False, "range": None}) for k in range(5)]
    tokens += [_token(_id="n1", sight={"enabled": True, "range": None})]
    warnings = foundry(_foundry_doc("10.312", tokens))["warnings"]
    assert [w for w in warnings if "sight" in w] == [
        "tokens: 5 tokens with sight disabled (sight.enabled false, <= v9 vision false) have "
        "no vision source: their sight range gives no darkvision",
        "tokens: 1 tokens with sight.range null read as range 0 (Foundry v10: null is "
        "unlimited only from v13)",
    ]


LANCER = [
    "foundry-v10-lancer-crashed-ship-hex-heights.json",
    "foundry-v10-lancer-dingy-hostel-gridless.json",
]  # noqa: E501


@pytest.mark.parametrize("name", LANCER)
def test_real_lancer_npcs_do_not_see_in_the_dark(name):
    """FORMATS pitfall 13 on the real Lancer exports: the 17 NPCs with sight disabled and a
    null range (8 and 9) had unlimited darkvision; no token keeps a range it did not have."""
    raw = load_real("foundry", name)
    tokens = foundry(raw)["scene"]["tokens"]
    by_id = {t["id"]: t for t in tokens}
    disabled = [t for t in raw["tokens"] if (t.get("sight") or {}).get("enabled") is False]
    assert {by_id[t["_id"]]["senses"]["darkvision"] for t in disabled} == {0}
    assert max(t["senses"]["darkvision"] for t in tokens) < UNLIMITED_RANGE


# ----------------------------------------------------------------- FORMATS pitfall 14

# (scene fields, ambient light) -- tokenVision false: nothing restricts vision
TOKEN_VISION = [
    pytest.param({"tokenVision": False, "_stats": {"coreVersion": "10.291"}}, "bright",
                 id="v10-off (handed-3)"),
    pytest.param({"tokenVision": False}, "bright", id="v9-off"),
    pytest.param(
        {"tokenVision": False, "_stats": {"coreVersion": "12.331"},
         "environment": {"darknessLevel": 1, "globalLight": {"enabled": False}}},
        "bright",
        id="v12-off",
    ),
    pytest.param(
        {"tokenVision": False, "darkness": 0.2, "globalLight": True,
         "_stats": {"coreVersion": "11.315"}},
        "bright",
        id="v11-off-daylight",
    ),
    pytest.param({"tokenVision": True, "_stats": {"coreVersion": "10.291"}}, "dark", id="v10-on"),
]  # fmt: skip


@pytest.mark.parametrize("fields, light", TOKEN_VISION)
def test_token_vision_off_is_bright(fields, light):
    """FORMATS pitfall 14: a scene with ``tokenVision: false`` imports as ambient bright
    light, with a warning saying so."""
    result = foundry(_foundry_doc(None, [_token()], **fields))
    assert result["scene"]["environment"]["light"] == light
    told = [w for w in result["warnings"] if w.startswith("tokenVision")]
    assert len(told) == (fields["tokenVision"] is False)


# ----------------------------------------------------------------- FORMATS pitfall 16


def _page(graphics: list, **attrs) -> dict:
    attributes = {
        "name": "Road", "width": 10, "height": 6, "snapping_increment": 1, "scale_number": 5,
        "scale_units": "ft", "grid_type": "square", "showlighting": True,
    }  # fmt: skip
    attributes.update(attrs)
    return {"schema_version": 1, "maps": [{"attributes": attributes, "graphics": graphics}]}


def _graphic(ident: str, left: float, **kw) -> dict:
    return {"id": ident, "layer": "objects", "left": left, "top": 35, "width": 70,
            "height": 70, **kw}  # fmt: skip


_TORCH = {"light_radius": "40", "light_dimradius": "20", "light_otherplayers": True}
_UDL = {"emits_low_light": True, "low_light_distance": 20}

# (graphic fields, creature?) -- a name alone makes no creature of a graphic that emits light
PROPS = [
    pytest.param({"name": "Torch", "represents": "", **_TORCH}, False, id="torch (handed-3)"),
    pytest.param({"name": "Light Source", **_TORCH}, False, id="light-source"),
    pytest.param({"name": "Fungus Light Source", **_UDL}, False, id="fungus-udl-page"),
    pytest.param({"name": "Light Source", "layer": "gmlayer", **_TORCH}, False, id="gm-layer"),
    pytest.param({"name": "Guard", "bar1_value": "11", **_TORCH}, True, id="bar-with-torch"),
    pytest.param({"name": "Guard", "represents": "-c1", **_TORCH}, True, id="character-torch"),
    pytest.param({"name": "Guard"}, True, id="named-unlit"),
]


@pytest.mark.parametrize("fields, creature", PROPS)
def test_roll20_light_props_are_lights(fields, creature):
    """FORMATS pitfall 16: a graphic is a creature when it represents a character or has a
    bar value; a lit one with only a name is a light (the 2x2 props gave half cover)."""
    graphics = [
        _graphic("-scout", 35, name="Scout", represents="-charS"),
        _graphic("-prop", 245, **fields),
        _graphic("-wolf", 455, name="Wolf", represents="-charW"),
    ]
    result = roll20(_page(graphics, dynamic_lighting_enabled="emits_low_light" in fields))
    assert result["stats"]["tokens"] == 2 + creature
    assert result["stats"]["lights"] == (0 if creature else 1)


# ----------------------------------------------------------------- one warning, many nulls

_UVTT = {
    "format": 0.3,
    "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 4},
                   "pixels_per_grid": 70},
}  # fmt: skip

NULLS = [
    pytest.param(lambda: foundry(_foundry_doc("10.312", [], walls=[None] * 471)),
                 "walls: 471 null entries skipped "
                 "(indices 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...)",
                 id="foundry-471-walls"),
    pytest.param(lambda: foundry(_foundry_doc("10.312", [None, None, _token()])),
                 "tokens: 2 null entries skipped (indices 0, 1)", id="foundry-tokens"),
    pytest.param(lambda: roll20({"maps": [dict(_page([])["maps"][0], paths=[None, 3, None])]}),
                 "maps[0].paths: 2 null entries skipped (indices 0, 2)", id="roll20-paths"),
    pytest.param(lambda: uvtt(dict(_UVTT, line_of_sight=[None] * 3)),
                 "line_of_sight: 3 null entries skipped (indices 0, 1, 2)", id="uvtt-walls"),
]  # fmt: skip


@pytest.mark.parametrize("convert, warning", NULLS)
def test_many_null_entries_give_one_warning(convert, warning):
    """Many null entries of one collection are one summary warning with their count."""
    warnings = convert()["warnings"]
    assert warning in warnings
    assert not [w for w in warnings if "null entry skipped" in w]


# ----------------------------------------------------------------- stats.read, wall heights

_WH = "wall heights: flags.wall-height.bottom/top"
_LV = "wall heights: flags.levels.rangeBottom/rangeTop"

# (wall flags, stats.read) -- only a wall whose flag gives a range is counted
HEIGHTS = [
    pytest.param({"wall-height": {"top": None, "bottom": None}}, {}, id="wall-height-nulls"),
    pytest.param({"levels": {"rangeBottom": None, "rangeTop": None}}, {}, id="levels-nulls"),
    pytest.param({"wall-height": {"top": 10, "bottom": None}}, {_WH: 1}, id="wall-height-top"),
    pytest.param({"levels": {"rangeBottom": 0, "rangeTop": 9}}, {_LV: 1}, id="levels-range"),
    pytest.param({"wall-height": {"top": "Infinity", "bottom": "-Infinity"}}, {}, id="infinite"),
]


@pytest.mark.parametrize("flags, read", HEIGHTS)
def test_stats_read_counts_the_heights_read(flags, read):
    """``stats.read`` counts a wall height only where one was read (GEO-5)."""
    wall = {"_id": "w0", "c": [0, 0, 100, 0], "flags": flags}
    stats = foundry(_foundry_doc("10.312", [], walls=[wall]))["stats"]
    got = {k: v for k, v in stats["read"].items() if k.startswith("wall heights")}
    assert got == read
    assert stats["walls_with_height"] == sum(read.values())


# ----------------------------------------------------------------- an empty ?scene=


@pytest.mark.parametrize(
    "fmt, export",
    [
        pytest.param("foundry", _foundry_doc("10.312", [_token()]), id="foundry"),
        pytest.param("roll20", _page([]), id="roll20"),
        pytest.param("auto", _foundry_doc("10.312", [_token()]), id="auto"),
    ],
)
@pytest.mark.parametrize("query", ["?scene=", "?page=", "?scene=%20"])
def test_an_empty_scene_choice_chooses_nothing(client, fmt, export, query):
    """An empty ``?scene=`` (or ``?page=``) is no choice: the lone scene is imported."""
    resp = client.post(f"/v1/import/{fmt}{query}", json=export)
    assert resp.status_code == 200, resp.get_json()
    assert detect.to_scene(export, format=fmt, scene="")["scene"]["grid"]["size"] > 0
