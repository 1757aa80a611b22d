"""Region shapes as shapely geometries, and their outlines as segments."""

from __future__ import annotations

import numpy as np
import shapely

from service.engine.tolerances import TINY_PX
from service.model import Shape


def region_edges(region_id: str, geom: shapely.Geometry) -> list[tuple[float, float, float, float]]:
    """Boundary segments of a region polygon in px (exterior and holes), for pseudo-walls."""
    out = []
    polys = getattr(geom, "geoms", [geom])
    for poly in polys:
        if poly.is_empty or poly.geom_type != "Polygon":
            continue
        for ring in [poly.exterior, *poly.interiors]:
            xy = np.asarray(ring.coords)
            for k in range(len(xy) - 1):
                out.append(
                    (float(xy[k, 0]), float(xy[k, 1]), float(xy[k + 1, 0]), float(xy[k + 1, 1]))
                )
    return out


def region_geometry(shape: Shape) -> shapely.Geometry:
    """Shapely polygon of a region's ``Shape`` (circles as 64-gon buffers), in px."""
    if shape.type == "rect":
        return shapely.box(shape.x, shape.y, shape.x + shape.width, shape.y + shape.height)
    if shape.type == "circle":
        if shape.radius < TINY_PX:  # a circle of no size covers nothing (GEOS: NaN)
            return shapely.Polygon()
        return shapely.buffer(shapely.Point(shape.x, shape.y), shape.radius, quad_segs=16)
    polygon = shapely.polygons(np.asarray(shape.points, dtype=np.float64))
    # make_valid costs a quarter of a second on a 10,000-point outline: only when needed.
    return polygon if shapely.is_valid(polygon) else shapely.make_valid(polygon)
