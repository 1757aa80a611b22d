"""Scene store shared by every worker and replica: Redis (``shared/DESIGN.md``, "Scaling out").

Also what every scene store shares: the stored format (``encode_scene``, ``decode_scene``),
the state the probes report (``StoreState``) and the interface the cache uses
(``SharedSceneStore``; the other store is ``service.local_store``, an SQLite file).

With ``SIGHTLINE_REDIS_URL`` set, a validated canonical scene is stored in Redis under its
``scene_id`` (``service.cache.scene_id``) for ``SIGHTLINE_SCENE_TTL`` seconds, so a worker
that has not seen a scene loads it from Redis and builds it instead of answering 404.
Redis' own eviction (``maxmemory-policy``) bounds the memory; nothing here counts it.

Stored value: one format byte, then the scene's msgspec MessagePack bytes, raw
(``FORMAT_RAW``) or zlib-compressed (``FORMAT_ZLIB``) when that saves at least a quarter;
or, for a patched scene (``PATCH /v1/scenes/{id}``), ``FORMAT_PATCH`` and a
:class:`PatchRecord`: its parent's id and the change, so storing a token move costs the
move, not the scene. A reader rebuilds it from its parent (``service.cache``); the chain of
records back to a whole scene is at most ``service.cache.MAX_CHAIN`` long (then the record
carries the whole scene too, ``PatchRecord.whole``: a reader holding the parent still
applies the change, a 20,000-wall scene's build is paid only by one that does not), and
storing a record restarts the time to live of every scene on it.

What a store reads is checked as a request is: a compressed value is inflated to at most
``max_stored`` bytes (a zlib bomb reads as a miss), and a scene over the scene limits
(``service.limits``: ``SIGHTLINE_MAX_WALLS`` ...), or a patched scene's change adding more
items than they allow, reads as a miss too (logged), before anything is built from it.

The store never raises to its callers. Redis down, slow, or answering garbage reads as a
miss (``get`` returns ``None``) and a write as not done (``put`` returns ``False``); each
call is bounded by the connect and socket timeouts (redis-py, one retry, no backoff). After
a failure the store is skipped for ``RETRY_AFTER`` seconds, so a dead Redis costs requests
nothing; ``ping`` (``/healthz``, ``/readyz``) always asks Redis.
"""

from __future__ import annotations

import logging
import threading
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from schemas.size import size_of_scene
from service.engine.live import Change
from service.limits import SCENE_LIMITS, size_problems
from service.model import Scene

log = logging.getLogger(__name__)

#: Redis key of a scene: this prefix, then its ``scene_id`` (``"sha256:<64 hex>"``).
KEY_PREFIX = "sightline:scene:"
#: First byte of a stored value: MessagePack as it is, or zlib-compressed MessagePack.
FORMAT_RAW = b"\x01"
FORMAT_ZLIB = b"\x02"
#: First byte of a patched scene's record (:class:`PatchRecord` as MessagePack).
FORMAT_PATCH = b"\x03"
#: Compress values above this many bytes (smaller ones gain nothing worth a round of zlib).
COMPRESS_OVER = 4096
#: zlib level: 1 is fast and already shrinks a 5,000-wall scene about 5 times.
ZLIB_LEVEL = 1
#: Seconds the store is skipped after Redis failed (requests fall back to the local cache).
RETRY_AFTER = 1.0
#: Default seconds for connecting to Redis and for each reply.
DEFAULT_TIMEOUT = 0.5
#: Stored bytes a scene may inflate to, per byte of ``SIGHTLINE_MAX_CONTENT_LENGTH``: a
#: stored scene is MessagePack, about as long as the JSON it came in (a 50,000-wall scene:
#: 3.0 MB against 2.9 MB of JSON), and a patched scene stored whole may have grown past
#: one body. Past it a value is a miss, never inflated further.
INFLATE_PER_BODY_BYTE = 4
#: ``max_stored`` without a configured body limit (10 MiB bodies).
DEFAULT_MAX_STORED = INFLATE_PER_BODY_BYTE * 10 * 1024 * 1024


class PatchRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A patched scene as stored: its parent's id, the change, and the chain behind it.

    Attributes
    ----------
    parent : str
        The ``scene_id`` the change applies to.
    change : Change
        The resolved change (``service.engine.live``).
    chain : tuple of str
        Every id from the parent back to the last whole scene stored: their time to live
        restarts with this record's, so a record never outlives the scenes it needs.
    """

    parent: str
    change: Change
    chain: tuple[str, ...]
    #: The changed scene itself (``encode_scene``) once the chain behind it reached
    #: ``service.cache.MAX_CHAIN`` (``chain`` is then empty): a reader that holds ``parent``
    #: applies ``change`` as for any record; one that does not decodes this (``whole_scene``)
    #: instead of the chain. ``b""`` for a record of a chain.
    whole: bytes = b""


_ENCODE = msgspec.msgpack.Encoder()
_DECODE = msgspec.msgpack.Decoder(Scene)
_DECODE_PATCH = msgspec.msgpack.Decoder(PatchRecord)


def encode_patch(record: PatchRecord) -> bytes:
    """Stored bytes of a patched scene's record: ``FORMAT_PATCH`` + MessagePack.

    Raises
    ------
    UnicodeEncodeError
        When a string of the change holds a lone surrogate.
    """
    return FORMAT_PATCH + _ENCODE.encode(record)


def decode_value(
    data: bytes, limits: Mapping[str, Any] | None = None, max_stored: int = DEFAULT_MAX_STORED
) -> Scene | PatchRecord:
    """A stored scene (``decode_scene``) or patched scene's record, checked again.

    With ``limits`` (the app's config), a record whose change adds more walls, tokens,
    lights or regions than a scene may hold is refused (what the change applies to is
    checked when it is loaded in turn). Cost: O(stored bytes).

    Raises
    ------
    ValueError
        As ``decode_scene``; for a record, bytes that are not a valid record, or past the
        limits.
    """
    if data[:1] == FORMAT_PATCH:
        if len(data) > max_stored:
            raise ValueError(f"stored change: {len(data)} bytes, over {max_stored}")
        record = _DECODE_PATCH.decode(data[1:])
        if limits is not None:
            for field, key in SCENE_LIMITS:
                count, limit = len(getattr(record.change, field)), int(limits[key])
                if count > limit:
                    raise ValueError(f"stored change: {count} {field}, over {key}={limit}")
        return record
    return decode_scene(data, limits, max_stored)


def whole_scene(
    record: PatchRecord,
    limits: Mapping[str, Any] | None = None,
    max_stored: int = DEFAULT_MAX_STORED,
) -> Scene | None:
    """The scene a compacted record carries (``PatchRecord.whole``), checked as a stored scene.

    ``None`` for a record of a chain (no scene in it). Cost: O(stored bytes).

    Raises
    ------
    ValueError
        As ``decode_scene``.
    """
    return decode_scene(record.whole, limits, max_stored) if record.whole else None


def encode_scene(scene: Scene) -> bytes:
    """Stored bytes of ``scene``: format byte + MessagePack, compressed when it pays.

    Raises
    ------
    UnicodeEncodeError
        When a string of the scene holds a lone surrogate, which MessagePack cannot carry.
    """
    raw = _ENCODE.encode(scene)
    if len(raw) > COMPRESS_OVER:
        packed = zlib.compress(raw, ZLIB_LEVEL)
        if len(packed) * 4 <= len(raw) * 3:
            return FORMAT_ZLIB + packed
    return FORMAT_RAW + raw


def decode_scene(
    data: bytes, limits: Mapping[str, Any] | None = None, max_stored: int = DEFAULT_MAX_STORED
) -> Scene:
    """The scene of stored bytes (``encode_scene``), checked against the model again.

    Parameters
    ----------
    data : bytes
        A stored value.
    limits : mapping, optional
        The scene limits (the app's config: ``MAX_WALLS`` ... ``MAX_REGION_POINTS``); a
        scene past one is refused, as ``service.limits`` refuses a request's.
    max_stored : int
        Most bytes the MessagePack may have, compressed or not: a compressed value is
        inflated in steps and refused once past it (a zlib bomb costs ``max_stored``).

    Raises
    ------
    ValueError
        Unknown format byte, broken compression, more than ``max_stored`` bytes, bytes that
        are not a valid scene (``msgspec.DecodeError`` and ``msgspec.ValidationError``
        subclass ``ValueError``), or a scene past ``limits``.
    """
    kind, body = data[:1], data[1:]
    if kind == FORMAT_ZLIB:
        body = _inflate(body, max_stored)
    elif kind != FORMAT_RAW:
        raise ValueError(f"stored scene: unknown format byte {kind!r}")
    if len(body) > max_stored:
        raise ValueError(f"stored scene: over {max_stored} bytes")
    scene = _DECODE.decode(body)
    if limits is not None:
        problems = size_problems(size_of_scene(scene), limits)
        if problems:
            raise ValueError(f"stored scene: {problems[0][0]}")
    return scene


def _inflate(body: bytes, max_stored: int) -> bytes:
    """Inflate zlib ``body``; ``ValueError`` when broken or past ``max_stored`` bytes."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(body, max_stored + 1)
    except zlib.error as err:
        raise ValueError(f"stored scene: {err}") from err
    if len(out) > max_stored or inflater.unconsumed_tail:
        raise ValueError(f"stored scene: inflates past {max_stored} bytes")
    if not inflater.eof:
        raise ValueError("stored scene: truncated compressed data")
    return out


#: The setting that configures each backend, named where the store fails (``/readyz``).
BACKEND_SETTINGS = {"redis": "SIGHTLINE_REDIS_URL", "sqlite": "SIGHTLINE_SCENE_FILE"}


@dataclass(frozen=True)
class StoreState:
    """What ``/healthz`` and ``/readyz`` say of the store.

    Attributes
    ----------
    configured : bool
        Whether a store is configured (``SIGHTLINE_REDIS_URL`` or ``SIGHTLINE_SCENE_FILE``).
    reachable : bool or None
        Whether the store answered (Redis a ``PING`` within the timeout, the SQLite file a
        read); ``None`` when not configured.
    backend : str
        ``"redis"`` or ``"sqlite"`` (a key of :data:`BACKEND_SETTINGS`); ``"none"`` without.
    """

    configured: bool
    reachable: bool | None
    backend: str = "redis"

    @property
    def ready(self) -> bool:
        """Ready to serve: no store configured, or the store answers."""
        return not self.configured or bool(self.reachable)

    @property
    def variable(self) -> str:
        """The setting that configures this store (``""`` without one)."""
        return BACKEND_SETTINGS.get(self.backend, "") if self.configured else ""

    def as_dict(self) -> dict[str, object]:
        """``{"backend": "redis" | "sqlite" | "none", "reachable": bool | None}``, no URL."""
        return {"backend": self.backend if self.configured else "none", "reachable": self.reachable}


#: The state of a service without a store.
NO_STORE = StoreState(configured=False, reachable=None, backend="none")


class SharedSceneStore(Protocol):
    """Scenes by ``scene_id`` shared with other processes: what ``SceneCache`` needs.

    ``SceneStore`` (Redis) and ``service.local_store.SqliteSceneStore`` (one machine). No
    method raises: a failure reads as a miss (``get`` returns ``None``), a write not done
    (``put`` returns ``False``), or an unreachable state (``ping``).
    """

    #: A key of :data:`BACKEND_SETTINGS`.
    backend: str

    def put(self, sid: str, scene: Scene) -> bool:
        """Store ``scene`` under ``sid``; whether the store took it."""
        ...

    def put_patch(self, sid: str, record: PatchRecord) -> bool:
        """Store a patched scene's record under ``sid``; restart its chain's time to live."""
        ...

    def ring(self) -> None:
        """Wake the other processes' followers to build what was stored (never raises)."""
        ...

    def get(self, sid: str) -> Scene | PatchRecord | None:
        """The scene or record under ``sid`` (its time to live restarts), or ``None``."""
        ...

    def whole(self, record: PatchRecord) -> Scene | None:
        """The scene of a compacted ``record`` (``whole_scene``), ``None`` if invalid or none."""
        ...

    def delete(self, sid: str) -> None:
        """Forget the scene under ``sid``."""
        ...

    def ping(self) -> StoreState:
        """Ask the store now."""
        ...


class SceneStore:
    """Scenes by ``scene_id`` in Redis, through redis-py's connection pool.

    Parameters
    ----------
    url : str
        A redis-py URL: ``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` (TLS)
        or ``unix://``.
    ttl : int
        Seconds a scene is kept after it was last stored or read (``SET EX``, ``GETEX``).
    timeout : float
        Seconds to connect and seconds per reply; past it the call counts as a failure.
    limits : mapping, optional
        The scene limits a scene read must keep (``decode_value``); ``None``: not checked.
    max_stored : int
        Bytes a value read may inflate to (``decode_scene``).
    """

    backend = "redis"

    def __init__(
        self,
        url: str,
        ttl: int = 86400,
        timeout: float = DEFAULT_TIMEOUT,
        limits: Mapping[str, Any] | None = None,
        max_stored: int = DEFAULT_MAX_STORED,
    ) -> None:
        self.ttl = max(1, int(ttl))
        self.timeout = float(timeout)
        self.limits = limits
        self.max_stored = int(max_stored)
        # The pool reconnects after a fork (gunicorn workers) and after Redis restarts; one
        # retry without backoff replaces a pooled connection that Redis closed meanwhile.
        self._redis = redis.Redis.from_url(
            url,
            socket_connect_timeout=self.timeout,
            socket_timeout=self.timeout,
            retry=Retry(NoBackoff(), 1),
            max_connections=16,
        )
        self._skip_until = 0.0
        self._lock = threading.Lock()

    def _available(self) -> bool:
        return time.monotonic() >= self._skip_until

    def _failed(self, what: str, err: Exception) -> None:
        with self._lock:
            first = time.monotonic() >= self._skip_until
            self._skip_until = time.monotonic() + RETRY_AFTER
        if first:
            log.warning("scene store: %s failed (%s); local cache only for now", what, err)

    def put(self, sid: str, scene: Scene) -> bool:
        """Store ``scene`` under ``sid`` for ``ttl`` seconds; whether Redis took it."""
        try:
            data = encode_scene(scene)
        except UnicodeEncodeError:  # a lone surrogate: the scene stays in this process only
            return False
        return self._set(sid, data, ())

    def put_patch(self, sid: str, record: PatchRecord) -> bool:
        """Store ``record`` under ``sid`` and restart the TTL of its ``chain`` (one pipeline).

        Cost: the record's bytes (the change, not the scene) and one ``EXPIRE`` per id of
        the chain (at most ``service.cache.MAX_CHAIN``), in one round trip.
        """
        try:
            data = encode_patch(record)
        except UnicodeEncodeError:
            return False
        return self._set(sid, data, record.chain)

    def ring(self) -> None:
        """Nothing to wake: replicas build a patched scene when a request asks for it."""

    def _set(self, sid: str, data: bytes, chain: tuple[str, ...]) -> bool:
        if not self._available():
            return False
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.set(KEY_PREFIX + sid, data, ex=self.ttl)
            for other in chain:
                pipe.expire(KEY_PREFIX + other, self.ttl)
            pipe.execute()
        except redis.RedisError as err:
            self._failed("SET", err)
            return False
        return True

    def get(self, sid: str) -> Scene | PatchRecord | None:
        """The scene or patched scene's record stored under ``sid`` (its TTL restarts).

        ``None`` when Redis does not hold it, cannot be reached in time, or holds bytes that
        are neither, inflate past ``max_stored`` or hold a scene past ``limits`` (logged; the
        value stays: a replica with higher limits may have stored it).
        """
        if not self._available():
            return None
        try:
            data = self._redis.getex(KEY_PREFIX + sid, ex=self.ttl)
        except redis.RedisError as err:
            self._failed("GETEX", err)
            return None
        if not isinstance(data, bytes):
            return None
        try:
            return decode_value(data, self.limits, self.max_stored)
        except ValueError as err:
            log.warning("scene store: %s holds no valid scene (%s)", sid, err)
            return None

    def whole(self, record: PatchRecord) -> Scene | None:
        """The scene of a compacted ``record`` (``whole_scene``); ``None`` if invalid (logged)."""
        try:
            return whole_scene(record, self.limits, self.max_stored)
        except ValueError as err:
            log.warning("scene store: a compacted change of %s holds no valid scene (%s)",
                        record.parent, err)  # fmt: skip
            return None

    def delete(self, sid: str) -> None:
        """Forget the scene under ``sid`` (a stored value that did not match its id)."""
        try:
            self._redis.delete(KEY_PREFIX + sid)
        except redis.RedisError as err:
            self._failed("DEL", err)

    def ping(self) -> StoreState:
        """Ask Redis now (whatever failed before); a success lifts ``RETRY_AFTER``."""
        try:
            ok = bool(self._redis.ping())
        except redis.RedisError as err:
            self._failed("PING", err)
            return StoreState(configured=True, reachable=False)
        if ok:
            with self._lock:
                self._skip_until = 0.0
        return StoreState(configured=True, reachable=ok)
