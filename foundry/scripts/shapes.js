/**
 * Foundry region shapes (v12 to v14) as canonical region shapes and outlines, in canvas px.
 *
 * Every shape type of Foundry v14's `BaseShapeData.TYPES`: the v12/v13 `rectangle`,
 * `circle`, `ellipse` and `polygon`, and v14's `emanation`, `cone`, `ring`, `line`, `token`
 * and `grid`, with v14's anchored rectangles (`anchorX`/`anchorY`). Point for point the
 * outlines of the service's importer (adapters/foundry/shapes.py, FORMATS.md pitfall 15), so
 * that the module and `POST /v1/import/foundry` give the same regions and surfaces
 * (test/parity.test.mjs); the importer's docstrings say what is assumed where Foundry's
 * source does not say how it draws a shape. Pure functions over plain data.
 *
 * Angles: degrees, clockwise on screen (y down), 0 pointing right (+x), as Foundry's.
 */

import { clean, finite } from "./values.js";

/** Vertices of the polygon that stands for a non-circular ellipse region shape. */
export const ELLIPSE_VERTICES = 32;
/** Vertices per full turn of the arcs of circles, cones, rings and rounded emanations. */
export const ARC_VERTICES = 64;
/** `CONST.TOKEN_SHAPES` values that are ellipses (the others: rectangles, trapezoids). */
const TOKEN_ELLIPSES = new Set([0, 1]);

const RADIANS = Math.PI / 180;

/** The finite numbers of `keys` in `shape`, or null when one is missing. */
function numbers(shape, ...keys) {
  const values = keys.map((k) => finite(shape?.[k]));
  return values.includes(null) ? null : values;
}

const cleaned = (points) => points.map(([x, y]) => [clean(x), clean(y)]);

/** Offsets rotated clockwise on screen (y down) by `degrees` about (cx, cy), in px. */
export function rotated(offsets, cx, cy, degrees) {
  const theta = degrees * RADIANS;
  const cos = Math.cos(theta);
  const sin = Math.sin(theta);
  return offsets.map(([dx, dy]) => [clean(cx + dx * cos - dy * sin), clean(cy + dx * sin + dy * cos)]);
}

/** Points of a circular arc about (cx, cy) from `start` to `end` degrees, both ends kept. */
function arc(cx, cy, r, start, end) {
  const steps = Math.max(1, Math.ceil((Math.abs(end - start) / 360) * ARC_VERTICES));
  const out = [];
  for (let k = 0; k <= steps; k += 1) {
    const a = (start + ((end - start) * k) / steps) * RADIANS;
    out.push([cx + r * Math.cos(a), cy + r * Math.sin(a)]);
  }
  return out;
}

/** An ellipse as an `ELLIPSE_VERTICES`-gon (a circle as an `ARC_VERTICES`-gon). */
export function ellipse(cx, cy, rx, ry, rotation = 0) {
  const n = rx === ry ? ARC_VERTICES : ELLIPSE_VERTICES;
  const outline = [];
  for (let k = 0; k < n; k += 1) {
    const t = (2 * Math.PI * k) / n;
    outline.push([rx * Math.cos(t), ry * Math.sin(t)]);
  }
  return rotated(outline, cx, cy, rotation);
}

/**
 * A rectangle's box before its rotation: `{box: [x0, y0, width, height], rotation}`, or null
 * without numbers or a positive size. v14 (`anchorX`/`anchorY`): `(x, y)` is the anchor, at
 * the fraction `(anchorX, anchorY)` of the size from the top-left corner; v12/v13: `(x, y)`
 * is the top-left corner.
 */
export function rectangle(shape) {
  const found = numbers(shape, "x", "y", "width", "height");
  if (found === null || found[2] <= 0 || found[3] <= 0) return null;
  const [x, y, w, h] = found;
  const ax = finite(shape.anchorX) ?? 0;
  const ay = finite(shape.anchorY) ?? 0;
  return { box: [x - ax * w, y - ay * h, w, h], rotation: finite(shape.rotation) ?? 0 };
}

/** A rectangle's corners, rotated about its anchor (v14) or its centre (v12/v13). */
export function rectangleRing(shape) {
  const found = rectangle(shape);
  if (found === null) return null;
  const [x0, y0, w, h] = found.box;
  const anchored = "anchorX" in shape || "anchorY" in shape;
  const [px, py] = anchored ? [shape.x, shape.y] : [x0 + w / 2, y0 + h / 2];
  const corners = [[x0 - px, y0 - py], [x0 + w - px, y0 - py], [x0 + w - px, y0 + h - py], [x0 - px, y0 + h - py]];
  return rotated(corners, px, py, found.rotation);
}

/**
 * A cone from its origin `(x, y)`: `radius` px, `angle` wide, facing `rotation`; `curvature`
 * `round` (a sector), `flat` (a triangle whose far edge lies `radius` ahead) or `semicircle`.
 */
export function cone(shape) {
  const found = numbers(shape, "x", "y", "radius", "angle");
  if (found === null || found[2] <= 0 || !(found[3] > 0 && found[3] <= 360)) return null;
  const [x, y, r, angle] = found;
  const facing = finite(shape.rotation) ?? 0;
  const lo = facing - angle / 2;
  const hi = facing + angle / 2;
  const curvature = shape.curvature ?? "round";
  if (curvature === "flat" && angle < 180) {
    const far = r / Math.cos((angle / 2) * RADIANS);
    return cleaned([[x, y], ...arc(x, y, far, lo, lo), ...arc(x, y, far, hi, hi)]);
  }
  if (curvature === "semicircle" && angle < 180) {
    const [ax, ay] = arc(x, y, r, lo, lo)[0];
    const [bx, by] = arc(x, y, r, hi, hi)[0];
    const half = Math.hypot(bx - ax, by - ay) / 2;
    return cleaned([[x, y], ...arc((ax + bx) / 2, (ay + by) / 2, half, facing - 90, facing + 90)]);
  }
  if (angle >= 360) return ellipse(x, y, r, r);
  return cleaned([[x, y], ...arc(x, y, r, lo, hi)]);
}

/**
 * A ring about `(x, y)` from `radius - innerWidth` to `radius + outerWidth` px: two half
 * rings (simple polygons whose union is the annulus), or one disc without an inner radius.
 */
export function ring(shape) {
  const found = numbers(shape, "x", "y", "radius", "innerWidth", "outerWidth");
  if (found === null) return null;
  const [x, y, r, inner, outer] = found;
  const rIn = Math.max(0, r - inner);
  const rOut = r + outer;
  if (rOut <= rIn) return null;
  if (rIn === 0) return [ellipse(x, y, rOut, rOut)];
  return [0, 180].map((start) => cleaned([...arc(x, y, rOut, start, start + 180), ...arc(x, y, rIn, start + 180, start)]));
}

/** A line from its origin `(x, y)`, `length` px along `rotation`, `width` across. */
export function line(shape) {
  const found = numbers(shape, "x", "y", "length", "width");
  if (found === null || found[2] <= 0 || found[3] <= 0) return null;
  const [x, y, length, width] = found;
  const half = width / 2;
  return rotated([[0, -half], [length, -half], [length, half], [0, half]], x, y, finite(shape.rotation) ?? 0);
}

/** A token shape's box `[x0, y0, x1, y1]` px: `width`/`height` in grid spaces of `cellPx`. */
function tokenBox(shape, cellPx) {
  const found = numbers(shape, "x", "y", "width", "height");
  if (found === null || found[2] <= 0 || found[3] <= 0) return null;
  const [x, y, w, h] = found;
  return [x, y, x + w * cellPx, y + h * cellPx];
}

/** A token shape: the ellipse inside its box (`TOKEN_ELLIPSES`), else the box. */
export function token(shape, cellPx) {
  const box = tokenBox(shape, cellPx);
  if (box === null) return null;
  const [x0, y0, x1, y1] = box;
  if (TOKEN_ELLIPSES.has(shape.shape)) return ellipse((x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2);
  return cleaned([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]);
}

/**
 * The box `[x0, y0, x1, y1]` grown by `r` px with quarter-circle corners.
 *
 * @param {number[]} box  `[x0, y0, x1, y1]` px
 * @param {number} r      px
 */
function roundedBox([x0, y0, x1, y1], r) {
  if (r === 0) return cleaned([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]);
  return cleaned([...arc(x1, y1, r, 0, 90), ...arc(x0, y1, r, 90, 180), ...arc(x0, y0, r, 180, 270), ...arc(x1, y0, r, 270, 360)]);
}

/**
 * An ellipse's outline `(cx, cy, rx, ry, rotation)` moved `r` px outward along its normals.
 *
 * @param {number[]} oval  `[cx, cy, rx, ry, rotation]` (px, degrees)
 * @param {number} r       px
 */
function offsetEllipse([cx, cy, rx, ry, rotation], r) {
  const offsets = [];
  for (let k = 0; k < ARC_VERTICES; k += 1) {
    const t = (2 * Math.PI * k) / ARC_VERTICES;
    const nx = ry * Math.cos(t);
    const ny = rx * Math.sin(t);
    const norm = Math.hypot(nx, ny) || 1;
    offsets.push([rx * Math.cos(t) + (r * nx) / norm, ry * Math.sin(t) + (r * ny) / norm]);
  }
  return rotated(offsets, cx, cy, rotation);
}

/** An emanation: its `base` (token, unrotated rectangle, circle, ellipse) grown by `radius` px. */
export function emanation(shape, cellPx) {
  const base = shape.base;
  const r = finite(shape.radius);
  if (!base || typeof base !== "object" || r === null || r < 0) return null;
  if (base.type === "token" || base.type === "rectangle") {
    let box = null;
    if (base.type === "token") {
      box = tokenBox(base, cellPx);
      if (box !== null && TOKEN_ELLIPSES.has(base.shape)) {
        const [x0, y0, x1, y1] = box;
        return offsetEllipse([(x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2, 0], r);
      }
    } else {
      const placed = rectangle(base);
      if (placed !== null && placed.rotation % 360 === 0) {
        const [bx, by, bw, bh] = placed.box;
        box = [bx, by, bx + bw, by + bh];
      }
    }
    return box === null ? null : roundedBox(box, r);
  }
  if (base.type === "circle") {
    const disc = numbers(base, "x", "y", "radius");
    return disc === null ? null : ellipse(disc[0], disc[1], disc[2] + r, disc[2] + r);
  }
  if (base.type === "ellipse") {
    const oval = numbers(base, "x", "y", "radiusX", "radiusY");
    return oval === null ? null : offsetEllipse([...oval, finite(base.rotation) ?? 0], r);
  }
  return null;
}

/**
 * A grid shape's squares (`offsets`: `{i, j}` row and column, or a flat `[i0, j0, …]` list)
 * as boxes `[x, y, width, height]` px, the runs of a row joined; null when unreadable.
 */
export function gridCells(shape, cellPx) {
  const raw = shape.offsets;
  if (!Array.isArray(raw)) return null;
  const cells = [];
  if (raw.every((o) => o && typeof o === "object" && !Array.isArray(o))) {
    for (const o of raw) {
      const i = finite(o.i);
      const j = finite(o.j);
      if (i === null || j === null) return null;
      cells.push([Math.trunc(i), Math.trunc(j)]);
    }
  } else if (raw.length % 2 === 0 && raw.every((v) => finite(v) !== null)) {
    for (let k = 0; k < raw.length; k += 2) cells.push([Math.trunc(raw[k]), Math.trunc(raw[k + 1])]);
  } else {
    return null;
  }
  const byNumber = (a, b) => a - b;
  const boxes = [];
  for (const i of [...new Set(cells.map(([row]) => row))].sort(byNumber)) {
    const cols = [...new Set(cells.filter(([row]) => row === i).map(([, j]) => j))].sort(byNumber);
    let start = cols[0];
    let prev = cols[0];
    for (const j of [...cols.slice(1), null]) {
      if (j !== null && j === prev + 1) {
        prev = j;
        continue;
      }
      boxes.push([start * cellPx, i * cellPx, (prev - start + 1) * cellPx, cellPx]);
      if (j !== null) start = prev = j;
    }
  }
  return boxes;
}

const boxRing = ([x, y, w, h]) => [[x, y], [x + w, y], [x + w, y + h], [x, y + h]];

/**
 * The rings (px) of any Foundry shape, each a simple polygon; [] when unusable. A ring shape
 * gives two (its halves), a grid shape one per run of squares, the others one. Holes are not
 * looked at here. Used for region polygons and for surfaces (levels.js).
 *
 * @param {object} shape   a Foundry shape (`type` and its fields)
 * @param {number} cellPx  the scene's grid size in px (token and grid shapes count in squares)
 */
export function outlineRings(shape, cellPx) {
  let found = null;
  switch (shape?.type) {
    case "polygon": {
      const pts = shape.points;
      if (!Array.isArray(pts) || pts.length < 6 || pts.length % 2 || pts.some((v) => finite(v) === null)) return [];
      const points = [];
      for (let k = 0; k < pts.length; k += 2) points.push([pts[k], pts[k + 1]]);
      return [points];
    }
    case "rectangle":
      found = rectangleRing(shape);
      break;
    case "circle":
    case "ellipse": {
      const circle = shape.type === "circle";
      const [x, y] = [finite(shape.x), finite(shape.y)];
      const rx = finite(circle ? shape.radius : shape.radiusX);
      const ry = circle ? rx : finite(shape.radiusY);
      if ([x, y, rx, ry].includes(null) || rx <= 0 || ry <= 0) return [];
      found = ellipse(x, y, rx, ry, finite(shape.rotation) ?? 0);
      break;
    }
    case "ring":
      return ring(shape) ?? [];
    case "grid":
      return (gridCells(shape, cellPx) ?? []).map(boxRing);
    case "cone":
      found = cone(shape);
      break;
    case "line":
      found = line(shape);
      break;
    case "token":
      found = token(shape, cellPx);
      break;
    case "emanation":
      found = emanation(shape, cellPx);
      break;
    default:
      return [];
  }
  return found === null ? [] : [found];
}

/**
 * One Foundry region shape -> canonical region shapes (px): an unrotated rectangle stays a
 * `rect`, a circle (or round ellipse) a `circle`, a grid shape its runs of squares as
 * `rect`s, every other shape its outline rings as polygons; [] for holes and unusable shapes
 * (adapters/foundry/regions.py `_shape`).
 */
export function regionShapes(shape, cellPx) {
  if (!shape || typeof shape !== "object" || shape.hole === true) return [];
  if (shape.type === "rectangle") {
    const found = rectangle(shape);
    if (found !== null && found.rotation % 360 === 0) {
      const [x, y, width, height] = found.box;
      return [{ type: "rect", x, y, width, height }];
    }
  }
  if (shape.type === "circle") {
    const disc = numbers(shape, "x", "y", "radius");
    if (disc !== null && disc[2] > 0) return [{ type: "circle", x: disc[0], y: disc[1], radius: disc[2] }];
  }
  if (shape.type === "ellipse") {
    const oval = numbers(shape, "x", "y", "radiusX", "radiusY");
    if (oval !== null && Math.min(oval[2], oval[3]) > 0) {
      const [x, y, rx, ry] = oval;
      if (rx === ry) return [{ type: "circle", x, y, radius: rx }];
      return [{ type: "polygon", points: ellipse(x, y, rx, ry, finite(shape.rotation) ?? 0) }];
    }
  }
  if (shape.type === "grid") {
    const boxes = gridCells(shape, cellPx);
    if (boxes?.length) return boxes.map(([x, y, width, height]) => ({ type: "rect", x, y, width, height }));
  }
  return outlineRings(shape, cellPx).map((points) => ({ type: "polygon", points }));
}
