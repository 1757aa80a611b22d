"""Helpers shared by the adapters (adapters/_common.py), checked on their own."""

from __future__ import annotations

import math

import pytest

from adapters._common import (
    canonical_light,
    canonical_token,
    clean,
    diagonal_rule,
    entries,
    fallback_id,
    finite_number,
    grid_units,
    json_path,
    no_senses,
    point,
    read_bool,
    scene_stats,
    short_list,
    unique_ids,
    warn_zero_length,
)
from adapters.sniff import format_hint


@pytest.mark.parametrize(
    "value, expected",
    [(3, 3), (2.5, 2.5), (True, None), (math.nan, None), (math.inf, None), ("1", None)],
)
def test_finite_number(value, expected):
    assert finite_number(value) == expected


def test_json_path_skips_empty_parts():
    assert json_path(("", "walls", 3, "c")) == "walls[3].c"
    assert json_path((0,)) == "[0]"
    assert json_path(()) == ""


def test_entries_warn_under_the_given_path():
    warnings: list[str] = []
    doc = {"graphics": [{"id": "a"}, None, 3]}
    got = list(entries(doc, "graphics", warnings.append, "maps[0].graphics"))
    assert got == [(0, {"id": "a"})]
    assert warnings == [
        "maps[0].graphics[1]: null entry skipped",
        "maps[0].graphics[2]: int entry skipped",
    ]


def test_entries_default_path_and_kind():
    warnings: list[str] = []
    doc = {"line_of_sight": [[1], {"x": 1}], "portals": "none"}
    assert list(entries(doc, "line_of_sight", warnings.append, kind=list)) == [(0, [1])]
    assert list(entries(doc, "portals", warnings.append)) == []
    assert list(entries(doc, "lights", warnings.append)) == []
    assert warnings == [
        "line_of_sight[1]: dict entry skipped",
        "portals: str is not a list, ignored",
    ]


def test_unique_ids_with_stem_fills_missing_ids_in_source_order():
    warnings: list[str] = []
    items = [{"id": "a", "_index": 0}, {"id": "a", "_index": 2}, {"id": None, "_index": 5}]
    unique_ids(items, warnings.append, lambda i: f"walls[{i}]._id", "wall")
    assert items == [{"id": "a"}, {"id": "a-1"}, {"id": "wall-5"}]
    assert warnings == [
        "walls[2]._id: duplicate id 'a', renamed a-1",
        "walls[5]._id: None missing, wall-5 used",
    ]


def test_unique_ids_without_stem_uses_one_path_and_skips_taken_suffixes():
    warnings: list[str] = []
    items = [{"id": "d"}, {"id": "d-1"}, {"id": "d"}]
    unique_ids(items, warnings.append, lambda _: "maps[0].walls")
    assert [item["id"] for item in items] == ["d", "d-1", "d-2"]
    assert warnings == ["maps[0].walls: duplicate id 'd', renamed d-2"]


@pytest.mark.parametrize(
    "raw, kw, expected, warnings",
    [
        ({}, {}, True, []),
        ({"walls": False}, {}, False, []),
        ({"walls": "no"}, {}, True, ["l.walls: 'no' is not true/false, true used"]),
        ({"walls": 1}, {"default": False}, False, ["l.walls: 1 is not true/false, false used"]),
        ({"walls": 1}, {"used": "closed"}, True, ["l.walls: 1 is not true/false, closed used"]),
    ],
)
def test_read_bool(raw, kw, expected, warnings):
    got: list[str] = []
    assert read_bool(raw, "walls", "l", got.append, **kw) is expected
    assert got == warnings


@pytest.mark.parametrize(
    "value, expected, warnings",
    [
        ("Feet", "ft", []),
        (" metres ", "m", []),
        # GEO-8 "scenes counted in squares": blank, unknown or a count of spaces
        (
            "mi",
            "squares",
            ["u: 'mi' is not feet or metres: the scene counts in spaces, 1 space = 5 ft (GEO-8)"],
        ),
        (
            None,
            "squares",
            ["u: None is not feet or metres: the scene counts in spaces, 1 space = 5 ft (GEO-8)"],
        ),
        ("", "squares", ["u: '': the scene counts in spaces, 1 space = 5 ft (GEO-8)"]),
        ("Hexes", "squares", ["u: 'Hexes': the scene counts in spaces, 1 space = 5 ft (GEO-8)"]),
    ],
)
def test_grid_units(value, expected, warnings):
    got: list[str] = []
    assert grid_units(value, "u", got.append) == expected
    assert got == warnings


def test_diagonal_rule():
    got: list[str] = []
    assert diagonal_rule(("euclidean", None), 1, "d", got.append) == "euclidean"
    assert diagonal_rule(("equidistant", "no rule"), 3, "d", got.append) == "equidistant"
    assert diagonal_rule(None, "x", "d", got.append) == "equidistant"
    assert got == ["d: no rule", "d: unknown value 'x', equidistant used"]


def test_clean():
    assert clean(0.1 + 0.2) == 0.3
    assert clean(2.0000000001) == 2 and isinstance(clean(2.0000000001), int)
    assert math.isinf(clean(math.inf))


@pytest.mark.parametrize(
    "value, expected",
    [
        ({"x": 1, "y": 2.5}, (1, 2.5)),
        ({"x": 1}, None),
        ({"x": True, "y": 0}, None),
        ({"x": math.nan, "y": 0}, None),
        ([1, 2], None),
        (None, None),
    ],
)
def test_point(value, expected):
    assert point(value) == expected


def test_fallback_id_keeps_a_string_and_fills_the_rest():
    got: list[str] = []
    assert fallback_id("a", "w", "wall", 3, got.append) == "a"
    assert fallback_id("", "walls[3]._id", "wall", 3, got.append) == "wall-3"
    assert fallback_id(7, "p.id", "path", 0, got.append) == "path-0"
    assert got == ["walls[3]._id: '' missing, wall-3 used", "p.id: 7 missing, path-0 used"]


def test_short_list_cuts_indices_and_ids():
    assert short_list([0, 3, 7]) == "0, 3, 7"
    assert short_list(["a", "b", "c"], limit=2) == "a, b, ..."


def test_warn_zero_length_one_warning_or_none():
    got: list[str] = []
    warn_zero_length("paths", [], got.append)
    warn_zero_length("paths", [("paths[0]", 2), ("paths[4]", 1)], got.append)
    assert got == [
        "paths: 3 zero-length segments (repeated points) skipped: paths[0] (2), paths[4] (1)"
    ]


def test_canonical_light_fields_in_order():
    light = canonical_light("l", 1, 2, 5, 10, walls=False)
    assert list(light) == [
        "id", "x", "y", "bright", "dim", "angle", "rotation", "darkness", "walls"
    ]  # fmt: skip
    assert (light["angle"], light["rotation"], light["darkness"], light["walls"]) == (
        360,
        0,
        False,
        False,
    )


@pytest.mark.parametrize("name, text", [("Orc", "Orc"), (None, ""), (12, "12")])
def test_canonical_token_name_size_and_heights(name, text):
    light = {"bright": 0, "dim": 0}
    token = canonical_token(
        "t", name, (0, 70), (2, 2), reach=5, senses=no_senses(), light=light, hidden=False,
        heights={"vertical_extent": None},
    )  # fmt: skip
    assert token["name"] == text
    assert (token["x"], token["y"], token["size"], token["conditions"]) == (0, 70, "large", [])
    keys = list(token)
    assert keys[keys.index("elevation") + 1] == "vertical_extent"


def test_scene_stats_without_token_lights():
    scene = {"walls": [{"door": "door"}, {"door": "none"}], "tokens": [], "lights": []}
    assert scene_stats(scene, token_lights=False) == {
        "walls": 2,
        "doors": 1,
        "tokens": 0,
        "lights": 0,
        "regions": 0,
    }
    assert scene_stats(scene)["token_lights"] == 0


def test_format_hint_names_another_format_only():
    uvtt = {"resolution": {"pixels_per_grid": 70}, "line_of_sight": []}
    assert format_hint(uvtt, "uvtt") == ""
    assert format_hint(uvtt, "roll20") == "; this looks like a Universal VTT file; use format uvtt"
    assert format_hint({"walls": []}, "uvtt") == (
        "; this looks like a Foundry VTT scene export; use format foundry"
    )
    assert format_hint(42, "foundry") == ""
