"""Python client of the Sightline HTTP API (contract v1, ``shared/API.md``).

Only ``requests`` and the standard library are imported: no Flask, marshmallow, shapely,
numpy or rules, so a script or a Foundry bridge can use it without the service installed.

Scenes: every method taking ``scene`` accepts a canonical scene dict (``shared/DESIGN.md``)
or a scene id string (``"sha256:..."`` from :meth:`SightlineClient.upload_scene`, or
``"sample"``). A dict is uploaded once with ``POST /v1/scenes``; later calls send its
``scene_id`` only. The server caches scenes per worker process, so a call may land on a
worker that has not seen the scene and answer 404 naming ``scene_id``: the client then
resends the scene inline, once, transparently (``shared/DESIGN.md``, "Scene cache").

Transport retries (``service.client.transport``): every endpoint is a pure function of its
request, so the client's own session retries (urllib3 ``Retry``, exponential backoff) a
request that could not connect, whose connection dropped before an answer, or that answered
502, 503 or 504 -- ``retries`` times, 3 by default.

Every method returns the response JSON exactly as the API sends it, except
:meth:`SightlineClient.upload_scene` (the scene id) and :meth:`SightlineClient.render` (the
SVG text). Any failure raises :class:`SightlineError` (``service.client.errors``).

Examples
--------
>>> client = SightlineClient("http://127.0.0.1:8000")  # doctest: +SKIP
>>> answer = client.cover("dnd5e", "sample", "archer", ["goblin"])  # doctest: +SKIP
>>> answer["results"][0]["cover"]  # doctest: +SKIP
'half'
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import requests

from service.client.errors import (
    SightlineError,
    connection_reason,
    error_from_response,
    error_lines,
)
from service.client.transport import RETRY_STATUSES, PureRetry, retrying_session

__all__ = [
    "RETRY_STATUSES",
    "EndpointRef",
    "PureRetry",
    "SightlineClient",
    "SightlineError",
    "error_lines",
    "retrying_session",
    "scene_key",
]

Json = dict[str, Any]
#: A token id, or a point ``(x, y)`` in scene px, or ``{"point": [x, y], "elevation": z}``.
EndpointRef = str | Sequence[float] | Mapping[str, Any]


def scene_key(scene: Mapping[str, Any]) -> str:
    """Key of a scene dict in the client's id cache: SHA-256 of its sorted, compact JSON.

    Raises
    ------
    SightlineError
        Code 0, when the scene holds NaN or an infinity (JSON cannot carry them).
    """
    try:
        text = json.dumps(scene, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except ValueError as err:
        raise SightlineError(0, "Invalid request", f"The scene is not valid JSON: {err}.") from None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _endpoint(ref: EndpointRef) -> Any:
    """A ``from``/``to`` of a line query: token id, ``(x, y)`` or a point object as is."""
    if isinstance(ref, str | Mapping):
        return ref
    x, y = ref
    return {"point": [x, y]}


def _ids(values: str | Iterable[str]) -> list[str]:
    """One token id or several, as a list."""
    return [values] if isinstance(values, str) else list(values)


def _scene_not_found(err: SightlineError) -> bool:
    """Whether ``err`` is the 404 of a ``scene_id`` this worker does not hold."""
    body = err.errors.get("json")
    return err.code == 404 and isinstance(body, Mapping) and "scene_id" in body


class SightlineClient:
    """Client of one Sightline service.

    Parameters
    ----------
    base_url : str
        Root of the service, e.g. ``"http://127.0.0.1:8000"`` (a trailing ``/`` is fine).
    api_key : str, optional
        Sent as ``Authorization: Bearer <api_key>`` on every request.
    timeout : float
        Seconds to wait for the server to connect and to answer, per attempt.
    session : requests.Session, optional
        Session to use (connection pooling, retries, proxies), used as it is; one is
        created when absent, with ``retries``, and closed by :meth:`close`. A given session
        is never closed by the client.
    retries : int
        Retries of the client's own session after a connection error (refused, reset,
        dropped before an answer) or a 502/503/504 answer; 0 disables them. Safe: every
        endpoint is a pure function of its request.
    backoff : float
        Seconds before the first retry; each later retry waits twice as long (urllib3
        ``Retry.backoff_factor``, at most 10 s), or what a ``Retry-After`` header says.

    Notes
    -----
    The scene-id cache is per client and thread-safe; sharing one client between threads
    is fine as long as the session is (a ``requests.Session`` used for plain requests is).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        timeout: float = 10.0,
        session: requests.Session | None = None,
        *,
        retries: int = 3,
        backoff: float = 0.25,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self._own_session = session is None
        self.session = session if session is not None else retrying_session(retries, backoff)
        #: scene key (:func:`scene_key`) -> scene id returned by ``POST /v1/scenes``.
        self.scene_ids: dict[str, str] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ plumbing

    def close(self) -> None:
        """Close the session if the client created it."""
        if self._own_session:
            self.session.close()

    def __enter__(self) -> SightlineClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SightlineClient({self.base_url!r})"

    def _headers(self, accept: str) -> dict[str, str]:
        headers = {"Accept": accept}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        accept: str = "application/json",
        data: str | None = None,
    ) -> requests.Response:
        """Send one request and return the 2xx response.

        Parameters
        ----------
        method : str
            ``"GET"`` or ``"POST"``.
        path : str
            Path under ``base_url``, e.g. ``"/v1/cover"``.
        body : object, optional
            JSON body (sent with ``Content-Type: application/json``).
        params : mapping, optional
            Query string; entries whose value is None are left out.
        accept : str
            ``Accept`` header.
        data : str, optional
            A body already written as text (an export file as it is), sent instead of
            ``body`` with ``Content-Type: application/json``; the server also reads a
            Foundry NeDB file sent so (one JSON document a line).

        Returns
        -------
        requests.Response

        Raises
        ------
        SightlineError
            For any non-2xx answer (with the error body's code, status, message and
            errors), and with code 0 when the server cannot be reached or does not answer
            within ``timeout`` seconds.
        """
        url = self.base_url + path
        query = {k: v for k, v in (params or {}).items() if v is not None}
        kw: dict[str, Any] = {"headers": self._headers(accept), "timeout": self.timeout}
        if query:
            kw["params"] = query
        if data is not None:
            kw["data"] = data.encode("utf-8")
            kw["headers"]["Content-Type"] = "application/json"
        elif body is not None:
            kw["json"] = body
        try:
            resp = self.session.request(method, url, **kw)
        except requests.Timeout:
            raise SightlineError(
                0, "Timeout", f"{method} {url}: no answer within {self.timeout:g} s."
            ) from None
        except requests.ConnectionError as err:
            raise SightlineError(
                0, "Connection error", f"{method} {url}: cannot connect ({connection_reason(err)})."
            ) from None
        except requests.RequestException as err:
            raise SightlineError(0, "Request error", f"{method} {url}: {err}") from None
        if not resp.ok:
            raise error_from_response(resp)
        return resp

    def _json(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        """Send a request (see :meth:`request`) and return its parsed JSON answer."""
        resp = self.request(method, path, body, **kw)
        try:
            return resp.json()
        except ValueError:
            raise SightlineError(
                resp.status_code,
                resp.reason or "OK",
                f"{method} {path}: the answer is not JSON ({resp.text[:80]!r}).",
            ) from None

    def _scene_ref(self, scene: Mapping[str, Any] | str) -> Json:
        """``{"scene_id": ...}`` for a scene id or an (uploaded once) scene dict."""
        if isinstance(scene, str):
            return {"scene_id": scene}
        key = scene_key(scene)
        with self._lock:
            sid = self.scene_ids.get(key)
        if sid is None:
            sid = self.upload_scene(scene)
        return {"scene_id": sid}

    def _with_scene(
        self, path: str, scene: Mapping[str, Any] | str, body: Json, *, raw: bool = False
    ) -> Any:
        """POST ``body`` plus the scene reference; resend the scene inline after a 404.

        With ``raw`` the ``requests.Response`` is returned (``Accept: image/svg+xml``),
        else the parsed JSON.
        """

        def send(payload: Json) -> Any:
            if raw:
                return self.request("POST", path, payload, accept="image/svg+xml")
            return self._json("POST", path, payload)

        try:
            return send({**body, **self._scene_ref(scene)})
        except SightlineError as err:
            if isinstance(scene, str) or not _scene_not_found(err):
                raise
        # This worker does not hold the scene (DESIGN.md "Scene cache"): resend it once.
        return send({**body, "scene": dict(scene)})

    # ------------------------------------------------------------------ endpoints

    def health(self) -> Json:
        """``GET /healthz``: ``{"status": "ok", "version": ...}``."""
        return self._json("GET", "/healthz")

    def rulesets(self) -> Json:
        """``GET /v1/rulesets``: ``{"rulesets": [{id, title, cover_degrees, options, ...}]}``."""
        return self._json("GET", "/v1/rulesets")

    def upload_scene(self, scene: Mapping[str, Any]) -> str:
        """``POST /v1/scenes`` with a canonical scene; return its ``scene_id``.

        The id is remembered, so later calls with the same scene dict send only the id.

        Parameters
        ----------
        scene : mapping
            Canonical scene (``shared/DESIGN.md``).

        Returns
        -------
        str
            ``"sha256:<hex>"``.

        Raises
        ------
        SightlineError
            422 naming the offending field (``errors.json.scene...``) for an invalid scene.
        """
        answer = self._json("POST", "/v1/scenes", {"scene": dict(scene)})
        sid = str(answer["scene_id"])
        with self._lock:
            self.scene_ids[scene_key(scene)] = sid
        return sid

    def import_export(
        self,
        fmt: str,
        export: Any,
        page: str | int | None = None,
        scene: str | int | None = None,
    ) -> Json:
        """``POST /v1/import/<fmt>``: translate a VTT export into a canonical scene.

        Parameters
        ----------
        fmt : {"foundry", "roll20", "uvtt", "auto"}
            Format of the export (what the server supports: ``GET /openapi.json``).
        export : object or str
            The export file's parsed JSON, sent as the body as is; or the file's text (a
            Foundry NeDB ``.db`` file included), sent as it is. With ``"auto"`` a canonical
            scene comes back unchanged.
        page : str or int, optional
            The same as ``scene`` (its older name).
        scene : str or int, optional
            Which scene of a Foundry world, compendium or NeDB export, or which page of a
            Roll20 export: name, id or 0-based index.

        Returns
        -------
        dict
            ``{"scene": {...canonical...}, "stats": {...}, "warnings": [...]}``.
        """
        params = {
            "page": None if page is None else str(page),
            "scene": None if scene is None else str(scene),
        }
        if isinstance(export, str):
            return self._json("POST", f"/v1/import/{fmt}", params=params, data=export)
        return self._json("POST", f"/v1/import/{fmt}", export, params=params)

    def cover(
        self,
        ruleset: str,
        scene: Mapping[str, Any] | str,
        attacker: str | None,
        targets: str | Iterable[str],
        attack: Mapping[str, Any] | str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Json:
        """``POST /v1/cover``: cover of each target against the attacker.

        Parameters
        ----------
        ruleset : str
            ``"dnd5e"``, ``"starfinder"`` or ``"pf2e-variant"``.
        scene : mapping or str
            Canonical scene dict, or a scene id.
        attacker : str or None
            Token id; None only for an area attack (``attack={"kind": "area", "origin":
            [x, y]}``).
        targets : str or iterable of str
            Token id(s).
        attack : mapping or str, optional
            ``{"kind": "melee"|"ranged"|"area"|"spell", "origin": [x, y]}``, or just the
            kind; default ranged.
        options : mapping, optional
            Ruleset options (``GET /v1/rulesets``).

        Returns
        -------
        dict
            ``{"ruleset", "attacker", "results": [{"target", "cover", "ac_bonus", ...,
            "rules", "lines"}]}``.
        """
        body: Json = {"ruleset": ruleset, "attacker": attacker, "targets": _ids(targets)}
        if attack is not None:
            body["attack"] = {"kind": attack} if isinstance(attack, str) else dict(attack)
        if options:
            body["options"] = dict(options)
        return self._with_scene("/v1/cover", scene, body)

    def _line(
        self,
        path: str,
        scene: Mapping[str, Any] | str,
        from_: EndpointRef,
        to: EndpointRef,
        effect: Mapping[str, Any] | None,
        options: Mapping[str, Any] | None,
        ruleset: str | None = None,
    ) -> Json:
        body: Json = {"from": _endpoint(from_), "to": _endpoint(to)}
        if effect is not None:
            body["effect"] = dict(effect)
        if options:
            body["options"] = dict(options)
        if ruleset is not None:
            body["ruleset"] = ruleset
        return self._with_scene(path, scene, body)

    def line_of_effect(
        self,
        scene: Mapping[str, Any] | str,
        from_: EndpointRef,
        to: EndpointRef,
        effect: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        ruleset: str | None = None,
    ) -> Json:
        """``POST /v1/line-of-effect`` between tokens or points.

        Parameters
        ----------
        scene : mapping or str
        from_, to : str, (x, y) or mapping
            Token id, point in scene px, or ``{"point": [x, y], "elevation": z}``.
        effect : mapping, optional
            ``{"damage": n}`` for breakthrough (5E-LOE-4/5).
        options : mapping, optional
            ``{"corner_inset": px}``.
        ruleset : str, optional
            Whose rule ids the answer cites (default dnd5e's); breakthrough is dnd5e's.

        Returns
        -------
        dict
            ``{"clear", "witness", "blockers", "rules", "breakthrough"}``.
        """
        return self._line("/v1/line-of-effect", scene, from_, to, effect, options, ruleset)

    def line_of_sight(
        self,
        scene: Mapping[str, Any] | str,
        from_: EndpointRef,
        to: EndpointRef,
        options: Mapping[str, Any] | None = None,
        *,
        ruleset: str | None = None,
    ) -> Json:
        """``POST /v1/line-of-sight``: as :meth:`line_of_effect`, with sight restrictions."""
        return self._line("/v1/line-of-sight", scene, from_, to, None, options, ruleset)

    def lighting(
        self,
        scene: Mapping[str, Any] | str,
        points: Iterable[Sequence[float]] = (),
        tokens: str | Iterable[str] = (),
        *,
        ruleset: str | None = None,
    ) -> Json:
        """``POST /v1/lighting``: light level at points (scene px) and over token spaces.

        ``ruleset``: whose rule ids ``rules`` cites (default dnd5e's).

        Returns
        -------
        dict
            ``{"results": [{"point", "token", "level", "magical_darkness", "lights",
            "rules"}]}``, points first, then tokens, in the order given.
        """
        body: Json = {"points": [[x, y] for x, y in points], "tokens": _ids(tokens)}
        if ruleset is not None:
            body["ruleset"] = ruleset
        return self._with_scene("/v1/lighting", scene, body)

    def vision(
        self,
        ruleset: str,
        scene: Mapping[str, Any] | str,
        observer: str,
        targets: str | Iterable[str],
        options: Mapping[str, Any] | None = None,
    ) -> Json:
        """``POST /v1/vision``: what ``observer`` perceives of each target.

        Returns
        -------
        dict
            ``{"ruleset", "observer", "results": [{"target", "can_see", "sense", ...}]}``.
        """
        body: Json = {"ruleset": ruleset, "observer": observer, "targets": _ids(targets)}
        if options:
            body["options"] = dict(options)
        return self._with_scene("/v1/vision", scene, body)

    def gravity(self, **body: Any) -> Json:
        """``POST /v1/modifiers/gravity`` with ``body`` as the JSON body (5E-GRV-1..6)."""
        return self._json("POST", "/v1/modifiers/gravity", body)

    def underwater(self, **body: Any) -> Json:
        """``POST /v1/modifiers/underwater`` with ``body`` as the JSON body (5E-UW-1..9)."""
        return self._json("POST", "/v1/modifiers/underwater", body)

    def range(self, **body: Any) -> Json:
        """``POST /v1/modifiers/range`` with ``body`` as the JSON body (PV-RNG-1/2)."""
        return self._json("POST", "/v1/modifiers/range", body)

    def flanking(
        self, ruleset: str, scene: Mapping[str, Any] | str, attacker: str, ally: str, target: str
    ) -> Json:
        """``POST /v1/modifiers/flanking`` (SF-FLK-1): ``{"flanking", "attack_bonus", ...}``."""
        body: Json = {"ruleset": ruleset, "attacker": attacker, "ally": ally, "target": target}
        return self._with_scene("/v1/modifiers/flanking", scene, body)

    def matrix(
        self,
        ruleset: str,
        scene: Mapping[str, Any] | str,
        tokens: Iterable[str] | None = None,
        kind: str = "cover",
        options: Mapping[str, Any] | None = None,
    ) -> Json:
        """``POST /v1/matrix``: all-pairs cover or vision between tokens.

        Parameters
        ----------
        ruleset : str
        scene : mapping or str
        tokens : iterable of str, optional
            Token ids; all tokens of the scene when None.
        kind : {"cover", "vision"}
        options : mapping, optional
            The ruleset's options, as for :meth:`cover` or :meth:`vision`.

        Returns
        -------
        dict
            ``{"ruleset", "kind", "tokens": [ids], "cover": [[degree]]}``, or for vision
            ``"vision": [[sense]]`` and ``"can_see": [[bool]]`` (row = attacker or
            observer, column = target, the diagonal null).
        """
        body: Json = {
            "ruleset": ruleset,
            "tokens": None if tokens is None else list(tokens),
            "kind": kind,
        }
        if options:
            body["options"] = dict(options)
        return self._with_scene("/v1/matrix", scene, body)

    def render(self, scene: Mapping[str, Any] | str, query: Mapping[str, Any] | None = None) -> str:
        """``POST /v1/render``: SVG picture of the scene and the traced lines of a query.

        Parameters
        ----------
        scene : mapping or str
        query : mapping, optional
            ``{"type": "cover", "ruleset", "attacker", "target"}``, ``{"type": "vision",
            "ruleset", "observer", "target"}`` or ``{"type": "line-of-effect", "from",
            "to"}``; the bare scene when None.

        Returns
        -------
        str
            The SVG document (``image/svg+xml``).
        """
        body: Json = {} if query is None else {"query": dict(query)}
        resp: requests.Response = self._with_scene("/v1/render", scene, body, raw=True)
        resp.encoding = resp.encoding or "utf-8"
        return resp.text
