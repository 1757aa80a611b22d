"""Roll20 adapter: real betteR20 exports (shared/scenes/real/roll20) and hand-made pages.

Counts and coordinates of the real files are recomputed here from the raw JSON (never with
adapter helpers). References: shared/FORMATS.md (b) and "Pitfalls", SOURCES.md (roll20/),
shared/RULES.md GEO-3.
"""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from adapters.errors import AdapterError
from adapters.roll20 import CURVE_SEGMENTS, to_scene
from schemas.scene import SceneSchema
from service.engine.scene import build_scene
from service.model import Grid
from service.rules.ask import cover_one
from service.rules.base import Attack
from service.rules.dnd5e import RULESET
from tests.adapters.common import (
    assert_adapter_error,
    assert_json_and_input_untouched,
    assert_odd_value_gives_a_result_or_an_adapter_error,
    assert_odd_values_raise_nothing_else,
    checked,
    odd_params,
)
from tests.conftest import load_real

WPM = "roll20-betteR20-module-white-plume-mountain.json"
TOH = "roll20-betteR20-module-tomb-of-horrors.json"
REAL_FILES = [pytest.param(WPM, id="white-plume-mountain"), pytest.param(TOH, id="tomb-of-horrors")]
TOKEN_LAYERS = ("objects", "gmlayer")


def real(name: str) -> dict:
    return load_real("roll20", name)


def convert(export, **kw) -> dict:
    """Run the adapter and check that the canonical scene loads (every result must)."""
    return checked(to_scene(export, **kw), SceneSchema().load)


# --------------------------------------------------------------------------- raw counting


def raw_page(doc: dict) -> dict:
    assert len(doc["maps"]) == 1
    return doc["maps"][0]


def raw_wall_segments(page: dict) -> list[tuple[str, list[float]]]:
    """(id, c) of every non-zero segment of the walls-layer paths, by the FORMATS.md formula.

    The real files only use M/L, one M per path, scale 1 and rotation 0 (asserted), so the
    page position of a local point is (left - width/2 + x, top - height/2 + y).
    """
    out = []
    for p in page["paths"]:
        if p["layer"] != "walls":
            continue
        assert (p["scaleX"], p["scaleY"], p["rotation"]) == (1, 1, 0)
        cmds = json.loads(p["path"])
        assert cmds[0][0] == "M" and all(c[0] == "L" for c in cmds[1:])
        x0, y0 = p["left"] - p["width"] / 2, p["top"] - p["height"] / 2
        pts = [(x0 + c[1], y0 + c[2]) for c in cmds]
        for k, (a, b) in enumerate(zip(pts, pts[1:], strict=False)):
            if a != b:
                out.append((f"{p['id']}-{k}", [a[0], a[1], b[0], b[1]]))
    return out


def lit(g: dict) -> bool:
    return g.get("light_radius") not in ("", None)


def creature(g: dict) -> bool:
    """A token-layer graphic that represents a character, has a name or a bar value."""
    bars = (g.get(f"bar{k}_value") for k in (1, 2, 3, 4))
    return g["layer"] in TOKEN_LAYERS and (
        bool(g.get("represents")) or bool(g.get("name")) or any(b not in ("", None) for b in bars)
    )


# --------------------------------------------------------------------------- real files

# file, wall paths, segments (non-zero), graphics per layer, lit graphics (SOURCES.md)
REAL_SOURCE_COUNTS = [
    pytest.param(WPM, 42, 455, {"objects": 47, "gmlayer": 46, "map": 4}, 43, id="wpm"),
    pytest.param(
        TOH, 349, 652, {"gmlayer": 105, "map": 17, "walls": 3, "objects": 2}, 31, id="toh"
    ),
]


@pytest.mark.parametrize("name, paths, segments, layers, lit_count", REAL_SOURCE_COUNTS)
def test_real_raw_files_match_sources_md(name, paths, segments, layers, lit_count):
    page = raw_page(real(name))
    assert sum(p["layer"] == "walls" for p in page["paths"]) == paths
    assert len(raw_wall_segments(page)) == segments
    assert dict(Counter(g["layer"] for g in page["graphics"])) == layers
    assert sum(lit(g) for g in page["graphics"]) == lit_count


# file, walls, doors, tokens, hidden tokens, scene lights, darkvision tokens; the token
# layers also hold 34 (WPM) and 79 (ToH) unnamed GM-layer markers that represent no
# character: not creatures, not tokens (issue 15)
REAL_COUNTS = [
    pytest.param(WPM, 455, 0, 59, 12, 0, 43, id="wpm"),
    pytest.param(TOH, 652, 0, 28, 26, 3, 28, id="toh"),
]


@pytest.mark.parametrize("name, walls, doors, tokens, hidden, lights, darkvision", REAL_COUNTS)
def test_real_counts_match_the_raw_file(name, walls, doors, tokens, hidden, lights, darkvision):
    """Walls unchanged; only creatures are tokens, GM-layer creatures hidden (issue 15)."""
    raw = real(name)
    page = raw_page(raw)
    result = convert(raw)
    scene, stats = result["scene"], result["stats"]
    graphics = page["graphics"]
    from_raw = {
        "walls": len(raw_wall_segments(page)),
        "doors": 0,  # 2017 data: no UDL door objects
        "tokens": sum(creature(g) for g in graphics),
        "hidden": sum(creature(g) and g["layer"] == "gmlayer" for g in graphics),
        "lights": sum(lit(g) and g["layer"] not in TOKEN_LAYERS for g in graphics),
        "darkvision": sum(
            lit(g)
            and g["layer"] in TOKEN_LAYERS
            and g["light_otherplayers"] is False
            and g["light_hassight"] is True
            for g in graphics
        ),
    }
    got = {
        "walls": len(scene["walls"]),
        "doors": sum(w["door"] != "none" for w in scene["walls"]),
        "tokens": len(scene["tokens"]),
        "hidden": sum(t["hidden"] for t in scene["tokens"]),
        "lights": len(scene["lights"]),
        "darkvision": sum(t["senses"]["darkvision"] > 0 for t in scene["tokens"]),
    }
    expected = {
        "walls": walls,
        "doors": doors,
        "tokens": tokens,
        "hidden": hidden,
        "lights": lights,
        "darkvision": darkvision,
    }
    assert from_raw == expected
    assert got == expected
    assert {k: stats[k] for k in ("walls", "doors", "tokens", "lights", "regions")} == {
        "walls": walls,
        "doors": doors,
        "tokens": tokens,
        "lights": lights,
        "regions": 0,
    }
    assert {t["light"]["dim"] for t in scene["tokens"]} == {0}
    assert {t["light"]["seen_by"] for t in scene["tokens"]} == {"everyone"}


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_walls_follow_the_centre_formula(name):
    page = raw_page(real(name))
    walls = convert(real(name))["scene"]["walls"]
    expected = raw_wall_segments(page)
    assert [w["id"] for w in walls] == [i for i, _ in expected]
    for wall, (_, c) in zip(walls, expected, strict=True):
        assert wall["c"] == pytest.approx(c, abs=1e-6)
    assert {(w["move"], w["sight"], w["light"], w["direction"], w["door"]) for w in walls} == {
        ("normal", "normal", "normal", "both", "none")
    }


def test_real_wpm_first_wall_by_hand():
    # FORMATS.md B.2: first wall path, points x 0..2106, width 2106, left 2523, top 1920.5,
    # height 1759; first point (140, 1619) -> (2523 - 1053 + 140, 1920.5 - 879.5 + 1619)
    walls = convert(real(WPM))["scene"]["walls"]
    assert walls[0]["id"] == "-Ke0vR8i7xrnwNjWYn4f-0"
    assert walls[0]["c"] == [1610, 2660, 1470, 2660]
    assert walls[1]["c"] == [1470, 2660, 1470, 2800]


def test_real_toh_first_wall_by_hand():
    # path 0: M 0.25,52.5 L 157.75,26.25; width 1269, height 245, left 730.5, top 437.5
    # -> x0 = 730.5 - 634.5 = 96, y0 = 437.5 - 122.5 = 315
    walls = convert(real(TOH))["scene"]["walls"]
    assert walls[0]["id"] == "-LL26-ZRJSsEEVc7EyZA-0"
    assert walls[0]["c"] == [96.25, 367.5, 253.75, 341.25]


# file, grid size px, distance, width px, height px
REAL_GRIDS = [
    pytest.param(WPM, 35, 10, 64 * 70, 42 * 70, id="wpm"),
    pytest.param(TOH, 35, 10, 36 * 70, 48 * 70, id="toh"),
]


@pytest.mark.parametrize("name, size, distance, width, height", REAL_GRIDS)
def test_real_grid_page_size_and_environment(name, size, distance, width, height):
    """Square page, ``diagonaltype`` "foure" -> equidistant (GEO-8), 10 ft cells."""
    result = convert(real(name))
    scene = result["scene"]
    assert scene["grid"] == {
        "size": size,
        "distance": distance,
        "units": "ft",
        "type": "square",
        "diagonals": "equidistant",
    }
    assert (scene["width"], scene["height"]) == (width, height)
    # showlighting on, no global illumination: only lights illuminate
    assert scene["environment"] == {"light": "dark", "gravity": 1, "underwater": False}
    assert scene["regions"] == []
    assert result["stats"]["lighting"] == "legacy"
    assert result["stats"]["roll20_format"] == "betteR20"
    assert result["stats"]["page_index"] == 0


# file, page units (width, height), wall extent (min x, max x, min y, max y) in px
REAL_EXTENTS = [
    pytest.param(WPM, (64, 42), (71, 3576, 3, 2807), id="wpm"),
    pytest.param(TOH, (36, 48), (0, 2520, 280, 3283), id="toh"),
]


@pytest.mark.parametrize("name, units, extent", REAL_EXTENTS)
def test_real_page_units_are_70_px_whatever_the_snapping(name, units, extent):
    scene = convert(real(name))["scene"]
    xs = [v for w in scene["walls"] for v in w["c"][0::2]]
    ys = [v for w in scene["walls"] for v in w["c"][1::2]]
    assert (min(xs), max(xs), min(ys), max(ys)) == pytest.approx(extent)
    # the walls fill a page of width x 70 px (ToH touches both edges) ...
    assert (scene["width"], scene["height"]) == (units[0] * 70, units[1] * 70)
    assert max(xs) <= scene["width"] and max(ys) <= scene["height"]
    # ... and would overflow a page of width x 35 px (the 0.5 snapping cell)
    assert max(xs) > units[0] * 35 or max(ys) > units[1] * 35
    size = scene["grid"]["size"]
    for t in scene["tokens"]:
        assert 0 <= t["x"] and t["x"] + t["width"] * size <= scene["width"]
        assert 0 <= t["y"] and t["y"] + t["height"] * size <= scene["height"]


def test_real_wpm_tokens_by_hand():
    raw = real(WPM)
    tokens = {t["id"]: t for t in convert(raw)["scene"]["tokens"]}
    # Gynosphinx: left 2065, top 2485 (centre), 70 x 70 px on a 35 px grid, light_radius 120
    sphinx = tokens["-KdtE7LSivv7ZbF6LRXE"]
    assert sphinx == {
        "id": "-KdtE7LSivv7ZbF6LRXE",
        "name": "Gynosphinx",
        "x": 2030,
        "y": 2450,
        "width": 2,
        "height": 2,
        "elevation": 0,
        "size": "large",
        "reach": 10,
        "senses": {
            "darkvision": 120,
            "devils_sight": 0,
            "truesight": 0,
            "blindsight": 0,
            "tremorsense": 0,
            "xray": 0,
            "low_light_vision": False,
            "see_invisibility": 0,
            "hearing": None,
        },
        "conditions": [],
        "swim_speed": 0,
        "abilities": {"str": 0, "dex": 0, "con": 0},
        "light": {"bright": 0, "dim": 0, "seen_by": "everyone"},
        "hidden": False,
    }
    # first graphic: an unnamed GM-layer marker (centre (1435, 2765), 70 px) that represents
    # no character: not a creature, so not a token (issue 15)
    assert "-KdtA7i3vge7xTsvW5Dq" not in tokens
    first_creature = next(g for g in raw_page(raw)["graphics"] if creature(g))
    assert first_creature["id"] == next(iter(tokens))
    from_raw = Counter(
        int(g["light_radius"]) if lit(g) else 0 for g in raw_page(raw)["graphics"] if creature(g)
    )
    assert from_raw == {0: 16, 60: 30, 30: 7, 120: 6}
    assert Counter(t["senses"]["darkvision"] for t in tokens.values()) == from_raw


def test_real_toh_rotated_markers_are_not_creatures():
    """Issue 15: ToH's rotated GM-layer markers (graphics 19-29, 23.88 x 47.76 px, no name,
    no character, no bar) are not creatures; the warning names them."""
    result = convert(real(TOH))
    tokens = {t["id"]: t for t in result["scene"]["tokens"]}
    assert not tokens.keys() & {"-Kcx89uQ9WlzyRTMD2XJ", "-Kcx8TgcbMEC-eY2Cmp2"}
    skipped = next(w for w in result["warnings"] if "are not creatures" in w)
    assert skipped.startswith(
        "maps[0].graphics: 79 graphics on the GM layer are not creatures (no represented "
        "character, bar value or name), skipped: -Kcx3-eg7zoOkmuQ1mdh, -Kcx3_WJ8S6hc9jnBcM7, "
    )
    assert skipped.endswith(", ...")  # the first 12 ids are named
    gargoyle = tokens["-Kcyi0VWZuTE7Yqzwrys"]
    assert (gargoyle["x"], gargoyle["y"], gargoyle["width"], gargoyle["hidden"]) == (
        1085,
        525,
        1,
        False,
    )
    assert gargoyle["senses"]["darkvision"] == 60


def test_real_toh_walls_layer_lights():
    raw = real(TOH)
    page = raw_page(raw)
    lights = convert(raw)["scene"]["lights"]
    expected = [
        {
            "id": g["id"],
            "x": g["left"],
            "y": g["top"],
            "bright": int(g["light_radius"]),
            "dim": int(g["light_radius"]),
            "angle": 360,
            "rotation": 0,
            "darkness": False,
            "walls": True,
            "seen_by": "everyone",  # light_otherplayers true
        }
        for g in page["graphics"]
        if g["layer"] == "walls"
    ]
    assert lights == expected
    assert lights[0]["id"] == "-KcyeU64wEVs5WOnbgJS"
    assert (lights[0]["x"], lights[0]["y"], lights[0]["dim"]) == (437.5, 157.5, 85)


@pytest.mark.parametrize("name, count", [(WPM, 43), (TOH, 28)])
def test_real_private_lights_as_light_stay_private(name, count):
    """Issue 15: every monster light of the modules is light_otherplayers false; read as a
    light, it is seen by its controllers only, never a public light (none lights 30-120 ft
    around a monster for everyone)."""
    result = convert(real(name), private_lights="light")
    tokens = result["scene"]["tokens"]
    lit_tokens = [t for t in tokens if t["light"]["dim"] > 0]
    assert len(lit_tokens) == count
    assert {t["light"]["seen_by"] for t in lit_tokens} == {"controllers"}
    assert {t["senses"]["darkvision"] for t in tokens} == {0}
    assert (
        f"maps[0].graphics: {count} token lights seen only by their controllers "
        "(light_otherplayers false) kept as private lights (seen_by controllers): they light "
        "nothing for anyone else"
    ) in result["warnings"]
    if name == WPM:
        sphinx = next(t for t in tokens if t["name"] == "Gynosphinx")
        assert sphinx["light"] == {"bright": 120, "dim": 120, "seen_by": "controllers"}


REAL_WARNINGS = [
    pytest.param(
        WPM,
        [
            "maps[0].paths: 5 zero-length segments (repeated points) skipped: maps[0].paths[6] "
            "(1), maps[0].paths[7] (1), maps[0].paths[9] (1), maps[0].paths[10] (1), "
            "maps[0].paths[30] (1)",
            "maps[0].paths: wall strokes use 2 colours (#ff0000 x24, #00ff00 x18); colour "
            "conventions (doors, secret passages) are not mapped",
            "maps[0].graphics: 43 legacy lights seen only by their controllers "
            "(light_otherplayers false, light_hassight true) read as the token's own darkvision",
            "maps[0].graphics: 34 graphics on the GM layer are not creatures (no represented "
            "character, bar value or name), skipped: -KdtA7i3vge7xTsvW5Dq, -KdtAB8Jrlb9f-YlEQ0U, "
            "-KdtACtH4Yg34leLIHi2, -KdtAGhQ6TJcrQKPLPIe, -KdtAJGxXhetreidianu, "
            "-KdtAKiCdZAA5yBFQE7j, -KdtAMuWiqMVvsU878pv, -KdtAYhdB6gia_Fxst4E, "
            "-KdtAauRRA3xY5YQMBn1, -KdtAfVPXq1ShVoDC7BN, -KdtAhhUCBOsOFpzoUz1, "
            "-KdtAjKe2EzUq_GnLwwD, ...",
            "maps[0].graphics: conditions, abilities and swim speed live on Roll20 characters, "
            "not on the page; defaults used",
            "maps[0].graphics: 4 graphics on the map layer (map images) not mapped "
            "(indices 30, 31, 32, 93)",
        ],
        id="wpm",
    ),
    pytest.param(
        TOH,
        [
            "maps[0].paths: 7 zero-length segments (repeated points) skipped: maps[0].paths[6] "
            "(1), maps[0].paths[32] (1), maps[0].paths[63] (1), maps[0].paths[89] (1), "
            "maps[0].paths[109] (1), maps[0].paths[125] (1), maps[0].paths[139] (1)",
            "maps[0].paths: wall strokes use 2 colours (#0000ff x284, #ff9900 x65); colour "
            "conventions (doors, secret passages) are not mapped",
            "maps[0].graphics: 28 legacy lights seen only by their controllers "
            "(light_otherplayers false, light_hassight true) read as the token's own darkvision",
            "maps[0].graphics: 79 graphics on the GM layer are not creatures (no represented "
            "character, bar value or name), skipped: -Kcx3-eg7zoOkmuQ1mdh, -Kcx3_WJ8S6hc9jnBcM7, "
            "-Kcx3m5sbBvoYTalT2W2, -Kcx3nHFjk53JMd9oAqT, -Kcx3pvVF7DauwYTCSF9, "
            "-Kcx3sbUp_BM06JuXhGS, -Kcx3xbM9sAg19L8Z9oC, -Kcx3z6q5jNBkZbT1-2U, "
            "-Kcx40IDHkibeH_E_b22, -Kcx44Wpy_50Oo_wS0ST, -Kcx45the4wLy6H9YJ_9, "
            "-Kcx6AQm36BkqeUrzt8c, ...",
            "maps[0].graphics: conditions, abilities and swim speed live on Roll20 characters, "
            "not on the page; defaults used",
            "maps[0].graphics: 17 graphics on the map layer (map images) not mapped "
            "(indices 87, 88, 90, 91, 92, 114, 115, 116, 117, 119, 120, 121, ...)",
        ],
        id="toh",
    ),
]


@pytest.mark.parametrize("name, warnings", REAL_WARNINGS)
def test_real_warnings(name, warnings):
    assert convert(real(name))["warnings"] == warnings


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_scene_answers_a_cover_query(name):
    result = to_scene(real(name))
    scene = SceneSchema().load(result["scene"])
    assert len(scene.tokens) >= 2
    answer = cover_one(RULESET, build_scene(scene), scene.tokens[0], scene.tokens[1], Attack(), {})
    assert answer.cover in RULESET.cover_degrees
    assert answer.target == scene.tokens[1].id


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_result_is_json_and_input_untouched(name):
    result = assert_json_and_input_untouched(to_scene, real(name))
    assert "imgsrc" not in json.dumps(result)


def test_real_page_chosen_by_name_and_index():
    raw = real(WPM)
    base = convert(raw)
    assert convert(raw, page="White Plume Mountain") == base
    assert convert(raw, page=0) == base
    assert convert(raw, page="0") == base
    with pytest.raises(AdapterError) as info:
        to_scene(raw, page=1)
    assert info.value.message == (
        "page index 1 is out of range: expected 0 to 0 (0: 'White Plume Mountain')"
    )


# --------------------------------------------------------------------------- hand-made pages


def attrs(**kw) -> dict:
    out = {
        "name": "Test",
        "width": 10,
        "height": 8,
        "snapping_increment": 1,
        "scale_number": 5,
        "scale_units": "ft",
        "grid_type": "square",
        "diagonaltype": "foure",
        "showlighting": False,
    }
    out.update(kw)
    return out


def module(paths=(), graphics=(), text=(), pages=None, **page_attrs) -> dict:
    """betteR20 module export with one map (or the given map entries)."""
    if pages is None:
        pages = [
            {
                "attributes": attrs(**page_attrs),
                "graphics": list(graphics),
                "paths": list(paths),
                "text": list(text),
            }
        ]
    return {"schema_version": 1, "maps": pages}


def exporter(paths=(), graphics=(), doors=(), windows=(), **page_attrs) -> dict:
    """R20Exporter campaign.json with one page (paths as parsed arrays)."""
    page = dict(attrs(**page_attrs), id="page1")
    page.update(
        paths=list(paths),
        graphics=list(graphics),
        texts=[],
        doors=list(doors),
        windows=list(windows),
        zorder=[],
    )
    return {"R20Exporter_format": "1.0", "campaign_title": "T", "pages": [page]}


def path(points, left, top, width=None, height=None, *, as_string=True, **kw) -> dict:
    """A walls-layer path; ``points`` are (cmd, x, y, ...) tuples or (x, y) pairs."""
    cmds = []
    for k, p in enumerate(points):
        if isinstance(p[0], str):
            cmds.append(list(p))
        else:
            cmds.append(["M" if k == 0 else "L", *p])
    doc = {
        "id": kw.pop("id", "p0"),
        "type": "path",
        "layer": kw.pop("layer", "walls"),
        "path": json.dumps(cmds) if as_string else cmds,
        "left": left,
        "top": top,
        "scaleX": 1,
        "scaleY": 1,
        "rotation": 0,
        "stroke": "#000000",
        "fill": "transparent",
    }
    if width is not None:
        doc["width"] = width
    if height is not None:
        doc["height"] = height
    doc.update(kw)
    return doc


def graphic(**kw) -> dict:
    doc = {
        "id": "g0",
        "type": "image",
        "name": "Orc",
        "represents": "-charOrc",
        "layer": "objects",
        "left": 105,
        "top": 105,
        "width": 70,
        "height": 70,
        "rotation": 0,
        "isdrawing": False,
        "statusmarkers": "",
        "light_radius": "",
        "light_dimradius": "",
        "light_angle": "",
        "light_otherplayers": False,
        "light_hassight": False,
        "light_multiplier": 1,
    }
    doc.update(kw)
    return doc


def walls_of(doc, **kw) -> list:
    return convert(doc, **kw)["scene"]["walls"]


def token_of(doc, **kw) -> dict:
    return convert(doc, **kw)["scene"]["tokens"][0]


def test_left_top_are_the_centre_of_the_box():
    # points (0,0) and (10,20) in a 10 x 20 box centred on (105, 210)
    walls = walls_of(module([path([(0, 0), (10, 20)], 105, 210, 10, 20)]))
    assert [w["c"] for w in walls] == [[100, 200, 110, 220]]
    assert walls[0]["id"] == "p0-0"


def test_path_as_json_string_and_as_array_give_the_same_walls():
    shape = [(0, 0), (100, 0), (100, 50)]
    as_string = walls_of(module([path(shape, 50, 25, 100, 50, as_string=True)]))
    as_array = walls_of(exporter([path(shape, 50, 25, 100, 50, as_string=False)]))
    assert as_string == as_array
    assert [w["c"] for w in as_string] == [[0, 0, 100, 0], [100, 0, 100, 50]]
    assert [w["id"] for w in as_string] == ["p0-0", "p0-1"]


TRANSFORMS = [
    pytest.param({}, [450, 300, 550, 300], id="plain"),
    pytest.param({"rotation": 90}, [500, 250, 500, 350], id="rotation-90"),
    pytest.param({"rotation": 180}, [550, 300, 450, 300], id="rotation-180"),
    pytest.param({"rotation": -90}, [500, 350, 500, 250], id="rotation-minus-90"),
    pytest.param({"scaleX": 2}, [400, 300, 600, 300], id="scaleX-2"),
    pytest.param({"scaleX": 0.5, "scaleY": 3}, [475, 300, 525, 300], id="scale-half"),
    pytest.param({"scaleX": "2"}, [400, 300, 600, 300], id="scale-as-string"),
    pytest.param({"rotation": 90, "scaleX": 2}, [500, 200, 500, 400], id="scale-then-rotate"),
]


@pytest.mark.parametrize("fields, c", TRANSFORMS)
def test_rotation_and_scale_about_the_centre(fields, c):
    # local (0,0)-(100,0), box 100 x 0 centred on (500, 300)
    walls = walls_of(module([path([(0, 0), (100, 0)], 500, 300, 100, 0, **fields)]))
    assert walls[0]["c"] == pytest.approx(c, abs=1e-6)


def test_rotation_45_by_hand():
    walls = walls_of(module([path([(0, 0), (100, 0)], 500, 300, 100, 0, rotation=45)]))
    h = 50 / math.sqrt(2)
    assert walls[0]["c"] == pytest.approx([500 - h, 300 - h, 500 + h, 300 + h], abs=1e-6)


def test_quadratic_curve_is_flattened_with_one_warning():
    # Q from (0,0), control (50,100), to (100,0); box 100 x 50 centred on (50, 25)
    doc = module([path([("M", 0, 0), ("Q", 50, 100, 100, 0)], 50, 25, 100, 50)])
    result = convert(doc)
    cs = [w["c"] for w in result["scene"]["walls"]]
    assert len(cs) == CURVE_SEGMENTS == 4
    points = [v for c in [cs[0][:2]] + [c[2:] for c in cs] for v in c]
    assert points == pytest.approx([0, 0, 25, 37.5, 50, 50, 75, 37.5, 100, 0])
    assert result["warnings"] == [
        "maps[0].paths[0].path: 1 curves (Q/C) flattened into 4 segments each"
    ]


def test_cubic_curves_and_lines_in_one_path():
    doc = module(
        [
            path(
                [
                    ("M", 0, 0),
                    ("C", 0, 100, 100, 100, 100, 0),
                    ("L", 200, 0),
                    ("C", 200, 0, 300, 0, 300, 0),
                ],
                150,
                37.5,
                300,
                75,
            )
        ]
    )
    result = convert(doc)
    walls = result["scene"]["walls"]
    # cubic midpoint: 1/8 P0 + 3/8 C1 + 3/8 C2 + 1/8 P3 = (50, 75)
    assert walls[1]["c"][2:] == pytest.approx([50, 75])
    assert walls[3]["c"][2:] == [100, 0]
    assert walls[4]["c"] == [100, 0, 200, 0]
    assert len(walls) == 4 + 1 + 4
    assert [w["id"] for w in walls][-1] == "p0-8"
    assert result["warnings"] == [
        "maps[0].paths[0].path: 2 curves (Q/C) flattened into 4 segments each"
    ]


def test_several_subpaths_and_close_command():
    doc = module(
        [
            path(
                [("M", 0, 0), ("L", 10, 0), ("L", 10, 10), ("Z",), ("M", 20, 0), ("L", 30, 0)],
                15,
                5,
                30,
                10,
            )
        ]
    )
    cs = [w["c"] for w in walls_of(doc)]
    assert cs == [[0, 0, 10, 0], [10, 0, 10, 10], [10, 10, 0, 0], [20, 0, 30, 0]]


def test_zero_length_segments_skipped_with_a_warning_and_stable_ids():
    doc = module([path([(0, 0), (0, 0), (10, 0)], 5, 0, 10, 0)])
    result = convert(doc)
    assert [(w["id"], w["c"]) for w in result["scene"]["walls"]] == [("p0-1", [0, 0, 10, 0])]
    assert result["warnings"] == [
        "maps[0].paths: 1 zero-length segments (repeated points) skipped: maps[0].paths[0] (1)"
    ]


def test_missing_box_size_uses_the_points_extent():
    result = convert(module([path([(10, 10), (30, 10)], 100, 100)]))
    assert result["scene"]["walls"][0]["c"] == [90, 100, 110, 100]
    assert result["warnings"] == [
        "maps[0].paths[0].width: missing, box centre taken from the points' extent",
        "maps[0].paths[0].height: missing, box centre taken from the points' extent",
    ]


BAD_PATHS = [
    pytest.param(
        {"path": '[["M",0,0],["L",10'},
        "maps[0].paths[0].path: not valid JSON, path skipped",
        id="truncated-json-string",
    ),
    pytest.param(
        {"path": 5},
        "maps[0].paths[0].path: int is not a list of commands, path skipped",
        id="path-number",
    ),
    pytest.param(
        {"left": "x"},
        "maps[0].paths[0].left: 'x' is not a number, ignored",
        id="left-not-a-number",
    ),
    pytest.param(
        {"path": None, "shape": "pol", "points": "[[0,0],[1,1]]"},
        "maps[0].paths[0]: pathv2 shapes (shape/points) are not supported, path skipped",
        id="pathv2",
    ),
    pytest.param(
        {"path": "[]"},
        "maps[0].paths[0].path: no points, path skipped",
        id="no-points",
    ),
]


@pytest.mark.parametrize("fields, first_warning", BAD_PATHS)
def test_unreadable_paths_are_skipped_with_a_warning(fields, first_warning):
    raw = path([(0, 0), (10, 0)], 5, 0, 10, 0)
    raw.update(fields)
    result = convert(module([raw]))
    assert result["scene"]["walls"] == []
    assert result["warnings"][0] == first_warning


def test_bad_commands_break_the_line():
    doc = module(
        [path([("M", 0, 0), ("L", 10, 0), ("X", 1, 1), ("L", 20, 0), ("L", 30, 0)], 15, 0, 30, 0)]
    )
    result = convert(doc)
    assert [w["c"] for w in result["scene"]["walls"]] == [[0, 0, 10, 0], [20, 0, 30, 0]]
    assert result["warnings"] == [
        "maps[0].paths[0].path: 1 unreadable commands skipped (indices 2); the line restarts "
        "after each"
    ]


BARRIERS = [
    pytest.param({}, ("normal", "normal", "both"), [], id="default-wall"),
    pytest.param({"barrierType": "wall"}, ("normal", "normal", "both"), [], id="wall"),
    pytest.param(
        {"barrierType": "oneWay"},
        ("normal", "normal", "left"),
        [
            "maps[0].paths: 1 one-way barriers block from the left of their drawing direction "
            "(right when oneWayReversed); Roll20's side convention is unverified"
        ],
        id="one-way",
    ),
    pytest.param(
        {"barrierType": "oneWay", "oneWayReversed": True},
        ("normal", "normal", "right"),
        [
            "maps[0].paths: 1 one-way barriers block from the left of their drawing direction "
            "(right when oneWayReversed); Roll20's side convention is unverified"
        ],
        id="one-way-reversed",
    ),
    pytest.param({"barrierType": "transparent"}, ("normal", "none", "both"), [], id="transparent"),
    pytest.param(
        {"barrierType": "glass"},
        ("normal", "normal", "both"),
        ["maps[0].paths[0].barrierType: unknown value 'glass', normal wall used"],
        id="unknown",
    ),
]


@pytest.mark.parametrize("fields, expected, warnings", BARRIERS)
def test_barrier_types(fields, expected, warnings):
    result = convert(module([path([(0, 0), (100, 0)], 50, 0, 100, 0, **fields)]))
    wall = result["scene"]["walls"][0]
    assert (wall["move"], wall["sight"], wall["direction"]) == expected
    assert wall["light"] == wall["sight"]
    assert wall["c"] == [0, 0, 100, 0]  # endpoint order kept: it decides the one-way side
    assert result["warnings"] == warnings


def test_paths_on_other_layers_are_drawings():
    doc = module([path([(0, 0), (1, 0)], 0, 0, 1, 0, layer="map", id="d1")])
    result = convert(doc)
    assert result["scene"]["walls"] == []
    assert result["warnings"] == [
        "maps[0].paths: 1 drawings on the map layer (map images) not mapped (indices 0)"
    ]


def test_null_entries_are_skipped_with_warnings():
    doc = module(
        [None, path([(0, 0), (10, 0)], 5, 0, 10, 0), 7],
        [None, graphic(), "x"],
        text=[None],
    )
    result = convert(doc)
    assert len(result["scene"]["walls"]) == 1
    assert len(result["scene"]["tokens"]) == 1
    assert result["warnings"] == [
        "maps[0].paths[0]: null entry skipped",
        "maps[0].paths[2]: int entry skipped",
        "maps[0].graphics[0]: null entry skipped",
        "maps[0].graphics[2]: str entry skipped",
        "maps[0].graphics: conditions, abilities and swim speed live on Roll20 characters, "
        "not on the page; defaults used",
        "maps[0].text: 1 text objects not mapped",
    ]


# --------------------------------------------------------------------------- UDL doors, windows


def door(**kw) -> dict:
    doc = {
        "id": "d0",
        "x": 200,
        "y": 100,
        "isOpen": False,
        "isLocked": False,
        "isSecret": False,
        "path": {"handle0": {"x": -35, "y": 0}, "handle1": {"x": 35, "y": 0}},
    }
    doc.update(kw)
    return doc


DOORS = [
    pytest.param({}, ("door", "closed"), [], id="closed"),
    pytest.param({"isOpen": True}, ("door", "open"), [], id="open"),
    pytest.param({"isLocked": True}, ("door", "locked"), [], id="locked"),
    pytest.param({"isSecret": True, "isLocked": True}, ("secret", "locked"), [], id="secret"),
    pytest.param(
        {"isOpen": True, "isLocked": True},
        ("door", "open"),
        ["pages[0].doors[0]: both isOpen and isLocked, open used"],
        id="open-and-locked",
    ),
    pytest.param({"isOpen": "true"}, ("door", "open"), [], id="string-true"),
]


@pytest.mark.parametrize("fields, expected, warnings", DOORS)
def test_udl_doors(fields, expected, warnings):
    result = convert(exporter(doors=[door(**fields)]))
    wall = result["scene"]["walls"][0]
    assert wall["c"] == [165, 100, 235, 100]
    assert (wall["door"], wall["door_state"]) == expected
    assert (wall["move"], wall["sight"], wall["light"]) == ("normal", "normal", "normal")
    assert result["stats"]["doors"] == 1
    assert result["warnings"] == warnings


def test_udl_windows_and_negative_y():
    doc = exporter(
        windows=[door(id="w0"), door(id="w1", isOpen=True)],
        doors=[door(y=-100, path='{"handle0":{"x":0,"y":-35},"handle1":{"x":0,"y":35}}')],
    )
    result = convert(doc)
    walls = {w["id"]: w for w in result["scene"]["walls"]}
    assert walls["d0"]["c"] == [200, 135, 200, 65]
    assert (walls["w0"]["move"], walls["w0"]["sight"], walls["w0"]["light"]) == (
        "normal",
        "none",
        "none",
    )
    assert walls["w0"]["door"] == "none"
    assert (walls["w1"]["move"], walls["w1"]["sight"]) == ("none", "none")
    assert result["stats"]["doors"] == 1
    assert result["warnings"] == [
        "pages[0].doors: 1 negative y read as stored upward and negated (unverified Roll20 "
        "convention)"
    ]


def test_udl_door_without_handles_is_skipped():
    result = convert(exporter(doors=[door(path=None), None]))
    assert result["scene"]["walls"] == []
    assert result["warnings"] == [
        "pages[0].doors[0]: needs numeric x, y and path.handle0/handle1 {x, y}, door skipped",
        "pages[0].doors[1]: null entry skipped",
    ]


def test_r20exporter_layout_stats_and_prefix():
    result = convert(exporter([path([(0, 0), (70, 0)], 35, 0, 70, 0, as_string=False)]))
    assert result["stats"]["roll20_format"] == "R20Exporter"
    assert result["stats"]["page"] == "Test"
    assert len(result["scene"]["walls"]) == 1


def test_single_page_entries_are_accepted():
    page = module([path([(0, 0), (70, 0)], 35, 0, 70, 0)])["maps"][0]
    assert convert(page)["stats"]["roll20_format"] == "betteR20"
    flat = exporter([path([(0, 0), (70, 0)], 35, 0, 70, 0)])["pages"][0]
    result = convert(flat)
    assert result["stats"]["roll20_format"] == "R20Exporter"
    assert result["stats"]["page_index"] is None
    with pytest.raises(AdapterError, match="single page"):
        to_scene(flat, page="Other")


# --------------------------------------------------------------------------- grid and page


GRIDS = [
    pytest.param({}, (70, 5, "ft", "square", "equidistant"), [], id="defaults"),
    pytest.param(
        {"snapping_increment": 0.5}, (35, 5, "ft", "square", "equidistant"), [], id="snapping-0.5"
    ),
    pytest.param(
        {"snapping_increment": "2"},
        (140, 5, "ft", "square", "equidistant"),
        [],
        id="snapping-string",
    ),
    pytest.param(
        {"snapping_increment": 0},
        (70, 5, "ft", "square", "equidistant"),
        [
            "maps[0].attributes.snapping_increment: 0 gives no usable cell size (0 = snapping "
            "off), 1 used (70 px squares)"
        ],
        id="snapping-0",
    ),
    pytest.param(
        {"snapping_increment": 1e-300},
        (70, 5, "ft", "square", "equidistant"),
        [
            "maps[0].attributes.snapping_increment: 1e-300 gives no usable cell size (0 = "
            "snapping off), 1 used (70 px squares)"
        ],
        id="snapping-tiny",
    ),
    pytest.param(
        {"scale_number": "10"}, (70, 10, "ft", "square", "equidistant"), [], id="scale-string"
    ),
    pytest.param(
        {"scale_number": -5},
        (70, 5, "ft", "square", "equidistant"),
        ["maps[0].attributes.scale_number: -5 is not a usable distance, 5 used"],
        id="scale-negative",
    ),
    pytest.param({"scale_units": "m"}, (70, 5, "m", "square", "equidistant"), [], id="metres"),
    pytest.param({"scale_units": "Feet"}, (70, 5, "ft", "square", "equidistant"), [], id="feet"),
    pytest.param(
        {"scale_units": "mi"},
        (70, 5, "squares", "square", "equidistant"),  # GEO-8: an unknown unit counts spaces
        [
            "maps[0].attributes.scale_units: 'mi' is not feet or metres: the scene counts in "
            "spaces, 1 space = 5 ft (GEO-8)"
        ],
        id="miles",
    ),
    # FORMATS.md pitfall 12: "hex" is Roll20's Hex (V), pointy-topped hexagons in rows ->
    # hex-row; "hexr" its Hex (H), flat-topped hexagons in columns -> hex-col. The size is
    # the px between neighbouring centres (Roll20: 75.1986 / 79.6888 px per 70 px unit); the
    # warning gives the drift of regular hexagons from Roll20's stretched ones on this
    # 10 x 8 unit page (560 px tall: 560 * (66.9658 - 65.1239) / 66.9658 = 15 px)
    pytest.param(
        {"grid_type": "hex"},
        (75.1986, 5, "ft", "hex-row", "equidistant"),
        [
            "maps[0].attributes.grid_type: Roll20 draws its rows of hexagons 66.97 px apart, "
            "where regular hexagons 75.1986 px apart along a row would be 65.12 px apart: the "
            "canonical (regular) lattice drifts from Roll20's, by up to 15 px at the bottom of "
            "the page"
        ],
        id="hex",
    ),
    pytest.param(
        {"grid_type": "hexr", "snapping_increment": 0.5},
        (39.8444, 5, "ft", "hex-col", "equidistant"),
        [
            "maps[0].attributes.grid_type: Roll20 draws its columns of hexagons 34.79 px apart, "
            "where regular hexagons 39.8444 px apart along a column would be 34.51 px apart: "
            "the canonical (regular) lattice drifts from Roll20's, by up to 6 px at the right "
            "of the page"
        ],
        id="hexr",
    ),
    pytest.param(
        {"grid_type": " HexR ", "width": None},
        (79.6888, 5, "ft", "hex-col", "equidistant"),
        [
            "maps[0].attributes.grid_type: Roll20 draws its columns of hexagons 69.59 px apart, "
            "where regular hexagons 79.6888 px apart along a column would be 69.01 px apart: "
            "the canonical (regular) lattice drifts from Roll20's",
            "maps[0].attributes.width: None is not a page size, size unknown (null)",
        ],
        id="hexr-spelling-no-width",
    ),
    pytest.param(
        {"grid_type": "iso"},
        (70, 5, "ft", "square", "equidistant"),
        ["maps[0].attributes.grid_type: unknown grid type 'iso', square used"],
        id="unknown-grid",
    ),
    # GEO-8: diagonaltype -> the scene's rule; not said -> None (each ruleset's default)
    pytest.param({"diagonaltype": "foure"}, (70, 5, "ft", "square", "equidistant"), [], id="foure"),
    pytest.param(
        {"diagonaltype": "pythagorean"}, (70, 5, "ft", "square", "euclidean"), [], id="pythagorean"
    ),
    pytest.param(
        {"diagonaltype": "threefive"}, (70, 5, "ft", "square", "alternating"), [], id="threefive"
    ),
    pytest.param(
        {"diagonaltype": "manhattan"},
        (70, 5, "ft", "square", "alternating"),
        [
            "maps[0].attributes.diagonaltype: manhattan (a diagonal step counts two squares) "
            "has no canonical rule; alternating (5-10-5), the nearest, used"
        ],
        id="manhattan",
    ),
    pytest.param({"diagonaltype": None}, (70, 5, "ft", "square", None), [], id="diagonal-null"),
    pytest.param({"diagonaltype": ""}, (70, 5, "ft", "square", None), [], id="diagonal-empty"),
    pytest.param(
        {"diagonaltype": 3},
        (70, 5, "ft", "square", None),
        ["maps[0].attributes.diagonaltype: unknown value 3, left unset (each ruleset's default)"],
        id="diagonal-number",
    ),
    pytest.param(
        {"diagonaltype": "hex"},
        (70, 5, "ft", "square", None),
        [
            "maps[0].attributes.diagonaltype: unknown value 'hex', left unset (each ruleset's "
            "default)"
        ],
        id="diagonal-unknown",
    ),
    pytest.param({"scale_units": "M"}, (70, 5, "m", "square", "equidistant"), [], id="M"),
    pytest.param(
        {"scale_units": " metres "}, (70, 5, "m", "square", "equidistant"), [], id="metres-spelt"
    ),
    pytest.param({"scale_units": "meter"}, (70, 5, "m", "square", "equidistant"), [], id="meter"),
]


@pytest.mark.parametrize("fields, expected, warnings", GRIDS)
def test_grid_fields(fields, expected, warnings):
    """Page grid -> canonical grid (FORMATS.md B.1, pitfall 12; RULES.md GEO-8)."""
    result = convert(module(**fields))
    g = result["scene"]["grid"]
    assert (g["size"], g["distance"], g["units"], g["type"], g["diagonals"]) == expected
    assert result["warnings"] == warnings


def test_diagonaltype_absent_is_unset():
    """GEO-8: a page that does not say how diagonals count leaves the rule unset (None)."""
    doc = module()
    del doc["maps"][0]["attributes"]["diagonaltype"]
    result = convert(doc)
    assert result["scene"]["grid"]["diagonals"] is None
    assert SceneSchema().load(result["scene"]).grid.diagonals is None


@pytest.mark.parametrize("grid_type", ["hex", "hexr"])
def test_hex_offset_as_roll20_draws_it(grid_type):
    """Roll20 draws a whole hexagon in the page's top-left corner and pushes the odd rows
    (hex) or columns (hexr) further in: the canonical lattice (origin at the scene's (0, 0))
    whose row 0 starts with a whole hexagon, ``hex_offset`` "even" (FORMATS.md pitfall 12),
    where the model has the field; no such key else."""
    grid = convert(module(grid_type=grid_type))["scene"]["grid"]
    if "hex_offset" in Grid.__struct_fields__:
        assert grid["hex_offset"] == "even"
    else:
        assert "hex_offset" not in grid
    assert "hex_offset" not in convert(module())["scene"]["grid"]


# grid_type, graphic centre and size (px) -> token x, y (px), width, height (hexagons)
HEX_TOKENS = [
    # hex-row, size 75.1986: box 75.1986 wide, 2 * 75.1986 / sqrt 3 = 86.8319 tall
    pytest.param("hex", (105, 105, 70), (105 - 75.1986 / 2, 105 - 86.8319 / 2, 1, 1), id="row-1"),
    # two hexagons: 2 widths by (0.75 + 0.25 + 0.75 * 1) ... = 1.75 heights
    pytest.param(
        "hex", (300, 300, 140), (300 - 75.1986, 300 - 1.75 * 86.8319 / 2, 2, 2), id="row-2"
    ),
    # hex-col, size 79.6888: box 2 * 79.6888 / sqrt 3 = 92.0167 wide, 79.6888 tall
    pytest.param("hexr", (105, 105, 70), (105 - 92.0167 / 2, 105 - 79.6888 / 2, 1, 1), id="col-1"),
]


@pytest.mark.parametrize("grid_type, graphic_box, expected", HEX_TOKENS)
def test_tokens_on_hex_pages_count_hexagons_and_keep_their_centre(grid_type, graphic_box, expected):
    """A Roll20 graphic is sized in 70 px units (x snapping): whole hexagons; its top-left
    corner is placed so that the canonical hex token box is centred on the graphic."""
    left, top, px = graphic_box
    doc = module(grid_type=grid_type, graphics=[graphic(left=left, top=top, width=px, height=px)])
    tok = token_of(doc)
    assert (tok["x"], tok["y"], tok["width"], tok["height"]) == pytest.approx(expected, abs=1e-3)


def test_page_size_is_70_px_units_whatever_the_snapping():
    scene = convert(module(snapping_increment=0.5, width=64, height="42"))["scene"]
    assert (scene["width"], scene["height"]) == (64 * 70, 42 * 70)
    assert scene["grid"]["size"] == 35


def test_missing_page_size_is_null_with_warning():
    doc = module()
    del doc["maps"][0]["attributes"]["width"]
    result = convert(doc)
    assert result["scene"]["width"] is None
    assert result["warnings"] == [
        "maps[0].attributes.width: None is not a page size, size unknown (null)"
    ]


ENVIRONMENTS = [
    pytest.param({}, "bright", "off", id="lighting-off"),
    pytest.param({"showlighting": None}, "bright", "off", id="missing-showlighting"),
    pytest.param({"showlighting": True}, "dark", "legacy", id="legacy-dark"),
    pytest.param(
        {"showlighting": True, "lightglobalillum": True},
        "bright",
        "legacy",
        id="legacy-global-illumination",
    ),
    pytest.param({"dynamic_lighting_enabled": True}, "dark", "updated", id="udl-dark"),
    pytest.param(
        {"dynamic_lighting_enabled": True, "daylight_mode_enabled": True},
        "bright",
        "updated",
        id="udl-daylight",
    ),
    pytest.param(
        {
            "dynamic_lighting_enabled": True,
            "daylight_mode_enabled": True,
            "daylightModeOpacity": 0.5,
        },
        "dim",
        "updated",
        id="udl-daylight-half",
    ),
    pytest.param(
        {
            "dynamic_lighting_enabled": True,
            "daylight_mode_enabled": True,
            "daylightModeOpacity": 10,
        },
        "dark",
        "updated",
        id="udl-daylight-percent",
    ),
]


@pytest.mark.parametrize("fields, light, mode", ENVIRONMENTS)
def test_environment_from_page_lighting(fields, light, mode):
    doc = module(**fields)
    if fields.get("showlighting", False) is None:
        del doc["maps"][0]["attributes"]["showlighting"]
    result = convert(doc)
    assert result["scene"]["environment"] == {"light": light, "gravity": 1, "underwater": False}
    assert result["stats"]["lighting"] == mode


# --------------------------------------------------------------------------- graphics


def test_token_centre_becomes_top_left_and_px_become_squares():
    tok = token_of(
        module(graphics=[graphic(left=105, top=140, width=70, height=140)], snapping_increment=0.5)
    )
    assert (tok["x"], tok["y"], tok["width"], tok["height"]) == (70, 70, 2, 4)
    assert tok["size"] == "large"
    assert tok["hidden"] is False
    assert tok["reach"] == 5


def test_gm_layer_tokens_are_hidden_and_other_layers_are_not_tokens():
    doc = module(
        graphics=[
            graphic(id="a", layer="gmlayer"),
            graphic(id="b", layer="map"),
            graphic(id="c", layer="foreground"),
            graphic(id="d", layer="walls"),
            graphic(id="e", isdrawing=True),
        ]
    )
    result = convert(doc)
    assert [(t["id"], t["hidden"]) for t in result["scene"]["tokens"]] == [("a", True)]
    assert result["warnings"][-4:] == [
        "maps[0].graphics: 1 graphics on the map layer (map images) not mapped (indices 1)",
        "maps[0].graphics: 1 graphics on the foreground layer not mapped (indices 2)",
        "maps[0].graphics: 1 graphics on the dynamic lighting layer not mapped (indices 3)",
        "maps[0].graphics: 1 drawings (isdrawing) on the token layers not mapped (indices 4)",
    ]


TOKEN_ROTATIONS = [
    pytest.param(0, (70, 105, 1, 2), [], id="0"),
    pytest.param(90, (35, 140, 2, 1), [], id="90"),
    pytest.param(270, (35, 140, 2, 1), [], id="270"),
    pytest.param(180, (70, 105, 1, 2), [], id="180"),
    pytest.param(
        45,
        (70, 105, 1, 2),
        ["maps[0].graphics[0].rotation: 45 deg, footprint kept axis-aligned"],
        id="45",
    ),
]


@pytest.mark.parametrize("rotation, box, warnings", TOKEN_ROTATIONS)
def test_token_rotation(rotation, box, warnings):
    doc = module(graphics=[graphic(left=105, top=175, width=70, height=140, rotation=rotation)])
    result = convert(doc)
    tok = result["scene"]["tokens"][0]
    assert (tok["x"], tok["y"], tok["width"], tok["height"]) == box
    assert result["warnings"][:-1] == warnings


# light_radius, light_dimradius -> (bright, dim)
LEGACY_LIGHTS = [
    pytest.param("", "", (0, 0), id="unset"),
    pytest.param(40, "", (40, 40), id="radius-only"),
    pytest.param("40", "", (40, 40), id="radius-string"),
    pytest.param(40, 20, (20, 40), id="dim-starts-at-20"),
    pytest.param("40", "20", (20, 40), id="both-strings"),
    pytest.param(40, 0, (0, 40), id="dim-from-0"),
    pytest.param(40, -5, (0, 40), id="negative-dim-only"),
    pytest.param(40, "-5", (0, 40), id="negative-dim-string"),
    pytest.param(40, 60, (40, 40), id="dim-beyond-radius"),
    pytest.param(0, "", (0, 0), id="zero-radius"),
]


@pytest.mark.parametrize("radius, dim_start, expected", LEGACY_LIGHTS)
def test_legacy_token_light(radius, dim_start, expected):
    doc = module(
        graphics=[graphic(light_radius=radius, light_dimradius=dim_start, light_otherplayers=True)],
        showlighting=True,
    )
    tok = token_of(doc)
    assert (tok["light"]["bright"], tok["light"]["dim"]) == expected
    assert tok["senses"]["darkvision"] == 0


def test_legacy_light_angle_on_a_token_warns():
    doc = module(graphics=[graphic(light_radius=30, light_otherplayers=True, light_angle="90")])
    result = convert(doc)
    assert result["scene"]["tokens"][0]["light"] == {"bright": 30, "dim": 30, "seen_by": "everyone"}
    assert result["warnings"][0] == (
        "maps[0].graphics[0]: light cone of 90 deg kept as an omnidirectional light"
    )


VISION_WARNING = (
    "maps[0].graphics: 1 legacy lights seen only by their controllers (light_otherplayers "
    "false, light_hassight true) read as the token's own darkvision"
)
PRIVATE_WARNING = (
    "maps[0].graphics: 1 token lights seen only by their controllers (light_otherplayers "
    "false) kept as private lights (seen_by controllers): they light nothing for anyone else"
)
# private_lights, light_hassight, light_otherplayers -> token light, darkvision, warning
PRIVATE = [
    pytest.param("vision", True, False, (0, 0, "everyone"), 60, VISION_WARNING, id="vision"),
    pytest.param("light", True, False, (0, 60, "controllers"), 0, PRIVATE_WARNING, id="light"),
    # no sight: not the darkvision idiom, a private light whatever the choice
    pytest.param("vision", False, False, (0, 60, "controllers"), 0, PRIVATE_WARNING, id="no-sight"),
    pytest.param(
        "vision", False, "false", (0, 60, "controllers"), 0, PRIVATE_WARNING, id="string-false"
    ),
    pytest.param("vision", False, 0, (0, 60, "controllers"), 0, PRIVATE_WARNING, id="zero"),
    # public, or not said: everyone sees it
    pytest.param("vision", True, True, (0, 60, "everyone"), 0, None, id="public"),
    pytest.param("vision", True, "", (0, 60, "everyone"), 0, None, id="unset"),
    pytest.param("vision", True, None, (0, 60, "everyone"), 0, None, id="null"),
]


@pytest.mark.parametrize("mode, sight, others, light, darkvision, warning", PRIVATE)
def test_private_legacy_lights(mode, sight, others, light, darkvision, warning):
    """Issue 15: a light only its controllers see is the token's darkvision (the pre-2020
    idiom: light_hassight, private_lights="vision") or a private light (``seen_by``
    "controllers"), never a light everybody sees."""
    g = graphic(
        light_radius="60", light_dimradius="-5", light_hassight=sight, light_otherplayers=others
    )
    result = convert(module(graphics=[g], showlighting=True), private_lights=mode)
    tok = result["scene"]["tokens"][0]
    assert (tok["light"]["bright"], tok["light"]["dim"], tok["light"]["seen_by"]) == light
    assert tok["senses"]["darkvision"] == darkvision
    private = [w for w in result["warnings"] if "seen only by their controllers" in w]
    assert private == ([] if warning is None else [warning])


def test_light_multiplier_is_low_light_vision():
    tok = token_of(module(graphics=[graphic(light_multiplier="2")]))
    assert tok["senses"]["low_light_vision"] is True


UDL = [
    pytest.param(
        {
            "emits_bright_light": True,
            "bright_light_distance": "20",
            "emits_low_light": True,
            "low_light_distance": "20",
        },
        {"bright": 20, "dim": 40, "seen_by": "everyone"},
        0,
        id="torch-strings",
    ),
    pytest.param(
        {"emits_low_light": True, "low_light_distance": 30},
        {"bright": 0, "dim": 30, "seen_by": "everyone"},
        0,
        id="low-only",
    ),
    pytest.param(
        {
            "emits_bright_light": True,
            "bright_light_distance": 15,
            "emits_low_light": False,
            "low_light_distance": 30,
        },
        {"bright": 15, "dim": 15, "seen_by": "everyone"},
        0,
        id="bright-only",
    ),
    pytest.param(
        {"emits_bright_light": False, "bright_light_distance": 15},
        {"bright": 0, "dim": 0, "seen_by": "everyone"},
        0,
        id="switched-off",
    ),
    pytest.param(
        {"has_night_vision": True, "night_vision_distance": "60"},
        {"bright": 0, "dim": 0, "seen_by": "everyone"},
        60,
        id="night-vision-string",
    ),
    pytest.param(
        {"has_night_vision": True, "night_vision_distance": ""},
        {"bright": 0, "dim": 0, "seen_by": "everyone"},
        0,
        id="night-vision-unset",
    ),
]


@pytest.mark.parametrize("fields, light, darkvision", UDL)
def test_updated_dynamic_lighting_fields(fields, light, darkvision):
    doc = module(graphics=[graphic(**fields)], dynamic_lighting_enabled=True)
    tok = token_of(doc)
    assert tok["light"] == light
    assert tok["senses"]["darkvision"] == darkvision


def test_udl_fields_win_over_legacy_ones_on_a_udl_page():
    g = graphic(light_radius=60, emits_bright_light=True, bright_light_distance=10)
    result = convert(module(graphics=[g], dynamic_lighting_enabled=True))
    assert result["scene"]["tokens"][0]["light"] == {"bright": 10, "dim": 10, "seen_by": "everyone"}
    assert result["warnings"][0] == (
        "maps[0].graphics: legacy light_* fields ignored on 1 graphics (Updated Dynamic "
        "Lighting fields used)"
    )


def test_lit_graphic_off_the_token_layers_is_a_scene_light():
    g = graphic(
        id="lamp",
        layer="walls",
        left=437.5,
        top=157.5,
        width=35,
        height=35,
        light_radius="85",
        light_otherplayers=True,
        light_angle=90,
        rotation=30,
    )
    result = convert(module(graphics=[g], showlighting=True))
    assert result["scene"]["tokens"] == []
    assert result["scene"]["lights"] == [
        {
            "id": "lamp",
            "x": 437.5,
            "y": 157.5,
            "bright": 85,
            "dim": 85,
            "angle": 90,
            "rotation": 30,
            "darkness": False,
            "walls": True,
            "seen_by": "everyone",
        }
    ]
    assert result["warnings"] == [
        "maps[0].graphics[0]: light cone rotation 30 deg passed through unchanged (Roll20's "
        "facing convention unverified)"
    ]


def test_status_markers_and_string_numbers_on_tokens():
    g = graphic(left="105", top="105", width="70", height="70", statusmarkers="dead,red")
    result = convert(module(graphics=[g]))
    tok = result["scene"]["tokens"][0]
    assert (tok["x"], tok["y"], tok["width"]) == (70, 70, 1)
    assert "maps[0].graphics: status markers on 1 tokens not mapped" in result["warnings"]


BAD_GRAPHICS = [
    pytest.param(
        {"left": None},
        "maps[0].graphics[0].left/top: (None, 105) is not a position, graphic skipped",
        0,
        id="no-left",
    ),
    pytest.param(
        {"width": 0},
        "maps[0].graphics[0].width: 0 is not a size in px, one square (70 px) used",
        1,
        id="zero-width",
    ),
    pytest.param(
        {"left": 1e300},
        "maps[0].graphics[0]: beyond +-1e+07 px, graphic skipped",
        0,
        id="far-away",
    ),
    pytest.param(
        {"light_radius": "bright", "light_otherplayers": True},
        "maps[0].graphics[0].light_radius: 'bright' is not a number, ignored",
        1,
        id="light-radius-word",
    ),
    pytest.param(
        {"light_radius": 1e9, "light_otherplayers": True},
        "maps[0].graphics[0].light_radius: 1000000000.0 is not a distance, ignored",
        1,
        id="light-radius-huge",
    ),
]


@pytest.mark.parametrize("fields, warning, tokens", BAD_GRAPHICS)
def test_bad_graphic_fields_warn(fields, warning, tokens):
    result = convert(module(graphics=[graphic(**fields)]))
    assert result["warnings"][0] == warning
    assert len(result["scene"]["tokens"]) == tokens


def test_duplicate_ids_are_renamed():
    doc = module(
        [path([(0, 0), (1, 0)], 0.5, 0, 1, 0), path([(0, 0), (1, 0)], 0.5, 0, 1, 0)],
        [graphic(), graphic()],
    )
    result = convert(doc)
    assert [w["id"] for w in result["scene"]["walls"]] == ["p0-0", "p0-0-1"]
    assert [t["id"] for t in result["scene"]["tokens"]] == ["g0", "g0-1"]
    assert "maps[0].walls: duplicate id 'p0-0', renamed p0-0-1" in result["warnings"]


def test_hand_made_scene_answers_a_cover_query():
    # a wall between two tokens: total cover
    doc = module(
        [path([(0, 0), (0, 700)], 350, 350, 0, 700)],
        [graphic(id="a", left=105, top=315), graphic(id="b", left=595, top=315)],
    )
    scene = SceneSchema().load(convert(doc)["scene"])
    answer = cover_one(RULESET, build_scene(scene), scene.tokens[0], scene.tokens[1], Attack(), {})
    assert answer.cover == "total"


# --------------------------------------------------------------------------- pages and errors


def two_pages() -> dict:
    first = module(name="Start")["maps"][0]
    second = module([path([(0, 0), (70, 0)], 35, 0, 70, 0)], name="Dungeon")["maps"][0]
    return module(pages=[first, None, second])


PAGE_CHOICES = [
    pytest.param("Dungeon", 2, id="by-name"),
    pytest.param(2, 2, id="by-index"),
    pytest.param("2", 2, id="by-index-string"),
    pytest.param("Start", 0, id="first-by-name"),
]


@pytest.mark.parametrize("page, index", PAGE_CHOICES)
def test_page_chosen_by_name_or_index(page, index):
    result = convert(two_pages(), page=page)
    assert result["stats"]["page_index"] == index
    assert result["warnings"][0] == "maps[1]: null entry skipped"


PAGE_ERRORS = [
    pytest.param(
        None,
        "the export holds 2 pages; pick one with page= (name or index): 0: 'Start', 2: 'Dungeon'",
        id="several-pages-no-choice",
    ),
    pytest.param(
        3,
        "page index 3 is out of range: expected 0 to 2 (0: 'Start', 2: 'Dungeon')",
        id="index-out-of-range",
    ),
    pytest.param(
        -1,
        "page index -1 is out of range: expected 0 to 2 (0: 'Start', 2: 'Dungeon')",
        id="negative-index",
    ),
    pytest.param(
        1,
        "page index 1 is a null entry, not a page; available: 0: 'Start', 2: 'Dungeon'",
        id="index-of-null-entry",
    ),
    pytest.param(
        "Cellar",
        "page 'Cellar' not found; available: 0: 'Start', 2: 'Dungeon'",
        id="unknown-name",
    ),
    pytest.param(True, "page must be a page name or a 0-based index, got bool", id="bool"),
    pytest.param(1.5, "page must be a page name or a 0-based index, got float", id="float"),
]


@pytest.mark.parametrize("page, message", PAGE_ERRORS)
def test_page_errors_say_what_was_expected(page, message):
    with pytest.raises(AdapterError) as info:
        to_scene(two_pages(), page=page)
    assert info.value.message == message


def test_ambiguous_page_name():
    doc = module(pages=[module(name="A")["maps"][0], module(name="A")["maps"][0]])
    with pytest.raises(AdapterError, match="ambiguous"):
        to_scene(doc, page="A")


UVTT_DOC = {"format": 0.3, "resolution": {"pixels_per_grid": 128}, "line_of_sight": []}
FOUNDRY_DOC = {"name": "x", "grid": {"size": 100}, "walls": []}

BROKEN = [
    pytest.param(
        UVTT_DOC,
        (),
        "not a Roll20 export: expected betteR20 'maps' (entries with 'attributes' and 'paths'), "
        "an R20Exporter 'pages' list or a single page with 'paths'/'graphics'; this looks like "
        "a Universal VTT file; use format uvtt",
        id="uvtt-file",
    ),
    pytest.param(
        FOUNDRY_DOC,
        (),
        "not a Roll20 export: expected betteR20 'maps' (entries with 'attributes' and 'paths'), "
        "an R20Exporter 'pages' list or a single page with 'paths'/'graphics'; this looks like "
        "a Foundry VTT scene export; use format foundry",
        id="foundry-scene",
    ),
    pytest.param(
        [FOUNDRY_DOC],
        (),
        "a Roll20 export must be a JSON object, got list; this looks like a Foundry VTT scene "
        "export; use format foundry",
        id="foundry-list",
    ),
    pytest.param("{}", (), "a Roll20 export must be a JSON object, got str", id="string"),
    pytest.param(None, (), "a Roll20 export must be a JSON object, got null", id="null"),
    pytest.param({"maps": "x"}, ("maps",), "'maps' must be a list, got str", id="maps-string"),
    pytest.param(
        {"maps": []}, ("maps",), "the export holds no page ('maps' is empty)", id="maps-empty"
    ),
    pytest.param(
        {"maps": [None]},
        ("maps",),
        "the export holds no page ('maps' is empty)",
        id="maps-only-null",
    ),
    pytest.param(
        {"maps": [{"paths": []}]},
        ("maps", 0),
        "a betteR20 map needs an 'attributes' object (page settings)",
        id="map-without-attributes",
    ),
    pytest.param(
        {"maps": [{"attributes": [], "paths": []}]},
        ("maps", 0, "attributes"),
        "page attributes must be an object, got list",
        id="attributes-list",
    ),
    pytest.param(
        {"maps": [{"attributes": {}, "paths": {}}]},
        ("maps", 0, "paths"),
        "'paths' must be a list, got dict",
        id="paths-dict",
    ),
    pytest.param(
        {"R20Exporter_format": "1.0"},
        ("pages",),
        "'pages' must be a list, got null",
        id="exporter-without-pages",
    ),
]


@pytest.mark.parametrize("export, path_, message", BROKEN)
def test_broken_exports_raise_adapter_error_with_path(export, path_, message):
    assert_adapter_error(to_scene, export, path_, message)


def test_private_lights_choice_is_checked():
    with pytest.raises(AdapterError, match="private_lights must be 'vision' or 'light'"):
        to_scene(module(), private_lights="dark")


# --------------------------------------------------------------------------- fuzz


ODD_VALUES = [
    None,
    "x",
    "",
    "1e400",
    -1,
    0,
    1e-300,
    1e308,
    math.nan,
    math.inf,
    True,
    [],
    {},
    [None],
    {"a": None},
]


def kitchen_sink() -> dict:
    """An R20Exporter page touching every section the adapter reads."""
    doc = exporter(
        [
            path(
                [("M", 0, 0), ("Q", 5, 10, 10, 0), ("L", 20, 0)],
                10,
                2.5,
                20,
                5,
                barrierType="oneWay",
                oneWayReversed=True,
                as_string=False,
            ),
            path([(0, 0), (10, 10)], 5, 5, 10, 10, rotation=30, scaleX=2),
        ],
        [
            graphic(light_radius="30", light_dimradius="-5", light_hassight=True),
            graphic(
                id="g1",
                layer="gmlayer",
                emits_bright_light=True,
                bright_light_distance="10",
                emits_low_light=True,
                low_light_distance=5,
                has_night_vision=True,
                night_vision_distance=60,
            ),
            graphic(
                id="g2", layer="walls", light_radius=20, light_otherplayers=True, light_angle=90
            ),
        ],
        [door(isSecret=True)],
        [door(id="w")],
        showlighting=True,
        snapping_increment=0.5,
    )
    return doc


@pytest.mark.parametrize("odd", odd_params(ODD_VALUES))
def test_any_odd_field_gives_a_loadable_result_or_an_adapter_error(odd):
    assert_odd_value_gives_a_result_or_an_adapter_error(
        to_scene, kitchen_sink(), odd, load=SceneSchema().load
    )


def test_betteR20_page_with_odd_fields_never_raises_other_errors():
    base = module(
        [path([("M", 0, 0), ("C", 0, 5, 5, 5, 5, 0), ("L", 9, 0)], 5, 2, 10, 4)],
        [graphic(light_radius=20, light_hassight=True)],
        showlighting=True,
    )
    assert_odd_values_raise_nothing_else(to_scene, base, ODD_VALUES, load=SceneSchema().load)


def test_real_file_with_odd_fields_never_raises_other_errors():
    raw = real(WPM)
    page = raw_page(raw)
    sample = {
        "maps": [
            {
                "attributes": page["attributes"],
                "paths": page["paths"][12:13],  # a two-point wall
                "graphics": page["graphics"][32:34],  # a token and the lit Gynosphinx
                "text": [],
            }
        ]
    }
    assert_odd_values_raise_nothing_else(
        to_scene, sample, (None, "x", -1, [], {}), load=SceneSchema().load, skip_keys=("zorder",)
    )
