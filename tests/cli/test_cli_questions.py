"""The query commands (cover, vision, lighting, matrix) of ``sightline``, answering locally.

The JSON of every query command is compared with the HTTP API's answer to the same question
(Flask test client), so the CLI and the API cannot drift. Against a live server: see
tests/e2e/test_client.py.
"""

from __future__ import annotations

import json

import pytest

from service.app import sample_scene
from tests.cli.helpers import (
    DELIAN,
    GOBLIN_A,
    GOBLIN_B,
    GOBLIN_BETWEEN,
    as_json,
    ok,
    post,
)
from tests.conftest import real_file

# --------------------------------------------------------------------------- one pipeline

#: The same question to the command line (local mode) and to the HTTP API: the command's
#: arguments after the scene file, and the API's path and body (without the scene).
SAME_QUESTION = [
    pytest.param(
        ["cover", "-r", "starfinder", "-a", "archer", "-t", "goblin", "-t", "kobold"],
        "/v1/cover",
        {"ruleset": "starfinder", "attacker": "archer", "targets": ["goblin", "kobold"]},
        id="cover",
    ),
    pytest.param(
        ["cover", "-r", "dnd5e", "--kind", "area", "--origin", "150,150", "-t", "goblin"],
        "/v1/cover",
        {
            "ruleset": "dnd5e",
            "targets": ["goblin"],
            "attack": {"kind": "area", "origin": [150, 150]},
        },
        id="cover-area",
    ),
    pytest.param(
        ["vision", "-r", "pf2e-variant", "--observer", "goblin", "-t", "archer", "-t", "bat"],
        "/v1/vision",
        {"ruleset": "pf2e-variant", "observer": "goblin", "targets": ["archer", "bat"]},
        id="vision",
    ),
    pytest.param(
        ["lighting", "--point", "150,150", "--point", "900,700", "-t", "goblin"],
        "/v1/lighting",
        {"points": [[150, 150], [900, 700]], "tokens": ["goblin"]},
        id="lighting",
    ),
    pytest.param(
        ["matrix", "-r", "starfinder", "--kind", "vision"],
        "/v1/matrix",
        {"ruleset": "starfinder", "kind": "vision"},
        id="matrix",
    ),
]


@pytest.mark.parametrize(("args", "path", "body"), SAME_QUESTION)
def test_local_mode_json_is_the_http_answer(sample, api, args, path, body):
    """The command line's local mode and the HTTP API run one operation table: same JSON."""
    got = as_json(args[0], sample, *args[1:])
    assert got == post(api, path, {**body, "scene": sample_scene()})


#: ``sightline render`` options and the ``POST /v1/render`` query they send.
SAME_PICTURE = [
    pytest.param([], None, id="bare-scene"),
    pytest.param(
        ["--cover", "archer:goblin", "-r", "dnd5e"],
        {"type": "cover", "ruleset": "dnd5e", "attacker": "archer", "target": "goblin"},
        id="cover",
    ),
    pytest.param(
        ["--vision", "goblin:archer", "-r", "pf2e-variant"],
        {"type": "vision", "ruleset": "pf2e-variant", "observer": "goblin", "target": "archer"},
        id="vision",
    ),
    pytest.param(
        ["--line-of-effect", "archer:kobold"],
        {"type": "line-of-effect", "from": "archer", "to": "kobold"},
        id="line-of-effect",
    ),
]


@pytest.mark.parametrize(("args", "query"), SAME_PICTURE)
def test_local_render_is_the_http_picture(sample, api, args, query):
    svg = ok("render", sample, *args).stdout
    body = {"scene": sample_scene()} if query is None else {"scene": sample_scene(), "query": query}
    resp = api.post("/v1/render", json=body)
    assert resp.status_code == 200
    assert svg == resp.get_data(as_text=True) + "\n"


# --------------------------------------------------------------------------- cover


def test_cover_table_on_the_sample_scene(sample):
    out = ok("cover", sample, "--ruleset", "dnd5e", "--attacker", "archer", "-t", "goblin").stdout
    head, columns, row = out.splitlines()
    assert head == "dnd5e cover against Elf archer (archer) (ranged)"
    assert columns.split()[:4] == ["target", "cover", "AC", "save"]
    assert row.split()[:5] == ["Goblin", "(goblin)", "half", "+2", "+2"]
    assert "2/4" in row and "5E-COV-5" in row


def test_cover_json_is_the_api_answer(sample, api):
    got = as_json("cover", sample, "-r", "dnd5e", "-a", "archer", "-t", "goblin", "-t", "kobold")
    assert [(r["target"], r["cover"]) for r in got["results"]] == [
        ("goblin", "half"),
        ("kobold", "total"),
    ]
    body = {
        "ruleset": "dnd5e",
        "scene": sample_scene(),
        "attacker": "archer",
        "targets": ["goblin", "kobold"],
        "attack": {"kind": "ranged"},
    }
    assert got == post(api, "/v1/cover", body)


def test_cover_tokens_by_name_and_options(sample, api):
    got = as_json(
        "cover",
        sample,
        "-r",
        "dnd5e",
        "-a",
        "elf ARCHER",
        "-t",
        "Goblin",
        "--option",
        "cover_method=dmg-corner",
        "--option",
        "corner_inset=1",
        "--kind",
        "melee",
    )
    body = {
        "ruleset": "dnd5e",
        "scene": sample_scene(),
        "attacker": "archer",
        "targets": ["goblin"],
        "attack": {"kind": "melee"},
        "options": {"cover_method": "dmg-corner", "corner_inset": 1},
    }
    assert got == post(api, "/v1/cover", body)


def test_cover_list_option_and_area_attack(sample, api):
    got = as_json(
        "cover",
        sample,
        "-r",
        "starfinder",
        "-a",
        "archer",
        "-t",
        "goblin",
        "--option",
        "partial_cover=goblin",
    )
    body = {
        "ruleset": "starfinder",
        "scene": sample_scene(),
        "attacker": "archer",
        "targets": ["goblin"],
        "options": {"partial_cover": ["goblin"]},
    }
    assert got == post(api, "/v1/cover", body)
    area = as_json(
        "cover", sample, "-r", "dnd5e", "--kind", "area", "--origin", "150,150", "-t", "goblin"
    )
    assert area["attacker"] is None
    assert area["results"][0]["target"] == "goblin"


def test_cover_on_a_foundry_export_imports_it_first():
    path = real_file(*DELIAN)
    result = ok("cover", path, "-r", "dnd5e", "-a", GOBLIN_A, "-t", GOBLIN_B, "--json")
    assert "imported" in result.stderr and "foundry" in result.stderr
    (answer,) = json.loads(result.stdout)["results"]
    assert answer["cover"] == "none"  # 1 of 4 lines blocked (5E-COV-5: 0 or 1 -> none)
    blocked = [line for line in answer["lines"] if line["blocked"]]
    assert [b["id"] for b in blocked[0]["blockers"]] == [GOBLIN_BETWEEN]
    assert len(blocked) == 1


def test_cover_by_unique_name_in_a_real_export():
    out = ok("cover", real_file(*DELIAN), "-r", "dnd5e", "-a", "Bugbear", "-t", "goblin shaman")
    assert "Goblin Shaman (V6SA309wFoNI162N)" in out.stdout


# --------------------------------------------------------------------------- vision, lighting


def test_vision_json_is_the_api_answer(sample, api):
    got = as_json(
        "vision", sample, "-r", "dnd5e", "--observer", "archer", "-t", "goblin", "-t", "bat"
    )
    body = {
        "ruleset": "dnd5e",
        "scene": sample_scene(),
        "observer": "archer",
        "targets": ["goblin", "bat"],
    }
    assert got == post(api, "/v1/vision", body)
    assert got["results"][0]["can_see"] is True


def test_vision_table(sample):
    out = ok("vision", sample, "-r", "pf2e-variant", "--observer", "archer", "-t", "kobold").stdout
    head, columns, row = out.splitlines()
    assert head == "pf2e-variant vision of Elf archer (archer)"
    assert row.startswith("Kobold (kobold)")


def test_lighting_points_and_tokens(sample, api):
    got = as_json("lighting", sample, "--point", "150,150", "--point", "950,750", "--token", "bat")
    body = {"scene": sample_scene(), "points": [[150, 150], [950, 750]], "tokens": ["bat"]}
    assert got == post(api, "/v1/lighting", body)
    assert [r["level"] for r in got["results"]] == ["bright", "dim", "dim"]
    assert got["results"][0]["lights"] == ["torch"]


def test_lighting_defaults_to_every_token(sample):
    lines = ok("lighting", sample).stdout.splitlines()
    assert lines[0].split()[:2] == ["where", "light"]
    assert len(lines) == 1 + len(sample_scene()["tokens"])
    assert lines[1].split()[:4] == ["Elf", "archer", "(archer)", "bright"]


def test_lighting_on_the_delian_tomb():
    got = as_json("lighting", real_file(*DELIAN), "--token", "Bugbear", "--point", "2728,4096")
    levels = {r["token"] or tuple(r["point"]): r["level"] for r in got["results"]}
    assert levels[(2728, 4096)] == "bright"  # a light stands there (bright 5, dim 25)
    assert set(levels.values()) <= {"bright", "dim", "dark"}


# --------------------------------------------------------------------------- matrix


def test_matrix_json_is_the_api_answer(sample, api):
    got = as_json("matrix", sample, "-r", "dnd5e")
    want = post(api, "/v1/matrix", {"ruleset": "dnd5e", "scene": sample_scene()})
    assert got == want
    ids = got["tokens"]
    row = got["cover"][ids.index("archer")]
    assert row[ids.index("goblin")] == "half"
    assert row[ids.index("kobold")] == "total"
    assert row[ids.index("archer")] is None


def test_matrix_table_and_vision(sample, api):
    out = ok("matrix", sample, "-r", "dnd5e", "-t", "archer", "-t", "goblin", "-t", "kobold").stdout
    lines = out.splitlines()
    assert lines[0].split() == ["#", "from", "\\", "to", "1", "2", "3"]
    assert lines[1].split() == ["1", "Elf", "archer", "(archer)", "-", "1/2", "X"]
    assert lines[-1] == "1/2 = half, X = total"
    got = as_json("matrix", sample, "-r", "dnd5e", "--kind", "vision")
    want = post(api, "/v1/matrix", {"ruleset": "dnd5e", "scene": sample_scene(), "kind": "vision"})
    assert got == want


def test_matrix_shows_a_progress_bar_past_20_tokens(tmp_path):
    raw = {
        "grid": {"size": 100},
        "walls": [{"id": "w", "c": [0, 250, 1100, 250]}],
        "tokens": [{"id": f"t{k}", "x": 100 * (k % 11), "y": 400 * (k // 11)} for k in range(22)],
    }
    path = tmp_path / "many.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    result = ok("matrix", path, "-r", "dnd5e", "--json")
    assert "cover matrix of 22 tokens" in result.stderr
    got = json.loads(result.stdout)
    assert got["cover"][0][11] == "total"  # across the wall
    assert got["cover"][0][1] == "none"
    small = ok("matrix", path, "-r", "dnd5e", "-t", "t0", "-t", "t1")
    assert "matrix of" not in small.stderr
