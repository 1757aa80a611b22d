"""``sightline render``: the SVG picture of a scene and of one question's traced lines."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.cli.helpers import DELIAN, GOBLIN_A, GOBLIN_B, ok, one_line_error, run
from tests.conftest import real_file


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
