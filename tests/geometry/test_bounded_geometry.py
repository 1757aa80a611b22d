"""Bounded geometry: crossing walls and huge hex creatures answer 200 or 422, never 500/503.

A scene of long random walls crossing one another (millions of crossings at 2,000 walls)
once made GEOS allocate without bound while noding the rooms (``std::bad_alloc``, a 500);
creatures of 1000 by 1000 squares on a hex grid once listed every hex they cover (a 503 at
the memory ceiling). Rooms are now skipped past ``SIGHTLINE_MAX_ROOM_CROSSINGS`` (they are
only a shortcut), and a creature covering more than ``SIGHTLINE_MAX_HEX_FOOTPRINT`` hexes, or a
flanking question over more than ``SIGHTLINE_MAX_FLANK_PAIRS`` lines, is a 422 saying what to
reduce (and naming the setting).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import shapely
from shapely.errors import GEOSException

from service.app import create_app
from service.engine import grids
from service.engine.budget import core_limit, set_core_limits
from service.engine.scene import build_scene
from service.engine.walls import index_walls
from service.geometry import rooms
from service.geometry.rooms import firm_rooms, sealed_apart
from service.model import Grid, Token, Wall
from tests.reference.rooms import crossings_within
from tests.scenes import load, wall


def crosswalls(n: int, seed: int = 1, span: float = 20000.0, **token: float) -> dict:
    """``n`` long walls, both ends uniform over the map: about n^2 / 10 crossings."""
    rng = random.Random(seed)
    walls = [{"id": f"w{k}", "c": [rng.uniform(0, span) for _ in range(4)]} for k in range(n)]
    tokens = [{"id": "A", "x": 0, "y": 0, **token}, {"id": "B", "x": 10000, "y": 10000, **token}]
    return {"grid": {"size": 100}, "walls": walls, "tokens": tokens}


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": False}).test_client()


def _ok_or_422(resp) -> dict:
    """The answer is a 200, or a 422 whose JSON error says what to reduce."""
    body = resp.get_json()
    assert resp.status_code in (200, 422), body
    if resp.status_code == 422:
        assert body["code"] == 422 and body["message"]
    return body


# --------------------------------------------------------------------------- crossing walls


def _square_lattice(k: int) -> list[Wall]:
    """``k`` horizontal and ``k`` vertical walls crossing in k^2 points."""
    walls = [Wall(f"h{i}", (0.0, 100.0 * i + 50, 100.0 * k, 100.0 * i + 50)) for i in range(k)]
    walls += [Wall(f"v{i}", (100.0 * i + 50, 0.0, 100.0 * i + 50, 100.0 * k)) for i in range(k)]
    return walls


def test_crossings_are_counted_and_the_count_stops_past_its_limit():
    lines = shapely.linestrings(index_walls(_square_lattice(3), 20.0).coords.reshape(-1, 2, 2))
    assert crossings_within(lines, 9)
    assert not crossings_within(lines, 8)


def test_walls_meeting_at_their_ends_or_in_a_t_are_not_crossings():
    """A closed room and a stem ending on its wall: no noding beyond the walls' own ends."""
    room = [
        wall("n", 0, 0, 100, 0),
        wall("e", 100, 0, 100, 100),
        wall("s", 100, 100, 0, 100),
        wall("w", 0, 100, 0, 0),
        wall("t", 50, 0, 50, 60),
    ]
    index = build_scene(load(room, [])).walls
    assert crossings_within(shapely.linestrings(index.coords.reshape(-1, 2, 2)), 0)


def test_rooms_are_skipped_past_the_crossing_limit_and_built_below_it(monkeypatch):
    """Rooms are a shortcut: past the limit none are built, and nothing is answered from them."""
    index = index_walls(_square_lattice(4), 20.0)
    assert firm_rooms(index, "move", None) is not None  # 16 crossings, 9 closed cells
    set_core_limits({"MAX_ROOM_CROSSINGS": 15})
    try:
        assert firm_rooms(index_walls(_square_lattice(4), 20.0), "move", None) is None
    finally:
        set_core_limits({"MAX_ROOM_CROSSINGS": 50_000})


def test_a_geos_failure_while_noding_falls_back_to_no_rooms(monkeypatch):
    def fail(*args, **kwargs):
        raise GEOSException("std::bad_alloc")

    monkeypatch.setattr(rooms.shapely, "node", fail)
    index = index_walls(_square_lattice(4), 20.0)
    assert firm_rooms(index, "move", None) is None
    assert not sealed_apart(index, (60, 60, 90, 90), (260, 260, 290, 290))


def test_a_crossing_heavy_scene_needs_no_rooms_for_its_answer():
    """Past the limit the plain path answers what the rooms would have: no line, blockers."""
    scene = load(crosswalls(1000)["walls"], crosswalls(1000)["tokens"])
    built = build_scene(scene)
    firm = shapely.linestrings(built.walls.coords.reshape(-1, 2, 2))
    assert not crossings_within(firm, core_limit("MAX_ROOM_CROSSINGS"))
    assert firm_rooms(built.walls, "move", None) is None


@pytest.mark.parametrize("n", [1000, 2000])
def test_line_of_effect_and_cover_through_crossing_walls_answer(client, n):
    scene = crosswalls(n)
    loe = _ok_or_422(
        client.post("/v1/line-of-effect", json={"scene": scene, "from": "A", "to": "B"})
    )
    body = {"scene": scene, "ruleset": "dnd5e", "attacker": "A", "targets": ["B"]}
    cover = _ok_or_422(client.post("/v1/cover", json=body))
    if "clear" in loe and "results" in cover:
        assert loe["clear"] == cover["results"][0]["line_of_effect"]


@pytest.mark.parametrize("ruleset", ["starfinder", "dnd5e", "pf2e-variant"])
def test_cover_between_huge_creatures_across_crossing_walls_answers(client, ruleset):
    scene = crosswalls(2000, width=1000, height=1000)
    scene["tokens"][0]["x"] = -100000  # the walls lie between the two creatures
    scene["tokens"][1]["x"] = 20000
    body = {"scene": scene, "ruleset": ruleset, "attacker": "A", "targets": ["B"]}
    _ok_or_422(client.post("/v1/cover", json=body))


def test_other_shapely_unions_take_only_bounded_input():
    """Every union, polygonize or noding in service/ is listed here with its bound."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2] / "service"
    calls = sorted(
        f"{path.relative_to(root)}"
        for path in root.rglob("*.py")
        for line in path.read_text().splitlines()
        if any(f in line for f in ("union_all(", "unary_union(", "polygonize(", "node("))
        and not line.lstrip().startswith(("#", '"'))
    )
    assert calls == [
        "engine/levels.py",  # a surface's exteriors, then its holes (MAX_SURFACE_POINTS, GEO-10)
        "engine/levels.py",
        # _polygonal: the polygons make_valid made of one ring (a ring crossing itself many
        # times makes as many faces: not yet bounded by its crossings, issue 32).
        "engine/levels.py",
        # _faces: the noding and polygonization of firm_rooms (crossings counted first,
        # MAX_ROOM_CROSSINGS) and of _rooms_around (a part of rooms already built within it);
        # GEOS errors caught by both.
        "geometry/rooms.py",
        "geometry/rooms.py",
        # A door opened: the union of the rooms it joins, rooms already built within
        # MAX_ROOM_CROSSINGS (rooms_opened), GEOS errors caught.
        "geometry/rooms.py",
        # A door closed: the union of the rooms it lies in (rooms_after_change,
        # docs/decisions.md "Live scenes").
        "geometry/rooms.py",
        "geometry/surfaces.py",  # the surfaces at one elevation (MAX_SURFACE_POINTS, GEO-10)
        "rules/starfinder/flanking.py",  # one target's hexes (MAX_HEX_FOOTPRINT)
        "senses/darkness.py",  # darkness regions and discs (MAX_REGION_POINTS, MAX_LIGHTS)
    ]


# --------------------------------------------------------------------------- hex footprints


@pytest.mark.parametrize("kind", ["hex-row", "hex-col"])
@pytest.mark.parametrize(
    "w,h", [(1, 1), (2, 2), (3, 3), (4, 4), (7, 5), (5, 9), (2.5, 3), (6, 1.5)]
)
def test_hex_count_is_the_footprint_or_more(kind, w, h):
    grid = Grid(size=100, type=kind)
    token = Token("A", 37.0, 91.0, width=w, height=h)
    count, listed = grids.hex_count(token, grid), len(grids.footprint(token, grid))
    if float(w).is_integer() and float(h).is_integer():
        assert count == listed
    else:
        assert count >= listed


def _hex_scene(kind: str, size: float) -> dict:
    tokens = [
        {"id": "A", "x": 0, "y": 0, "width": size, "height": size},
        {"id": "B", "x": 0, "y": 2 * size * 87, "width": size, "height": size},
        {"id": "T", "x": 0, "y": size * 87, "width": size, "height": size},
    ]
    return {"grid": {"size": 100, "type": kind}, "walls": [], "tokens": tokens}


@pytest.mark.parametrize("kind", ["hex-row", "hex-col"])
@pytest.mark.parametrize("path", ["/v1/modifiers/flanking", "/v1/vision"])
def test_a_creature_over_the_hex_limit_is_a_422_naming_it(client, kind, path):
    body: dict = {"ruleset": "starfinder", "scene": _hex_scene(kind, 1000)}
    if "flanking" in path:
        body.update(attacker="A", ally="B", target="T")
    else:
        body.update(observer="A", targets=["T"])
    resp = client.post(path, json=body)
    assert resp.status_code == 422
    message = resp.get_json()["message"]
    assert "'A'" in message and f"{core_limit('MAX_HEX_FOOTPRINT'):,} hexes" in message
    assert "SIGHTLINE_MAX_HEX_FOOTPRINT" in message


@pytest.mark.parametrize("kind", ["hex-row", "hex-col"])
def test_creatures_at_the_hex_limit_answer(client, kind):
    scene = _hex_scene(kind, 64)
    assert grids.hex_count(Token("A", 0, 0, width=64, height=64), Grid(100, type=kind)) <= (
        core_limit("MAX_HEX_FOOTPRINT")
    )
    vision = {"ruleset": "dnd5e", "scene": scene, "observer": "A", "targets": ["T", "B"]}
    assert client.post("/v1/vision", json=vision).status_code == 200
    flank = {"ruleset": "starfinder", "scene": scene, "attacker": "A", "ally": "B", "target": "T"}
    _ok_or_422(client.post("/v1/modifiers/flanking", json=flank))


@pytest.mark.parametrize("kind,size", [("square", 1000), ("hex-row", 25)])
def test_flanking_over_too_many_lines_is_a_422_naming_both(client, kind, size):
    """Three big creatures in a column, touching: every line would be tried."""
    scene = _hex_scene("hex-row", size)
    if kind == "square":
        scene["grid"] = {"size": 100}
        for k, tid in enumerate(["A", "T", "B"]):
            next(t for t in scene["tokens"] if t["id"] == tid).update(x=0, y=k * size * 100)
    flank = {"ruleset": "starfinder", "scene": scene, "attacker": "A", "ally": "B", "target": "T"}
    resp = client.post("/v1/modifiers/flanking", json=flank)
    assert resp.status_code == 422, resp.get_json()
    message = resp.get_json()["message"]
    assert "'A'" in message and "make these creatures smaller" in message
    assert "SIGHTLINE_MAX_FLANK_PAIRS" in message


def test_small_hex_flanking_still_answers(client):
    scene = _hex_scene("hex-row", 4)
    flank = {"ruleset": "starfinder", "scene": scene, "attacker": "A", "ally": "B", "target": "T"}
    resp = client.post("/v1/modifiers/flanking", json=flank)
    assert resp.status_code == 200 and resp.get_json()["flanking"] is True


@pytest.mark.parametrize(
    ("shift", "expected"),
    [((0, 0), 0), ((30, 0), 0), ((69, 0), 0), ((70, 0), 1), ((0, -59), 0)],
)
def test_overlapping_hex_footprints_compare_no_pairs(shift, expected, monkeypatch):
    """GEO-8: footprints sharing a hex are 0 apart, found before any pair of hexes is
    compared (two huge overlapping tokens cost O(k log k), not k_a * k_b)."""
    a = np.array([[q, r] for q in range(70) for r in range(60)], dtype=np.int64)
    compared = []
    real = grids.hex_distance

    def counting(p, q):
        out = real(p, q)
        compared.append(np.size(out))
        return out

    monkeypatch.setattr(grids, "hex_distance", counting)
    assert grids.hex_cells_distance(a, a + np.array(shift)) == expected
    if expected == 0:
        assert compared == []


def test_far_apart_hexes_do_not_share_a_key():
    """Cube coordinates past 32 bits stay distinct (no false shared hex)."""
    far = np.array([[2**40, 5]], dtype=np.int64)
    assert grids.hex_cells_distance(far, np.array([[0, 5]], dtype=np.int64)) == 2**40


def test_hex_distance_between_big_footprints_is_found_in_blocks():
    a = np.array([[q, r] for q in range(70) for r in range(60)], dtype=np.int64)
    b = a + np.array([100, 0])
    assert grids.hex_cells_distance(a, b) == 31
    assert grids.hex_cells_distance(a, a) == 0
