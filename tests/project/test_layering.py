"""DESIGN.md "Dependency direction": the pure core never imports Flask; adapters are stdlib.

One departure from DESIGN.md: ``service.model`` imports msgspec (and nothing else outside
the standard library), whose Structs let a scene be decoded in C (docs/decisions.md). The adapters
import ``service.model`` for the scene's bounds (declared there only), and nothing else of
the service; the schemas import ``service.model`` and no rules, geometry, numpy or shapely.
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
    "adapters.errors",
    "adapters.sniff",
]
#: Standard library and ``service.model`` (msgspec) only.
ADAPTERS = [
    "adapters",
    "adapters.detect",
    "adapters.foundry",
    "adapters.roll20",
    "adapters.uvtt",
    "adapters._common",
]
SCHEMAS = [
    "schemas.scene",
    "schemas.bounds",
    "schemas.common",
    "schemas.requests",
    "schemas.responses",
    "schemas.modifiers",
]


def loaded_modules(module: str) -> set[str]:
    """Every module (full dotted name) that importing ``module`` in a fresh interpreter loads."""
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def imported_modules(module: str) -> set[str]:
    return {name.split(".")[0] for name in loaded_modules(module)}


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


@pytest.mark.parametrize("module", ADAPTERS)
def test_adapters_need_only_the_model(module):
    assert third_party(module) - {"typing_extensions"} <= {"msgspec"}
    ours = {name for name in loaded_modules(module) if name.split(".")[0] in ("service", "schemas")}
    assert ours <= {"service", "service.model"}


@pytest.mark.parametrize("module", SCHEMAS)
def test_schemas_import_no_rules_geometry_numpy_or_shapely(module):
    loaded = loaded_modules(module)
    assert not {"numpy", "shapely"} & {name.split(".")[0] for name in loaded}
    service = {name for name in loaded if name.split(".")[0] == "service"}
    assert service <= {"service", "service.model"}, service  # no rules, geometry, environment


def test_model_lists_the_registered_rulesets():
    from service import model, rules

    assert sorted(model.RULESET_IDS) == sorted(rules.REGISTRY)
