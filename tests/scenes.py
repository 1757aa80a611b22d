"""Canonical hand-made sample geometry reused by the tests (grid 100 px = 5 ft)."""

from __future__ import annotations

from typing import Any

from schemas.scene import SceneSchema
from service.model import Scene

GRID = {"size": 100, "distance": 5, "units": "ft", "type": "square"}


def tok(tid: str, x: float, y: float, w: float = 1, **kw: Any) -> dict[str, Any]:
    """A token dict at top-left (x, y) px, w squares wide and high."""
    return {"id": tid, "x": x, "y": y, "width": w, "height": w, **kw}


def wall(wid: str, x0: float, y0: float, x1: float, y1: float, **kw: Any) -> dict[str, Any]:
    """A wall dict from (x0, y0) to (x1, y1) px."""
    return {"id": wid, "c": [x0, y0, x1, y1], **kw}


def scene_dict(walls: list[dict] = (), tokens: list[dict] = (), **kw: Any) -> dict[str, Any]:  # type: ignore[assignment]
    """A canonical scene dict on GRID."""
    return {"grid": dict(GRID), "walls": list(walls), "tokens": list(tokens), **kw}


def load(walls: list[dict] = (), tokens: list[dict] = (), **kw: Any) -> Scene:  # type: ignore[assignment]
    """A validated ``Scene``."""
    return SceneSchema().load(scene_dict(walls, tokens, **kw))


# Attacker A at the top-left square, target T four squares east (the handed cases' layout).
A = tok("A", 0, 0)
T_EAST = tok("T", 400, 0)
T_SOUTHEAST = tok("T", 400, 200)
