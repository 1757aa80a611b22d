"""A WSGI middleware that bounds each request's time, memory and body (standard library only).

``Guard`` wraps the Flask app (``service.app.create_app``):

- **Watchdog.** Before the app runs, a ``SIGALRM`` timer (``signal.setitimer``) is armed for
  ``seconds``; if it fires while the app still runs, ``RequestTimedOut`` is raised inside the
  request, and the app's one error handler (``service.http_errors``) answers 503 JSON with
  ``Retry-After``. The timer is set below gunicorn's own timeout
  (``SIGHTLINE_REQUEST_TIMEOUT`` < ``SIGHTLINE_WORKER_TIMEOUT``), so the worker answers
  instead of being killed. Python handles a signal between bytecodes: a single C call
  (a long shapely or numpy operation) finishes first, and gunicorn's timeout stays the
  backstop. Armed only in the main thread (gunicorn's sync worker).
- **Memory.** ``apply_ceiling`` (called when a gunicorn worker starts) caps the address
  space the worker may add past its start at ``SIGHTLINE_WORKER_MAX_MB``: an allocation
  past it raises ``MemoryError``, answered 503 JSON with ``Retry-After``. After any such
  answer, and after any request that leaves the worker's RSS above the ceiling,
  ``release_memory`` runs (``gc.collect`` and glibc's ``malloc_trim``) once the answer is
  sent; a worker still above its ceiling then retires (gunicorn starts a fresh one).
- **Chunked bodies.** A body without ``Content-Length`` (``Transfer-Encoding: chunked``) is
  read up to one byte past ``max_body``; werkzeug then sees a ``Content-Length`` and answers
  413 when it is over the limit, instead of parsing a body cut at the limit. It is read once
  the watchdog is armed, so a client sending it slowly gets the watchdog's 503 rather than
  holding the worker until gunicorn kills it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import io
import json
import os
import resource
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from http import HTTPStatus
from typing import Any

#: Seconds a client is asked to wait (``Retry-After``) after a 503.
RETRY_AFTER_SECONDS = 5
#: ``environ`` key set by the error handler when a request ran out of memory or time.
RELEASE_KEY = "sightline.release_memory"

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class RequestTimedOut(Exception):
    """Raised inside a request by the watchdog when it has run ``seconds`` (HTTP 503)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def memory_mb() -> tuple[float, float]:
    """``(rss, address space)`` of this process in MB, from ``/proc/self/statm`` (0 if absent)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            size, rss = f.read().split()[:2]
    except (OSError, ValueError):
        return 0.0, 0.0
    return int(rss) * _PAGE / 2**20, int(size) * _PAGE / 2**20


def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        return libc.malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError, TypeError):  # not glibc
        return None


_TRIM = _malloc_trim()


def release_memory() -> None:
    """Give memory back now: a full collection, then glibc's ``malloc_trim(0)`` if present."""
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)


def apply_ceiling(max_mb: int) -> int | None:
    """Cap the address space this process may still add at ``max_mb`` MB minus its RSS.

    Called in each gunicorn worker after the app is loaded: the worker's RSS can then grow
    to about ``max_mb`` (what is mapped but not resident at start is left out of the count).
    Returns the limit set in bytes, or ``None`` where ``RLIMIT_AS`` cannot be set.
    """
    rss, size = memory_mb()
    if not size:
        return None
    limit = int((size - rss + max_mb) * 2**20)
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        return None
    return limit


def error_body(code: int, message: str) -> bytes:
    """The JSON error of ``shared/DESIGN.md`` "Errors" for answers made outside Flask."""
    status = HTTPStatus(code)
    return json.dumps(
        {"code": code, "status": status.phrase, "message": message, "errors": {}}
    ).encode()


class Guard:
    """WSGI middleware: the watchdog, the memory check after each request, chunked bodies.

    Parameters
    ----------
    app : WSGI callable
        The Flask app's ``wsgi_app``.
    seconds : float
        Watchdog time per request, in seconds (0: no watchdog).
    max_body : int
        Largest request body in bytes (``SIGHTLINE_MAX_CONTENT_LENGTH``).
    max_mb : int
        The worker's memory ceiling in MB (``SIGHTLINE_WORKER_MAX_MB``).
    """

    def __init__(self, app: Any, seconds: float, max_body: int, max_mb: int) -> None:
        self.app = app
        self.seconds = seconds
        self.max_body = max_body
        self.max_mb = max_mb
        self._armed = False
        self._installed = False

    # -- the watchdog ------------------------------------------------------------------
    def _alarm(self, signum: int, frame: Any) -> None:
        if self._armed:
            self._armed = False
            raise RequestTimedOut(self.seconds)

    def _arm(self) -> bool:
        if self.seconds <= 0 or threading.current_thread() is not threading.main_thread():
            return False
        if not self._installed:
            signal.signal(signal.SIGALRM, self._alarm)
            self._installed = True
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return True

    def _disarm(self) -> None:
        self._armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)

    # -- chunked bodies ----------------------------------------------------------------
    def _bound_body(self, environ: dict[str, Any]) -> None:
        if (
            environ.get("CONTENT_LENGTH")
            or "chunked" not in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        ):
            return
        stream = environ["wsgi.input"]
        chunks, size = [], 0
        while size <= self.max_body:
            chunk = stream.read(min(65536, self.max_body + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        environ["wsgi.input"] = io.BytesIO(b"".join(chunks))
        # Now a body of known length (werkzeug ignores Content-Length next to chunked):
        # over max_body, werkzeug answers 413 when the app reads it.
        environ.pop("HTTP_TRANSFER_ENCODING")
        environ["CONTENT_LENGTH"] = str(size)

    # -- the request -------------------------------------------------------------------
    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        """Run the app on one request under the watchdog; free memory after the answer."""
        armed = False
        try:
            armed = self._arm()
            self._bound_body(environ)  # under the watchdog: a slow chunked body is stopped
            result = self.app(environ, start_response)
        except (RequestTimedOut, MemoryError) as err:  # raised outside Flask's handlers
            environ[RELEASE_KEY] = True
            result = self._answer_503(err, start_response)
        finally:
            if armed:
                self._disarm()
        return _Closing(result, lambda: self._after(environ))

    def _answer_503(self, err: BaseException, start_response: Any) -> list[bytes]:
        body = error_body(503, overload_message(err, self.seconds, self.max_mb))
        headers = [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            ("Retry-After", str(RETRY_AFTER_SECONDS)),
        ]
        # exc_info: headers the app had set (not yet sent) are replaced.
        start_response("503 SERVICE UNAVAILABLE", headers, sys.exc_info())
        return [body]

    def _after(self, environ: dict[str, Any]) -> None:
        """Once the answer is sent: free memory if needed; retire a worker still too big."""
        if environ.get(RELEASE_KEY) or memory_mb()[0] > self.max_mb:
            release_memory()
            if memory_mb()[0] > self.max_mb and "gunicorn.socket" in environ:
                os.kill(os.getpid(), signal.SIGTERM)  # gunicorn: finish, exit, replace


def overload_message(err: BaseException, seconds: float, max_mb: int) -> str:
    """The message of a 503 for ``RequestTimedOut`` or ``MemoryError``."""
    if isinstance(err, RequestTimedOut):
        return (
            f"The request ran longer than {err.seconds:g} s (SIGHTLINE_REQUEST_TIMEOUT) and was "
            "stopped; send a smaller request, or retry later."
        )
    return (
        f"The request needed more memory than a worker may use ({max_mb} MB, "
        "SIGHTLINE_WORKER_MAX_MB) and was stopped; send a smaller request, or retry later."
    )


class _Closing:
    """The app's answer, with ``callback`` run when the server closes it (after sending)."""

    def __init__(self, result: Iterable[bytes], callback: Callable[[], None]) -> None:
        self.result = result
        self.callback = callback

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.result)

    def close(self) -> None:
        try:
            close = getattr(self.result, "close", None)
            if close is not None:
                close()
        finally:
            self.callback()
