"""Issue 16, refuse early: small sizes of the worst-case kinds answer, or are refused with 422
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
from service.geometry import exact
from service.geometry.kernel import kernel_enabled
from service.geometry.trace import trace
from service.model import Wall
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


@pytest.mark.skipif(not kernel_enabled(), reason="the shortcut needs the compiled kernel")
@settings(max_examples=60, deadline=None)
@given(
    walls=st.lists(segment, min_size=1, max_size=25),
    lines=st.lists(segment, min_size=1, max_size=25),
    kinds=st.lists(st.sampled_from(["normal", "limited", "none"]), min_size=25, max_size=25),
    one_way=st.lists(st.booleans(), min_size=25, max_size=25),
)
def test_a_line_set_aside_as_crossing_a_firm_wall_is_blocked_by_trace(walls, lines, kinds, one_way):
    """GEO-1: a line crossing a two-way, normal, full-height wall in both interiors is blocked
    whatever else it meets, so ``_surely_blocked`` never sets aside a line ``trace`` clears."""
    index = index_walls(
        [
            Wall(f"w{k}", c, move=kinds[k], direction="left" if one_way[k] else "both")
            for k, c in enumerate(walls)
        ],
        20.0,
    )
    seg = np.array(lines, dtype=np.float64)
    firm = exact._firm(index, "move", None)
    surely, _ = exact._surely_blocked(index, seg, firm, None)
    traced = trace(index, seg, "move", low_obstacles=False)
    assert not np.any(surely & ~traced.wall_blocked)


@pytest.mark.parametrize("n", [60, 200, 400])
def test_the_exact_search_answers_as_without_its_shortcut(monkeypatch, n):
    """5E-LOE-2: the same clear/blocked answer and the same witness with and without the
    shortcut (scattered short walls between two spaces, the ``scatter`` kind)."""
    from schemas.scene import SceneSchema
    from service.engine.scene import build_scene

    built = build_scene(SceneSchema().load(worst.scatter(n, seed=n)))
    boxes = np.array([built.token_boxes["A"]]), np.array([built.token_boxes["T"]])
    fast = exact.lines_of_effect(built.walls, *boxes, "move")[0]

    def nothing(index, seg, firm, budget):
        return np.zeros(len(seg), dtype=bool), np.zeros(len(seg), dtype=np.int64)

    monkeypatch.setattr(exact, "_surely_blocked", nothing)
    slow = exact.lines_of_effect(built.walls, *boxes, "move")[0]
    assert (fast.clear, fast.witness) == (slow.clear, slow.witness)


def test_spread_pairs_are_pairs_of_the_whole_triangle():
    i, j = exact._spread_pairs(7, 1000)
    a, b = np.triu_indices(7, 1)
    assert (i == a).all() and (j == b).all()
    i, j = exact._spread_pairs(300, 50)
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
    """Issue 16: an exact search with more vertex pairs than its limit is refused before any
    of its lines is traced, naming what to reduce."""
    monkeypatch.setattr(exact, "MAX_SEARCH_TESTS", 50)
    monkeypatch.setattr(exact._search, "__defaults__", (50, None))
    client = make_client()
    line = {"scene": worst.scatter(300), "from": "A", "to": "T"}
    resp = client.post("/v1/line-of-effect", json=line)
    assert resp.status_code == 422, resp.get_json()
    assert "reduce the walls between them" in resp.get_json()["message"]


def test_a_cover_matrix_over_the_budget_is_refused_before_its_pairs(make_client):
    """Issue 16: the estimate counts every line against every creature and each pair's own
    work, from the first pair's lines: a 422 asking for fewer tokens, with what it needs."""
    client = make_client(WORK_BUDGET=50_000)
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
