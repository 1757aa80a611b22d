/**
 * What changed in a canonical scene, as the body of `PATCH /v1/scenes/{scene_id}`.
 *
 * The service takes a JSON merge patch (RFC 7386) per collection, by item id (schemas/patch.py,
 * docs/decisions.md "Live scenes"): `{"tokens": {"goblin": {"x": 700}}, "walls": {"door-3":
 * {"door_state": "open"}}, "lights": {"torch": {"on": false}}}`; a whole item adds it, `null`
 * removes it, a `null` field takes its default again (every nullable canonical field defaults
 * to null, schemas/scene.py). A `Snapshot` holds the items of the scene last sent, by id;
 * `itemChanges` rebuilds only the documents a hook named, with scene.js's own collection
 * builders over a view of the scene holding that one document, so a patched token is the
 * token a whole build makes (same mapping, same defaults); `sceneChanges` compares two whole
 * builds (a change to the scene document itself: darkness, global light).
 *
 * Nothing here calls Foundry or the service.
 */

import { buildLights, buildRegions, buildTokens, buildWalls, docs } from "./scene.js";

/** The collections a change edits by id (canonical scene keys; Foundry's Scene uses the same). */
export const COLLECTIONS = ["walls", "tokens", "lights", "regions"];

/**
 * Most items one change names before the whole scene is sent instead: half the service's
 * MAX_CHANGE_ITEMS (schemas/patch.py), a change that rewrites more is a new scene.
 */
export const MAX_PATCH_ITEMS = 500;

/** scene.js's builder of each collection, from a Scene (or a view of it) and the canonical grid. */
const BUILDERS = {
  walls: (scene) => buildWalls(scene),
  tokens: (scene, grid) => buildTokens(scene, grid.distance),
  lights: (scene) => buildLights(scene),
  regions: (scene) => buildRegions(scene),
};

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** Whether two JSON values are equal (canonical items: plain objects, arrays, numbers, strings). */
export function sameJson(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/**
 * The JSON merge patch (RFC 7386) that turns `old` into `next`: changed fields, nested objects
 * as their own patches, fields `next` lacks as null; null when nothing changed.
 *
 * @param {object} old   a canonical item as the service holds it
 * @param {object} next  the same item built again
 * @returns {object|null}
 */
export function mergePatch(old, next) {
  const out = {};
  for (const [key, value] of Object.entries(next)) {
    if (value === undefined || sameJson(old[key], value)) continue;
    out[key] = isObject(old[key]) && isObject(value) ? mergePatch(old[key], value) : value;
  }
  for (const key of Object.keys(old)) if (!(key in next)) out[key] = null;
  return Object.keys(out).length ? out : null;
}

/** The Scene as `builder` reads it, with only `docsOfCollection` in collection `name`. */
export function sceneWith(scene, name, docsOfCollection) {
  return new Proxy(scene, { get: (target, prop) => (prop === name ? docsOfCollection : Reflect.get(target, prop)) });
}

/** The document `id` of an embedded collection, or null (deleted). */
function docOf(collection, id) {
  if (typeof collection?.get === "function") return collection.get(id) ?? null;
  return docs(collection).find((d) => (d.id ?? d._id) === id) ?? null;
}

/** The canonical scene without its collections: grid, size, environment and the rest. */
export function sceneTop(scene) {
  const top = { ...scene };
  for (const name of COLLECTIONS) delete top[name];
  return top;
}

/** The items of the scene the service holds, by collection and id. */
export class Snapshot {
  /** @param {object} scene  a canonical scene (buildScene) */
  constructor(scene) {
    this.top = sceneTop(scene);
    this.items = Object.fromEntries(COLLECTIONS.map((name) => [name, new Map((scene[name] ?? []).map((item) => [item.id, item]))]));
  }

  get grid() {
    return this.top.grid;
  }

  /** Ids of the canonical items made from one document (a region: one per shape, `<id>-<n>`). */
  idsOf(name, docId) {
    if (name !== "regions") return this.items[name].has(docId) ? [docId] : [];
    const own = (id) => id === docId || (id.startsWith(`${docId}-`) && /^\d+$/.test(id.slice(docId.length + 1)));
    return [...this.items.regions.keys()].filter(own);
  }

  /** Apply a change the service took: `[[collection, id, item or null], ...]`, the new environment. */
  apply({ updates, top }) {
    for (const [name, id, item] of updates) {
      if (item === null) this.items[name].delete(id);
      else this.items[name].set(id, item);
    }
    if (top) this.top = top;
  }
}

/** A change being built: the PATCH body and what the snapshot becomes once it is taken. */
class Change {
  constructor() {
    this.body = {};
    this.updates = [];
    this.count = 0;
    this.top = null;
  }

  /** Item `id` of `name` goes from `old` (undefined: absent) to `next` (null: gone). */
  item(name, id, old, next) {
    if (old === undefined && next === null) return;
    let value = next;
    if (old !== undefined && next !== null) {
      value = mergePatch(old, next);
      if (value === null) return;
    }
    (this.body[name] ??= {})[id] = value;
    this.updates.push([name, id, next]);
    this.count += 1;
  }

  get empty() {
    return this.count === 0;
  }
}

/**
 * The change of the documents a hook named.
 *
 * @param {Snapshot} snapshot  what the service holds
 * @param {object} scene       the Scene document
 * @param {Map<string, Set<string>>} marks  collection -> ids of the documents changed
 *   (a region behaviour: its region's id); a deleted document is looked up and not found
 * @returns {Change}  `body` (the PATCH body), `updates`, `count`, `empty`
 */
export function itemChanges(snapshot, scene, marks) {
  const change = new Change();
  for (const [name, ids] of marks) {
    for (const docId of ids) {
      const doc = docOf(scene[name], docId);
      const built = doc ? BUILDERS[name](sceneWith(scene, name, [doc]), snapshot.grid) : [];
      const builtIds = new Set(built.map((item) => item.id));
      for (const item of built) change.item(name, item.id, snapshot.items[name].get(item.id), item);
      for (const id of snapshot.idsOf(name, docId)) if (!builtIds.has(id)) change.item(name, id, snapshot.items[name].get(id), null);
    }
  }
  return change;
}

/**
 * The change between what the service holds and a whole build of the scene, or null when
 * more than the environment differs outside the collections (grid, size: a new scene).
 *
 * @param {Snapshot} snapshot
 * @param {object} next  a canonical scene (buildScene)
 * @returns {Change|null}
 */
export function sceneChanges(snapshot, next) {
  const top = sceneTop(next);
  const { environment: oldEnv, ...oldRest } = snapshot.top;
  const { environment: newEnv, ...newRest } = top;
  if (!sameJson(oldRest, newRest)) return null;
  const change = new Change();
  const env = mergePatch(oldEnv ?? {}, newEnv ?? {});
  if (env) {
    change.body.environment = env;
    change.count += 1;
    change.top = top;
  }
  for (const name of COLLECTIONS) {
    const before = snapshot.items[name];
    const seen = new Set();
    for (const item of next[name] ?? []) {
      seen.add(item.id);
      change.item(name, item.id, before.get(item.id), item);
    }
    for (const [id, item] of before) if (!seen.has(id)) change.item(name, id, item, null);
  }
  return change;
}
