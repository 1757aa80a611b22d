"""Through a real gunicorn (default limits): crossing walls and huge hex creatures.

Once a 500 (``std::bad_alloc`` while noding the rooms of 2,000 crossing walls) and 503s at
the memory ceiling ("retry later", which never succeeds). Now 200 or a 422 saying what to
reduce (``tests/geometry/test_bounded_geometry.py`` has the details).
"""

from __future__ import annotations

import pytest
import requests

from tests.geometry.test_bounded_geometry import _hex_scene, crosswalls

pytestmark = pytest.mark.e2e


def test_crossing_walls_answer_through_gunicorn(server_url):
    scene = crosswalls(2000)
    loe = requests.post(
        server_url + "/v1/line-of-effect", json={"scene": scene, "from": "A", "to": "B"}, timeout=60
    )
    assert loe.status_code == 200, loe.text
    body = {"scene": scene, "ruleset": "dnd5e", "attacker": "A", "targets": ["B"]}
    cover = requests.post(server_url + "/v1/cover", json=body, timeout=60)
    assert cover.status_code == 200, cover.text
    assert cover.json()["results"][0]["line_of_effect"] == loe.json()["clear"]


def test_a_huge_hex_creature_is_a_422_through_gunicorn(server_url):
    body = {"ruleset": "starfinder", "scene": _hex_scene("hex-col", 1000)}
    body.update(attacker="A", ally="B", target="T")
    resp = requests.post(server_url + "/v1/modifiers/flanking", json=body, timeout=60)
    assert resp.status_code == 422, resp.text
    assert "'A'" in resp.json()["message"]
