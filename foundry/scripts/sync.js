/**
 * Scene sync: the canonical scene of the viewed canvas, uploaded once per change.
 *
 * Document hooks (walls, tokens, lights, regions and their behaviours, the scene itself,
 * the actors of its tokens) mark the scene changed; after SYNC_DEBOUNCE_MS of quiet the
 * scene is built and uploaded with `POST /v1/scenes`, and its `scene_id` kept. A change that
 * leaves the canonical scene as it was (a token's picture, a light's colour) uploads nothing.
 * Queries send the `scene_id`; when the service answers 404 for it (another worker or a
 * restarted service: shared/DESIGN.md "Scene cache") the scene is sent again and the query
 * repeated once.
 */

import { SYNC_DEBOUNCE_MS } from "./constants.js";
import { buildScene } from "./scene.js";

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

export class SceneSync {
  /**
   * @param {object} deps
   * @param {Function} deps.live      returns `{scene, grid, dimensions}` of the canvas, or null
   * @param {object} deps.client      a SightlineClient
   * @param {object} deps.hooks       Foundry `Hooks`
   * @param {Function} [deps.onError] receives the errors of background uploads
   * @param {number} [deps.debounceMs]
   */
  constructor({ live, client, hooks, onError = () => {}, debounceMs = SYNC_DEBOUNCE_MS }) {
    this.live = live;
    this.client = client;
    this.hooks = hooks;
    this.onError = onError;
    this.debounceMs = debounceMs;
    this.sceneId = null;
    this.uploadedJson = null;
    this.dirty = true;
    this.timer = null;
    this.pending = null;
    this.uploads = 0;
    this.registered = [];
  }

  /** Register the hooks. */
  start() {
    const on = (name, fn) => this.registered.push([name, this.hooks.on(name, fn)]);
    for (const name of EMBEDDED_HOOKS) on(name, (doc) => this.#ifOnScene(sceneOf(doc)));
    for (const name of ACTOR_HOOKS) on(name, (doc) => this.#ifActorOnScene(actorOf(doc)));
    on("updateScene", (scene) => this.#ifOnScene(scene));
    on("canvasReady", () => this.changed());
    return this;
  }

  stop() {
    for (const [name, id] of this.registered) this.hooks.off(name, id);
    this.registered = [];
    clearTimeout(this.timer);
    this.timer = null;
  }

  /** The scene changed: upload it after the debounce delay. */
  changed() {
    this.dirty = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush().catch((err) => this.onError(err));
    }, this.debounceMs);
  }

  /**
   * Upload the scene if it changed since the last upload; return its `scene_id`.
   *
   * @param {object} [opts]
   * @param {boolean} [opts.force] upload even when nothing changed (after a 404)
   * @returns {Promise<string>}
   */
  async flush({ force = false } = {}) {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.pending) {
      // An upload is under way: wait for it, then upload again only if the scene changed.
      await this.pending.catch(() => {});
      return this.flush({ force });
    }
    if (!force && !this.dirty && this.sceneId) return this.sceneId;
    const run = (async () => {
      const live = this.live();
      if (!live?.scene) throw new Error("no scene is viewed");
      this.dirty = false;
      const scene = buildScene(live);
      const json = JSON.stringify(scene);
      if (!force && json === this.uploadedJson && this.sceneId) return this.sceneId;
      try {
        const answer = await this.client.uploadScene(scene);
        this.uploads += 1;
        this.sceneId = answer.scene_id;
        this.uploadedJson = json;
        return this.sceneId;
      } catch (err) {
        this.dirty = true;
        throw err;
      }
    })();
    this.pending = run;
    try {
      return await run;
    } finally {
      if (this.pending === run) this.pending = null;
    }
  }

  /**
   * Run a query against the current scene: `fn({scene_id})`; on a 404 for the scene id the
   * scene is uploaded again and `fn` called once more.
   */
  async withScene(fn) {
    const id = await this.flush();
    try {
      return await fn({ scene_id: id });
    } catch (err) {
      if (err?.kind !== "sceneUnknown") throw err;
      const again = await this.flush({ force: true });
      return fn({ scene_id: again });
    }
  }

  #ifOnScene(scene) {
    const viewed = this.live()?.scene;
    if (scene && viewed && scene.id === viewed.id) this.changed();
  }

  #ifActorOnScene(actor) {
    const viewed = this.live()?.scene;
    if (!actor || !viewed) return;
    const tokens = viewed.tokens?.contents ?? [...(viewed.tokens?.values?.() ?? [])];
    if (tokens.some((t) => t.actor === actor || (t.actorId && t.actorId === actor.id))) this.changed();
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
