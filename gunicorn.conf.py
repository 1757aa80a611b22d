"""gunicorn settings for Sightline (``gunicorn -c gunicorn.conf.py 'service.app:create_app()'``).

Every ``SIGHTLINE_*`` setting is checked here, once, before gunicorn forks a worker
(``service.settings``): a bad one stops gunicorn with one line naming the variable, the value
and what is expected, and exit status 1. Settings given on gunicorn's command line or in
GUNICORN_CMD_ARGS win over these (``--timeout`` does not move the watchdog: set
``SIGHTLINE_WORKER_TIMEOUT`` or ``SIGHTLINE_REQUEST_TIMEOUT``).

Without ``SIGHTLINE_REDIS_URL``, the workers share scenes through an SQLite file of this
server's own in the runtime directory (``service.local_store``), named to the app in
``SIGHTLINE_SCENE_FILE`` and removed when gunicorn stops; a ``SIGHTLINE_SCENE_FILE`` given
is used instead and kept.
"""

import gc
import os
import sys

from service.settings import SettingError, load

try:
    _settings = load(scope="all")
except SettingError as err:
    sys.exit(f"sightline: {err}")  # one line on stderr, exit status 1, no traceback

bind = _settings["BIND"]
# Rules work is CPU-bound: one worker per core by default.
workers = _settings["WORKERS"]
# The sync worker, with a memory ceiling and JSON answers to framing errors (service.worker).
worker_class = "service.worker.Worker"
# Load the app (numpy, shapely, the sample scene) once before forking.
preload_app = True
# A worker silent longer than this is killed; the app's watchdog (SIGHTLINE_REQUEST_TIMEOUT,
# 0.8 of this by default) answers 503 before that.
timeout = _settings["WORKER_TIMEOUT"]
graceful_timeout = 10
# This server's files: its control socket and its scene file.
_runtime_dir = os.environ.get("XDG_RUNTIME_DIR") or os.path.expanduser("~/.gunicorn")
# One control socket per gunicorn (gunicornc -s PATH): instances never share one, and
# stopping one never deletes another's (gunicorn's default is one path for all).
control_socket = os.path.join(_runtime_dir, f"sightline-{os.getpid()}.ctl")
# Without Redis, the workers of this server share scenes in a file of its own (also after a
# reload, which reads this file again with the variable already set to it).
_own_scene_file = os.path.join(_runtime_dir, f"sightline-{os.getpid()}.scenes")


def _own_scene_store() -> bool:
    """Whether this server keeps its scenes in ``_own_scene_file`` (and names it to the app).

    Not with Redis or another ``SIGHTLINE_SCENE_FILE``; not where the runtime directory
    cannot be written (a read-only filesystem): each worker keeps its own scenes then.
    """
    if _settings["REDIS_URL"] or _settings["SCENE_FILE"] not in (None, _own_scene_file):
        return False  # Redis, another file, or ``off`` (each worker keeps its own scenes)
    try:
        os.makedirs(_runtime_dir, mode=0o700, exist_ok=True)
    except OSError:
        pass
    if not os.access(_runtime_dir, os.W_OK):
        print(
            f"sightline: {_runtime_dir} cannot be written: each worker keeps its own scenes "
            "(set SIGHTLINE_SCENE_FILE or SIGHTLINE_REDIS_URL to share them)",
            file=sys.stderr,
        )
        return False
    os.environ["SIGHTLINE_SCENE_FILE"] = _own_scene_file  # read by create_app, in the master
    return True


_scene_file_owned = _own_scene_store()
# Framing limits gunicorn checks before the app sees a request (answered 414 / 431 in JSON).
limit_request_line = _settings["MAX_REQUEST_LINE"]
limit_request_fields = _settings["MAX_HEADERS"]
limit_request_field_size = _settings["MAX_HEADER_BYTES"]
# One JSON object per request on stdout (service.worker.JSONLogger).
accesslog = "-"
logger_class = "service.worker.JSONLogger"


def on_starting(server):
    """In the master, after preloading, before binding the socket (so before any request).

    The compiled kernels are compiled, or loaded from numba's cache, here: a client that
    connects meanwhile is refused (and retries) rather than left waiting on a bound socket
    that no worker serves yet.
    """
    from service.geometry import exact, trace

    trace.warm_up()  # the compiled measurement (geometry.walk and the tests), once, before forking
    exact.warm_up()  # and the exact search's


def when_ready(server):
    """In the master, after preloading and before forking the workers.

    ``gc.freeze()`` moves the preloaded objects (modules, app, sample scene) out of the
    garbage collector's sight: a full collection in a worker no longer walks them (tens of
    ms each), and workers stop touching, and so copying, the pages they share.
    """
    gc.freeze()


def on_exit(server):
    """In the master, when gunicorn stops (its workers have exited): the scene file goes."""
    if _scene_file_owned:
        from service.local_store import remove_files

        remove_files(_own_scene_file)
