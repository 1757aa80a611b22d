"""A scene's content id, made of per-collection digests so a change rehashes what changed.

A scene's id is ``"sha256:" + hex`` of one small JSON document: the scene's plain fields
(grid, environment, size) as canonical JSON, and, for each collection (walls, tokens, lights,
regions: every tuple field of ``model.Scene``), its item count and the SHA-256 of the digests
of its chunks. A chunk is :data:`CHUNK` consecutive items, hashed as the canonical JSON of their
list (``msgspec``: Struct fields in declaration order, walls without their defaults), so the
same scene gets the same id in every worker and replica, whatever path decoded it.

A change (``service.engine.live``) rehashes only the chunks holding changed items (and,
after a removal, the chunks behind it, whose items moved): a door of a 20,000-wall scene
rehashes 64 walls and 313 chunk digests, not 20,000 walls (``docs/decisions.md`` "Live
scenes").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from service.model import Scene

#: Items per hashed chunk of a collection: small enough that a change rehashes little,
#: large enough that a whole scene costs one encoding pass (313 chunks for 20,000 walls).
CHUNK = 64
#: Version of the id's layout (a new layout changes every id, consistently).
LAYOUT = ("sightline-scene", 4)

_CANONICAL = msgspec.json.Encoder()
#: The tuple fields of ``Scene``, in declaration order: the collections hashed by chunks.
COLLECTIONS: tuple[str, ...] = tuple(
    f.name for f in msgspec.structs.fields(Scene) if getattr(f.type, "__origin__", None) is tuple
)
_PLAIN: tuple[str, ...] = tuple(
    f.name for f in msgspec.structs.fields(Scene) if f.name not in COLLECTIONS
)


def canonical(value: Any) -> bytes:
    """The canonical JSON of ``value`` (model Structs, tuples, plain values).

    msgspec in C; a string holding a lone surrogate (an unpaired UTF-16 half), which UTF-8 cannot
    carry, is written by ``json`` from msgspec's builtins instead (JSON escapes it).
    """
    try:
        return _CANONICAL.encode(value)
    except UnicodeEncodeError:
        return json.dumps(msgspec.to_builtins(value), separators=(",", ":")).encode()


def _chunk(items: tuple[Any, ...], k: int) -> bytes:
    """SHA-256 of chunk ``k`` of ``items`` (its canonical JSON list). O(CHUNK)."""
    return hashlib.sha256(canonical(items[k * CHUNK : (k + 1) * CHUNK])).digest()


@dataclass(frozen=True)
class SceneDigest:
    """A scene's id and the chunk digests it is made of, to rehash a changed scene.

    Attributes
    ----------
    id : str
        ``"sha256:<64 hex>"``.
    plain : bytes
        Canonical JSON of the plain (non-collection) fields.
    chunks : dict of str to tuple of bytes
        Per collection, the 32-byte digest of each chunk of :data:`CHUNK` items.
    """

    id: str
    plain: bytes
    chunks: dict[str, tuple[bytes, ...]]

    def collection(self, name: str) -> str:
        """The hex digest of collection ``name`` alone (the walls' key of shared builds)."""
        return hashlib.sha256(b"".join(self.chunks[name])).hexdigest()


def _assemble(plain: bytes, counts: Mapping[str, int], chunks: dict[str, tuple[bytes, ...]]) -> str:
    """The id of a scene from its plain fields' JSON and its collections' chunk digests."""
    parts = [
        [name, counts[name], hashlib.sha256(b"".join(chunks[name])).hexdigest()]
        for name in COLLECTIONS
    ]
    head = canonical([*LAYOUT, msgspec.Raw(plain), parts])
    return "sha256:" + hashlib.sha256(head).hexdigest()


def _plain_json(scene: Scene) -> bytes:
    return canonical([getattr(scene, name) for name in _PLAIN])


def scene_digest(scene: Scene) -> SceneDigest:
    """The ``SceneDigest`` of ``scene``: every chunk hashed. O(scene), one encoding pass."""
    chunks = {}
    for name in COLLECTIONS:
        items = getattr(scene, name)
        chunks[name] = tuple(_chunk(items, k) for k in range(-(-len(items) // CHUNK)))
    plain = _plain_json(scene)
    counts = {name: len(getattr(scene, name)) for name in COLLECTIONS}
    return SceneDigest(_assemble(plain, counts, chunks), plain, chunks)


def scene_id(scene: Scene) -> str:
    """Content hash of ``scene``: ``"sha256:<64 hex>"`` (``scene_digest``).

    Depends only on the scene's values, never on how it was decoded (``msgspec`` fast path
    or marshmallow): explicit defaults and key order do not change it.
    """
    return scene_digest(scene).id


def rehashed(
    old: SceneDigest, scene: Scene, touched: Mapping[str, Iterable[int]], plain: bool
) -> SceneDigest:
    """The ``SceneDigest`` of ``scene``, a changed version of the scene ``old`` digests.

    ``touched``: per collection, the positions in ``scene`` whose items are new or changed
    (after a removal, every position from the first removed one on). ``plain``: whether a
    plain field (environment) changed. Cost: the chunks holding touched positions, the
    chunks past the old length, and one hash of each collection's chunk digests (32 bytes
    each); untouched collections cost nothing.
    """
    chunks = dict(old.chunks)
    for name, positions in touched.items():
        items = getattr(scene, name)
        count = -(-len(items) // CHUNK)
        before = old.chunks[name][:count]
        redo = {p // CHUNK for p in positions} | set(range(len(before), count))
        if len(items) % CHUNK:
            redo.add(count - 1)  # the last chunk may have lost or gained items
        chunks[name] = tuple(_chunk(items, k) if k in redo else before[k] for k in range(count))
    head = _plain_json(scene) if plain else old.plain
    counts = {name: len(getattr(scene, name)) for name in COLLECTIONS}
    return SceneDigest(_assemble(head, counts, chunks), head, chunks)
