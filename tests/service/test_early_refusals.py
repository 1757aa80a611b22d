"""Bounded work, refused early: small sizes of the worst-case kinds answer, or are refused with 422
saying what to reduce, before the expensive work (``bench/worst.py`` has the big ones).

Speed is never asserted here: status codes, messages and that answers are unchanged.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import worst
from bench.dungeon import dungeon
from service import settings as sightline_settings
from service.app import create_app
from service.engine.budget import CORE_LIMITS, core_limit, set_core_limits
from service.engine.walls import index_walls
from service.geometry import exact, search
from service.geometry.firm import firm_walls, surely_blocked
from service.geometry.trace import TraceSpec, trace
from service.geometry.walk import settling
from service.model import Span, Wall
from service.settings import SettingError, load

DEFAULTS = {name: sightline_settings.BY_NAME[name].default for name in CORE_LIMITS}


@pytest.fixture
def make_client():
    """A test client with some settings; the core limits go back to their defaults after."""

    def make(**config):
        return create_app({"TESTING": False, **config}).test_client()

    yield make
    set_core_limits(DEFAULTS)


# -- the exact search's shortcut (5E-LOE-2, GEO-1) -------------------------------------------

coord = st.floats(-300, 300, allow_nan=False).map(lambda v: round(v, 1))
segment = st.tuples(coord, coord, coord, coord)


height = st.one_of(
    st.none(), st.tuples(st.sampled_from([-1.0, 0.0, 2.0]), st.sampled_from([1.0, 3.0, 10.0]))
)
level = st.sampled_from([0.0, 1.0, 2.0, 8.0])
band = st.tuples(level, level, st.sampled_from([0.0, 1.0, 3.0]), st.sampled_from([0.0, 1.0, 3.0]))


@settings(max_examples=120, deadline=None)
@given(
    walls=st.lists(segment, min_size=1, max_size=25),
    lines=st.lists(segment, min_size=1, max_size=25),
    kinds=st.lists(st.sampled_from(["normal", "limited", "none"]), min_size=25, max_size=25),
    one_way=st.lists(st.booleans(), min_size=25, max_size=25),
    heights=st.lists(height, min_size=25, max_size=25),
    bands=st.one_of(st.none(), st.lists(band, min_size=25, max_size=25)),
)
def test_a_line_the_walk_sets_aside_is_blocked_by_trace(
    walls, lines, kinds, one_way, heights, bands
):
    """GEO-1, GEO-4, GEO-5a: a line crossing in both interiors a two-way normal wall (of
    limited height: one covering its band there), or two two-way limited ones, is blocked
    whatever else it meets, so ``surely_blocked`` never sets aside a line ``trace`` clears,
    and ``trace`` with the walk's settling answers as the exact tests alone (``settles``
    none: the firm walls and nothing else)."""
    index = index_walls(
        [
            Wall(
                f"w{k}",
                c,
                move=kinds[k],
                direction="left" if one_way[k] else "both",
                height=None if heights[k] is None else Span(heights[k][0], sum(heights[k])),
            )
            for k, c in enumerate(walls)
        ],
        20.0,
    )
    seg = np.array(lines, dtype=np.float64)
    elev = None
    if bands is not None:
        b = np.array(bands[: len(seg)], dtype=np.float64)
        elev = np.column_stack([b[:, 0], b[:, 1], b[:, 0] + b[:, 2], b[:, 1] + b[:, 3]])
    settles = settling(index, "move", None, elev is not None)
    surely, _ = surely_blocked(index, seg, settles, None, elev)
    spec = TraceSpec(sense="move", low_obstacles=False)
    traced = trace(index, seg, spec, elevations=elev)
    assert not np.any(surely & ~traced.wall_blocked)
    firm = firm_walls(index, "move", None)
    assert not np.any(surely_blocked(index, seg, firm, None)[0] & ~surely)


@pytest.mark.parametrize("n", [60, 200, 400])
def test_the_exact_search_answers_as_without_its_shortcut(monkeypatch, n):
    """5E-LOE-2: the same clear/blocked answer and the same witness with and without the
    shortcut (scattered short walls between two spaces, the ``scatter`` kind)."""
    from schemas.scene import SceneSchema
    from service.engine.scene import build_scene

    built = build_scene(SceneSchema().load(worst.scatter(n, seed=n)))
    boxes = np.array([built.token_boxes["A"]]), np.array([built.token_boxes["T"]])
    fast = exact.lines_of_effect(built.walls, *boxes, "move")[0]

    def nothing(index, seg, firm, budget, bands=None):
        return np.zeros(len(seg), dtype=bool), np.zeros(len(seg), dtype=np.int64)

    monkeypatch.setattr(search, "surely_blocked", nothing)
    slow = exact.lines_of_effect(built.walls, *boxes, "move")[0]
    assert (fast.clear, fast.witness) == (slow.clear, slow.witness)


def test_spread_pairs_are_pairs_of_the_whole_triangle():
    i, j = search.spread_pairs(7, 1000)
    a, b = np.triu_indices(7, 1)
    assert (i == a).all() and (j == b).all()
    i, j = search.spread_pairs(300, 50)
    assert len(i) == 50 and (i < j).all() and (j < 300).all() and i[-1] == 298


# -- the worst-case kinds, small ---------------------------------------------------------------


@pytest.mark.parametrize("n", [100, 300])
def test_scattered_walls_cover_and_line_of_effect_answer(make_client, n):
    """5E-LOE-2 / 5E-COV: short walls scattered between two tokens answer 200."""
    client = make_client()
    scene = worst.scatter(n)
    cover = {"ruleset": "dnd5e", "scene": scene, "attacker": "A", "targets": ["T"]}
    assert client.post("/v1/cover", json=cover).status_code == 200
    line = {"scene": scene, "from": "A", "to": "T"}
    assert client.post("/v1/line-of-effect", json=line).status_code == 200


def test_crossing_long_walls_answer(make_client):
    """Long random walls crossing one another (the rooms step) answer 200."""
    client = make_client()
    scene = worst.crossing(150)
    cover = {"ruleset": "dnd5e", "scene": scene, "attacker": "A", "targets": ["T"]}
    assert client.post("/v1/cover", json=cover).status_code == 200
    line = {"scene": scene, "from": "A", "to": "T"}
    assert client.post("/v1/line-of-effect", json=line).status_code == 200


def test_a_search_over_its_vertex_pairs_is_a_422_saying_what_to_reduce(make_client, monkeypatch):
    """An exact search with more vertex pairs than its limit is refused before any
    of its lines is traced, naming what to reduce."""
    monkeypatch.setattr(search, "MAX_SEARCH_TESTS", 50)
    client = make_client()
    line = {"scene": worst.scatter(300), "from": "A", "to": "T"}
    resp = client.post("/v1/line-of-effect", json=line)
    assert resp.status_code == 422, resp.get_json()
    assert "reduce the walls between them" in resp.get_json()["message"]


def test_a_cover_matrix_over_the_budget_is_refused_before_its_pairs(make_client):
    """The estimate counts every line against every creature and each pair's own
    work, from the first pair's lines: a 422 asking for fewer tokens, with what it needs."""
    client = make_client(WORK_BUDGET=10_000)  # the 552 pairs' own work is 16,560 units
    body = {"ruleset": "dnd5e", "scene": dungeon(60, 24), "kind": "cover"}
    resp = client.post("/v1/matrix", json=body)
    assert resp.status_code == 422, resp.get_json()
    message = resp.get_json()["message"]
    assert "fewer tokens" in message and "SIGHTLINE_WORK_BUDGET" in message
    assert "it needs about" in message
    assert make_client().post("/v1/matrix", json=body).status_code == 200


def test_a_huge_hex_creature_is_a_422_naming_the_setting(make_client):
    client = make_client(MAX_HEX_FOOTPRINT=10)
    scene = worst.huge_creatures(5, "hex-row")
    body = {"ruleset": "dnd5e", "scene": scene, "observer": "A", "targets": ["T"]}
    resp = client.post("/v1/vision", json=body)
    assert resp.status_code == 422
    message = resp.get_json()["message"]
    assert "'A'" in message and "SIGHTLINE_MAX_HEX_FOOTPRINT" in message and "10 hexes" in message
    set_core_limits(DEFAULTS)
    assert make_client().post("/v1/vision", json=body).status_code == 200


def test_flanking_between_huge_creatures_is_a_422_naming_the_setting(make_client):
    """SF-FLK-1 over more lines than ``SIGHTLINE_MAX_FLANK_PAIRS``: 422 naming both."""
    client = make_client(MAX_FLANK_PAIRS=20)
    scene = worst.huge_creatures(3, "square")
    body = {"ruleset": "starfinder", "scene": scene, "attacker": "A", "ally": "B", "target": "T"}
    resp = client.post("/v1/modifiers/flanking", json=body)
    assert resp.status_code == 422
    message = resp.get_json()["message"]
    assert "'A'" in message and "'B'" in message and "SIGHTLINE_MAX_FLANK_PAIRS" in message
    assert make_client().post("/v1/modifiers/flanking", json=body).status_code == 200


def test_rooms_skipped_by_the_setting_give_the_same_answers(make_client):
    """SIGHTLINE_MAX_ROOM_CROSSINGS=0 skips the rooms shortcut: the same answers."""
    body = {"ruleset": "dnd5e", "scene": dungeon(60, 8), "kind": "cover"}
    with_rooms = make_client().post("/v1/matrix", json=body).get_json()
    without = make_client(MAX_ROOM_CROSSINGS=0).post("/v1/matrix", json=body).get_json()
    assert core_limit("MAX_ROOM_CROSSINGS") == 0
    assert with_rooms == without


# -- the settings ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", CORE_LIMITS)
@pytest.mark.parametrize("value", ["lots", "-1", "1.5", ""])
def test_a_bad_core_limit_refuses_to_start_naming_the_variable(name, value):
    with pytest.raises(SettingError, match=f"SIGHTLINE_{name}="):
        load({f"SIGHTLINE_{name}": value})


@pytest.mark.parametrize("name", CORE_LIMITS)
def test_a_core_limit_is_read_from_the_environment(monkeypatch, make_client, name):
    value = random.Random(name).randint(5, 500)
    monkeypatch.setenv(f"SIGHTLINE_{name}", str(value))
    make_client()
    assert core_limit(name) == value


# -- refused before the work: scene limits from the body's bytes -------------------------------


def _over(kind: str) -> tuple[dict, dict]:
    """A scene over the limit of ``kind`` at small settings, and those settings."""
    config = {"MAX_WALLS": 5, "MAX_TOKENS": 5, "MAX_LIGHTS": 5, "MAX_REGIONS": 5}
    config["MAX_REGION_POINTS"] = 500
    scene = worst.fog(2, points=100)  # 2 regions, 200 points, 2 tokens: within all
    if kind == "walls":
        scene["walls"] = worst.scatter(6)["walls"]
    elif kind == "tokens":
        scene["tokens"] = [{"id": f"t{k}", "x": 100 * k, "y": 0} for k in range(6)]
    elif kind == "lights":
        scene["lights"] = [{"id": f"l{k}", "x": k, "y": 0, "bright": 5} for k in range(6)]
    elif kind == "regions":
        scene["regions"] = worst.fog(6, points=10)["regions"]
    else:
        scene["regions"] = worst.fog(2, points=300)["regions"]
    return scene, config


def _refuse_decoding(monkeypatch):
    """Make every step that builds a scene fail the test if it runs."""
    from schemas import scene as scene_schema
    from service import cache

    class Never:
        def decode(self, *_):
            raise AssertionError("the scene was decoded")

    def never(*_, **__):
        raise AssertionError("the scene was loaded or built")

    monkeypatch.setattr(scene_schema, "_SCENE_FROM_JSON", Never())
    monkeypatch.setattr(scene_schema.SceneSchema, "reference_load", never)
    monkeypatch.setattr(scene_schema.msgspec, "convert", never)
    monkeypatch.setattr(cache, "build_scene", never)


@pytest.mark.parametrize("kind", ["walls", "tokens", "lights", "regions", "region points"])
@pytest.mark.parametrize("path", ["/v1/scenes", "/v1/vision"])
def test_a_scene_over_a_count_limit_is_refused_from_its_bytes(make_client, monkeypatch, kind, path):
    """Walls, tokens, lights, regions and region points over their settings are
    counted from the request's bytes and refused (422 at ``scene.<field>``) before any of
    the scene is decoded, with the message the built scene would get."""
    from schemas.scene import SceneSchema
    from schemas.size import size_of_scene
    from service.limits import size_problems

    scene, config = _over(kind)
    client = make_client(**config)
    expected, field = size_problems(size_of_scene(SceneSchema().load(scene)), config)[0]
    _refuse_decoding(monkeypatch)
    body = {"scene": scene}
    if path == "/v1/vision":
        body = {**body, "ruleset": "dnd5e", "observer": "A", "targets": ["T"]}
    resp = client.post(path, json=body)
    assert resp.status_code == 422, resp.get_json()
    answer = resp.get_json()
    assert answer["message"] == expected
    assert answer["errors"]["json"] == {"scene": {field: [expected]}}
    assert field == ("regions" if kind == "region points" else kind)


def test_an_invalid_scene_over_the_point_limit_is_refused_before_marshmallow(
    make_client, monkeypatch
):
    """A scene msgspec refuses (a wall's ``c`` not a list) is parsed as JSON and
    its counts read from the lists, before marshmallow's field-by-field load."""
    scene, config = _over("region points")
    scene["walls"] = [{"id": "w", "c": "not a list"}]
    client = make_client(**config)
    _refuse_decoding(monkeypatch)
    resp = client.post("/v1/scenes", json={"scene": scene})
    assert resp.status_code == 422
    assert "SIGHTLINE_MAX_REGION_POINTS" in resp.get_json()["message"]


BODIES = {
    "fog": worst.fog(3, points=50),
    "scatter": worst.scatter(40),
    "lights": worst.lights(7),
    "circle and rect": {
        "grid": {"size": 100},
        "regions": [
            {"id": "c", "shape": {"type": "circle", "x": 0, "y": 0, "radius": 50}},
            {"id": "r", "shape": {"type": "rect", "width": 5, "height": 5}},
            {"id": "p", "shape": {"type": "polygon", "points": [[0, 0], [1, 0], [0, 1]]}},
        ],
    },
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_counts_from_bytes_json_and_model_agree(name):
    """``schemas.size``: the three ways of counting a scene give the same ``SceneSize``."""
    import json

    from schemas.scene import SceneSchema
    from schemas.size import size_of_body, size_of_json, size_of_scene

    scene = BODIES[name]
    data = json.dumps({"ruleset": "dnd5e", "scene": scene}).encode()
    one = size_of_scene(SceneSchema().load(scene))
    assert size_of_body(data) == size_of_json(scene) == one


@pytest.mark.parametrize(
    "data",
    [b"[]", b'{"scene": 3}', b'{"scene": {"walls": 3}}', b'{"scene": {"regions": [1]}}', b"{"],
)
def test_bodies_the_count_cannot_read_are_left_to_the_schema(data):
    from schemas.size import size_of_body

    assert size_of_body(data) is None


# -- lighting: estimated from the counts, refused before any ray -------------------------------


def test_lighting_far_over_the_budget_is_refused_before_any_ray(make_client, monkeypatch):
    """Lights x points estimated from the counts; no ray is made, traced or
    estimated one by one when the request is far over ``SIGHTLINE_WORK_BUDGET``."""
    from service import lighting

    def never(*_, **__):
        raise AssertionError("rays were made")

    monkeypatch.setattr(lighting, "trace", never)
    monkeypatch.setattr(lighting, "estimate_tests", never)
    rng = random.Random(2)
    points = [[rng.uniform(0, 4000), rng.uniform(0, 4000)] for _ in range(300)]
    body = {"scene": worst.lights(60), "points": points, "tokens": ["t0", "t1"]}
    resp = make_client(WORK_BUDGET=100_000).post("/v1/lighting", json=body)
    assert resp.status_code == 422
    message = resp.get_json()["message"]
    assert "SIGHTLINE_WORK_BUDGET" in message and "it needs about" in message


@pytest.mark.parametrize("n, points, tokens", [(10, 300, 20), (40, 100, 0), (40, 0, 40)])
def test_the_early_lighting_estimate_is_near_the_rays_own(n, points, tokens):
    """The early estimate of ``/v1/lighting`` is within ``EARLY_MARGIN`` of what the rays'
    own estimates add up to (evenly spread lights, points and tokens)."""
    from schemas.scene import SceneSchema
    from service import lighting
    from service.engine.budget import WorkBudget
    from service.engine.scene import build_scene
    from service.operations import lighting as answer

    scene = SceneSchema().load(worst.lights(n, seed=n))
    built = build_scene(scene)
    rng = random.Random(n)
    pts = [[rng.uniform(0, 4000), rng.uniform(0, 4000)] for _ in range(points)]
    toks = list(scene.tokens[:tokens])
    budget = WorkBudget(10**15, "x")
    afforded = []
    budget.afford = afforded.append
    answer(built, {"points": pts, "tokens": [t.id for t in toks]}, budget=budget)
    early = lighting.estimate_lighting_tests(built, np.array(pts).reshape(-1, 2), toks)
    ratio = early / sum(afforded)
    assert 1 / lighting.EARLY_MARGIN < ratio < lighting.EARLY_MARGIN


@pytest.mark.parametrize(
    "points",
    [[[1, 2]], [[1.5, -2e6]], [], [[True, 1]], [["1", 2]], [[1, 2, 3]], [[2e7, 0]], "x", [3]],
)
def test_lighting_points_load_as_field_by_field(points):
    """``PointList`` loads in bulk exactly what ``List(point_field())`` loads, and reports
    the same errors."""
    from marshmallow import Schema, ValidationError, fields

    from schemas.common import PointList, point_field

    class Bulk(Schema):
        points = PointList()

    class OneByOne(Schema):
        points = fields.List(point_field())

    def load(schema):
        try:
            return schema.load({"points": points})
        except ValidationError as err:
            return err.messages

    assert load(Bulk()) == load(OneByOne())


# -- hexes: the distance over facing strips, the flanking count first --------------------------

cells = st.lists(st.tuples(st.integers(-30, 30), st.integers(-30, 30)), min_size=1, max_size=60)


@settings(max_examples=200, deadline=None)
@given(a=cells, b=cells)
def test_the_hex_distance_over_facing_strips_is_the_distance_over_all_pairs(a, b):
    """GEO-8: ``hex_cells_distance`` compares only hexes that could be nearest; the answer
    is the minimum over every pair."""
    from service.engine.grids import hex_cells_distance, hex_distance

    ca, cb = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    brute = int(hex_distance(ca[:, None, :], cb[None, :, :]).min())
    assert hex_cells_distance(ca, cb) == brute


def test_hex_flanking_over_the_pair_limit_is_refused_before_any_box(make_client, monkeypatch):
    """SF-FLK-1 on hexes: the hexes' pair count is checked before their boxes are made."""
    from service.rules.starfinder import flanking

    def never(*_, **__):
        raise AssertionError("hex boxes were made")

    monkeypatch.setattr(flanking, "hex_inner_boxes", never)
    client = make_client(MAX_FLANK_PAIRS=20)
    scene = worst.huge_creatures(3, "hex-row")
    body = {"scene": scene, "ruleset": "starfinder", "attacker": "A", "ally": "B", "target": "T"}
    resp = client.post("/v1/modifiers/flanking", json=body)
    assert resp.status_code == 422
    assert "SIGHTLINE_MAX_FLANK_PAIRS" in resp.get_json()["message"]


def _big_hex_tokens(n: int, size: int) -> dict:
    tokens = [
        {
            "id": f"t{k}",
            "x": 7_000.0 * (k % 20),
            "y": 7_000.0 * (k // 20),
            "width": size,
            "height": size,
        }
        for k in range(n)
    ]
    return {"grid": {"type": "hex-row", "size": 100, "distance": 5}, "walls": [], "tokens": tokens}


def test_a_vision_matrix_of_huge_hex_tokens_is_refused_before_any_distance(
    make_client, monkeypatch
):
    """GEO-8 on hexes: the distances between big footprints are counted in the
    budget (``HEX_CELL_UNITS`` per hex of each pair) before any is measured, so 200 tokens of
    3,675 hexes are a quick 422, not minutes of work."""
    from service.engine import grids

    def never(*_, **__):
        raise AssertionError("a distance was measured")

    monkeypatch.setattr(grids, "hex_cells_distance", never)
    body = {"ruleset": "dnd5e", "kind": "vision", "scene": _big_hex_tokens(200, 70)}
    resp = make_client().post("/v1/matrix", json=body)
    assert resp.status_code == 422
    message = resp.get_json()["message"]
    assert "SIGHTLINE_WORK_BUDGET" in message and "make them smaller" in message


@pytest.mark.parametrize("size", [2, 8, 12, 30])
def test_only_big_hex_footprints_count_their_hexes(size):
    """``HEX_CELL_UNITS``: footprints within ``SMALL_FOOTPRINT`` hexes are in the pair's own
    units; bigger ones count both tokens' hexes for each ordered pair (4 tokens: 12 pairs)."""
    from schemas.scene import SceneSchema
    from service.engine import grids
    from service.engine.scene import build_scene
    from service.senses.distances import big_hexes

    built = build_scene(SceneSchema().load(_big_hex_tokens(4, size)))
    tokens = built.scene.tokens
    pairs = [(a, b) for a in tokens for b in tokens if a is not b]
    k = grids.hex_count(tokens[0], built.scene.grid)
    assert big_hexes(built, pairs) == (12 * 2 * k if k > grids.SMALL_FOOTPRINT else 0)


# -- the scene cache: room made before a scene is built ----------------------------------------


def test_a_new_scene_makes_room_before_it_is_built(monkeypatch):
    """The cached scenes and the one being built never pass the cache's bytes."""
    from schemas.scene import SceneSchema
    from service import cache
    from service.engine.scene import build_scene

    scenes = [SceneSchema().load(worst.fog(2, points=500, seed=k)) for k in range(6)]
    one = cache.scene_bytes(scenes[0])
    store = cache.SceneCache(64, max_bytes=int(one * 2.5))
    held = []

    def build(scene):
        held.append(sum(store._bytes.values()) + cache.scene_bytes(scene))
        return build_scene(scene)

    monkeypatch.setattr(cache, "build_scene", build)
    for scene in scenes:
        store.put(scene)
    assert len(held) == 6 and max(held) <= store.max_bytes
    assert len(store) == 2


@pytest.mark.parametrize("name", sorted(BODIES))
def test_what_the_cache_counts_before_and_after_the_build_agree(name):
    from schemas.scene import SceneSchema
    from service.cache import approx_bytes, scene_bytes
    from service.engine.scene import build_scene

    scene = SceneSchema().load(BODIES[name])
    assert scene_bytes(scene) == approx_bytes(build_scene(scene))


def test_big_hex_footprints_are_kept_in_a_short_list():
    """Footprints kept outside the scene cache are bounded; each is the same
    footprint as computed afresh (GEO-8)."""
    from service.engine import grids
    from service.engine import hexes as hx
    from service.model import Grid, Token

    hexes = Grid(size=100, type="hex-row")
    for k in range(270):
        big = Token(id=f"big{k}", x=13.0 * k, y=0.0, width=10, height=10)
        small = Token(id=f"small{k}", x=13.0 * k, y=0.0, width=2, height=2)
        assert grids.hex_count(big, hexes) > grids.SMALL_FOOTPRINT >= grids.hex_count(small, hexes)
        for token in (big, small):
            assert (grids.footprint(token, hexes) == hx._compute_footprint(token, hexes)).all()
    assert hx._big_footprint.cache_info().currsize <= 256
