"""README's matrix and render examples answer what README shows (the bundled sample scene)."""

from __future__ import annotations

import json
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _bodies(path: str) -> list[dict]:
    """The JSON bodies of README's curl examples posting to ``path``, in order."""
    text = README.read_text(encoding="utf-8")
    found = re.findall(rf"curl -s http://127\.0\.0\.1:8000{path} [^\n]*\\\n\s+-d '([^']+)'", text)
    return [json.loads(body) for body in found]


def test_the_matrix_examples(client):
    """README: a dnd5e cover matrix and a pf2e-variant vision matrix of three tokens."""
    cover, vision = _bodies("/v1/matrix")
    got = client.post("/v1/matrix", json=cover).get_json()
    assert got["tokens"] == ["archer", "goblin", "kobold"]
    assert got["cover"] == [
        [None, "half", "total"],
        ["half", None, "total"],
        ["total", "total", None],
    ]
    got = client.post("/v1/matrix", json=vision).get_json()
    assert got["can_see"][0] == [None, True, False]
    assert got["vision"][0] == [None, "sight", None]


def test_the_render_example(client):
    """README: the SVG of the archer's cover against the goblin."""
    (body,) = _bodies("/v1/render")
    response = client.post("/v1/render", json=body)
    assert response.status_code == 200
    assert response.content_type.startswith("image/svg+xml")
    assert b"half cover" in response.data
