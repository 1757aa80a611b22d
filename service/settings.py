"""Every ``SIGHTLINE_*`` setting, declared once and checked once at start (standard library only).

``SETTINGS`` is the table: name, kind, default, bounds, unit, what happens past the limit and
a one-line description. ``service.app.create_app`` reads the ``app`` settings from it and
``gunicorn.conf.py`` reads all of them, so a bad value refuses to start the server before a
worker is forked, with one line naming the variable, the value and what is expected::

    SIGHTLINE_MAX_WALLS='lots' is invalid: expected a whole number from 1 to 10000000 (walls
    per scene).

The README's limits table lists the same rows (``tests/service/test_settings.py`` checks it).
Variables of the environment that are not in the table (``SIGHTLINE_URL`` and
``SIGHTLINE_API_KEY`` of the CLI, for example) are not read here, with one exception: a
server given ``SIGHTLINE_API_KEY`` (the CLI's client key) without ``SIGHTLINE_API_KEYS``
refuses to start, naming the variable it reads (:data:`MISNAMED`), rather than run open.
The value of a secret (API keys, a Redis URL's password) is never printed whole.

CORS origins (``SIGHTLINE_CORS_ORIGINS``) are exact origins (``https://vtt.example:30000``)
or patterns with ``*`` as the leftmost labels of the host (``https://*.vtt.example``: any
subdomain, never ``vtt.example.attacker.net``) or as the port (``http://localhost:*``: any
port, or none), or ``*`` alone (every origin). :func:`origin_pattern` compiles each to an
anchored, linear-time regular expression; anything else (a regular expression, a path) is
refused at start.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

PREFIX = "SIGHTLINE_"

#: The origins a Foundry VTT client typically runs on (any port of localhost / 127.0.0.1).
DEFAULT_CORS_ORIGINS = tuple(
    f"{scheme}://{host}:*"
    for host in ("localhost", "127.0.0.1", "[::1]")
    for scheme in ("http", "https")
)

#: Variables a server may be given by mistake for a setting: (wrong name, the right one,
#: the setting beside which the wrong one is harmless or ``""``, what to add). The CLI reads
#: ``SIGHTLINE_API_KEY`` as its key for ``--url``: beside ``SIGHTLINE_API_KEYS`` it is that;
#: alone, it is a server meant to need keys that would answer without any.
MISNAMED = (
    ("API_KEY", "API_KEYS", "API_KEYS",
     " SIGHTLINE_API_KEY is the CLI's key for --url: without SIGHTLINE_API_KEYS this server "
     "would answer every request without a key."),
    ("CORS_ORIGIN", "CORS_ORIGINS", "", ""),
)  # fmt: skip

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
            "origins": "an origin (scheme://host[:port]) or a pattern with * as the host's "
            "leftmost labels or as the port ('https://*.x.example', 'http://localhost:*'), or "
            "a JSON list of them ('[\"https://x.example\"]'); no regular expressions",
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
    Setting("WORKER_MAX_MB", "int", 768, 64, 1_000_000, "MB per worker",
            "503 JSON with `Retry-After`; the worker frees memory at once",
            "memory ceiling of a worker: how far its resident memory may grow past its first "
            "request's, watched while a request runs",
            shown_default="768 MB"),
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
            "`*` as leftmost host labels or port: `https://*.vtt.example`, `http://host:*`)",
            shown_default="localhost, 127.0.0.1, [::1], any port"),
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


#: Kinds of setting whose value is a secret, never printed whole in an error line.
SECRET_KINDS = ("keys", "redis")


def shown_secret(setting: Setting, text: str) -> str:
    """``text`` of a secret setting as an error line may show it.

    API keys: only their length, but for words that are never keys (``false``, ``[]``,
    ``[""]`` ...). A Redis URL: with its password (and user) replaced by ``***``; a value that
    does not parse as a URL: only its length.
    """
    bare = re.sub(r'[\[\]",\s]', "", text)  # no key left once the list syntax is gone
    if setting.kind == "keys" and (text.strip().lower() in _NOT_KEYS or not bare):
        return text
    if setting.kind == "redis":
        try:
            parts = urlsplit(text.strip())
            host = parts.hostname or ""
            port = f":{parts.port}" if parts.port else ""
        except ValueError:
            parts = None
        if parts is not None and parts.scheme and "@" not in host:
            auth = "***@" if "@" in parts.netloc else ""
            return urlunsplit((parts.scheme, auth + host + port, parts.path, "", ""))
    return f"<{len(text)} characters, not shown>"


def _refuse(setting: Setting, shown_value: Any) -> SettingError:
    text = shown_value if isinstance(shown_value, str) else json.dumps(shown_value, default=str)
    if setting.kind in SECRET_KINDS:
        text = shown_secret(setting, text)
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
        if not isinstance(origin, str) or origin_pattern(origin) is None:
            raise _refuse(setting, raw)
    return tuple(o.strip() for o in value)


#: An origin or pattern: scheme, host (a name with ``*.`` labels first, or ``*`` alone; an
#: IPv4 or bracketed IPv6 address), an optional port (digits or ``*``), nothing after.
_ORIGIN = re.compile(
    r"(?P<scheme>[a-z][a-z0-9+.-]{0,30})://"
    r"(?P<host>(?:\*\.)*[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})*|\[[0-9a-f:.]{2,45}\])"
    r"(?::(?P<port>\d{1,5}|\*))?",
    re.IGNORECASE,
)
#: A host label, as an origin's ``*`` stands for one or more of them.
_LABEL = r"[a-z0-9-]{1,63}"


def origin_pattern(origin: str) -> re.Pattern[str] | None:
    """The anchored regular expression of a CORS origin or pattern, or ``None`` if it is neither.

    ``origin`` is an exact origin (``https://vtt.example:30000``: scheme, host, optional port,
    no path), a pattern with ``*.`` as the host's leftmost labels (one or more labels: a
    subdomain) or ``*`` as the port (any port, or none), or ``*`` alone (every origin).
    The expression is case-insensitive, anchored at both ends and
    linear in the length of the origin it is matched with (a ``*`` label cannot contain a
    dot). Cost: O(len(origin)).
    """
    text = origin.strip()
    if text == "*":
        return re.compile(r"\A.*\Z", re.DOTALL)
    found = _ORIGIN.fullmatch(text)
    if found is None:
        return None
    host, port = found["host"], found["port"]
    name = host.lstrip("*.") if not host.startswith("[") else host
    if not name or (port and port != "*" and not 0 < int(port) <= 65535):
        return None
    stars = (len(host) - len(name)) // 2 if not host.startswith("[") else 0
    regex = re.escape(found["scheme"].lower()) + "://"
    regex += rf"(?:{_LABEL}\.)+" if stars else ""
    regex += re.escape(name.lower())
    if port == "*":
        regex += r"(?::\d{1,5})?"
    elif port:
        regex += re.escape(":" + port)
    return re.compile(rf"\A{regex}\Z", re.IGNORECASE)


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
        expected (a secret's value hidden: :func:`shown_secret`); ``REQUEST_TIMEOUT`` not
        below ``WORKER_TIMEOUT``; or a misnamed variable (:data:`MISNAMED`).
    """
    environ = os.environ if environ is None else environ
    overrides = overrides or {}
    _refuse_misnamed(environ, overrides)
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


def _refuse_misnamed(environ: Mapping[str, str], overrides: Mapping[str, Any]) -> None:
    """``SettingError`` for a variable of :data:`MISNAMED` the server would silently ignore."""
    for wrong, right, ok_beside, why in MISNAMED:
        if PREFIX + wrong not in environ:
            continue
        beside = ok_beside and (PREFIX + ok_beside in environ or ok_beside in overrides)
        if beside:
            continue
        raise SettingError(
            f"{PREFIX}{wrong} is set, but the server reads {PREFIX}{right}: rename it, or unset "
            f"{PREFIX}{wrong} (its value is not shown).{why}"
        )


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
