"""Pure standard-library translators from foreign scene exports to the canonical scene dict.

Each adapter module exposes ``to_scene(export, ...) -> dict`` returning
``{"scene": <canonical scene dict>, "stats": {...}, "warnings": [str, ...]}``.
The canonical scene is described in ``shared/DESIGN.md`` and validated by
``schemas.scene.SceneSchema``. Adapters never import Flask, marshmallow or shapely.
Helpers they share (number reading, collection walking, unique ids, canonical walls)
live in ``adapters._common``.
"""
