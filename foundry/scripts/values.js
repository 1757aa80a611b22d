/**
 * Readers of the plain values in Foundry documents, shared by the scene builder's modules
 * (scene.js, actor.js, levels.js, shapes.js): numbers, names, embedded collections.
 */

/** Range standing for Foundry's unlimited (`null`) sight or detection range (grid units). */
export const UNLIMITED_RANGE = 10000;

/** Decimals kept on computed coordinates (1e-6 px is float noise). */
const CLEAN_DECIMALS = 6;

/** `value` when it is a finite number, else null (booleans and strings too). */
export function finite(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** `value` when it is a finite number above 0, else null. */
export function positive(value) {
  const n = finite(value);
  return n !== null && n > 0 ? n : null;
}

/** `value` when it is a finite number, else `fallback`. */
export function numberOr(value, fallback) {
  const n = finite(value);
  return n === null ? fallback : n;
}

/** A name in lower case, letters only (`"Feel Tremor"` -> `"feeltremor"`). */
export function norm(name) {
  return String(name).toLowerCase().replace(/[^a-z]/g, "");
}

/** `value` rounded to `CLEAN_DECIMALS` decimals, -0 as 0. */
export function clean(value) {
  const factor = 10 ** CLEAN_DECIMALS;
  const rounded = Math.round(value * factor) / factor;
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** The documents of an embedded collection (EmbeddedCollection, Map, array or absent). */
export function docs(collection) {
  if (!collection) return [];
  if (Array.isArray(collection)) return collection.filter((d) => d && typeof d === "object");
  if (Array.isArray(collection.contents)) return collection.contents;
  if (typeof collection.values === "function") return [...collection.values()];
  return [];
}

/** Elevation bound in grid units: null for null, +-Infinity or anything unreadable. */
export function bound(value) {
  if (value === null || value === undefined) return null;
  const n = typeof value === "string" ? Number(value) : value;
  return finite(n);
}
