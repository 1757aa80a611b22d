"""gunicorn settings for Sightline (``gunicorn -c gunicorn.conf.py 'service.app:create_app()'``).

Every setting can be overridden on the command line or with GUNICORN_CMD_ARGS.
"""

import gc
import multiprocessing
import os

bind = os.environ.get("SIGHTLINE_BIND", "127.0.0.1:8000")
# Rules work is CPU-bound: one worker per core.
workers = int(os.environ.get("SIGHTLINE_WORKERS", multiprocessing.cpu_count()))
worker_class = "sync"
# Load the app (numpy, shapely, the sample scene) once before forking.
preload_app = True
# A request that takes longer than this is a bug or an abuse: the worker is recycled.
timeout = int(os.environ.get("SIGHTLINE_WORKER_TIMEOUT", 30))
graceful_timeout = 10
# One control socket per gunicorn (gunicornc -s PATH): instances never share one, and
# stopping one never deletes another's (gunicorn's default is one path for all).
control_socket = os.path.join(
    os.environ.get("XDG_RUNTIME_DIR") or os.path.expanduser("~/.gunicorn"),
    f"sightline-{os.getpid()}.ctl",
)
accesslog = "-"
access_log_format = '{"remote": "%(h)s", "request": "%(r)s", "status": %(s)s, "bytes": %(B)s, "ms": %(M)s}'


def when_ready(server):
    """In the master, after preloading and before forking the workers.

    ``gc.freeze()`` moves the preloaded objects (modules, app, sample scene) out of the
    garbage collector's sight: a full collection in a worker no longer walks them (tens of
    ms each), and workers stop touching, and so copying, the pages they share.
    """
    gc.freeze()
