"""Format sniffing and dispatch (adapters.detect) on real files and hand-made documents.

References: shared/FORMATS.md (a), (b), (c); shared/DESIGN.md "Canonical scene".
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from adapters import foundry, roll20, uvtt
from adapters.detect import FORMATS, detect, sniff, to_scene
from adapters.errors import AdapterError
from schemas.scene import SceneSchema
from tests.conftest import load_real

REAL = [
    pytest.param("foundry", "foundry-v0.7-zahi-cities-street.json", id="foundry-v0.7"),
    pytest.param("foundry", "foundry-v9-fa-redbrand-hideout.json", id="foundry-v9"),
    pytest.param("foundry", "foundry-v10-delian-tomb.json", id="foundry-v10"),
    pytest.param("foundry", "foundry-v12-fa-cult-sanctuary.json", id="foundry-v12"),
    pytest.param("foundry", "foundry-v13-fa-butcher-shop.json", id="foundry-v13"),
    pytest.param("roll20", "roll20-betteR20-module-white-plume-mountain.json", id="roll20-wpm"),
    pytest.param("roll20", "roll20-betteR20-module-tomb-of-horrors.json", id="roll20-toh"),
    pytest.param("uvtt", "uvtt-0.3-dndapps-the-litch-and-his-tomb.dd2vtt", id="uvtt-litch"),
    pytest.param(
        "uvtt", "uvtt-0.3-dndapps-stone-resolve-blue-tower-origin-offset.dd2vtt", id="uvtt-tower"
    ),
    pytest.param("uvtt", "uvtt-0.2-dndapps-headmasters-quarters.dd2vtt", id="uvtt-quarters"),
]
ADAPTERS = {"foundry": foundry.to_scene, "roll20": roll20.to_scene, "uvtt": uvtt.to_scene}


@pytest.mark.parametrize("fmt, name", REAL)
def test_real_files_are_detected(fmt, name):
    assert detect(load_real(fmt, name)) == fmt


@pytest.mark.parametrize("fmt, name", REAL)
def test_auto_dispatch_equals_the_adapter_and_loads(fmt, name):
    raw = load_real(fmt, name)
    result = to_scene(raw)
    assert result["stats"].pop("format") == fmt
    assert result == ADAPTERS[fmt](raw)
    SceneSchema().load(result["scene"])


# --------------------------------------------------------------------------- sniffing


FOUNDRY_SCENE = {"name": "s", "grid": {"size": 100}, "walls": []}
SNIFFS = [
    pytest.param(
        {"format": 0.3, "resolution": {"pixels_per_grid": 128}, "line_of_sight": []},
        "uvtt",
        id="uvtt",
    ),
    pytest.param({"resolution": {}, "portals": []}, "uvtt", id="uvtt-portals-only"),
    pytest.param({"schema_version": 1, "maps": [{"attributes": {}}]}, "roll20", id="betteR20"),
    pytest.param({"maps": [{"paths": []}]}, "roll20", id="betteR20-no-attributes"),
    pytest.param({"maps": []}, "roll20", id="betteR20-empty"),
    pytest.param({"R20Exporter_format": "1.0"}, "roll20", id="r20exporter-tag"),
    pytest.param({"pages": []}, "roll20", id="r20exporter-pages"),
    pytest.param({"paths": [], "snapping_increment": 1}, "roll20", id="roll20-page"),
    pytest.param({"attributes": {"name": "x"}, "graphics": []}, "roll20", id="betteR20-map"),
    pytest.param(FOUNDRY_SCENE, "foundry", id="foundry-v10"),
    pytest.param({"grid": 70, "gridType": 1}, "foundry", id="foundry-grid-only"),
    pytest.param({"walls": []}, "foundry", id="foundry-walls-only"),
    pytest.param({"_key": "!scenes!abc"}, "foundry", id="foundry-cli-key"),
    pytest.param({"scenes": []}, "foundry", id="foundry-world"),
    pytest.param([FOUNDRY_SCENE, None, FOUNDRY_SCENE], "foundry", id="foundry-list"),
    pytest.param({"maps": "x"}, None, id="maps-not-a-list"),
    pytest.param({"resolution": {}}, None, id="resolution-alone"),
    pytest.param({"name": "x"}, None, id="unknown-object"),
    pytest.param([], None, id="empty-list"),
    pytest.param([1, 2], None, id="list-of-numbers"),
    pytest.param([{"name": "x"}], None, id="list-of-other-objects"),
    pytest.param("scene", None, id="string"),
    pytest.param(None, None, id="null"),
    pytest.param(3.5, None, id="number"),
]


@pytest.mark.parametrize("export, fmt", SNIFFS)
def test_sniff(export, fmt):
    assert sniff(export) == fmt
    if fmt is None:
        with pytest.raises(AdapterError):
            detect(export)
    else:
        assert detect(export) == fmt


DETECT_ERRORS = [
    pytest.param({"name": "x", "size": 3}, "a JSON object with keys 'name', 'size'", id="object"),
    pytest.param({}, "a JSON object with keys none", id="empty-object"),
    pytest.param([1], "a list of 1 entries that are not Foundry scene documents", id="list"),
    pytest.param("x", "a JSON str", id="string"),
    pytest.param(None, "null", id="null"),
]


@pytest.mark.parametrize("export, seen", DETECT_ERRORS)
def test_detect_error_lists_what_was_looked_for(export, seen):
    with pytest.raises(AdapterError) as info:
        detect(export)
    message = info.value.message
    assert message.startswith("export format not recognised: looked for Universal VTT")
    for needle in (
        "'resolution' + 'line_of_sight'",
        "betteR20 'maps'",
        "R20Exporter_format",
        "'walls'",
        "'scenes' list",
    ):
        assert needle in message
    assert message.endswith(f"got {seen}")
    assert info.value.path == ()


# --------------------------------------------------------------------------- dispatch


def roll20_two_pages() -> dict:
    def page(name: str, x: int) -> dict:
        return {
            "attributes": {"name": name, "width": 5, "height": 5, "snapping_increment": 1},
            "paths": [
                {
                    "id": name,
                    "layer": "walls",
                    "path": json.dumps([["M", 0, 0], ["L", 70, 0]]),
                    "left": x,
                    "top": 35,
                    "width": 70,
                    "height": 0,
                }
            ],
            "graphics": [],
        }

    return {"schema_version": 1, "maps": [page("A", 35), page("B", 135)]}


def foundry_world() -> dict:
    return {
        "scenes": [
            dict(FOUNDRY_SCENE, _id="s1", name="One", walls=[{"_id": "w", "c": [0, 0, 1, 0]}]),
            dict(FOUNDRY_SCENE, _id="s2", name="Two"),
        ]
    }


DISPATCH = [
    pytest.param(roll20_two_pages(), "auto", {"page": "B"}, "roll20", 1, id="roll20-page"),
    pytest.param(roll20_two_pages(), "auto", {"scene": "1"}, "roll20", 1, id="roll20-scene-alias"),
    pytest.param(
        roll20_two_pages(),
        "roll20",
        {"page": 0, "scene": None},
        "roll20",
        1,
        id="explicit-none-dropped",
    ),
    pytest.param(foundry_world(), "auto", {"page": "One"}, "foundry", 1, id="foundry-page-alias"),
    pytest.param(foundry_world(), "foundry", {"scene": "Two"}, "foundry", 0, id="foundry-scene"),
    pytest.param(
        {
            "resolution": {"pixels_per_grid": 50},
            "line_of_sight": [[{"x": 0, "y": 0}, {"x": 1, "y": 0}]],
        },
        "auto",
        {"grid_distance": 1.5, "grid_units": "m"},
        "uvtt",
        1,
        id="uvtt-options",
    ),
]


@pytest.mark.parametrize("export, fmt, options, used, walls", DISPATCH)
def test_dispatch_with_options(export, fmt, options, used, walls):
    result = to_scene(export, format=fmt, **options)
    assert result["stats"]["format"] == used
    assert len(result["scene"]["walls"]) == walls
    SceneSchema().load(result["scene"])


def test_roll20_page_through_auto_picks_the_right_page():
    result = to_scene(roll20_two_pages(), page="B")
    assert result["scene"]["walls"][0]["c"] == [100, 35, 170, 35]
    assert result["stats"]["page"] == "B"


DISPATCH_ERRORS = [
    pytest.param(
        roll20_two_pages(),
        {"format": "vtt"},
        "unknown format 'vtt': expected auto, foundry, roll20, uvtt",
        ("format",),
        id="unknown-format",
    ),
    pytest.param(  # issue 17 item 10: scene= and page= both pick, for every format
        roll20_two_pages(),
        {"format": "roll20", "scene": "A", "page": "B"},
        "scene='A' and page='B' disagree: give one of them",
        (),
        id="scene-and-page-disagree",
    ),
    pytest.param(
        foundry_world(),
        {"grid_distance": 5},
        "option grid_distance does not apply to the foundry adapter (its options: scene)",
        (),
        id="uvtt-option-for-foundry",
    ),
    pytest.param(
        roll20_two_pages(),
        {},
        "the export holds 2 pages; pick one with page= (name or index): 0: 'A', 1: 'B'",
        ("maps",),
        id="roll20-needs-a-page",
    ),
    pytest.param(
        roll20_two_pages(),
        {"page": 7},
        "page index 7 is out of range: expected 0 to 1 (0: 'A', 1: 'B')",
        ("maps",),
        id="roll20-page-out-of-range",
    ),
    pytest.param(
        {"resolution": {"pixels_per_grid": 1}, "line_of_sight": []},
        {"format": "roll20"},
        # issue 17 item 1: an explicit format the body does not match says what it looks like
        "this looks like a Universal VTT file, not a Roll20 export: use format 'uvtt' (or 'auto')",
        (),
        id="uvtt-given-as-roll20",
    ),
    pytest.param(
        roll20_two_pages(),
        {"format": "uvtt"},
        "this looks like a Roll20 export, not a Universal VTT file: use format 'roll20' (or "
        "'auto')",
        (),
        id="roll20-given-as-uvtt",
    ),
    pytest.param({"name": "x"}, {}, None, (), id="nothing-recognised"),
]


@pytest.mark.parametrize("export, kw, message, path", DISPATCH_ERRORS)
def test_dispatch_errors(export, kw, message, path):
    with pytest.raises(AdapterError) as info:
        to_scene(export, **kw)
    if message is not None:
        assert info.value.message == message
    assert info.value.path == path


def test_formats_constant():
    assert FORMATS == ("foundry", "roll20", "uvtt")


@pytest.mark.parametrize(
    "module", ["adapters.detect", "adapters.roll20", "adapters.uvtt", "adapters._common"]
)
def test_new_adapters_are_standard_library_only(module):
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {name.split(".")[0] for name in out.stdout.split()}
    assert not {"flask", "marshmallow", "shapely", "numpy", "requests", "werkzeug"} & loaded
