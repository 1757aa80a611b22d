"""Application factory: ``gunicorn 'service.app:create_app()'``.

Configuration: the settings of ``service.settings`` (``SIGHTLINE_*`` environment variables,
each checked once here: a bad one raises ``SettingError`` with one line naming it), then
``test_config`` (checked the same way for the keys the table has).
"""

from __future__ import annotations

import gc
import hmac
import json
from importlib import resources
from typing import Any

from flask import Flask, Response, request, send_from_directory
from flask_cors import CORS
from flask_smorest import abort

from adapters.limits import use_limits
from schemas.scene import SceneSchema
from service import __version__, settings
from service.cache import SceneCache
from service.engine.budget import set_core_limits
from service.guard import AFTER_SENT_KEY, Guard
from service.http_errors import OPEN_PATHS, Api
from service.limits import SCENE_LIMITS
from service.local_store import FILE_MB_PER_CACHE_MB, SqliteSceneStore
from service.store import INFLATE_PER_BODY_BYTE, SceneStore, SharedSceneStore

#: The config keys of the per-scene count limits (``service.limits``).
LIMIT_KEYS = tuple(key for _, key in SCENE_LIMITS)

#: Origins a Foundry VTT client typically runs on (any port of localhost / 127.0.0.1).
DEFAULT_CORS_ORIGINS = list(settings.DEFAULT_CORS_ORIGINS)

#: The overview at the top of ``/docs`` and of ``/openapi.json`` (``info.description``).
OVERVIEW = """\
Cover, line of effect, line of sight, lighting and vision on a virtual-tabletop battle map, by
the rules of `dnd5e`, `dnd2024`, `starfinder`, `pf2e-variant` or `pf2e`.

1. Send the scene once: `POST /v1/scenes` with a canonical scene, or with
   `{"format": "auto", "export": <a Foundry VTT, Roll20 or Universal VTT file>}`. The answer's
   `scene_id` names it (every question may also carry the scene inline as `scene`).
2. Ask: `POST /v1/cover`, `/v1/vision`, `/v1/line-of-effect`, `/v1/lighting`, `/v1/matrix`
   (all pairs), `/v1/render` (an SVG picture) with the `scene_id` and the token ids.
   `scene_id: "sample"` is a bundled demo scene; every operation's example below runs on it.
3. Read the answer: each result names the rules it applied (`rules`: `5E-COV-5` ...);
   `GET /v1/rules/{rule_id}` says what a rule means and which reading the service takes.

`GET /v1/rulesets` lists each ruleset's options and defaults. Every error is JSON of the
`Error` schema: `message` says what went wrong and what to do, `errors` the field path.
A 404 for a `scene_id` means this worker does not hold it: send the scene again.
The contract in full is `docs/api.md` of the repository."""

DEFAULTS: dict[str, Any] = {
    "API_TITLE": "Sightline",
    "API_VERSION": __version__,
    "OPENAPI_VERSION": "3.0.3",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
    # The interactive API page, its assets served from the swagger-ui-bundle package (no CDN).
    "OPENAPI_SWAGGER_UI_PATH": "docs",
    "OPENAPI_SWAGGER_UI_URL": "/docs/assets/",
    "API_SPEC_OPTIONS": {"info": {"description": OVERVIEW}},
}

__all__ = ["OPEN_PATHS", "create_app", "cors_origins", "sample_scene"]


def cors_origins(origins: Any, replace: Any) -> list[str]:
    """Origins allowed by CORS: ``SIGHTLINE_CORS_ORIGINS`` added to the localhost defaults.

    Parameters
    ----------
    origins : str or list of str
        ``SIGHTLINE_CORS_ORIGINS``: one origin or origin pattern, or a list of them
        (``service.settings.origin_pattern``: exact origins, ``*`` as leftmost host labels
        or as the port).
    replace : bool, int or str
        ``SIGHTLINE_CORS_REPLACE``: true (``true``, ``1``, ``yes``) to allow ``origins``
        only, without :data:`DEFAULT_CORS_ORIGINS`.

    Returns
    -------
    list of str
        The origins and patterns, defaults first (:func:`_allow_cors` compiles them).

    Raises
    ------
    ValueError
        When ``replace`` is not a yes/no value (the app does not start).
    """
    given = [origins] if isinstance(origins, str) else list(origins or ())
    text = str(replace).strip().lower()
    if text not in ("true", "1", "yes", "false", "0", "no", ""):
        raise ValueError(f"SIGHTLINE_CORS_REPLACE must be true or false, got {replace!r}")
    if text in ("true", "1", "yes"):
        return given
    return [*DEFAULT_CORS_ORIGINS, *(o for o in given if o not in DEFAULT_CORS_ORIGINS)]


def sample_scene() -> dict[str, Any]:
    """The bundled hand-made sample scene (``service/data/sample-scene.json``)."""
    text = resources.files("service").joinpath("data/sample-scene.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the Flask app.

    Parameters
    ----------
    test_config : dict, optional
        Overrides applied after the environment (tests).

    Raises
    ------
    service.settings.SettingError
        A setting out of its bounds or of the wrong type (one line naming it).
    ValueError
        ``SIGHTLINE_CORS_REPLACE`` not a yes/no value (:func:`cors_origins`).
    """
    app = Flask(__name__)
    _configure(app, test_config)
    _allow_cors(app)
    _register_views(app)
    app.extensions["sightline_cache"] = _scene_cache(app)
    _require_api_key(app)
    _require_json(app)
    _count_imports(app)
    _collect_after_builds(app)
    if app.config["TEST_HOOKS"]:  # SIGHTLINE_TEST_HOOKS=1 only: tests/e2e/test_limits.py
        from service import test_hooks

        app.register_blueprint(test_hooks.blp, url_prefix="/v1/_test")

    app.wsgi_app = Guard(  # type: ignore[method-assign]
        app.wsgi_app,
        seconds=app.config["REQUEST_TIMEOUT"],
        max_body=app.config["MAX_CONTENT_LENGTH"],
        max_mb=app.config["WORKER_MAX_MB"],
    )
    return app


def _configure(app: Flask, test_config: dict[str, Any] | None) -> None:
    """The config: :data:`DEFAULTS`, the checked settings, then ``test_config``'s other keys."""
    app.config.from_mapping(DEFAULTS)
    app.config.from_mapping(settings.load(overrides=test_config))  # SettingError if bad
    set_core_limits(app.config)  # the core's own bounds (rooms, hex footprints, flanking)
    if test_config:
        app.config.update({k: v for k, v in test_config.items() if k not in settings.BY_NAME})


def _allow_cors(app: Flask) -> None:
    """CORS for the configured origins (:func:`cors_origins`), each an anchored pattern.

    A request without an ``Origin`` header gets no ``Access-Control-Allow-Origin`` (flask-cors
    would otherwise send a configured origin); an allowed origin gets itself back.

    Raises
    ------
    service.settings.SettingError
        An origin that is neither an exact origin nor a documented pattern (``test_config``;
        the environment's are checked by ``settings.load`` already).
    """
    patterns = []
    for origin in cors_origins(app.config["CORS_ORIGINS"], app.config["CORS_REPLACE"]):
        pattern = settings.origin_pattern(origin) if isinstance(origin, str) else None
        if pattern is None:
            setting = settings.BY_NAME["CORS_ORIGINS"]
            raise settings.SettingError(
                f"{setting.variable}: {str(origin)[:80]!r} is invalid: expected "
                f"{setting.expected()}."
            )
        patterns.append(pattern)
    # Chrome's private-network preflight (an https Foundry page calling a LAN or localhost
    # service) is answered `Access-Control-Allow-Private-Network: true` for allowed origins.
    CORS(
        app,
        origins=patterns,
        methods=["GET", "POST", "OPTIONS"],
        allow_private_network=True,
        always_send=False,
    )


def _register_views(app: Flask) -> None:
    """The API's blueprints (health, ``/v1``, the modifiers) and the API page's assets."""
    api = Api(app)  # flask-smorest's, with the one error handler (service.http_errors)

    from service import api as views  # Flask-only modules, imported here
    from service import api_modifiers

    api.register_blueprint(views.health)
    api.register_blueprint(views.blp, url_prefix="/v1")
    api.register_blueprint(api_modifiers.blp)

    @app.get("/docs/assets/<path:filename>")
    def docs_assets(filename: str) -> Any:
        """Swagger UI's static files, from the installed swagger-ui-bundle package."""
        import swagger_ui_bundle

        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename)


def _scene_store(config: Any) -> SharedSceneStore | None:
    """The store the workers share: Redis with ``REDIS_URL``, else the ``SCENE_FILE``, else none.

    Both connect lazily, in each worker (redis-py's pool; one SQLite connection per process):
    the app is built in gunicorn's master, before the fork. Without gunicorn
    (``gunicorn.conf.py`` names the file) an app has one process and no store.
    """
    ttl = int(config["SCENE_TTL"])
    # What is read is checked as a request is: the scene limits, bounded inflating.
    limits = {key: config[key] for key in (*LIMIT_KEYS, "MAX_REGION_POINTS")}
    inflated = INFLATE_PER_BODY_BYTE * int(config["MAX_CONTENT_LENGTH"])
    if config["REDIS_URL"]:
        url, timeout = str(config["REDIS_URL"]), float(config["REDIS_TIMEOUT"])
        return SceneStore(url, ttl, timeout, limits=limits, max_stored=inflated)
    if config["SCENE_FILE"] and config["SCENE_FILE"] != settings.PATH_OFF:
        path = str(config["SCENE_FILE"])
        budget = int(config["SCENE_CACHE_MAX_MB"]) * FILE_MB_PER_CACHE_MB * 1024 * 1024
        return SqliteSceneStore(path, ttl, budget, limits=limits, max_stored=inflated)
    return None


def _scene_cache(app: Flask) -> SceneCache:
    """The worker's scene cache, over the shared store (:func:`_scene_store`) when there is one.

    With ``PRELOAD_SAMPLE``, the bundled sample scene is put in it as ``"sample"``.
    """
    cache = SceneCache(
        app.config["SCENE_CACHE_SIZE"],
        int(app.config["SCENE_CACHE_MAX_MB"]) * 1024 * 1024,
        store=_scene_store(app.config),
    )
    if app.config["PRELOAD_SAMPLE"]:
        cache.put(SceneSchema().load(sample_scene()), alias="sample")
    return cache


def _require_api_key(app: Flask) -> None:
    """With ``API_KEYS`` set, a 401 for a request without one of them (but :data:`OPEN_PATHS`)."""
    keys = [key.encode() for key in app.config["API_KEYS"]]

    @app.before_request
    def api_key() -> None:
        """Optional API keys: ``Authorization: Bearer <key>``, compared in constant time."""
        if not keys or request.method == "OPTIONS" or request.path in OPEN_PATHS:
            return
        if request.path.startswith("/docs/assets/"):
            return
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        given = token.strip().encode() if scheme.lower() == "bearer" else b""
        ok = False
        for key in keys:  # compare with every key, whatever matched before
            ok |= hmac.compare_digest(given, key)
        if not ok:
            abort(
                401,
                message="A valid API key is required: send 'Authorization: Bearer <key>'.",
                headers={"WWW-Authenticate": 'Bearer realm="sightline"'},
            )


def _count_imports(app: Flask) -> None:
    """During each request, exports are counted against this app's scene limits first.

    ``adapters.limits.use_limits``: a context variable set for the request and cleared at
    its end, so the limits of one app never reach another, nor the CLI's imports.
    """

    @app.before_request
    def import_limits() -> None:
        use_limits(app.config)

    @app.teardown_request
    def no_import_limits(_: BaseException | None) -> None:
        use_limits(None)


def _require_json(app: Flask) -> None:
    """A 415 for a body that is not JSON (an import may also be a Foundry NeDB file)."""

    @app.before_request
    def json_only() -> None:
        if request.routing_exception is not None:  # 404/405 first
            return
        if request.method in ("POST", "PUT", "PATCH") and request.content_length != 0:
            if request.path.startswith("/v1/import/"):  # a Foundry NeDB .db file too
                if not (request.is_json or request.mimetype == "application/x-ndjson"):
                    abort(
                        415,
                        message="Send the export as application/json, or a Foundry NeDB .db "
                        "file as application/x-ndjson.",
                    )
            elif not request.is_json:
                abort(415, message="Send the body as JSON (Content-Type: application/json).")


def _collect_after_builds(app: Flask) -> None:
    """A request that built a whole scene runs a full garbage collection once it is answered.

    Building a scene leaves tens of thousands of new objects for the collector; the full
    collection they bring on fell on the next request instead, whichever it was (54 ms of a
    63 ms refusal of a 200-token matrix on the Lancer ship after its upload). Run
    after the answer is sent (``service.guard.AFTER_SENT_KEY``), it delays no answer.
    """
    cache = app.extensions["sightline_cache"]

    @app.before_request
    def builds_before() -> None:
        request.environ[_BUILDS_KEY] = cache.builds

    @app.after_request
    def collect_after(response: Response) -> Response:
        if cache.builds != request.environ.get(_BUILDS_KEY, cache.builds):
            request.environ.setdefault(AFTER_SENT_KEY, []).append(gc.collect)
        return response


#: The environ key of the cache's build count as a request starts (``_collect_after_builds``).
_BUILDS_KEY = "sightline.builds"
