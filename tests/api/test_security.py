"""Issue 8: optional API keys, configurable limits, no internals in answers."""

from __future__ import annotations

import pytest

from service.app import create_app
from tests.api.test_api import assert_error
from tests.scenes import scene_dict, tok, wall

BODY = {"ruleset": "dnd5e", "scene_id": "sample", "attacker": "archer", "targets": ["goblin"]}


@pytest.fixture
def locked():
    return create_app({"API_KEYS": "alpha, beta"}).test_client()


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no Authorization header"),
        pytest.param({"Authorization": "Bearer gamma"}, id="wrong key"),
        pytest.param({"Authorization": "Basic alpha"}, id="wrong scheme"),
        pytest.param({"Authorization": "Bearer "}, id="empty key"),
        pytest.param({"Authorization": "Bearer alph"}, id="prefix of a key"),
    ],
)
def test_missing_or_wrong_key_is_401(locked, headers):
    resp = locked.post("/v1/cover", json=BODY, headers=headers)
    body = assert_error(resp, 401)
    assert "Bearer" in resp.headers["WWW-Authenticate"]
    assert "alpha" not in resp.get_data(as_text=True)
    assert body["message"].startswith("A valid API key")


@pytest.mark.parametrize("key", ["alpha", "beta"])
def test_each_configured_key_works(locked, key):
    resp = locked.post("/v1/cover", json=BODY, headers={"Authorization": f"Bearer {key}"})
    assert resp.status_code == 200


def test_open_paths_and_preflight_need_no_key(locked):
    assert locked.get("/healthz").status_code == 200
    assert locked.get("/openapi.json").status_code == 200
    pre = locked.options(
        "/v1/cover",
        headers={"Origin": "http://localhost:30000", "Access-Control-Request-Method": "POST"},
    )
    assert pre.status_code == 200


def test_keys_as_a_json_list_from_the_environment(monkeypatch):
    monkeypatch.setenv("SIGHTLINE_API_KEYS", '["k1", "k2"]')
    client = create_app().test_client()
    assert client.post("/v1/cover", json=BODY).status_code == 401
    assert (
        client.post("/v1/cover", json=BODY, headers={"Authorization": "Bearer k2"}).status_code
        == 200
    )


def test_no_keys_configured_means_open():
    assert create_app().test_client().post("/v1/cover", json=BODY).status_code == 200


@pytest.mark.parametrize(
    ("config", "body", "path"),
    [
        pytest.param(
            {"MAX_WALLS": 2},
            {
                "scene": scene_dict(
                    [wall(f"w{i}", 0, i, 5, i) for i in range(3)],
                    [tok("A", 0, 0), tok("T", 400, 0)],
                )
            },
            ["scene", "walls"],
            id="SIGHTLINE_MAX_WALLS",
        ),
        pytest.param(
            {"MAX_TOKENS": 1},
            {"scene": scene_dict([], [tok("A", 0, 0), tok("T", 400, 0)])},
            ["scene", "tokens"],
            id="SIGHTLINE_MAX_TOKENS",
        ),
        pytest.param(
            {"MAX_TARGETS": 1},
            {"scene_id": "sample", "attacker": "archer", "targets": ["goblin", "ogre"]},
            ["targets"],
            id="SIGHTLINE_MAX_TARGETS",
        ),
    ],
)
def test_configured_limits_answer_422_naming_them(config, body, path):
    client = create_app(config).test_client()
    request = {"ruleset": "dnd5e", "attacker": "A", "targets": ["T"], **body}
    err = assert_error(client.post("/v1/cover", json=request), 422)
    node = err["errors"]["json"]
    for key in path:
        node = node[key]
    assert "SIGHTLINE_MAX_" in err["message"]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param('{"x": ' + "1" * 4400 + "}", id="a 4,400-digit number"),
        pytest.param('{"x": ' + "[" * 3000 + "]" * 3000 + "}", id="3,000 levels deep"),
    ],
)
@pytest.mark.parametrize(
    "path", ["/v1/cover", "/v1/scenes", "/v1/modifiers/gravity", "/v1/import/foundry", "/v1/render"]
)
def test_json_the_parser_refuses_is_400(body, path):
    client = create_app().test_client()
    err = assert_error(client.post(path, data=body, content_type="application/json"), 400)
    assert err["errors"]["json"]


def test_long_ids_are_not_echoed_whole():
    client = create_app().test_client()
    sid = "sha256:" + "f" * 100_000
    resp = client.post("/v1/cover", json={**BODY, "scene_id": sid})
    assert resp.status_code == 404 and len(resp.get_data()) < 1000


def test_huge_token_lighting_is_bounded():
    """A 1,000-square token and 1,000 lights: sampled, not millions of points."""
    import time

    scene = scene_dict(
        [],
        [tok("big", 0, 0, 1000)],
        lights=[{"id": f"l{i}", "x": i * 50, "y": 0, "dim": 10} for i in range(1000)],
        environment={"light": "dark"},
    )
    client = create_app().test_client()
    start = time.monotonic()
    resp = client.post("/v1/lighting", json={"scene": scene, "tokens": ["big"]})
    assert resp.status_code == 200
    assert resp.get_json()["results"][0]["level"] == "dim"
    assert time.monotonic() - start < 30  # a guard against a hang, not a benchmark


def test_hidden_blockers_are_flagged():
    scene = scene_dict([], [tok("A", 0, 0), tok("T", 400, 0), tok("H", 200, 0, hidden=True)])
    client = create_app().test_client()
    res = client.post(
        "/v1/cover", json={"ruleset": "dnd5e", "scene": scene, "attacker": "A", "targets": ["T"]}
    ).get_json()["results"][0]
    assert res["cover"] == "half"
    assert any("Hidden tokens" in n and "H" in n for n in res["notes"])


def test_area_origin_inside_a_creature_gets_no_cover_from_it():
    scene = scene_dict([], [tok("caster", 100, 200), tok("T", 400, 200)])
    client = create_app().test_client()
    for ruleset in ("dnd5e", "starfinder", "pf2e-variant"):
        res = client.post(
            "/v1/cover",
            json={
                "ruleset": ruleset,
                "scene": scene,
                "targets": ["T"],
                "attack": {"kind": "area", "origin": [150, 250]},
            },
        ).get_json()["results"][0]
        assert res["cover"] == "none", ruleset


def test_cors_preflight_lists_only_real_methods():
    client = create_app().test_client()
    pre = client.options(
        "/v1/cover",
        headers={"Origin": "http://localhost:30000", "Access-Control-Request-Method": "POST"},
    )
    assert set(pre.headers["Access-Control-Allow-Methods"].split(", ")) <= {
        "GET",
        "POST",
        "OPTIONS",
    }


# --- Issue 16: bounded work --------------------------------------------------------------


def test_test_hooks_are_absent_unless_enabled():
    client = create_app().test_client()
    assert client.get("/v1/_test/sleep?ms=1").status_code == 404
    assert "/v1/_test/sleep" not in client.get("/openapi.json").get_data(as_text=True)


def test_the_watchdog_answers_503_and_the_app_goes_on():
    client = create_app({"TEST_HOOKS": True, "REQUEST_TIMEOUT": 0.2}).test_client()
    resp = client.get("/v1/_test/sleep?ms=5000")
    body = assert_error(resp, 503)
    assert resp.headers["Retry-After"] == "5"
    assert "0.2 s (SIGHTLINE_REQUEST_TIMEOUT)" in body["message"]
    assert client.get("/v1/_test/sleep?ms=10").get_json() == {"slept_ms": 10}
    assert client.post("/v1/cover", json=BODY).status_code == 200


def test_memory_error_answers_503_and_frees_memory_after(monkeypatch):
    from service import guard

    released = []
    monkeypatch.setattr(guard, "release_memory", lambda: released.append(True))
    app = create_app({"WORKER_MAX_MB": 100_000})

    @app.get("/boom")
    def boom():
        raise MemoryError

    client = app.test_client()
    resp = client.get("/boom")
    body = assert_error(resp, 503)
    assert resp.headers["Retry-After"] == "5"
    assert "100000 MB, SIGHTLINE_WORKER_MAX_MB" in body["message"]
    resp.close()
    assert released == [True]  # once the answer is sent
    assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/cover", {**BODY, "ruleset": "x" * 1_000_000}),
        ("/v1/modifiers/gravity", {"ruleset": "x" * 1_000_000}),
        ("/v1/modifiers/underwater", {"ruleset": "dnd5e", "effect": {"kind": "x" * 1_000_000}}),
        ("/v1/cover", {**BODY, "targets": ["x" * 1_000_000]}),
        ("/v1/cover", {**BODY, "x" * 1_000_000: 1}),
    ],
)
def test_a_megabyte_value_is_never_echoed(path, body):
    resp = create_app().test_client().post(path, json=body)
    assert 400 <= resp.status_code < 500
    assert len(resp.get_data()) < 3000, resp.get_data()[:300]


@pytest.mark.parametrize(
    ("config", "export", "said"),
    [
        pytest.param(
            {"MAX_WALLS": 2},
            scene_dict([wall(f"w{i}", 0, i, 5, i) for i in range(3)], []),
            "at most 2 walls (SIGHTLINE_MAX_WALLS); this one has 3",
            id="walls",
        ),
        pytest.param(
            {"MAX_TOKENS": 1},
            scene_dict([], [tok("A", 0, 0), tok("T", 400, 0)]),
            "at most 1 tokens (SIGHTLINE_MAX_TOKENS); this one has 2",
            id="tokens",
        ),
    ],
)
def test_import_over_the_limits_is_returned_whole_and_says_so(config, export, said):
    """Issue 16: an import is a translation, returned whole (nothing dropped); a scene that
    every other endpoint would refuse says which limit it passes, and ``/v1/scenes`` refuses
    it with the same words."""
    client = create_app(config).test_client()
    resp = client.post("/v1/import/auto", json=export)
    assert resp.status_code == 200
    body = resp.get_json()
    assert len(body["scene"]["walls"]) == len(export["walls"])
    assert len(body["scene"]["tokens"]) == len(export["tokens"])
    assert any(said in w and "Other endpoints refuse" in w for w in body["warnings"])
    err = assert_error(client.post("/v1/scenes", json={"scene": body["scene"]}), 422)
    assert said in err["message"]
