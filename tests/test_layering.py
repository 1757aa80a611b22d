"""DESIGN.md "Dependency direction": the pure core never imports Flask; adapters are stdlib.

One departure from DESIGN.md: ``service.model`` imports msgspec (and nothing else outside
the standard library), whose Structs let a scene be decoded in C (issue 7).
"""

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


def third_party(module: str) -> set[str]:
    """Top-level modules outside the standard library and this project that ``module`` loads."""
    ours = {"service", "schemas", "adapters"}
    site = {"__main__", "_distutils_hack"}  # loaded by the interpreter's site hooks
    found = imported_modules(module) - set(sys.stdlib_module_names) - ours - site
    return {name for name in found if not name.startswith("__editable__")}


@pytest.mark.parametrize("module", STDLIB_ONLY)
def test_stdlib_only(module):
    assert third_party(module) == set()


def test_model_needs_only_msgspec():
    # typing_extensions: msgspec's own import where it is installed
    assert third_party("service.model") - {"typing_extensions"} == {"msgspec"}
