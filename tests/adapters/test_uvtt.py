"""Universal VTT adapter: real Dungeondraft exports (shared/scenes/real/uvtt) and fragments.

Counts and coordinates of the real files are recomputed here from the raw JSON (never with
adapter helpers). References: shared/FORMATS.md (c) and "Pitfalls" 8, 9, 11; SOURCES.md (uvtt/).
"""

from __future__ import annotations

import json
import math

import pytest

from adapters.errors import AdapterError
from adapters.uvtt import to_scene
from schemas.scene import SceneSchema
from service.engine.scene import build_scene
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

LITCH = "uvtt-0.3-dndapps-the-litch-and-his-tomb.dd2vtt"
TOWER = "uvtt-0.3-dndapps-stone-resolve-blue-tower-origin-offset.dd2vtt"
QUARTERS = "uvtt-0.2-dndapps-headmasters-quarters.dd2vtt"
REAL_FILES = [
    pytest.param(LITCH, id="litch-0.3"),
    pytest.param(TOWER, id="blue-tower-cropped-0.3"),
    pytest.param(QUARTERS, id="headmasters-quarters-0.2"),
]


def real(name: str) -> dict:
    return load_real("uvtt", name)


def convert(export, **kw) -> dict:
    """Run the adapter and check that the canonical scene loads (every result must)."""
    return checked(to_scene(export, **kw), SceneSchema().load)


# --------------------------------------------------------------------------- raw counting


def raw_segments(doc: dict) -> list[tuple[dict, dict]]:
    """Consecutive point pairs of line_of_sight + objects_line_of_sight, repeats dropped."""
    out = []
    for key in ("line_of_sight", "objects_line_of_sight"):
        for line in doc.get(key, []):
            out += [(a, b) for a, b in zip(line, line[1:], strict=False) if a != b]
    return out


def to_px(doc: dict, p: dict) -> list[float]:
    res = doc["resolution"]
    o, ppg = res["map_origin"], res["pixels_per_grid"]
    return [(p["x"] - o["x"]) * ppg, (p["y"] - o["y"]) * ppg]


def off_map(doc: dict, a: dict, b: dict) -> bool:
    """Segment a-b entirely outside the map rectangle (cells), by sampling 1001 points."""
    res = doc["resolution"]
    x0, y0 = res["map_origin"]["x"], res["map_origin"]["y"]
    x1, y1 = x0 + res["map_size"]["x"], y0 + res["map_size"]["y"]
    for k in range(1001):
        t = k / 1000
        x, y = a["x"] + t * (b["x"] - a["x"]), a["y"] + t * (b["y"] - a["y"])
        if x0 <= x <= x1 and y0 <= y <= y1:
            return False
    return True


# --------------------------------------------------------------------------- real files

# file, LOS polylines, LOS points, portals, lights, format (SOURCES.md)
REAL_SOURCE_COUNTS = [
    pytest.param(LITCH, 35, 203, 5, 2, 0.3, id="litch"),
    pytest.param(TOWER, 61, 502, 41, 0, 0.3, id="tower"),
    pytest.param(QUARTERS, 6, 20, 6, 0, 0.2, id="quarters"),
]


@pytest.mark.parametrize("name, lines, points, portals, lights, version", REAL_SOURCE_COUNTS)
def test_real_raw_files_match_sources_md(name, lines, points, portals, lights, version):
    raw = real(name)
    assert len(raw["line_of_sight"]) == lines
    assert sum(len(line) for line in raw["line_of_sight"]) == points
    assert len(raw["portals"]) == portals
    assert len(raw["lights"]) == lights
    assert raw["format"] == version
    assert raw["image"] == ""  # stripped in our copies (SOURCES.md)
    assert ("objects_line_of_sight" in raw) == (version == 0.3)


# file, walls, doors, lights, walls (and portals) off the map
REAL_COUNTS = [
    pytest.param(LITCH, 168 + 5, 5, 2, 0, id="litch"),
    pytest.param(TOWER, 437 + 41, 41, 0, 352 + 37, id="tower"),
    pytest.param(QUARTERS, 14 + 6, 6, 0, 0, id="quarters"),
]


@pytest.mark.parametrize("name, walls, doors, lights, outside", REAL_COUNTS)
def test_real_counts_match_the_raw_file(name, walls, doors, lights, outside):
    raw = real(name)
    result = convert(raw)
    scene, stats = result["scene"], result["stats"]
    segments = raw_segments(raw)
    from_raw = {
        "walls": len(segments) + len(raw["portals"]),
        "doors": len(raw["portals"]),
        "lights": len(raw["lights"]),
        "outside": sum(off_map(raw, a, b) for a, b in segments)
        + sum(off_map(raw, *p["bounds"]) for p in raw["portals"]),
    }
    got = {
        "walls": len(scene["walls"]),
        "doors": sum(w["door"] != "none" for w in scene["walls"]),
        "lights": len(scene["lights"]),
        "outside": stats["walls_outside_map"],
    }
    expected = {"walls": walls, "doors": doors, "lights": lights, "outside": outside}
    assert from_raw == expected
    assert got == expected
    assert scene["tokens"] == [] and scene["regions"] == []
    assert {k: stats[k] for k in ("walls", "doors", "tokens", "lights", "regions")} == {
        "walls": walls,
        "doors": doors,
        "tokens": 0,
        "lights": lights,
        "regions": 0,
    }
    assert stats["uvtt_format"] == raw["format"]


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_walls_are_origin_shifted_cells_times_pixels_per_grid(name):
    raw = real(name)
    walls = convert(raw)["scene"]["walls"]
    expected = [to_px(raw, a) + to_px(raw, b) for a, b in raw_segments(raw)]
    expected += [to_px(raw, p["bounds"][0]) + to_px(raw, p["bounds"][1]) for p in raw["portals"]]
    assert len(walls) == len(expected)
    for wall, c in zip(walls, expected, strict=True):
        assert wall["c"] == pytest.approx(c, abs=1e-6)
    doors = [w for w in walls if w["door"] != "none"]
    assert [w["door_state"] for w in doors] == [
        "closed" if p["closed"] else "open" for p in raw["portals"]
    ]
    assert {(w["move"], w["sight"], w["direction"]) for w in walls} == {
        ("normal", "normal", "both")
    }


def test_real_litch_walls_and_lights_by_hand():
    result = convert(real(LITCH))
    walls = {w["id"]: w for w in result["scene"]["walls"]}
    # line_of_sight[0]: (30, 9) -> (39, 9) cells, 128 px per cell, origin (0, 0)
    assert walls["los-0-0"]["c"] == [3840, 1152, 4992, 1152]
    # portal 0: bounds (26, 10.490234) -> (26, 11.509766)
    assert walls["portal-0"]["c"] == pytest.approx([3328, 1342.749952, 3328, 1473.250048])
    assert (walls["portal-0"]["door"], walls["portal-0"]["door_state"]) == ("door", "closed")
    # light 0 at (10.99378, 9.369904) cells, range 4.7 cells = 23.5 ft at 5 ft per square
    assert result["scene"]["lights"][0] == {
        "id": "light-0",
        "x": pytest.approx(10.99378 * 128),
        "y": pytest.approx(9.369904 * 128),
        "bright": 11.75,
        "dim": 23.5,
        "angle": 360,
        "rotation": 0,
        "darkness": False,
        "walls": True,
    }


def test_real_cropped_tower_subtracts_the_origin():
    result = convert(real(TOWER))
    walls = {w["id"]: w for w in result["scene"]["walls"]}
    # map_origin (46, 41): line_of_sight[0] (51, 14) -> (51, 12)
    # px = ((51 - 46) * 128, (14 - 41) * 128) = (640, -3456); (640, (12 - 41) * 128 = -3712)
    assert walls["los-0-0"]["c"] == [640, -3456, 640, -3712]
    # portal 0 bounds (54, 17) -> (54, 16)
    assert walls["portal-0"]["c"] == [1024, -3072, 1024, -3200]
    assert (result["scene"]["width"], result["scene"]["height"]) == (10 * 128, 12 * 128)
    assert result["warnings"] == [
        "line_of_sight: 4 zero-length segments (repeated points) skipped: line_of_sight[1] (1), "
        "line_of_sight[6] (1), line_of_sight[25] (1), line_of_sight[26] (1)",
        "line_of_sight: 352 of 437 segments lie outside the 10x12 map (map_origin 46,41); kept",
        "portals: 37 of 41 portals lie outside the 10x12 map (map_origin 46,41); kept",
    ]


def test_real_quarters_diagonal_portal():
    raw = real(QUARTERS)
    walls = {w["id"]: w for w in convert(raw)["scene"]["walls"]}
    # portal 0: rotation 0.785398 rad; bounds (9.233454, 2.233454) -> (9.766546, 2.766546)
    assert walls["portal-0"]["c"] == pytest.approx(
        [9.233454 * 128, 2.233454 * 128, 9.766546 * 128, 2.766546 * 128]
    )
    # format 0.2 has no objects_line_of_sight: nothing is lost
    assert not any(w["id"].startswith("olos") for w in walls.values())


# file, width px, height px
REAL_GRIDS = [
    pytest.param(LITCH, 48 * 128, 27 * 128, id="litch"),
    pytest.param(TOWER, 10 * 128, 12 * 128, id="tower"),
    pytest.param(QUARTERS, 10 * 128, 10 * 128, id="quarters"),
]


@pytest.mark.parametrize("name, width, height", REAL_GRIDS)
def test_real_grid_size_and_environment(name, width, height):
    """UVTT says nothing of diagonals: left unset, each ruleset's default applies (GEO-8)."""
    result = convert(real(name))
    scene = result["scene"]
    assert scene["grid"] == {
        "size": 128,
        "distance": 5.0,
        "units": "ft",
        "type": "square",
        "diagonals": None,
    }
    assert (scene["width"], scene["height"]) == (width, height)
    # ambient_light ffffffff: full white, baked lighting
    assert scene["environment"] == {"light": "bright", "gravity": 1, "underwater": False}
    assert result["stats"]["baked_lighting"] is True
    assert result["stats"]["ambient_light"] == "ffffffff"


REAL_WARNINGS = [
    pytest.param(LITCH, [], id="litch"),
    pytest.param(QUARTERS, [], id="quarters"),
]


@pytest.mark.parametrize("name, warnings", REAL_WARNINGS)
def test_real_warnings(name, warnings):
    assert convert(real(name))["warnings"] == warnings


def with_two_tokens(scene: dict, a: tuple[float, float], b: tuple[float, float]) -> dict:
    """The canonical scene plus two 1-square tokens at cells a and b (top-left, cells)."""
    size = scene["grid"]["size"]
    out = dict(scene)
    out["tokens"] = [
        {"id": "attacker", "x": a[0] * size, "y": a[1] * size},
        {"id": "target", "x": b[0] * size, "y": b[1] * size},
    ]
    return out


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_scene_answers_a_cover_query(name):
    raw = real(name)
    result = to_scene(raw)
    size = raw["resolution"]["map_size"]
    scene = SceneSchema().load(
        with_two_tokens(result["scene"], (1, 1), (size["x"] - 2, size["y"] - 2))
    )
    answer = cover_one(RULESET, build_scene(scene), scene.tokens[0], scene.tokens[1], Attack(), {})
    assert answer.cover in RULESET.cover_degrees
    assert answer.target == "target"


def test_real_litch_wall_gives_total_cover():
    # line_of_sight[0] runs along y = 9 from x = 30 to 39 (cells): one token above, one below
    scene = SceneSchema().load(with_two_tokens(convert(real(LITCH))["scene"], (34, 7), (34, 10)))
    answer = cover_one(RULESET, build_scene(scene), scene.tokens[0], scene.tokens[1], Attack(), {})
    assert answer.cover == "total"


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_result_is_json_and_input_untouched(name):
    assert_json_and_input_untouched(to_scene, real(name))


def test_real_grid_distance_option():
    result = convert(real(LITCH), grid_distance=10, grid_units="m")
    assert result["scene"]["grid"]["distance"] == 10
    assert result["scene"]["grid"]["units"] == "m"
    assert [(li["bright"], li["dim"]) for li in result["scene"]["lights"]] == [(23.5, 47)] * 2


# --------------------------------------------------------------------------- fragments


def uvtt(**kw) -> dict:
    """A small 0.3 file: 4 x 3 cells of 100 px, one wall line, one door, one light."""
    doc = {
        "format": 0.3,
        "resolution": {
            "map_origin": {"x": 0, "y": 0},
            "map_size": {"x": 4, "y": 3},
            "pixels_per_grid": 100,
        },
        "line_of_sight": [[{"x": 0, "y": 1}, {"x": 2, "y": 1}, {"x": 2, "y": 3}]],
        "objects_line_of_sight": [],
        "portals": [
            {
                "position": {"x": 3, "y": 1},
                "bounds": [{"x": 2.5, "y": 1}, {"x": 3.5, "y": 1}],
                "rotation": 0,
                "closed": True,
                "freestanding": False,
            }
        ],
        "environment": {"baked_lighting": False, "ambient_light": "ff000000"},
        "lights": [
            {
                "position": {"x": 1, "y": 2},
                "range": 2,
                "intensity": 1,
                "color": "ffffad58",
                "shadows": True,
            }
        ],
        "image": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
    }
    doc.update(kw)
    return doc


def test_fragment_full_result():
    result = convert(uvtt())
    scene = result["scene"]
    assert [(w["id"], w["c"], w["door"], w["door_state"]) for w in scene["walls"]] == [
        ("los-0-0", [0, 100, 200, 100], "none", "closed"),
        ("los-0-1", [200, 100, 200, 300], "none", "closed"),
        ("portal-0", [250, 100, 350, 100], "door", "closed"),
    ]
    assert scene["lights"] == [
        {
            "id": "light-0",
            "x": 100,
            "y": 200,
            "bright": 5,
            "dim": 10,
            "angle": 360,
            "rotation": 0,
            "darkness": False,
            "walls": True,
        }
    ]
    assert scene["environment"]["light"] == "dark"
    assert (scene["width"], scene["height"]) == (400, 300)
    assert result["warnings"] == []
    assert result["stats"]["baked_lighting"] is False


def test_square_grid_leaves_diagonals_unset():
    """GEO-8: a UVTT file does not say how diagonals count, so ``grid.diagonals`` is None
    (each ruleset's own default), never a rule of the adapter's choosing."""
    result = convert(uvtt())
    assert result["scene"]["grid"]["type"] == "square"
    assert result["scene"]["grid"]["diagonals"] is None
    assert SceneSchema().load(result["scene"]).grid.diagonals is None


def test_image_is_never_copied():
    doc = uvtt()
    text = json.dumps(to_scene(doc))
    assert doc["image"] not in text
    assert "image" not in to_scene(doc)["scene"]


def test_format_02_without_objects_line_of_sight():
    doc = uvtt(format=0.2)
    del doc["objects_line_of_sight"]
    result = convert(doc)
    assert len(result["scene"]["walls"]) == 3
    assert result["warnings"] == []


def test_objects_line_of_sight_become_walls():
    doc = uvtt(objects_line_of_sight=[[{"x": 3, "y": 2}, {"x": 3.5, "y": 2.5}]])
    walls = convert(doc)["scene"]["walls"]
    assert ("olos-0-0", [300, 200, 350, 250]) in [(w["id"], w["c"]) for w in walls]


def test_cropped_origin_is_subtracted_and_off_map_walls_kept_with_a_count():
    doc = uvtt(
        resolution={
            "map_origin": {"x": 10, "y": 20},
            "map_size": {"x": 4, "y": 3},
            "pixels_per_grid": 100,
        },
        line_of_sight=[
            [{"x": 10, "y": 21}, {"x": 12, "y": 21}],  # inside
            [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 1, "y": 5}],  # outside
            [{"x": 9, "y": 22}, {"x": 20, "y": 22}],  # crosses the map: touches it
        ],
        portals=[{"bounds": [{"x": 0, "y": 0}, {"x": 0, "y": 1}], "closed": False}],
        lights=[{"position": {"x": 0, "y": 0}, "range": 1}],
    )
    result = convert(doc)
    walls = {w["id"]: w for w in result["scene"]["walls"]}
    assert walls["los-0-0"]["c"] == [0, 100, 200, 100]
    assert walls["los-1-0"]["c"] == [-1000, -2000, -900, -2000]
    assert walls["portal-0"]["door_state"] == "open"
    assert result["scene"]["lights"][0]["x"] == -1000
    assert result["stats"]["walls_outside_map"] == 3
    assert result["warnings"] == [
        "line_of_sight: 2 of 4 segments lie outside the 4x3 map (map_origin 10,20); kept",
        "portals: 1 of 1 portals lie outside the 4x3 map (map_origin 10,20); kept",
        "lights: 1 of 1 lights lie outside the 4x3 map (map_origin 10,20); kept",
    ]


# ambient_light -> light level
AMBIENT = [
    pytest.param("ffffffff", "bright", id="white"),
    pytest.param("FFFFFFFF", "bright", id="upper-case"),
    pytest.param("ffc0c0c0", "bright", id="light-grey"),
    pytest.param("ff808080", "dim", id="mid-grey"),
    pytest.param("80ffffff", "dim", id="half-alpha-white"),
    pytest.param("ff202040", "dark", id="night-blue"),
    pytest.param("00ffffff", "dark", id="transparent"),
    pytest.param("ffffff", "bright", id="rgb-only"),
    pytest.param("#ff303030", "dark", id="hash-prefix"),
]


@pytest.mark.parametrize("colour, light", AMBIENT)
def test_ambient_light_mapping(colour, light):
    doc = uvtt(environment={"baked_lighting": True, "ambient_light": colour})
    result = convert(doc)
    assert result["scene"]["environment"]["light"] == light
    assert result["warnings"] == []


ODD_ENVIRONMENTS = [
    pytest.param(None, "bright", [], id="absent"),
    pytest.param({}, "bright", [], id="empty"),
    pytest.param(
        {"ambient_light": "white"},
        "bright",
        ["environment.ambient_light: 'white' is not an ARGB colour, bright used"],
        id="colour-word",
    ),
    pytest.param(
        {"ambient_light": 4294967295},
        "bright",
        ["environment.ambient_light: 4294967295 is not an ARGB colour, bright used"],
        id="colour-number",
    ),
    pytest.param(
        {"baked_lighting": "yes"},
        "bright",
        ["environment.baked_lighting: 'yes' is not true/false, ignored"],
        id="baked-string",
    ),
    pytest.param(
        [], "bright", ["environment: list is not an object, bright used"], id="environment-list"
    ),
]


@pytest.mark.parametrize("env, light, warnings", ODD_ENVIRONMENTS)
def test_odd_environments(env, light, warnings):
    doc = uvtt(environment=env)
    if env is None:
        del doc["environment"]
    result = convert(doc)
    assert result["scene"]["environment"]["light"] == light
    assert result["warnings"] == warnings


LIGHTS = [
    pytest.param({"shadows": False}, {"walls": False}, [], id="no-shadows"),
    pytest.param({"range": 0.5}, {"bright": 1.25, "dim": 2.5}, [], id="half-cell"),
    pytest.param(
        {"intensity": 0},
        None,
        ["lights[0].intensity: 0, the light is off, skipped"],
        id="intensity-zero",
    ),
    pytest.param(
        {"range": -1},
        None,
        ["lights[0].range: -1 is not a positive range, light skipped"],
        id="negative-range",
    ),
    pytest.param(
        {"range": "2"},
        None,
        ["lights[0].range: '2' is not a positive range, light skipped"],
        id="range-string",
    ),
    pytest.param(
        {"position": [1, 2]},
        None,
        ["lights[0].position: [1, 2] is not {x, y}, light skipped"],
        id="position-list",
    ),
    pytest.param({"color": "nonsense"}, {"dim": 10}, [], id="colour-ignored"),
    pytest.param(
        {"shadows": "yes"},
        {"walls": True},
        ["lights[0].shadows: 'yes' is not true/false, true used"],
        id="shadows-string",
    ),
]


@pytest.mark.parametrize("fields, expected, warnings", LIGHTS)
def test_lights(fields, expected, warnings):
    doc = uvtt()
    doc["lights"][0].update(fields)
    result = convert(doc)
    lights = result["scene"]["lights"]
    if expected is None:
        assert lights == []
    else:
        assert {k: lights[0][k] for k in expected} == expected
    assert result["warnings"] == warnings


def test_null_entries_and_bad_points_are_skipped_with_warnings():
    doc = uvtt(
        line_of_sight=[
            None,
            [{"x": 0, "y": 0}, {"x": "1", "y": 0}, {"x": 2, "y": 0}, {"x": 3, "y": 0}],
            [{"x": 1, "y": 1}],
            [{"x": 1, "y": 1}, {"x": 1, "y": 1}, {"x": 1, "y": 2}],
        ],
        portals=[None, {"bounds": [{"x": 0, "y": 0}]}, {"bounds": [{"x": 1, "y": 1}] * 2}],
        lights=[None],
    )
    result = convert(doc)
    assert [w["id"] for w in result["scene"]["walls"]] == ["los-1-2", "los-3-1"]
    assert result["warnings"] == [
        "line_of_sight[1]: points 1 are not {x, y} numbers, segments touching them skipped",
        "line_of_sight[2]: fewer than 2 points, no wall",
        "line_of_sight[0]: null entry skipped",  # the skipped entries are told after the others
        "line_of_sight: 1 zero-length segments (repeated points) skipped: line_of_sight[3] (1)",
        "portals[1].bounds: [{'x': 0, 'y': 0}] is not two {x, y} points, portal skipped",
        "portals[2].bounds: zero-length portal skipped",
        "portals[0]: null entry skipped",
        "lights[0]: null entry skipped",
    ]


HEADER_WARNINGS = [
    pytest.param(
        {"format": 0.4},
        "format: 0.4 is not a known version (0.2, 0.3), read as 0.3",
        id="format-0.4",
    ),
    pytest.param(
        {"format": "0.3"}, "format: '0.3' is not a number, read as 0.3", id="format-string"
    ),
    pytest.param({"format": None}, "format: missing, read as 0.3", id="format-missing"),
    pytest.param(
        {"resolution": {"map_size": {"x": 4, "y": 3}, "pixels_per_grid": 100}},
        None,
        id="origin-missing-is-zero",
    ),
    pytest.param(
        {
            "resolution": {
                "map_origin": [0, 0],
                "map_size": {"x": 4, "y": 3},
                "pixels_per_grid": 100,
            }
        },
        "resolution.map_origin: [0, 0] is not {x, y}, (0, 0) used",
        id="origin-list",
    ),
    pytest.param(
        {"resolution": {"map_origin": {"x": 0, "y": 0}, "pixels_per_grid": 100}},
        "resolution.map_size: None is not a positive {x, y}, map size unknown (null)",
        id="size-missing",
    ),
    pytest.param(
        {"line_of_sight": None},
        "line_of_sight: missing, the map has no walls from it",
        id="los-null",
    ),
]


@pytest.mark.parametrize("fields, warning", HEADER_WARNINGS)
def test_header_fields(fields, warning):
    doc = uvtt(**fields)
    if fields.get("line_of_sight", 1) is None:
        del doc["line_of_sight"]
    if "format" in fields and fields["format"] is None:
        del doc["format"]
    result = convert(doc)
    assert result["warnings"] == ([] if warning is None else [warning])


# --------------------------------------------------------------------------- errors


ROLL20_DOC = {"schema_version": 1, "maps": [{"attributes": {"name": "x"}, "paths": []}]}
FOUNDRY_DOC = {"name": "x", "grid": 100, "walls": []}

BROKEN = [
    pytest.param(
        ROLL20_DOC,
        (),
        "not a Universal VTT file: expected 'resolution' {map_origin, map_size, pixels_per_grid} "
        "and 'line_of_sight'; this looks like a Roll20 export; use format roll20",
        id="roll20-file",
    ),
    pytest.param(
        FOUNDRY_DOC,
        (),
        "not a Universal VTT file: expected 'resolution' {map_origin, map_size, pixels_per_grid} "
        "and 'line_of_sight'; this looks like a Foundry VTT scene export; use format foundry",
        id="foundry-file",
    ),
    pytest.param(
        [FOUNDRY_DOC],
        (),
        "a Universal VTT file must be a JSON object, got list; this looks like a Foundry VTT "
        "scene export; use format foundry",
        id="list",
    ),
    pytest.param(b"{}", (), "a Universal VTT file must be a JSON object, got bytes", id="bytes"),
    pytest.param(
        {"resolution": 128, "line_of_sight": []},
        ("resolution",),
        "'resolution' must be an object {map_origin, map_size, pixels_per_grid}, got int",
        id="resolution-number",
    ),
    pytest.param(
        {"resolution": {"pixels_per_grid": 0}, "line_of_sight": []},
        ("resolution", "pixels_per_grid"),
        "resolution.pixels_per_grid must be a number of pixels from 1 to 100000, got 0",
        id="ppg-zero",
    ),
    pytest.param(
        {"resolution": {"pixels_per_grid": 1e-9}, "line_of_sight": []},
        ("resolution", "pixels_per_grid"),
        "resolution.pixels_per_grid must be a number of pixels from 1 to 100000, got 1e-09",
        id="ppg-tiny",
    ),
    pytest.param(
        {"resolution": {}, "line_of_sight": []},
        ("resolution", "pixels_per_grid"),
        "resolution.pixels_per_grid must be a number of pixels from 1 to 100000, got None",
        id="ppg-missing",
    ),
    pytest.param(
        {"resolution": {"pixels_per_grid": 100}, "line_of_sight": {"0": []}},
        ("line_of_sight",),
        "'line_of_sight' must be a list, got dict",
        id="los-dict",
    ),
    pytest.param(
        {"resolution": {"pixels_per_grid": 100}, "portals": "none"},
        ("portals",),
        "'portals' must be a list, got str",
        id="portals-string",
    ),
]


@pytest.mark.parametrize("export, path_, message", BROKEN)
def test_broken_files_raise_adapter_error_with_path(export, path_, message):
    assert_adapter_error(to_scene, export, path_, message)


OPTION_ERRORS = [
    pytest.param({"grid_distance": 0}, "grid_distance must be a number of units", id="zero"),
    pytest.param({"grid_distance": 1e-310}, "grid_distance must be a number of units", id="tiny"),
    pytest.param({"grid_distance": "5"}, "grid_distance must be a number of units", id="str"),
    pytest.param({"grid_distance": math.nan}, "grid_distance must be a number of units", id="nan"),
    pytest.param({"grid_units": "yd"}, "grid_units must be 'ft' or 'm'", id="yards"),
]


@pytest.mark.parametrize("kw, message", OPTION_ERRORS)
def test_bad_options(kw, message):
    with pytest.raises(AdapterError, match=message):
        to_scene(uvtt(), **kw)


# --------------------------------------------------------------------------- fuzz


ODD_VALUES = [
    None,
    "x",
    "",
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


ERROR_ROOTS = {(), ("resolution",), ("line_of_sight",), ("objects_line_of_sight",), ("portals",)}


@pytest.mark.parametrize("odd", odd_params(ODD_VALUES))
def test_any_odd_field_gives_a_loadable_result_or_an_adapter_error(odd):
    base = uvtt(objects_line_of_sight=[[{"x": 3, "y": 2}, {"x": 3.5, "y": 2.5}]])
    assert_odd_value_gives_a_result_or_an_adapter_error(
        to_scene, base, odd, error_roots=ERROR_ROOTS, load=SceneSchema().load
    )


def test_real_file_with_odd_fields_never_raises_other_errors():
    assert_odd_values_raise_nothing_else(
        to_scene, real(QUARTERS), (None, "x", -1, [], {}), load=SceneSchema().load
    )
