/**
 * The JavaScript peer's geometry, without any dependency (issue 20): what a Foundry module
 * would write in the browser for a dnd5e cover matrix.
 *
 * - Which walls block: every wall restricting movement (`move` not `"none"`), except open
 *   doors (GEO-1, GEO-2). Heights, one-way, limited, proximity and low walls are not read.
 * - The lines: 5E-COV-5 paired corners, corner k (A top-left, B top-right, C bottom-right,
 *   D bottom-left) of the attacker's space to corner k of the target's, each corner inset
 *   toward the space's centre by 0.5 px (Sightline's `DEFAULT_CORNER_INSET_PX`, GEO-6),
 *   never past the centre.
 * - The test: closed segments, so a line touching a wall's free tip, passing through the
 *   point where walls meet, or running along a wall counts as blocked (GEO-6 clears those;
 *   the peer does not).
 * - The table: blocked lines of 4 -> 0-1 none, 2 half, 3 three-quarters, 4 total.
 *
 * Coordinates are px; a token's box is `x, y` to `x + width * size, y + height * size`.
 */

/** GEO-6: px by which traced corners move toward the space's centre (Sightline's default). */
export const DEFAULT_CORNER_INSET_PX = 0.5;

/** 5E-COV-5: blocked paired-corner lines (index, of 4) -> degree. */
export const PAIRED_CORNERS = Object.freeze(["none", "none", "half", "three-quarters", "total"]);

/** The degree of `blocked` lines of 4 (5E-COV-5). */
export function degree(blocked) {
  return PAIRED_CORNERS[blocked];
}

/** Whether a wall blocks a cover line here: restricts movement and is not an open door. */
export function blocksMovement(wall) {
  if ((wall.move ?? "normal") === "none") return false;
  const door = wall.door ?? "none";
  return !(door !== "none" && (wall.door_state ?? "closed") === "open");
}

/** A token's box `[x0, y0, x1, y1]` in px on a grid of `size` px. */
export function tokenBox(token, size) {
  return [token.x, token.y, token.x + (token.width ?? 1) * size, token.y + (token.height ?? 1) * size];
}

/** Corners A, B, C, D of a box inset by `inset` px (never past the centre), `[Ax, Ay, ..., Dy]`. */
export function insetCorners(box, inset = DEFAULT_CORNER_INSET_PX) {
  const [x0, y0, x1, y1] = box;
  const ix = Math.min(inset, (x1 - x0) / 2);
  const iy = Math.min(inset, (y1 - y0) / 2);
  return [x0 + ix, y0 + iy, x1 - ix, y0 + iy, x1 - ix, y1 - iy, x0 + ix, y1 - iy];
}

/**
 * Whether the closed segments P0P1 and Q0Q1 share a point: each one's ends are on both
 * sides of (or on) the other's line, and, for collinear segments, their boxes meet.
 */
export function segmentsCross(p0x, p0y, p1x, p1y, q0x, q0y, q1x, q1y) {
  const dx = p1x - p0x;
  const dy = p1y - p0y;
  const o1 = dx * (q0y - p0y) - dy * (q0x - p0x);
  const o2 = dx * (q1y - p0y) - dy * (q1x - p0x);
  if ((o1 > 0 && o2 > 0) || (o1 < 0 && o2 < 0)) return false;
  const ex = q1x - q0x;
  const ey = q1y - q0y;
  const o3 = ex * (p0y - q0y) - ey * (p0x - q0x);
  const o4 = ex * (p1y - q0y) - ey * (p1x - q0x);
  if ((o3 > 0 && o4 > 0) || (o3 < 0 && o4 < 0)) return false;
  return (
    Math.min(p0x, p1x) <= Math.max(q0x, q1x) &&
    Math.min(q0x, q1x) <= Math.max(p0x, p1x) &&
    Math.min(p0y, p1y) <= Math.max(q0y, q1y) &&
    Math.min(q0y, q1y) <= Math.max(p0y, p1y)
  );
}

/**
 * Blocked lines (0-4) of the paired corners `a` to `t` (as `insetCorners`) against the
 * walls, tested one by one (no index): the reference the indexed matrix must equal.
 */
export function blockedLines(a, t, walls) {
  let blocked = 0;
  for (let k = 0; k < 8; k += 2) {
    for (const w of walls) {
      if (segmentsCross(a[k], a[k + 1], t[k], t[k + 1], w[0], w[1], w[2], w[3])) {
        blocked += 1;
        break;
      }
    }
  }
  return blocked;
}
