/**
 * The GM's debug overlay: the lines the service traced for the last cover answer, on the canvas.
 *
 * Only a GM's client records answers and has the toggle (a token control), so the overlay is
 * drawn on the GM's canvas alone: players never get the lines (they may cross a hidden
 * creature or a secret door). The answers recorded are those the GM's client gets from the
 * service: its own asks and the players' asks it relays (relay.js). Each traced line
 * (`results[].lines[]`: `from`, `to` in scene px, `blocked`) is drawn red when blocked, green
 * when clear, in a PIXI.Graphics on the controls layer (`canvas.controls`, above the tokens).
 */

/** Name of the overlay's display object on the layer. */
export const OVERLAY_NAME = "sightline-lines";

/** Line colours: blocked, clear (0xRRGGBB). */
export const COLOURS = { blocked: 0xd0342c, clear: 0x2e9e44 };

/** The segments of a cover answer: `{from, to, blocked, target}` per traced line. */
export function segmentsOf(answer) {
  const out = [];
  for (const result of answer?.results ?? []) {
    for (const line of result.lines ?? []) {
      if (Array.isArray(line.from) && Array.isArray(line.to)) out.push({ from: line.from, to: line.to, blocked: Boolean(line.blocked), target: result.target });
    }
  }
  return out;
}

export class LinesOverlay {
  /**
   * @param {object} deps
   * @param {Function} deps.PIXI    returns the PIXI namespace (`Graphics`)
   * @param {Function} deps.canvas  returns the current `canvas` (`controls` layer)
   */
  constructor({ PIXI, canvas }) {
    this.PIXI = PIXI;
    this.canvas = canvas;
    this.on = false;
    this.answer = null;
    this.graphics = null;
  }

  /** Keep the latest cover answer (`/v1/cover`), redrawn when the overlay is on. */
  record(answer) {
    if (!answer?.results) return;
    this.answer = answer;
    if (this.on) this.draw();
  }

  /** Turn the overlay on or off (the GM's toggle). */
  toggle(on = !this.on) {
    this.on = Boolean(on);
    if (this.on) this.draw();
    else this.clear();
    return this.on;
  }

  clear() {
    const g = this.graphics;
    this.graphics = null;
    if (!g) return;
    g.parent?.removeChild?.(g);
    g.destroy?.();
  }

  /** Draw the recorded answer's lines; returns the Graphics, or null when nothing can be drawn. */
  draw() {
    this.clear();
    const PIXI = this.PIXI();
    const layer = this.canvas()?.controls;
    if (!PIXI?.Graphics || typeof layer?.addChild !== "function") return null;
    const g = new PIXI.Graphics();
    g.name = OVERLAY_NAME;
    g.eventMode = "none";
    for (const { from, to, blocked } of segmentsOf(this.answer)) {
      g.lineStyle(3, blocked ? COLOURS.blocked : COLOURS.clear, 0.85);
      g.moveTo(from[0], from[1]);
      g.lineTo(to[0], to[1]);
    }
    layer.addChild(g);
    this.graphics = g;
    return g;
  }
}

/**
 * Have `client` (a SightlineClient) hand every `/v1/cover` answer to `onCover` as well.
 *
 * @param {object} client
 * @param {Function} onCover  `(answer) => void`
 * @returns {object} the same client
 */
export function recordingCover(client, onCover) {
  if (!client || client.recordsCover) return client;
  const request = client.request.bind(client);
  client.request = async (method, path, body, opts) => {
    const answer = await request(method, path, body, opts);
    if (method === "POST" && path === "/v1/cover") onCover(answer);
    return answer;
  };
  client.recordsCover = true;
  return client;
}
