"""The scene store of one machine's workers without Redis: an SQLite file (no server).

Replicas share scenes through Redis (``shared/DESIGN.md``, "Scaling out"); without
``SIGHTLINE_REDIS_URL``, ``gunicorn.conf.py`` names a file of that server's own in
the runtime directory (``SIGHTLINE_SCENE_FILE``) and removes it when the server stops. Every
worker stores the validated scenes it is given there under their ``scene_id``, and a worker
that misses an id locally loads the scene from the file and builds it instead of answering
404, as with Redis. ``sqlite3`` from the standard library: no server to run. A Flask app
made without gunicorn (tests, the CLI) is one process with one cache and has no file.

Stored value: ``service.store.encode_scene``'s bytes, or a patched scene's record
(``service.store.encode_patch``), the formats Redis holds.

Bounds: a scene lives ``SIGHTLINE_SCENE_TTL`` seconds after it was last stored or read (an
expired row is never served, and is deleted by the next write); past ``max_bytes`` of stored
scenes the least recently stored or read rows go (``SCENE_CACHE_MAX_MB`` ×
:data:`FILE_MB_PER_CACHE_MB`). A table of one row, kept by triggers, holds the total, so no
operation counts the rows.

Processes: the app is built in gunicorn's master and inherited by the workers it forks, and
an SQLite connection must never cross a fork; each process opens its own on first use (keyed
by ``os.getpid()``; a connection inherited from the parent is kept, never used nor closed).
WAL journal (readers do not wait for a writer), ``synchronous=NORMAL`` (no flush per write: the
file is a cache, a power loss may lose it but not corrupt it) and a busy timeout
(:data:`BUSY_TIMEOUT`), so two workers writing at once queue instead of failing.

The store never raises to its callers: a locked, full, removed or broken file reads as a miss
(``get`` returns ``None``) and a write as not done (``put`` returns ``False``), logged at most
every :data:`LOG_EVERY` seconds; ``ping`` says whether the file can be read.
"""

from __future__ import annotations

import glob
import logging
import os
import secrets
import select
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, TypeVar

from service.model import Scene
from service.store import (
    DEFAULT_MAX_STORED,
    FORMAT_PATCH,
    PatchRecord,
    StoreState,
    decode_value,
    encode_patch,
    encode_scene,
    whole_scene,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Stored bytes allowed per MB of ``SCENE_CACHE_MAX_MB``: a stored scene is 60 to 160 times
#: smaller than it is built (``service.cache_size.scene_bytes``; a 5,000-wall scene: 49 kB stored,
#: 6.2 MB built), so the file holds many times what one worker's cache does, in little memory
#: (the runtime directory is usually a tmpfs).
FILE_MB_PER_CACHE_MB = 1
#: Seconds a worker waits for another's write before the call counts as a failure.
BUSY_TIMEOUT = 2.0
#: Seconds between two warnings of failed calls (a broken file would log every request).
LOG_EVERY = 60.0
#: Rows read per batch when the least recently used rows are evicted.
EVICT_BATCH = 64
#: Records a follower reads per look (``patched_since``).
FOLLOW_BATCH = 64
#: Files SQLite keeps beside the database in WAL mode.
SIDE_FILES = ("-wal", "-shm", "-journal")
#: A follower's bell beside the file: ``<file>.bell-<pid>-<token>`` (:class:`Bell`).
BELL_INFIX = ".bell-"

SCHEMA = """
CREATE TABLE IF NOT EXISTS scene (
    id TEXT PRIMARY KEY,
    data BLOB NOT NULL,
    size INTEGER NOT NULL,
    used REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS scene_used ON scene (used);
CREATE TABLE IF NOT EXISTS total (one INTEGER PRIMARY KEY CHECK (one = 1), bytes INTEGER NOT NULL);
INSERT OR IGNORE INTO total VALUES (1, 0);
CREATE TRIGGER IF NOT EXISTS scene_added AFTER INSERT ON scene
    BEGIN UPDATE total SET bytes = bytes + NEW.size; END;
CREATE TRIGGER IF NOT EXISTS scene_removed AFTER DELETE ON scene
    BEGIN UPDATE total SET bytes = bytes - OLD.size; END;
CREATE TRIGGER IF NOT EXISTS scene_replaced AFTER UPDATE OF size ON scene
    BEGIN UPDATE total SET bytes = bytes - OLD.size + NEW.size; END;
"""

_UPSERT = (
    "INSERT INTO scene (id, data, size, used) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE "
    "SET data = excluded.data, size = excluded.size, used = excluded.used"
)
#: A patched scene's record never takes the place of the scene stored whole under its id (the
#: same scene: the whole one needs no chain); that row's time of last use restarts instead.
_UPSERT_RECORD = _UPSERT + " WHERE substr(scene.data, 1, 1) = ?"


def remove_files(path: str | os.PathLike[str]) -> None:
    """Delete the store's file and SQLite's side files (``gunicorn.conf.py``, at exit).

    Missing files are no error. O(1).
    """
    base = os.fspath(path)
    bells = glob.glob(glob.escape(base) + BELL_INFIX + "*")
    for name in (base, *(base + suffix for suffix in SIDE_FILES), *bells):
        with suppress(FileNotFoundError):
            os.remove(name)


class Bell:
    """A follower's datagram socket beside the scene file, rung when a record is stored.

    ``SqliteSceneStore.ring`` sends one byte to every bell but the writer's own, so the
    other workers' followers build a change at once rather than at their next look.

    Raises
    ------
    OSError
        The socket cannot be bound at ``path`` (a path too long for a Unix socket, a
        directory that cannot be written): the follower looks every ``FOLLOW_S`` instead.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            self.sock.bind(path)
        except OSError:
            self.sock.close()
            raise
        self.sock.setblocking(False)

    def wait(self, seconds: float) -> None:
        """Until the bell is rung or ``seconds`` pass; every ring so far is taken. O(rings)."""
        ready, _, _ = select.select([self.sock], [], [], seconds)
        while ready:
            try:
                self.sock.recv(16)
            except (BlockingIOError, InterruptedError):
                break

    def wake(self) -> None:
        """Ring this bell from this process (a follower told to stop). Never raises."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender, suppress(OSError):
            sender.setblocking(False)
            sender.sendto(b"!", self.path)

    def close(self) -> None:
        """Close the socket and remove its file."""
        self.sock.close()
        with suppress(FileNotFoundError):
            os.remove(self.path)


@dataclass
class _Handle:
    """One process's connection to the file and the lock its threads take to use it."""

    conn: sqlite3.Connection
    lock: threading.Lock = field(default_factory=threading.Lock)


@contextmanager
def _write(conn: sqlite3.Connection) -> Iterator[None]:
    """A write transaction (``BEGIN IMMEDIATE``: the write lock first, waited for)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:  # the watchdog's exception too: never leave the lock held
        if conn.in_transaction:
            conn.rollback()
        raise
    conn.commit()


class SqliteSceneStore:
    """Scenes by ``scene_id`` in an SQLite file shared by the processes of one machine.

    Parameters
    ----------
    path : str or path-like
        The database file; created with its tables on first use (its directory must exist).
    ttl : int
        Seconds a scene is kept after it was last stored or read.
    max_bytes : int
        Stored bytes kept; past it the least recently used rows go. A scene whose stored
        bytes alone pass it is not stored.
    timeout : float
        Seconds to wait for another process's write (SQLite's busy timeout).
    limits : mapping, optional
        The scene limits a scene read must keep (``service.store.decode_value``).
    max_stored : int
        Bytes a value read may inflate to (``service.store.decode_scene``).
    """

    backend = "sqlite"

    def __init__(
        self,
        path: str | os.PathLike[str],
        ttl: int = 86400,
        max_bytes: int = 64 * 1024 * 1024,
        timeout: float = BUSY_TIMEOUT,
        limits: Mapping[str, Any] | None = None,
        max_stored: int = DEFAULT_MAX_STORED,
    ) -> None:
        self.path = os.fspath(path)
        self.limits = limits
        self.max_stored = int(max_stored)
        self.ttl = max(1, int(ttl))
        self.max_bytes = max(1, int(max_bytes))
        self.timeout = float(timeout)
        self._handles: dict[int, _Handle] = {}
        self._logged_at = -LOG_EVERY
        self._bells: set[str] = set()  # this process's own (``bell``): never rung by it

    def _handle(self) -> _Handle:
        """The connection of the calling process, opened on first use (never its parent's). O(1)."""
        pid = os.getpid()
        handle = self._handles.get(pid)
        if handle is None:
            handle = self._handles.setdefault(pid, _Handle(self._open()))
        return handle

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(f"BEGIN IMMEDIATE;{SCHEMA}COMMIT;")
        except BaseException:
            conn.close()
            raise
        return conn

    def _run(self, what: str, work: Callable[[sqlite3.Connection], T]) -> T | None:
        """``work(connection)`` under this process's lock; ``None`` when SQLite failed."""
        try:
            handle = self._handle()
            with handle.lock:
                if handle.conn.in_transaction:  # interrupted between BEGIN and its end
                    handle.conn.rollback()
                return work(handle.conn)
        except sqlite3.Error as err:
            self._failed(what, err)
            return None

    def _failed(self, what: str, err: Exception) -> None:
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY:
            self._logged_at = now
            log.warning("scene file %s: %s failed (%s); local cache only", self.path, what, err)

    def put(self, sid: str, scene: Scene) -> bool:
        """Store ``scene`` under ``sid``; whether the file took it.

        Drops the expired rows and, past ``max_bytes``, the least recently used ones (never
        this one). Cost: encoding the scene, O(log n) for its row (n rows), and O(log n) per
        row dropped (the index on the time of last use).
        """
        try:
            data = encode_scene(scene)
        except UnicodeEncodeError:  # a lone surrogate: the scene stays in this process only
            return False
        return self._store(sid, data, ())

    def put_patch(self, sid: str, record: PatchRecord) -> bool:
        """Store a patched scene's record under ``sid``; restart its chain's time to live.

        As ``put``, plus O(log n) per id of ``record.chain`` (at most
        ``service.cache.MAX_CHAIN``), in the same transaction (the chain's rows, just
        used, are the last the eviction takes). A scene stored whole under ``sid`` stays
        (its time of last use restarts): a record never replaces it.
        """
        try:
            data = encode_patch(record)
        except UnicodeEncodeError:
            return False
        return self._store(sid, data, record.chain)

    def bell(self) -> Bell | None:
        """A new :class:`Bell` beside the file, for this process's follower.

        ``None`` when none can be bound (logged). :meth:`ring` rings it from every other
        process and store.
        """
        path = f"{self.path}{BELL_INFIX}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            bell = Bell(path)
        except OSError as err:
            log.warning("scene file %s: no bell for the follower (%s); it looks every "
                        "few tenths of a second instead", self.path, err)  # fmt: skip
            return None
        self._bells.add(path)
        return bell

    def ring(self) -> None:
        """Ring every bell beside the file but this store's own (never raises).

        A bell whose socket nobody holds any more (a worker that died) is removed. Cost: a
        listing of the file's directory and one datagram per bell (one per worker).
        """
        bells = [
            p for p in glob.glob(glob.escape(self.path) + BELL_INFIX + "*") if p not in self._bells
        ]
        if not bells:
            return
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
            sender.setblocking(False)
            for path in bells:
                try:
                    sender.sendto(b"!", path)
                except ConnectionRefusedError:  # no process holds it: a dead worker's
                    with suppress(FileNotFoundError):
                        os.remove(path)
                except OSError:  # its queue is full (it will look), or it went meanwhile
                    pass

    def _store(self, sid: str, data: bytes, chain: tuple[str, ...]) -> bool:
        if len(data) > self.max_bytes:
            return False
        now = time.time()

        record = data[:1] == FORMAT_PATCH

        def work(conn: sqlite3.Connection) -> bool:
            with _write(conn):
                conn.execute("DELETE FROM scene WHERE used < ?", (now - self.ttl,))
                if record:
                    conn.execute(_UPSERT_RECORD, (sid, data, len(data), now, FORMAT_PATCH))
                else:
                    conn.execute(_UPSERT, (sid, data, len(data), now))
                touched = (sid, *chain) if record else chain
                conn.executemany(
                    "UPDATE scene SET used = ? WHERE id = ?", [(now, other) for other in touched]
                )
                self._evict(conn, keep=sid)
            return True

        return self._run("store", work) is True

    def _evict(self, conn: sqlite3.Connection, keep: str) -> None:
        """Delete least recently used rows but ``keep`` until the total fits ``max_bytes``.

        In the caller's transaction. O(1) when it fits, else O(log n) per row deleted.
        """
        (total,) = conn.execute("SELECT bytes FROM total").fetchone()
        excess = int(total) - self.max_bytes
        while excess > 0:
            rows = conn.execute(
                "SELECT rowid, size FROM scene WHERE id != ? ORDER BY used, rowid LIMIT ?",
                (keep, EVICT_BATCH),
            ).fetchall()
            if not rows:
                return
            doomed = []
            for rowid, size in rows:
                if excess <= 0:
                    break
                doomed.append((rowid,))
                excess -= int(size)
            conn.executemany("DELETE FROM scene WHERE rowid = ?", doomed)

    def get(self, sid: str) -> Scene | PatchRecord | None:
        """The scene or patched scene's record under ``sid`` (its time to live restarts).

        ``None`` when the file does not hold it, holds it expired, cannot be read in time,
        or holds bytes that are not a scene, inflate past ``max_stored`` or hold a scene
        past ``limits`` (logged, and the row deleted). Cost: O(log n)
        for the row (one write: its time of last use), and decoding the scene.
        """
        now = time.time()

        def work(conn: sqlite3.Connection) -> bytes | None:
            row = conn.execute(
                "UPDATE scene SET used = ? WHERE id = ? AND used >= ? RETURNING data",
                (now, sid, now - self.ttl),
            ).fetchone()
            return row[0] if row is not None else None

        data = self._run("read", work)
        if not isinstance(data, bytes):
            return None
        try:
            return decode_value(data, self.limits, self.max_stored)
        except ValueError as err:
            log.warning("scene file %s: %s holds no valid scene (%s)", self.path, sid, err)
            self.delete(sid)
            return None

    def patched_since(self, after: int | None) -> tuple[int, list[str]]:
        """Ids of patched scenes' records stored after row ``after``, oldest first.

        At most :data:`FOLLOW_BATCH`; with the last row seen (``after`` ``None``: the
        newest row now, and no ids). For ``service.follower``. Cost: O(log n + rows).
        """

        def work(conn: sqlite3.Connection) -> list[tuple[int, str]]:
            if after is None:
                return [
                    (
                        int(
                            conn.execute("SELECT coalesce(max(rowid), 0) FROM scene").fetchone()[0]
                        ),
                        "",
                    )
                ]
            return conn.execute(
                "SELECT rowid, id FROM scene WHERE rowid > ? AND substr(data, 1, 1) = ? "
                "ORDER BY rowid LIMIT ?",
                (after, FORMAT_PATCH, FOLLOW_BATCH),
            ).fetchall()

        rows = self._run("follow", work) or []
        last = rows[-1][0] if rows else (after or 0)
        return int(last), [sid for _, sid in rows if sid]

    def whole(self, record: PatchRecord) -> Scene | None:
        """The scene of a compacted ``record`` (``whole_scene``); ``None`` if invalid (logged)."""
        try:
            return whole_scene(record, self.limits, self.max_stored)
        except ValueError as err:
            log.warning("scene file %s: a compacted change of %s holds no valid scene (%s)",
                        self.path, record.parent, err)  # fmt: skip
            return None

    def delete(self, sid: str) -> None:
        """Forget the scene under ``sid`` (bytes that are not this scene). O(log n)."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM scene WHERE id = ?", (sid,))

        self._run("delete", work)

    def ping(self) -> StoreState:
        """Whether the file opens and its tables read (``/healthz``, ``/readyz``). O(1)."""

        def work(conn: sqlite3.Connection) -> bool:
            return conn.execute("SELECT bytes FROM total").fetchone() is not None

        ok = self._run("read", work) is True
        return StoreState(configured=True, reachable=ok, backend=self.backend)

    def stored_bytes(self) -> int | None:
        """The stored bytes the file counts (``None`` when it cannot be read). O(1)."""

        def work(conn: sqlite3.Connection) -> int:
            return int(conn.execute("SELECT bytes FROM total").fetchone()[0])

        return self._run("read", work)
