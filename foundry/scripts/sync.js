/**
 * Scene sync: one client sends the scene and its changes; every client queries by its id.
 *
 * The active GM's client (`game.users.activeGM`: the "leader") uploads the viewed scene once
 * per scene activation (`canvasReady`, `POST /v1/scenes`), then sends what Foundry's document
 * hooks report (token moves, doors, lights, hidden flags, added and removed documents) as a
 * change of the scene it holds (`PATCH /v1/scenes/{scene_id}`, docs/decisions.md "Live
 * scenes"; bodies built by patch.js with scene.js's own builders): the hooks of one animation
 * frame make one request, those that come while it runs the next one, each on the latest id.
 * A change that leaves the canonical scene as it was (a token's picture, a light's colour)
 * sends nothing. The leader publishes every new `scene_id` over the module socket (a message
 * `{type: "scene", scene, scene_id, pending}`; again when a user connects). When the service
 * no longer holds the parent (404: expired, or another service) the whole scene is sent once.
 *
 * The other clients never build nor upload a scene: they query by the published id, or ask
 * the leader for it (the relay action `scene`, relay.js) when a hook said the scene changed
 * since, when nothing was published yet, or after a 404 for it. Without a GM connected a
 * player's client cannot ask (`noGm`); a player's client set to call the service directly (and
 * a GM's client that is not the active GM) then sends the scene itself, and so does such a
 * player's client when nothing was published to it yet.
 *
 * Queries send the `scene_id`; on a 404 for it the id is asked again (the leader re-uploads)
 * and the query repeated once (shared/DESIGN.md "Scene cache").
 */

import { SightlineError } from "./client.js";
import { SYNC_DEBOUNCE_MS } from "./constants.js";
import { MAX_PATCH_ITEMS, Snapshot, itemChanges, sceneChanges } from "./patch.js";
import { SOCKET_EVENT, activeGm } from "./relay.js";
import { buildScene, docs } from "./scene.js";

/** Hooks of documents embedded in the scene: first argument is the document. */
export const EMBEDDED_HOOKS = [
  "Wall", "Token", "AmbientLight", "Region", "RegionBehavior",
].flatMap((name) => [`create${name}`, `update${name}`, `delete${name}`]);

/** Hooks of actors and what they hold (conditions, senses): first argument is the document. */
export const ACTOR_HOOKS = [
  "updateActor",
  "createActiveEffect", "updateActiveEffect", "deleteActiveEffect",
  "createItem", "updateItem", "deleteItem",
];

/** The canonical collection of each embedded document type (a behaviour: its region's). */
const COLLECTION_OF = { Wall: "walls", Token: "tokens", AmbientLight: "lights", Region: "regions", RegionBehavior: "regions" };

/** Foundry scenes whose uploads the leader keeps (the viewed one, the ones players asked for). */
export const MAX_TRACKS = 4;

/** Errors of a PATCH answered by sending the whole scene: parent or item unknown, change refused. */
const RESEND_ON = new Set(["sceneUnknown", "notFound", "invalid"]);

/** Longest wait for a frame: a browser gives a hidden tab none (a GM's tab in the background). */
export const FRAME_WAIT_MS = 100;

/** Run `fn` once, at the next animation frame or after FRAME_WAIT_MS, whichever comes first (node: 16 ms). */
export function nextFrame(fn) {
  if (typeof globalThis.requestAnimationFrame !== "function") return setTimeout(fn, 16);
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    fn();
  };
  const timer = setTimeout(once, FRAME_WAIT_MS);
  globalThis.requestAnimationFrame(once);
  return timer;
}

/** One Foundry scene as the service holds it: its id, its items, what changed since. */
class Track {
  constructor(key) {
    this.key = key;
    this.sceneId = null;
    this.snapshot = null;
    this.json = null;
    this.marks = new Map();
    this.rescan = false;
    this.busy = null;
    this.scheduled = false;
  }

  mark(name, id) {
    if (!this.marks.has(name)) this.marks.set(name, new Set());
    this.marks.get(name).add(id);
  }

  get dirty() {
    return !this.sceneId || this.rescan || [...this.marks.values()].some((ids) => ids.size > 0);
  }

  /** The changes to send now; hooks from here on mark the next ones. */
  take() {
    const taken = { marks: this.marks, rescan: this.rescan };
    this.marks = new Map();
    this.rescan = false;
    return taken;
  }

  /** A request failed: its changes are still to send. */
  restore({ marks, rescan }) {
    for (const [name, ids] of marks) for (const id of ids) this.mark(name, id);
    this.rescan ||= rescan;
  }
}

export class SceneSync {
  /**
   * @param {object} deps
   * @param {Function} deps.live      returns `{scene, grid, dimensions}` of the canvas, or null
   * @param {object} deps.client      a SightlineClient (or the RelayClient of a player)
   * @param {object} deps.hooks       Foundry `Hooks`
   * @param {object} [deps.game]      `game` (`user`, `users`, `socket`, `scenes`); without it
   *   this client leads
   * @param {object} [deps.peer]      a RelayClient: asks the active GM's client (`action`)
   * @param {Function} [deps.direct]  whether this client calls the service itself (not the relay)
   * @param {Function} [deps.onError] receives the errors of background requests
   * @param {number} [deps.debounceMs] delay of the upload after a scene is drawn
   * @param {Function} [deps.frame]   runs a function at the next animation frame
   */
  constructor({ live, client, hooks, game = null, peer = null, direct = () => true, onError = () => {}, debounceMs = SYNC_DEBOUNCE_MS, frame = nextFrame }) {
    this.live = live;
    this.client = client;
    this.hooks = hooks;
    this.game = game;
    this.peer = peer;
    this.direct = direct;
    this.onError = onError;
    this.debounceMs = debounceMs;
    this.frame = frame;
    this.tracks = new Map();
    this.published = new Map();
    this.stale = new Set();
    this.uploads = 0;
    this.patches = 0;
    this.timer = null;
    this.stopped = false;
    this.registered = [];
    this.listener = null;
  }

  /** Register the hooks and the socket listener. */
  start() {
    const on = (name, fn) => this.registered.push([name, this.hooks.on(name, fn)]);
    for (const name of EMBEDDED_HOOKS) {
      const type = name.replace(/^(create|update|delete)/, "");
      on(name, (doc) => this.#docChanged(type, doc));
    }
    for (const name of ACTOR_HOOKS) on(name, (doc) => this.#actorChanged(actorOf(doc)));
    on("updateScene", (scene) => this.#touched(scene?.id, null, null));
    on("canvasReady", () => this.changed());
    on("userConnected", () => this.#userConnected());
    if (this.game?.socket) {
      this.listener = (data) => this.#heard(data);
      this.game.socket.on(SOCKET_EVENT, this.listener);
    }
    this.stopped = false;
    return this;
  }

  stop() {
    for (const [name, id] of this.registered) this.hooks.off(name, id);
    this.registered = [];
    if (this.listener) this.game.socket.off?.(SOCKET_EVENT, this.listener);
    this.listener = null;
    clearTimeout(this.timer);
    this.timer = null;
    this.stopped = true;
  }

  /** Whether this client sends the scene: the active GM's, or the only one. */
  leading() {
    if (!this.game?.user || !this.game.users) return true;
    return activeGm(this.game)?.id === this.game.user.id;
  }

  get viewedKey() {
    return this.live()?.scene?.id ?? null;
  }

  /** The `scene_id` of the viewed scene, or null. */
  get sceneId() {
    const key = this.viewedKey;
    const own = this.tracks.get(key)?.sceneId ?? null;
    if (this.leading()) return own;
    return this.published.get(key)?.sceneId ?? own;
  }

  /** Whether the viewed scene changed since its `scene_id` (or has none yet). */
  get dirty() {
    const key = this.viewedKey;
    if (this.leading()) return this.tracks.get(key)?.dirty ?? true;
    return this.stale.has(key) || this.published.get(key)?.pending === true || !this.sceneId;
  }

  /** A scene was drawn (canvasReady, ready): the leader uploads it once, after debounceMs. */
  changed() {
    if (!this.leading() || !this.live()?.scene) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush().catch((err) => this.onError(err));
    }, this.debounceMs);
  }

  /** Forget every id (the service changed: URL, key, connection) and upload again. */
  reset() {
    this.tracks.clear();
    this.published.clear();
    this.stale.clear();
    this.changed();
  }

  /**
   * The `scene_id` of the viewed scene, its changes sent first.
   *
   * @param {object} [opts]
   * @param {boolean} [opts.force]  send the whole scene even when it did not change
   * @param {string} [opts.stale]   an id the service answered 404 for
   * @returns {Promise<string>}
   */
  async flush({ force = false, stale = null } = {}) {
    clearTimeout(this.timer);
    this.timer = null;
    const key = this.viewedKey;
    if (!key) throw new Error("no scene is viewed");
    if (this.leading()) return this.idFor(key, stale, { force });
    return this.#askedId(key, stale);
  }

  /**
   * The `scene_id` of Foundry scene `key` as this client sends it (the leader's path; the relay
   * action `scene`): its pending changes sent, the whole scene again if `stale` is its id.
   */
  async idFor(key, stale = null, { force = false } = {}) {
    const track = this.#track(key);
    return this.#settle(track, { force: force || (stale !== null && stale === track.sceneId) });
  }

  /**
   * Run a query against the current scene: `fn({scene_id})`; on a 404 for the scene id the id
   * is asked again (the scene sent again) and `fn` called once more.
   */
  async withScene(fn) {
    const id = await this.flush();
    try {
      return await fn({ scene_id: id });
    } catch (err) {
      if (err?.kind !== "sceneUnknown") throw err;
      const again = await this.flush({ stale: id });
      return fn({ scene_id: again });
    }
  }

  // ------------------------------------------------------------------------ the leader

  #track(key) {
    let track = this.tracks.get(key);
    if (track) this.tracks.delete(key);
    else track = new Track(key);
    this.tracks.set(key, track);
    for (const old of this.tracks.keys()) {
      if (this.tracks.size <= MAX_TRACKS) break;
      if (old !== key && old !== this.viewedKey) this.tracks.delete(old);
    }
    return track;
  }

  /** One request at a time per scene: wait for the running one, then send what is left. */
  async #settle(track, { force = false } = {}) {
    while (track.busy) await track.busy.catch(() => {});
    if (!force && !track.dirty) return track.sceneId;
    const run = this.#send(track, force);
    track.busy = run;
    try {
      return await run;
    } finally {
      if (track.busy === run) track.busy = null;
    }
  }

  async #send(track, force) {
    const live = this.#liveOf(track.key);
    const taken = track.take();
    try {
      if (force || !track.snapshot) return await this.#upload(track, live, force);
      let change;
      let built;
      if (taken.rescan) {
        built = buildScene(live);
        change = sceneChanges(track.snapshot, built);
      } else {
        change = itemChanges(track.snapshot, live.scene, taken.marks);
      }
      if (change === null || change.count > MAX_PATCH_ITEMS) return await this.#upload(track, live, false, built);
      if (change.empty) return this.#adopt(track, track.sceneId);
      return await this.#patch(track, live, change);
    } catch (err) {
      track.restore(taken);
      throw err;
    }
  }

  async #patch(track, live, change) {
    let answer;
    try {
      answer = await this.client.patchScene(track.sceneId, change.body);
    } catch (err) {
      if (!RESEND_ON.has(err?.kind)) throw err;
      return this.#upload(track, live, true); // the parent expired: the whole scene, once
    }
    this.patches += 1;
    track.snapshot.apply(change);
    track.json = null;
    return this.#adopt(track, answer.scene_id);
  }

  async #upload(track, live, force, built = undefined) {
    const scene = built ?? buildScene(live);
    const json = JSON.stringify(scene);
    if (!force && track.sceneId && json === track.json) return this.#adopt(track, track.sceneId);
    const answer = await this.client.uploadScene(scene);
    this.uploads += 1;
    track.snapshot = new Snapshot(scene);
    track.json = json;
    return this.#adopt(track, answer.scene_id);
  }

  #adopt(track, sceneId) {
    track.sceneId = sceneId;
    if (this.leading()) this.#publish(track);
    return sceneId;
  }

  #publish(track) {
    if (!this.game?.socket || !track.sceneId) return;
    this.game.socket.emit(SOCKET_EVENT, { type: "scene", scene: track.key, scene_id: track.sceneId, pending: track.dirty });
  }

  /** A user joined or left: the leader tells the ids again; a client that just became it uploads. */
  #userConnected() {
    if (!this.leading()) return;
    for (const track of this.tracks.values()) this.#publish(track);
    if (!this.tracks.get(this.viewedKey)?.sceneId) this.changed();
  }

  #schedule(track) {
    if (track.scheduled) return;
    track.scheduled = true;
    this.frame(() => {
      track.scheduled = false;
      if (this.stopped || !this.tracks.has(track.key)) return;
      this.#settle(track).catch((err) => this.onError(err));
    });
  }

  /** What scene.js reads for Foundry scene `key`: the canvas when it is the viewed one. */
  #liveOf(key) {
    const live = this.live();
    if (live?.scene?.id === key) return live;
    const scene = this.#sceneDoc(key);
    if (!scene) throw new SightlineError("invalid", { message: `no scene ${key}` });
    return { scene, grid: live?.grid };
  }

  #sceneDoc(key) {
    const viewed = this.live()?.scene;
    if (viewed?.id === key) return viewed;
    return this.game?.scenes?.get?.(key) ?? null;
  }

  // ------------------------------------------------------------------------ the others

  /** A follower's id: the one published, else asked of the active GM, else its own upload. */
  async #askedId(key, stale) {
    const known = this.published.get(key);
    if (known && !known.pending && !this.stale.has(key) && known.sceneId !== stale) return known.sceneId;
    const gm = this.game ? activeGm(this.game) : null;
    const direct = this.direct();
    // A player calling the service directly sends the scene itself when nothing was published
    // yet (no socket message for it: test/table.test.mjs "the direct setting").
    if (gm && this.peer && (!direct || known || stale || this.game.user?.isGM)) {
      const id = await this.peer.action("scene", { scene: key, stale });
      this.published.set(key, { sceneId: id, pending: false });
      this.stale.delete(key);
      return id;
    }
    if (!direct) throw new SightlineError("noGm");
    return this.idFor(key, stale);
  }

  #heard(data) {
    if (data?.type !== "scene" || typeof data.scene !== "string" || typeof data.scene_id !== "string") return;
    this.published.set(data.scene, { sceneId: data.scene_id, pending: data.pending === true });
    this.stale.delete(data.scene);
  }

  // ------------------------------------------------------------------------ hooks

  /** Document `docId` of `name` (null: the scene document itself) changed on Foundry scene `key`. */
  #touched(key, name, docId) {
    if (!key) return;
    this.stale.add(key);
    const track = this.tracks.get(key);
    if (!track) return;
    if (name && docId) track.mark(name, docId);
    else track.rescan = true;
    if (this.leading()) this.#schedule(track);
  }

  #docChanged(type, doc) {
    const owner = type === "RegionBehavior" ? doc?.parent : doc;
    this.#touched(sceneOf(owner)?.id, COLLECTION_OF[type], owner?.id ?? owner?._id);
  }

  #actorChanged(actor) {
    if (!actor) return;
    const keys = new Set([...this.tracks.keys(), this.viewedKey].filter(Boolean));
    for (const key of keys) {
      const scene = this.#sceneDoc(key);
      for (const token of docs(scene?.tokens)) {
        if (token.actor === actor || (token.actorId && token.actorId === actor.id)) this.#touched(key, "tokens", token.id);
      }
    }
  }
}

/** The Scene a document is embedded in (a region behaviour through its region). */
export function sceneOf(doc) {
  let node = doc?.parent;
  while (node && node.documentName !== "Scene") node = node.parent;
  return node ?? null;
}

/** The Actor a document belongs to (an actor itself, or the parent of an effect or item). */
export function actorOf(doc) {
  let node = doc;
  while (node && node.documentName !== "Actor") node = node.parent;
  return node ?? null;
}
