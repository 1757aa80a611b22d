/**
 * Attackers that ignore cover: the known features per game system, and an actor flag.
 *
 * A feature ignores some cover degrees for some attack kinds (the service's `attack.kind`:
 * melee, ranged, spell). The service answers the cover the target has; the module then
 * applies to the roll what the attacker does not ignore, and the card says why (the feature's
 * name). A GM can mark any actor with the flag `flags.sightline.ignoresCover`: `true` (half
 * and three-quarters cover, every kind, as the feats below) or a list of degrees.
 *
 * Sources: D&D 5e (2014) PHB "Sharpshooter" and "Spell Sniper"; D&D 5e (2024) PHB, the same
 * feats ("Bypass Cover"): both ignore half and three-quarters cover, never total cover.
 * pf2e and sfrpg have no such feat in their core rules (cover is reduced by actions there,
 * not ignored), so their rows are empty; the flag works in every system.
 */

/** Degrees every "ignores cover" feature of the table may ignore (never total cover). */
export const PARTIAL_DEGREES = ["half", "three-quarters"];

/**
 * Game system id -> features: `identifier` (dnd5e `system.identifier`, the slug of the
 * item's name), `name` (shown on the card), the attack `kinds` it covers, the `degrees` it
 * ignores.
 */
export const IGNORES_COVER = {
  dnd5e: [
    { identifier: "sharpshooter", name: "Sharpshooter", kinds: ["ranged"], degrees: PARTIAL_DEGREES },
    { identifier: "spell-sniper", name: "Spell Sniper", kinds: ["spell"], degrees: PARTIAL_DEGREES },
  ],
  pf2e: [],
  sfrpg: [],
};

/** The slug of a name, as dnd5e derives an item's identifier: "Spell Sniper" -> "spell-sniper". */
export function slug(name) {
  return String(name ?? "")
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

function itemsOf(actor) {
  const items = actor?.items;
  if (!items) return [];
  return Array.isArray(items) ? items : items.contents ?? [...(items.values?.() ?? [])];
}

/**
 * What of the cover the attacker ignores for this attack.
 *
 * @param {string} systemId  `game.system.id`
 * @param {object} actor     the attacker's actor (items, flags)
 * @param {string} kind      melee | ranged | spell
 * @returns {{degrees: string[], source: string}|null} the degrees ignored and why, or null
 */
export function ignoredCover(systemId, actor, kind) {
  if (!actor) return null;
  const flag = actor.flags?.sightline?.ignoresCover ?? actor.getFlag?.("sightline", "ignoresCover");
  if (flag === true) return { degrees: PARTIAL_DEGREES, source: actor.name ?? "flag" };
  if (Array.isArray(flag) && flag.length) return { degrees: flag.filter((d) => d !== "total"), source: actor.name ?? "flag" };
  const features = IGNORES_COVER[systemId] ?? [];
  for (const item of itemsOf(actor)) {
    const id = item.system?.identifier || slug(item.name);
    const feature = features.find((f) => f.identifier === id && f.kinds.includes(kind));
    if (feature) return { degrees: feature.degrees, source: feature.name };
  }
  return null;
}

/**
 * A cover result with what the attacker ignores taken out: the degree, AC and save bonus
 * of "none" when its degree is ignored; `ignored` names the feature.
 */
export function withoutIgnored(result, ignored) {
  if (!ignored || !ignored.degrees.includes(result.cover)) return result;
  return { ...result, cover: "none", ac_bonus: 0, save_bonus: 0, advantage_levels: 0, ignored: { degree: result.cover, source: ignored.source } };
}
