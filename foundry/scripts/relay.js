/**
 * Players ask through the GM: service calls over the module's socket (module.json `socket`).
 *
 * A player's client holds a `RelayClient` instead of a `SightlineClient`: each request goes
 * to the active GM's client as a socket message, and the answer (or the error) comes back
 * the same way, so only the GM's browser reaches the service (a service on the GM's own
 * machine at http://127.0.0.1 serves the whole table, with no CORS origin per player and no
 * API key in players' hands). The GM's client answers with `RelayServer`, which forwards only
 * what the module asks (ALLOWED) and draws pictures for a player only from a token that player
 * owns (never the GM's `viewer`). Without a GM connected a request fails with the kind
 * `noGm`, notified as such.
 */

import { SightlineError } from "./client.js";
import { MODULE_ID } from "./constants.js";

/** The socket event of this module (Foundry: `module.<id>`). */
export const SOCKET_EVENT = `module.${MODULE_ID}`;

/** Milliseconds a player waits for the GM's client before giving up. */
export const RELAY_TIMEOUT_MS = 30_000;

/** Requests a GM's client forwards for a player: method and path. */
export const ALLOWED = new Set(["GET /v1/rulesets", "POST /v1/scenes", "POST /v1/cover", "POST /v1/vision", "POST /v1/render"]);

/** The GM whose client answers: Foundry's `game.users.activeGM`, else the first active GM. */
export function activeGm(game) {
  const users = game.users;
  if (users?.activeGM !== undefined) return users.activeGM ?? null;
  const all = users?.contents ?? [...(users?.values?.() ?? [])];
  return all.filter((u) => u.isGM && u.active).sort((a, b) => (a.id < b.id ? -1 : 1))[0] ?? null;
}

let counter = 0;

export class RelayClient {
  /**
   * @param {object} deps
   * @param {object} deps.game       `game` (`socket`, `users`, `user`)
   * @param {number} [deps.timeoutMs]
   */
  constructor({ game, timeoutMs = RELAY_TIMEOUT_MS }) {
    this.game = game;
    this.timeoutMs = timeoutMs;
    this.pending = new Map();
    this.listener = (data) => this.#answered(data);
    game.socket.on(SOCKET_EVENT, this.listener);
  }

  stop() {
    this.game.socket.off?.(SOCKET_EVENT, this.listener);
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(new SightlineError("noGm"));
    }
    this.pending.clear();
  }

  /** Same contract as SightlineClient.request, answered by the active GM's client. */
  request(method, path, body = undefined, { text = false } = {}) {
    return this.#send({ type: "request", method, path, body, text });
  }

  /** Ask the GM's client to do `action` (RelayServer `actions`): a change the user may not make. */
  action(action, args = {}) {
    return this.#send({ type: "action", action, args });
  }

  #send(message) {
    const gm = activeGm(this.game);
    if (!gm) return Promise.reject(new SightlineError("noGm"));
    counter += 1;
    const id = `${this.game.user.id}-${Date.now().toString(36)}-${counter}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new SightlineError("noGm"));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.game.socket.emit(SOCKET_EVENT, { ...message, id, from: this.game.user.id, to: gm.id });
    });
  }

  #answered(data) {
    if (data?.type !== "response" || data.to !== this.game.user.id) return;
    const waiting = this.pending.get(data.id);
    if (!waiting) return;
    this.pending.delete(data.id);
    clearTimeout(waiting.timer);
    if (data.ok) waiting.resolve(data.value);
    else waiting.reject(new SightlineError(data.error?.kind ?? "server", data.error ?? {}));
  }

  rulesets() {
    return this.request("GET", "/v1/rulesets");
  }

  uploadScene(scene) {
    return this.request("POST", "/v1/scenes", { scene });
  }

  post(path, body) {
    return this.request("POST", path, body);
  }

  render(body) {
    return this.request("POST", "/v1/render", body, { text: true });
  }
}

/**
 * Whether `user` owns the token `tokenId` on the viewed scene (a player's picture is drawn
 * from a token of theirs).
 */
export function ownsToken(scene, tokenId, user) {
  const doc = scene?.tokens?.get?.(tokenId);
  if (!doc || !user) return false;
  if (typeof doc.testUserPermission === "function") return doc.testUserPermission(user, "OWNER");
  const actor = doc.actor;
  if (typeof actor?.testUserPermission === "function") return actor.testUserPermission(user, "OWNER");
  return false;
}

export class RelayServer {
  /**
   * @param {object} deps
   * @param {object} deps.game
   * @param {Function} deps.client   returns the GM's SightlineClient
   * @param {Function} deps.scene    returns the viewed Scene document
   * @param {object} [deps.actions]   name -> `async (args, user) => value`: what players may ask
   */
  constructor({ game, client, scene, actions = {} }) {
    this.game = game;
    this.client = client;
    this.scene = scene;
    this.actions = actions;
    this.answered = 0;
    this.listener = (data) => this.#request(data);
    game.socket.on(SOCKET_EVENT, this.listener);
  }

  stop() {
    this.game.socket.off?.(SOCKET_EVENT, this.listener);
  }

  /** The body a player may have forwarded: a picture only from a token the player owns. */
  checked(data) {
    const key = `${data.method} ${data.path}`;
    if (!ALLOWED.has(key)) throw new SightlineError("invalid", { message: `not forwarded: ${key}` });
    if (data.path !== "/v1/render") return data.body;
    const user = this.game.users?.get?.(data.from) ?? null;
    if (user?.isGM) return data.body;
    const query = data.body?.query ?? {};
    const viewer = data.body?.viewer && data.body.viewer !== "gm" ? data.body.viewer : query.attacker ?? query.observer;
    if (!viewer || !ownsToken(this.scene(), viewer, user)) {
      throw new SightlineError("invalid", { message: "a player's picture is drawn from a token they own" });
    }
    return { ...data.body, viewer };
  }

  async #run(data) {
    if (data.type === "action") {
      const action = this.actions[data.action];
      if (!action) throw new SightlineError("invalid", { message: `no action ${data.action}` });
      return (await action(data.args ?? {}, this.game.users?.get?.(data.from) ?? null)) ?? null;
    }
    const body = this.checked(data);
    return this.client().request(data.method, data.path, body, { text: data.text });
  }

  async #request(data) {
    if ((data?.type !== "request" && data?.type !== "action") || data.to !== this.game.user.id) return;
    let answer;
    try {
      answer = { ok: true, value: await this.#run(data) };
    } catch (err) {
      const { kind = "server", code = null, status = "", message = String(err?.message ?? err), errors = {}, url = "" } = err ?? {};
      answer = { ok: false, error: { kind, code, status, message, errors, url } };
    }
    this.answered += 1;
    this.game.socket.emit(SOCKET_EVENT, { type: "response", id: data.id, to: data.from, ...answer });
  }
}
