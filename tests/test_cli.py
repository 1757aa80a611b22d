"""The ``sightline`` command (service.cli) with click's CliRunner, answering locally.

The JSON of every query command is compared with the HTTP API's answer to the same question
(Flask test client), so the CLI and the API cannot drift. Against a live server: see
tests/e2e/test_client.py.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from schemas.scene import SceneSchema
from service import cli
from service.app import create_app, sample_scene
from service.cli import commands
from tests.conftest import real_file

DELIAN = ("foundry", "foundry-v10-delian-tomb.json")
# Delian Tomb: a goblin with one of its four paired-corner lines through another goblin.
GOBLIN_A, GOBLIN_B, GOBLIN_BETWEEN = "vTb2FbAEQ4QQcZAA", "bNmhsTCeyRtXVwRs", "dzhJEKL8ieyyB4hm"


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli.main, [str(a) for a in args], input=input)


def ok(*args: str):
    result = run(*args)
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def as_json(*args: str):
    return json.loads(ok(*args, "--json").stdout)


def one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("sightline: error: ")
    assert result.stdout == ""
    return lines[0]


@pytest.fixture(scope="module")
def api():
    return create_app({"TESTING": True}).test_client()


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "sample.json"
    path.write_text(json.dumps(sample_scene()), encoding="utf-8")
    return path


def post(api, path: str, body: dict) -> dict:
    resp = api.post(path, json=body)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


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


# --------------------------------------------------------------------------- render


def test_render_writes_svg_with_caption(sample, tmp_path):
    out = tmp_path / "cover.svg"
    result = ok("render", sample, "--cover", "archer:goblin", "-r", "dnd5e", "-o", out)
    assert result.stderr.startswith(
        f"sightline: wrote {out}: dnd5e: Goblin has half cover from Elf archer (+2 AC)"
    )
    root = ET.parse(out).getroot()
    ns = {"svg": "http://www.w3.org/2000/svg"}
    assert len(root.findall("./svg:g[@id='traced']/svg:line", ns)) == 4


def test_render_vision_line_of_effect_and_bare_scene_to_stdout(sample):
    for args in (
        ["--vision", "archer:kobold", "-r", "dnd5e"],
        ["--line-of-effect", "archer:kobold"],
        ["--line-of-sight", "archer:kobold"],
        [],
    ):
        svg = ok("render", sample, *args).stdout
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")


def test_render_delian_tomb(tmp_path):
    out = tmp_path / "tomb.svg"
    ok("render", real_file(*DELIAN), "--cover", f"{GOBLIN_A}:{GOBLIN_B}", "-r", "dnd5e", "-o", out)
    assert "dzhJEKL8ieyyB4hm" in out.read_text("utf-8")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        pytest.param(["--cover", "archer:goblin"], "--cover needs --ruleset", id="no-ruleset"),
        pytest.param(["--cover", "archer"], "expected FROM:TO", id="not-a-pair"),
        pytest.param(
            ["--cover", "a:b", "--vision", "a:b", "-r", "dnd5e"], "at most one", id="two-queries"
        ),
        pytest.param(["--vision", "archer:ghost", "-r", "dnd5e"], "'ghost'", id="unknown-token"),
    ],
)
def test_render_errors(sample, args, words):
    assert words in one_line_error(run("render", sample, *args))


# --------------------------------------------------------------------------- import


def test_import_foundry_writes_a_canonical_scene(tmp_path):
    out = tmp_path / "tomb.json"
    result = ok("import", real_file(*DELIAN), "-o", out)
    scene = SceneSchema().load(json.loads(out.read_text("utf-8")))
    assert (len(scene.walls), len(scene.tokens), len(scene.lights)) == (43, 14, 2)
    first, *warnings = result.stderr.splitlines()
    assert "foundry scene" in first
    assert "43 walls, 1 door, 14 tokens, 2 lights, 0 regions" in first
    assert warnings and all(w.startswith("sightline: warning: ") for w in warnings)
    # the imported file is a SCENE for every command, recognised as canonical
    again = ok("cover", out, "-r", "dnd5e", "-a", GOBLIN_A, "-t", GOBLIN_B)
    assert "imported" not in again.stderr


def test_import_to_stdout_and_explicit_format():
    result = ok("import", real_file(*DELIAN), "--format", "foundry")
    assert json.loads(result.stdout)["grid"]["size"] == 114


@pytest.mark.parametrize(
    ("parts", "fmt", "walls"),
    [
        pytest.param(
            ("uvtt", "uvtt-0.2-dndapps-headmasters-quarters.dd2vtt"), "uvtt", 20, id="uvtt"
        ),
        pytest.param(
            ("roll20", "roll20-betteR20-module-tomb-of-horrors.json"), "roll20", 652, id="roll20"
        ),
    ],
)
def test_import_other_formats_when_detect_is_installed(parts, fmt, walls):
    pytest.importorskip("adapters.detect")
    result = ok("import", real_file(*parts))
    scene = SceneSchema().load(json.loads(result.stdout))
    assert len(scene.walls) == walls
    assert f"{fmt} scene" in result.stderr.splitlines()[0]


def test_import_errors():
    path = real_file(*DELIAN)
    # issue 17 item 10: --page and --scene pick for every format
    line = one_line_error(run("import", path, "--format", "foundry", "--page", "1"))
    assert "scene '1' not found; the export holds only 'The Delian Tomb'" in line
    assert "no such file" in one_line_error(run("import", "missing.json"))


def test_import_not_a_scene(tmp_path):
    path = tmp_path / "list.json"
    path.write_text(json.dumps({"hello": "world"}), encoding="utf-8")
    line = one_line_error(run("import", path))
    assert "list.json" in line and "not" in line


# --------------------------------------------------------------------------- errors


def test_missing_file():
    line = one_line_error(run("cover", "no/such/scene.json", "-r", "dnd5e", "-a", "a", "-t", "b"))
    assert line == "sightline: error: no/such/scene.json: no such file"


def test_bad_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"grid": {"size": 100},\n  "walls": [', encoding="utf-8")
    line = one_line_error(run("cover", path, "-r", "dnd5e", "-a", "a", "-t", "b"))
    assert "bad.json: not valid JSON (line 2" in line


def test_schema_error_names_the_field_path(tmp_path):
    raw = sample_scene()
    raw["walls"][3]["c"] = [0, 0, 1]
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    line = one_line_error(run("cover", path, "-r", "dnd5e", "-a", "archer", "-t", "goblin"))
    assert line.endswith("scene.json: invalid scene: walls.3.c: Length must be 4.")


def test_schema_typo_in_a_canonical_key_is_reported(tmp_path):
    raw = sample_scene()
    raw["tokens"][0]["nmae"] = "x"
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    line = one_line_error(run("lighting", path, "--point", "1,1"))
    assert "tokens.0.nmae: Unknown field." in line


@pytest.mark.parametrize(
    ("args", "words"),
    [
        pytest.param(
            ["cover", "-r", "dnd5e", "-a", "archer", "-t", "nobody"],
            "--target 'nobody': no token with that id or name",
            id="unknown-target",
        ),
        pytest.param(
            ["vision", "-r", "dnd5e", "--observer", "ghost", "-t", "goblin"],
            "--observer 'ghost'",
            id="unknown-observer",
        ),
        pytest.param(["lighting", "--token", "ghost"], "--token 'ghost'", id="unknown-token"),
        pytest.param(
            ["cover", "-r", "dnd6e", "-a", "archer", "-t", "goblin"],
            "Unknown ruleset 'dnd6e'",
            id="unknown-ruleset",
        ),
        pytest.param(
            ["cover", "-r", "dnd5e", "-a", "archer", "-t", "archer"],
            "cannot be its own target. (at targets.0)",
            id="own-target",
        ),
        pytest.param(
            [
                "cover",
                "-r",
                "dnd5e",
                "-a",
                "archer",
                "-t",
                "goblin",
                "--option",
                "measure_from=center",
            ],
            "Option 'measure_from' does not apply to ruleset 'dnd5e'",
            id="option-of-another-ruleset",
        ),
        pytest.param(
            ["cover", "-r", "dnd5e", "-a", "archer", "-t", "goblin", "--option", "nonsense"],
            "expected KEY=VALUE",
            id="option-syntax",
        ),
        pytest.param(
            ["cover", "-r", "dnd5e", "-a", "archer", "-t", "goblin", "--option", "speed=3"],
            "options.speed: Unknown field.",
            id="unknown-option",
        ),
        pytest.param(["lighting", "--point", "1;2"], "expected x,y", id="bad-point"),
        pytest.param(["lighting", "--point", "nan,2"], "finite", id="nan-point"),
        pytest.param(
            ["cover", "-r", "dnd5e", "-t", "goblin"],
            "attacker: Required unless attack.kind is 'area'.",
            id="no-attacker",
        ),
        pytest.param(
            ["matrix", "-r", "dnd5e", "--option", "cover_method=best"],
            "options.cover_method: Must be one of",
            id="matrix-bad-option",
        ),
    ],
)
def test_input_errors_are_one_line_exit_2(sample, args, words):
    line = one_line_error(run(args[0], sample, *args[1:]))
    assert words in line


def test_ambiguous_name_asks_for_an_id():
    line = one_line_error(
        run("cover", real_file(*DELIAN), "-r", "dnd5e", "-a", "Goblin", "-t", "Bugbear")
    )
    assert "4 tokens have that name; use an id" in line
    assert GOBLIN_A in line


def test_server_unreachable_is_one_line_exit_1(sample):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = run(
        "cover",
        sample,
        "-r",
        "dnd5e",
        "-a",
        "archer",
        "-t",
        "goblin",
        "--url",
        f"http://127.0.0.1:{port}",
    )
    line = one_line_error(result, code=1)
    assert f"server http://127.0.0.1:{port}: Connection error" in line


def test_unexpected_exception_is_one_line_exit_1(sample, monkeypatch):
    def boom(*_args, **_kw):
        raise ZeroDivisionError("division by zero\nsecond line")

    monkeypatch.setattr(commands, "cover_text", boom)
    line = one_line_error(run("cover", sample, "-r", "dnd5e", "-a", "archer", "-t", "goblin"), 1)
    assert line == "sightline: error: internal error: ZeroDivisionError: division by zero"


def test_stdin_scene():
    result = CliRunner().invoke(
        cli.main,
        ["lighting", "-", "--point", "150,150", "--json"],
        input=json.dumps(sample_scene()),
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["level"] == "bright"


# --------------------------------------------------------------------------- serve, help


def test_serve_execs_gunicorn_with_the_config(monkeypatch):
    calls = []
    monkeypatch.setattr(commands.os, "execv", lambda exe, args: calls.append((exe, args)))
    ok("serve", "--bind", "127.0.0.1:8123", "--workers", "3")
    ((exe, args),) = calls
    assert Path(exe).name == "gunicorn" and args[0] == exe
    assert args[1] == "-c" and args[2].endswith("gunicorn.conf.py")
    assert args[3:] == ["--bind", "127.0.0.1:8123", "--workers", "3", "service.app:create_app()"]


def test_serve_defaults_leave_bind_and_workers_to_the_config(monkeypatch):
    calls = []
    checked = []
    monkeypatch.setattr(commands.os, "execv", lambda exe, args: calls.append(args))
    monkeypatch.setattr(commands, "check_bind", checked.append)
    monkeypatch.delenv("SIGHTLINE_BIND", raising=False)
    monkeypatch.delenv("GUNICORN_CMD_ARGS", raising=False)
    ok("serve")
    assert calls[0][3:] == ["service.app:create_app()"]
    assert checked == ["127.0.0.1:8000"]  # issue 17 item 2: the config's bind, checked first


def test_serve_on_a_busy_port_is_one_line_exit_1(monkeypatch):
    import socket

    monkeypatch.setattr(commands.os, "execv", lambda exe, args: pytest.fail("gunicorn started"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        line = one_line_error(run("serve", "--bind", f"127.0.0.1:{port}"), code=1)
    assert f"cannot serve on 127.0.0.1:{port}: the port is in use" in line
    assert f"make run PORT={port + 10}" in line


def test_help_lists_every_command():
    out = ok("--help").stdout
    for name in ("serve", "import", "cover", "vision", "lighting", "matrix", "render"):
        assert name in out
    assert "0.1.0" in ok("--version").stdout


def test_cli_module_imports_no_heavy_dependency():
    import subprocess
    import sys

    code = (
        "import sys, service.cli; "
        "heavy = {'flask', 'marshmallow', 'shapely', 'numpy'}; "
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
