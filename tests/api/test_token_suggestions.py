"""An unknown token id gets the nearest id or name of the scene in its 404 (did you mean).

Every endpoint finds a request's token ids with ``service.engine.scene.find_token``; its 404
names the field and, when the scene holds a near id (a typo) or a token named as sent (a
client sent the name for the id), that token's id (``schemas.suggest.token_hint``, the
cutoff of the unknown-field suggestions). Nothing near: no suggestion, never a wrong one.
"""

from __future__ import annotations

import pytest

from schemas.suggest import token_hint
from tests.api.test_api import assert_error
from tests.scenes import scene_dict, tok

SCENE = scene_dict(
    [],
    [
        tok("goblin", 0, 0, name="Goblin"),
        tok("Xq7Lr2", 400, 0, name="Fighter"),
        tok("wizard", 800, 0),
    ],
)

#: (endpoint, body without the scene, the field path of the unknown id in ``errors.json``).
REQUESTS = [
    ("/v1/cover", {"ruleset": "dnd5e", "attacker": "{id}", "targets": ["wizard"]}, ["attacker"]),
    ("/v1/cover", {"ruleset": "dnd5e", "attacker": "wizard", "targets": ["{id}"]}, ["targets", 0]),
    ("/v1/vision", {"ruleset": "pf2e", "observer": "{id}", "targets": ["wizard"]}, ["observer"]),
    ("/v1/lighting", {"tokens": ["{id}"]}, ["tokens", "0"]),
    ("/v1/line-of-effect", {"from": "{id}", "to": "wizard"}, ["from"]),
    ("/v1/matrix", {"ruleset": "dnd5e", "tokens": ["wizard", "{id}"]}, ["tokens", "1"]),
]


def ask(client, path, body, token_id):
    filled = {
        k: (
            [token_id if v == "{id}" else v for v in value]
            if isinstance(value, list)
            else (token_id if value == "{id}" else value)
        )
        for k, value in body.items()
    }
    return assert_error(client.post(path, json={"scene": SCENE, **filled}), 404)


def at(errors, path):
    node = errors["json"]
    for key in path:
        node = node[key] if key in node else node[str(key)]
    return node[0]


@pytest.mark.parametrize(("path", "body", "where"), REQUESTS)
@pytest.mark.parametrize(
    ("sent", "hint"),
    [
        ("gobiln", "Did you mean 'goblin'?"),  # a typo of an id
        ("GOBLIN", "Did you mean 'goblin'"),  # the id in another letter case
        ("Fighter", "Did you mean 'Xq7Lr2' (the token named 'Fighter')?"),  # the name, not the id
        ("fihgter", "Did you mean 'Xq7Lr2' (the token named 'Fighter')?"),  # near the name
    ],
)
def test_unknown_token_suggests_the_nearest(client, path, body, where, sent, hint):
    err = ask(client, path, body, sent)
    assert hint in err["message"]
    assert hint in at(err["errors"], where)


@pytest.mark.parametrize(("path", "body", "where"), REQUESTS)
def test_nothing_near_suggests_nothing(client, path, body, where):
    err = ask(client, path, body, "dragon")
    assert "No token with id 'dragon'" in err["message"]
    assert "Did you mean" not in err["message"]


def test_hint_of_an_empty_scene_is_empty():
    assert token_hint("goblin", []) == ""


def test_an_unknown_viewer_of_a_picture_suggests_the_nearest(client):
    """``/v1/render``'s ``viewer`` is found as every other token id is: 404 at ``viewer``."""
    resp = client.post("/v1/render", json={"scene": SCENE, "viewer": "gobiln"})
    err = assert_error(resp, 404)
    assert "Did you mean 'goblin'?" in err["message"]
    assert "viewer" in err["errors"]["json"]


@pytest.mark.parametrize(("path", "body", "where"), REQUESTS)
def test_a_hidden_token_is_never_suggested(client, path, body, where):
    """What players see is what their token may know: a 404 never names a hidden token."""
    scene = scene_dict(
        [], [tok("wizard", 800, 0), tok("assassin-7", 0, 400, name="Shadow Assassin", hidden=True)]
    )
    for sent in ("assasin-7", "Shadow Assassin", "shadow asassin"):
        filled = {k: [sent if x == "{id}" else x for x in v] if isinstance(v, list)
                  else (sent if v == "{id}" else v) for k, v in body.items()}  # fmt: skip
        err = assert_error(client.post(path, json={"scene": scene, **filled}), 404)
        assert "assassin" not in err["message"].casefold().replace(sent.casefold(), "")
        assert "Did you mean" not in err["message"]


def test_a_hidden_token_is_not_suggested_to_a_pictures_viewer(client):
    scene = scene_dict(
        [], [tok("archer", 0, 0), tok("assassin-7", 400, 0, name="Shadow Assassin", hidden=True)]
    )
    query = {"type": "line-of-sight", "from": "archer", "to": "shadow assassin"}
    body = {"scene": scene, "viewer": "archer", "query": query}
    err = assert_error(client.post("/v1/render", json=body), 404)
    assert "assassin-7" not in str(err) and "Did you mean" not in err["message"]


def test_a_long_unknown_id_is_answered_without_comparing_it():
    """difflib is quadratic in length: ids and names past HINT_CHARS compare by a prefix."""
    from schemas.suggest import HINT_CHARS

    tokens = [(f"t{k}", "x" * 3000 + str(k)) for k in range(1000)]
    assert token_hint("y" * (HINT_CHARS + 1), tokens) == ""
    assert token_hint("t17x", tokens) == " Did you mean 't17'?"  # ids still compared


def test_a_hidden_blocker_is_named_to_the_gm_by_name_and_id(client):
    """The cover answer (the GM's) notes hidden creatures among the blockers (GM layer):
    by name, with the id a VTT gave it (a Roll20 id alone says nothing to a GM)."""
    scene = scene_dict(
        [],
        [
            tok("archer", 0, 0),
            tok("goblin", 400, 0),
            tok("-LL2-IQxNsX3", 200, 0, name="Wight", hidden=True),
            tok("ghost", 200, 100, hidden=True),
        ],
    )
    body = {"scene": scene, "ruleset": "dnd5e", "attacker": "archer", "targets": ["goblin"]}
    resp = client.post("/v1/cover", json=body)
    assert resp.status_code == 200, resp.get_json()
    notes = [n for n in resp.get_json()["results"][0]["notes"] if n.startswith("Hidden tokens")]
    assert len(notes) == 1 and "Wight (-LL2-IQxNsX3)" in notes[0], notes
