"""A building answers as its floors would, each as a scene of its own (RULES GEO-10, GEO-5).

A building of 2 or 3 floors (levels ``[10 k, 10 k + 10)`` ft), each floor with its own walls
(naming their level, no height: they take its range), creatures standing on it and lights
in it, the floors closed by surfaces over the whole map (or by the floors the levels imply
when no surface lies between two of them, GEO-10), some with holes:

- for every pair of creatures on one floor, the cover matrix, the vision matrix and each
  creature's light are exactly those of that floor alone, imported as its own scene (its
  walls without level, its creatures and lights 10 k ft lower, nothing of the other
  floors); light may come down a hole in a floor, so a building with holes is in bright
  light and the lights lighting a creature are compared only for closed floors;
- nothing crosses a closed floor: two creatures on different floors have total cover from
  each other and no line of sight.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.app import create_app

RULESETS = ("dnd5e", "starfinder", "pf2e-variant")
SIZES = ("small", "medium", "large")  # at most 10 ft tall: within one floor (GEO-5a)
FLOOR = 10.0  # ft between floors
MAP = 800.0

CLIENT = create_app().test_client()
lattice = st.integers(0, 16).map(lambda v: 50.0 * v)
cell = st.tuples(st.integers(0, 7), st.integers(0, 7))


@st.composite
def floors(draw: st.DrawFn, k: int) -> dict[str, Any]:
    """Floor ``k``: its walls, creatures (2 or 3, distinct squares) and lights, at ground 0."""
    walls = []
    for i in range(draw(st.integers(0, 6))):
        c = [draw(lattice) for _ in range(4)]
        assume(c[:2] != c[2:])
        wall: dict[str, Any] = {"id": f"f{k}w{i}", "c": c}
        wall["sight"] = draw(st.sampled_from(["normal", "normal", "limited", "none"]))
        walls.append(wall)
    spots = draw(st.lists(cell, min_size=2, max_size=3, unique=True))
    tokens = [
        {
            "id": f"f{k}t{i}",
            "x": x * 100.0,
            "y": y * 100.0,
            "size": draw(st.sampled_from(SIZES)),
            "senses": {"darkvision": draw(st.sampled_from([0, 60]))},
        }
        for i, (x, y) in enumerate(spots)
    ]
    lights = [
        {"id": f"f{k}l{i}", "x": draw(lattice), "y": draw(lattice), "dim": 40, "bright": 20}
        for i in range(draw(st.integers(0, 2)))
    ]
    return {"walls": walls, "tokens": tokens, "lights": lights}


@st.composite
def buildings(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]], bool]:
    """``(building, floors, closed)``: the scene, each floor's own scene, no holes."""
    n = draw(st.integers(2, 3))
    parts = [draw(floors(k)) for k in range(n)]
    surfaced = draw(st.booleans())  # explicit surfaces, else the floors the levels imply
    holes = surfaced and draw(st.booleans())
    scene: dict[str, Any] = {
        "grid": {"size": 100, "distance": 5},
        "width": MAP,
        "height": MAP,
        # light may come down a hole: a scene in bright light then, where lights add nothing
        "environment": {"light": "bright" if holes else "dark"},
        "levels": [
            {"id": f"L{k}", "name": f"floor {k}", "bottom": FLOOR * k, "top": FLOOR * (k + 1)}
            for k in range(n)
        ],
        "walls": [],
        "tokens": [],
        "lights": [],
        "surfaces": [],
    }
    for k, part in enumerate(parts):
        scene["walls"] += [{**w, "level": f"L{k}"} for w in part["walls"]]
        scene["tokens"] += [{**t, "elevation": FLOOR * k} for t in part["tokens"]]
        scene["lights"] += [
            {**li, "elevation": FLOOR * k + 2, "level": f"L{k}"} for li in part["lights"]
        ]
        if surfaced and k:
            ring = [[0, 0], [MAP, 0], [MAP, MAP], [0, MAP], [0, 0]]
            polygon = [ring]
            if holes:
                x, y = draw(cell)
                x, y = 100.0 * x, 100.0 * y
                polygon.append([[x, y], [x + 100, y], [x + 100, y + 100], [x, y + 100], [x, y]])
            scene["surfaces"].append(
                {"id": f"S{k}", "outline": [polygon], "elevation": FLOOR * k, "level": f"L{k}"}
            )
    alone = []
    for part in parts:
        own = copy.deepcopy({k: v for k, v in scene.items() if k not in ("levels", "surfaces")})
        own.update(part)
        own["lights"] = [{**li, "elevation": 2} for li in part["lights"]]
        alone.append(own)
    return scene, alone, not holes


def _post(path: str, body: dict[str, Any]) -> dict[str, Any]:
    resp = CLIENT.post(path, json=body)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()  # type: ignore[no-any-return]


def _answers(scene: dict[str, Any], ids: list[str], ruleset: str) -> dict[str, Any]:
    out = {}
    for kind in ("cover", "vision"):
        body = {"ruleset": ruleset, "scene": scene, "tokens": ids, "kind": kind}
        out[kind] = _post("/v1/matrix", body)
    out["light"] = _post("/v1/lighting", {"scene": scene, "tokens": ids})["results"]
    return out


@settings(max_examples=40, deadline=None)
@given(buildings(), st.sampled_from(RULESETS))
def test_a_floor_of_a_building_answers_as_that_floor_alone(built, ruleset):
    """GEO-10: pairs on one floor meet nothing of the other floors."""
    scene, alone, closed = built
    for own in alone:
        ids = [t["id"] for t in own["tokens"]]
        got, want = _answers(scene, ids, ruleset), _answers(own, ids, ruleset)
        assert got["cover"] == want["cover"]
        assert got["vision"] == want["vision"]
        if closed:
            assert got["light"] == want["light"]


@settings(max_examples=25, deadline=None)
@given(buildings())
def test_nothing_crosses_a_closed_floor(built):
    """GEO-10: creatures on different floors, closed floors between: total cover, unseen."""
    scene, alone, closed = built
    assume(closed)
    ids = [t["id"] for t in scene["tokens"]]
    floor_of = {t["id"]: t["elevation"] for t in scene["tokens"]}
    cover = _post("/v1/matrix", {"ruleset": "dnd5e", "scene": scene, "tokens": ids})
    vision = _post(
        "/v1/matrix", {"ruleset": "dnd5e", "scene": scene, "tokens": ids, "kind": "vision"}
    )
    for i, a in enumerate(cover["tokens"]):
        for j, b in enumerate(cover["tokens"]):
            if floor_of[a] != floor_of[b]:
                assert cover["cover"][i][j] == "total", (a, b)
                assert vision["can_see"][i][j] is False, (a, b)
