"""System-neutral geometry: which traced segments are blocked, and by which walls or creatures.

Pure numpy/shapely; no Flask, no rules. Frames: scene pixels, y down; elevations, heights and
thresholds in grid units. The rule systems (``service.rules``) turn these measurements into
degrees of cover. Modules: ``trace`` (many segments at once), ``junctions`` (GEO-6 where
walls meet), ``exact`` (exact line of effect between two spaces), ``rooms`` (spaces sealed
apart), ``sampling`` (points rulesets trace between), ``measure`` (the one measurement every
ruleset uses).

The crossing rule is GEO-6 of ``shared/RULES.md``: a segment is blocked by a wall when it
crosses the wall's interior; touching at the segment's own end point, meeting a wall's free
tip, or running along a wall (collinear) does not block. Where walls meet at a point that the
segment passes through, the segment is blocked when the walls meeting there lie on both sides
of it (they separate its incoming side from its outgoing side), so splitting a wall into
pieces or reordering walls never changes an answer.

References
----------
shared/RULES.md GEO-1 .. GEO-7, 5E-LOE-2; shared/DESIGN.md "Principles" 5.
"""
