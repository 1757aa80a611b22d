"""HTTP: canonical scenes with the imports-2 semantics, and the GM options.

The scenes below are canonical ones that reproduce what ``shared/cases/imports-2/README.md``
asks of the imported exports (the importers' own tests read the exports): a region that
overrides the light to dark inside (GEO-9), a darken region, a light switched off, a private
token light, a GM-layer token set aside with ``ignore_hidden``. Grid 100 px = 5 ft.
"""

from __future__ import annotations

import pytest

from tests.api.test_api import assert_error
from tests.scenes import scene_dict, tok

RULESETS = ("dnd5e", "starfinder", "pf2e-variant")


def rect(rid, x, y, w, h, **kw):
    return {"id": rid, "shape": {"type": "rect", "x": x, "y": y, "width": w, "height": h}, **kw}


def lighting(client, scene, points=(), tokens=()):
    resp = client.post(
        "/v1/lighting", json={"scene": scene, "points": list(points), "tokens": list(tokens)}
    )
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["results"]


def vision(client, scene, observer, target, ruleset="dnd5e", **options):
    body = {
        "ruleset": ruleset,
        "scene": scene,
        "observer": observer,
        "targets": [target],
        "options": options,
    }
    resp = client.post("/v1/vision", json=body)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["results"][0]


def cover(client, scene, attacker, target, ruleset, **options):
    body = {
        "ruleset": ruleset,
        "scene": scene,
        "attacker": attacker,
        "targets": [target],
        "options": options,
    }
    resp = client.post("/v1/cover", json=body)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["results"][0]


# ----------------------------------------------------------- imports-2, canonical scenes

#: foundry-v12-region-override-darkness: R1 (x >= 700) is dark inside; the scene is bright.
OVERRIDE = scene_dict(
    [],
    [tok("A", 100, 400), tok("T", 800, 400), tok("U", 400, 400)],
    environment={"light": "bright"},
    regions=[rect("R1", 700, 0, 1000, 1000, light="dark")],
)


def test_region_override_to_dark_inside(client):
    """GEO-9 (imports-2 v12): inside R1 T is dark and unseen; outside stays bright."""
    inside = vision(client, OVERRIDE, "A", "T")
    assert (inside["can_see"], inside["light"]) == (False, "dark")
    assert "GEO-9" in inside["rules"]
    outside = vision(client, OVERRIDE, "A", "U")
    assert (outside["can_see"], outside["light"]) == (True, "bright")


#: foundry-v13-region-darken: global light not bright (dim); the Cave (x >= 500) is dark.
DARKEN = scene_dict(
    [],
    [],
    environment={"light": "dim"},
    regions=[rect("Cave", 500, 0, 1000, 1000, light="dark")],
)


def test_darken_region(client):
    """GEO-9 (imports-2 v13): dim outside at (250, 500); dark at (750, 500) and (520, 500)."""
    got = [r["level"] for r in lighting(client, DARKEN, [[250, 500], [750, 500], [520, 500]])]
    assert got == ["dim", "dark", "dark"]


#: foundry-v10-hidden-light: the brazier is switched off; darkness 1, no global light.
HIDDEN_LIGHT = scene_dict(
    [],
    [],
    environment={"light": "dark"},
    lights=[{"id": "brazier", "x": 500, "y": 500, "bright": 10, "dim": 20, "on": False}],
)


def test_hidden_light_is_off(client):
    """A light switched off lights nothing and is not listed (imports-2 v10)."""
    results = lighting(client, HIDDEN_LIGHT, [[500, 500], [550, 500]])
    assert [r["level"] for r in results] == ["dark", "dark"]
    assert all(r["lights"] == [] for r in results)
    assert all("switched off" in " ".join(r["notes"]) for r in results)  # says how it decided
    far = lighting(client, HIDDEN_LIGHT, [[5000, 5000]])[0]
    assert "notes" not in far  # no light within reach: nothing to say


#: roll20-private-token-light: the goblin's light is seen only by its controllers.
PRIVATE = scene_dict(
    [],
    [
        tok("Fighter", 0, 0),
        tok("Goblin", 500, 0, light={"bright": 20, "dim": 40, "seen_by": "controllers"}),
    ],
    environment={"light": "dark"},
)


def test_private_token_light(client):
    """A private carried light lights nothing for anyone else (imports-2 Roll20)."""
    seen = vision(client, PRIVATE, "Fighter", "Goblin")
    assert (seen["can_see"], seen["light"]) == (False, "dark")
    assert any("private light" in n for n in seen["notes"])
    (public,) = lighting(client, PRIVATE, tokens=["Goblin"])
    assert (public["level"], public["lights"]) == ("dark", [])
    assert any("lights only for Goblin" in n for n in public["notes"])
    own = vision(client, PRIVATE, "Goblin", "Fighter")  # its own light reaches 40 ft
    assert own["light"] == "dim"


#: roll20-gm-layer-marker: a GM-layer graphic (hidden) between Archer and Orc.
GM_LAYER = scene_dict(
    [],
    [tok("Archer", 0, 0), tok("room-marker-7", 200, 0, hidden=True), tok("Orc", 400, 0)],
)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_gm_layer_token_with_ignore_hidden(client, ruleset):
    """``ignore_hidden``: a GM-layer token gives no cover (imports-2 Roll20, every ruleset)."""
    assert cover(client, GM_LAYER, "Archer", "Orc", ruleset, ignore_hidden=True)["cover"] == "none"
    default = cover(client, GM_LAYER, "Archer", "Orc", ruleset)
    assert default["cover"] != "none"
    assert any("Hidden tokens" in n for n in default.get("notes", []))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_matrix_and_vision_take_ignore_hidden(client, ruleset):
    """API.md: ``ignore_hidden`` is taken on every query (cover, vision, matrix)."""
    body = {
        "ruleset": ruleset,
        "scene": GM_LAYER,
        "tokens": ["Archer", "Orc"],
        "kind": "cover",
        "options": {"ignore_hidden": True},
    }
    resp = client.post("/v1/matrix", json=body)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["cover"] == [[None, "none"], ["none", None]]
    assert vision(client, GM_LAYER, "Archer", "Orc", ruleset, ignore_hidden=True)["can_see"]


def test_flanking_ignore_hidden(client):
    """``ignore_hidden``: a hidden ally does not flank (SF-FLK-1)."""
    scene = scene_dict([], [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100, hidden=True)])
    body = {"ruleset": "starfinder", "scene": scene, "attacker": "A", "ally": "B", "target": "T"}
    assert client.post("/v1/modifiers/flanking", json=body).get_json()["flanking"] is True
    body["options"] = {"ignore_hidden": True}
    got = client.post("/v1/modifiers/flanking", json=body).get_json()
    assert (got["flanking"], got["attack_bonus"]) == (False, 0)


# ----------------------------------------------------------- GM options listed, 422s

GM_OPTIONS = {
    "ignore_hidden": (False, None),
    "ignore_prone_or_dead": (False, None),
    "magical_darkness_blocks_sight": (False, None),
}
PER_RULESET = {
    "dnd5e": {
        "darkvision_dim_as_bright": (False, None),
        "levels_rounding": ("down", ["down", "up"]),
    },
    "starfinder": {"miss_chance": (None, None)},
    "pf2e-variant": {},
}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_rulesets_list_gm_options(client, ruleset):
    """GET /v1/rulesets lists each GM option with its default (the seed) and choices."""
    listing = {r["id"]: r for r in client.get("/v1/rulesets").get_json()["rulesets"]}[ruleset]
    for name, (default, choices) in {**GM_OPTIONS, **PER_RULESET[ruleset]}.items():
        spec = listing["options"][name]
        assert (spec["default"], spec["choices"]) == (default, choices), name
        assert spec["description"]


@pytest.mark.parametrize(
    ("ruleset", "endpoint", "option", "value"),
    [
        pytest.param("starfinder", "vision", "darkvision_dim_as_bright", True, id="sf dim"),
        pytest.param("pf2e-variant", "vision", "darkvision_dim_as_bright", True, id="pf2e dim"),
        pytest.param("dnd5e", "vision", "miss_chance", 30, id="dnd5e miss_chance"),
        pytest.param("pf2e-variant", "cover", "miss_chance", 30, id="pf2e miss_chance"),
        pytest.param("dnd5e", "cover", "magical_darkness_blocks_sight", True, id="cover darkness"),
        pytest.param("starfinder", "vision", "ignore_prone_or_dead", True, id="vision prone"),
    ],
)
def test_option_a_ruleset_or_query_does_not_use_is_422(client, ruleset, endpoint, option, value):
    """API.md: an option a ruleset (or the query) does not use is a 422."""
    scene = scene_dict([], [tok("A", 0, 0), tok("T", 400, 0)])
    body = {"ruleset": ruleset, "scene": scene, "targets": ["T"], "options": {option: value}}
    body["attacker" if endpoint == "cover" else "observer"] = "A"
    assert_error(client.post(f"/v1/{endpoint}", json=body), 422)


@pytest.mark.parametrize("value", [-1, 101, 12.5, "20"])
def test_miss_chance_out_of_range_is_422(client, value):
    scene = scene_dict([], [tok("A", 0, 0), tok("T", 400, 0)])
    body = {
        "ruleset": "starfinder",
        "scene": scene,
        "attacker": "A",
        "targets": ["T"],
        "options": {"miss_chance": value},
    }
    assert_error(client.post("/v1/cover", json=body), 422)
