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
- **Memory.** A soft ceiling on how far the worker's resident memory grows past its first
  request's (``SIGHTLINE_WORKER_MAX_MB``; a process serving many apps in tests is judged
  from each app's start): while a request runs, a thread of the worker
  (:class:`MemoryWatch`) reads its RSS every :data:`POLL_SECONDS`; past the ceiling it
  signals the main thread (``SIGALRM``, the watchdog's handler), which raises
  ``MemoryError`` inside the request, answered 503 JSON
  with ``Retry-After``. It is not an address-space limit (``RLIMIT_AS``): under one, an
  allocation that fails inside C code (GEOS, numpy, numba) crashes the worker (SIGSEGV in
  ``STRtree.query``) or surfaces as an unrelated error, never the 503. As with the
  watchdog, a single C call finishes first; the machine's (or container's) memory is the
  backstop. A failed C allocation that a library does report (numpy's ``MemoryError``,
  GEOS' ``std::bad_alloc``, shapely's "Could not allocate") is answered the same 503
  (``service.http_errors``). After any such answer, after any request that grew the
  worker's RSS by more than :data:`RELEASE_GROWTH_MB` (a 200 too: glibc keeps what GEOS
  and numpy freed), and after any request that leaves its RSS above the ceiling,
  ``release_memory`` runs (``gc.collect`` and glibc's ``malloc_trim``) once the answer is
  sent; a worker that then still holds more than
  :data:`RETAIN_FRACTION` of the ceiling above its RSS at its first request (after a 503)
  or more than the ceiling (after any request) retires: gunicorn's graceful stop, a fresh
  worker forked from the preloaded master in its place.
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
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from http import HTTPStatus
from typing import Any

#: Seconds a client is asked to wait (``Retry-After``) after a 503.
RETRY_AFTER_SECONDS = 5
#: ``environ`` key set by the error handler when a request ran out of memory or time.
RELEASE_KEY = "sightline.release_memory"
#: The environ key of what a view asks to run once its answer is sent (a list of callables
#: that never raise: ``SceneCache.build_pending``), before the memory is looked at.
AFTER_SENT_KEY = "sightline.after_sent"
#: Seconds between two looks at the worker's RSS while a request runs (a read of
#: ``/proc/self/statm``, about 10 µs: 0.1 % of a core).
POLL_SECONDS = 0.01
#: After a 503 of memory or time, the share of the ceiling a worker may still hold above its
#: RSS at its first request once it freed what it could; past it, it retires.
RETAIN_FRACTION = 0.15

#: Growth of the worker's RSS during one request (MB) past which the memory is given back
#: once the answer is sent, whatever the answer: 400 MB of GEOS buffers freed by a 200 stayed
#: held (495 MB after) until the next 503. A request that grows the RSS less pays nothing
#: (a full collection and ``malloc_trim`` cost 10 to 50 ms on a worker holding scenes).
RELEASE_GROWTH_MB = 100

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class RequestTimedOut(Exception):
    """Raised inside a request by the watchdog when it has run ``seconds`` (HTTP 503)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


#: This process's ``/proc/<pid>/statm``, opened once per process: ``(pid, fd)`` (a forked
#: worker opens its own; reading an open file costs a few microseconds, opening it ~40).
_STATM: tuple[int, int] | None = None


def memory_mb() -> tuple[float, float]:
    """``(rss, address space)`` of this process in MB, from ``/proc/<pid>/statm`` (0 if absent)."""
    global _STATM
    pid = os.getpid()
    try:
        if _STATM is None or _STATM[0] != pid:
            _STATM = (pid, os.open(f"/proc/{pid}/statm", os.O_RDONLY))
        size, rss = os.pread(_STATM[1], 128, 0).split()[:2]
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


class MemoryWatch:
    """A daemon thread that looks at this process's RSS while a request runs.

    Past ``max_mb`` it calls ``fire`` once per request (from its own thread). One per
    process (:meth:`of_this_process`), started on the process's first request (a thread does
    not survive gunicorn's fork, so the master never runs one). Idle between requests (it
    waits on an event).
    """

    _current: MemoryWatch | None = None

    def __init__(self) -> None:
        self.max_mb = 0.0
        self.fire: Callable[[], None] = lambda: None
        self._running = threading.Event()
        self.pid = os.getpid()
        threading.Thread(target=self._run, name="sightline-memory-watch", daemon=True).start()

    @classmethod
    def of_this_process(cls) -> MemoryWatch:
        """The watch of this process, started on first use (again in a forked child)."""
        if cls._current is None or cls._current.pid != os.getpid():
            cls._current = cls()
        return cls._current

    def watch(self, max_mb: float, fire: Callable[[], None]) -> None:
        """A request starts: look at the RSS every :data:`POLL_SECONDS` until :meth:`stop`."""
        self.max_mb, self.fire = max_mb, fire
        self._running.set()

    def stop(self) -> None:
        """The request is over (or was told it is over the ceiling)."""
        self._running.clear()

    def _run(self) -> None:
        while True:
            self._running.wait()
            time.sleep(POLL_SECONDS)
            if self._running.is_set() and memory_mb()[0] > self.max_mb:
                self._running.clear()
                self.fire()


def error_body(code: int, message: str) -> bytes:
    """The JSON error of ``shared/DESIGN.md`` "Errors" for answers made outside Flask."""
    status = HTTPStatus(code)
    return json.dumps(
        {"code": code, "status": status.phrase, "message": message, "errors": {}}
    ).encode()


class Guard:
    """WSGI middleware: the watchdog, the memory watch and check, chunked bodies.

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
        self._armed = False  # the watchdog's timer runs for this request
        self._running = False  # a request runs in the main thread (the watch may fire)
        self._over_memory = False  # the watch saw the RSS past the ceiling
        self._installed = False
        self._watch: MemoryWatch | None = None
        self._base_mb = 0.0  # RSS at this process's first request
        self._start_mb = 0.0  # RSS as this request started

    # -- the watchdog and the memory watch ----------------------------------------------
    def _alarm(self, signum: int, frame: Any) -> None:
        if self._over_memory:
            self._over_memory = False
            if self._running:
                self._armed = False
                raise MemoryError(f"RSS past {self.max_mb} MB (SIGHTLINE_WORKER_MAX_MB)")
        if self._armed:
            self._armed = False
            raise RequestTimedOut(self.seconds)

    def _over_ceiling(self) -> None:
        """From the watch's thread: make the main thread raise ``MemoryError``."""
        self._over_memory = True
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGALRM)

    def _arm(self) -> bool:
        """Start the watchdog and the memory watch (main thread only); whether they run."""
        if threading.current_thread() is not threading.main_thread():
            return False
        if not self._installed:
            signal.signal(signal.SIGALRM, self._alarm)
            self._installed = True
        if self.max_mb > 0 and (self._watch is None or self._watch.pid != os.getpid()):
            self._base_mb = memory_mb()[0]  # a new process (a forked worker): its own watch
            self._watch = MemoryWatch.of_this_process()
        self._over_memory = False
        self._running = True
        self._start_mb = memory_mb()[0] if self.max_mb > 0 else 0.0
        if self._watch is not None:  # what the process may grow past its start
            self._watch.watch(self._base_mb + self.max_mb, self._over_ceiling)
        if self.seconds > 0:
            self._armed = True
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return True

    def _disarm(self) -> None:
        self._running = False
        self._armed = False
        if self._watch is not None:
            self._watch.stop()
        if self.seconds > 0:
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
        """Once the answer is sent: the view's work (``AFTER_SENT_KEY``), then the memory.

        Frees memory if needed; retires a worker still too big.

        Memory is given back after a 503 of memory or time, after a request that grew the
        RSS by more than :data:`RELEASE_GROWTH_MB`, and past the ceiling. After a 503, the
        worker may then keep :data:`RETAIN_FRACTION` of the ceiling above its RSS at its first
        request; after any other request, the ceiling.
        """
        for work in environ.get(AFTER_SENT_KEY, ()):
            work()
        overloaded = bool(environ.get(RELEASE_KEY))
        ceiling = self._base_mb + self.max_mb  # what the watch allows (growth past the start)
        rss = memory_mb()[0] if self.max_mb > 0 else 0.0  # 0: no ceiling, nothing to free
        grew = self._start_mb > 0 and rss - self._start_mb > RELEASE_GROWTH_MB  # 0: not armed
        if overloaded or grew or rss > ceiling:
            release_memory()
            kept = memory_mb()[0]
            allowed = self._base_mb + RETAIN_FRACTION * self.max_mb if overloaded else ceiling
            if kept > allowed and "gunicorn.socket" in environ:
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
