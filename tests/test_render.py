"""SVG pictures (service.render): well-formed, one element per object, escaped, coloured."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from marshmallow import ValidationError

from adapters import foundry
from schemas.scene import SceneSchema
from service.app import sample_scene
from service.engine.scene import build_scene
from service.errors import RulesError, UnknownToken
from service.operations import OPERATIONS
from service.render import (
    BLOCKED_COLOUR,
    CLEAR_COLOUR,
    render_svg,
    wall_kind,
)
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
    texts = [g.find("svg:text", NS).text for g in groups]
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
    texts = [t.text for t in find_all(root, ".//svg:g[@id='tokens']//svg:text")]
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
    texts = [t.text for t in find_all(root, ".//svg:g[@id='tokens']//svg:text")]
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
    assert labels[:3] == ["clear line", "blocked line", "wall: blocks movement, sight, light"]


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
