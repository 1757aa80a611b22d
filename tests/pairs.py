"""Hand-made ``Pairs`` for the measurement's properties: one dict per pair, stacked.

The product plans pairs from tokens (``service.rules.planning``); these tests ask about
arbitrary points, so they stack per-pair points, excluded creatures and wall masks into one
batch the way ``plan_pairs`` does (padded points, a table of wall choices).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from service.geometry.questions import Pairs, WallChoice
from service.rules.planning import WallChoices


def _padded(points: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    most = max(len(p) for p in points)
    out = np.full((len(points), most, 2), np.nan)
    for i, p in enumerate(points):
        out[i, : len(p)] = p
    return out, np.array([len(p) for p in points], dtype=np.intp)


def stacked(questions: Sequence[dict[str, Any]], token_ids: Sequence[str]) -> Pairs:
    """One ``Pairs`` of ``questions``.

    Each: ``sources`` (s, 2), ``targets`` (t, 2), ``pairing`` (the same for all),
    ``elevations`` (2,), ``inner_source`` / ``inner_target`` boxes, optional ``excluded``
    (creature ids) and ``wall_mask``.
    """
    sources, n_s = _padded([np.asarray(q["sources"], dtype=np.float64) for q in questions])
    targets, n_t = _padded([np.asarray(q["targets"], dtype=np.float64) for q in questions])
    (pairing,) = {q["pairing"] for q in questions}
    walls = WallChoices.of([WallChoice(q.get("wall_mask")) for q in questions])
    return Pairs(
        sources,
        targets,
        pairing,
        np.array([q["elevations"] for q in questions], dtype=np.float64),
        None,
        np.array([q["inner_source"] for q in questions], dtype=np.float64),
        np.array([q["inner_target"] for q in questions], dtype=np.float64),
        np.full((len(questions), 2), -1, dtype=np.intp),
        list(token_ids),
        {r: frozenset(q.get("excluded", ())) for r, q in enumerate(questions)},
        n_sources=n_s,
        n_targets=n_t,
        walls=walls.walls,
        wall_choice=walls.choice,
    )
