"""Scenes counted in spaces (GEO-8 "scenes counted in squares", FORMATS.md pitfall 17).

A scene whose unit is blank, unknown or a count of spaces (``squares``, ``hexes``, Lancer's
1 unit a hex) counts 1 space = 5 ft for every rule distance (reach, SF-COV-5's 30 ft) and
for the creature heights of GEO-5a (a medium creature is 1 space tall, a large one 2); its
answers say so in ``notes``. The table runs through the HTTP API (the schema reads the unit).
"""

from __future__ import annotations

import pytest

from service.app import create_app
from service.engine.grids import feet_to_units, units_to_feet
from service.model import Grid

#: The start of the note an answer on a scene counted in spaces carries (GEO-8).
SPACES_NOTE = "GEO-8: the scene counts in spaces"


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": False}).test_client()


def _scene(units: str, walls: list, tokens: list, grid_type: str = "square") -> dict:
    grid = {"size": 100, "distance": 1, "units": units, "type": grid_type}
    return {"grid": grid, "environment": {"light": "bright"}, "walls": walls, "tokens": tokens}


def _tok(tid: str, x: float, y: float, w: int = 1) -> dict:
    return {"id": tid, "name": tid, "x": x, "y": y, "width": w, "height": w}


def _rock(top: float) -> dict:
    return {"id": "rock", "c": [400, 0, 400, 900], "height": {"bottom": 0, "top": top}}


@pytest.mark.parametrize(
    "feet, grid, units",
    [
        (5, Grid(size=100, distance=1, units="squares"), 1),
        (30, Grid(size=100, distance=1, units="squares"), 6),
        (10, Grid(size=100, distance=2, units="squares"), 4),
        (30, Grid(size=100, distance=1.5, units="m"), 9),
        (30, Grid(size=100, distance=5, units="ft"), 30),
    ],
)
def test_the_one_conversion(feet, grid, units):
    """GEO-8: 1 space = 5 ft (``grid.distance`` units a space), 1.5 m per 5 ft, ft as is."""
    assert feet_to_units(feet, grid) == pytest.approx(units)
    assert units_to_feet(units, grid) == pytest.approx(feet)


# (units, grid type, rock top in units, token width, line of sight clear?)
HEIGHTS = [
    pytest.param("", "square", 2, 1, False, id="blank: 2-unit rock, 1-space creatures (handed-3)"),
    pytest.param("squares", "square", 0.5, 1, True, id="squares: half-space rock is low"),
    pytest.param("hexes", "hex-row", 2, 1, False, id="hexes: 2-unit rock blocks"),
    pytest.param("", "square", 1.5, 2, True, id="blank: large creatures 2 spaces tall over 1.5"),
    pytest.param("ft", "square", 2, 1, True, id="ft control: 2-ft rock under 5-ft creatures"),
]  # fmt: skip


@pytest.mark.parametrize("units, grid_type, top, width, clear", HEIGHTS)
def test_creature_heights_count_in_spaces(client, units, grid_type, top, width, clear):
    """GEO-8 with GEO-5a: a medium creature is 1 space tall, a large one 2; a wall over the
    whole band blocks sight, one under part of it is a low obstacle that never does."""
    tokens = [_tok("Hunter", 100, 200, width), _tok("Prey", 600, 300, width)]
    scene = _scene(units, [_rock(top)], tokens, grid_type)
    resp = client.post("/v1/line-of-sight", json={"scene": scene, "from": "Hunter", "to": "Prey"})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["clear"] is clear


# (units, grid type, x of A in px, flanking?) -- C adjacent west of T; reach 5 ft = 1 space
REACH = [
    pytest.param("squares", "square", 500, False, id="squares: A 4 spaces east (handed-3)"),
    pytest.param("squares", "square", 200, True, id="squares: A adjacent east"),
    pytest.param("", "square", 300, False, id="blank: A 2 spaces east"),
    pytest.param("hexes", "hex-row", 300, False, id="hexes: A 2 hexes east"),
    pytest.param("ft", "square", 500, True, id="ft control: 1 ft a square, A 4 ft away"),
]


@pytest.mark.parametrize("units, grid_type, ax, flanking", REACH)
def test_reach_counts_in_spaces(client, units, grid_type, ax, flanking):
    """GEO-8 with SF-FLK-1: the default reach 5 ft is 1 space, not 5 spaces."""
    tokens = [_tok("C", 0, 300), _tok("T", 100, 300), _tok("A", ax, 300)]
    body = {
        "ruleset": "starfinder",
        "scene": _scene(units, [], tokens, grid_type),
        "attacker": "A",
        "ally": "C",
        "target": "T",
    }
    resp = client.post("/v1/modifiers/flanking", json=body)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["flanking"] is flanking


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize("endpoint", ["cover", "vision"])
def test_answers_say_they_count_in_spaces(client, ruleset, endpoint):
    """GEO-8: an answer on a scene counted in spaces says so in ``notes``; one in ft not."""
    for units, told in (("", True), ("ft", False)):
        scene = _scene(units, [], [_tok("A", 0, 0), _tok("T", 300, 0)])
        who = {"cover": "attacker", "vision": "observer"}[endpoint]
        body = {"ruleset": ruleset, "scene": scene, who: "A", "targets": ["T"]}
        resp = client.post(f"/v1/{endpoint}", json=body)
        assert resp.status_code == 200, resp.get_json()
        notes = resp.get_json()["results"][0]["notes"]
        assert any(n.startswith(SPACES_NOTE) for n in notes) is told
