"""Conditions the rules do not know, and ``ethereal`` and ``burrowing`` (GEO-12).

A request's conditions are checked against the vocabulary ``GET /v1/rulesets`` lists; one
outside it is ignored and named in the answer's ``notes``. ``ethereal``: it blocks nothing
and gives no cover, only truesight (5E-VIS-7) or seeing invisibility perceives it.
``burrowing``: no line of effect or sight to or from it; tremorsense perceives it (GEO-11;
imprecise in pf2e-variant, PV-DET-2). Layout (100 px = 5 ft): O at the origin, T three
squares south.
"""

from __future__ import annotations

import pytest

from service.app import create_app
from tests.scenes import scene_dict, tok

SYSTEMS = ("dnd5e", "starfinder", "pf2e-variant", "dnd2024", "pf2e")


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": False}).test_client()


def _vision(client, ruleset, senses, conditions, light="bright"):
    tokens = [tok("O", 0, 0, senses=senses), tok("T", 0, 300, conditions=conditions)]
    scene = scene_dict([], tokens, environment={"light": light})
    body = {"ruleset": ruleset, "scene": scene, "observer": "O", "targets": ["T"]}
    resp = client.post("/v1/vision", json=body)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["results"][0]


def test_rulesets_list_their_vocabulary(client):
    """GEO-12: ``GET /v1/rulesets`` lists each ruleset's conditions, ethereal and
    burrowing included."""
    listed = client.get("/v1/rulesets").get_json()["rulesets"]
    got = {r["id"]: set(r["conditions"]) for r in listed}
    assert set(got) == set(SYSTEMS)
    for ruleset in SYSTEMS:
        assert {"ethereal", "burrowing", "invisible", "blinded", "prone"} <= got[ruleset]
    assert {"concealed", "blurred", "displaced"} <= got["starfinder"]


@pytest.mark.parametrize("ruleset", SYSTEMS)
@pytest.mark.parametrize("endpoint", ["cover", "vision"])
def test_unknown_conditions_are_named(client, ruleset, endpoint):
    """GEO-12: an unknown condition is ignored and named in ``notes``, never silently."""
    tokens = [tok("O", 0, 0, conditions=["raging"]), tok("T", 0, 300, conditions=["hasted"])]
    scene = scene_dict([], tokens)
    who = {"cover": "attacker", "vision": "observer"}[endpoint]
    body = {"ruleset": ruleset, "scene": scene, who: "O", "targets": ["T"]}
    resp = client.post(f"/v1/{endpoint}", json=body)
    assert resp.status_code == 200, resp.get_json()
    notes = [n for n in resp.get_json()["results"][0]["notes"] if n.startswith("GEO-12")]
    assert len(notes) == 2
    assert "'raging' of O" in notes[0] and "'hasted' of T" in notes[1]


# (ruleset, observer senses, light, can_see, sense) -- the target is ethereal
ETHEREAL = [
    pytest.param("dnd5e", {"see_invisibility": 60}, "bright", True, "sight",
                 id="see invisibility (handed-3)"),
    pytest.param("dnd5e", {"truesight": 60}, "dark", True, "truesight", id="truesight, dark"),
    pytest.param("dnd5e", {}, "bright", False, None, id="plain sight: not perceived"),
    pytest.param("dnd5e", {"blindsight": 60}, "bright", False, None, id="blindsight: not"),
    pytest.param("starfinder", {"tremorsense": 60}, "bright", False, None, id="sf tremors: not"),
    pytest.param("pf2e-variant", {"see_invisibility": 60}, "bright", True, "sight",
                 id="pf2e see invisibility"),
]  # fmt: skip


@pytest.mark.parametrize("ruleset, senses, light, can_see, sense", ETHEREAL)
def test_ethereal_is_perceived_by_truesight_or_seeing_invisibility(
    client, ruleset, senses, light, can_see, sense
):
    """GEO-12: only truesight (5E-VIS-7) or seeing invisibility perceives an ethereal
    creature (hearing set to 0: nothing else locates it)."""
    got = _vision(client, ruleset, {**senses, "hearing": 0}, ["ethereal"], light)
    assert (got["can_see"], got["sense"]) == (can_see, sense)


# (ruleset, observer senses, can_see, sense, detection, flat check)
TREMOR = {"tremorsense": 60}
BURROWING = [
    pytest.param("pf2e-variant", TREMOR, False, "tremorsense", "hidden", 11,
                 id="pf2e tremorsense: hidden (handed-3)"),
    pytest.param("dnd5e", TREMOR, True, "tremorsense", None, None, id="dnd5e tremorsense"),
    pytest.param("starfinder", TREMOR, True, "tremorsense", None, None, id="sf tremorsense"),
    pytest.param("dnd5e", {"blindsight": 60}, False, None, None, None, id="blindsight: no"),
    pytest.param("dnd5e", {}, False, None, None, None, id="sight: no line of sight"),
]  # fmt: skip


@pytest.mark.parametrize("ruleset, senses, can_see, sense, detection, dc", BURROWING)
def test_burrowing_is_felt_only(client, ruleset, senses, can_see, sense, detection, dc):
    """GEO-12: no line of effect or sight to a burrowing creature; tremorsense feels it."""
    got = _vision(client, ruleset, {**senses, "hearing": 0}, ["burrowing"])
    assert got["line_of_sight"] is False
    assert (got["can_see"], got["sense"]) == (can_see, sense)
    assert (got["detection"], got["flat_check_dc"]) == (detection, dc)


@pytest.mark.parametrize("ruleset", SYSTEMS)
@pytest.mark.parametrize("condition", ["ethereal", "burrowing"])
def test_ethereal_and_burrowing_creatures_give_no_cover(client, ruleset, condition):
    """GEO-12: an ethereal (or burrowing) creature between two others blocks nothing; the
    same creature on this plane does."""
    degrees = []
    for conditions in ([], [condition]):
        tokens = [tok("A", 0, 0), tok("M", 200, 0, conditions=conditions), tok("T", 400, 0)]
        body = {"ruleset": ruleset, "scene": scene_dict([], tokens), "attacker": "A",
                "targets": ["T"]}  # fmt: skip
        resp = client.post("/v1/cover", json=body)
        assert resp.status_code == 200, resp.get_json()
        degrees.append(resp.get_json()["results"][0]["cover"])
    assert degrees[0] != "none"
    assert degrees[1] == "none"
