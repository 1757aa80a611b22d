"""Write ``foundry/data/bounds.json``: the bounds and Foundry enums of the module's scenes.

It also holds each ruleset's cover degrees and their bonuses (``cover``: the rule modules'
``DEGREES`` and ``BONUS`` tables), which the module reads when the GM overrides the degree
the service answered (foundry/scripts/override.js).

The module builds the canonical scene in the browser (``foundry/scripts/scene.js``); the
service checks it against ``service.model`` and imports Foundry exports with
``adapters.foundry``. This file copies both sources' numbers into one data file the module
reads, so the module and the importer cannot drift apart (a scene at ``grid.distance`` 0.005
answered differently when the module bounded it at 0.01 and the model at 0.001).

Usage (from the repository root)::

    python foundry/tools/bounds.py          # write foundry/data/bounds.json
    python foundry/tools/bounds.py --check  # exit 1 when the file is not current
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from adapters.foundry import grid, walls
from service import model
from service.rules.dnd5e import cover as dnd5e
from service.rules.pf2e import cover as pf2e
from service.rules.pf2e_variant import cover as pf2e_variant
from service.rules.starfinder import cover as starfinder

OUT = Path(__file__).resolve().parent.parent / "data" / "bounds.json"

#: service.model bounds, by the name the model gives them.
MODEL_BOUNDS = (
    "MAX_COORD_PX",
    "MAX_EXTENT_PX",
    "MAX_UNITS",
    "MIN_GRID_DISTANCE",
    "MIN_GRID_SIZE_PX",
    "MAX_GRID_SIZE_PX",
    "MIN_SQUARES",
    "MAX_SQUARES",
    "MAX_GRAVITY",
    "MAX_POLYGON_POINTS",
)


def _keys(table: dict[int, str]) -> dict[str, str]:
    return {str(k): v for k, v in sorted(table.items())}


def _degree(degree: str, ac: int | None, save: int | None, levels: int = 0) -> dict[str, Any]:
    return {
        "cover": degree,
        "ac_bonus": ac,
        "save_bonus": save,
        "advantage_levels": levels,
        "can_target": ac is not None,
    }


def cover_tables() -> dict[str, list[dict[str, Any]]]:
    """Each ruleset's cover degrees, weakest first, as a cover result gives them.

    Returns
    -------
    dict
        ruleset id -> ``[{cover, ac_bonus, save_bonus, advantage_levels, can_target}]``;
        bonuses ``None`` under total cover (5E-COV-5, SF-COV-2, PF2-COV-1, PV-COV-1).
        dnd2024 takes dnd5e's tables (``service.rules.dnd2024.cover``).
    """
    dnd = [_degree(d, dnd5e.BONUS[d], dnd5e.BONUS[d]) for d in dnd5e.DEGREES]
    pf2 = [_degree(d, *(pf2e.BONUS[d] or (None, None))[:2]) for d in pf2e.DEGREES]
    sf = [_degree(d, *starfinder.BONUS[d]) for d in starfinder.DEGREES]
    levels = pf2e_variant.ADVANTAGE_LEVELS
    pv = [
        _degree(d, 0, 0, levels[d]) if d in levels else _degree(d, None, None)
        for d in pf2e_variant.DEGREES
    ]
    return {"dnd5e": dnd, "dnd2024": dnd, "pf2e": pf2, "pf2e-variant": pv, "starfinder": sf}


def bounds() -> dict[str, Any]:
    """The data file's content.

    ``model`` bounds, the Foundry ``enums`` of the importer, the rulesets' ``cover`` degrees
    (:func:`cover_tables`).
    """
    return {
        "source": "service/model.py, adapters/foundry, service/rules/*/cover.py"
        " (foundry/tools/bounds.py)",
        "cover": cover_tables(),
        "model": {name: getattr(model, name) for name in MODEL_BOUNDS},
        "enums": {
            "wallSenseTypes": _keys(walls._SENSE_TYPES),
            "wallDirections": _keys(walls._DIRECTIONS),
            "doorTypes": _keys(walls._DOOR_TYPES),
            "doorStates": _keys(walls._DOOR_STATES),
            "gridTypes": _keys(grid.GRID_TYPES),
            "hexOffsets": _keys(grid.HEX_OFFSETS),
        },
    }


def text() -> str:
    """The data file as written: :func:`bounds` as sorted, indented JSON."""
    return json.dumps(bounds(), indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    """Write the file, or with ``--check`` return 1 when it is not current."""
    if "--check" in argv:
        current = OUT.read_text("utf-8") if OUT.exists() else ""
        if current != text():
            print(f"{OUT} is not current: run python foundry/tools/bounds.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text(), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
