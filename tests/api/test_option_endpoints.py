"""Where each ruleset option applies (issue: options listed without where they apply).

``GET /v1/rulesets`` lists, for every option of every ruleset, the endpoints that take it
(``endpoints``). For every ruleset and every listed option: each listed endpoint takes it
(no 422), and each other endpoint the ruleset answers refuses it with a 422 naming the
option. A refusal lists only the options that endpoint takes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from service import rules
from service.operations import OPTION_ENDPOINTS
from tests.scenes import scene_dict, tok

SCENE = scene_dict([], [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100)])

#: A valid value of each option (the defaults are unset values, which are never refused).
VALUES: dict[str, Any] = {
    "corner_inset": 0.25,
    "cover_method": "dmg-corner",
    "concealment_corner": "attacker",
    "ignore_hidden": True,
    "ignore_prone_or_dead": True,
    "magical_darkness_blocks_sight": True,
    "magical_darkness_defeats_darkvision": True,
    "darkvision_dim_as_bright": True,
    "levels_rounding": "up",
    "miss_chance": 20,
    "partial_cover": ["T"],
    "advantage_levels": {"lesser": 1},
    "ignore_small_terrain": True,
    "measure_from": "best-corner",
    "take_cover": ["T"],
    "unnoticed": ["T"],
    "was_observing": ["T"],
}


def body(endpoint: str, ruleset: str, options: dict[str, Any], kind: str) -> dict[str, Any]:
    """A valid request to ``endpoint`` with ``options`` (``kind``: cover or vision)."""
    if endpoint == "/v1/cover":
        return {
            "ruleset": ruleset,
            "scene": SCENE,
            "attacker": "A",
            "targets": ["T"],
            "options": options,
        }
    if endpoint == "/v1/vision":
        return {
            "ruleset": ruleset,
            "scene": SCENE,
            "observer": "A",
            "targets": ["T"],
            "options": options,
        }
    if endpoint == "/v1/matrix":
        return {"ruleset": ruleset, "scene": SCENE, "kind": kind, "options": options}
    if endpoint == "/v1/render":
        who = "attacker" if kind == "cover" else "observer"
        query = {"type": kind, "ruleset": ruleset, who: "A", "target": "T", "options": options}
        return {"scene": SCENE, "query": query}
    if endpoint in ("/v1/line-of-effect", "/v1/line-of-sight"):
        return {"scene": SCENE, "from": "A", "to": "T", "options": options}
    if endpoint == "/v1/modifiers/flanking":
        return {
            "ruleset": ruleset,
            "scene": SCENE,
            "attacker": "A",
            "ally": "B",
            "target": "T",
            "options": options,
        }
    assert endpoint == "/v1/modifiers/gravity"
    creature = {"str": 1, "dex": 2, "con": 0, "speed": 30}
    return {"ruleset": ruleset, "gravity": 1.5, "creature": creature, "options": options}


def kinds(option: str) -> list[str]:
    """The kinds of /v1/matrix and /v1/render queries to try: cover, vision or both."""
    from schemas.requests import CoverOptionsSchema, VisionOptionsSchema

    found = [
        k
        for k, s in (("cover", CoverOptionsSchema), ("vision", VisionOptionsSchema))
        if option in s().fields
    ]
    return found or ["cover", "vision"]


def listed(client) -> list[tuple[str, str, list[str]]]:
    out = []
    for r in client.get("/v1/rulesets").get_json()["rulesets"]:
        for name, spec in r["options"].items():
            out.append((r["id"], name, spec["endpoints"]))
    return out


def answered(ruleset: str) -> list[str]:
    """The endpoints taking options that ``ruleset`` answers (its capabilities)."""
    system = rules.get(ruleset)
    return [e for e, cap, _ in OPTION_ENDPOINTS if cap is None or cap in system.extra_capabilities]


def test_every_option_has_a_value_here(client):
    names = {name for _, name, _ in listed(client)}
    assert names <= set(VALUES), names - set(VALUES)


def test_every_option_applies_somewhere(client):
    for ruleset, name, endpoints in listed(client):
        assert endpoints, (ruleset, name)
        assert set(endpoints) <= set(answered(ruleset)), (ruleset, name)


def test_listed_endpoints_take_the_option_and_others_refuse_it(client):
    for ruleset, name, endpoints in listed(client):
        options = {name: VALUES[name]}
        for endpoint in answered(ruleset):
            for kind in kinds(name) if endpoint in ("/v1/matrix", "/v1/render") else ["cover"]:
                resp = client.post(endpoint, json=body(endpoint, ruleset, options, kind))
                where = (ruleset, name, endpoint, kind)
                if endpoint in endpoints:
                    assert resp.status_code == 200, (where, resp.get_json())
                else:
                    assert resp.status_code == 422, where
                    assert name in json.dumps(resp.get_json()["errors"]), where


@pytest.mark.parametrize(
    ("ruleset", "option", "endpoint", "kind", "absent"),
    [
        pytest.param(
            "dnd5e",
            "take_cover",
            "/v1/cover",
            "cover",
            ("levels_rounding", "magical_darkness_blocks_sight", "darkvision_dim_as_bright"),
            id="dnd5e cover",
        ),
        pytest.param(
            "dnd5e",
            "unnoticed",
            "/v1/vision",
            "vision",
            ("levels_rounding", "cover_method", "ignore_prone_or_dead"),
            id="dnd5e vision",
        ),
        pytest.param(
            "dnd5e",
            "unnoticed",
            "/v1/matrix",
            "vision",
            ("levels_rounding", "cover_method"),
            id="dnd5e matrix of vision",
        ),
        pytest.param(
            "starfinder",
            "take_cover",
            "/v1/cover",
            "cover",
            ("magical_darkness_blocks_sight",),
            id="starfinder cover",
        ),
    ],
)
def test_refusal_lists_only_the_options_of_that_endpoint(
    client, ruleset, option, endpoint, kind, absent
):
    """A 422 for an option the ruleset does not use names only what this endpoint takes."""
    from schemas.requests import CoverOptionsSchema, VisionOptionsSchema

    schema = CoverOptionsSchema if kind == "cover" else VisionOptionsSchema
    assert option in schema().fields  # past the request schema, refused by the ruleset
    resp = client.post(endpoint, json=body(endpoint, ruleset, {option: ["T"]}, kind))
    assert resp.status_code == 422
    message = json.dumps(resp.get_json())
    assert "its options here" in message
    for name in absent:
        assert name not in message, name


def test_kinds_say_which_matrix_kind_takes_each_option(client):
    """``kinds``: a ``/v1/matrix`` of a listed kind takes the option; the other kind refuses
    it with a 422 that names the kind taking it."""
    for ruleset, name, endpoints in listed(client):
        if "/v1/matrix" not in endpoints:
            continue
        spec = next(
            r for r in client.get("/v1/rulesets").get_json()["rulesets"] if r["id"] == ruleset
        )
        taking = spec["options"][name]["kinds"]
        assert taking, (ruleset, name)
        for kind in ("cover", "vision"):
            resp = client.post(
                "/v1/matrix", json=body("/v1/matrix", ruleset, {name: VALUES[name]}, kind)
            )
            if kind in taking:
                assert resp.status_code == 200, (ruleset, name, kind, resp.get_json())
            else:
                assert resp.status_code == 422, (ruleset, name, kind)
                said = json.dumps(resp.get_json()["errors"])
                assert f"kind '{taking[0]}' only" in said, said
