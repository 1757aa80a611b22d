"""Named tolerances of the geometry, in the unit each says (px or grid units)."""

from __future__ import annotations

#: Distance in px under which a point counts as lying on a line (float noise only; scene
#: coordinates are normally whole or half pixels, for which the arithmetic is exact).
ON_LINE_TOL_PX = 1e-7

#: Search radius in px around a traced segment for candidate walls (above ON_LINE_TOL_PX).
QUERY_TOL_PX = 1e-6

#: Lengths and coordinates nearer 0 than this (px) are 0 in the shapes of floors and regions:
#: a point moves by less than the tracer tells apart, and GEOS divides by zero on subnormal
#: numbers (a fuzzed floor outline; a circle region of radius 1e-323 px buffered to NaN).
TINY_PX = 1e-9

#: Default inset of traced corner points toward the square's centre, in px (GEO-6).
DEFAULT_CORNER_INSET_PX = 0.5

#: Squares counted between two spaces: a gap this much (in squares) over a whole number is
#: float noise, not one more square (GEO-8).
SQUARE_COUNT_TOL = 1e-9

#: Slack on the chord parameters of the exact line-of-effect search (dimensionless).
CHORD_TOL = 1e-9

#: Relative slack of a cross product (to the product of the two lengths) under which two
#: directions count as collinear at a wall vertex (exact line-of-effect search).
SIDE_TOL_REL = 1e-9

#: Dead band (px) of the compiled look-ups' loose filters (``geometry.walk``,
#: ``geometry.creature_tests``): wider than the exact tests' ``ON_LINE_TOL_PX``, so float
#: differences between their arithmetic and the exact tests' cannot drop a pair that the
#: exact tests would keep (a wider band only keeps more pairs for them to decide).
TOUCH_TOL_PX = 10 * ON_LINE_TOL_PX
