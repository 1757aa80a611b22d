"""Content-hash LRU of built scenes (``shared/DESIGN.md``, "Scene cache").

A scene's id is ``"sha256:" + hex`` of its canonical JSON (the validated scene, fields in
declaration order, defaults written out except a wall's), so the same scene always gets the
same id in every worker and replica. Each process keeps its own LRU of built scenes; with a
shared store (``service.store``: Redis, or ``service.local_store``: the SQLite file of one
gunicorn's workers) a local miss loads the scene from the store and builds it, and without
one a miss costs the client one resend.
"""

from __future__ import annotations

import logging
import operator
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

from service.cache_size import (
    BYTES_PER_WALL,
    LAZY_DEPTH,
    approx_bytes,
    built_ids,
    held_bytes,
    lazy_bytes,
    lazy_signature,
    lazy_values,
    scene_bytes,
)
from service.engine.digest import SceneDigest, rehashed, scene_digest, scene_id
from service.engine.live import Applied, Change, apply_change, rebuild
from service.engine.scene import BuiltScene, build_scene
from service.errors import SceneNotFound, shown
from service.geometry.junctions import junction_nodes
from service.geometry.obstacles import wall_components
from service.geometry.rooms import rooms_after_change, warm_rooms
from service.model import Scene
from service.store import BACKEND_SETTINGS, PatchRecord, SharedSceneStore, encode_scene

log = logging.getLogger(__name__)

__all__ = ["MAX_CHAIN", "SceneCache", "approx_bytes", "lazy_bytes", "scene_bytes", "scene_id"]

#: Most patched scenes stored one on another (records of parent id + change) before a record
#: carries the whole scene again: a reader that holds none of them rebuilds at most this many.
MAX_CHAIN = 16
#: Seconds a request for a scene that a follower is building waits for it (``follow``)
#: before building it itself.
FOLLOW_WAIT_S = 2.0
#: Bytes a patched scene adds when it shares its parent's wall index, per wall (the new
#: wall tuple and, after a flip, the copied restriction arrays).
BYTES_PER_SHARED_WALL = 60


@dataclass(frozen=True)
class _Entry:
    """A cached scene: its geometry, its digest, and its place on a chain of patches.

    ``chain``: the ids from its parent back to the last whole scene stored (``()`` for a
    whole scene); ``len(chain)`` is how many records a reader rebuilds through.
    """

    geo: BuiltScene
    digest: SceneDigest
    chain: tuple[str, ...] = ()
    #: Per collection, each item's position by id (``engine.live.id_positions``), made on
    #: first use and handed to a patched child whose collection kept its items.
    positions: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Walls that are doors (``door`` not ``"none"``): counted once, carried to a child.
    doors: list[int] = field(default_factory=list)


def warm(geo: BuiltScene) -> None:
    """Build now what depends only on the walls: the wall grid, junction labels, rooms.

    About 80 % of a 20,000-wall scene's first query (the rooms' polygonization above all),
    paid at upload instead, once per wall set (``SceneCache`` shares the index between
    scenes of the same walls). Cost: O(walls log walls + crossings).
    """
    for index in {id(i): i for i in (geo.walls, geo.sight)}.values():
        if index.size:
            index.wall_grid()
            junction_nodes(index)
            wall_components(index)
            warm_rooms(index)


class SceneCache:
    """Thread-safe LRU of ``BuiltScene`` by scene id, with named aliases.

    Scenes of the same walls (the walls' digest and grid scale) share one wall index, with
    what is built from it (``warm``): a scene re-sent with its walls unchanged pays decode,
    hash and its token spaces only. A patched scene (:meth:`patch`) is built from its
    parent's (``engine.live.rebuild``).

    Parameters
    ----------
    max_scenes : int
        Scenes kept; the least recently used is dropped first.
    max_bytes : int
        Estimated memory kept (``approx_bytes``; a scene sharing a cached scene's wall index
        counts ``BYTES_PER_SHARED_WALL`` a wall), plus what was built lazily on each scene
        since (``lazy_bytes``: closed rooms, junction labels, the wall grid; counted at the
        next access of the cache); past it the least recently used go too.
        A scene not cached yet makes room for itself (``scene_bytes``) before it is built,
        so the cached scenes and the one being built stay within it (the newest scene is
        kept even when it alone passes it).
    store : SharedSceneStore, optional
        Scenes shared with other processes (Redis, or an SQLite file): built scenes are
        stored there (a patched one as its parent's id and the change), and a local miss by
        id is loaded from there. Aliased scenes stay local.
    """

    def __init__(
        self,
        max_scenes: int = 64,
        max_bytes: int = 64 * 1024 * 1024,
        store: SharedSceneStore | None = None,
    ) -> None:
        self.store = store
        self.max_scenes = max(1, int(max_scenes))
        self.max_bytes = max(1, int(max_bytes))
        self._bytes: dict[str, int] = {}
        # sid: (its lazy_signature, its lazy_values then)
        self._lazy: dict[str, tuple[tuple[int, ...], list[object]]] = {}
        # What cached scenes built lazily, by id: [the object, its bytes, scenes holding it].
        # A patched scene sharing its parent's objects is not measured again.
        self._built: dict[int, list[Any]] = {}
        self._lazy_total = 0
        # Scenes handed out or cached since the last recount: only their memos can have
        # grown (``None``: check every scene, after an eviction).
        self._used: set[str] | None = set()
        self._items: OrderedDict[str, _Entry] = OrderedDict()
        self._by_walls: dict[tuple[str, ...], str] = {}
        self._aliases: dict[str, str] = {}
        self._pinned: set[str] = set()
        self._lock = threading.Lock()
        # Patched scenes a follower is building now (``follow``): a request for one waits.
        self._building: dict[str, threading.Event] = {}
        # Patched scenes this process stored and has yet to build (``patch(later=True)``).
        self._pending: dict[str, _Pending] = {}
        #: Whole scenes built here so far (``put``; not the patched ones built from a parent).
        self.builds = 0

    def put(
        self, scene: Scene, *, alias: str | None = None, publish: bool | None = None
    ) -> tuple[str, BuiltScene]:
        """Build (or reuse) the geometry of ``scene``; return its id and geometry.

        ``publish`` (with a store, never for an alias): ``True`` stores the scene even when
        this process holds it already (an upload), ``False`` never (it came from the store),
        ``None`` when it was built here.
        """
        digest = scene_digest(scene)
        sid = digest.id
        walls_key = _walls_key(digest, scene.grid.px_per_unit)
        with self._lock:
            self._recount()
            entry = self._items.get(sid)
            if entry is not None:
                self._items.move_to_end(sid)
                self._use(sid)
                if alias is not None:
                    self._aliases[alias] = sid
                    self._pinned.add(sid)
            sibling = self._items.get(self._by_walls.get(walls_key, "")) if scene.walls else None
        if entry is None:
            # Room first, for what the new scene will hold: the old scenes and the new one
            # are never in memory together past the bound.
            with self._lock:
                self._evict(self._room(scene, sibling is not None), None)
            if sibling is not None:
                geo = build_scene(scene, walls=sibling.geo.walls)
            else:
                geo = build_scene(scene)
                warm(geo)
            self.builds += 1
            walls = scene.walls  # doors counted with the build: PATCH stats carry them
            doors = [len(walls) - operator.countOf(map(_DOOR, walls), "none")]
            entry = _Entry(geo, digest, doors=doors)
            self._keep(sid, entry, shared=sibling is not None, alias=alias)
            publish = publish is not False
        if publish and alias is None and self.store is not None:
            self.store.put(sid, scene)
        return sid, entry.geo

    def _room(self, scene: Scene, shared: bool) -> int:
        """Bytes ``scene`` will hold once built (its walls' share only when ``shared``)."""
        full = scene_bytes(scene)
        if not shared:
            return full
        return full - (BYTES_PER_WALL - BYTES_PER_SHARED_WALL) * len(scene.walls)

    def _keep(self, sid: str, entry: _Entry, *, shared: bool, alias: str | None = None) -> None:
        """Cache ``entry`` under ``sid`` (most recently used), then evict past the bounds."""
        geo = entry.geo
        size = approx_bytes(geo)
        if shared:
            size -= (BYTES_PER_WALL - BYTES_PER_SHARED_WALL) * len(geo.scene.walls)
        with self._lock:
            self._items[sid] = entry
            self._bytes[sid] = size
            self._forget_lazy(sid)
            self._items.move_to_end(sid)
            self._use(sid)
            self._recount()
            self._by_walls[_walls_key(entry.digest, geo.scene.grid.px_per_unit)] = sid
            if alias is not None:
                self._aliases[alias] = sid
                self._pinned.add(sid)
            self._evict(0, sid)

    def patch(
        self, parent: str, change: Change, *, later: bool = False
    ) -> tuple[str, BuiltScene | None, Applied]:
        """Apply ``change`` to the cached (or stored) scene ``parent``; the new id and geometry.

        ``later``: unless the change adds, removes or moves walls (the wall index is built
        again), the new scene is built when it is first asked for here or by
        :meth:`build_pending` (``service.api.patch_scene``: once its answer is sent), and its
        geometry is ``None`` now; the id, the record stored and :meth:`doors` do not wait.

        The new scene's id is the one a whole upload of it gets (``engine.digest``: only the
        changed chunks are hashed again); its geometry is built from the parent's
        (``engine.live.rebuild``, the closed rooms carried by ``rooms_after_change``). With a
        store, the new scene is stored as ``parent`` + ``change`` (``PatchRecord``); once the
        chain behind it reaches ``MAX_CHAIN``, with the whole scene beside (``whole``: a reader
        that holds ``parent`` still applies the change, one that does not decodes the scene).
        A change that makes no change, or leads back to a scene of its chain (a door opened
        and closed again), stores nothing: that scene is stored already. The parent stays
        as it was.

        Raises
        ------
        SceneNotFound
            ``parent`` is unknown here and in the store.
        KeyError
            The change removes an id the parent does not hold (checked by the caller).
        """
        parent = self.resolved(parent)
        base = self._entry(parent)
        applied, digest = _changed(base, change)
        sid, compacted = digest.id, False
        # Stored before it is built: the other workers' followers (``service.follower``)
        # build it beside this one, so the next request finds it built on any of them.
        # ``pending`` holds at most one scene: one left before is built first.
        if later:
            self.build_pending()
        if self.store is not None:
            chain = (parent, *base.chain)
            if sid in chain:  # no change, or back to a scene of its chain: stored already (a
                pass  # record under its id would point at its own descendants, a cycle)
            elif len(chain) > MAX_CHAIN:  # compacted: the scene itself, and the change beside
                whole = encode_scene(applied.scene)
                self.store.put_patch(sid, PatchRecord(parent, change, (), whole))
                compacted = True
            else:
                self.store.put_patch(sid, PatchRecord(parent, change, chain))
        job = _Pending(base, change, parent, applied, digest, compacted)
        if later and "walls" not in applied.reshaped:
            with self._lock:
                if sid not in self._items:
                    self._pending[sid] = job
                    return sid, None, applied
        self._ring()
        return sid, self._finish(sid, job).geo, applied

    def _ring(self) -> None:
        """Wake the other workers' followers (``service.follower``) to build what was stored."""
        if self.store is not None:
            self.store.ring()

    def _finish(self, sid: str, job: _Pending) -> _Entry:
        """Build (or find) the patched scene of ``job`` and cache it under ``sid``."""
        entry = self._made(job.base, job.change, job.parent, job.applied, job.digest)
        if job.compacted:
            entry = replace(entry, chain=())
        self._keep(sid, entry, shared=True)
        return entry

    def build_pending(self) -> None:
        """Build the patched scenes ``patch(later=True)`` left unbuilt, now (O(each change)).

        Never raises: a scene that fails to build is left to the request that asks for it
        (built from its stored record, or from the parent, as any miss), logged here.
        """
        while True:
            with self._lock:
                if not self._pending:
                    return
                sid, job = self._pending.popitem()
            self._ring()  # after the answer: the client reads it while both workers build
            try:
                self._finish(sid, job)
            except Exception:
                log.exception("patched scene %s: not built after its answer", sid)

    def _take_pending(self, sid: str) -> _Entry | None:
        """The entry of ``sid`` if ``patch(later=True)`` left it unbuilt: built now."""
        with self._lock:
            job = self._pending.pop(sid, None)
        return None if job is None else self._finish(sid, job)

    def _applied(self, base: _Entry, change: Change, parent: str) -> tuple[str, _Entry, Applied]:
        """``change`` applied to ``base``: the new id, its entry (built or cached) and scene."""
        applied, digest = _changed(base, change)
        return digest.id, self._made(base, change, parent, applied, digest), applied

    def _made(
        self, base: _Entry, change: Change, parent: str, applied: Applied, digest: SceneDigest
    ) -> _Entry:
        """The entry of ``applied`` (``_changed``), cached here already or built from ``base``."""
        with self._lock:
            found = self._items.get(digest.id)
        if found is not None:
            return found
        geo = rebuild(base.geo, applied)
        doors = _doors_after(base, change) if base.doors else []
        pairs = {
            id(new): (old, new)
            for old, new in ((base.geo.walls, geo.walls), (base.geo.sight, geo.sight))
        }
        for old, new in pairs.values():
            if new is not old and new.tree is old.tree:  # flipped in place
                rows = [k for k, _ in applied.replaced["walls"].values()]
                rooms_after_change(old, new, rows)
        return _Entry(geo, digest, (parent, *base.chain), applied.positions, doors)

    def _evict(self, room: int, keep: str | None) -> None:
        """Drop least recently used scenes (never pinned ones nor ``keep``).

        Until the cache holds at most ``max_scenes`` (one fewer with ``room``) and ``room``
        more bytes fit under ``max_bytes``. Called with the lock held.
        """
        spare = 1 if room else 0
        while len(self._items) + spare > self.max_scenes or (
            self.counted_bytes() + room > self.max_bytes and len(self._items) > 1 - spare
        ):
            oldest = next((k for k in self._items if k not in self._pinned and k != keep), None)
            if oldest is None:
                break
            entry = self._items.pop(oldest)
            del self._bytes[oldest]
            self._forget_lazy(oldest)
            self._used = None  # what it shared may be another scene's to count now
            key = _walls_key(entry.digest, entry.geo.scene.grid.px_per_unit)
            if self._by_walls.get(key) == oldest:
                del self._by_walls[key]

    def _forget_lazy(self, sid: str) -> None:
        """``sid`` no longer holds what it built lazily (evicted, or cached anew)."""
        known = self._lazy.pop(sid, None)
        if known is not None:
            self._release(known[1])

    def counted_bytes(self) -> int:
        """The memory the cache counts: each scene's estimate and what was built lazily on it."""
        return sum(self._bytes.values()) + self._lazy_total

    def lazy_counted_bytes(self) -> int:
        """The part of ``counted_bytes`` built lazily (each object once, ``_recount``)."""
        return self._lazy_total

    def _recount(self) -> None:
        """Measure again what was built lazily on cached scenes since last counted, then evict.

        Closed rooms, junction labels and the wall grid are built by the queries after a
        scene is cached (``service.geometry.rooms``: per sense and wall choice); each access
        to the cache counts what the requests before it built (``lazy_values`` of each scene
        whose ``lazy_signature`` changed, among those handed out since: ``_use``), so the bound
        holds from one request to the next.
        An object held by several scenes (a wall index of the same walls; the junction
        labels and wall grid a door flip keeps) is counted once while one of them is cached,
        and measured once (``_held_bytes``). Called with the lock held. O(scenes used since),
        O(scenes) after an eviction, plus the memo entries of the scenes that changed and
        measuring what is new.
        """
        changed = False
        used, self._used = self._used, set()
        for sid in self._items if used is None else used & self._items.keys():
            entry = self._items[sid]
            signature = lazy_signature(entry.geo)
            known = self._lazy.get(sid)
            if known is None or known[0] != signature:
                values = lazy_values(entry.geo)
                self._hold(values, built_ids(entry.geo))
                if known is not None:
                    self._release(known[1])
                self._lazy[sid] = (signature, values)
                changed = True
        if changed:
            self._evict(0, next(reversed(self._items), None))

    def _use(self, sid: str) -> None:
        """``sid`` is handed out: the next recount looks at what its requests built."""
        if self._used is not None:
            self._used.add(sid)

    def _hold(self, values: list[object], built: set[int]) -> None:
        """Count ``values`` as held by one more cached scene (measured when first held).

        What the scene's built indexes hold (``built``, from ``built_ids``) is not measured.
        """
        for value in values:
            held = self._built.get(id(value))
            if held is None:  # held objects stay alive: an id here is this object's
                size = held_bytes(value, set(built), LAZY_DEPTH)
                held = self._built[id(value)] = [value, size, 0]
                self._lazy_total += held[1]
            held[2] += 1

    def _release(self, values: list[object]) -> None:
        """Count ``values`` as held by one fewer cached scene (let go at none)."""
        for value in values:
            held = self._built[id(value)]
            held[2] -= 1
            if not held[2]:
                del self._built[id(value)]
                self._lazy_total -= held[1]

    def positions(self, sid: str) -> dict[str, dict[str, int]]:
        """Per collection, each item's position by id in the scene ``sid`` (its source).

        The scene as ``PATCH`` changes it (before levels resolve); made once per cached scene.

        Filled by ``resolve_change`` and ``engine.live.apply_change`` as they need them; a
        patched scene starts from its parent's where no item was added or removed.

        Raises
        ------
        SceneNotFound
            As :meth:`get`.
        """
        return self._held(sid).positions

    def doors(self, sid: str) -> int:
        """How many walls of the scene ``sid`` are doors (raises as :meth:`get`).

        Counted once per uploaded scene, then carried through its changes (O(walls changed)).
        """
        with self._lock:
            job = self._pending.get(self._aliases.get(sid, sid))
        if job is not None and job.base.doors:  # not built yet: counted from its parent's
            return _doors_after(job.base, job.change)[0]
        entry = self._held(sid)
        if not entry.doors:
            walls = (entry.geo.source or entry.geo.scene).walls
            entry.doors.append(len(walls) - operator.countOf(map(_DOOR, walls), "none"))
        return entry.doors[0]

    def resolved(self, sid: str) -> str:
        """The scene id of id or alias ``sid`` (``sid`` itself when it is no alias)."""
        with self._lock:
            return self._aliases.get(sid, sid)

    def get(self, sid: str) -> BuiltScene:
        """The geometry cached under id or alias ``sid``.

        A local miss loads the scene from the store, when there is one, and builds it (a
        patched scene's record from its parent, loaded the same way).

        Raises
        ------
        SceneNotFound
            When neither this process nor the store holds it (nor, for a patched scene,
            its parent), or the store cannot be reached in time (the client resends the
            scene); the message says why it can happen (:meth:`_not_found`).
        """
        return self._entry(sid).geo

    def _held(self, sid: str) -> _Entry:
        """The entry of ``sid`` as :meth:`_entry`, without recounting when it is cached.

        For a request's second look at the scene it has just asked for.
        """
        with self._lock:
            entry = self._items.get(self._aliases.get(sid, sid))
        return entry if entry is not None else self._entry(sid)

    def _entry(self, sid: str, depth: int = 0) -> _Entry:
        """The cache entry of id or alias ``sid``, loaded from the store on a miss."""
        with self._lock:
            self._recount()
            key = self._aliases.get(sid, sid)
            entry = self._items.get(key)
            if entry is not None:
                self._items.move_to_end(key)
                self._use(key)
                return entry
        made = self._take_pending(key)
        if made is not None:
            return made
        if self.store is not None and key.startswith("sha256:") and depth <= MAX_CHAIN:
            building = self._building.get(key)
            if building is not None and building.wait(FOLLOW_WAIT_S):  # a follower builds it
                with self._lock:
                    entry = self._items.get(key)
                if entry is not None:
                    return entry
            value: Scene | PatchRecord | None = self.store.get(key)
            compacted = isinstance(value, PatchRecord) and bool(value.whole)
            if compacted and not self.holds(value.parent):  # type: ignore[union-attr]
                value = self.store.whole(value)  # type: ignore[arg-type]
            if isinstance(value, PatchRecord):
                made = self._replayed(key, value, depth)
                if made is not None:
                    return made
                raise self._not_found(sid, parent=value.parent) from None
            elif value is not None:
                found, geo = self.put(value, publish=False)
                if found == key:
                    return self._items.get(found) or _Entry(geo, scene_digest(value))
                self.store.delete(key)  # bytes under another scene's id: not this scene
        raise self._not_found(sid)

    def _replayed(self, key: str, record: PatchRecord, depth: int) -> _Entry | None:
        """The scene ``key`` built from its stored ``record`` (its parent loaded as needed).

        ``None`` when the parent is gone.

        Raises
        ------
        SceneNotFound
            The record does not make ``key`` (another scene's change under this id: it is
            deleted from the store).
        """
        try:
            base = self._entry(record.parent, depth + 1)
            found, made, _ = self._applied(base, record.change, record.parent)
        except (SceneNotFound, KeyError):
            return None
        if found != key:
            self.store.delete(key)  # type: ignore[union-attr]
            raise self._not_found(key)
        if record.whole:  # compacted: the writer's chain ends here, the next change's starts
            made = replace(made, chain=())
        self._keep(key, made, shared=True)
        return made

    def follow(self, sid: str) -> bool:
        """Build the patched scene ``sid`` now, if this process holds its parent (O(change)).

        For a worker's follower (``service.follower``): a change another worker stored is
        applied here before a request asks for it. Scenes whose parent this process does
        not hold are left (nothing is loaded for them). Whether ``sid`` was built.
        """
        if self.store is None or self.holds(sid):
            return False
        value = self.store.get(sid)
        if not isinstance(value, PatchRecord) or not self.holds(value.parent):
            return False
        done = self._building.setdefault(sid, threading.Event())
        try:
            return self._replayed(sid, value, 0) is not None
        except SceneNotFound:
            return False
        finally:
            done.set()
            self._building.pop(sid, None)

    def holds(self, sid: str) -> bool:
        """Whether this process caches the scene ``sid`` (id or alias), without the store.

        A patched scene it is to build (``patch(later=True)``) counts.
        """
        with self._lock:
            key = self._aliases.get(sid, sid)
            return key in self._items or key in self._pending

    def _not_found(self, sid: str, parent: str | None = None) -> SceneNotFound:
        """The 404 for ``sid``, saying why an id once answered can be unknown here."""
        if parent is not None:
            why = (
                f"the store holds it as a change of {shown(parent, 90)}, which is gone "
                "(expired, or dropped to keep the store within its bounds)"
            )
        elif not sid.startswith("sha256:"):
            why = (
                "a scene id is the 'sha256:...' that POST /v1/scenes or an inline scene "
                "answers (or an alias this service was started with, such as 'sample')"
            )
        elif self.store is None:
            why = (
                "each worker process caches its own scenes and no scene store is shared "
                "(SIGHTLINE_REDIS_URL, or gunicorn's SQLite file), so another worker may hold it"
            )
        else:
            why = (
                f"the scene store ({BACKEND_SETTINGS[self.store.backend]}) does not hold it "
                "either: it expired (SIGHTLINE_SCENE_TTL seconds unused), was dropped to keep "
                "the store within its bounds, the store did not answer, or the server restarted "
                "(gunicorn's own SQLite file goes when it stops; Redis keeps scenes)"
            )
        return SceneNotFound(
            f"Scene {shown(sid, 90)} is not cached here: {why}. Send the scene itself (inline "
            "'scene', or POST /v1/scenes) and use the scene_id it answers.",
            ("scene_id",),
        )

    def __len__(self) -> int:
        return len(self._items)


_DOOR = operator.attrgetter("door")


@dataclass(frozen=True)
class _Pending:
    """A patched scene stored and not built yet (``SceneCache.patch(later=True)``)."""

    base: _Entry
    change: Change
    parent: str
    applied: Applied
    digest: SceneDigest
    compacted: bool


def _changed(base: _Entry, change: Change) -> tuple[Applied, SceneDigest]:
    """``change`` applied to ``base``'s scene, and the digest of the result. O(change)."""
    applied = apply_change(base.geo.source or base.geo.scene, change, base.positions)
    plain = change.environment is not None
    return applied, rehashed(base.digest, applied.scene, applied.touched, plain)


def _doors_after(base: _Entry, change: Change) -> list[int]:
    """``base``'s door count after ``change`` (its walls' positions are known by now)."""
    walls = (base.geo.source or base.geo.scene).walls
    where = base.positions["walls"] if change.walls else {}
    count = base.doors[0]
    for wall_id, wall in change.walls.items():
        k = where.get(wall_id)
        count += wall is not None and wall.door != "none"
        count -= k is not None and walls[k].door != "none"
    return [count]


def _walls_key(digest: SceneDigest, px_per_unit: float) -> tuple[str, ...]:
    """What a scene's wall index depends on: its walls, levels and surfaces, and its scale.

    Scenes with equal keys share one index (their levels give the walls the same ranges and
    their floors lie alike, GEO-10).
    """
    return (
        digest.collection("walls"),
        digest.collection("levels"),
        digest.collection("surfaces"),
        repr(px_per_unit),
    )
