/**
 * The quiet answer to a targeting: a small label under each targeted token, on this client.
 *
 * Drawn with PIXI (Foundry's canvas library) as a child of the token's placeable, so only
 * the user whose client draws it sees it: the targeting user. It says the cover degree and,
 * when the attacker does not see the target, "unseen"; it is removed when the target is.
 */

/** Name of the marker's display object among the token's children. */
export const MARKER_NAME = "sightline-marker";

/** Remove the marker from a token placeable (if any). */
export function clearMarker(token) {
  const old = token?.children?.find?.((c) => c.name === MARKER_NAME);
  if (!old) return;
  token.removeChild(old);
  old.destroy?.();
}

/**
 * Draw (or redraw) the marker of a token.
 *
 * @param {object} PIXI        the PIXI namespace
 * @param {object} token       the target's Token placeable (a PIXI container: `w`, `h`, `addChild`)
 * @param {string} text        what it says, e.g. "Half cover · unseen"
 * @returns {object|null} the PIXI.Text, or null when nothing can be drawn
 */
export function showMarker(PIXI, token, text) {
  clearMarker(token);
  if (!PIXI?.Text || typeof token?.addChild !== "function" || !text) return null;
  const label = new PIXI.Text(text, { fontSize: 14, fill: "#ffffff", stroke: "#000000", strokeThickness: 3 });
  label.name = MARKER_NAME;
  label.anchor?.set?.(0.5, 0);
  label.position?.set?.((token.w ?? 0) / 2, (token.h ?? 0) + 2);
  token.addChild(label);
  return label;
}
