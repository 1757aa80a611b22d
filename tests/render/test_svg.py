"""SVG pictures (service.render): well-formed, one element per object, escaped, coloured."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError
from shapely.geometry import LineString, Point, Polygon
from shapely.ops import unary_union

from adapters import foundry
from schemas.scene import SceneSchema
from service.app import sample_scene
from service.engine.scene import build_scene
from service.errors import RulesError, UnknownToken
from service.operations import OPERATIONS
from service.render import (
    BLOCKED_COLOUR,
    CAPTIONS,
    CLEAR_COLOUR,
    WALL_STYLES,
    lightarea,
    render_svg,
    wall_kind,
)
from service.render.answers import LIGHT_WORDS
from service.render.frame import MIN_TEXT_PX
from tests.conftest import real_file

NS = {"svg": "http://www.w3.org/2000/svg"}
SAMPLE_WALLS = [w["id"] for w in sample_scene()["walls"]]


def load(raw: dict):
    return SceneSchema().load(raw)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def find_all(root: ET.Element, path: str) -> list[ET.Element]:
    return root.findall(path, NS)


def walls(root: ET.Element) -> list[ET.Element]:
    return find_all(root, "./svg:g[@id='walls']/svg:path")


def traced(root: ET.Element) -> list[ET.Element]:
    return find_all(root, "./svg:g[@id='traced']/svg:line")


def view_box(root: ET.Element) -> tuple[float, ...]:
    return tuple(float(v) for v in root.get("viewBox", "").split())


def render_query(geo, query: dict) -> str:
    """``POST /v1/render``'s answer for ``query``, through the operation table."""
    return OPERATIONS["render"].run(geo, {"query": query})


def mini() -> dict:
    """A small scene: one 400 px wall on a grid of 100 px."""
    return {"grid": {"size": 100, "distance": 5}, "walls": [{"id": "w", "c": [0, 0, 400, 0]}]}


@pytest.fixture(scope="module")
def sample_geo():
    return build_scene(load(sample_scene()))


# --------------------------------------------------------------------------- the scene


def test_sample_scene_parses_with_one_path_per_wall_in_order():
    root = parse(render_svg(load(sample_scene())))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert [p.get("data-id") for p in walls(root)] == SAMPLE_WALLS


@pytest.mark.parametrize(
    ("wall_id", "kind"),
    [
        pytest.param("north", "normal", id="normal"),
        pytest.param("inner-door", "door", id="closed-door"),
        pytest.param("window", "window", id="sight-none-window"),
        pytest.param("curtain", "sight-only", id="move-none-sight-normal"),
    ],
)
def test_sample_wall_kinds(wall_id, kind):
    root = parse(render_svg(load(sample_scene())))
    path = next(p for p in walls(root) if p.get("data-id") == wall_id)
    assert f"wall-{kind}" in path.get("class", "").split()


@pytest.mark.parametrize(
    ("wall", "kind", "dashed"),
    [
        pytest.param({}, "normal", False, id="normal-solid"),
        pytest.param({"door": "door"}, "door", False, id="door-closed-solid"),
        pytest.param({"door": "door", "door_state": "locked"}, "door-locked", False, id="locked"),
        pytest.param({"door": "door", "door_state": "open"}, "door-open", True, id="door-open"),
        pytest.param({"door": "secret"}, "secret", False, id="secret"),
        pytest.param({"door": "secret", "door_state": "open"}, "secret-open", True, id="sec-open"),
        pytest.param({"sight": "none", "light": "none"}, "window", False, id="window"),
        pytest.param({"sight": "limited"}, "limited", True, id="limited-dotted"),
        pytest.param({"move": "limited"}, "limited", True, id="limited-move"),
        pytest.param({"move": "none"}, "sight-only", True, id="ethereal"),
        pytest.param({"sight": "proximity"}, "proximity", True, id="proximity"),
        pytest.param({"cover": "low"}, "low", False, id="low-wall"),
    ],
)
def test_wall_kind_and_stroke(wall, kind, dashed):
    scene = load({"grid": {"size": 100}, "walls": [{"id": "w", "c": [0, 0, 400, 0], **wall}]})
    assert wall_kind(scene.walls[0]) == kind
    (path,) = walls(parse(render_svg(scene)))
    assert path.get("class") == f"wall wall-{kind}"
    assert (path.get("stroke-dasharray") is not None) is dashed


def test_door_is_thicker_and_browner_than_a_wall():
    scene = load(sample_scene())
    paths = {p.get("data-id"): p for p in walls(parse(render_svg(scene)))}
    door, wall, window = paths["inner-door"], paths["north"], paths["window"]
    assert float(door.get("stroke-width")) > float(wall.get("stroke-width"))
    assert door.get("stroke") == "#8b4513"
    assert window.get("stroke") == "#4fb3ef"
    assert len({door.get("stroke"), wall.get("stroke"), window.get("stroke")}) == 3


def _tick(path: ET.Element) -> tuple[float, float]:
    """End point of a one-way wall's tick stem: the second ``M`` of the path."""
    moves = re.findall(r"M(-?[\d.]+) (-?[\d.]+)", path.get("d", ""))
    assert len(moves) == 3, path.get("d")
    return float(moves[1][0]), float(moves[1][1])


@pytest.mark.parametrize(
    ("c", "direction", "blocking_side"),
    [
        # GEO-3's example: A=(0,200), B=(400,200), LEFT blocks a viewer at (200,100).
        pytest.param([0, 200, 400, 200], "left", "above", id="geo3-example-left"),
        pytest.param([0, 200, 400, 200], "right", "below", id="geo3-example-right"),
        pytest.param([400, 200, 0, 200], "left", "below", id="swapped-ends-swap-sides"),
    ],
)
def test_one_way_wall_tick_on_blocking_side(c, direction, blocking_side):
    scene = load({"grid": {"size": 100}, "walls": [{"id": "w", "c": c, "direction": direction}]})
    (path,) = walls(parse(render_svg(scene)))
    assert path.get("data-direction") == direction
    x, y = _tick(path)
    assert x == pytest.approx(200)
    assert (y < 200) if blocking_side == "above" else (y > 200)


def test_two_way_wall_has_no_tick():
    (path,) = walls(parse(render_svg(load(mini()))))
    assert path.get("d") == "M0 0L400 0"
    assert path.get("data-direction") is None


def test_token_names_are_text_and_tokens_are_rects():
    root = parse(render_svg(load(sample_scene())))
    groups = find_all(root, "./svg:g[@id='tokens']/svg:g")
    assert [g.get("data-id") for g in groups] == [t["id"] for t in sample_scene()["tokens"]]
    labels = find_all(root, "./svg:g[@id='token-labels']/svg:g")
    assert [g.get("data-id") for g in labels] == [t["id"] for t in sample_scene()["tokens"]]
    texts = [g.find("svg:text[@class='name']", NS).text for g in labels]
    assert texts == ["Elf archer", "Human fighter", "Ogre", "Goblin", "Kobold", "Giant bat"]
    ogre = next(g for g in groups if g.get("data-id") == "ogre").find("svg:rect", NS)
    # 2x2 squares at (400, 400), drawn a little inside its space
    assert 390 < float(ogre.get("x")) <= 401
    assert 190 < float(ogre.get("width")) <= 200


def test_token_name_is_escaped_and_stays_text():
    raw = sample_scene()
    raw["tokens"][0]["name"] = '<b>&"x"'
    svg = render_svg(load(raw))
    assert "<b>" not in svg
    assert "&lt;b&gt;&amp;" in svg
    root = parse(svg)
    texts = [t.text for t in find_all(root, ".//svg:g[@id='token-labels']//svg:text")]
    assert '<b>&"x"' in texts
    assert not find_all(root, ".//b")


def test_ids_in_attributes_are_escaped():
    scene = load(
        {"grid": {"size": 100}, "walls": [{"id": 'w"<&>', "c": [0, 0, 100, 0]}], "tokens": []}
    )
    (path,) = walls(parse(render_svg(scene)))
    assert path.get("data-id") == 'w"<&>'


def test_characters_xml_cannot_hold_are_dropped():
    raw = sample_scene()
    raw["tokens"][0]["name"] = "Orc\x00\x07 chief\ufffe"
    root = parse(render_svg(load(raw)))
    texts = [t.text for t in find_all(root, ".//svg:g[@id='token-labels']//svg:text")]
    assert "Orc chief" in texts


def test_light_bright_and_dim_radii_in_px_when_no_wall_cuts():
    """5E-VIS-3: bright and dim radii (grid units) drawn in px: 100 px per 5 ft."""
    raw = {
        "grid": {"size": 100, "distance": 5},
        "lights": [{"id": "torch", "x": 150, "y": 150, "bright": 20, "dim": 40}],
    }
    root = parse(render_svg(load(raw)))
    (torch,) = find_all(root, "./svg:g[@id='lights']/svg:g[@data-id='torch']")
    circles = {c.get("class"): c for c in torch.findall("svg:circle", NS)}
    assert float(circles["bright"].get("r")) == 400
    assert float(circles["dim"].get("r")) == 800
    assert (circles["dim"].get("cx"), circles["dim"].get("cy")) == ("150", "150")
    assert "source" in circles


def test_cone_light_is_a_sector_and_token_light_is_drawn():
    raw = {
        "grid": {"size": 100, "distance": 5},
        "lights": [{"id": "cone", "x": 0, "y": 0, "bright": 10, "dim": 20, "angle": 90}],
        "tokens": [{"id": "t", "x": 300, "y": 300, "light": {"bright": 5, "dim": 10}}],
    }
    root = parse(render_svg(load(raw)))
    cone = find_all(root, ".//svg:g[@data-id='cone']")[0]
    assert [p.get("class") for p in cone.findall("svg:path", NS)] == ["dim", "bright"]
    carried = find_all(root, ".//svg:g[@class='light token-light on']")[0]
    assert carried.get("data-id") == "t"
    bright = carried.find("svg:circle[@class='bright']", NS)
    assert (bright.get("cx"), bright.get("cy"), bright.get("r")) == ("350", "350", "100")


def test_regions_by_kind_and_shape():
    raw = {
        "grid": {"size": 100},
        "regions": [
            {
                "id": "fog",
                "shape": {"type": "rect", "x": 0, "y": 0, "width": 100, "height": 100},
                "obscurement": "heavy",
            },
            {
                "id": "dark",
                "shape": {"type": "circle", "x": 300, "y": 300, "radius": 50},
                "magical_darkness": True,
            },
            {
                "id": "pool",
                "shape": {"type": "polygon", "points": [[0, 0], [50, 0], [0, 50]]},
                "water": True,
            },
            {
                "id": "mist",
                "shape": {"type": "rect", "x": 0, "y": 0, "width": 10, "height": 10},
                "obscurement": "light",
            },
        ],
    }
    root = parse(render_svg(load(raw)))
    groups = {g.get("data-id"): g for g in find_all(root, "./svg:g[@id='regions']/svg:g")}
    assert groups["fog"].get("class") == "region region-fog-heavy"
    assert groups["fog"].find("svg:rect", NS).get("fill") == "#7d7d7d"
    assert groups["dark"].get("class") == "region region-darkness"
    dark = groups["dark"].find("svg:circle", NS)
    assert (dark.get("fill"), dark.get("r")) == ("#000000", "50")
    assert float(dark.get("fill-opacity")) < 1
    assert groups["pool"].find("svg:polygon", NS).get("points") == "0,0 50,0 0,50"
    assert groups["pool"].find("svg:polygon", NS).get("fill") == "#2f7ed8"
    assert groups["mist"].get("class") == "region region-fog-light"


def test_view_box_is_the_scene_size_when_given():
    root = parse(render_svg(load(sample_scene())))
    x, y, w, h = view_box(root)
    assert (x, w, y + h) == (0, 1000, 800)
    assert y < 0  # the legend band sits above the scene, never over it


def test_view_box_without_size_is_contents_plus_one_square():
    root = parse(render_svg(load(mini())))
    x, y, w, h = view_box(root)
    assert (x, w) == (-100, 600)
    assert y + h == 100  # bottom: wall at y = 0 plus a 100 px margin


def test_lines_coloured_and_caption_in_band_above_scene():
    lines = [
        {"from": [0, 10], "to": [400, 10], "blocked": False, "blockers": []},
        {
            "from": [0, 20],
            "to": [400, 20],
            "blocked": True,
            "blockers": [{"kind": "wall", "id": "w"}],
        },
    ]
    svg = render_svg(load(mini()), lines=lines, caption="Answer: 1 of 2 <blocked>")
    root = parse(svg)
    clear, blocked = traced(root)
    assert (clear.get("class"), clear.get("stroke")) == ("traced clear", CLEAR_COLOUR)
    assert (blocked.get("class"), blocked.get("stroke")) == ("traced blocked", BLOCKED_COLOUR)
    assert blocked.get("data-blockers") == "w"
    assert root.find("svg:title", NS).text == "Answer: 1 of 2 <blocked>"
    caption = root.find("./svg:g[@id='caption']/svg:text", NS)
    assert "".join(caption.itertext()) == "Answer: 1 of 2 <blocked>"
    x, y, w, h = view_box(root)
    assert y < -100  # the band sits above the contents' box
    assert float(caption.get("y")) < -100
    labels = [t.text for t in find_all(root, ".//svg:g[@id='legend']/svg:text")]
    assert labels[:3] == ["clear line", "blocked line", "wall: blocks movement and sight"]


def test_highlight_marks_source_and_target():
    svg = render_svg(load(sample_scene()), highlight=["archer", "goblin"])
    root = parse(svg)
    groups = {g.get("data-id"): g for g in find_all(root, "./svg:g[@id='tokens']/svg:g")}
    assert groups["archer"].get("class") == "token highlight source"
    assert groups["goblin"].get("class") == "token highlight target"
    assert groups["ogre"].get("class") == "token"


# --------------------------------------------------------------------------- queries


def _colours(root: ET.Element) -> list[str]:
    return sorted(line.get("stroke") for line in traced(root))


def test_cover_query_half_cover_two_red_two_green(sample_geo):
    query = {"type": "cover", "ruleset": "dnd5e", "attacker": "archer", "target": "goblin"}
    root = parse(render_query(sample_geo, query))
    assert _colours(root) == sorted([BLOCKED_COLOUR] * 2 + [CLEAR_COLOUR] * 2)
    caption = root.find("svg:title", NS).text
    assert caption.startswith("dnd5e: Goblin has half cover from Elf archer (+2 AC) — ")
    assert "5E-COV-5" in caption


def test_cover_query_total_cover_all_red(sample_geo):
    query = {"type": "cover", "ruleset": "dnd5e", "attacker": "archer", "target": "kobold"}
    root = parse(render_query(sample_geo, query))
    assert _colours(root) == [BLOCKED_COLOUR] * 4
    assert "has total cover from Elf archer (cannot be targeted)" in root.find("svg:title", NS).text
    blockers = {line.get("data-blockers") for line in traced(root)}
    assert all("inner-north" in b.split() for b in blockers)


def test_cover_query_area_origin(sample_geo):
    query = {
        "type": "cover",
        "ruleset": "dnd5e",
        "target": "goblin",
        "attack": {"kind": "area", "origin": [150, 150]},
    }
    root = parse(render_query(sample_geo, query))
    assert traced(root)
    assert "Goblin has no cover from an area at (150, 150)" in root.find("svg:title", NS).text


@pytest.mark.parametrize(
    ("target", "colour", "words"),
    [
        pytest.param(
            "goblin", CLEAR_COLOUR, "Elf archer sees Goblin in bright light (sight)", id="seen"
        ),
        pytest.param(
            "kobold",
            BLOCKED_COLOUR,
            "Elf archer does not see Kobold in dim light: no line of sight",
            id="behind-wall",
        ),
    ],
)
def test_vision_query_centre_line_coloured_by_can_see(sample_geo, target, colour, words):
    query = {"type": "vision", "ruleset": "dnd5e", "observer": "archer", "target": target}
    root = parse(render_query(sample_geo, query))
    (line,) = traced(root)
    assert line.get("stroke") == colour
    # archer (100, 200) 1 square: centre (150, 250)
    assert (line.get("x1"), line.get("y1")) == ("150", "250")
    assert words in root.find("svg:title", NS).text


def test_line_of_effect_query_witness_or_blocked(sample_geo):
    clear = parse(
        render_query(sample_geo, {"type": "line-of-effect", "from": "archer", "to": "goblin"})
    )
    assert _colours(clear) == [CLEAR_COLOUR]
    assert ": clear" in clear.find("svg:title", NS).text
    blocked = parse(
        render_query(sample_geo, {"type": "line-of-effect", "from": "archer", "to": "kobold"})
    )
    assert _colours(blocked) == [BLOCKED_COLOUR]
    assert "blocked by wall inner-north" in blocked.find("svg:title", NS).text


def test_line_query_between_a_point_and_a_token(sample_geo):
    query = {"type": "line-of-sight", "from": {"point": [150, 150], "elevation": 0}, "to": "goblin"}
    root = parse(render_query(sample_geo, query))
    assert root.find("svg:title", NS).text.startswith("line of sight from (150, 150) to Goblin")


@pytest.mark.parametrize(
    ("query", "error", "path"),
    [
        pytest.param({"type": "smell"}, ValidationError, ("query", "type"), id="unknown-type"),
        pytest.param(
            {"type": "cover", "ruleset": "dnd5e", "attacker": "nobody", "target": "goblin"},
            UnknownToken,
            ("query", "attacker"),
            id="unknown-attacker",
        ),
        pytest.param(
            {"type": "cover", "attacker": "archer", "target": "goblin"},
            ValidationError,
            ("query", "ruleset"),
            id="no-ruleset",
        ),
        pytest.param(
            {"type": "cover", "ruleset": "dnd6e", "attacker": "archer", "target": "goblin"},
            RulesError,
            ("query", "ruleset"),
            id="unknown-ruleset",
        ),
        pytest.param(
            {"type": "vision", "ruleset": "dnd5e", "observer": "archer", "target": "archer"},
            RulesError,
            ("query", "target"),
            id="own-target",
        ),
        pytest.param(
            {"type": "line-of-effect", "from": "archer", "to": "ghost"},
            UnknownToken,
            ("query", "to"),
            id="unknown-line-end",
        ),
        pytest.param(
            {"type": "line-of-effect", "from": [1], "to": "goblin"},
            ValidationError,
            ("query", "from"),
            id="bad-point",
        ),
        pytest.param(
            {
                "type": "cover",
                "ruleset": "dnd5e",
                "attacker": "archer",
                "target": "goblin",
                "options": {"cover_method": "best"},
            },
            ValidationError,
            ("query", "options", "cover_method"),
            id="bad-option",
        ),
        pytest.param(
            {
                "type": "cover",
                "ruleset": "dnd5e",
                "attacker": "archer",
                "target": "goblin",
                "options": {"measure_from": "center"},
            },
            RulesError,
            ("query", "options", "measure_from"),
            id="option-of-another-ruleset",
        ),
    ],
)
def test_query_errors_name_the_field(sample_geo, query, error, path):
    """Schema errors (the request's, or the options the operation loads) and the asked
    operation's errors all name the field under ``query``, as ``POST /v1/render`` answers."""
    with pytest.raises(error) as info:
        render_query(sample_geo, query)
    if error is ValidationError:
        node = info.value.messages
        for key in path:
            node = node[key]
    else:
        assert info.value.path == path


# --------------------------------------------------------------------------- a real map


def test_delian_tomb_cover_picture():
    export = json.loads(real_file("foundry", "foundry-v10-delian-tomb.json").read_text("utf-8"))
    raw = foundry.to_scene(export)["scene"]
    geo = build_scene(load(raw))
    query = {
        "type": "cover",
        "ruleset": "dnd5e",
        "attacker": "vTb2FbAEQ4QQcZAA",
        "target": "bNmhsTCeyRtXVwRs",
    }
    root = parse(render_query(geo, query))
    paths = walls(root)
    assert [p.get("data-id") for p in paths] == [w["id"] for w in raw["walls"]]
    kinds = [p.get("class").split()[1] for p in paths]
    assert kinds.count("wall-limited") == 11
    assert kinds.count("wall-secret") == 1
    tokens = find_all(root, "./svg:g[@id='tokens']/svg:g")
    assert len(tokens) == 14
    # one corner line crosses the goblin standing between them; three are clear
    assert _colours(root) == sorted([BLOCKED_COLOUR] + [CLEAR_COLOUR] * 3)
    blocked = next(line for line in traced(root) if line.get("stroke") == BLOCKED_COLOUR)
    assert blocked.get("data-blockers") == "dzhJEKL8ieyyB4hm"
    x, y, w, h = view_box(root)
    assert (x, w, y + h) == (0, 6148, 6148)
    caption = root.find("svg:title", NS).text
    assert caption.startswith(
        "dnd5e: Goblin (bNmhsTCeyRtXVwRs) has no cover from Goblin (vTb2FbAEQ4QQcZAA) — "
    )


@pytest.mark.parametrize(
    "grid",
    [{"size": 1e5, "distance": 0.001}, {"size": 1, "distance": 1e6}, {"size": 50, "distance": 5}],
    ids=["most px per unit", "fewest px per unit", "ordinary"],
)
def test_extreme_valid_scenes_draw_finite_numbers(grid):
    """The smallest grid distance and the largest radii still draw finite numbers: no ``inf``
    or ``nan`` in the SVG (a tiny grid distance used to draw ``r="inf"``)."""
    scene = load(
        {
            "grid": grid,
            "walls": [{"id": "w", "c": [-1e7, 0, 1e7, 0]}],
            "tokens": [{"id": "a", "x": 0, "y": 0, "light": {"bright": 1e6, "dim": 1e6}}],
            "lights": [{"id": "l", "x": 0, "y": 0, "dim": 1e6, "angle": 90}],
        }
    )
    svg = render_svg(scene)
    parse(svg)
    assert not re.search(r"\b(inf|nan)\b", svg, re.IGNORECASE)


# --------------------------------------------------------------------------- walls, lights, regions


def _labels(root: ET.Element) -> list[str]:
    return [t.text for t in find_all(root, ".//svg:g[@id='legend']/svg:text")]


@pytest.mark.parametrize(
    ("wall", "kind", "blocks"),
    [
        pytest.param({}, "normal", "move sight light sound", id="GEO-1 wall blocks all"),
        pytest.param(
            {"sight": "none", "light": "none", "sound": "none"},
            "window",
            "move",
            id="GEO-1 invisible wall: movement only",
        ),
        pytest.param(
            {"sight": "none", "light": "none"}, "window", "move sound", id="GEO-1 glass window"
        ),
        pytest.param(
            {"move": "none", "sound": "none"},
            "sight-only",
            "sight light",
            id="GEO-1 ethereal: sight not movement",
        ),
        pytest.param(
            {"move": "none", "sight": "none", "sound": "none"},
            "light-only",
            "light",
            id="GEO-1 light only",
        ),
        pytest.param(
            {"move": "none", "sight": "none", "light": "none"},
            "sound-only",
            "sound",
            id="GEO-1 sound only",
        ),
        pytest.param(
            {"move": "none", "sight": "none", "light": "none", "sound": "none"},
            "none",
            "",
            id="GEO-1 blocks nothing",
        ),
        pytest.param(
            {"sight": "proximity", "light": "proximity", "threshold": {"sight": 10}},
            "proximity",
            "move sight light sound",
            id="GEO-4 Foundry window: proximity",
        ),
        pytest.param(
            {"sight": "distance", "threshold": {"sight": 10}},
            "proximity",
            "move sight light sound",
            id="GEO-4 distance",
        ),
        pytest.param({"sight": "limited"}, "limited", "move sight light sound", id="GEO-4 terrain"),
        pytest.param(
            {"door": "door", "door_state": "open"}, "door-open", "", id="GEO-2 open door: nothing"
        ),
        pytest.param({"door": "door"}, "door", "move sight light sound", id="GEO-2 closed door"),
    ],
)
def test_walls_drawn_by_what_they_block_with_a_legend(wall, kind, blocks):
    """GEO-1/2/4: each wall's class names its kind, ``data-blocks`` what it restricts, and
    the legend names each kind drawn by what it blocks."""
    scene = load({"grid": {"size": 100}, "walls": [{"id": "w", "c": [0, 0, 400, 0], **wall}]})
    root = parse(render_svg(scene))
    (path,) = walls(root)
    assert path.get("class") == f"wall wall-{kind}"
    assert path.get("data-blocks") == blocks
    assert WALL_STYLES[kind].label in _labels(root)


def test_window_and_proximity_walls_are_drawn_distinct_from_walls():
    """GEO-1, GEO-4: wall, window, proximity and distance walls each have their own stroke."""
    scene = load(
        {
            "grid": {"size": 100},
            "walls": [
                {"id": "wall", "c": [0, 0, 100, 0]},
                {"id": "window", "c": [0, 100, 100, 100], "sight": "none", "light": "none"},
                {"id": "prox", "c": [0, 200, 100, 200], "sight": "proximity"},
            ],
        }
    )
    strokes = {
        p.get("data-id"): (p.get("stroke"), p.get("stroke-dasharray"))
        for p in walls(parse(render_svg(scene)))
    }
    assert len(set(strokes.values())) == 3
    labels = _labels(parse(render_svg(scene)))
    assert "window: blocks movement, not sight" in labels
    assert "proximity / distance" in labels


# ----- light


def _light_group(root: ET.Element, light_id: str) -> ET.Element:
    (g,) = find_all(root, f"./svg:g[@id='lights']/svg:g[@data-id='{light_id}']")
    return g


def _lit_polygon(group: ET.Element, cls: str = "dim"):
    """The lit area of a light group as a shapely polygon (path ``M x y L x y ... Z``)."""
    path = group.find(f"svg:path[@class='{cls}']", NS)
    assert path is not None, "the lit area is a path when walls clip it"
    rings = []
    for ring in path.get("d").split("Z"):
        pts = [(float(x), float(y)) for x, y in re.findall(r"(-?[\d.]+) (-?[\d.]+)", ring)]
        if len(pts) >= 3:
            rings.append(Polygon(pts))
    return unary_union(rings)


def test_switched_off_light_is_not_drawn_lit():
    """``Light.on: false``: no bright or dim area, its source crossed out, legend says off."""
    raw = {
        "grid": {"size": 100, "distance": 5},
        "lights": [{"id": "off", "x": 0, "y": 0, "bright": 10, "dim": 20, "on": False}],
    }
    root = parse(render_svg(load(raw)))
    group = _light_group(root, "off")
    assert group.get("class").split() == ["light", "off"]
    drawn = [e for e in group if e.tag != f"{{{NS['svg']}}}title"]
    assert {e.get("class") for e in drawn} == {"off-cross", "source"}
    for element in drawn:
        assert element.get("fill") in ("none", "#ffffff")
    assert "light switched off: its source crossed out" in _labels(root)
    assert "light: bright / dim, as walls let it" not in _labels(root)


def test_private_lights_are_marked_private():
    """``seen_by: "controllers"`` on a light and on a token's carried light."""
    raw = {
        "grid": {"size": 100, "distance": 5},
        "lights": [{"id": "mine", "x": 0, "y": 0, "bright": 10, "seen_by": "controllers"}],
        "tokens": [
            {"id": "t", "x": 500, "y": 0, "light": {"bright": 5, "seen_by": "controllers"}},
            {"id": "u", "x": 900, "y": 0, "light": {"bright": 5}},
        ],
    }
    root = parse(render_svg(load(raw)))
    assert "private" in _light_group(root, "mine").get("class").split()
    assert "private" in _light_group(root, "t").get("class").split()
    assert "private" not in _light_group(root, "u").get("class").split()
    assert "private light (its controllers only)" in _labels(root)


def _one_wall_light(wall: dict, light: dict | None = None) -> ET.Element:
    raw = {
        "grid": {"size": 100, "distance": 5},
        "walls": [{"id": "w", "c": [300, -1000, 300, 1000], **wall}],
        "lights": [{"id": "l", "x": 100, "y": 0, "bright": 10, "dim": 20, **(light or {})}],
    }
    return _light_group(parse(render_svg(load(raw))), "l")


@pytest.mark.parametrize(
    "wall",
    [
        pytest.param({}, id="GEO-1 wall"),
        pytest.param({"move": "none", "sight": "none", "sound": "none"}, id="GEO-1 light only"),
        pytest.param({"direction": "right"}, id="GEO-3 one-way, light on its blocking side"),
        pytest.param(
            {"light": "proximity", "threshold": {"light": 5}}, id="GEO-4 proximity, light far"
        ),
        pytest.param({"height": {"bottom": 0, "top": 10}}, id="GEO-5 light inside its heights"),
    ],
)
def test_light_is_clipped_by_walls_that_block_light(wall):
    """GEO-1: the lit area (dim radius 400 px from x=100) stops at the wall x=300; it never
    crosses a wall that blocks light."""
    group = _one_wall_light(wall)
    lit = _lit_polygon(group, "dim")
    assert lit.bounds[2] <= 300 + 0.01
    wall_line = LineString([(300, -1000), (300, 1000)])
    assert not lit.crosses(wall_line)
    # the circle of 400 px less its cap beyond x = 300, 200 px from the light
    cap = 400**2 * math.acos(200 / 400) - 200 * math.sqrt(400**2 - 200**2)
    assert lit.area == pytest.approx(math.pi * 400**2 - cap, rel=0.01)


@pytest.mark.parametrize(
    ("wall", "light"),
    [
        pytest.param({"light": "none"}, None, id="GEO-1 window lets light through"),
        pytest.param({"door": "door", "door_state": "open"}, None, id="GEO-2 open door"),
        pytest.param({"direction": "left"}, None, id="GEO-3 one-way, light on the other side"),
        pytest.param({"light": "limited"}, None, id="GEO-4 one limited wall"),
        pytest.param(
            {"light": "proximity", "threshold": {"light": 15}}, None, id="GEO-4 proximity, near"
        ),
        pytest.param({"height": {"bottom": 0, "top": 10}}, {"elevation": 20}, id="GEO-5 over it"),
        pytest.param({}, {"walls": False}, id="light not constrained by walls"),
    ],
)
def test_light_not_clipped_by_walls_that_let_it_pass(wall, light):
    group = _one_wall_light(wall, light)
    dim = group.find("svg:circle[@class='dim']", NS)
    assert dim is not None and float(dim.get("r")) == 400


def test_two_limited_walls_clip_light_at_the_second():
    """GEO-4: light passes one limited wall and stops at the second."""
    raw = {
        "grid": {"size": 100, "distance": 5},
        "walls": [
            {"id": "a", "c": [200, -1000, 200, 1000], "light": "limited"},
            {"id": "b", "c": [300, -1000, 300, 1000], "light": "limited"},
        ],
        "lights": [{"id": "l", "x": 100, "y": 0, "dim": 20}],
    }
    lit = _lit_polygon(_light_group(parse(render_svg(load(raw))), "l"))
    assert 299 < lit.bounds[2] <= 300.01


@settings(max_examples=40, deadline=None)
@given(
    st.tuples(*[st.integers(-600, 600)] * 4),
    st.integers(-300, 300),
    st.integers(-300, 300),
)
def test_lit_area_never_reaches_past_a_light_blocking_wall(c, lx, ly):
    """GEO-1 property: from the light to any corner of its drawn lit area (pulled 1 px
    towards the light), the straight line never crosses a wall that blocks light (GEO-6:
    running along it or through its tip is no crossing)."""
    assume(math.hypot(c[2] - c[0], c[3] - c[1]) > 10)
    wall_line = LineString([c[:2], c[2:]])
    assume(wall_line.distance(Point(lx, ly)) > 1)
    raw = {
        "grid": {"size": 100, "distance": 5},
        "walls": [{"id": "w", "c": list(c)}],
        "lights": [{"id": "l", "x": lx, "y": ly, "dim": 20}],
    }
    group = _light_group(parse(render_svg(load(raw))), "l")
    if group.find("svg:path[@class='dim']", NS) is None:
        # a whole circle: the wall is out of reach, or edge-on to the light (GEO-6)
        edge_on = (c[2] - c[0]) * (ly - c[1]) - (c[3] - c[1]) * (lx - c[0]) == 0
        assert edge_on or wall_line.distance(Point(lx, ly)) >= 399
        return
    lit = _lit_polygon(group)
    for x, y in lit.exterior.coords:
        # Pull each corner 1 px towards the light: corners on the wall itself are fine.
        d = math.hypot(x - lx, y - ly)
        if d <= 1:
            continue
        inner = (x - (x - lx) / d, y - (y - ly) / d)
        ray = LineString([(lx, ly), inner])
        # GEO-6: running along the wall or through its tip is no crossing.
        assert not ray.crosses(wall_line) or ray.distance(Point(inner)) < 0.05, (c, lx, ly, x, y)


# ----- regions, map outline


@pytest.mark.parametrize(
    ("level", "label"),
    [
        pytest.param("dark", "region: in darkness", id="GEO-9 dark"),
        pytest.param("dim", "region: dim light", id="GEO-9 dim"),
        pytest.param("bright", "region: bright light", id="GEO-9 bright"),
    ],
)
def test_region_drawn_with_its_light(level, label):
    """GEO-9: a region's light shades it; with fog, both its fog and its light are drawn."""
    shape = {"type": "rect", "x": 0, "y": 0, "width": 200, "height": 200}
    raw = {
        "grid": {"size": 100},
        "regions": [
            {"id": "lit", "shape": shape, "light": level},
            {"id": "foggy", "shape": shape, "light": level, "obscurement": "heavy"},
        ],
    }
    root = parse(render_svg(load(raw)))
    groups = {g.get("data-id"): g for g in find_all(root, "./svg:g[@id='regions']/svg:g")}
    assert groups["lit"].get("class") == f"region region-light-{level}"
    assert [r.get("class") for r in groups["lit"].findall("svg:rect", NS)] == [f"light-{level}"]
    assert groups["foggy"].get("class") == f"region region-fog-heavy region-light-{level}"
    classes = [r.get("class") for r in groups["foggy"].findall("svg:rect", NS)]
    assert classes == [f"light-{level}", "fog-heavy"]
    assert label in _labels(root)


def test_cropped_map_shows_its_outline():
    """A scene with ``width``/``height`` (a cropped Universal VTT map) draws its outline, even
    when walls reach outside it."""
    raw = {
        "grid": {"size": 100},
        "width": 500,
        "height": 300,
        "walls": [{"id": "w", "c": [-200, 100, 800, 100]}],
    }
    root = parse(render_svg(load(raw)))
    (outline,) = find_all(root, "./svg:rect[@id='map-outline']")
    assert [outline.get(k) for k in ("x", "y", "width", "height")] == ["0", "0", "500", "300"]
    assert outline.get("fill") == "none"
    x, _, w, _ = view_box(root)
    assert (x, w) == (-200, 1000)
    assert "map outline (scene width × height)" in _labels(root)
    assert not find_all(parse(render_svg(load(mini()))), "./svg:rect[@id='map-outline']")
    inside = {**raw, "walls": [{"id": "w", "c": [0, 100, 500, 100]}]}
    assert "map outline (scene width × height)" not in _labels(parse(render_svg(load(inside))))


# ----- readable text at any grid size


def _output_scale(root: ET.Element) -> float:
    return float(root.get("width")) / view_box(root)[2]


@pytest.mark.parametrize(
    ("grid", "squares"),
    [
        pytest.param(35, 40, id="roll20 35 px grid, 40 squares"),
        pytest.param(35, 128, id="roll20 35 px grid, 4480 px page"),
        pytest.param(70, 20, id="roll20 70 px grid"),
        pytest.param(150, 60, id="foundry large map"),
        pytest.param(20, 5, id="tiny scene"),
    ],
)
def test_text_is_readable_at_any_grid_size(grid, squares):
    """Every text (token names, caption, legend) is at least MIN_TEXT_PX output px high
    (a 35 px Roll20 grid gave 4 px names), and walls at least MIN_WALL_PX wide."""
    size = grid * squares
    raw = {
        "grid": {"size": grid, "distance": 5},
        "width": size,
        "height": size,
        "walls": [{"id": "w", "c": [0, grid, size, grid]}],
        "tokens": [
            {"id": "a", "name": "Goblin archer", "x": 0, "y": 0},
            {"id": "b", "name": "Kobold", "x": size - grid, "y": size - grid},
        ],
    }
    svg = render_query(build_scene(load(raw)), {"type": "line-of-effect", "from": "a", "to": "b"})
    root = parse(svg)
    out = _output_scale(root)
    texts = root.findall(".//svg:text", NS)
    assert len(texts) >= 4
    for text in texts:
        assert float(text.get("font-size")) * out >= MIN_TEXT_PX - 0.01, text.text
    (wall,) = walls(root)
    assert float(wall.get("stroke-width")) * out >= 2.0


def test_long_caption_wraps_instead_of_shrinking():
    caption = "dnd5e: " + " ".join(["Goblin"] * 80)
    root = parse(render_svg(load(mini()), caption=caption))
    node = root.find("./svg:g[@id='caption']/svg:text", NS)
    assert len(node.findall("svg:tspan", NS)) > 1
    assert "".join(node.itertext()) == caption
    assert float(node.get("font-size")) * _output_scale(root) >= MIN_TEXT_PX


# ----- captions


def _vision_answer(**result) -> dict:
    base = {
        "can_see": True,
        "sense": "sight",
        "light": "bright",
        "magical_darkness": False,
        "line_of_sight": True,
        "obscurement": "none",
        "detection": "observed",
        "concealed": False,
        "flat_check_dc": None,
        "concealment": "none",
        "miss_chance": 0,
        "rules": ["5E-VIS-3"],
    }
    return {"ruleset": "dnd5e", "results": [{**base, **result}]}


def _cover_answer(**result) -> dict:
    base = {
        "cover": "half",
        "ac_bonus": 2,
        "advantage_levels": 0,
        "concealment": "none",
        "miss_chance": 0,
        "rules": ["5E-COV-1"],
    }
    return {"ruleset": "dnd5e", "results": [{**base, **result}]}


VISION_Q = {"type": "vision", "observer": "archer", "target": "goblin"}
COVER_Q = {"type": "cover", "attacker": "archer", "target": "goblin", "attack": None}


@pytest.mark.parametrize(
    ("query", "answer", "said"),
    [
        pytest.param(
            VISION_Q,
            _vision_answer(sense="darkvision", light="dark"),
            "dnd5e: Elf archer sees Goblin in darkness (darkvision) — 5E-VIS-3",
            id="5E-VIS-3 darkvision in darkness",
        ),
        pytest.param(
            VISION_Q,
            _vision_answer(light="dim"),
            "dnd5e: Elf archer sees Goblin in dim light (sight) — 5E-VIS-3",
            id="5E-VIS-3 dim",
        ),
        pytest.param(
            VISION_Q,
            _vision_answer(can_see=False, sense=None, light="dark", magical_darkness=True),
            "dnd5e: Elf archer does not see Goblin in magical darkness — 5E-VIS-3",
            id="5E-VIS-5 magical darkness",
        ),
        pytest.param(
            VISION_Q,
            _vision_answer(can_see=False, sense="hearing", light="dark", line_of_sight=False),
            "dnd5e: Elf archer does not see Goblin in darkness, only perceives it by hearing: "
            "no line of sight — 5E-VIS-3",
            id="heard only",
        ),
        pytest.param(
            VISION_Q,
            _vision_answer(sense="devils_sight", light="dark", obscurement="heavy"),
            "dnd5e: Elf archer sees Goblin in darkness (Devil's Sight): heavily obscured"
            " — 5E-VIS-3",
            id="5E-VIS-2 heavily obscured",
        ),
        pytest.param(
            VISION_Q,
            _vision_answer(detection="hidden", concealed=True, flat_check_dc=5),
            "dnd5e: Elf archer sees Goblin in bright light (sight): hidden, concealed "
            "(DC 5 flat check) — 5E-VIS-3",
            id="PV-DET hidden and concealed",
        ),
        pytest.param(
            COVER_Q,
            _cover_answer(),
            "dnd5e: Goblin has half cover from Elf archer (+2 AC) — 5E-COV-1",
            id="5E-COV half",
        ),
        pytest.param(
            COVER_Q,
            _cover_answer(cover="none", ac_bonus=0),
            "dnd5e: Goblin has no cover from Elf archer — 5E-COV-1",
            id="5E-COV none",
        ),
        pytest.param(
            COVER_Q,
            _cover_answer(cover="total", ac_bonus=None),
            "dnd5e: Goblin has total cover from Elf archer (cannot be targeted) — 5E-COV-1",
            id="5E-COV total",
        ),
        pytest.param(
            COVER_Q,
            _cover_answer(cover="cover", ac_bonus=4, concealment="partial", miss_chance=20),
            "dnd5e: Goblin has cover from Elf archer (+4 AC), partial concealment "
            "(20% miss chance) — 5E-COV-1",
            id="SF-COV plain cover degree",
        ),
        pytest.param(
            {"type": "line-of-effect", "from": {"token": "archer"}, "to": {"token": "goblin"}},
            {"clear": False, "blockers": [{"kind": "token", "id": "ogre"}], "rules": []},
            "line of effect from Elf archer to Goblin: blocked by Ogre",
            id="creature blocker by name",
        ),
        pytest.param(
            {"type": "line-of-sight", "from": {"point": [1, 2]}, "to": {"token": "goblin"}},
            {"clear": True, "blockers": [], "rules": ["GEO-1"]},
            "line of sight from (1, 2) to Goblin: clear — GEO-1",
            id="point to token, clear",
        ),
    ],
)
def test_caption_wording(query, answer, said):
    """Every caption template reads as a sentence: "in darkness", never "dark light"."""
    caption, _ = CAPTIONS[query["type"]](load(sample_scene()), query, answer)
    assert caption == said
    assert "dark light" not in caption and "none light" not in caption


@pytest.mark.parametrize("level", ["bright", "dim", "dark"])
def test_no_caption_says_dark_light(level):
    for can_see, sense in ((True, "sight"), (False, "hearing"), (False, None)):
        answer = _vision_answer(can_see=can_see, sense=sense, light=level)
        caption, _ = CAPTIONS["vision"](load(sample_scene()), VISION_Q, answer)
        assert f"{level} light" not in caption or level != "dark"
        assert LIGHT_WORDS[level] in caption


# ----- elevation, hex and gridless


def _elevated_scene(bat_elevation: float) -> dict:
    return {
        "grid": {"size": 100, "distance": 5},
        "walls": [{"id": "low", "c": [300, -200, 300, 400], "height": {"bottom": 0, "top": 10}}],
        "tokens": [
            {"id": "archer", "name": "Archer", "x": 0, "y": 0},
            {"id": "bat", "name": "Bat", "x": 500, "y": 0, "elevation": bat_elevation},
        ],
    }


def test_elevation_labels_when_heights_decide():
    """GEO-5/GEO-5a: the wall the lines cross is labelled with its height range, the flying
    creature with its extent, and the caption gives both creatures' extents."""
    geo = build_scene(load(_elevated_scene(30)))
    query = {"type": "line-of-effect", "from": "archer", "to": "bat"}
    root = parse(render_query(geo, query))
    (label,) = find_all(root, "./svg:g[@id='height-labels']/svg:text")
    assert (label.get("data-id"), label.text) == ("low", "0–10 ft")
    assert "height-label" in label.get("class").split()
    (path,) = walls(root)
    assert path.get("data-height") == "0–10 ft"
    elevations = {
        g.get("data-id"): g.find("svg:text[@class='elevation']", NS)
        for g in find_all(root, "./svg:g[@id='token-labels']/svg:g")
    }
    assert elevations["bat"].text == "30–35 ft"
    assert elevations["archer"].text == "0–5 ft"
    assert root.find("svg:title", NS).text.startswith(
        "line of effect from Archer to Bat: clear · Archer 0–5 ft, Bat 30–35 ft"
    )


def test_no_elevation_text_on_flat_scenes():
    geo = build_scene(load(_elevated_scene(0)))
    root = parse(render_query(geo, {"type": "line-of-effect", "from": "archer", "to": "bat"}))
    assert not find_all(root, ".//svg:text[@class='elevation']")
    assert "ft" not in root.find("svg:title", NS).text
    # the wall's height still decides the line, so it is labelled
    assert find_all(root, "./svg:g[@id='height-labels']/svg:text")


@pytest.mark.parametrize(
    ("extent", "units", "said"),
    [
        pytest.param({"vertical_extent": 3}, "ft", "Bat 30–33 ft", id="GEO-5a own height"),
        pytest.param({"size": "large"}, "ft", "Bat 30–40 ft", id="GEO-5a large 10 ft"),
        pytest.param({"size": "tiny"}, "ft", "Bat 30–32.5 ft", id="GEO-5a tiny 2.5 ft"),
        pytest.param({}, "m", "Bat 30–31.5 m", id="GEO-5a medium 1.5 m"),
    ],
)
def test_caption_heights_from_size_or_own_height(extent, units, said):
    raw = _elevated_scene(30)
    raw["grid"]["units"] = units
    raw["tokens"][1].update(extent)
    caption, _ = CAPTIONS["line-of-effect"](
        load(raw),
        {"type": "line-of-effect", "from": {"token": "archer"}, "to": {"token": "bat"}},
        {"clear": True, "blockers": [], "rules": []},
    )
    assert caption.endswith(said)


@pytest.mark.parametrize(
    ("grid_type", "shape", "pattern"),
    [
        pytest.param("square", "rect", "grid-square", id="square"),
        pytest.param("hex-row", "polygon", "grid-hex-row", id="hex rows: pointy"),
        pytest.param("hex-col", "polygon", "grid-hex-col", id="hex columns: flat"),
        pytest.param("gridless", "ellipse", None, id="gridless: no squares"),
    ],
)
def test_grid_types_drawn_as_such(grid_type, shape, pattern):
    raw = {
        "grid": {"size": 100, "type": grid_type},
        "tokens": [{"id": "t", "x": 0, "y": 0}],
    }
    root = parse(render_svg(load(raw)))
    (token,) = find_all(root, "./svg:g[@id='tokens']/svg:g")
    drawn = [e.tag.split("}")[1] for e in token if not e.tag.endswith("title")]
    assert drawn == [shape]
    patterns = find_all(root, "./svg:defs/svg:pattern")
    assert [p.get("class") for p in patterns] == ([pattern] if pattern else [])
    assert bool(find_all(root, "./svg:rect[@id='grid-lines']")) is bool(pattern)
    if shape == "polygon":
        points = token.find("svg:polygon", NS).get("points").split()
        assert len(points) == 6


def test_unnamed_tokens_get_no_label_unless_highlighted():
    """Roll20 tokens without a name: no long id written over the map (it is in the title)."""
    raw = {
        "grid": {"size": 35},
        "tokens": [
            {"id": "-KdtA7i3vge7xTsvW5Dq", "name": "", "x": 0, "y": 0},
            {"id": "b", "x": 70, "y": 0},
        ],
    }
    root = parse(render_svg(load(raw)))
    assert not find_all(root, "./svg:g[@id='token-labels']/svg:g")
    root = parse(render_svg(load(raw), highlight=["-KdtA7i3vge7xTsvW5Dq"]))
    (label,) = find_all(root, "./svg:g[@id='token-labels']/svg:g")
    assert label.get("data-id") == "-KdtA7i3vge7xTsvW5Dq"


def test_light_clipping_is_bounded_per_picture(monkeypatch):
    """Clipping work is bounded: once the picture's ray–wall tests are spent, further lights
    are whole circles whose titles say they were not clipped."""
    monkeypatch.setattr(lightarea, "PICTURE_TESTS", 2000)
    raw = {
        "grid": {"size": 100, "distance": 5},
        "walls": [{"id": "w", "c": [300, -1000, 300, 1000]}],
        "lights": [{"id": f"l{k}", "x": 100, "y": 10 * k, "dim": 20} for k in range(20)],
    }
    root = parse(render_svg(load(raw)))
    groups = find_all(root, "./svg:g[@id='lights']/svg:g")
    clipped = [g.find("svg:path[@class='dim']", NS) is not None for g in groups]
    assert clipped[0] and not clipped[-1]
    assert clipped == sorted(clipped, reverse=True)
    assert "not clipped" in groups[-1].find("svg:title", NS).text


def test_cone_light_is_clipped_by_walls_too():
    """A cone (angle 90, rotation -90: facing +x) stops at the light-blocking wall x = 300."""
    group = _one_wall_light({}, {"angle": 90, "rotation": -90})
    lit = _lit_polygon(group, "dim")
    assert lit.bounds[2] <= 300.01
    assert lit.bounds[0] >= 100 - 0.01  # facing +x: nothing behind the light
    assert lit.area < math.pi * 400**2 / 4


@pytest.mark.parametrize(
    ("grid_type", "origin"),
    [
        pytest.param("square", ("0", "0"), id="squares from (0, 0)"),
        pytest.param("hex-row", ("35", "0"), id="hex-row: row 0 centred on x = 0 (odd rows)"),
        pytest.param("hex-col", ("0", "35"), id="hex-col: column 0 centred on y = 0 (odd)"),
    ],
)
def test_grid_cells_start_at_the_scene_origin(grid_type, origin):
    """The drawn cells are the engine's lattice: from the scene's (0, 0); on hex grids
    ``grid.size`` px between adjacent centres (docs/decisions.md "Hex grids")."""
    root = parse(render_svg(load({"grid": {"size": 70, "type": grid_type}})))
    (pattern,) = find_all(root, "./svg:defs/svg:pattern")
    assert (pattern.get("x"), pattern.get("y")) == origin
    across = {"square": (70, 70), "hex-row": (70, 121.24), "hex-col": (121.24, 70)}[grid_type]
    assert (float(pattern.get("width")), float(pattern.get("height"))) == across
