/**
 * Errors as notifications the user can act on (lang/en.json SIGHTLINE.Error.*).
 *
 * Every failure of a request reaches the user as `ui.notifications.error` with a sentence
 * that says what to do; the same kind of failure is not repeated while it lasts (a service
 * that is down would otherwise notify on every wall moved).
 */

import { SightlineError } from "./client.js";

/** Seconds during which the same failure is not notified again. */
export const REPEAT_AFTER_S = 15;

export class Notifier {
  /**
   * @param {object} deps
   * @param {object} deps.ui     Foundry `ui` (its `notifications`)
   * @param {object} deps.i18n   `game.i18n` (`localize`, `format`)
   * @param {Function} [deps.now] milliseconds clock (tests pass their own)
   * @param {Function} [deps.log] where the details go besides the notification (the console)
   */
  constructor({ ui, i18n, now = () => Date.now(), log = (...args) => console.error(...args) }) {
    this.ui = ui;
    this.log = log;
    this.i18n = i18n;
    this.now = now;
    this.last = new Map();
  }

  /** The sentence shown for an error. */
  message(err) {
    if (!(err instanceof SightlineError)) {
      return this.i18n.format("SIGHTLINE.Error.unexpected", { message: String(err?.message ?? err) });
    }
    return this.i18n.format(`SIGHTLINE.Error.${err.kind}`, {
      url: err.url || "?",
      code: err.code ?? "",
      message: err.message || err.status || "",
      field: firstField(err.errors),
    });
  }

  /** Notify an error (at most once per kind and message every REPEAT_AFTER_S seconds). */
  error(err) {
    const text = this.message(err);
    const key = `${err?.kind ?? "unexpected"}|${text}`;
    const now = this.now();
    const seen = this.last.get(key);
    this.log("Sightline |", text, err);
    if (seen !== undefined && now - seen < REPEAT_AFTER_S * 1000) return text;
    this.last.set(key, now);
    this.ui.notifications.error(text);
    return text;
  }

  /** A failure is over: notify it again the next time it happens. */
  clear() {
    this.last.clear();
  }

  info(key, data = {}) {
    this.ui.notifications.info(this.i18n.format(key, data));
  }

  warn(key, data = {}) {
    this.ui.notifications.warn(this.i18n.format(key, data));
  }
}

/** First field path of a JSON error body's `errors.json`, e.g. `scene.walls.3.c`. */
export function firstField(errors) {
  let node = errors?.json;
  const path = [];
  while (node && typeof node === "object" && !Array.isArray(node)) {
    const key = Object.keys(node)[0];
    if (key === undefined) break;
    path.push(key);
    node = node[key];
  }
  return path.join(".");
}
