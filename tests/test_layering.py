"""DESIGN.md "Dependency direction": the pure core never imports Flask; adapters are stdlib."""

from __future__ import annotations

import subprocess
import sys

import pytest

PURE = [
    "service.model",
    "service.errors",
    "service.geometry",
    "service.rules",
    "service.rules.dnd5e",
    "service.cache",
    "schemas.scene",
]
STDLIB_ONLY = [
    "service.model",
    "service.errors",
    "adapters",
    "adapters.foundry",
    "adapters.errors",
    "adapters.roll20",
    "adapters.uvtt",
    "adapters.detect",
]


def imported_modules(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in out.stdout.split()}


@pytest.mark.parametrize("module", PURE)
def test_core_does_not_import_flask(module):
    assert not {"flask", "flask_smorest", "werkzeug", "flask_cors"} & imported_modules(module)


@pytest.mark.parametrize("module", STDLIB_ONLY)
def test_stdlib_only(module):
    third_party = {"flask", "marshmallow", "shapely", "numpy", "requests", "werkzeug"}
    assert not third_party & imported_modules(module)
