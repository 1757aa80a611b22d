"""Content-hash LRU of built scenes (``shared/DESIGN.md``, "Scene cache").

A scene's id is ``"sha256:" + hex`` of its canonical JSON (the validated scene, fields in
declaration order, defaults written out except a wall's), so the same scene always gets the
same id in every worker and replica. Each process keeps its own LRU of built scenes; with a
shared store (``service.store``: Redis, or ``service.local_store``: the SQLite file of one
gunicorn's workers) a local miss loads the scene from the store and builds it, and without
one a miss costs the client one resend.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict

import msgspec

from service.engine.scene import BuiltScene, build_scene
from service.errors import SceneNotFound, shown
from service.model import Scene
from service.store import BACKEND_SETTINGS, SharedSceneStore

#: Canonical JSON: Struct fields in declaration order (the model holds no dicts, so no key
#: order to fix), walls without their defaults (``service.model``); msgspec encodes in C.
_CANONICAL = msgspec.json.Encoder()


def scene_id(scene: Scene) -> str:
    """Content hash of ``scene``: ``"sha256:<64 hex>"``.

    Hashes the canonical JSON of the validated scene (``_CANONICAL``), so explicit defaults
    and key order do not change the id. Depends only on the scene's values, never on how it
    was decoded (``msgspec`` fast path or marshmallow).
    """
    value = ["sightline-scene", 3, scene]
    try:
        canonical = _CANONICAL.encode(value)
    except UnicodeEncodeError:  # a lone surrogate ("\ud800"), which JSON text may escape
        canonical = json.dumps(msgspec.to_builtins(value), separators=(",", ":")).encode()
    return "sha256:" + hashlib.sha256(canonical).hexdigest()


#: Bytes a cached scene holds, per item. Measured as the growth of a process's
#: resident memory per cached scene (five scenes of each kind, each built and asked one
#: exact line): the model objects, the built index and what the first queries add to it.
#: A wall: its ``model.Wall`` (~270), index arrays, shapely line and tree node (~430), the
#: kernel's wall grid and the obstacle labels and closed rooms kept in ``WallIndex.memo``.
BYTES_PER_WALL = 1200
#: An edge of a heavy-fog outline: a pseudo-wall of the sight index (~830, its own
#: ``model.Wall``, line and tree node) and the wall grid's share (~110).
BYTES_PER_OUTLINE_EDGE = 950
#: A region outline point: its tuple in the model (~120) and in the region's shapely shape.
BYTES_PER_REGION_POINT = 150
#: A token (model, space, span, sharing) and a light (model).
BYTES_PER_TOKEN = 1000
BYTES_PER_LIGHT = 500
#: Points of a rect or circle region's shape (circles are 64-gons).
CIRCLE_POINTS = 65
#: Each scene: the cost model's wall density grids (``engine.density``) and the dicts.
BYTES_PER_SCENE = 200_000


def scene_bytes(scene: Scene) -> int:
    """Estimated memory of ``scene`` once built and cached, in bytes, before it is built.

    Counts every part a ``BuiltScene`` holds: the walls with their index and
    kernel grid, the heavy-fog outlines as sight pseudo-walls, the regions' points in the
    model and in their shapes, tokens and lights (``BYTES_PER_*``). O(regions).
    """
    points = [len(r.shape.points) or CIRCLE_POINTS for r in scene.regions]
    outline = sum(p for p, r in zip(points, scene.regions, strict=True) if r.obscurement == "heavy")
    return (
        BYTES_PER_SCENE
        + BYTES_PER_WALL * len(scene.walls)
        + BYTES_PER_OUTLINE_EDGE * outline
        + BYTES_PER_TOKEN * len(scene.tokens)
        + BYTES_PER_LIGHT * len(scene.lights)
        + BYTES_PER_REGION_POINT * sum(points)
    )


def approx_bytes(geo: BuiltScene) -> int:
    """Estimated memory of one cached scene (for the cache's memory bound), in bytes.

    ``scene_bytes`` of its scene, with the outline edges the sight index really holds
    (identical edges are indexed once) instead of the regions' point counts.
    """
    scene = geo.scene
    heavy = sum(
        len(r.shape.points) or CIRCLE_POINTS for r in scene.regions if r.obscurement == "heavy"
    )
    outline = 0 if geo.sight_walls is None else geo.sight_walls.size - geo.walls.size
    return scene_bytes(scene) + BYTES_PER_OUTLINE_EDGE * (outline - heavy)


class SceneCache:
    """Thread-safe LRU of ``BuiltScene`` by scene id, with named aliases.

    Parameters
    ----------
    max_scenes : int
        Scenes kept; the least recently used is dropped first.
    max_bytes : int
        Estimated memory kept (``approx_bytes``); past it the least recently used go too.
        A scene not cached yet makes room for itself (``scene_bytes``) before it is built,
        so the cached scenes and the one being built stay within it (the newest scene is
        kept even when it alone passes it).
    store : SharedSceneStore, optional
        Scenes shared with other processes (Redis, or an SQLite file): built scenes are
        stored there, and a local miss by id is loaded from there. Aliased scenes stay local.
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
        self._items: OrderedDict[str, BuiltScene] = OrderedDict()
        self._aliases: dict[str, str] = {}
        self._pinned: set[str] = set()
        self._lock = threading.Lock()

    def put(
        self, scene: Scene, *, alias: str | None = None, publish: bool | None = None
    ) -> tuple[str, BuiltScene]:
        """Build (or reuse) the geometry of ``scene``; return its id and geometry.

        ``publish`` (with a store, never for an alias): ``True`` stores the scene even when
        this process holds it already (an upload), ``False`` never (it came from the store),
        ``None`` when it was built here.
        """
        sid = scene_id(scene)
        with self._lock:
            geo = self._items.get(sid)
            if geo is not None:
                self._items.move_to_end(sid)
        if geo is None:
            # Room first, for what the new scene will hold: the old scenes and the new one
            # are never in memory together past the bound.
            with self._lock:
                self._evict(scene_bytes(scene), None)
            geo = build_scene(scene)
            publish = publish is not False
        if publish and alias is None and self.store is not None:
            self.store.put(sid, scene)
        with self._lock:
            self._items[sid] = geo
            self._bytes[sid] = approx_bytes(geo)
            self._items.move_to_end(sid)
            if alias is not None:
                self._aliases[alias] = sid
                self._pinned.add(sid)
            self._evict(0, sid)
        return sid, geo

    def _evict(self, room: int, keep: str | None) -> None:
        """Drop least recently used scenes (never pinned ones nor ``keep``).

        Until the cache holds at most ``max_scenes`` (one fewer with ``room``) and ``room``
        more bytes fit under ``max_bytes``. Called with the lock held.
        """
        spare = 1 if room else 0
        while len(self._items) + spare > self.max_scenes or (
            sum(self._bytes.values()) + room > self.max_bytes and len(self._items) > 1 - spare
        ):
            oldest = next((k for k in self._items if k not in self._pinned and k != keep), None)
            if oldest is None:
                break
            del self._items[oldest]
            del self._bytes[oldest]

    def get(self, sid: str) -> BuiltScene:
        """The geometry cached under id or alias ``sid``.

        A local miss loads the scene from the store, when there is one, and builds it.

        Raises
        ------
        SceneNotFound
            When neither this process nor the store holds it, or the store cannot be
            reached in time (the client resends the scene); the message says why it can
            happen (:meth:`_not_found`).
        """
        with self._lock:
            key = self._aliases.get(sid, sid)
            geo = self._items.get(key)
            if geo is not None:
                self._items.move_to_end(key)
                return geo
        if self.store is not None and key.startswith("sha256:"):
            scene = self.store.get(key)
            if scene is not None:
                found, geo = self.put(scene, publish=False)
                if found == key:
                    return geo
                self.store.delete(key)  # bytes under another scene's id: not this scene
        raise self._not_found(sid)

    def _not_found(self, sid: str) -> SceneNotFound:
        """The 404 for ``sid``, saying why an id once answered can be unknown here."""
        if not sid.startswith("sha256:"):
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
                f"nor does the scene store ({BACKEND_SETTINGS[self.store.backend]}): it "
                "expired (SIGHTLINE_SCENE_TTL seconds unused), was dropped to keep the store "
                "within its bounds, or the store did not answer"
            )
        return SceneNotFound(
            f"Scene {shown(sid, 90)} is not cached here: {why}. Send the scene itself (inline "
            "'scene', or POST /v1/scenes) and use the scene_id it answers.",
            ("scene_id",),
        )

    def __len__(self) -> int:
        return len(self._items)
