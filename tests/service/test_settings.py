"""Every SIGHTLINE_* setting is checked once at start (service/settings.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import settings
from service.app import create_app
from service.settings import SETTINGS, SettingError, load

README = Path(__file__).resolve().parents[2] / "README.md"

BAD = [
    ("SIGHTLINE_API_KEYS", "0"),
    ("SIGHTLINE_API_KEYS", "false"),
    ("SIGHTLINE_API_KEYS", "null"),
    ("SIGHTLINE_API_KEYS", '[""]'),
    ("SIGHTLINE_API_KEYS", "[]"),
    ("SIGHTLINE_API_KEYS", ""),
    ("SIGHTLINE_API_KEYS", "alpha,,beta"),
    ("SIGHTLINE_API_KEYS", "12345"),
    ("SIGHTLINE_API_KEYS", "[12345]"),
    ("SIGHTLINE_API_KEYS", '{"k": 1}'),
    ("SIGHTLINE_MAX_WALLS", "lots"),
    ("SIGHTLINE_MAX_WALLS", "0"),
    ("SIGHTLINE_MAX_WALLS", "1.5"),
    ("SIGHTLINE_MAX_WALLS", "true"),
    ("SIGHTLINE_MAX_CONTENT_LENGTH", "-1"),
    ("SIGHTLINE_WORKER_MAX_MB", "nan"),
    ("SIGHTLINE_REQUEST_TIMEOUT", "inf"),
    ("SIGHTLINE_PRELOAD_SAMPLE", "maybe"),
    ("SIGHTLINE_CORS_ORIGINS", "[1]"),
    ("SIGHTLINE_CORS_ORIGINS", '["(unclosed"]'),
    ("SIGHTLINE_WORKERS", "0"),
    ("SIGHTLINE_WORKERS", "2.5"),
    ("SIGHTLINE_WORKER_TIMEOUT", "soon"),
    ("SIGHTLINE_BIND", "nowhere"),
    ("SIGHTLINE_BIND", "127.0.0.1:99999"),
    ("SIGHTLINE_MAX_REQUEST_LINE", "100000"),
    ("SIGHTLINE_SCENE_FILE", ""),
    ("SIGHTLINE_SCENE_FILE", "/no/such/directory/scenes"),
    ("SIGHTLINE_SCENE_FILE", "/"),
]


@pytest.mark.parametrize(("variable", "value"), BAD)
def test_a_bad_value_is_refused_in_one_line_naming_it(variable, value):
    with pytest.raises(SettingError) as err:
        load({variable: value}, scope="all")
    line = str(err.value)
    assert "\n" not in line
    shown = value.strip().lower() in settings._NOT_KEYS or not value.strip('[]", ')
    if variable == "SIGHTLINE_API_KEYS" and not shown:
        # What may be a mistyped key is not printed (tests/service/test_hardening.py).
        assert line.startswith(f"{variable}='<{len(value)} characters, not shown>' is invalid")
        return
    assert line.startswith(f"{variable}={value!r} is invalid: expected ")


GUNICORN_ONLY = {s.variable for s in SETTINGS if s.scope == "gunicorn"}


@pytest.mark.parametrize(("variable", "value"), [b for b in BAD if b[0] not in GUNICORN_ONLY])
def test_create_app_refuses_a_bad_environment(monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingError, match=variable):
        create_app()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"API_KEYS": [""]}, "SIGHTLINE_API_KEYS"),
        ({"API_KEYS": [7]}, "SIGHTLINE_API_KEYS"),
        ({"API_KEYS": "false"}, "SIGHTLINE_API_KEYS"),
        ({"MAX_WALLS": "lots"}, "SIGHTLINE_MAX_WALLS"),
        ({"MAX_WALLS": True}, "SIGHTLINE_MAX_WALLS"),
    ],
)
def test_create_app_refuses_a_bad_test_config(config, message):
    with pytest.raises(SettingError, match=message):
        create_app(config)


@pytest.mark.parametrize(
    ("value", "keys"),
    [
        ("alpha", ("alpha",)),
        (" alpha , beta ", ("alpha", "beta")),
        ('["k1", "k2"]', ("k1", "k2")),
        ('["12345"]', ("12345",)),
        ('"s3cret"', ("s3cret",)),
    ],
)
def test_good_keys(value, keys):
    assert load({"SIGHTLINE_API_KEYS": value})["API_KEYS"] == keys


@pytest.mark.parametrize(
    ("variable", "value", "name", "expected"),
    [
        ("SIGHTLINE_MAX_WALLS", "1_000", "MAX_WALLS", 1000),
        ("SIGHTLINE_MAX_WALLS", " 20 ", "MAX_WALLS", 20),
        ("SIGHTLINE_PRELOAD_SAMPLE", "0", "PRELOAD_SAMPLE", False),
        ("SIGHTLINE_PRELOAD_SAMPLE", "Yes", "PRELOAD_SAMPLE", True),
        ("SIGHTLINE_REQUEST_TIMEOUT", "2.5", "REQUEST_TIMEOUT", 2.5),
        ("SIGHTLINE_WORKERS", "3", "WORKERS", 3),
        ("SIGHTLINE_BIND", "[::1]:8080", "BIND", "[::1]:8080"),
        ("SIGHTLINE_CORS_ORIGINS", "https://vtt.example", "CORS_ORIGINS", ["https://vtt.example"]),
    ],
)
def test_good_values(variable, value, name, expected):
    assert load({variable: value}, scope="all")[name] == expected


def test_defaults_and_derived_values():
    values = load({}, scope="all")
    for s in SETTINGS:
        if s.default is not None:
            assert values[s.name] == (list(s.default) if s.kind == "origins" else s.default)
    assert values["REQUEST_TIMEOUT"] == pytest.approx(0.8 * 30)
    assert values["WORKERS"] >= 1
    assert load({"SIGHTLINE_WORKER_TIMEOUT": "10"})["REQUEST_TIMEOUT"] == pytest.approx(8)


def test_the_watchdog_must_answer_before_gunicorn_kills():
    with pytest.raises(SettingError, match="SIGHTLINE_REQUEST_TIMEOUT=30 is invalid"):
        load({"SIGHTLINE_REQUEST_TIMEOUT": "30", "SIGHTLINE_WORKER_TIMEOUT": "30"})


def test_a_long_bad_value_is_cut_in_the_line():
    with pytest.raises(SettingError) as err:
        load({"SIGHTLINE_MAX_WALLS": "x" * 10_000})
    assert len(str(err.value)) < 300


def test_unknown_sightline_variables_are_not_settings():
    # The CLI's SIGHTLINE_URL / SIGHTLINE_API_KEY live in the same environment (the key
    # beside the server's own: alone it refuses to start, tests/service/test_hardening.py).
    load(
        {"SIGHTLINE_URL": "http://x", "SIGHTLINE_API_KEY": "0", "SIGHTLINE_API_KEYS": "k"},
        scope="all",
    )


def test_operations_doc_lists_every_setting():
    """docs/operations.md (the README points there) lists every setting, as the code has it."""
    text = (README.parent / "docs" / "operations.md").read_text(encoding="utf-8")
    table = settings.markdown_table()
    for row in table.splitlines()[2:]:
        assert row in text, row


def test_store_defaults_agree_with_the_store():
    from service.store import DEFAULT_TIMEOUT

    assert settings.BY_NAME["REDIS_TIMEOUT"].default == DEFAULT_TIMEOUT


@pytest.mark.parametrize("value", ["localhost:6379", "http://x", ""])
def test_a_bad_redis_url_is_refused(value):
    with pytest.raises(SettingError, match="SIGHTLINE_REDIS_URL"):
        load({"SIGHTLINE_REDIS_URL": value})


def test_a_scene_file_in_an_existing_directory(tmp_path):
    where = tmp_path / "scenes"
    assert load({"SIGHTLINE_SCENE_FILE": f" {where} "})["SCENE_FILE"] == str(where)
    assert load({})["SCENE_FILE"] is None


def test_every_config_key_the_service_reads_is_a_checked_setting():
    """A ``config["X"]`` read anywhere in service/ is a row of service.settings (or Flask's)."""
    import re

    from service.app import DEFAULTS

    root = Path(__file__).resolve().parents[2] / "service"
    read = set()
    for path in root.rglob("*.py"):
        read |= set(re.findall(r"config(?:\.get\(|\[)\s*[\"']([A-Z_]+)[\"']", path.read_text()))
    assert read - set(settings.BY_NAME) - set(DEFAULTS) - {"TESTING"} == set()
