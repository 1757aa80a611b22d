"""The compiled measurement or its numpy oracle (``tests/reference``), for a block of a test."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from service.engine.walls import WallIndex
from service.geometry.trace import Creatures, TraceResult, TraceSpec, trace
from tests.reference.trace import reference_paths


@contextmanager
def kernel_mode(mode: str) -> Iterator[None]:
    """``"numpy"``: the oracle's steps in place of the compiled ones; ``"kernel"``: as is."""
    assert mode in ("numpy", "kernel"), mode
    with reference_paths() if mode == "numpy" else nullcontext():
        yield


#: ``trace``'s ``TraceSpec`` fields, and its ``Creatures`` fields by their keyword here.
SPEC_FIELDS = ("sense", "wall_mask", "low_obstacles", "edge_blocks", "with_blockers")
CREATURE_FIELDS = {
    "creature_boxes": "boxes",
    "creature_ids": "ids",
    "creature_mask": "mask",
    "creature_mask_rows": "mask_rows",
    "creature_spans": "spans",
    "creature_grid": "grid",
    "creatures_where_clear": "where_clear",
}


def traced(index: WallIndex, segments: Any, **kw: Any) -> TraceResult:
    """``trace`` with its spec's and creatures' fields among the keywords.

    The properties draw every argument of a trace together, as one dict.
    """
    spec = TraceSpec(**{k: kw.pop(k) for k in SPEC_FIELDS if k in kw})
    found = {CREATURE_FIELDS[k]: kw.pop(k) for k in list(CREATURE_FIELDS) if k in kw}
    creatures = Creatures(**found) if "boxes" in found else None
    return trace(index, segments, spec, creatures=creatures, **kw)
