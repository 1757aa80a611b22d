"""The bench's peers (issue 20): the dnd5e cover matrix done the plain way, to measure against.

- ``cover.mjs`` (with ``crossing.mjs``): the JavaScript peer, what a Foundry module does in the
  browser: a flatbush index of the walls, a box prefilter and an exact crossing test per line
  (node; ``npm ci --prefix bench/peers`` installs flatbush into ``bench/peers/node_modules``);
- ``shapely_peer``: every corner line of every pair in one ``STRtree.query``;
- ``numpy_floor``: every line against every wall, no index;
- ``corners``: what the Python peers share (walls, lines, the 5E-COV-5 table);
- ``agreement``: which pairs differ from Sightline's matrix, and why;
- ``python -m bench.peers`` (``__main__``): all of them and Sightline in one run.

All peers trace the same lines with the same closed-segment test, so they agree with one
another; they differ from Sightline where its rules go further (GEO-6's tips and junctions,
creatures, line of effect).
"""
