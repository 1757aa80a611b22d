"""Floors of the real buildings answer as floors do (RULES GEO-10, GEO-5, FORMATS pitfall 15).

The two Forgotten Adventures v14 buildings of ``../shared/scenes/real/foundry/`` and the
Levels-module tower (v9), imported, with probe tokens placed on their floors:

- two creatures on the same floor never meet a wall of another floor;
- two creatures on different floors with a surface between them have no line of sight and
  total cover;
- a light of the floor below does not light a creature on the floor above it;
- a creature at the top of a stairwell (no surface there) sees the one below.

Probes stand on squares wholly covered by their floor's surface (or wholly open, for the
stairwell), found with shapely from the imported surfaces.
"""

from __future__ import annotations

import copy
import itertools

import pytest
import shapely

from adapters.foundry import to_scene
from schemas.scene import SceneSchema
from service.app import create_app
from service.engine.scene import build_scene
from service.geometry.surfaces import planes
from tests.conftest import load_real

EASTGATE = "foundry-v14-fa-eastgate-guard-outpost-levels.json"
SLUMS = "foundry-v14-fa-desert-slums-levels.json"
TOWER = "foundry-v9-vttom-tower-levels.json"


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


def imported(name: str) -> dict:
    return to_scene(load_real("foundry", name))["scene"]


def floor_planes(scene: dict) -> dict[float, shapely.Geometry]:
    built = build_scene(SceneSchema().load(scene))
    assert built.surfaces is not None
    return dict(planes(built.surfaces, "sight"))


def squares(scene: dict, inside: shapely.Geometry, outside: shapely.Geometry | None, n: int):
    """Up to ``n`` grid squares (top-left px) wholly in ``inside`` and clear of ``outside``."""
    size = scene["grid"]["size"]
    x0, y0, x1, y1 = inside.bounds
    found = []
    for y in range(int(y0 // size) * int(size), int(y1), int(size)):
        for x in range(int(x0 // size) * int(size), int(x1), int(size)):
            box = shapely.box(x + 1, y + 1, x + size - 1, y + size - 1)
            if inside.contains(box) and (outside is None or not outside.intersects(box)):
                found.append((x, y))
    step = max(1, len(found) // n)
    return found[::step][:n]


def probe(x: float, y: float, elevation: float, tid: str) -> dict:
    return {"id": tid, "x": x, "y": y, "elevation": elevation}


def with_tokens(scene: dict, tokens: list[dict], light: str | None = None) -> dict:
    out = copy.deepcopy(scene)
    out["tokens"] = tokens
    if light is not None:
        out["environment"]["light"] = light
    return out


def wall_level(scene: dict) -> dict[str, tuple]:
    """Each wall's height range, by id (``None`` for a wall of every floor)."""
    return {
        w["id"]: None if w["height"] is None else (w["height"]["bottom"], w["height"]["top"])
        for w in scene["walls"]
    }


def floors_of(scene: dict) -> list[tuple[float, float]]:
    return sorted((lv["bottom"], lv["top"]) for lv in scene["levels"])


@pytest.mark.parametrize("name", [EASTGATE, SLUMS, TOWER])
def test_creatures_on_one_floor_meet_no_wall_of_another_floor(client, name):
    """GEO-5/GEO-10: a wall of another floor's range never blocks a line on this floor."""
    scene = imported(name)
    heights = wall_level(scene)
    floors = floor_planes(scene)
    checked = 0
    for bottom, top in floors_of(scene):
        if bottom not in floors:
            continue
        spots = squares(scene, floors[bottom], None, 6)
        tokens = [probe(x, y, bottom, f"p{k}") for k, (x, y) in enumerate(spots)]
        for a, b in itertools.combinations(tokens, 2):
            body = {"ruleset": "dnd5e", "scene": with_tokens(scene, tokens)}
            body.update(attacker=a["id"], targets=[b["id"]])
            resp = client.post("/v1/cover", json=body)
            assert resp.status_code == 200, resp.get_json()
            for line in resp.get_json()["results"][0]["lines"]:
                for blocker in line["blockers"]:
                    if blocker["kind"] != "wall":
                        continue
                    span = heights[blocker["id"]]
                    assert span is None or span[0] < top and bottom < span[1], (blocker, span)
            checked += 1
    assert checked >= 10


def _stacked_pairs(scene: dict, n: int = 4):
    """Pairs (lower, upper) of probes on successive floors with a surface over the lower."""
    floors = floor_planes(scene)
    levels = floors_of(scene)
    for (lo, _), (hi, _) in zip(levels, levels[1:], strict=False):
        if hi not in floors or lo not in floors:
            continue
        both = shapely.intersection(floors[lo], floors[hi])
        for k, (x, y) in enumerate(squares(scene, both, None, n)):
            size = scene["grid"]["size"]
            yield probe(x, y, lo, f"low{k}"), probe(x + 2 * size, y, hi, f"up{k}"), both


@pytest.mark.parametrize("name", [EASTGATE, SLUMS, TOWER])
def test_creatures_on_different_floors_do_not_see_or_hit_through_the_floor(client, name):
    """GEO-10: no line of sight and total cover through a surface between two floors."""
    scene = imported(name)
    pairs = 0
    for low, up, both in _stacked_pairs(scene):
        size = scene["grid"]["size"]
        if not both.contains(shapely.box(up["x"], up["y"], up["x"] + size, up["y"] + size)):
            continue
        body = {"scene": with_tokens(scene, [low, up])}
        for observer, target in ((low, up), (up, low)):
            seen = client.post(
                "/v1/vision",
                json={
                    **body,
                    "ruleset": "dnd5e",
                    "observer": observer["id"],
                    "targets": [target["id"]],
                },
            ).get_json()["results"][0]
            assert seen["line_of_sight"] is False and seen["can_see"] is False, seen
            cover = client.post(
                "/v1/cover",
                json={
                    **body,
                    "ruleset": "dnd5e",
                    "attacker": observer["id"],
                    "targets": [target["id"]],
                },
            ).get_json()["results"][0]
            assert cover["cover"] == "total" and cover["line_of_effect"] is False, cover
        pairs += 1
    assert pairs >= 2


def test_a_light_below_does_not_light_the_floor_above(client):
    """GEO-10: Eastgate's ground-floor lamp (dim 30 ft) lights nothing on the floor above."""
    scene = imported(EASTGATE)
    lamp = next(li for li in scene["lights"] if li["id"] == "4DaSd9BcykpWxvqa")
    assert (lamp["elevation"], lamp["dim"]) == (0, 30)  # 20 ft up is within its reach
    size = scene["grid"]["size"]
    x, y = (lamp["x"] // size) * size, (lamp["y"] // size) * size
    assert floor_planes(scene)[20.0].contains(shapely.box(x, y, x + size, y + size))
    above = probe(x, y, 20, "above")
    below = probe(x, y, 0, "below")
    dark = with_tokens(scene, [above, below], light="dark")
    found = client.post("/v1/lighting", json={"scene": dark, "tokens": ["above", "below"]})
    results = found.get_json()["results"]
    assert lamp["id"] not in results[0]["lights"]  # the upper floor's own lamps light it
    assert lamp["id"] in results[1]["lights"] and results[1]["level"] == "bright"
    # the same lamp with no floor between lights the creature 20 ft up (dim: 20 <= 30 ft)
    bare = copy.deepcopy(dark)
    bare["surfaces"], bare["levels"] = [], []
    for kind in ("walls", "lights", "regions"):
        for item in bare[kind]:
            item["level"] = None  # the walls keep the heights of their floors
    found = client.post("/v1/lighting", json={"scene": bare, "tokens": ["above"]})
    assert lamp["id"] in found.get_json()["results"][0]["lights"]


def test_a_light_in_the_underpass_does_not_light_the_ground_above(client):
    """GEO-10: a lamp placed in the slums' underpass, under the ground's surface."""
    scene = imported(SLUMS)
    floors = floor_planes(scene)
    covered = shapely.intersection(floors[-20.0], floors[0.0])
    (x, y), *_ = squares(scene, covered, None, 1)
    dark = with_tokens(scene, [probe(x, y, 0, "above")], light="dark")
    dark["lights"] = [{"id": "lamp", "x": x + 50, "y": y + 50, "dim": 60, "elevation": -20}]
    found = client.post("/v1/lighting", json={"scene": dark, "tokens": ["above"]})
    assert found.get_json()["results"][0]["lights"] == []


def test_a_creature_at_the_top_of_the_stairwell_sees_the_one_below(client):
    """GEO-10: the slums' underpass stairs lie where the ground's surface is open."""
    scene = imported(SLUMS)
    floors = floor_planes(scene)
    open_pit = shapely.difference(floors[-20.0], floors[0.0])
    stairs = shapely.box(5400, 3300, 5500, 3500)  # "Underpass Stairs", -20 to 5 ft
    size = scene["grid"]["size"]
    top = next(
        (x, y)
        for x, y in itertools.product(range(5000, 5600, 100), range(3200, 3600, 100))
        if open_pit.contains(shapely.box(x + 1, y + 1, x + size - 1, y + size - 1))
        and shapely.box(x, y, x + size, y + size).distance(stairs) <= size
    )
    below = next(
        (x, y)
        for x, y in itertools.product(range(4800, 5600, 100), range(2400, 3800, 100))
        if open_pit.contains(shapely.box(x + 1, y + 1, x + size - 1, y + size - 1))
        and 2 * size <= abs(x - top[0]) + abs(y - top[1]) <= 4 * size
    )
    tokens = [probe(*top, 0, "top"), probe(*below, -20, "pit")]
    seen = client.post(
        "/v1/vision",
        json={
            "ruleset": "dnd5e",
            "scene": with_tokens(scene, tokens),
            "observer": "top",
            "targets": ["pit"],
        },
    ).get_json()["results"][0]
    assert seen["line_of_sight"] is True, seen


def test_the_tower_has_no_gap_between_its_floors():
    """GEO-5: Levels' 0-9, 10-19 ... are read [0, 10), [10, 20) ...: every height is on a floor."""
    scene = imported(TOWER)
    assert floors_of(scene) == [(0, 10), (10, 20), (20, 30), (30, 40)]
    heights = {(w["height"]["bottom"], w["height"]["top"]) for w in scene["walls"] if w["height"]}
    assert heights == {(0, 10), (10, 20), (20, 30), (30, 40)}


def test_a_tower_light_below_does_not_light_the_floor_above(client):
    """GEO-10 on the Levels tower: the ground-floor lamp (``rangeBottom`` 0), made to reach
    30 m here, lights a creature beside it on the ground but not one right above it on the
    floor tile at 10 m; with the floors taken away it lights that one too."""
    scene = imported(TOWER)
    lamp = next(li for li in scene["lights"] if li["id"] == "vpDSVyaCedV7vyQW")
    assert (lamp["elevation"], lamp["level"]) == (0, "sceneLevels-3")
    lamp["dim"], lamp["bright"] = 30, 15
    x, y = lamp["x"] - 50, lamp["y"] - 75  # a 1 m (150 px) creature over the lamp (the
    # lamp stands 60 px inside the tile's edge: the creature is 25 px off its centre)
    assert floor_planes(scene)[10.0].contains(shapely.box(x, y, x + 150, y + 150))
    tokens = [probe(x, y, 10, "above"), probe(x, y, 0, "beside")]
    dark = with_tokens(scene, tokens, light="dark")
    dark["lights"] = [lamp]
    found = client.post("/v1/lighting", json={"scene": dark, "tokens": ["above", "beside"]})
    above, beside = found.get_json()["results"]
    assert above["lights"] == [] and above["level"] == "dark"
    assert beside["lights"] == [lamp["id"]]
    bare = copy.deepcopy(dark)
    bare["surfaces"], bare["levels"] = [], []
    for kind in ("walls", "lights"):
        for item in bare[kind]:
            item["level"] = None
    found = client.post("/v1/lighting", json={"scene": bare, "tokens": ["above"]})
    assert found.get_json()["results"][0]["lights"] == [lamp["id"]]


def test_the_tower_s_ground_floor_walls_reach_up_to_10_not_9(client):
    """GEO-5's inclusive reading, in answers: the ground-floor wall ``ny8doc6dtfb3tzem``
    (Wall Height 0-9, read [0, 10)) stands between two small creatures at 9.5 m (0.4 m
    tall): total cover, the wall among the blockers; read as [0, 9) they would see each
    other. At 10 m they stand on the next floor and the wall is below them."""
    scene = imported(TOWER)
    wall = next(w for w in scene["walls"] if w["id"] == "ny8doc6dtfb3tzem")
    assert wall["height"] == {"bottom": 0, "top": 10} and wall["level"] == "sceneLevels-3"
    x0, y0, x1, y1 = wall["c"]
    length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
    nx, ny = -(y1 - y0) / length, (x1 - x0) / length
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2

    def small(tid: str, side: int, elevation: float) -> dict:
        cx, cy = mx + side * 60 * nx, my + side * 60 * ny  # 60 px either side of its middle
        return {
            "id": tid,
            "x": cx - 22.5,
            "y": cy - 22.5,
            "width": 0.3,
            "height": 0.3,
            "elevation": elevation,
            "vertical_extent": 0.4,
        }

    answers = {}
    for elevation in (9.5, 10):
        body = {
            "ruleset": "dnd5e",
            "scene": with_tokens(scene, [small("a", 1, elevation), small("b", -1, elevation)]),
            "attacker": "a",
            "targets": ["b"],
        }
        result = client.post("/v1/cover", json=body).get_json()["results"][0]
        ids = {b["id"] for line in result["lines"] for b in line["blockers"]}
        answers[elevation] = (result["cover"], wall["id"] in ids)
    assert answers == {9.5: ("total", True), 10: ("none", False)}


def test_the_tower_s_stats_count_what_its_file_holds():
    """Stats of the Levels tower against its raw JSON: lights with ``rangeBottom`` are on a
    level, the height-flagged walls too, 4 floors, 4 floor tiles, 4 stair drawings."""
    doc = load_real("foundry", TOWER)
    stats = to_scene(doc)["stats"]
    lights = [
        li
        for li in doc["lights"]
        if (li.get("flags") or {}).get("levels", {}).get("rangeBottom") is not None
    ]
    assert stats["lights_on_levels"] == len(lights) == 21
    assert stats["read"]["light elevations: flags.levels.rangeBottom"] == len(lights)
    walls = [w for w in doc["walls"] if (w.get("flags") or {}).get("wall-height")]
    assert stats["walls_on_levels"] == len(walls) == 83
    assert (stats["levels"], stats["surfaces"], stats["stairs"]) == (4, 4, 4)


def test_from_eastgate_s_upper_floor_a_creature_sees_down_where_no_floor_lies(client):
    """GEO-10: Eastgate's stairs (Change Level regions) lie under its floors, so its open
    ground is where the 2nd floor's surface has none: a creature on the 2nd floor's edge
    (600, 1600, 20 ft) sees one on the ground 3 squares off (600, 1300), where no surface
    lies, and not the one right below it, under its own floor."""
    scene = imported(EASTGATE)
    floors = floor_planes(scene)
    stairs = [
        r for r in scene["regions"] if r["id"].startswith(("PLrkucQFZLCogmSl", "iHgft5qkeY4IETPk"))
    ]
    for region in stairs:  # no stairwell: a floor over every stair
        s = region["shape"]
        assert floors[20.0].contains(
            shapely.box(s["x"], s["y"], s["x"] + s["width"], s["y"] + s["height"])
        )
    assert floors[20.0].contains(shapely.box(601, 1601, 699, 1699))
    assert not floors[20.0].intersects(shapely.box(600, 1300, 700, 1400))
    tokens = [
        probe(600, 1600, 20, "edge"),
        probe(600, 1300, 0, "open"),
        probe(600, 1600, 0, "under"),
    ]
    seen = client.post(
        "/v1/vision",
        json={
            "ruleset": "dnd5e",
            "scene": with_tokens(scene, tokens),
            "observer": "edge",
            "targets": ["open", "under"],
        },
    ).get_json()["results"]
    assert [r["line_of_sight"] for r in seen] == [True, False], seen
