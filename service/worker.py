"""The gunicorn pieces of ``gunicorn.conf.py``: the worker class and the access log.

- ``Worker`` is gunicorn's sync worker; its memory is watched by the app's
  ``service.guard.Guard`` (a soft ceiling on its RSS, ``SIGHTLINE_WORKER_MAX_MB``: no
  address-space limit, under which C code crashes when an allocation fails). The errors
  gunicorn answers itself, before the app sees the request (a request line over
  ``limit_request_line``: 414; too many or too big header fields: 431; a bad
  ``Content-Length``, chunk size or request line: 400), are written in the JSON error shape
  of ``shared/DESIGN.md`` "Errors" instead of gunicorn's HTML page: ``gunicorn.util``'s
  ``write_error`` is replaced in the worker process by ``write_json_error``.
- ``JSONLogger`` is gunicorn's logger whose access log writes one ``json.dumps`` object per
  request, so every line parses whatever the URL (quotes, backslashes, control characters).
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from http import HTTPStatus
from typing import Any

from gunicorn import util
from gunicorn.glogging import Logger
from gunicorn.workers.sync import SyncWorker

from service.follower import start_follower
from service.settings import BY_NAME, check

#: Longest message gunicorn's own errors may carry (they can quote the request line).
MAX_FRAMING_MESSAGE = 200


def write_json_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """Gunicorn's ``util.write_error``, answering ``{"code", "status", "message", "errors"}``.

    ``mesg`` (gunicorn's, which may quote the client's request line or header) is cut to
    ``MAX_FRAMING_MESSAGE`` characters.
    """
    try:
        status = HTTPStatus(status_int).phrase
    except ValueError:
        status = reason
    message = mesg or reason
    if len(message) > MAX_FRAMING_MESSAGE:
        message = message[: MAX_FRAMING_MESSAGE - 1] + "…"
    body = json.dumps(
        {"code": status_int, "status": status, "message": message, "errors": {}}
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1")
    util.write_nonblock(sock, head + body)


class Worker(SyncWorker):
    """gunicorn's sync worker with JSON framing errors."""

    def init_process(self) -> None:
        """Answer framing errors in JSON in this process, then gunicorn's own start."""
        util.write_error = write_json_error  # gunicorn.workers.base calls util.write_error
        super().init_process()

    def load_wsgi(self) -> None:
        """Load (or take the preloaded) app; say the memory ceiling it watches.

        With the workers' scene file, start this worker's follower (``service.follower``):
        changes other workers store are applied here before a request asks for them.
        """
        super().load_wsgi()
        setting = BY_NAME["WORKER_MAX_MB"]
        raw = os.environ.get(setting.variable)
        max_mb = int(setting.default if raw is None else check(setting, raw))
        self.log.debug("Memory ceiling %s MB of RSS (soft: service.guard.MemoryWatch)", max_mb)
        cache = getattr(self.wsgi, "extensions", {}).get("sightline_cache")
        if cache is not None and start_follower(cache) is not None:
            self.log.debug("Following the scene file's changes (service.follower)")


class JSONLogger(Logger):
    """gunicorn's logger; the access log is one JSON object per line (``json.dumps``).

    Fields: ``time`` (ISO 8601, UTC, milliseconds), ``remote``, ``request`` (the request
    line: method, URL as sent, protocol), ``method``, ``path``,
    ``query``, ``protocol``, ``status`` (int), ``bytes`` (int or null), ``ms`` (the
    request's real duration in ms, float), ``agent``. No bodies, no headers but the user
    agent.
    """

    def access(self, resp: Any, req: Any, environ: Any, request_time: timedelta) -> None:
        """Write one JSON line for a request (gunicorn calls this once per request)."""
        if not self.access_log_enabled:
            return
        status = str(getattr(resp, "status", "") or "")
        code = status.split(None, 1)[0] if status else ""
        length = getattr(resp, "response_length", None) or getattr(resp, "sent", None)
        line = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "remote": environ.get("REMOTE_ADDR"),
            "request": " ".join(
                str(environ.get(k) or "-") for k in ("REQUEST_METHOD", "RAW_URI", "SERVER_PROTOCOL")
            ),
            "method": environ.get("REQUEST_METHOD"),
            "path": environ.get("PATH_INFO"),
            "query": environ.get("QUERY_STRING") or "",
            "protocol": environ.get("SERVER_PROTOCOL"),
            "status": int(code) if code.isdigit() else code,
            "bytes": length,
            "ms": round(request_time.total_seconds() * 1000, 3),
            "agent": environ.get("HTTP_USER_AGENT"),
        }
        try:
            self.access_log.info(json.dumps(line))
        except Exception:  # a log line must never take the request down
            self.exception("Access log failed")
