/**
 * The GM's confirm or override of the cover the service answered.
 *
 * A card only GMs see (the GMs' whisper of a player's attack, or a card whose audience is
 * GMs only) shows, per target, the ruleset's degrees as buttons
 * (`data-action="sightline-override"`): the GM confirms the service's degree or picks
 * another. The choice is kept on the Scene document, `flags.sightline.override[targetId]
 * [attackerId]` (a scene only GMs may change: a token's own flags its owner could write),
 * with both tokens' positions, so it lapses as soon as either token moves (a new position is
 * a new answer). Every later use of that attacker's answer at that target reads it: the
 * marker, the card, and what is applied to the roll. With the setting "apply after the GM
 * confirms" (`applyCover: "confirm"`) only a confirmed or overridden degree is applied.
 *
 * Degrees and bonuses are the service's tables (data/bounds.json `cover`, written from
 * service/rules/RULESET/cover.py: 5E-COV-5, SF-COV-2, PF2-COV-1, PV-COV-1).
 */

import { COVER_DEGREES } from "./bounds.js";
import { MODULE_ID } from "./constants.js";

/** The scene flag (under `flags.sightline`) holding the GM's choices, by target and attacker id. */
export const OVERRIDE_FLAG = "override";

/** Where a token stands: `[x, y, elevation]` (its document's fields). */
export function standing(doc) {
  return [doc?.x ?? 0, doc?.y ?? 0, doc?.elevation ?? 0];
}

const same = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => v === b[i]);

/** The ruleset's degrees, weakest first (`[{cover, ac_bonus, save_bonus, advantage_levels, can_target}]`). */
export function degreesOf(ruleset) {
  return COVER_DEGREES[ruleset] ?? [];
}

/**
 * The GM's degree for `attacker` at `target`, or null (none, or either token moved since).
 *
 * @param {object} scene     the Scene document
 * @param {object} target    the target's TokenDocument
 * @param {object} attacker  the attacker's TokenDocument
 * @returns {string|null}
 */
export function overrideOf(scene, target, attacker) {
  const chosen = scene?.flags?.[MODULE_ID]?.[OVERRIDE_FLAG]?.[target?.id]?.[attacker?.id];
  if (!chosen?.degree) return null;
  if (!same(chosen.attacker, standing(attacker)) || !same(chosen.target, standing(target))) return null;
  return chosen.degree;
}

/** The Scene update that records the GM's `degree` for `attacker` at `target`. */
export function overrideUpdate(target, attacker, degree) {
  return {
    [`flags.${MODULE_ID}.${OVERRIDE_FLAG}.${target.id}.${attacker.id}`]: { degree, attacker: standing(attacker), target: standing(target) },
  };
}

/**
 * A cover result given the GM's degree: the degree's bonuses, and `overridden` naming the
 * service's degree (the card says both). Unknown degrees leave the result as it is.
 *
 * @param {object} result   a `/v1/cover` result
 * @param {string} ruleset
 * @param {string} degree
 * @returns {object}
 */
export function withDegree(result, ruleset, degree) {
  const row = degreesOf(ruleset).find((d) => d.cover === degree);
  if (!row) return result;
  const { cover, ...bonuses } = row;
  return { ...result, cover, ...bonuses, overridden: { from: result.cover } };
}

/**
 * The results with the GM's choices.
 *
 * @param {object[]} results   cover results (after ignores.js)
 * @param {object} args
 * @param {object} args.scene     the Scene document (`tokens`)
 * @param {string} args.attacker  the attacker's token id
 * @param {string} args.ruleset
 * @param {boolean} [args.confirmedOnly]  keep only the results the GM chose (applyCover "confirm")
 * @returns {object[]}
 */
export function withOverrides(results, { scene, attacker, ruleset, confirmedOnly = false }) {
  const attackerDoc = scene?.tokens?.get?.(attacker) ?? null;
  const out = [];
  for (const result of results) {
    const degree = attackerDoc ? overrideOf(scene, scene.tokens.get(result.target), attackerDoc) : null;
    if (degree) out.push(withDegree(result, ruleset, degree));
    else if (!confirmedOnly) out.push(result);
  }
  return out;
}

/**
 * The buttons of one target on a GM's card: each degree, the one in force marked.
 *
 * @param {object} i18n
 * @param {string} ruleset
 * @param {string} current   the degree in force (the GM's, else the service's)
 * @param {string} answered  the service's degree
 * @returns {{degree: string, label: string, chosen: boolean, answered: boolean}[]}
 */
export function overrideButtons(i18n, ruleset, current, answered) {
  return degreesOf(ruleset).map(({ cover }) => {
    const key = `SIGHTLINE.Cover.${cover}`;
    const text = i18n.localize(key);
    return { degree: cover, label: text === key ? cover : text, chosen: cover === current, answered: cover === answered };
  });
}
