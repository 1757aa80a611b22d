from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.app import create_app, sample_scene


@pytest.fixture(scope="module")
def api():
    return create_app({"TESTING": True}).test_client()


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "sample.json"
    path.write_text(json.dumps(sample_scene()), encoding="utf-8")
    return path
