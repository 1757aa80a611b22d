"""A worker's follower: patched scenes built as other workers store them (live scenes).

Without Redis, the workers of one gunicorn share scenes through an SQLite file
(``service.local_store``); a change ``PATCH``ed on one worker reaches another only when a
request asks it for the new id, which then waits for the change to be applied (for a door,
the rooms around it joined or polygonized again). A :class:`Follower` thread in each
worker looks at the file for records stored since its last look, and builds each whose
parent the worker holds (``SceneCache.follow``): the next request finds the scene built
(``docs/decisions.md`` "Live scenes"). It looks as soon as another worker stores a record
(the writer stores it before building it, and rings the follower's bell,
``local_store.Bell``), so both workers build the change at once; and every
:data:`FOLLOW_S` seconds, for a ring that was lost. Started by the gunicorn worker
(``service.worker.Worker``), never in the master nor in tests' apps.

Cost: one indexed query per ring and per :data:`FOLLOW_S` (``SqliteSceneStore.patched_since``),
plus what the changes cost to apply, once per worker (as a request would pay it).
"""

from __future__ import annotations

import logging
import threading

from service.cache import SceneCache
from service.local_store import Bell, SqliteSceneStore

log = logging.getLogger(__name__)

#: Seconds between two looks at the scene file when its bell is not rung.
FOLLOW_S = 0.25


class Follower(threading.Thread):
    """A daemon thread building, in this process, the patched scenes other workers store.

    Parameters
    ----------
    cache : SceneCache
        This worker's cache, over ``store``.
    store : SqliteSceneStore
        The scene file the workers share.
    """

    def __init__(self, cache: SceneCache, store: SqliteSceneStore) -> None:
        super().__init__(name="sightline-follower", daemon=True)
        self.cache, self.store = cache, store
        self.stopped = threading.Event()
        self._bell: Bell | None = None
        # Where it starts, taken now: a change stored once this returns is seen.
        self.after = store.patched_since(None)[0]

    def run(self) -> None:
        """Wait for a ring (or :data:`FOLLOW_S`), look, build; until :attr:`stopped` is set.

        Never raises (logged); its bell is closed when it stops.
        """
        after = self.after
        bell = self._bell = self.store.bell()
        try:
            while not self.stopped.is_set():
                if bell is not None:
                    bell.wait(FOLLOW_S)
                elif self.stopped.wait(FOLLOW_S):
                    break
                try:
                    after, ids = self.store.patched_since(after)
                    while ids:  # a burst of changes: all of it, then wait again
                        for sid in ids:
                            self.cache.follow(sid)
                        after, ids = self.store.patched_since(after)
                except Exception:  # a follower must never take the worker down
                    log.exception("scene follower: a change could not be applied here")
        finally:
            if bell is not None:
                bell.close()

    def stop(self) -> None:
        """Tell the thread to stop; it does within a look (:meth:`join` waits for it)."""
        self.stopped.set()
        if self._bell is not None:
            self._bell.wake()


def start_follower(cache: SceneCache) -> Follower | None:
    """A started :class:`Follower` of ``cache``'s store, when it is a scene file; else ``None``."""
    if not isinstance(cache.store, SqliteSceneStore):
        return None
    follower = Follower(cache, cache.store)
    follower.start()
    return follower
