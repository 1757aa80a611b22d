"""Gravity and underwater answer every ruleset whose rules define them, and name them to others.

Where the rules come from (docs/rules.md, the seeds): abnormal gravity is the dnd5e seed's
(5E-GRV-1..6); the starfinder seed's one gravity rule is SF-PRN-2 (a creature knocked prone in
zero gravity does not fall: it is weightless instead), SF-PRN-1 elsewhere; underwater combat is
the dnd5e seed's alone (5E-UW-1..9): the starfinder and pf2e-variant seeds and the rules the
dnd2024 and pf2e rulesets follow define none. A ruleset without the rules is a 422 at
``ruleset`` that names the rulesets that have them, never a dnd5e answer.
"""

from __future__ import annotations

import pytest

from service import model, rulebook, rules
from tests.api.test_api import assert_error

GRAVITY_RULESETS = ("dnd5e", "starfinder")
UNDERWATER_RULESETS = ("dnd5e",)
CREATURE = {"str": 1, "dex": 2, "con": 4, "speed": 30}
ATTACK = {"kind": "melee", "weapon": "longsword"}


def gravity(client, body, code=200):
    resp = client.post("/v1/modifiers/gravity", json=body)
    if code != 200:
        return assert_error(resp, code)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def test_starfinder_zero_gravity_is_weightless_not_prone(client):
    """SF-PRN-2: knocked prone in zero gravity, the creature is weightless (off-kilter)."""
    got = gravity(client, {"ruleset": "starfinder", "gravity": 0})
    assert got["weightless"] is True and got["rules"] == ["SF-PRN-2"]
    assert [(m["rule"], m["applies_to"], m["value"]) for m in got["prone"]] == [
        ("SF-PRN-2", "none", 0)
    ]
    assert "5E-GRV" in got["notes"][0]  # what the ruleset does not define, said
    assert "weight_multiplier" not in got  # no dnd5e answer under a starfinder name


@pytest.mark.parametrize("x", [0.5, 1, 3])
def test_starfinder_other_gravity_keeps_prone(client, x):
    """SF-PRN-1 where gravity is not zero: −4 melee attacks, +4 AC ranged, −4 AC melee."""
    got = gravity(client, {"ruleset": "starfinder", "gravity": x})
    assert got["weightless"] is False and got["rules"] == ["SF-PRN-1"]
    assert sorted((m["applies_to"], m["value"], m["rule"]) for m in got["prone"]) == [
        ("ac", -4, "SF-PRN-1"),
        ("ac", 4, "SF-PRN-1"),
        ("attack", -4, "SF-PRN-1"),
    ]


def test_starfinder_agrees_with_its_cover_answer(client):
    """The gravity answer's prone modifiers are the cover answer's (one table)."""
    from service.rules.starfinder.cover import PRONE, WEIGHTLESS

    zero = gravity(client, {"ruleset": "starfinder", "gravity": 0})["prone"]
    assert zero == [WEIGHTLESS.__dict__]
    one = gravity(client, {"ruleset": "starfinder", "gravity": 1})["prone"]
    assert one == [m.__dict__ for m in PRONE.values()]


@pytest.mark.parametrize("field", ["creature", "weapon", "options"])
def test_starfinder_refuses_dnd5e_fields(client, field):
    value = {
        "creature": CREATURE,
        "weapon": {"long_range": 600},
        "options": {"levels_rounding": "up"},
    }[field]
    err = gravity(client, {"ruleset": "starfinder", "gravity": 0, field: value}, 422)
    assert "dnd5e" in err["errors"]["json"][field][0]


def test_dnd5e_still_needs_its_creature(client):
    err = gravity(client, {"ruleset": "dnd5e", "gravity": 3}, 422)
    assert "creature" in err["errors"]["json"]
    got = gravity(client, {"ruleset": "dnd5e", "gravity": 3, "creature": CREATURE})
    assert got["speed"] == 15 and "weightless" not in got and "prone" not in got


@pytest.mark.parametrize("ruleset", [r for r in model.RULESET_IDS if r not in GRAVITY_RULESETS])
def test_gravity_without_rules_is_a_422_naming_who_has_them(client, ruleset):
    body = {"ruleset": ruleset, "gravity": 0, "creature": CREATURE}
    message = gravity(client, body, 422)["errors"]["json"]["ruleset"][0]
    assert all(r in message for r in GRAVITY_RULESETS), message


@pytest.mark.parametrize("ruleset", [r for r in model.RULESET_IDS if r not in UNDERWATER_RULESETS])
def test_underwater_without_rules_is_a_422_naming_dnd5e(client, ruleset):
    resp = client.post("/v1/modifiers/underwater", json={"ruleset": ruleset, "attack": ATTACK})
    message = assert_error(resp, 422)["errors"]["json"]["ruleset"][0]
    assert "dnd5e" in message and "5E-UW" in message


@pytest.mark.parametrize("ruleset", model.RULESET_IDS)
def test_capabilities_say_who_answers(client, ruleset):
    """``GET /v1/rulesets`` lists modifiers/gravity exactly for the rulesets that answer it."""
    caps = rules.get(ruleset).extra_capabilities
    assert ("modifiers/gravity" in caps) == (ruleset in GRAVITY_RULESETS)
    assert ("modifiers/underwater" in caps) == (ruleset in UNDERWATER_RULESETS)


@pytest.mark.parametrize("x", [0, 1])
def test_starfinder_cites_only_its_own_rules(client, x):
    got = gravity(client, {"ruleset": "starfinder", "gravity": x})
    for rule_id in [*got["rules"], *(m["rule"] for m in got["prone"])]:
        assert "starfinder" in rulebook.lookup(rule_id)["rulesets"]
