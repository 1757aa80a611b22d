"""Foundry adapter: real exports (shared/scenes/real/foundry) and small hand-made documents.

References: shared/FORMATS.md (a), shared/scenes/real/SOURCES.md, shared/RULES.md GEO-3/GEO-4.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from adapters.errors import AdapterError
from adapters.foundry import UNLIMITED_RANGE, parse_nedb, to_scene
from tests.adapters.common import (
    assert_adapter_error,
    assert_json_and_input_untouched,
    assert_odd_value_gives_a_result_or_an_adapter_error,
    assert_odd_values_raise_nothing_else,
    odd_params,
)
from tests.conftest import load_real

CITIES = "foundry-v0.7-zahi-cities-street.json"
REDBRAND = "foundry-v9-fa-redbrand-hideout.json"
DELIAN = "foundry-v10-delian-tomb.json"
CULT = "foundry-v12-fa-cult-sanctuary.json"
BUTCHER = "foundry-v13-fa-butcher-shop.json"
REAL_FILES = [
    pytest.param(CITIES, id="v0.7-cities-street"),
    pytest.param(REDBRAND, id="v9-redbrand"),
    pytest.param(DELIAN, id="v10-delian-tomb"),
    pytest.param(CULT, id="v12-cult-sanctuary"),
    pytest.param(BUTCHER, id="v13-butcher-shop"),
]


def real(name: str) -> dict:
    return load_real("foundry", name)


def convert_real(name: str) -> dict:
    return to_scene(real(name))


# --------------------------------------------------------------------------- hand-made docs


def wall(c=(0, 0, 100, 0), **kw) -> dict:
    doc = {
        "_id": kw.pop("_id", "w0"),
        "c": list(c),
        "move": 20,
        "sight": 20,
        "light": 20,
        "sound": 20,
        "dir": 0,
        "door": 0,
        "ds": 0,
        "flags": {},
    }
    doc.update(kw)
    return doc


SIGHT_DISABLED_WARNING = (
    "tokens: {n} tokens with sight disabled (sight.enabled false, <= v9 vision false) have no "
    "vision source: their sight range gives no darkvision"
)


def v10_doc(**kw) -> dict:
    """Smallest v10-style scene: 10x10 squares of 100 px, 5 ft, no padding."""
    doc = {
        "_id": "scene0",
        "name": "Test",
        "_stats": {"coreVersion": "10.291"},
        "grid": {"type": 1, "size": 100, "distance": 5, "units": "ft"},
        "width": 1000,
        "height": 1000,
        "padding": 0,
        "darkness": 0,
        "globalLight": False,
        "walls": [],
        "tokens": [],
        "lights": [],
    }
    doc.update(kw)
    return doc


def v12_doc(**kw) -> dict:
    doc = v10_doc(
        _stats={"coreVersion": "12.331"},
        regions=[],
        environment={"darknessLevel": 0, "globalLight": {"enabled": False}},
    )
    del doc["darkness"], doc["globalLight"]
    doc.update(kw)
    return doc


def v07_doc(**kw) -> dict:
    doc = {
        "_id": "old",
        "name": "Old",
        "grid": 70,
        "gridType": 1,
        "gridDistance": 5,
        "gridUnits": "ft",
        "width": 700,
        "height": 700,
        "padding": 0,
        "darkness": 0,
        "globalLight": False,
        "walls": [],
        "tokens": [],
        "lights": [],
    }
    doc.update(kw)
    return doc


def token(**kw) -> dict:
    doc = {
        "_id": "t0",
        "name": "Goblin",
        "x": 100,
        "y": 200,
        "width": 1,
        "height": 1,
        "elevation": 0,
        "hidden": False,
        "sight": {"enabled": True, "range": 0, "visionMode": "basic"},
        "detectionModes": [],
        "light": {"bright": 0, "dim": 0},
    }
    doc.update(kw)
    return doc


NO_SENSES = {
    "darkvision": 0,
    "devils_sight": 0,
    "truesight": 0,
    "blindsight": 0,
    "tremorsense": 0,
    "xray": 0,
    "low_light_vision": False,
    "see_invisibility": 0,
    "hearing": None,
}
TOKEN_DEFAULTS_WARNING = (
    "tokens: conditions, abilities and swim speed live on Foundry actors, "
    "not in the scene; defaults used"
)


# --------------------------------------------------------------------------- real files

# file, walls, doors, open, secret, locked, tokens, lights, regions, version (SOURCES.md)
REAL_COUNTS = [
    pytest.param(CITIES, 120, 29, 9, 0, 0, 0, 17, 0, "0.7", id="v0.7-cities-street"),
    pytest.param(REDBRAND, 199, 16, 0, 4, 3, 0, 12, 0, "9", id="v9-redbrand"),
    pytest.param(DELIAN, 43, 1, 0, 1, 1, 14, 2, 0, "10", id="v10-delian-tomb"),
    pytest.param(CULT, 84, 2, 0, 0, 0, 0, 9, 0, "12", id="v12-cult-sanctuary"),
    pytest.param(BUTCHER, 81, 5, 0, 0, 0, 0, 2, 1, "13", id="v13-butcher-shop"),
]


@pytest.mark.parametrize(
    "name, walls, doors, open_, secret, locked, tokens, lights, regions, version", REAL_COUNTS
)
def test_real_counts_match_sources_and_raw_file(
    name, walls, doors, open_, secret, locked, tokens, lights, regions, version
):
    raw = real(name)
    result = to_scene(raw)
    scene, stats = result["scene"], result["stats"]
    got = {
        "walls": len(scene["walls"]),
        "doors": sum(w["door"] != "none" for w in scene["walls"]),
        "open": sum(w["door_state"] == "open" for w in scene["walls"]),
        "secret": sum(w["door"] == "secret" for w in scene["walls"]),
        "locked": sum(w["door_state"] == "locked" for w in scene["walls"]),
        "tokens": len(scene["tokens"]),
        "lights": len(scene["lights"]),
        "regions": len(scene["regions"]),
    }
    raw_walls = raw["walls"]
    from_raw = {
        "walls": len(raw_walls),
        "doors": sum(w.get("door", 0) != 0 for w in raw_walls),
        "open": sum(w.get("ds", 0) == 1 for w in raw_walls),
        "secret": sum(w.get("door", 0) == 2 for w in raw_walls),
        "locked": sum(w.get("ds", 0) == 2 for w in raw_walls),
        "tokens": len(raw["tokens"]),
        "lights": len(raw["lights"]),
        "regions": sum(len(r["shapes"]) for r in raw.get("regions") or []),
    }
    expected = {
        "walls": walls,
        "doors": doors,
        "open": open_,
        "secret": secret,
        "locked": locked,
        "tokens": tokens,
        "lights": lights,
        "regions": regions,
    }
    assert got == expected
    assert from_raw == expected
    assert {k: stats[k] for k in ("walls", "doors", "tokens", "lights", "regions")} == {
        "walls": walls,
        "doors": doors,
        "tokens": tokens,
        "lights": lights,
        "regions": regions,
    }
    assert stats["foundry_version"] == version


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_walls_keep_coordinates_ids_and_endpoint_order(name):
    raw = real(name)
    scene = to_scene(raw)["scene"]
    assert [w["c"] for w in scene["walls"]] == [w["c"] for w in raw["walls"]]
    assert [w["id"] for w in scene["walls"]] == [w["_id"] for w in raw["walls"]]


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_tokens_and_lights_keep_canvas_positions(name):
    raw = real(name)
    scene = to_scene(raw)["scene"]
    assert [(t["x"], t["y"]) for t in scene["tokens"]] == [(t["x"], t["y"]) for t in raw["tokens"]]
    assert [(li["x"], li["y"]) for li in scene["lights"]] == [
        (li["x"], li["y"]) for li in raw["lights"]
    ]


# file, counters of canonical wall fields
REAL_WALL_TABLES = [
    pytest.param(
        CITIES,
        {
            "move": {"normal": 120},
            "sight": {"normal": 93, "none": 27},
            "light": {"normal": 93, "none": 27},
            "sound": {"normal": 93, "none": 27},
            "direction": {"both": 120},
            "door": {"none": 91, "door": 29},
            "door_state": {"closed": 111, "open": 9},
            "threshold": {None: 120},
        },
        id="v0.7-cities-street",
    ),
    pytest.param(
        REDBRAND,
        {
            "move": {"normal": 193, "none": 6},
            "sight": {"normal": 187, "none": 12},
            "light": {"normal": 187, "none": 12},
            "sound": {"normal": 187, "none": 12},
            "direction": {"both": 199},
            "door": {"none": 183, "door": 12, "secret": 4},
            "door_state": {"closed": 196, "locked": 3},
            "threshold": {None: 199},
        },
        id="v9-redbrand",
    ),
    pytest.param(
        DELIAN,
        {
            "move": {"normal": 43},
            "sight": {"normal": 32, "limited": 11},
            "light": {"normal": 32, "limited": 11},
            "sound": {"normal": 32, "limited": 11},
            "direction": {"both": 43},
            "door": {"none": 42, "secret": 1},
            "door_state": {"closed": 42, "locked": 1},
            "threshold": {None: 43},
        },
        id="v10-delian-tomb",
    ),
    pytest.param(
        CULT,
        {
            "move": {"normal": 83, "none": 1},
            "sight": {"normal": 83, "none": 1},
            "light": {"normal": 83, "none": 1},
            "sound": {"normal": 83, "none": 1},
            "direction": {"both": 84},
            "door": {"none": 82, "door": 2},
            "door_state": {"closed": 84},
            "threshold": {None: 84},
        },
        id="v12-cult-sanctuary",
    ),
    pytest.param(
        BUTCHER,
        {
            "move": {"normal": 66, "none": 15},
            "sight": {"normal": 52, "limited": 21, "proximity": 8},
            "light": {"normal": 52, "limited": 21, "proximity": 8},
            "sound": {"normal": 45, "limited": 21, "none": 15},
            "direction": {"both": 66, "left": 8, "right": 7},
            "door": {"none": 76, "door": 5},
            "door_state": {"closed": 81},
            "threshold": {None: 73, '{"light": 10, "sight": 10, "sound": null}': 8},
        },
        id="v13-butcher-shop",
    ),
]


@pytest.mark.parametrize("name, table", REAL_WALL_TABLES)
def test_real_wall_restrictions_directions_and_doors(name, table):
    walls = convert_real(name)["scene"]["walls"]
    for key, expected in table.items():
        if key == "threshold":
            got = Counter(
                None if w[key] is None else json.dumps(w[key], sort_keys=True) for w in walls
            )
        else:
            got = Counter(w[key] for w in walls)
        assert dict(got) == expected, key
    assert {(w["cover"], w["hp"], w["ac"], w["height"]) for w in walls} == {
        ("normal", None, None, None)
    }


def test_real_v07_sense_values_follow_the_raw_file():
    raw = real(CITIES)
    walls = to_scene(raw)["scene"]["walls"]
    old = {0: "none", 1: "normal"}
    assert [w["sight"] for w in walls] == [old[w["sense"]] for w in raw["walls"]]
    assert [w["move"] for w in walls] == [old[w["move"]] for w in raw["walls"]]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(REDBRAND, id="v9-redbrand"),
        pytest.param(DELIAN, id="v10-delian-tomb"),
        pytest.param(CULT, id="v12-cult-sanctuary"),
        pytest.param(BUTCHER, id="v13-butcher-shop"),
    ],
)
def test_real_v9_plus_values_follow_the_raw_file(name):
    raw = real(name)
    walls = to_scene(raw)["scene"]["walls"]
    new = {0: "none", 10: "limited", 20: "normal", 30: "proximity", 40: "distance"}
    for key in ("move", "sight", "light", "sound"):
        assert [w[key] for w in walls] == [new[w[key]] for w in raw["walls"]], key
    assert [w["direction"] for w in walls] == [
        ["both", "left", "right"][w["dir"]] for w in raw["walls"]
    ]


def test_real_butcher_one_way_walls_keep_endpoint_order():
    walls = {w["id"]: w for w in convert_real(BUTCHER)["scene"]["walls"]}
    assert walls["tnuGnf7zao71DaGa"]["c"] == [600, 813, 700, 813]
    assert walls["tnuGnf7zao71DaGa"]["direction"] == "left"
    assert walls["qZyc9ACF5sl3Jf4G"]["c"] == [1488, 1000, 1488, 900]
    assert walls["qZyc9ACF5sl3Jf4G"]["direction"] == "right"
    assert walls["PalGsUgJGe99esrn"]["threshold"] == {"sight": 10, "light": 10, "sound": None}
    assert walls["PalGsUgJGe99esrn"]["sight"] == "proximity"


# file, grid, canvas width, height, environment light, raw darkness
REAL_GRIDS = [
    # No global illumination: unlit places are dark. v12+ global light not in bright mode: dim.
    pytest.param(CITIES, 70, 5, 1750, 1750, "dark", 0, id="v0.7-cities-street"),
    pytest.param(REDBRAND, 200, 5, 9200, 6000, "dark", 0.55, id="v9-redbrand"),
    pytest.param(DELIAN, 114, 9, 6148, 6148, "dark", 0.5, id="v10-delian-tomb"),
    pytest.param(CULT, 100, 5, 2700, 2700, "dim", 0.3, id="v12-cult-sanctuary"),
    pytest.param(BUTCHER, 100, 5, 2300, 2300, "dim", 0, id="v13-butcher-shop"),
]


@pytest.mark.parametrize("name, size, distance, width, height, light, darkness", REAL_GRIDS)
def test_real_grid_canvas_and_environment(name, size, distance, width, height, light, darkness):
    result = convert_real(name)
    scene = result["scene"]
    assert scene["grid"] == {
        "size": size,
        "distance": distance,
        "units": "ft",
        "type": "square",
        "diagonals": None,  # GEO-8: not set in the export, each ruleset's default
    }
    assert (scene["width"], scene["height"]) == (width, height)
    assert scene["environment"] == {"light": light, "gravity": 1, "underwater": False}
    assert result["stats"]["darkness"] == darkness


REAL_WARNINGS = [
    pytest.param(
        CITIES,
        [
            "lights: 17 hidden lights are switched off in Foundry, imported with on: false: "
            "vXIl52M0byvbPB80, khmk4vsTGG3i0MY5, VdiJpnz85MRwVDHT, s7JgW2hAfOYEs01k, "
            "03Y9SdmZ3Bo40Ydw, FhK4vrfvph9H3zFj, 1TIyeWXpbXEK9T0I, lgSW9lk8vN3tqK9j, "
            "WrF7Amoq1cDkeQrg, 8buqgQlMGDftEOyX, zms5nP3ulqOXyybL, g7Z7ZzysanIgSm0h, "
            "uZPcE6QNle9UW1LP, wEzZ8KSsIxQr44a0, 8etjIvb0sIX0ELc7, 9puKGhvQ6ATkUCjs, "
            "ifvxb92zXW4Zt84z",
        ],
        id="v0.7-cities-street",
    ),
    pytest.param(
        REDBRAND,
        [
            "tiles: 60 tiles not mapped",
            "sounds: 4 ambient sounds not mapped",
            "flags: module data not mapped (monks-active-tiles, tagger)",
        ],
        id="v9-redbrand",
    ),
    pytest.param(
        DELIAN,
        [
            SIGHT_DISABLED_WARNING.format(n=13),
            TOKEN_DEFAULTS_WARNING,
            "drawings: 1 drawings not mapped",
            "sounds: 4 ambient sounds not mapped",
            "notes: 5 map notes not mapped",
        ],
        id="v10-delian-tomb",
    ),
    pytest.param(
        CULT,
        [
            "lights: 8 hidden lights are switched off in Foundry, imported with on: false: "
            "T85RY7XShHoWF5ZV, 4A4O81r4J2uDPU1b, ESAlUh89ifpZSqBQ, nKjgLA0MZaTzXuLJ, "
            "W3ODiRcr2n797Sg1, aano43MuZkvU1RqE, bY3mmpqwM0ucFcWT, J3KNPVMjpkLb5O8O",
            "tiles: 19 tiles not mapped",
            "sounds: 3 ambient sounds not mapped",
            "flags: module data not mapped (monks-active-tiles, tagger)",
        ],
        id="v12-cult-sanctuary",
    ),
    pytest.param(
        BUTCHER,
        [
            "walls: threshold.attenuation ignored on 8 walls",
            "lights: 1 hidden lights are switched off in Foundry, imported with on: false: "
            "tkgtbjfpsRw2Y0kd",
            "regions[0].behaviors: suppressWeather not mapped",
            "tiles: 35 tiles not mapped",
            "sounds: 6 ambient sounds not mapped",
            "flags: module data not mapped (monks-active-tiles, tagger)",
        ],
        id="v13-butcher-shop",
    ),
]


@pytest.mark.parametrize("name, warnings", REAL_WARNINGS)
def test_real_warnings(name, warnings):
    assert convert_real(name)["warnings"] == warnings


def test_real_redbrand_lights_are_in_canvas_space():
    raw = real(REDBRAND)
    lights = to_scene(raw)["scene"]["lights"]
    # scene rectangle inside the canvas: pad = ceil(6000*0.25/200)*200 = 1600, 1000 in y
    assert all(1600 <= li["x"] <= 1600 + 6000 and 1000 <= li["y"] <= 1000 + 4000 for li in lights)
    assert lights[0] == {
        "id": "nqtbREQaoOcBHwXr",
        "x": 6391,
        "y": 4354,
        "bright": 15,
        "dim": 30,
        "angle": 360,
        "rotation": 0,
        "darkness": False,
        "walls": True,
        "elevation": 0,
        "on": True,
    }
    # the file stores angle 0 on every light: Foundry's AngleField(base=360) reads it as 360
    assert {li["config"]["angle"] for li in raw["lights"]} == {0}
    assert {li["angle"] for li in lights} == {360}


def test_real_delian_tokens():
    raw = real(DELIAN)
    tokens = to_scene(raw)["scene"]["tokens"]
    assert tokens[0] == {
        "id": "UnpIUq6r1UA6cvOm",
        "name": "Goblin",
        "x": 2905,
        "y": 4295,
        "width": 1,
        "height": 1,
        "elevation": 0,
        "vertical_extent": None,
        "size": "medium",
        "reach": 9,
        "senses": dict(NO_SENSES),
        "conditions": [],
        "swim_speed": 0,
        "abilities": {"str": 0, "dex": 0, "con": 0},
        "light": {"bright": 0, "dim": 0},
        "hidden": False,
    }
    # every token has sight.enabled false: no vision source, no darkvision (FORMATS pitfall 13)
    assert Counter(t["senses"]["darkvision"] for t in tokens) == {0: 14}
    assert Counter(t["hidden"] for t in tokens) == {True: 7, False: 7}
    assert Counter(t["name"] for t in tokens) == {
        "Skeleton": 7,
        "Goblin": 4,
        "Bugbear": 1,
        "Goblin Shaman": 1,
        "Commoner": 1,
    }


def test_real_delian_secret_door_is_locked():
    walls = convert_real(DELIAN)["scene"]["walls"]
    doors = [(w["id"], w["c"], w["door"], w["door_state"]) for w in walls if w["door"] != "none"]
    assert doors == [("uVf480tXSVggzMR1", [3462, 2565, 3819, 2565], "secret", "locked")]


def test_real_butcher_region():
    regions = convert_real(BUTCHER)["scene"]["regions"]
    assert regions == [
        {
            "id": "ECICW11xg3YTvHnv",
            "shape": {
                "type": "polygon",
                "points": [
                    [500, 800],
                    [500, 1500],
                    [1000, 1500],
                    [1000, 1600],
                    [1500, 1600],
                    [1500, 800],
                ],
            },
            "obscurement": None,
            "concealment": False,
            "magical_darkness": False,
            "water": False,
            "gravity": None,
            # GEO-9: darken 0.3 from darkness 0 gives 0.3, under the global light's
            # darkness.max 1: the (dim mode) global light still shines inside
            "light": "dim",
            "elevation": None,
        }
    ]


def test_real_cult_sanctuary_lights():
    lights = convert_real(CULT)["scene"]["lights"]
    assert lights[0] == {
        "id": "3osvmPiPApx1QVbW",
        "x": 1500,
        "y": 1400,
        "bright": 15,
        "dim": 35,
        "angle": 360,
        "rotation": 0,
        "darkness": False,
        "walls": True,
        "elevation": 0,
        "on": True,
    }
    assert {li["darkness"] for li in lights} == {False}


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_result_loads_through_scene_schema(name):
    scene_schema = pytest.importorskip("schemas.scene")
    scene = to_scene(real(name))["scene"]
    loaded = scene_schema.SceneSchema().load(scene)
    assert len(loaded.walls) == len(scene["walls"])
    assert len(loaded.tokens) == len(scene["tokens"])
    assert len(loaded.lights) == len(scene["lights"])
    assert len(loaded.regions) == len(scene["regions"])


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_result_is_json_serialisable_and_input_untouched(name):
    assert_json_and_input_untouched(to_scene, real(name))


# --------------------------------------------------------------------------- walls


V9_RESTRICTIONS = [
    pytest.param(0, "none", [], id="0-none"),
    pytest.param(10, "limited", [], id="10-limited"),
    pytest.param(20, "normal", [], id="20-normal"),
    pytest.param(
        30,
        "proximity",
        ["walls[0].threshold.sight: proximity wall without a threshold"],
        id="30-proximity",
    ),
    pytest.param(
        40,
        "distance",
        ["walls[0].threshold.sight: distance wall without a threshold"],
        id="40-distance",
    ),
    pytest.param(20.0, "normal", [], id="20.0-float"),
    pytest.param(5, "normal", ["walls[0].sight: unknown value 5, normal used"], id="unknown-5"),
    pytest.param(
        "x", "normal", ["walls[0].sight: unknown value 'x', normal used"], id="unknown-str"
    ),
    pytest.param(
        True, "normal", ["walls[0].sight: unknown value True, normal used"], id="unknown-bool"
    ),
]


@pytest.mark.parametrize("value, expected, warnings", V9_RESTRICTIONS)
def test_v9_plus_sight_restriction_values(value, expected, warnings):
    result = to_scene(v10_doc(walls=[wall(sight=value)]))
    assert result["scene"]["walls"][0]["sight"] == expected
    assert result["scene"]["walls"][0]["light"] == "normal"
    assert result["warnings"] == warnings


OLD_WALLS = [
    pytest.param({"move": 1, "sense": 0}, ("normal", "none", "none", "none"), id="sense0"),
    pytest.param({"move": 1, "sense": 1}, ("normal", "normal", "normal", "normal"), id="sense1"),
    pytest.param(
        {"move": 0, "sense": 2}, ("none", "limited", "limited", "limited"), id="sense2-limited"
    ),
    pytest.param(
        {"move": 1, "sense": 2, "sound": 0},
        ("normal", "limited", "limited", "none"),
        id="0.8-sound0",
    ),
    pytest.param(
        {"move": 1, "sense": 1, "sound": 2},
        ("normal", "normal", "normal", "limited"),
        id="0.8-sound2",
    ),
]


@pytest.mark.parametrize("fields, expected", OLD_WALLS)
def test_v07_v08_restriction_values(fields, expected):
    raw = {"_id": "w0", "c": [0, 0, 70, 0], "door": 0, "ds": 0, **fields}
    result = to_scene(v07_doc(walls=[raw]))
    w = result["scene"]["walls"][0]
    assert (w["move"], w["sight"], w["light"], w["sound"]) == expected
    assert result["stats"]["foundry_version"] == ("0.8" if "sound" in fields else "0.7")
    assert result["warnings"] == []


def test_v07_unknown_sense_value_blocks_with_warning():
    raw = {"_id": "w0", "c": [0, 0, 70, 0], "move": 1, "sense": 20}
    result = to_scene(v07_doc(walls=[raw]))
    assert result["scene"]["walls"][0]["sight"] == "normal"
    assert result["warnings"] == ["walls[0].sense: unknown value 20, normal used"]


DOORS = [
    pytest.param({"door": 1, "ds": 0}, ("door", "closed"), [], id="door-closed"),
    pytest.param({"door": 1, "ds": 1}, ("door", "open"), [], id="door-open"),
    pytest.param({"door": 2, "ds": 2}, ("secret", "locked"), [], id="secret-locked"),
    pytest.param(
        {"door": 0, "ds": 1},
        ("none", "closed"),
        ["walls[0].ds: door state open on a wall that is not a door, closed used"],
        id="open-non-door",
    ),
    pytest.param(
        {"door": 7, "ds": 0},
        ("none", "closed"),
        ["walls[0].door: unknown value 7, none used"],
        id="unknown-door",
    ),
    pytest.param(
        {"door": 1, "ds": 9},
        ("door", "closed"),
        ["walls[0].ds: unknown value 9, closed used"],
        id="unknown-state",
    ),
]


@pytest.mark.parametrize("fields, expected, warnings", DOORS)
def test_door_types_and_states(fields, expected, warnings):
    result = to_scene(v10_doc(walls=[wall(**fields)]))
    w = result["scene"]["walls"][0]
    assert (w["door"], w["door_state"]) == expected
    assert result["warnings"] == warnings


DIRECTIONS = [
    pytest.param(0, "both", [], id="both"),
    pytest.param(1, "left", [], id="left"),
    pytest.param(2, "right", [], id="right"),
    pytest.param(3, "both", ["walls[0].dir: unknown value 3, both used"], id="unknown"),
]


@pytest.mark.parametrize("value, expected, warnings", DIRECTIONS)
def test_wall_directions_keep_endpoint_order(value, expected, warnings):
    result = to_scene(v10_doc(walls=[wall(c=(400, 200, 0, 200), dir=value)]))
    w = result["scene"]["walls"][0]
    assert (w["c"], w["direction"]) == ([400, 200, 0, 200], expected)
    assert result["warnings"] == warnings


def test_full_wall_dict_for_a_v12_proximity_wall():
    raw = wall(
        _id="win",
        c=(10.5, 20, 30, 40.25),
        sight=30,
        light=30,
        sound=20,
        dir=1,
        threshold={"sight": 10, "light": 15, "sound": None, "attenuation": True},
    )
    result = to_scene(v12_doc(walls=[raw]))
    assert result["scene"]["walls"] == [
        {
            "id": "win",
            "c": [10.5, 20, 30, 40.25],
            "move": "normal",
            "sight": "proximity",
            "light": "proximity",
            "sound": "normal",
            "threshold": {"sight": 10, "light": 15, "sound": None},
            "direction": "left",
            "door": "none",
            "door_state": "closed",
            "height": None,
            "cover": "normal",
            "hp": None,
            "ac": None,
        }
    ]
    assert result["warnings"] == ["walls: threshold.attenuation ignored on 1 walls"]


THRESHOLDS = [
    pytest.param(None, None, [], id="absent"),
    pytest.param(
        {"light": None, "sight": None, "sound": None, "attenuation": False}, None, [], id="all-null"
    ),
    pytest.param({"sight": 5}, {"sight": 5, "light": None, "sound": None}, [], id="sight-only"),
    pytest.param(
        {"sight": -1, "light": "x"},
        None,
        [
            "walls[0].threshold.sight: -1 is not a distance, null used",
            "walls[0].threshold.light: 'x' is not a distance, null used",
        ],
        id="bad-values",
    ),
    pytest.param(
        [1, 2], None, ["walls[0].threshold: [1, 2] is not an object, ignored"], id="not-object"
    ),
]


@pytest.mark.parametrize("threshold, expected, warnings", THRESHOLDS)
def test_wall_thresholds(threshold, expected, warnings):
    result = to_scene(v12_doc(walls=[wall(threshold=threshold)]))
    assert result["scene"]["walls"][0]["threshold"] == expected
    assert result["warnings"] == warnings


WALL_HEIGHTS = [
    pytest.param(
        {"wall-height": {"top": 10, "bottom": 0}}, {"bottom": 0, "top": 10}, [], id="wall-height"
    ),
    pytest.param(
        {"wallHeight": {"top": 20, "bottom": 5}}, {"bottom": 5, "top": 20}, [], id="wallHeight"
    ),
    pytest.param({"wall-height": {"top": None, "bottom": None}}, None, [], id="both-null"),
    pytest.param(
        {"wall-height": {"top": math.inf, "bottom": -math.inf}}, None, [], id="both-infinite"
    ),
    pytest.param({"wall-height": {"top": 15}}, {"bottom": None, "top": 15}, [], id="top-only"),
    pytest.param(
        {"wall-height": {"top": "Infinity", "bottom": "5"}},
        {"bottom": 5.0, "top": None},
        [],
        id="strings",
    ),
    pytest.param(
        {"levels": {"rangeBottom": 0, "rangeTop": 9}}, {"bottom": 0, "top": 9}, [], id="levels"
    ),
    pytest.param(
        {"wallHeight": {"top": 8}, "levels": {"rangeBottom": 0, "rangeTop": 9}},
        {"bottom": None, "top": 8},
        [],
        id="wall-height-wins-over-levels",
    ),
    pytest.param(
        {"wall-height": {"top": 0, "bottom": 10}},
        None,
        ["walls[0].flags.wall-height: bottom 10 above top 0, range dropped"],
        id="inverted",
    ),
    pytest.param(
        {"wall-height": {"top": "high"}},
        None,
        ["walls[0].flags.wall-height.top: 'high' is not a number, null used"],
        id="garbage",
    ),
    pytest.param({}, None, [], id="no-flags"),
]


@pytest.mark.parametrize("flags, expected, warnings", WALL_HEIGHTS)
def test_wall_height_flags(flags, expected, warnings):
    result = to_scene(v10_doc(walls=[wall(flags=flags)]))
    assert result["scene"]["walls"][0]["height"] == expected
    assert result["warnings"] == warnings


def test_wall_ids_missing_and_duplicate():
    walls = [wall(_id="a"), wall(_id="a"), wall(_id=None), wall(_id="a-1"), wall(_id="")]
    result = to_scene(v10_doc(walls=walls))
    assert [w["id"] for w in result["scene"]["walls"]] == ["a", "a-1", "wall-2", "a-1-1", "wall-4"]
    assert result["warnings"] == [
        "walls[1]._id: duplicate id 'a', renamed a-1",
        "walls[2]._id: None missing, wall-2 used",
        "walls[3]._id: duplicate id 'a-1', renamed a-1-1",
        "walls[4]._id: '' missing, wall-4 used",
    ]


def test_zero_length_wall_is_kept_with_warning():
    result = to_scene(v10_doc(walls=[wall(c=(5, 5, 5, 5))]))
    assert [w["c"] for w in result["scene"]["walls"]] == [[5, 5, 5, 5]]
    assert result["warnings"] == ["walls[0].c: zero-length wall at (5, 5) kept"]


BAD_C = [
    pytest.param([0, 0, 10], id="length-3"),
    pytest.param([0, 0, 10, 10, 5], id="length-5"),
    pytest.param([0, 0, "10", 10], id="string"),
    pytest.param([0, 0, None, 10], id="null"),
    pytest.param([0, 0, math.nan, 10], id="nan"),
    pytest.param([0, 0, math.inf, 10], id="inf"),
    pytest.param([0, 0, True, 10], id="bool"),
    pytest.param("0,0,10,10", id="string-c"),
    pytest.param(None, id="missing"),
]


@pytest.mark.parametrize("c", BAD_C)
def test_wall_with_bad_c_is_skipped_with_warning(c):
    walls = [wall(_id="bad"), wall(_id="good", c=(0, 0, 50, 50))]
    walls[0]["c"] = c
    result = to_scene(v10_doc(walls=walls))
    assert [w["id"] for w in result["scene"]["walls"]] == ["good"]
    assert result["warnings"] == [f"walls[0].c: {c!r} is not 4 finite numbers, wall skipped"]


# --------------------------------------------------------------------------- null entries


def test_null_entries_are_skipped_with_warnings_and_nothing_else_lost():
    doc = v12_doc(
        walls=[None, wall(_id="w1"), None],
        tokens=[token(_id="t1"), None],
        lights=[None, {"_id": "l1", "x": 1, "y": 2, "config": {"bright": 5, "dim": 10}}],
        regions=[
            None,
            {
                "_id": "r1",
                "shapes": [{"type": "rectangle", "x": 0, "y": 0, "width": 100, "height": 50}],
            },
        ],
    )
    result = to_scene(doc)
    scene = result["scene"]
    assert [w["id"] for w in scene["walls"]] == ["w1"]
    assert [t["id"] for t in scene["tokens"]] == ["t1"]
    assert [li["id"] for li in scene["lights"]] == ["l1"]
    assert [r["id"] for r in scene["regions"]] == ["r1"]
    assert result["warnings"] == [
        "walls: 2 null entries skipped (indices 0, 2)",
        "tokens[1]: null entry skipped",
        TOKEN_DEFAULTS_WARNING,
        "lights[0]: null entry skipped",
        "regions[0]: null entry skipped",
    ]
    stats = dict(result["stats"])
    assert stats.pop("read")["grid.type"] == "grid.type SQUARE (1): square"
    assert stats == {
        "walls": 1,
        "doors": 0,
        "tokens": 1,
        "lights": 1,
        "token_lights": 0,
        "regions": 1,
        "lights_off": 0,
        "walls_with_height": 0,
        "tokens_with_height": 0,
        "regions_with_light": 0,
        "foundry_version": "12",
        "darkness": 0,
    }


def test_all_null_walls_like_sundered_waves():
    result = to_scene(v10_doc(walls=[None, None, None]))
    assert result["scene"]["walls"] == []
    # one summary warning, not one per wall (471 null walls gave 471 warnings)
    assert result["warnings"] == ["walls: 3 null entries skipped (indices 0, 1, 2)"]


# --------------------------------------------------------------------------- grid and canvas


GRID_TYPES = [
    # Foundry CONST.GRID_TYPES; R = rows shifted (pointy-topped), Q = columns (flat-topped).
    # Hex grids are exact (hgrid): no "approximated" warning any more.
    pytest.param(0, "gridless", "grid.type GRIDLESS (0): gridless", [], id="gridless"),
    pytest.param(1, "square", "grid.type SQUARE (1): square", [], id="square"),
    pytest.param(
        2, "hex-row", "grid.type HEXODDR (2): hex-row, odd rows shifted", [], id="hexoddr"
    ),
    pytest.param(
        3, "hex-row", "grid.type HEXEVENR (3): hex-row, even rows shifted", [], id="hexevenr"
    ),
    pytest.param(
        4, "hex-col", "grid.type HEXODDQ (4): hex-col, odd columns shifted", [], id="hexoddq"
    ),
    pytest.param(
        5, "hex-col", "grid.type HEXEVENQ (5): hex-col, even columns shifted", [], id="hexevenq"
    ),
    pytest.param(
        9,
        "square",
        "grid.type 9 unknown: square",
        ["grid.type: unknown grid type 9, square used"],
        id="unknown",
    ),
]


@pytest.mark.parametrize("value, expected, read, warnings", GRID_TYPES)
def test_grid_types(value, expected, read, warnings):
    """FORMATS.md A.2: every Foundry grid type, and where it was read (stats)."""
    result = to_scene(v10_doc(grid={"type": value, "size": 100, "distance": 5, "units": "ft"}))
    assert result["scene"]["grid"]["type"] == expected
    assert result["stats"]["read"]["grid.type"] == read
    assert result["warnings"] == warnings


@pytest.mark.parametrize(
    "value, offset", [(2, "odd"), (3, "even"), (4, "odd"), (5, "even"), (0, None), (1, None)]
)
def test_hex_offsets_table(value, offset):
    """HEXODD* shift the odd rows/columns, HEXEVEN* the even ones (FORMATS.md A.2).

    The imported grid carries it as ``hex_offset`` (hex grids only), which places the hexes.
    """
    from adapters.foundry.grid import HEX_OFFSETS

    assert HEX_OFFSETS.get(value) == offset
    grid = to_scene(v10_doc(grid={"type": value, "size": 100, "distance": 5, "units": "ft"}))
    assert grid["scene"]["grid"].get("hex_offset") == offset


DIAGONALS = [
    # Foundry v12+ CONST.GRID_DIAGONALS (GEO-8)
    pytest.param(0, "equidistant", [], id="equidistant"),
    pytest.param(1, "euclidean", [], id="exact"),
    pytest.param(
        2,
        "euclidean",
        ["grid.diagonals: APPROXIMATE (2, 1.5 per diagonal) read as euclidean (about 1.41)"],
        id="approximate",
    ),
    pytest.param(
        3,
        "alternating",
        ["grid.diagonals: RECTILINEAR (3, 2 per diagonal) has no canonical rule, alternating used"],
        id="rectilinear",
    ),
    pytest.param(4, "alternating", [], id="alternating-1"),
    pytest.param(
        5,
        "alternating",
        ["grid.diagonals: ALTERNATING_2 (5, 2-1-2) read as alternating 1-2-1"],
        id="alternating-2",
    ),
    pytest.param(
        6,
        "alternating",
        ["grid.diagonals: ILLEGAL (6, no diagonal moves) has no canonical rule, alternating used"],
        id="illegal",
    ),
    pytest.param(
        42,
        None,
        ["grid.diagonals: unknown diagonal rule 42, left unset (each ruleset's default)"],
        id="unknown",
    ),
]


@pytest.mark.parametrize("value, expected, warnings", DIAGONALS)
def test_grid_diagonals(value, expected, warnings):
    """GEO-8: the scene's own rule when it carries one."""
    grid = {"type": 1, "size": 100, "distance": 5, "units": "ft", "diagonals": value}
    result = to_scene(v12_doc(grid=grid))
    assert result["scene"]["grid"]["diagonals"] == expected
    assert result["warnings"] == warnings


def test_grid_diagonals_unset_when_the_export_sets_none():
    """GEO-8: no rule in the export leaves grid.diagonals unset (null), not equidistant."""
    result = to_scene(v12_doc())
    assert result["scene"]["grid"]["diagonals"] is None
    assert "not set" in result["stats"]["read"]["grid.diagonals"]
    assert result["warnings"] == []


WORLD_DIAGONALS = [
    pytest.param("core.gridDiagonals", "4", "alternating", id="v12-core-alternating"),
    pytest.param("core.gridDiagonals", 1, "euclidean", id="v12-core-exact-number"),
    pytest.param("dnd5e.diagonalMovement", '"5105"', "alternating", id="dnd5e-5105"),
    pytest.param("dnd5e.diagonalMovement", '"555"', "equidistant", id="dnd5e-555"),
    pytest.param("dnd5e.diagonalMovement", '"EUCL"', "euclidean", id="dnd5e-eucl"),
]


@pytest.mark.parametrize("key, value, expected", WORLD_DIAGONALS)
def test_world_export_diagonal_setting(key, value, expected):
    """GEO-8: a world export's diagonal setting (v12+ core, older dnd5e) sets the rule."""
    world = {
        "scenes": [v12_doc()],
        "settings": [{"key": "core.other"}, {"key": key, "value": value}],
    }
    result = to_scene(world)
    assert result["scene"]["grid"]["diagonals"] == expected
    assert result["stats"]["read"]["grid.diagonals"].startswith(f"settings[1] {key}")


def test_scene_diagonal_rule_field():
    """An older ``diagonalRule`` field on the scene is read with the dnd5e values."""
    result = to_scene(v07_doc(diagonalRule="5105"))
    assert result["scene"]["grid"]["diagonals"] == "alternating"


UNITS = [
    pytest.param("ft", "ft", [], id="ft"),
    pytest.param("ft.", "ft", [], id="ft-dot"),
    pytest.param("Feet", "ft", [], id="feet"),
    pytest.param("m", "m", [], id="m"),
    pytest.param(" meters ", "m", [], id="meters"),
    pytest.param("metres", "m", [], id="metres"),
    pytest.param(
        "Schritt",
        "m",
        ["grid.units: 'Schritt' read as 'm' (Schritt (The Dark Eye's pace) is one metre)"],
        id="schritt",
    ),
    pytest.param(
        "",
        "squares",
        ["grid.units: '': the scene counts in spaces, 1 space = 5 ft (GEO-8)"],
        id="blank",
    ),  # GEO-8, FORMATS pitfall 17
    pytest.param(
        "squares",
        "squares",
        ["grid.units: 'squares': the scene counts in spaces, 1 space = 5 ft (GEO-8)"],
        id="squares",
    ),
    pytest.param(
        "parsecs",
        "squares",
        [
            "grid.units: 'parsecs' is not feet or metres: the scene counts in spaces, "
            "1 space = 5 ft (GEO-8)"
        ],
        id="other",
    ),
    pytest.param(
        None,
        "ft",
        ["grid.units: no unit given, 'ft' assumed (distances stay in grid units)"],
        id="missing",
    ),
]


@pytest.mark.parametrize("units, expected, warnings", UNITS)
def test_grid_units(units, expected, warnings):
    result = to_scene(v10_doc(grid={"type": 1, "size": 100, "distance": 1.5, "units": units}))
    assert result["scene"]["grid"] == {
        "size": 100,
        "distance": 1.5,
        "units": expected,
        "type": "square",
        "diagonals": None,
    }
    assert result["warnings"] == warnings


def test_flat_v9_grid_fields():
    doc = v07_doc(grid=140, gridType=0, gridDistance=10, gridUnits="m")
    assert to_scene(doc)["scene"]["grid"] == {
        "size": 140,
        "distance": 10,
        "units": "m",
        "type": "gridless",
        "diagonals": None,
    }


def test_bad_grid_distance_defaults_to_5():
    result = to_scene(v07_doc(gridDistance=0))
    assert result["scene"]["grid"]["distance"] == 5
    assert result["warnings"] == ["gridDistance: 0 is not a usable distance, 5 used"]


BAD_GRID_SIZES = [
    pytest.param({"grid": {"type": 1, "size": 0}}, ("grid", "size"), id="v10-zero"),
    pytest.param({"grid": {"type": 1, "size": -50}}, ("grid", "size"), id="v10-negative"),
    pytest.param({"grid": {"type": 1, "size": "100"}}, ("grid", "size"), id="v10-string"),
    pytest.param({"grid": {"type": 1}}, ("grid", "size"), id="v10-missing"),
    pytest.param({"grid": 0}, ("grid",), id="v9-zero"),
    pytest.param({"grid": None}, ("grid",), id="v9-null"),
    pytest.param({"grid": True}, ("grid",), id="v9-bool"),
]


@pytest.mark.parametrize("fields, path", BAD_GRID_SIZES)
def test_bad_grid_size_is_an_adapter_error_with_path(fields, path):
    with pytest.raises(AdapterError) as info:
        to_scene(v10_doc(**fields))
    assert info.value.path == path
    assert info.value.message.startswith("grid size must be a positive number of pixels, got ")


def test_grid_error_path_inside_a_world_export():
    world = {"scenes": [v10_doc(_id="a", name="A"), v10_doc(_id="b", name="B", grid={"size": 0})]}
    with pytest.raises(AdapterError) as info:
        to_scene(world, scene="B")
    assert info.value.path == ("scenes", 1, "grid", "size")


CANVAS = [
    pytest.param(6000, 4000, 0.25, 200, (9200, 6000), id="redbrand-6000x4000"),
    pytest.param(4096, 4096, 0.25, 114, (6148, 6148), id="delian-rounds-up"),
    pytest.param(1700, 1700, 0.25, 100, (2700, 2700), id="cult-4.25-cells"),
    pytest.param(1000, 500, 0, 100, (1000, 500), id="no-padding"),
    pytest.param(1000, 500, None, 100, (1000, 500), id="null-padding"),
]


@pytest.mark.parametrize("width, height, padding, size, expected", CANVAS)
def test_canvas_size_includes_padding(width, height, padding, size, expected):
    doc = v10_doc(
        width=width,
        height=height,
        padding=padding,
        grid={"type": 1, "size": size, "distance": 5, "units": "ft"},
    )
    scene = to_scene(doc)["scene"]
    assert (scene["width"], scene["height"]) == expected


def test_missing_canvas_size_is_null_with_warning():
    doc = v10_doc()
    del doc["width"]
    result = to_scene(doc)
    assert (result["scene"]["width"], result["scene"]["height"]) == (None, None)
    assert result["warnings"] == [
        "width/height: None x 1000 is not a picture size in px, canvas size unknown (null)"
    ]


def test_bad_padding_is_zero_with_warning():
    result = to_scene(v10_doc(padding=2))
    assert (result["scene"]["width"], result["scene"]["height"]) == (1000, 1000)
    assert result["warnings"] == ["padding: 2 is not a fraction between 0 and 0.5, 0 used"]


# --------------------------------------------------------------------------- environment


ENVIRONMENTS = [
    pytest.param({"darkness": 0.2, "globalLight": False}, "dark", 0.2, id="v10-day-no-global"),
    pytest.param({"darkness": 0.5, "globalLight": False}, "dark", 0.5, id="v10-dusk"),
    pytest.param({"darkness": 0.9, "globalLight": False}, "dark", 0.9, id="v10-night"),
    pytest.param({"darkness": 0.75, "globalLight": False}, "dark", 0.75, id="v10-0.75"),
    pytest.param(
        {"darkness": 0.9, "globalLight": True, "globalLightThreshold": None},
        "bright",
        0.9,
        id="v10-global-no-threshold",
    ),
    pytest.param(
        {"darkness": 0.9, "globalLight": True, "globalLightThreshold": 0.5},
        "dark",
        0.9,
        id="v10-global-above-threshold",
    ),
    pytest.param(
        {"darkness": 0.4, "globalLight": True, "globalLightThreshold": 0.5},
        "bright",
        0.4,
        id="v10-global-below-threshold",
    ),
    pytest.param(
        {
            "environment": {
                "darknessLevel": 0.3,
                "globalLight": {"enabled": True, "darkness": {"min": 0, "max": 1}},
            }
        },
        "dim",  # no ``bright``: v12's field starts false, the global light is dim
        0.3,
        id="v12-cult",
    ),
    pytest.param(
        {
            "environment": {
                "darknessLevel": 0.8,
                "globalLight": {"enabled": True, "darkness": {"min": 0, "max": 0.5}},
            }
        },
        "dark",
        0.8,
        id="v12-global-above-max",
    ),
    pytest.param({"environment": {"darknessLevel": 0.6}}, "dark", 0.6, id="v12-no-global"),
    pytest.param({"environment": {}}, "dark", None, id="v12-empty"),
    pytest.param(
        {"environment": {"darknessLevel": 0.1, "globalLight": {"enabled": True, "bright": False}}},
        "dim",
        0.1,
        id="v12-global-light-not-bright",
    ),
]


@pytest.mark.parametrize("fields, light, darkness", ENVIRONMENTS)
def test_environment_light(fields, light, darkness):
    doc = v10_doc()
    del doc["darkness"], doc["globalLight"]
    doc.update(fields)
    result = to_scene(doc)
    assert result["scene"]["environment"] == {"light": light, "gravity": 1, "underwater": False}
    assert result["stats"]["darkness"] == darkness
    assert result["warnings"] == []


def test_non_numeric_darkness_warns():
    result = to_scene(v10_doc(darkness="night", globalLight=True))
    assert result["scene"]["environment"]["light"] == "bright"
    assert result["stats"]["darkness"] is None
    assert result["warnings"] == ["darkness: 'night' is not a number, 0 used"]


# --------------------------------------------------------------------------- version detection


VERSIONS = [
    pytest.param({"_stats": {"coreVersion": "11.315"}}, "11", id="stats-11"),
    pytest.param({"_stats": {"coreVersion": "13.350"}}, "13", id="stats-13"),
    pytest.param({"_stats": {"coreVersion": None}}, "10", id="stats-null-grid-object"),
    pytest.param(
        {"_stats": None, "walls": [wall(threshold={"sight": None})]}, "11", id="threshold-means-11"
    ),
    pytest.param({"_stats": None, "tokens": [token(delta={})]}, "11", id="delta-means-11"),
    pytest.param({"_stats": None, "environment": {}}, "12", id="environment-means-12"),
    pytest.param({"_stats": None, "grid": 100, "gridType": 1}, "9", id="flat-grid-9"),
]


@pytest.mark.parametrize("fields, version", VERSIONS)
def test_version_detection(fields, version):
    assert to_scene(v10_doc(**fields))["stats"]["foundry_version"] == version


# --------------------------------------------------------------------------- tokens


SIZES = [
    pytest.param(0.5, "tiny", id="0.5-tiny"),
    pytest.param(0.75, "small", id="0.75-small"),
    pytest.param(1, "medium", id="1-medium"),
    pytest.param(2, "large", id="2-large"),
    pytest.param(3, "huge", id="3-huge"),
    pytest.param(4, "gargantuan", id="4-gargantuan"),
    pytest.param(6, "gargantuan", id="6-gargantuan"),
]


@pytest.mark.parametrize("width, size", SIZES)
def test_token_size_from_width(width, size):
    scene = to_scene(v10_doc(tokens=[token(width=width, height=width)]))["scene"]
    assert (scene["tokens"][0]["size"], scene["tokens"][0]["width"]) == (size, width)


def test_token_full_dict_v10():
    raw = token(
        _id="t9",
        name="Drow",
        x=350,
        y=450,
        width=2,
        height=3,
        elevation=10,
        hidden=True,
        sight={"enabled": False, "range": 120, "visionMode": "darkvision"},
        light={"bright": 20, "dim": 40, "angle": 360},
    )
    result = to_scene(
        v10_doc(grid={"type": 1, "size": 100, "distance": 1.5, "units": "m"}, tokens=[raw])
    )
    assert result["scene"]["tokens"] == [
        {
            "id": "t9",
            "name": "Drow",
            "x": 350,
            "y": 450,
            "width": 2,
            "height": 3,
            "elevation": 10,
            "vertical_extent": None,
            "size": "large",
            "reach": 1.5,
            "senses": dict(NO_SENSES),  # sight disabled: no vision source (FORMATS pitfall 13)
            "conditions": [],
            "swim_speed": 0,
            "abilities": {"str": 0, "dex": 0, "con": 0},
            "light": {"bright": 20, "dim": 40},
            "hidden": True,
        }
    ]
    assert result["warnings"] == [SIGHT_DISABLED_WARNING.format(n=1), TOKEN_DEFAULTS_WARNING]


VISION_MODES = [
    pytest.param("basic", 60, {"darkvision": 60}, [], id="basic"),
    pytest.param("darkvision", 60, {"darkvision": 60}, [], id="darkvision"),
    pytest.param("monochromatic", 30, {"darkvision": 30}, [], id="monochromatic"),
    pytest.param("devilsSight", 120, {"devils_sight": 120}, [], id="devils-sight"),
    pytest.param("tremorsense", 30, {"tremorsense": 30}, [], id="tremorsense"),
    pytest.param("blindsight", 10, {"blindsight": 10}, [], id="blindsight"),
    pytest.param("truesight", 120, {"truesight": 120}, [], id="truesight"),
    pytest.param("basic", 0, {}, [], id="basic-zero"),
    pytest.param(
        "basic",
        None,
        {},
        [
            "tokens: 1 tokens with sight.range null read as range 0 (Foundry v10: null is "
            "unlimited only from v13)"
        ],
        id="basic-null-before-v13",
    ),  # fmt: skip
    pytest.param(
        "lightAmplification", 60, {"low_light_vision": True}, [], id="light-amplification"
    ),
    pytest.param(
        "blindness", 60, {}, ["tokens[0].sight.visionMode: 'blindness' not mapped"], id="blindness"
    ),
    pytest.param(
        "basic",
        "far",
        {},
        ["tokens[0].sight.range: 'far' is not a distance, ignored"],
        id="bad-range",
    ),
]


@pytest.mark.parametrize("mode, rng, senses, warnings", VISION_MODES)
def test_token_vision_modes(mode, rng, senses, warnings):
    raw = token(sight={"enabled": True, "range": rng, "visionMode": mode})
    result = to_scene(v10_doc(tokens=[raw]))
    assert result["scene"]["tokens"][0]["senses"] == dict(NO_SENSES, **senses)
    assert result["warnings"] == [*warnings, TOKEN_DEFAULTS_WARNING]


DETECTION_LIST = [
    {"id": "basicSight", "enabled": True, "range": 30},
    {"id": "seeInvisibility", "enabled": True, "range": 60},
    {"id": "feelTremor", "enabled": True, "range": 15},
    {"id": "seeAll", "enabled": False, "range": 120},
    {"id": "senseAll", "enabled": True, "range": None},
    {"id": "lightPerception", "enabled": True, "range": None},
    {"id": "hearing", "enabled": True, "range": 40},
    {"id": "detectEvil", "enabled": True, "range": 30},
]
DETECTION_OBJECT = {
    mode["id"]: {k: v for k, v in mode.items() if k != "id"} for mode in DETECTION_LIST
}
DETECTION_SENSES = dict(
    NO_SENSES, see_invisibility=60, tremorsense=15, blindsight=UNLIMITED_RANGE, hearing=40
)


@pytest.mark.parametrize(
    "modes, warning",
    [
        pytest.param(
            DETECTION_LIST,
            "tokens[0].detectionModes[7]: detection mode 'detectEvil' not mapped",
            id="list",
        ),
        pytest.param(
            DETECTION_OBJECT,
            "tokens[0].detectionModes.detectEvil: detection mode 'detectEvil' not mapped",
            id="object",
        ),
    ],
)
def test_token_detection_modes_as_list_and_object(modes, warning):
    result = to_scene(v10_doc(tokens=[token(detectionModes=modes)]))
    assert result["scene"]["tokens"][0]["senses"] == DETECTION_SENSES
    assert result["warnings"] == [warning, TOKEN_DEFAULTS_WARNING]


def test_detection_mode_keeps_the_larger_range_of_sight_and_detection():
    raw = token(
        sight={"range": 60, "visionMode": "truesight"},
        detectionModes=[
            {"id": "seeAll", "enabled": True, "range": 30},
            {"id": "feelTremor", "range": 10},
            "junk",
        ],
    )
    result = to_scene(v10_doc(tokens=[raw]))
    assert result["scene"]["tokens"][0]["senses"] == dict(NO_SENSES, truesight=60, tremorsense=10)
    assert result["warnings"] == [
        "tokens[0].detectionModes[2]: 'junk' is not a detection mode, ignored",
        TOKEN_DEFAULTS_WARNING,
    ]


def test_legacy_token_vision_and_light():
    raw = {
        "_id": "t0",
        "name": "Old",
        "x": 70,
        "y": 140,
        "width": 1,
        "height": 1,
        "dimSight": 60,
        "brightSight": 30,
        "dimLight": 40,
        "brightLight": 20,
    }
    result = to_scene(v07_doc(tokens=[raw]))
    tok = result["scene"]["tokens"][0]
    assert (tok["senses"], tok["light"], tok["elevation"], tok["hidden"], tok["reach"]) == (
        dict(NO_SENSES, darkvision=60),
        {"bright": 20, "dim": 40},
        0,
        False,
        5,
    )
    assert result["stats"]["foundry_version"] == "0.8"


def test_token_bad_fields_warn_and_default():
    raw = token(x="left", y=0)
    raw2 = token(
        _id="t1", width=-1, height="big", elevation="up", name=7, light={"bright": -5, "dim": None}
    )
    result = to_scene(v10_doc(tokens=[raw, raw2]))
    tokens = result["scene"]["tokens"]
    assert [
        (t["id"], t["width"], t["height"], t["elevation"], t["name"], t["light"]) for t in tokens
    ] == [("t1", 1, 1, 0, "7", {"bright": 0, "dim": 0})]
    assert result["warnings"] == [
        "tokens[0].x/y: ('left', 0) is not a position, token skipped",
        "tokens[1].width: -1 is not a positive number, 1 used",
        "tokens[1].height: 'big' is not a positive number, 1 used",
        "tokens[1].elevation: 'up' is not a number, 0 used",
        "tokens[1].light.bright: -5 is not a radius, 0 used",
        TOKEN_DEFAULTS_WARNING,
    ]


# --------------------------------------------------------------------------- lights


def test_v07_flat_light_and_global_flag():
    lights = [
        {
            "_id": "l0",
            "t": "l",
            "x": 70,
            "y": 140,
            "dim": 20,
            "bright": 10,
            "angle": 90,
            "rotation": 45,
        },
        {"_id": "l1", "t": "g", "x": 0, "y": 0, "dim": 5, "bright": 0, "angle": 360},
        {"_id": "l2", "t": "l", "x": 10, "y": 10, "dim": -30, "bright": -15},
    ]
    result = to_scene(v07_doc(lights=lights))
    assert result["scene"]["lights"] == [
        {
            "id": "l0",
            "x": 70,
            "y": 140,
            "bright": 10,
            "dim": 20,
            "angle": 90,
            "rotation": 45,
            "darkness": False,
            "walls": True,
            "elevation": 0,
            "on": True,
        },
        {
            "id": "l1",
            "x": 0,
            "y": 0,
            "bright": 0,
            "dim": 5,
            "angle": 360,
            "rotation": 0,
            "darkness": False,
            "walls": True,
            "elevation": 0,
            "on": True,
        },
        {
            "id": "l2",
            "x": 10,
            "y": 10,
            "bright": 15,
            "dim": 30,
            "angle": 360,
            "rotation": 0,
            "darkness": True,
            "walls": True,
            "elevation": 0,
            "on": True,
        },
    ]
    assert result["stats"]["foundry_version"] == "0.7"
    assert result["warnings"] == [
        "lights[1].t: 'g' (global: seen without a line of sight) flag ignored, "
        "mapped as a local light",
        "lights[2]: negative radius read as a darkness source",
    ]


LIGHT_CONFIGS = [
    pytest.param("12.331", {"negative": True}, True, id="v12-negative"),
    pytest.param(
        "12.331",
        {"negative": False, "luminosity": -0.5},
        False,
        id="v12-negative-luminosity-ignored",
    ),
    pytest.param("10.291", {"luminosity": -0.5}, True, id="v10-negative-luminosity"),
    pytest.param("11.315", {"luminosity": 0.5}, False, id="v11-positive-luminosity"),
]


@pytest.mark.parametrize("core, config, darkness", LIGHT_CONFIGS)
def test_darkness_lights(core, config, darkness):
    light = {"_id": "l0", "x": 5, "y": 6, "config": {"bright": 10, "dim": 20, **config}}
    result = to_scene(v10_doc(_stats={"coreVersion": core}, lights=[light]))
    assert result["scene"]["lights"][0]["darkness"] is darkness
    assert result["warnings"] == []


ANGLES = [
    pytest.param(0, 360, id="0-is-omni"),
    pytest.param(360, 360, id="360"),
    pytest.param(90, 90, id="90"),
    pytest.param(450, 90, id="450"),
    pytest.param(-90, 270, id="minus-90"),
    pytest.param(None, 360, id="null"),
]


@pytest.mark.parametrize("angle, expected", ANGLES)
def test_light_angle_normalised_like_foundry(angle, expected):
    light = {"_id": "l0", "x": 5, "y": 6, "config": {"bright": 10, "dim": 20, "angle": angle}}
    assert to_scene(v10_doc(lights=[light]))["scene"]["lights"][0]["angle"] == expected


def test_light_odd_fields_warn():
    lights = [
        {"_id": "l0", "x": None, "y": 6, "config": {}},
        {
            "_id": "l1",
            "x": 5,
            "y": 6,
            "walls": "yes",
            "rotation": "north",
            "hidden": True,
            "config": {
                "bright": "lots",
                "dim": -4,
                "angle": "wide",
                "darkness": {"min": 0.5, "max": 1},
            },
        },
    ]
    result = to_scene(v10_doc(lights=lights))
    assert result["scene"]["lights"] == [
        {
            "id": "l1",
            "x": 5,
            "y": 6,
            "bright": 0,
            "dim": 0,
            "angle": 360,
            "rotation": 0,
            "darkness": False,
            "walls": True,
            "elevation": 0,
            "on": False,
        }
    ]
    assert result["warnings"] == [
        "lights[0].x/y: (None, 6) is not a position, light skipped",
        "lights[1].config.bright: 'lots' is not a radius, 0 used",
        "lights[1].config: negative radius (0, -4), 0 used",
        "lights[1].walls: 'yes' is not true/false, true used",
        "lights[1].rotation: 'north' is not a number, 0 used",
        "lights[1].config.angle: 'wide' is not an angle, 360 used",
        "lights: scene-darkness activation range ignored on 1 lights",
        "lights: 1 hidden lights are switched off in Foundry, imported with on: false: l1",
    ]


# --------------------------------------------------------------------------- regions


def region(*shapes, **kw) -> dict:
    doc = {
        "_id": "r0",
        "name": "R",
        "shapes": list(shapes),
        "elevation": {"bottom": None, "top": None},
        "behaviors": [],
    }
    doc.update(kw)
    return doc


REGION_SHAPES = [
    pytest.param(
        {"type": "polygon", "points": [0, 0, 100, 0, 100, 100]},
        {"type": "polygon", "points": [[0, 0], [100, 0], [100, 100]]},
        [],
        id="polygon",
    ),
    pytest.param(
        {"type": "rectangle", "x": 10, "y": 20, "width": 100, "height": 50, "rotation": 0},
        {"type": "rect", "x": 10, "y": 20, "width": 100, "height": 50},
        [],
        id="rectangle",
    ),
    pytest.param(
        {"type": "rectangle", "x": 0, "y": 0, "width": 100, "height": 50, "rotation": 90},
        {"type": "polygon", "points": [[75.0, -25.0], [75.0, 75.0], [25.0, 75.0], [25.0, -25.0]]},
        [],
        id="rectangle-rotated-90",
    ),
    pytest.param(
        {"type": "circle", "x": 50, "y": 60, "radius": 30},
        {"type": "circle", "x": 50, "y": 60, "radius": 30},
        [],
        id="circle",
    ),
    pytest.param(
        {"type": "ellipse", "x": 50, "y": 60, "radiusX": 30, "radiusY": 30, "rotation": 45},
        {"type": "circle", "x": 50, "y": 60, "radius": 30},
        [],
        id="ellipse-round",
    ),
]


@pytest.mark.parametrize("shape, expected, warnings", REGION_SHAPES)
def test_region_shapes(shape, expected, warnings):
    result = to_scene(v12_doc(regions=[region(shape)]))
    assert [r["shape"] for r in result["scene"]["regions"]] == [expected]
    assert result["warnings"] == warnings


def test_region_ellipse_becomes_32_vertex_polygon():
    shape = {"type": "ellipse", "x": 100, "y": 200, "radiusX": 40, "radiusY": 20, "rotation": 0}
    result = to_scene(v12_doc(regions=[region(shape)]))
    points = result["scene"]["regions"][0]["shape"]["points"]
    assert len(points) == 32
    assert points[0] == [140.0, 200.0]
    assert points[8] == [100.0, 220.0]
    assert points[16] == [60.0, 200.0]
    assert result["warnings"] == [
        "regions[0].shapes[0]: ellipse approximated by a 32-vertex polygon"
    ]


def test_region_several_shapes_holes_elevation_and_behaviors():
    shapes = [
        {"type": "rectangle", "x": 0, "y": 0, "width": 100, "height": 100},
        {"type": "rectangle", "x": 25, "y": 25, "width": 10, "height": 10, "hole": True},
        {"type": "circle", "x": 300, "y": 300, "radius": 50},
        {"type": "polygon", "points": [0, 0, 10]},
        {"type": "star"},
    ]
    behaviors = [
        {"type": "adjustDarknessLevel"},
        {"type": "teleportToken"},
        {"type": "adjustDarknessLevel"},
    ]
    raw = region(*shapes, elevation={"bottom": 0, "top": math.inf}, behaviors=behaviors)
    result = to_scene(v12_doc(regions=[raw]))
    assert [(r["id"], r["shape"]["type"], r["elevation"]) for r in result["scene"]["regions"]] == [
        ("r0", "rect", {"bottom": 0, "top": None}),
        ("r0-1", "circle", {"bottom": 0, "top": None}),
    ]
    assert result["stats"]["regions"] == 2
    assert result["warnings"] == [
        "regions[0].shapes[1]: hole dropped (holes are not supported)",
        "regions[0].shapes[3].points: not a flat list of at least 3 x,y pairs, shape skipped",
        "regions[0].shapes[4].type: shape type 'star' not mapped, shape skipped",
        "regions[0].behaviors[0].system: adjustDarknessLevel with mode 0 and modifier None "
        "not understood, behaviour ignored",
        "regions[0].behaviors: teleportToken not mapped",
        "regions[0].behaviors[2].system: adjustDarknessLevel with mode 0 and modifier None "
        "not understood, behaviour ignored",
        # stats.regions counts canonical regions: the split is said, not left to be guessed
        "regions: 1 region of several shapes became 2 canonical regions, one per shape: "
        "r0 (2: r0, r0-1 ...)",
    ]


def test_region_without_usable_shape_and_missing_id():
    raw = region(_id=None, shapes=[])
    result = to_scene(v12_doc(regions=[raw]))
    assert result["scene"]["regions"] == []
    assert result["warnings"] == [
        "regions[0]._id: None missing, region-0 used",
        "regions[0].shapes: no usable shape, region skipped",
    ]


# --------------------------------------------------------------------------- unmapped


def test_unmapped_collections_are_counted_in_warnings():
    doc = v12_doc(
        drawings=[{}],
        tiles=[{}, {}],
        sounds=[{}] * 6,
        templates=[{}],
        notes=[{}],
        walls=[wall(flags={"tagger": {"tags": ["x"]}, "wall-height": {"top": 5}, "core": {}})],
    )
    assert to_scene(doc)["warnings"] == [
        "drawings: 1 drawings not mapped",
        "tiles: 2 tiles not mapped",
        "sounds: 6 ambient sounds not mapped",
        "templates: 1 measured templates not mapped",
        "notes: 1 map notes not mapped",
        "flags: module data not mapped (tagger)",
    ]


# --------------------------------------------------------------------------- scene selection


def world() -> list[dict]:
    return [
        v10_doc(_id="id-a", name="Alpha", walls=[wall(_id="a")]),
        None,
        v10_doc(_id="id-b", name="Beta", walls=[wall(_id="b")]),
    ]


@pytest.mark.parametrize(
    "export",
    [
        pytest.param(world(), id="list"),
        pytest.param({"name": "World", "scenes": world()}, id="world-dict"),
    ],
)
@pytest.mark.parametrize(
    "wanted, wall_id",
    [
        pytest.param("Beta", "b", id="by-name"),
        pytest.param("id-a", "a", id="by-id"),
        pytest.param("2", "b", id="by-index"),
    ],
)
def test_pick_scene_from_multi_scene_export(export, wanted, wall_id):
    result = to_scene(export, scene=wanted)
    assert [w["id"] for w in result["scene"]["walls"]] == [wall_id]
    prefix = "scenes" if isinstance(export, dict) else ""
    assert result["warnings"] == [f"{prefix}[1]: null entry skipped"]


def test_several_scenes_without_choice_lists_names():
    with pytest.raises(AdapterError) as info:
        to_scene({"scenes": world()})
    assert info.value.message == (
        "the export holds 2 scenes; pick one with scene=: 'Alpha' (id-a), 'Beta' (id-b)"
    )
    assert info.value.path == ("scenes",)


def test_unknown_scene_lists_names():
    with pytest.raises(AdapterError) as info:
        to_scene(world(), scene="Gamma")
    assert info.value.message == "scene 'Gamma' not found; available: 'Alpha' (id-a), 'Beta' (id-b)"


def test_ambiguous_scene_name():
    scenes = [v10_doc(_id="x", name="Same"), v10_doc(_id="y", name="Same")]
    with pytest.raises(AdapterError) as info:
        to_scene(scenes, scene="Same")
    assert info.value.message == "scene name 'Same' is ambiguous: 'Same' (x), 'Same' (y)"


def test_single_scene_list_and_single_doc_with_matching_name():
    assert to_scene([v10_doc()])["stats"]["walls"] == 0
    assert to_scene(v10_doc(), scene="Test")["stats"]["walls"] == 0
    with pytest.raises(AdapterError) as info:
        to_scene(v10_doc(), scene="Other")
    assert info.value.message == "scene 'Other' not found; the export holds only 'Test' (scene0)"


def test_empty_scene_list_is_an_error():
    with pytest.raises(AdapterError) as info:
        to_scene([None])
    assert (info.value.message, info.value.path) == ("the export holds no scene document", ())


# --------------------------------------------------------------------------- NeDB


def test_parse_nedb_keeps_last_revision_and_honours_deletions():
    lines = [
        {"_id": "a", "name": "A1"},
        {"_id": "b", "name": "B1"},
        {"$$indexCreated": {"fieldName": "name"}},
        {"_id": "a", "name": "A2"},
        {"_id": "c", "name": "C1"},
        {"$$deleted": True, "_id": "b"},
        {"_id": "c", "name": "C2"},
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n\n"
    assert parse_nedb(text) == [{"_id": "a", "name": "A2"}, {"_id": "c", "name": "C2"}]


def test_parse_nedb_deleted_then_recreated_moves_to_the_end():
    text = "\n".join(
        json.dumps(d)
        for d in [
            {"_id": "a", "n": 1},
            {"_id": "b", "n": 1},
            {"$$deleted": True, "_id": "a"},
            {"_id": "a", "n": 2},
        ]
    )
    assert parse_nedb(text) == [{"_id": "b", "n": 1}, {"_id": "a", "n": 2}]


def test_parse_nedb_then_to_scene(tmp_path: Path):
    old = v10_doc(_id="s1", name="Cave", walls=[wall(_id="old")])
    new = v10_doc(_id="s1", name="Cave", walls=[wall(_id="new")])
    other = v10_doc(_id="s2", name="Keep")
    db = tmp_path / "scenes.db"
    db.write_text("\n".join(json.dumps(d) for d in (old, other, new)), encoding="utf-8")
    docs = parse_nedb(db.read_text(encoding="utf-8"))
    assert [w["id"] for w in to_scene(docs, scene="Cave")["scene"]["walls"]] == ["new"]


@pytest.mark.parametrize(
    "text, message, path",
    [
        pytest.param(
            '{"_id": "a"}\n{"_id": ', "line 2 is not valid JSON", ("line", 2), id="truncated"
        ),
        pytest.param(
            "[1, 2]", "line 1 is a JSON list, not a document", ("line", 1), id="list-line"
        ),
    ],
)
def test_parse_nedb_bad_lines(text, message, path):
    with pytest.raises(AdapterError) as info:
        parse_nedb(text)
    assert info.value.message.startswith(message)
    assert info.value.path == path


def test_parse_nedb_rejects_bytes():
    with pytest.raises(AdapterError) as info:
        parse_nedb(b'{"_id": "a"}')  # type: ignore[arg-type]
    assert info.value.message == "NeDB content must be text, got bytes"


# --------------------------------------------------------------------------- broken documents


BROKEN = [
    pytest.param(
        "scene", (), "a Foundry export must be a JSON object or a list, got str", id="string"
    ),
    pytest.param(42, (), "a Foundry export must be a JSON object or a list, got int", id="int"),
    pytest.param(
        None, (), "a Foundry export must be a JSON object or a list, got NoneType", id="none"
    ),
    pytest.param(
        {"name": "x"},
        (),
        "not a Foundry scene: neither 'walls' nor grid information",
        id="no-walls-no-grid",
    ),
    pytest.param(
        {"walls": "none", "grid": 100},
        ("walls",),
        "'walls' must be a list, got str",
        id="walls-string",
    ),
    pytest.param(
        {"walls": {"0": {}}, "grid": 100},
        ("walls",),
        "'walls' must be a list, got dict",
        id="walls-dict",
    ),
    pytest.param(
        {"walls": []},
        ("grid",),
        "grid size must be a positive number of pixels, got None",
        id="walls-but-no-grid",
    ),
    pytest.param(
        {"scenes": "all"}, ("scenes",), "'scenes' must be a list, got str", id="scenes-string"
    ),
]


@pytest.mark.parametrize("export, path, message", BROKEN)
def test_broken_documents_raise_adapter_error_with_path(export, path, message):
    assert_adapter_error(to_scene, export, path, message)


ODD_VALUES = [None, "x", -1, 0, 1e308, math.nan, math.inf, True, [], {}, [None], {"a": None}]


def kitchen_sink() -> dict:
    """A v12 document touching every section the adapter reads."""
    return v12_doc(
        walls=[
            wall(
                flags={"wall-height": {"top": 10, "bottom": 0}},
                threshold={"sight": 5, "light": None, "sound": None},
            )
        ],
        tokens=[token(detectionModes=[{"id": "seeAll", "enabled": True, "range": 30}])],
        lights=[
            {
                "_id": "l0",
                "x": 1,
                "y": 2,
                "walls": True,
                "rotation": 0,
                "config": {
                    "bright": 1,
                    "dim": 2,
                    "angle": 90,
                    "negative": False,
                    "darkness": {"min": 0, "max": 1},
                },
            }
        ],
        regions=[
            region(
                {"type": "rectangle", "x": 0, "y": 0, "width": 10, "height": 10, "rotation": 30},
                {"type": "ellipse", "x": 0, "y": 0, "radiusX": 5, "radiusY": 3},
                elevation={"bottom": 0, "top": 5},
                behaviors=[{"type": "suppressWeather"}],
            )
        ],
        tiles=[{}],
    )


@pytest.mark.parametrize("odd", odd_params(ODD_VALUES))
def test_any_odd_field_gives_a_result_or_an_adapter_error(odd):
    assert_odd_value_gives_a_result_or_an_adapter_error(
        to_scene, kitchen_sink(), odd, error_roots={("grid",), ("walls",), ()}
    )


def test_real_files_with_odd_fields_never_raise_other_errors():
    raw = load_real("foundry", DELIAN)
    sample = {
        **raw,
        "walls": raw["walls"][:2],
        "tokens": raw["tokens"][:1],
        "lights": raw["lights"][:1],
    }
    assert_odd_values_raise_nothing_else(to_scene, sample, (None, "x", -1, [], {}))


def canvas_unknown() -> dict:
    doc = kitchen_sink()
    del doc["width"]
    return doc


def odd_walls_and_lights() -> dict:
    return v12_doc(
        walls=[
            wall(_id="a", flags={"wall-height": {"top": 0, "bottom": 10}}),
            wall(_id="a", threshold={"sight": -3}),
        ],
        lights=[{"_id": "l", "x": 0, "y": 0, "config": {"bright": -1, "dim": 5, "angle": 0}}],
        tokens=[token(light={"bright": -2, "dim": 3}, sight={"range": None})],
    )


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(kitchen_sink, id="kitchen-sink"),
        pytest.param(canvas_unknown, id="canvas-unknown"),
        pytest.param(odd_walls_and_lights, id="odd-values-repaired"),
    ],
)
def test_hand_made_results_load_through_scene_schema(make):
    scene_schema = pytest.importorskip("schemas.scene")
    scene = to_scene(make())["scene"]
    loaded = scene_schema.SceneSchema().load(scene)
    assert [w.id for w in loaded.walls] == [w["id"] for w in scene["walls"]]
    assert [r.id for r in loaded.regions] == [r["id"] for r in scene["regions"]]
