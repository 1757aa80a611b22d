"""HTTP: POST /v1/modifiers/{gravity,underwater,range} (shared/API.md "Modifiers").

The app is built here and the ``modifiers`` blueprint registered on it unless the app
factory already does, so these tests pass before and after service/app.py wires it.
"""

from __future__ import annotations

import json

import pytest

from service import api_modifiers
from service.app import create_app
from tests.api.test_api import assert_error

GRAV_3 = {
    "ruleset": "dnd5e",
    "gravity": 3,
    "creature": {"str": 1, "dex": 2, "con": 4, "speed": 30},
    "weapon": {"normal_range": 150, "long_range": 600},
}


@pytest.fixture
def app():
    app = create_app({"TESTING": False, "MAX_CONTENT_LENGTH": 64 * 1024})
    if "modifiers" not in app.blueprints:
        api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
        api.register_blueprint(api_modifiers.blp)
    return app


@pytest.fixture
def client(app):
    return app.test_client()


def post(client, endpoint, body):
    return client.post(f"/v1/modifiers/{endpoint}", json=body)


def get_path(doc, path):
    for part in path.split("."):
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def check_expect(body, expect):
    """The matching of shared/tools/run-cases.py: dotted paths, approx, exact otherwise."""
    for path, want in expect.items():
        got = get_path(body, path)
        if isinstance(want, dict) and "approx" in want:
            assert got == pytest.approx(want["approx"], abs=want.get("tol", 1e-6)), path
        elif isinstance(want, bool) or want is None:
            assert got is want, path
        else:
            assert got == want, path


# The handed cases (shared/cases/handed.json, grav-* uw-* range-*), kept here so the tests
# run without ../shared; test_handed_file below also runs the file's current cases.
HANDED = [
    pytest.param(
        "gravity",
        GRAV_3,
        {
            "weight_multiplier": 3,
            "fall_distance_multiplier": 3,
            "fall_damage_cap": "60d6",
            "jump_multiplier": {"approx": 0.3333333333333333, "tol": 0.001},
            "weapon.long_range": 200,
            "weapon.normal_range": 150,
            "speed": 15,
            "can_dash": False,
            "grounded": True,
            "attack_disadvantage_levels": 2,
            "save_disadvantage_levels.str": 2,
            "save_disadvantage_levels.dex": 1,
            "save_disadvantage_levels.con": 0,
            "entry_save": None,
        },
        id="grav-3 5E-GRV-1..4",
    ),
    pytest.param(
        "gravity",
        {
            "ruleset": "dnd5e",
            "gravity": 12,
            "creature": {"str": 1, "dex": 2, "con": 4, "speed": 30},
        },
        {
            "speed": 5,
            "entry_save.dc": 24,
            "entry_save.damage": "24d6",
            "entry_save.ability": "con",
            "entry_save.type": "bludgeoning",
            "entry_save.on_success": "half",
            "weapon": None,
        },
        id="grav-12 5E-GRV-5",
    ),
    pytest.param(
        "underwater",
        {
            "ruleset": "dnd5e",
            "attacker": {"swim_speed": 0},
            "attack": {"kind": "melee", "weapon": "longsword"},
        },
        {"disadvantage": True, "auto_miss": False},
        id="uw-longsword-no-swim 5E-UW-1",
    ),
    pytest.param(
        "underwater",
        {
            "ruleset": "dnd5e",
            "attacker": {"swim_speed": 0},
            "attack": {"kind": "melee", "weapon": "shortsword"},
        },
        {"disadvantage": False},
        id="uw-shortsword 5E-UW-1",
    ),
    pytest.param(
        "underwater",
        {
            "ruleset": "dnd5e",
            "attacker": {"swim_speed": 0},
            "attack": {
                "kind": "ranged",
                "weapon": "longbow",
                "distance": 200,
                "normal_range": 150,
                "long_range": 600,
            },
        },
        {"auto_miss": True},
        id="uw-longbow-beyond-normal 5E-UW-2",
    ),
    pytest.param(
        "range",
        {"ruleset": "pf2e-variant", "distance": 45, "range_increment": 30},
        {"band": "near", "disadvantage_levels": 1, "possible": True},
        id="range-crossbow-45 PV-RNG-2",
    ),
    pytest.param(
        "range",
        {"ruleset": "pf2e-variant", "distance": 181, "range_increment": 30},
        {"possible": False},
        id="range-crossbow-181 PV-RNG-2",
    ),
]


@pytest.mark.parametrize(("endpoint", "body", "expect"), HANDED)
def test_handed_cases(client, endpoint, body, expect):
    resp = post(client, endpoint, body)
    assert resp.status_code == 200, resp.get_json()
    check_expect(resp.get_json(), expect)


def test_handed_file(client, shared_dir):
    cases = json.loads((shared_dir / "cases" / "handed.json").read_text("utf-8"))
    endpoints = {f"/v1/modifiers/{name}" for name in ("gravity", "underwater", "range")}
    mine = [c for c in cases if c["endpoint"] in endpoints]
    assert mine, "no modifiers cases in handed.json"
    for case in mine:
        resp = client.post(case["endpoint"], json=case["request"])
        assert resp.status_code == case.get("status", 200), case["id"]
        check_expect(resp.get_json(), case["expect"])


def test_gravity_answer_shape(client):
    body = post(client, "gravity", GRAV_3).get_json()
    assert body["weapon"] == {"normal_range": 150, "long_range": 200}
    assert body["save_disadvantage_levels"] == {"str": 2, "dex": 1, "con": 0}
    assert body["rules"] == ["5E-GRV-1", "5E-GRV-2", "5E-GRV-3", "5E-GRV-4"]
    # Whole numbers are JSON integers, as in API.md.
    assert isinstance(body["speed"], int) and isinstance(body["weight_multiplier"], int)


def test_gravity_fractional_and_option(client):
    """5E-GRV-3/4 Decision: floor(X - modifier) by default; ``up`` (started point) an option."""
    body = dict(GRAV_3, gravity=2.5, creature={"str": 2, "dex": 0, "con": 3, "speed": 40})
    down = post(client, "gravity", body).get_json()
    assert (down["speed"], down["fall_damage_cap"], down["attack_disadvantage_levels"]) == (
        27.5,
        "50d6",
        0,
    )
    assert down["save_disadvantage_levels"] == {"str": 0, "dex": 2, "con": 0}
    assert down["grounded"] is True  # 5E-GRV-2: Str +2 is below X = 2.5
    up = post(client, "gravity", dict(body, options={"levels_rounding": "up"})).get_json()
    assert up["attack_disadvantage_levels"] == 1
    assert up["save_disadvantage_levels"] == {"str": 1, "dex": 3, "con": 0}


def test_gravity_zero(client):
    body = post(client, "gravity", dict(GRAV_3, gravity=0)).get_json()
    assert (body["jump_multiplier"], body["fall_damage_cap"]) == (10, "0d6")
    assert body["weapon"] == {"normal_range": 150, "long_range": 6000}
    assert "5E-GRV-6" in body["rules"]


@pytest.mark.parametrize(
    ("attacker", "attack", "expect"),
    [
        pytest.param(
            {"swim_speed": 0, "senses": {"truesight": 0, "blindsight": 0}},
            {
                "kind": "melee",
                "weapon": "longsword",
                "distance": 20,
                "normal_range": None,
                "long_range": None,
                "damage_types": ["slashing"],
                "crosses_surface": False,
            },
            {"auto_miss": False, "disadvantage": True, "rules": ["5E-UW-1"]},
            id="API.md example",
        ),
        pytest.param(
            None,
            {"kind": "ranged", "weapon": "Heavy Crossbow", "distance": 60, "crosses_surface": True},
            {"auto_miss": False, "disadvantage": True, "rules": ["5E-UW-2", "5E-UW-9"]},
            id="5E-UW-9 refraction",
        ),
        pytest.param(
            {"senses": {"blindsight": 30}},
            {"kind": "ranged", "weapon": "heavy crossbow", "distance": 60, "crosses_surface": True},
            {"disadvantage": False},
            id="5E-UW-9 blindsight",
        ),
        pytest.param(
            None,
            {
                "kind": "ranged",
                "weapon": "light crossbow",
                "distance": 60,
                "crosses_surface": True,
                "damage_types": ["piercing", "radiant"],
            },
            {"disadvantage": False},
            id="5E-UW-9 radiant",
        ),
        pytest.param(
            None,
            {
                "kind": "ranged",
                "weapon": "speargun",
                "distance": 20,
                "normal_range": 30,
                "crossbow": True,
            },
            {"disadvantage": False, "auto_miss": False},
            id="unknown weapon with properties",
        ),
        pytest.param(
            {"swim_speed": 40},
            {"kind": "melee", "weapon": "greataxe"},
            {"disadvantage": False},
            id="5E-UW-1 swim speed",
        ),
    ],
)
def test_underwater_attack(client, attacker, attack, expect):
    body = {"ruleset": "dnd5e", "attack": attack}
    if attacker is not None:
        body["attacker"] = attacker
    resp = post(client, "underwater", body)
    assert resp.status_code == 200, resp.get_json()
    check_expect(resp.get_json(), expect)


@pytest.mark.parametrize(
    ("effect", "expect"),
    [
        pytest.param(
            {"kind": "fire", "damage": 21},
            {"kind": "fire", "resistance": True, "damage": 10, "rules": ["5E-UW-3"]},
            id="5E-UW-3",
        ),
        pytest.param(
            {"kind": "acid", "timing": "end_of_turn", "damage": 7},
            {"negated": True, "damage": 0, "rules": ["5E-UW-4"]},
            id="5E-UW-4",
        ),
        pytest.param(
            {"kind": "lightning_area", "size": 20},
            {"size": 30, "multiplier": 1.5, "rules": ["5E-UW-5"]},
            id="5E-UW-5",
        ),
        pytest.param(
            {"kind": "freeze", "cold_damage": 30, "occupied": False},
            {"frozen": True, "rules": ["5E-UW-6"]},
            id="5E-UW-6",
        ),
        pytest.param(
            {"kind": "breath", "con": -2, "elapsed_seconds": 31},
            {"hold_breath_seconds": 30, "hold_breath_rounds": 5, "suffocating": True},
            id="5E-UW-7",
        ),
        pytest.param(
            {"kind": "air_magic", "ability": "gust of wind"},
            {"works": False, "rules": ["5E-UW-8"]},
            id="5E-UW-8",
        ),
    ],
)
def test_underwater_effect(client, effect, expect):
    resp = post(client, "underwater", {"ruleset": "dnd5e", "effect": effect})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    check_expect(body, expect)
    assert "auto_miss" not in body


@pytest.mark.parametrize(
    ("body", "expect"),
    [
        pytest.param(
            {"ruleset": "pf2e-variant", "distance": 45, "range_increment": 30, "engaged": False},
            {
                "band": "near",
                "disadvantage_levels": 1,
                "possible": True,
                "rules": ["PV-RNG-1", "PV-RNG-2"],
            },
            id="API.md example",
        ),
        pytest.param(
            {"ruleset": "pf2e-variant", "distance": 180, "range_increment": 30},
            {"band": "distant", "disadvantage_levels": 5, "possible": True},
            id="PV-RNG-2 180 five levels",
        ),
        pytest.param(
            {"ruleset": "pf2e-variant", "distance": 181, "range_increment": 30},
            {"disadvantage_levels": None, "possible": False},
            id="PV-RNG-2 181 impossible",
        ),
        pytest.param(
            {"ruleset": "pf2e-variant", "distance": 5, "engaged": True},
            {
                "band": "engaged",
                "disadvantage_levels": None,
                "possible": None,
                "rules": ["PV-RNG-1"],
            },
            id="PV-RNG-1 engaged, band only",
        ),
    ],
)
def test_range(client, body, expect):
    resp = post(client, "range", body)
    assert resp.status_code == 200, resp.get_json()
    check_expect(resp.get_json(), expect)


BAD = [
    pytest.param("gravity", dict(GRAV_3, gravity=-1), ("gravity",), id="negative gravity"),
    pytest.param("gravity", dict(GRAV_3, gravity="3"), ("gravity",), id="gravity in a string"),
    pytest.param("gravity", dict(GRAV_3, gravity=True), ("gravity",), id="boolean gravity"),
    pytest.param("gravity", dict(GRAV_3, gravity=5000), ("gravity",), id="gravity too large"),
    pytest.param(
        "gravity",
        dict(GRAV_3, creature={"str": 1, "dex": 2, "con": 4, "speed": -30}),
        ("creature", "speed"),
        id="negative speed",
    ),
    pytest.param(
        "gravity",
        dict(GRAV_3, creature={"str": 1.5, "dex": 2, "con": 4, "speed": 30}),
        ("creature", "str"),
        id="fractional modifier",
    ),
    pytest.param(
        "gravity",
        dict(GRAV_3, creature={"dex": 2, "con": 4, "speed": 30}),
        ("creature", "str"),
        id="missing modifier",
    ),
    pytest.param(
        "gravity",
        dict(GRAV_3, weapon={"normal_range": 700, "long_range": 600}),
        ("weapon", "normal_range"),
        id="normal above long range",
    ),
    pytest.param("gravity", dict(GRAV_3, weapon={}), ("weapon", "long_range"), id="empty weapon"),
    pytest.param("gravity", dict(GRAV_3, ruleset="pf2e"), ("ruleset",), id="wrong ruleset"),
    pytest.param(
        "gravity", dict(GRAV_3, ruleset="starfinder"), ("creature",), id="dnd5e field, starfinder"
    ),
    pytest.param("gravity", dict(GRAV_3, ruleset="gurps"), ("ruleset",), id="unknown ruleset"),
    pytest.param("gravity", dict(GRAV_3, gravty=3), ("gravty",), id="unknown field"),
    pytest.param(
        "gravity",
        dict(GRAV_3, options={"levels_rounding": "nearest"}),
        ("options", "levels_rounding"),
        id="bad option",
    ),
    pytest.param(
        "underwater",
        {"ruleset": "dnd5e", "attack": {"kind": "ranged", "weapon": "harpoon", "distance": 10}},
        ("attack", "weapon"),
        id="unknown weapon without properties",
    ),
    pytest.param(
        "underwater",
        {"ruleset": "dnd5e", "attack": {"kind": "ranged", "weapon": "longbow"}},
        ("attack", "distance"),
        id="ranged without distance",
    ),
    pytest.param(
        "underwater",
        {"ruleset": "dnd5e", "attack": {"kind": "ranged", "weapon": "longbow", "distance": -5}},
        ("attack", "distance"),
        id="negative distance underwater",
    ),
    pytest.param(
        "underwater",
        {"ruleset": "dnd5e", "attack": {"kind": "melee", "weapon": "dagger", "thrown": 1}},
        ("attack", "thrown"),
        id="number as a boolean",
    ),
    pytest.param(
        "underwater",
        {
            "ruleset": "dnd5e",
            "attack": {"kind": "ranged", "weapon": "dart", "distance": 5, "damage_types": ["holy"]},
        },
        ("attack", "damage_types", "0"),
        id="unknown damage type",
    ),
    pytest.param(
        "underwater",
        {"ruleset": "pf2e-variant", "attack": {"kind": "melee", "weapon": "dagger"}},
        ("ruleset",),
        id="underwater wrong ruleset",
    ),
    pytest.param("underwater", {"ruleset": "dnd5e"}, ("attack",), id="neither attack nor effect"),
    pytest.param(
        "underwater",
        {
            "ruleset": "dnd5e",
            "attack": {"kind": "melee", "weapon": "dagger"},
            "effect": {"kind": "air_magic"},
        },
        ("attack",),
        id="both attack and effect",
    ),
    pytest.param(
        "underwater",
        {"ruleset": "dnd5e", "effect": {"kind": "acid"}},
        ("effect", "timing"),
        id="effect missing its field",
    ),
    pytest.param(
        "underwater",
        {"ruleset": "dnd5e", "effect": {"kind": "fire", "cold_damage": 30}},
        ("effect", "cold_damage"),
        id="effect field of another kind",
    ),
    pytest.param(
        "underwater",
        {"ruleset": "dnd5e", "effect": {"kind": "tsunami"}},
        ("effect", "kind"),
        id="unknown effect kind",
    ),
    pytest.param(
        "underwater",
        {"ruleset": "dnd5e", "effect": {"kind": "breath", "con": "2"}},
        ("effect", "con"),
        id="con in a string",
    ),
    pytest.param(
        "range",
        {"ruleset": "pf2e-variant", "distance": -1, "range_increment": 30},
        ("distance",),
        id="negative range distance",
    ),
    pytest.param(
        "range",
        {"ruleset": "pf2e-variant", "distance": 10, "range_increment": 0},
        ("range_increment",),
        id="zero range increment",
    ),
    pytest.param(
        "range",
        {"ruleset": "pf2e-variant", "distance": 10, "range_increment": -30},
        ("range_increment",),
        id="negative range increment",
    ),
    pytest.param(
        "range",
        {"ruleset": "dnd5e", "distance": 10, "range_increment": 30},
        ("ruleset",),
        id="range wrong ruleset",
    ),
    pytest.param(
        "range", {"ruleset": "pf2e-variant", "distance": "far"}, ("distance",), id="non-numeric"
    ),
]


@pytest.mark.parametrize(("endpoint", "body", "path"), BAD)
def test_bad_input_is_422_naming_the_field(client, endpoint, body, path):
    body = assert_error(post(client, endpoint, body), 422)
    node = body["errors"]["json"]
    for key in path:
        assert key in node, (path, body["errors"])
        node = node[key]
    assert isinstance(node, list) and node and all(isinstance(m, str) for m in node)


def test_wrong_ruleset_message_names_the_seed(client):
    body = post(client, "gravity", dict(GRAV_3, ruleset="pf2e-variant")).get_json()
    (message,) = body["errors"]["json"]["ruleset"]
    assert "pf2e-variant" in message and "dnd5e (5E-GRV-1..6)" in message
    assert "starfinder (SF-PRN-2)" in message
    body = post(client, "range", {"ruleset": "dnd5e", "distance": 10}).get_json()
    (message,) = body["errors"]["json"]["ruleset"]
    assert "pf2e-variant seed" in message


def test_not_json_is_415(client):
    resp = client.post("/v1/modifiers/range", data="distance=5", content_type="text/plain")
    assert_error(resp, 415)


def test_get_is_405(client):
    assert_error(client.get("/v1/modifiers/gravity"), 405)


def test_openapi_describes_the_modifiers(client):
    spec = client.get("/openapi.json").get_json()
    for name in ("gravity", "underwater", "range"):
        assert "post" in spec["paths"][f"/v1/modifiers/{name}"], name
