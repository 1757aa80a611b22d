"""Every ``SIGHTLINE_*`` setting, declared once and checked once at start (standard library only).

``SETTINGS`` is the table: name, kind, default, bounds, unit, what happens past the limit and
a one-line description. ``service.app.create_app`` reads the ``app`` settings from it and
``gunicorn.conf.py`` reads all of them, so a bad value refuses to start the server before a
worker is forked, with one line naming the variable, the value and what is expected::

    SIGHTLINE_MAX_WALLS='lots' is invalid: expected a whole number from 1 to 10000000 (walls
    per scene).

The README's limits table lists the same rows (``tests/service/test_settings.py`` checks it).
Variables of the environment that are not in the table (``SIGHTLINE_URL`` and
``SIGHTLINE_API_KEY`` of the CLI, for example) are not read here.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PREFIX = "SIGHTLINE_"

#: The origins a Foundry VTT client typically runs on (any port of localhost / 127.0.0.1).
DEFAULT_CORS_ORIGINS = (r"^https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$",)

#: Values that read as "no" or "nothing" and must never be taken as an API key.
_NOT_KEYS = {"0", "1", "false", "true", "null", "none", "no", "yes", "off", "on", "[]", "{}", '""'}


class SettingError(RuntimeError, ValueError):
    """A ``SIGHTLINE_*`` setting with a value the service cannot start with.

    A ``RuntimeError``, so that gunicorn prints its one line (``Error: ...``) without a
    traceback when it is raised while loading the app; a ``ValueError`` too (a bad value).
    """


@dataclass(frozen=True)
class Setting:
    """One setting: ``SIGHTLINE_<name>``, read into the Flask config key ``<name>``.

    Attributes
    ----------
    name : str
        The name without the ``SIGHTLINE_`` prefix, e.g. ``"MAX_WALLS"``.
    kind : str
        ``"int"``, ``"seconds"`` (a float), ``"bool"``, ``"keys"`` (API keys),
        ``"origins"`` (CORS origins), ``"bind"`` (a gunicorn address), ``"redis"`` (a Redis
        URL, or unset) or ``"path"`` (a file in an existing directory, or unset).
    default : Any
        The value when the variable is unset; ``None`` where it is derived (see ``doc``).
    low, high : float or None
        Inclusive bounds of a number.
    unit : str
        What the number counts, e.g. ``"walls per scene"``.
    status : str
        What happens past the limit (the README's "when exceeded" column).
    doc : str
        One line for the README.
    scope : str
        ``"app"`` (read by ``create_app``) or ``"gunicorn"`` (read by ``gunicorn.conf.py`` only).
    shown_default : str
        The default as the README shows it, where it is not the plain value.
    """

    name: str
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    unit: str = ""
    status: str = "—"
    doc: str = ""
    scope: str = "app"
    shown_default: str = ""

    @property
    def variable(self) -> str:
        """The environment variable, ``SIGHTLINE_<name>``."""
        return PREFIX + self.name

    def expected(self) -> str:
        """What a valid value looks like, for the error line."""
        if self.kind in ("int", "seconds"):
            what = "a whole number" if self.kind == "int" else "a number of seconds"
            text = f"{what} from {_num(self.low)} to {_num(self.high)}"
            return f"{text} ({self.unit})" if self.unit else text
        return {
            "bool": "true or false (also 1/0, yes/no, on/off)",
            "keys": (
                "one or more API keys, as 'key1,key2' or a JSON list of non-empty strings "
                '(\'["key1", "key2"]\'); unset the variable to run without keys'
            ),
            "origins": "an origin or regular expression, or a JSON list of them "
            "('[\"https://x.example\"]')",
            "bind": "HOST:PORT with a port from 1 to 65535, or unix:PATH",
            "redis": "a Redis URL (redis://HOST:PORT/DB, rediss://... or unix://PATH)",
            "path": "a file path in an existing directory, or off",
        }[self.kind]


def _num(value: float | None) -> str:
    return "any" if value is None else f"{value:g}" if value != int(value) else str(int(value))


MIB = 1024 * 1024

#: The table. Order is the README's.
SETTINGS: tuple[Setting, ...] = (
    Setting("MAX_CONTENT_LENGTH", "int", 10 * MIB, 1, 1024 * MIB, "bytes",
            "413", "request body in bytes (chunked too)", shown_default="10 MiB"),
    Setting("MAX_WALLS", "int", 50_000, 1, 10_000_000, "walls per scene",
            "422 at `scene.walls`", "walls per scene"),
    Setting("MAX_TOKENS", "int", 1000, 1, 1_000_000, "tokens per scene",
            "422 at `scene.tokens`", "tokens per scene"),
    Setting("MAX_LIGHTS", "int", 5000, 1, 10_000_000, "lights per scene",
            "422 at `scene.lights`", "lights per scene"),
    Setting("MAX_REGIONS", "int", 1000, 1, 1_000_000, "regions per scene",
            "422 at `scene.regions`", "regions per scene"),
    Setting("MAX_TARGETS", "int", 1000, 1, 1_000_000, "targets per request",
            "422 at `targets`", "targets per cover or vision request"),
    Setting("MATRIX_MAX_TOKENS", "int", 200, 1, 100_000, "tokens",
            "422 telling the limit", "tokens in a cover matrix"),
    Setting("MATRIX_MAX_VISION_TOKENS", "int", 200, 1, 100_000, "tokens",
            "422 telling the limit", "tokens in a vision matrix"),
    Setting("MAX_REGION_POINTS", "int", 40_000, 1, 10_000_000, "points",
            "422 at `scene.regions` (cost model, see below)",
            "outline points of all polygon regions together"),
    Setting("WORK_BUDGET", "int", 6_000_000, 1, 10**12, "line-wall tests",
            "422 telling what to reduce (cost model, see below)",
            "line-wall tests one request may spend"),
    Setting("MAX_ROOM_CROSSINGS", "int", 50_000, 0, 10**9, "wall crossings",
            "the rooms shortcut is skipped (same answers, no early \"sealed apart\")",
            "crossings of firm walls up to which closed rooms are built (cost model, see below)"),
    Setting("MAX_HEX_FOOTPRINT", "int", 4096, 1, 10**8, "hexes",
            "422 at `scene.tokens` naming the token",
            "hexes one token may cover on a hex grid (about 64 by 64 squares)"),
    Setting("MAX_FLANK_PAIRS", "int", 100_000, 1, 10**10, "lines",
            "422 naming both creatures",
            "lines between two creatures' squares or hexes that flanking may try"),
    Setting("SCENE_CACHE_SIZE", "int", 64, 1, 1_000_000, "scenes per worker",
            "least recently used dropped", "scenes cached per worker"),
    Setting("SCENE_CACHE_MAX_MB", "int", 64, 1, 1_000_000, "MB per worker",
            "least recently used dropped", "memory of cached scenes per worker",
            shown_default="64 MB"),
    Setting("REDIS_URL", "redis", None, status="—",
            doc="scene store shared by workers and replicas (`redis://host:6379/0`)",
            shown_default="none (`SIGHTLINE_SCENE_FILE`)"),
    Setting("SCENE_FILE", "path", None,
            status="least recently used dropped past `SIGHTLINE_SCENE_CACHE_MAX_MB` of stored "
            "scenes", doc="SQLite file the workers of one machine share scenes in, without "
            "`SIGHTLINE_REDIS_URL` (`off`: each worker keeps its own)",
            shown_default="one per gunicorn in its runtime directory, removed when it stops"),
    Setting("SCENE_TTL", "int", 86_400, 1, 10**9, "seconds",
            "the store drops it; a request by id answers 404 and the client resends",
            "seconds a stored scene lives after it was last stored or read"),
    Setting("REDIS_TIMEOUT", "seconds", 0.5, 0.001, 60, "seconds",
            "that request uses the local cache only",
            "seconds to connect to Redis, and per Redis reply"),
    Setting("WORKER_MAX_MB", "int", 1024, 64, 1_000_000, "MB per worker",
            "503 JSON with `Retry-After`; the worker frees memory at once",
            "memory ceiling of a worker (what it may add past its start; its RSS)",
            shown_default="1024 MB"),
    Setting("REQUEST_TIMEOUT", "seconds", None, 0.05, 86_400, "seconds",
            "503 JSON with `Retry-After`",
            "seconds a request may run before the worker's watchdog stops it (below "
            "`SIGHTLINE_WORKER_TIMEOUT`)", shown_default="0.8 × worker timeout (24 s)"),
    Setting("WORKER_TIMEOUT", "int", 30, 1, 86_400, "seconds",
            "gunicorn kills the worker (no answer); the watchdog answers 503 before",
            "seconds before gunicorn kills a silent worker", shown_default="30 s"),
    Setting("MAX_REQUEST_LINE", "int", 4094, 64, 8190, "bytes",
            "414 JSON", "request line (method, URL, version)", "gunicorn"),
    Setting("MAX_HEADERS", "int", 100, 1, 32_768, "header fields",
            "431 JSON", "header fields per request", "gunicorn"),
    Setting("MAX_HEADER_BYTES", "int", 8190, 64, 65_536, "bytes",
            "431 JSON", "bytes of one header field", "gunicorn"),
    Setting("API_KEYS", "keys", (), unit="", status="401 without `Authorization: Bearer <key>`",
            doc="API keys (`\"k1,k2\"` or a JSON list); unset: open"),
    Setting("CORS_ORIGINS", "origins", (), status="no CORS headers",
            doc="browser origins, added to the localhost defaults (one origin, or a JSON list; "
            "regexes allowed)", shown_default="localhost, 127.0.0.1, [::1], any port"),
    Setting("CORS_REPLACE", "bool", False,
            doc="allow only `SIGHTLINE_CORS_ORIGINS`, without the localhost defaults"),
    Setting("PRELOAD_SAMPLE", "bool", True, doc="load the sample scene as `scene_id: \"sample\"`"),
    Setting("TEST_HOOKS", "bool", False,
            doc="tests only: `/v1/_test/sleep?ms=`, `/v1/_test/alloc?mb=` (never in production)"),
    Setting("BIND", "bind", "127.0.0.1:8000", status="a busy port: error at start",
            doc="address gunicorn listens on (or `make run PORT=… HOST=…`)", scope="gunicorn"),
    Setting("WORKERS", "int", None, 1, 256, "workers", doc="gunicorn workers",
            scope="gunicorn", shown_default="CPU count"),
)  # fmt: skip

BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}


def _refuse(setting: Setting, shown_value: Any) -> SettingError:
    text = shown_value if isinstance(shown_value, str) else json.dumps(shown_value, default=str)
    if len(text) > 80:
        text = text[:79] + "…"
    return SettingError(f"{setting.variable}={text!r} is invalid: expected {setting.expected()}.")


def _number(setting: Setting, value: Any, raw: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _refuse(setting, raw)
    if setting.kind == "int" and not float(value).is_integer():
        raise _refuse(setting, raw)
    if not math.isfinite(value):
        raise _refuse(setting, raw)
    if (setting.low is not None and value < setting.low) or (
        setting.high is not None and value > setting.high
    ):
        raise _refuse(setting, raw)
    return int(value) if setting.kind == "int" else float(value)


def _keys(setting: Setting, value: Any, raw: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in _NOT_KEYS:
            raise _refuse(setting, raw)
        if text.startswith(("[", '"')):
            try:
                value = json.loads(text)
            except ValueError:
                raise _refuse(setting, raw) from None
            if isinstance(value, str):
                value = [value]
        else:
            try:  # a bare JSON number is not a key: ask for it quoted
                json.loads(text)
            except ValueError:
                value = text.split(",")
            else:
                raise _refuse(setting, raw)
    if not isinstance(value, list | tuple) or not value:
        raise _refuse(setting, raw)
    keys = []
    for key in value:
        if not isinstance(key, str) or not key.strip() or key.strip().lower() in _NOT_KEYS:
            raise _refuse(setting, raw)
        keys.append(key.strip())
    return tuple(keys)


def _origins(setting: Setting, value: Any, raw: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                raise _refuse(setting, raw) from None
        else:
            value = [text]
    if not isinstance(value, list | tuple):
        raise _refuse(setting, raw)
    for origin in value:
        if not isinstance(origin, str) or not origin.strip():
            raise _refuse(setting, raw)
        if origin != "*":
            try:
                re.compile(origin)
            except re.error:
                raise _refuse(setting, raw) from None
    return tuple(value)


def _bool(setting: Setting, value: Any, raw: Any) -> bool:
    if isinstance(value, bool):
        return value
    words = {"1": True, "true": True, "yes": True, "on": True}
    words |= {"0": False, "false": False, "no": False, "off": False}
    if isinstance(value, str) and value.strip().lower() in words:
        return words[value.strip().lower()]
    raise _refuse(setting, raw)


def _redis(setting: Setting, value: Any, raw: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip().startswith(
        ("redis://", "rediss://", "unix://")
    ):
        raise _refuse(setting, raw)
    return value.strip()


#: The value of a path setting that turns the file off (``SCENE_FILE``: no shared store).
PATH_OFF = "off"


def _path(setting: Setting, value: Any, raw: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str | os.PathLike):
        raise _refuse(setting, raw)
    text = os.fspath(value).strip()
    if text.lower() == PATH_OFF:
        return PATH_OFF
    if not text or os.path.isdir(text) or not os.path.isdir(os.path.dirname(text) or "."):
        raise _refuse(setting, raw)
    return text


def _bind(setting: Setting, value: Any, raw: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _refuse(setting, raw)
    text = value.strip()
    if text.startswith(("unix:", "fd://")):
        return text
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise _refuse(setting, raw)
    return text


def check(setting: Setting, value: Any) -> Any:
    """``value`` checked against ``setting``: the canonical value, or ``SettingError``.

    ``value`` is the text of the environment variable or a Python value (``create_app``'s
    ``test_config``).
    """
    raw = value
    if setting.kind in ("int", "seconds"):
        if isinstance(value, str):
            text = value.strip().replace("_", "")
            try:
                value = int(text) if re.fullmatch(r"[+-]?\d+", text) else float(text)
            except ValueError:
                raise _refuse(setting, raw) from None
        return _number(setting, value, raw)
    handlers = {
        "keys": _keys,
        "origins": _origins,
        "bool": _bool,
        "bind": _bind,
        "redis": _redis,
        "path": _path,
    }
    handler = handlers[setting.kind]
    return handler(setting, value, raw)


def load(
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    scope: str = "app",
) -> dict[str, Any]:
    """Every setting of ``scope`` (``"app"`` or ``"all"``), checked.

    Parameters
    ----------
    environ : mapping, optional
        Where ``SIGHTLINE_*`` variables are read (``os.environ`` by default).
    overrides : mapping, optional
        Values by setting name that win over the environment (``test_config``); names not
        in the table are ignored here.
    scope : str
        ``"app"``: the settings ``create_app`` reads (and ``WORKER_TIMEOUT``, which the
        watchdog's default follows); ``"all"``: gunicorn's too.

    Returns
    -------
    dict
        ``{name: value}``; ``WORKERS`` defaults to the CPU count and ``REQUEST_TIMEOUT`` to
        0.8 × ``WORKER_TIMEOUT``.

    Raises
    ------
    SettingError
        The first bad setting, in one line naming the variable, its value and what is
        expected; or ``REQUEST_TIMEOUT`` not below ``WORKER_TIMEOUT``.
    """
    environ = os.environ if environ is None else environ
    overrides = overrides or {}
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        if scope == "app" and setting.scope != "app":
            continue
        if setting.name in overrides:
            values[setting.name] = check(setting, overrides[setting.name])
        elif setting.variable in environ:
            values[setting.name] = check(setting, environ[setting.variable])
        else:
            values[setting.name] = setting.default
    if isinstance(values.get("CORS_ORIGINS"), tuple):
        values["CORS_ORIGINS"] = list(values["CORS_ORIGINS"])  # what flask-cors takes
    if "WORKERS" in values and values["WORKERS"] is None:
        values["WORKERS"] = os.cpu_count() or 1
    worker_timeout = values["WORKER_TIMEOUT"]
    if values["REQUEST_TIMEOUT"] is None:
        values["REQUEST_TIMEOUT"] = 0.8 * worker_timeout
    elif values["REQUEST_TIMEOUT"] >= worker_timeout:
        raise SettingError(
            f"SIGHTLINE_REQUEST_TIMEOUT={values['REQUEST_TIMEOUT']:g} is invalid: expected "
            f"fewer seconds than SIGHTLINE_WORKER_TIMEOUT={worker_timeout}, so that the "
            "watchdog answers before gunicorn kills the worker."
        )
    return values


def markdown_table() -> str:
    """The settings as the README's limits table (one row per setting)."""
    rows = ["| limit or setting | default | environment variable | when exceeded |"]
    rows.append("| --- | --- | --- | --- |")
    for s in SETTINGS:
        if s.shown_default:
            default = s.shown_default
        elif s.kind == "bool":
            default = "true" if s.default else "false"
        elif s.kind == "keys":
            default = "none (open)"
        else:
            default = f"{s.default:,}" if isinstance(s.default, int) else str(s.default)
        rows.append(f"| {s.doc} | {default} | `{s.variable}` | {s.status} |")
    return "\n".join(rows)
