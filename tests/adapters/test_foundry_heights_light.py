"""Foundry adapter, issues 14 and 15: heights, grids, lights switched off, region light, creatures.

Rules: shared/RULES.md GEO-5 (wall heights), GEO-5a (creature heights, light elevations),
GEO-8 (diagonal rule, unset by default), GEO-9 (region light). Formats: shared/FORMATS.md
A.2 (grid types), A.3 (walls, Wall Height and Levels flags), A.4 (tokens), A.5 (lights),
A.6 (global light), A.7 (regions). Small exports: shared/cases/imports-2/README.md; real
exports: shared/scenes/real/foundry (tests skip when ../shared is absent).
"""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters import detect
from adapters.errors import AdapterError
from adapters.foundry import to_scene
from adapters.foundry.regions import DARKNESS_MODES
from tests.adapters.test_foundry import region, token, v07_doc, v10_doc, v12_doc, wall
from tests.conftest import SHARED, load_real

IMPORTS_2 = SHARED / "cases" / "imports-2"
RECT = {"type": "rectangle", "x": 0, "y": 0, "width": 100, "height": 100}


def imports_2(name: str) -> str:
    """Text of a small export of shared/cases/imports-2 (skips when ../shared is absent)."""
    path = IMPORTS_2 / name
    if not path.exists():
        pytest.skip(f"../shared is not beside this checkout ({path} missing): imports-2 skipped")
    return path.read_text(encoding="utf-8")


def real_scene(name: str) -> dict:
    return to_scene(load_real("foundry", name))


# --------------------------------------------------------------------------- imports-2


def test_imports2_hidden_light_is_switched_off():
    """imports-2 foundry-v10-hidden-light.json: the hidden brazier is off, a warning says so."""
    result = to_scene(json.loads(imports_2("foundry-v10-hidden-light.json")))
    (light,) = result["scene"]["lights"]
    assert (light["id"], light["on"]) == ("brazier", False)
    assert result["scene"]["environment"]["light"] == "dark"
    assert result["stats"]["lights_off"] == 1
    assert result["warnings"] == [
        "lights: 1 hidden lights are switched off in Foundry, imported with on: false: brazier"
    ]


def test_imports2_v13_region_darken_is_dark():
    """GEO-9, imports-2 foundry-v13-region-darken.json: darken 0.7 passes darkness.max 0.65."""
    result = to_scene(json.loads(imports_2("foundry-v13-region-darken.json")))
    scene = result["scene"]
    assert scene["environment"]["light"] == "dim"  # global light, not in bright mode
    assert [(r["id"], r["light"]) for r in scene["regions"]] == [("caveRegion", "dark")]
    assert scene["regions"][0]["shape"] == {
        "type": "rect",
        "x": 500,
        "y": 0,
        "width": 500,
        "height": 1000,
    }
    assert result["stats"]["regions_with_light"] == 1
    assert result["warnings"] == []


def test_imports2_v12_region_override_darkness_is_dark():
    """GEO-9, imports-2 foundry-v12-region-override-darkness.json: override 1.0 > max 0.5."""
    result = to_scene(json.loads(imports_2("foundry-v12-region-override-darkness.json")))
    scene = result["scene"]
    assert scene["environment"]["light"] == "bright"
    assert [(r["id"], r["light"]) for r in scene["regions"]] == [("R1", "dark")]
    # hand-made tokens without an actorId key stay creatures (observer A, target T)
    assert [t["id"] for t in scene["tokens"]] == ["A", "T"]


def test_imports2_nedb_two_scenes():
    """imports-2 nedb-two-scenes.db: ?scene picks a scene; none given lists both names.

    The file holds Room A twice: its last line (two walls, w1 and w2) replaces the first
    (FORMATS.md A.0 and Pitfall 10), so Room A has two walls, not the one the README says.
    """
    text = imports_2("nedb-two-scenes.db")
    export = detect.parse_text(text)
    room_a = detect.to_scene(export, scene="Room A")
    assert room_a["scene"]["walls"][0]["c"] == [100, 100, 400, 100]
    assert [w["id"] for w in room_a["scene"]["walls"]] == ["w1", "w2"]
    assert detect.to_scene(export, scene="Room B")["scene"]["walls"] == []
    with pytest.raises(AdapterError) as err:
        detect.to_scene(export)
    assert "'Room A' (s1), 'Room B' (s2)" in err.value.message


# --------------------------------------------------------------------------- real exports

# file, walls, walls with a height, tokens (all creatures), elevated tokens, lights, lights off,
# grid type, units, diagonals
REAL = [
    ("foundry-v0.7-zahi-cities-street.json", 120, 0, 0, 0, 17, 17, "square", "ft"),
    ("foundry-v9-fa-redbrand-hideout.json", 199, 0, 0, 0, 12, 0, "square", "ft"),
    ("foundry-v9-t2k-humvee-ambush-hex.json", 0, 0, 8, 0, 0, 0, "hex-col", "m"),
    ("foundry-v9-vttom-tower-levels.json", 180, 83, 0, 0, 21, 0, "gridless", "m"),
    ("foundry-v10-delian-tomb.json", 43, 0, 14, 0, 2, 0, "square", "ft"),
    ("foundry-v10-harn-forest-road-hex.json", 117, 0, 0, 0, 1, 0, "hex-col", "ft"),
    (
        "foundry-v10-lancer-crashed-ship-hex-heights.json",
        413,
        413,
        23,
        19,
        4,
        0,
        "hex-row",
        "squares",
    ),
    ("foundry-v10-lancer-dingy-hostel-gridless.json", 64, 0, 14, 0, 10, 0, "gridless", "squares"),
    ("foundry-v12-fa-cult-sanctuary.json", 84, 0, 0, 0, 9, 8, "square", "ft"),
    ("foundry-v12-fa-manor-house-regions.json", 325, 0, 0, 0, 112, 54, "square", "ft"),
    ("foundry-v13-fa-butcher-shop.json", 81, 0, 0, 0, 2, 1, "square", "ft"),
]


@pytest.mark.parametrize(
    "name, walls, high, tokens, elevated, lights, off, gtype, units",
    [pytest.param(*row, id=row[0].removeprefix("foundry-").removesuffix(".json")) for row in REAL],
)
def test_real_counts_heights_lights_and_grids(
    name, walls, high, tokens, elevated, lights, off, gtype, units
):
    """Every real export: same wall/token/light counts as before, plus the new facts.

    Every token of the real exports has an actor (``actorId``): all stay creatures.
    No export sets a diagonal rule: GEO-8 leaves ``grid.diagonals`` unset (null).
    """
    raw = load_real("foundry", name)
    result = to_scene(raw)
    scene, stats = result["scene"], result["stats"]
    assert (stats["walls"], stats["tokens"], stats["lights"]) == (walls, tokens, lights)
    assert len(raw.get("tokens") or []) == tokens  # no token left out
    assert stats["walls_with_height"] == high
    assert sum(1 for t in scene["tokens"] if t["elevation"]) == elevated
    assert sum(1 for li in scene["lights"] if not li["on"]) == off == stats["lights_off"]
    assert [li["id"] for li in scene["lights"] if not li["on"]] == [
        li["_id"] for li in raw["lights"] if li.get("hidden") is True
    ]
    assert (scene["grid"]["type"], scene["grid"]["units"]) == (gtype, units)
    assert scene["grid"]["diagonals"] is None
    assert "not set" in stats["read"]["grid.diagonals"]
    assert not any("approximated" in w and "hex" in w for w in result["warnings"])


def test_real_vttom_tower_levels_floors():
    """GEO-5: the tower's Wall Height floors (0-9 .. 30-39, inclusive: read [0, 10) ..
    [30, 40) without a gap) and Levels light elevations."""
    result = real_scene("foundry-v9-vttom-tower-levels.json")
    scene = result["scene"]
    heights = Counter(json.dumps(w["height"]) for w in scene["walls"] if w["height"])
    assert heights == {
        '{"bottom": 0, "top": 10}': 29,
        '{"bottom": 10, "top": 20}': 21,
        '{"bottom": 20, "top": 30}': 17,
        '{"bottom": 30, "top": 40}': 16,
    }
    assert Counter(li["elevation"] for li in scene["lights"]) == {0: 7, 10: 5, 20: 5, 30: 4}
    assert result["stats"]["read"]["wall heights: flags.wall-height.bottom/top"] == 83
    assert result["stats"]["read"]["light elevations: flags.levels.rangeBottom"] == 21
    assert scene["grid"]["units"] == "m"  # 'Schritt' (The Dark Eye's pace) is one metre
    assert "gridUnits: 'Schritt' read as 'm'" in result["warnings"][0]
    # The floors themselves are Levels tiles: surfaces at their bottoms (GEO-10).
    assert sorted(s["elevation"] for s in scene["surfaces"]) == [10, 20, 30, 40]
    assert not any("Levels floor tiles" in w for w in result["warnings"])


def test_real_lancer_crashed_ship_wall_height_ranges_and_elevated_tokens():
    """GEO-5/GEO-5a: Wall Height ranges (null = unbounded) and 19 elevated mechs."""
    result = real_scene("foundry-v10-lancer-crashed-ship-hex-heights.json")
    scene = result["scene"]
    heights = Counter(json.dumps(w["height"]) for w in scene["walls"])
    assert heights == {
        '{"bottom": -10, "top": 8}': 129,
        '{"bottom": null, "top": 10}': 128,
        '{"bottom": null, "top": 4}': 64,
        '{"bottom": null, "top": 5}': 48,
        '{"bottom": null, "top": 9}': 44,
    }
    assert Counter(t["elevation"] for t in scene["tokens"]) == {0: 4, 8: 10, 10: 8, 12: 1}
    # Wall Height's tokenHeight 0 means "automatic, from the size": left unset
    assert {t["vertical_extent"] for t in scene["tokens"]} == {None}
    assert scene["grid"]["type"] == "hex-row"  # HEXODDR (2): pointy-topped, rows shifted
    assert (
        result["stats"]["read"]["grid.type"] == "grid.type HEXODDR (2): hex-row, odd rows shifted"
    )
    # blank units, 1 unit a hex: the scene counts in spaces (GEO-8, FORMATS pitfall 17)
    assert scene["grid"]["units"] == "squares"
    assert (
        "grid.units: '': the scene counts in spaces, 1 space = 5 ft (GEO-8)" in result["warnings"]
    )


def test_real_t2k_humvee_hex_metres():
    """A v9 hex grid is a legacy one: its size across the corners becomes the centre distance."""
    result = real_scene("foundry-v9-t2k-humvee-ambush-hex.json")
    assert result["scene"]["grid"] == {
        "size": pytest.approx(91 * math.sqrt(3) / 2, abs=1e-6),
        "distance": 2,
        "units": "m",
        "type": "hex-col",
        "diagonals": None,
        "hex_offset": "odd",
    }
    assert result["stats"]["read"]["grid.size"].startswith("a <= v9 hex grid: 91 px")


def test_real_harn_forest_road_legacy_hex():
    result = real_scene("foundry-v10-harn-forest-road-hex.json")
    grid = result["scene"]["grid"]
    assert grid["type"] == "hex-col"  # HEXODDQ (4): flat-topped
    assert grid["size"] == pytest.approx(50 * math.sqrt(3), abs=1e-6)  # flags.core.legacyHex
    assert result["stats"]["read"]["grid.type"] == (
        "grid.type HEXODDQ (4): hex-col, odd columns shifted"
    )
    assert result["stats"]["read"]["grid.size"].startswith("flags.core.legacyHex: 100 px")
    # the canvas padding stays counted in the exported size
    raw = load_real("foundry", "foundry-v10-harn-forest-road-hex.json")
    pad = math.ceil(raw["width"] * raw["padding"] / 100) * 100
    assert result["scene"]["width"] == raw["width"] + 2 * pad


LEGACY_HEX = [
    pytest.param(v10_doc, {"type": 2, "size": 100}, {}, 100, id="v10-new-hex"),
    pytest.param(
        v10_doc,
        {"type": 2, "size": 100},
        {"core": {"legacyHex": True}},
        86.60254,
        id="v10-legacy-flag",
    ),
    pytest.param(
        v10_doc,
        {"type": 1, "size": 100},
        {"core": {"legacyHex": True}},
        100,
        id="square-flag-ignored",
    ),
]


@pytest.mark.parametrize("make, grid, flags, size", LEGACY_HEX)
def test_legacy_hex_size(make, grid, flags, size):
    doc = make(grid={**grid, "distance": 5, "units": "ft"}, flags=flags)
    assert to_scene(doc)["scene"]["grid"]["size"] == pytest.approx(size, abs=1e-5)


def test_flat_hex_grid_is_legacy():
    doc = v07_doc(grid=70, gridType=5)
    assert to_scene(doc)["scene"]["grid"]["size"] == pytest.approx(35 * math.sqrt(3), abs=1e-6)


def test_real_dingy_hostel_gridless():
    result = real_scene("foundry-v10-lancer-dingy-hostel-gridless.json")
    assert result["scene"]["grid"]["type"] == "gridless"
    assert len(result["scene"]["tokens"]) == 14


def test_real_manor_house_regions_and_lights():
    """GEO-9: the darken region (13 shapes, 6 of them holes) carries its light; 54/112 off."""
    result = real_scene("foundry-v12-fa-manor-house-regions.json")
    scene, warnings = result["scene"], result["warnings"]
    lit = [r for r in scene["regions"] if r["light"] is not None]
    # darken 0.25 from darkness 0 gives 0.25, under darkness.max 1: the dim global light stays
    assert [r["id"] for r in lit] == ["KXpq0LJ19KE39yl5"] + [
        f"KXpq0LJ19KE39yl5-{k}" for k in range(1, 7)
    ]
    assert {r["light"] for r in lit} == {"dim"}
    assert sum("hole dropped" in w for w in warnings) == 6
    assert sum(w.endswith("teleportToken not mapped") for w in warnings) == 6
    assert "regions[0].behaviors: suppressWeather not mapped" in warnings
    assert not any("adjustDarknessLevel" in w for w in warnings)
    assert result["stats"]["lights_off"] == 54
    (off,) = [w for w in warnings if "switched off" in w]
    assert off.startswith("lights: 54 hidden lights are switched off in Foundry")


def test_real_butcher_shop_darkness_region():
    result = real_scene("foundry-v13-fa-butcher-shop.json")
    (reg,) = result["scene"]["regions"]
    assert reg["light"] == "dim"  # darken 0.3 from 0: 0.3 <= darkness.max 1
    assert result["stats"]["read"]["region light: behaviors adjustDarknessLevel"] == 1


# --------------------------------------------------------------------------- region light

# GEO-9: scene darkness, global light (enabled, max, bright), behaviours -> region light
REGION_LIGHT = [
    pytest.param(0, (True, 0.65, False), [(2, 0.7)], "dark", id="darken-past-threshold"),
    pytest.param(0, (True, 0.65, False), [(2, 0.5)], "dim", id="darken-under-threshold"),
    pytest.param(0.2, (True, 0.5, True), [(0, 1.0)], "dark", id="override-night"),
    pytest.param(0.9, (True, 0.5, True), [(0, 0.1)], "bright", id="override-day"),
    pytest.param(0.8, (True, 0.5, True), [(1, 0.5)], "bright", id="brighten-to-0.4"),
    pytest.param(0.8, (True, 0.5, True), [(1, 0.25)], "dark", id="brighten-to-0.6"),
    pytest.param(0, (False, None, True), [(1, 1.0)], "dark", id="no-global-light"),
    pytest.param(0, (True, None, True), [(0, 1.0)], "bright", id="no-threshold"),
    pytest.param(0, (True, 0.5, True), [(2, 0.4), (2, 0.4)], "dark", id="two-in-order"),
]


@pytest.mark.parametrize("darkness, glight, behaviors, expected", REGION_LIGHT)
def test_region_light_from_adjust_darkness_level(darkness, glight, behaviors, expected):
    """GEO-9: Foundry's darkness level modes decide whether the global light shines inside."""
    enabled, max_, bright = glight
    env = {
        "darknessLevel": darkness,
        "globalLight": {"enabled": enabled, "bright": bright, "darkness": {"min": 0, "max": max_}},
    }
    raw = region(
        RECT,
        behaviors=[
            {"type": "adjustDarknessLevel", "system": {"mode": m, "modifier": k}}
            for m, k in behaviors
        ],
    )
    result = to_scene(v12_doc(environment=env, regions=[raw]))
    assert [r["light"] for r in result["scene"]["regions"]] == [expected]
    assert result["warnings"] == []


LEVELS = ("dark", "dim", "bright")
unit = st.floats(min_value=0, max_value=1, allow_nan=False)


@given(darkness=unit, modifier=unit, threshold=unit, bright=st.booleans())
def test_region_light_darken_never_brighter_brighten_never_darker(
    darkness, modifier, threshold, bright
):
    """GEO-9 property: darkening never lights a region more than the scene around it, and
    brightening never less; the region's level is always one the global light can give."""
    env = {
        "darknessLevel": darkness,
        "globalLight": {"enabled": True, "bright": bright, "darkness": {"max": threshold}},
    }

    def light(mode):
        behavior = {"type": "adjustDarknessLevel", "system": {"mode": mode, "modifier": modifier}}
        doc = v12_doc(environment=env, regions=[region(RECT, behaviors=[behavior])])
        result = to_scene(doc)
        return result["scene"]["environment"]["light"], result["scene"]["regions"][0]["light"]

    ambient, darkened = light(2)
    _, brightened = light(1)
    assert LEVELS.index(darkened) <= LEVELS.index(ambient) <= LEVELS.index(brightened)
    assert {darkened, brightened} <= {"dark", "bright" if bright else "dim"}


def test_region_elevation_is_counted_in_stats():
    raw = region(RECT, elevation={"bottom": 0, "top": 10})
    result = to_scene(v12_doc(regions=[raw]))
    assert result["scene"]["regions"][0]["elevation"] == {"bottom": 0, "top": 10}
    assert result["stats"]["read"]["region elevations: elevation.bottom/top"] == 1


def test_region_light_modes_formulas():
    """Foundry's three modes: override m, brighten d(1-m), darken 1-(1-d)(1-m)."""
    assert DARKNESS_MODES[0][1](0.3, 0.9) == 0.9
    assert DARKNESS_MODES[1][1](0.8, 0.5) == pytest.approx(0.4)
    assert DARKNESS_MODES[2][1](0.5, 0.5) == pytest.approx(0.75)


def test_region_disabled_or_other_behaviours_give_no_light():
    behaviors = [
        {"type": "adjustDarknessLevel", "system": {"mode": 0, "modifier": 1}, "disabled": True},
        {"type": "teleportToken", "system": {}},
    ]
    result = to_scene(v12_doc(regions=[region(RECT, behaviors=behaviors)]))
    assert [r["light"] for r in result["scene"]["regions"]] == [None]
    assert result["warnings"] == ["regions[0].behaviors: teleportToken not mapped"]


# --------------------------------------------------------------------------- lights

LIGHT_ON = [
    pytest.param({"hidden": True}, False, id="hidden-off"),
    pytest.param({"hidden": False}, True, id="shown-on"),
    pytest.param({}, True, id="absent-on"),
]


@pytest.mark.parametrize("fields, on", LIGHT_ON)
def test_light_on_follows_hidden(fields, on):
    light = {"_id": "l", "x": 1, "y": 2, "config": {"bright": 5, "dim": 10}, **fields}
    assert to_scene(v10_doc(lights=[light]))["scene"]["lights"][0]["on"] is on


FLAT_TYPES = [
    pytest.param("l", True, id="local"),
    pytest.param("u", False, id="universal-ignores-walls"),
    pytest.param("g", True, id="global"),
]


@pytest.mark.parametrize("t, walls", FLAT_TYPES)
def test_old_light_type_universal_ignores_walls(t, walls):
    """0.7/0.8 ``t: "u"`` lights are not constrained by walls (Foundry's migration)."""
    light = {"_id": "l", "t": t, "x": 0, "y": 0, "dim": 10, "bright": 5}
    assert to_scene(v07_doc(lights=[light]))["scene"]["lights"][0]["walls"] is walls


LIGHT_ELEVATIONS = [
    pytest.param({"elevation": 15}, 15, "light elevations: elevation", id="v12-elevation"),
    pytest.param(
        {"flags": {"levels": {"rangeBottom": 10, "rangeTop": 19}}},
        10,
        "light elevations: flags.levels.rangeBottom",
        id="levels-range-bottom",
    ),
    pytest.param(
        {"flags": {"levels": {"rangeBottom": None, "rangeTop": None}}}, 0, None, id="levels-null"
    ),
    pytest.param({}, 0, None, id="none"),
]


@pytest.mark.parametrize("fields, elevation, source", LIGHT_ELEVATIONS)
def test_light_elevation(fields, elevation, source):
    """GEO-5a: a light is a band of no thickness at its elevation (grid units)."""
    light = {"_id": "l", "x": 1, "y": 2, "config": {"bright": 5}, **fields}
    result = to_scene(v10_doc(lights=[light]))
    assert result["scene"]["lights"][0]["elevation"] == elevation
    assert (source in result["stats"]["read"]) if source else True


def test_stats_count_token_carried_lights():
    tokens = [
        token(_id="a", light={"bright": 0, "dim": 20}),
        token(_id="b", light={"bright": 0, "dim": 0}),
        token(_id="c", light={"bright": 10, "dim": 20}),
    ]
    assert to_scene(v10_doc(tokens=tokens))["stats"]["token_lights"] == 2


# --------------------------------------------------------------------------- tokens

TOKEN_HEIGHTS = [
    pytest.param({"wall-height": {"tokenHeight": 6}}, 0, 6, id="wall-height"),
    pytest.param({"wall-height": {"tokenHeight": 0}}, 0, None, id="wall-height-0-auto"),
    pytest.param({"wallHeight": {"tokenHeight": 4}}, 0, 4, id="old-wallHeight"),
    pytest.param({"levels": {"tokenHeight": 12}}, 5, 12, id="levels-tokenHeight"),
    # Levels computes losHeight at run time and never stores it: not read (as the module).
    pytest.param({"levels": {"losHeight": 9}}, 5, None, id="levels-losHeight-not-a-flag"),
    pytest.param(
        {"wall-height": {"tokenHeight": 3}, "levels": {"tokenHeight": 12}},
        0,
        3,
        id="wall-height-first",
    ),
    pytest.param({}, 0, None, id="no-flag"),
]


@pytest.mark.parametrize("flags, elevation, extent", TOKEN_HEIGHTS)
def test_token_vertical_extent_from_flags(flags, elevation, extent):
    """GEO-5a: the creature's height comes from the scene's token height flags, else size."""
    result = to_scene(v10_doc(tokens=[token(elevation=elevation, flags=flags)]))
    (tok,) = result["scene"]["tokens"]
    assert (tok["elevation"], tok["vertical_extent"]) == (elevation, extent)
    assert result["stats"]["tokens_with_height"] == (extent is not None)


def test_token_height_flag_not_a_number_warns():
    result = to_scene(v10_doc(tokens=[token(flags={"wall-height": {"tokenHeight": "tall"}})]))
    assert result["scene"]["tokens"][0]["vertical_extent"] is None
    assert (
        "tokens[0].flags.wall-height.tokenHeight: 'tall' is not a height, size used"
        in (result["warnings"])
    )


CREATURES = [
    pytest.param({"actorId": "abc"}, True, id="actor"),
    pytest.param({}, True, id="no-actorId-key"),
    pytest.param({"actorId": None}, False, id="actorId-null"),
    pytest.param({"actorId": ""}, False, id="actorId-empty"),
]


@pytest.mark.parametrize("fields, creature", CREATURES)
def test_only_tokens_with_an_actor_are_creatures(fields, creature):
    """A token without an actor is a prop or marker: left out with a warning naming it."""
    result = to_scene(v10_doc(tokens=[token(_id="t", name="Lever", **fields)]))
    assert [t["id"] for t in result["scene"]["tokens"]] == (["t"] if creature else [])
    skipped = [w for w in result["warnings"] if "not creatures" in w]
    assert skipped == (
        []
        if creature
        else [
            "tokens: 1 tokens without an actor (actorId null) are not creatures, left out "
            "of the scene (no obstacle, no observer): tokens[0 (Lever)]"
        ]
    )


# --------------------------------------------------------------------------- walls

WALL_HEIGHTS = [
    pytest.param({"wall-height": {"top": 10, "bottom": 0}}, {"bottom": 0, "top": 10}, id="wh"),
    pytest.param(
        {"wall-height": {"top": 10, "bottom": None}}, {"bottom": None, "top": 10}, id="wh-open"
    ),
    pytest.param(
        {"wallHeight": {"wallHeightTop": 8, "wallHeightBottom": 2}},
        {"bottom": 2, "top": 8},
        id="old-wh",
    ),
    pytest.param(
        {"levels": {"rangeBottom": 10, "rangeTop": 19}}, {"bottom": 10, "top": 19}, id="levels"
    ),
    pytest.param({"wall-height": {"top": None, "bottom": None}}, None, id="both-null"),
    pytest.param({}, None, id="none"),
]


@pytest.mark.parametrize("flags, height", WALL_HEIGHTS)
def test_wall_height_flags(flags, height):
    """GEO-5: Wall Height and Levels ranges (grid units); null bounds are unbounded."""
    assert to_scene(v10_doc(walls=[wall(flags=flags)]))["scene"]["walls"][0]["height"] == height


MIXED_WALLS = [
    # old sense 1 (normal) with an explicit v9 light 0 (none): light wins, sight from sense
    pytest.param({"sense": 1, "light": 0}, ("normal", "normal", "none", "normal"), id="light-wins"),
    pytest.param(
        {"sense": 2, "sight": 20}, ("normal", "normal", "limited", "normal"), id="sight-wins"
    ),
    pytest.param(
        {"sense": 0, "light": 20, "sound": 10},
        ("normal", "none", "normal", "limited"),
        id="sound-explicit",
    ),
    pytest.param({"sense": 2}, ("normal", "limited", "limited", "limited"), id="sense-only"),
]


@pytest.mark.parametrize("fields, expected", MIXED_WALLS)
def test_wall_sense_migrates_field_by_field(fields, expected):
    """FORMATS.md A.3 / Pitfall 1: explicit v9+ fields win over the old ``sense``."""
    raw = {"_id": "w", "c": [0, 0, 100, 0], "move": 1, **fields}
    (out,) = to_scene(v07_doc(walls=[raw]))["scene"]["walls"]
    assert (out["move"], out["sight"], out["light"], out["sound"]) == expected


@pytest.mark.parametrize(
    ("global_light", "light"),
    [
        ({"enabled": True, "bright": True}, "bright"),
        ({"enabled": True, "bright": False}, "dim"),
        ({"enabled": True}, "dim"),  # v12's field starts false: dim, as the module reads it
        ({"enabled": False, "bright": True}, "dark"),
    ],
)
def test_a_v12_global_light_is_bright_only_in_bright_mode(global_light, light):
    """GEO-9 (FORMATS pitfall 14's neighbour): v12+ ``environment.globalLight`` lights the
    scene bright only when ``bright`` is true; without the field it is dim."""
    doc = v10_doc()
    doc["environment"] = {"darknessLevel": 1.0, "globalLight": global_light}
    assert to_scene(doc)["scene"]["environment"]["light"] == light
