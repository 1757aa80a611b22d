"""Where a peer's dnd5e cover matrix differs from Sightline's, and why (issue 20).

``differences`` lists the ordered pairs whose degrees differ. ``classify`` explains a sample
of them: it asks Sightline for those pairs in detail (``rules.ask.cover_all``: each corner
line with the walls and creatures blocking it, the line of effect, the rules applied) and
compares line by line with how the peers' line meets the walls (``numpy_floor.contacts``):

- ``free wall tip (GEO-6)``: the peers count a line that touches a wall's end where no other
  wall that blocks ends (GEO-6: a free tip does not block);
- ``free wall tip beside an open door (GEO-2, GEO-6)``: the same at a door jamb whose door is
  open, so the tip is free;
- ``junction (GEO-6)``: a line through a point where two or more blocking walls end, whose
  walls do not separate the line's incoming side from its outgoing side;
- ``edge-on (GEO-6)``: a line run along a wall;
- ``line end on a wall (GEO-6)``: a line whose own end lies on a wall;
- ``wall ending on a token's own corner (GEO-6 corner sentence)``: the inset line crosses,
  near its end, a wall whose end lies on the exact corner of the attacker's or the target's
  space (a token flush against a wall or door jamb); Sightline judges such a wall by the
  exact corner line, which only touches it at its own end;
- ``creature cover (GEO-7, 5E-COV-6)``: Sightline's half cover from creatures on the lines,
  which the peers do not trace;
- ``no line of effect (5E-COV-3, 5E-LOE-2)``: Sightline's total where no straight path
  joins the spaces at all although some corner line is clear;
- anything else is named ``unexplained: ...`` with what was seen.

A pair's reason is the ``+``-joined set of what its lines show.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np

from bench.peers.corners import blocking_walls, blocks_movement, inset_corners, token_boxes
from bench.peers.numpy_floor import contacts
from service import rules
from service.engine.scene import BuiltScene
from service.rules.ask import cover_all
from service.rules.base import Attack


def differences(sightline: list[list[Any]], peer: list[list[Any]]) -> list[tuple[int, int]]:
    """``(attacker, target)`` indices of the pairs whose degrees differ."""
    return [
        (a, t)
        for a, row in enumerate(sightline)
        for t, value in enumerate(row)
        if a != t and value != peer[a][t]
    ]


def shifts(
    sightline: list[list[Any]], peer: list[list[Any]], pairs: list[tuple[int, int]]
) -> dict[str, int]:
    """``"Sightline -> peer"`` degree changes and their counts, most frequent first."""
    counted = Counter(f"{sightline[a][t]} -> {peer[a][t]}" for a, t in pairs)
    return dict(counted.most_common())


def _endpoint_counts(walls: list[dict[str, Any]]) -> Counter[tuple[float, float]]:
    out: Counter[tuple[float, float]] = Counter()
    for w in walls:
        c = w["c"]
        out[(float(c[0]), float(c[1]))] += 1
        out[(float(c[2]), float(c[3]))] += 1
    return out


def _tip_on_line(seg: np.ndarray, wall: np.ndarray) -> tuple[float, float]:
    """The end of ``wall`` that lies on ``seg`` (a ``"wall tip"`` contact)."""
    x0, y0, x1, y1 = seg.tolist()
    for px, py in (wall[:2].tolist(), wall[2:].tolist()):
        if (x1 - x0) * (py - y0) - (y1 - y0) * (px - x0) == 0:
            return (px, py)
    raise AssertionError("no wall end on the line")


def classify(
    scene: dict[str, Any],
    built: BuiltScene,
    sightline: list[list[Any]],
    pairs: list[tuple[int, int]],
) -> list[str]:
    """The reason (see the module docstring) of each pair, in order; Sightline in detail.

    ``sightline`` is Sightline's matrix (checked against its detailed answers).
    """
    if not pairs:
        return []
    tokens = built.scene.tokens
    results = cover_all(
        rules.get("dnd5e"),
        built,
        [(tokens[a], tokens[t]) for a, t in pairs],
        Attack(),
        {},
    )
    kept = [w for w in scene["walls"] if blocks_movement(w)]
    walls = blocking_walls(scene)
    ends_kept = _endpoint_counts(kept)
    ends_all = _endpoint_counts(scene["walls"])
    _, boxes = token_boxes(scene)
    corners = inset_corners(boxes)
    box_corners = inset_corners(boxes, 0.0)
    out = []
    for (a, t), result in zip(pairs, results, strict=True):
        why: set[str] = set()
        if result.cover != sightline[a][t]:
            why.add(f"unexplained: detail {result.cover} != matrix {sightline[a][t]}")
        segments = np.concatenate([corners[a], corners[t]], axis=1)
        sl_walls = 0
        peer_walls = 0
        for k, line in enumerate(result.lines):
            seg = segments[k]
            if (line.start, line.end) != ((seg[0], seg[1]), (seg[2], seg[3])):
                why.add("unexplained: Sightline traced another line")
            met = contacts(seg, walls)
            sl_wall = any(b.kind == "wall" for b in line.blockers)
            sl_walls += sl_wall
            peer_walls += bool(met)
            if met and not sl_wall:
                own = {tuple(p) for p in box_corners[[a, t]].reshape(-1, 2).tolist()}
                why |= _touch_reasons(seg, walls, met, ends_kept, ends_all, own)
            elif sl_wall and not met:
                why.add("unexplained: Sightline's line blocked by a wall, the peers' clear")
        if "5E-COV-6" in result.rules:
            why.add("creature cover (GEO-7, 5E-COV-6)")
        if result.cover == "total" and not result.line_of_effect and sl_walls < 4:
            why.add("no line of effect (5E-COV-3, 5E-LOE-2)")
        if not why:
            why.add(f"unexplained: {sl_walls} vs {peer_walls} lines blocked by walls")
        out.append(" + ".join(sorted(why)))
    return out


def _touch_reasons(
    seg: np.ndarray,
    walls: np.ndarray,
    met: list[tuple[int, str]],
    ends_kept: Counter[tuple[float, float]],
    ends_all: Counter[tuple[float, float]],
    own_corners: set[tuple[float, float]],
) -> set[str]:
    """Why Sightline clears a line the peers count as blocked (``own_corners``: the exact
    corners of the pair's two spaces)."""
    why = set()
    for j, kind in met:
        if kind == "crossing":
            ends = {tuple(walls[j, :2].tolist()), tuple(walls[j, 2:].tolist())}
            if ends & own_corners:
                why.add("wall ending on a token's own corner (GEO-6 corner sentence)")
            else:
                why.add("unexplained: the peers' line crosses a wall's interior, Sightline's clear")
        elif kind == "edge-on":
            why.add("edge-on (GEO-6)")
        elif kind == "line end":
            why.add("line end on a wall (GEO-6)")
        else:
            tip = _tip_on_line(seg, walls[j])
            if ends_kept[tip] >= 2:
                why.add("junction (GEO-6)")
            elif ends_all[tip] >= 2:
                why.add("free wall tip beside an open door (GEO-2, GEO-6)")
            else:
                why.add("free wall tip (GEO-6)")
    return why


def sample_pairs(pairs: list[tuple[int, int]], size: int, seed: int = 20) -> list[tuple[int, int]]:
    """At most ``size`` of ``pairs``, drawn with a fixed seed (the same draw every run)."""
    return random.Random(seed).sample(pairs, min(size, len(pairs)))


def summary(
    sightline: list[list[Any]],
    peer: list[list[Any]],
    reasons: dict[tuple[int, int], str],
    sample: int,
) -> dict[str, Any]:
    """Pairs differing, their degree shifts, and the reasons counted over ``sample_pairs``.

    ``reasons`` must hold every pair of the sample (``classify``).
    """
    diff = differences(sightline, peer)
    chosen = sample_pairs(diff, sample)
    counted = Counter(reasons[p] for p in chosen)
    n = len(sightline)
    return {
        "pairs": n * (n - 1),
        "differ": len(diff),
        "shifts": shifts(sightline, peer, diff),
        "sampled": len(chosen),
        "reasons": dict(counted.most_common()),
    }
