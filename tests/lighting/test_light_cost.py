"""What lighting and vision spend per light, point and target (issue 16).

Each light ray costs ``RAY_UNITS`` of the work budget beyond its line-wall tests, counted
before the rays are made; lights that do not shine cost nothing per point; a request's lights
are tabled once (``light_table``). Notes for lights that do not shine are the same whether
asked point by point or for all points at once (``silent_notes_at``).
"""

from __future__ import annotations

import numpy as np
import pytest

from schemas.scene import SceneSchema
from service import lighting
from service.app import create_app
from service.engine.budget import RAY_UNITS
from service.engine.scene import build_scene

GRID = {"size": 100, "distance": 5, "units": "ft"}


def _scene(lights: list[dict], tokens: list[dict] | None = None) -> dict:
    return {"grid": GRID, "walls": [], "tokens": tokens or [], "lights": lights}


def test_rays_over_the_budget_are_refused_before_they_are_made(monkeypatch):
    """12 lights reaching 1,000 points: 12,000 rays x (1 + RAY_UNITS) passes the early
    estimate's margin (twice the budget) but not the budget: the rays' own count refuses
    before any ray is made, estimated or traced (no walls: a ray is its own work)."""

    def never(*_, **__):
        raise AssertionError("rays were made")

    monkeypatch.setattr(lighting, "trace", never)
    monkeypatch.setattr(lighting, "estimate_tests", never)
    lights = [{"id": f"l{k}", "x": 500 + k, "y": 500, "bright": 100, "dim": 200} for k in range(12)]
    points = [[float(x), float(y)] for x in range(0, 1000, 25) for y in range(0, 625, 25)]
    assert len(points) == 1000
    budget = 12_000 * RAY_UNITS - 1
    assert 12_000 * (1 + RAY_UNITS) <= lighting.EARLY_MARGIN * budget
    client = create_app({"TESTING": False, "WORK_BUDGET": budget}).test_client()
    resp = client.post("/v1/lighting", json={"scene": _scene(lights), "points": points})
    assert resp.status_code == 422, resp.get_json()
    assert "SIGHTLINE_WORK_BUDGET" in resp.get_json()["message"]


def test_lights_of_no_radius_light_nothing_and_are_not_rays():
    """A light with neither bright nor dim radius lights no point (it is skipped before any
    ray); the points keep the ambient light."""
    lights = [{"id": f"l{k}", "x": 100, "y": 100, "bright": 0, "dim": 0} for k in range(50)]
    lights.append({"id": "lamp", "x": 100, "y": 100, "bright": 10, "dim": 20})
    built = build_scene(SceneSchema().load({**_scene(lights), "environment": {"light": "dark"}}))
    near, far = lighting.light_at_points(built, np.array([[110.0, 100.0], [5000.0, 5000.0]]))
    assert near.level == "bright" and list(near.lights) == ["lamp"]
    assert far.level == "dark" and list(far.lights) == []


CASES = {
    "switched off": ({"on": False}, None, ["Light l0 is switched off"]),
    "private scene light": ({"seen_by": "controllers"}, None, ["Light l0 is private"]),
    "shining": ({}, None, []),
    "carried, another's": (None, None, ["T carries a private light"]),
    "carried, the observer's own": (None, "T", []),
}


@pytest.mark.parametrize("name", CASES)
def test_silent_notes_for_all_points_equal_point_by_point(name):
    """``silent_notes_at`` (all points at once, as ``/v1/lighting`` asks) gives each point the
    notes ``silent_light_notes`` gives it alone: lights within reach that do not shine (off,
    private, another token's private carried light; issue 15)."""
    extra, observer_id, expected = CASES[name]
    lights = [] if extra is None else [{"id": "l0", "x": 150, "y": 150, "dim": 10, **extra}]
    carried = {"dim": 10, "seen_by": "controllers"} if extra is None else {}
    tokens = [{"id": "T", "x": 100, "y": 100, "light": carried}, {"id": "O", "x": 0, "y": 0}]
    built = build_scene(SceneSchema().load(_scene(lights, tokens)))
    observer = next((t for t in built.scene.tokens if t.id == observer_id), None)
    points = [np.array([[160.0, 160.0]]), np.array([[9000.0, 9000.0]]), np.empty((0, 2))]
    together = lighting.silent_notes_at(built, points, observer)
    alone = [lighting.silent_light_notes(built, p, observer) for p in points]
    assert together == alone
    assert [note.split(":")[0].split(" (")[0] for note in together[0]] == expected
    assert together[1] == () and together[2] == ()


def test_the_light_table_follows_the_list_asked_about():
    """``light_table`` keeps the arrays of the last list of lights only: another list gets its
    own arrays (x, y in px, outer radius in grid units)."""
    scene = SceneSchema().load(
        _scene(
            [
                {"id": "a", "x": 1, "y": 2, "bright": 3, "dim": 4},
                {"id": "b", "x": 5, "y": 6, "bright": 8, "dim": 7},
            ]
        )
    )
    first, second = list(scene.lights), list(scene.lights[1:])
    assert [a.tolist() for a in lighting.light_table(first)] == [[1, 5], [2, 6], [4, 8]]
    assert [a.tolist() for a in lighting.light_table(second)] == [[5], [6], [8]]
    assert [a.tolist() for a in lighting.light_table(first)] == [[1, 5], [2, 6], [4, 8]]
