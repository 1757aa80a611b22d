/**
 * What a token's actor adds to the canonical token (scene.js buildTokens): conditions from
 * its status effects, senses, size, ability modifiers and swim speed, read from the data
 * paths of dnd5e, pf2e and sfrpg. An export carries no actors: the importer cannot read
 * these (scene.js module comment). Pure functions over plain data.
 */

import { UNLIMITED_RANGE, finite, norm, positive } from "./values.js";

/** Status effect ids of core, dnd5e, pf2e and sfrpg -> the conditions the service reads. */
const CONDITIONS = {
  invisible: "invisible",
  blind: "blinded",
  blinded: "blinded",
  deaf: "deafened",
  deafened: "deafened",
  prone: "prone",
  fly: "flying",
  flying: "flying",
  hover: "flying",
  concealed: "concealed",
  blur: "blurred",
  blurred: "blurred",
  displaced: "displaced",
  displacement: "displaced",
};
/** Actor size keys (dnd5e, pf2e, sfrpg) -> canonical size. */
const SIZES = {
  tiny: "tiny", fine: "tiny", diminutive: "tiny",
  sm: "small", small: "small",
  med: "medium", medium: "medium",
  lg: "large", large: "large",
  huge: "huge",
  grg: "gargantuan", gargantuan: "gargantuan", colossal: "gargantuan",
};

/** Canonical condition names from an actor's status effects (and pf2e condition items). */
export function actorConditions(actor) {
  if (!actor) return [];
  const ids = new Set();
  for (const status of actor.statuses ?? []) ids.add(String(status));
  for (const condition of actor.conditions ?? []) {
    if (condition && typeof condition.slug === "string") ids.add(condition.slug);
  }
  const out = new Set();
  for (const id of ids) {
    const name = CONDITIONS[id.toLowerCase()];
    if (name) out.add(name);
  }
  return [...out].sort();
}

/**
 * Senses an actor's sheet declares (dnd5e `attributes.senses.ranges`, before dnd5e 4
 * `attributes.senses`; pf2e `perception.senses`).
 */
export function actorSenses(actor) {
  const out = {};
  const system = actor?.system;
  if (!system) return out;
  const dnd = system.attributes?.senses;
  if (dnd && typeof dnd === "object") {
    for (const [key, sense] of [["darkvision", "darkvision"], ["blindsight", "blindsight"],
      ["tremorsense", "tremorsense"], ["truesight", "truesight"]]) {
      // dnd5e 4+ keeps the ranges under `ranges`; older versions at the top level
      const range = positive(dnd.ranges?.[key] ?? dnd[key]);
      if (range !== null) out[sense] = range;
    }
  }
  const pf = system.perception?.senses;
  if (Array.isArray(pf)) {
    for (const sense of pf) {
      const type = norm(sense?.type ?? "");
      const range = sense?.range === null || sense?.range === undefined || sense.range === Infinity
        ? UNLIMITED_RANGE
        : positive(sense.range);
      if (type === "lowlightvision") out.low_light_vision = true;
      else if (["darkvision", "greaterdarkvision"].includes(type) && range) out.darkvision = range;
      else if (type === "tremorsense" && range) out.tremorsense = range;
      else if (type === "seeinvisibility" && range) out.see_invisibility = range;
      else if (type === "truesight" && range) out.truesight = range;
    }
  }
  return out;
}

/** Canonical size from the actor's `traits.size` (dnd5e, pf2e, sfrpg keys), or null. */
export function actorSize(actor) {
  const raw = actor?.system?.traits?.size;
  const key = typeof raw === "string" ? raw : raw?.value;
  return typeof key === "string" ? SIZES[key.toLowerCase()] ?? null : null;
}

/** Strength, Dexterity and Constitution modifiers (`abilities.<key>.mod`), 0 when unset. */
export function actorAbilities(actor) {
  const abilities = actor?.system?.abilities;
  const out = { str: 0, dex: 0, con: 0 };
  if (!abilities) return out;
  for (const key of Object.keys(out)) {
    const mod = finite(abilities[key]?.mod);
    if (mod !== null && Number.isInteger(mod)) out[key] = mod;
  }
  return out;
}

/** Swim speed in grid units (`attributes.movement.swim`), 0 when none. */
export function actorSwimSpeed(actor) {
  const movement = actor?.system?.attributes?.movement;
  return positive(movement?.swim) ?? 0;
}
