/**
 * Cover applied to the roll, through each game system's own way in (each optional).
 *
 * - dnd5e 4.x / 5.x: the `dnd5e.preRollAttackV2` hook (dnd5e module/dice/basic-roll.mjs,
 *   `buildConfigure`, called by AttackActivity#rollAttack after it read the targets' AC): the
 *   roll's `target` (the AC it is compared to) and the message's `flags.dnd5e.targets[].ac`
 *   get the difference between the cover the service found and the cover status the target
 *   already has, and the target gets the status (`coverHalf`, `coverThreeQuarters`,
 *   `coverTotal`: CONFIG.DND5E.statusEffects, whose `coverBonus` dnd5e adds to AC), so the
 *   next roll needs no difference. The hook is synchronous: the answer asked on targeting is
 *   used; without it the roll is stopped, asked, and rolled again once.
 * - midi-qol (when active, instead of the above): `midi-qol.prePreambleComplete`, which midi
 *   awaits before its attack roll: the statuses are set first, and midi's hit check reads the
 *   target's AC with them (applied once: the dnd5e hook then does nothing).
 * - pf2e: the system's own "Effect: Cover" (other-effects, its ChoiceSet `cover` selection
 *   lesser +1 / standard +2 / greater +4 circumstance bonus to AC) on each target, set on
 *   targeting (pf2e has no pre-roll hook for a Strike), replaced when the degree changes.
 * - sfrpg: a modifier "Sightline cover" on the attacker (`system.modifiers`, constant,
 *   untyped, to its melee or ranged attacks), shown and toggleable in the roll dialog.
 *
 * Changes to documents the user does not own (a target's statuses and effects) are done by
 * the active GM's client (`gm(action, args)`, over the module socket).
 */

import { MODULE_ID } from "./constants.js";
import { ignoredCover, withoutIgnored } from "./ignores.js";

/** The integrations, each a setting (`integrations` record: id -> on). */
export const INTEGRATIONS = ["dnd5e", "midi-qol", "pf2e", "sfrpg"];

/** dnd5e status effect per cover degree of the dnd5e ruleset. */
export const DND5E_STATUS = { half: "coverHalf", "three-quarters": "coverThreeQuarters", total: "coverTotal" };
export const DND5E_STATUSES = Object.values(DND5E_STATUS);
/** dnd5e's coverBonus of each status (CONFIG.DND5E.statusEffects; total: cannot be targeted). */
export const DND5E_COVER_BONUS = { coverHalf: 2, coverThreeQuarters: 5 };

/** pf2e's "Effect: Cover" and the ChoiceSet selection per degree of the pf2e-variant ruleset. */
export const PF2E_COVER_EFFECT = "Compendium.pf2e.other-effects.Item.I9lfZUiCwMiGogVi";
export const PF2E_COVER = {
  lesser: { bonus: 1, level: "lesser" },
  standard: { bonus: 2, level: "standard" },
  greater: { bonus: 4, level: "greater" },
};

/** Name and source of the sfrpg modifier this module keeps on an attacker. */
export const SFRPG_SOURCE = "Sightline";

const setProperty = (object, key, value) => {
  const parts = key.split(".");
  let node = object;
  for (const part of parts.slice(0, -1)) node = node[part] ??= {};
  node[parts.at(-1)] = value;
};

/** melee | ranged | spell of a dnd5e 4.x/5.x attack activity (`attack.type`). */
export function dnd5eKind(activity) {
  const type = activity?.attack?.type ?? {};
  if (type.value === "melee") return "melee";
  if (type.classification === "spell") return "spell";
  return "ranged";
}

/** melee | ranged of a pf2e attack roll message (its roll options `item:melee` / `item:ranged`). */
export function pf2eKind(message) {
  const options = message?.flags?.pf2e?.context?.options ?? [];
  return options.includes("item:melee") ? "melee" : "ranged";
}

/** melee | ranged | spell of an sfrpg item (`system.actionType`: mwak, rwak, msak, rsak). */
export function sfrpgKind(item) {
  const action = item?.system?.actionType ?? "";
  if (action === "mwak" || action === "msak") return "melee";
  return action === "rsak" ? "spell" : "ranged";
}

/** The cover status dnd5e already counts for an actor: its coverBonus (0, 2 or 5). */
export function dnd5eCurrentBonus(actor) {
  if (typeof actor?.coverBonus === "number") return actor.coverBonus;
  const statuses = actor?.statuses ?? new Set();
  if (statuses.has("coverThreeQuarters")) return DND5E_COVER_BONUS.coverThreeQuarters;
  if (statuses.has("coverHalf")) return DND5E_COVER_BONUS.coverHalf;
  return 0;
}

/** Set exactly one dnd5e cover status (or none) on an actor. */
export async function setDnd5eStatus(actor, status) {
  for (const id of DND5E_STATUSES) {
    const want = id === status;
    if (Boolean(actor.statuses?.has(id)) !== want) await actor.toggleStatusEffect(id, { active: want });
  }
}

function effectsOf(actor) {
  const items = actor?.items?.contents ?? [...(actor?.items?.values?.() ?? [])];
  return items.filter((i) => i.type === "effect" && i.flags?.[MODULE_ID]?.cover);
}

/** Put pf2e's "Effect: Cover" with the degree's selection on an actor (or take it off). */
export async function setPf2eCover(actor, degree, { fromUuid, attacker = null }) {
  const choice = PF2E_COVER[degree] ?? null;
  const ours = effectsOf(actor);
  if (ours.length === 1 && choice && ours[0].flags[MODULE_ID].cover === degree) return ours[0];
  if (ours.length) await actor.deleteEmbeddedDocuments("Item", ours.map((e) => e.id));
  if (!choice) return null;
  const effect = await fromUuid(PF2E_COVER_EFFECT);
  if (!effect) return null;
  const source = effect.toObject();
  delete source._id;
  setProperty(source, "flags.pf2e.rulesSelections.cover", { ...choice });
  setProperty(source, `flags.${MODULE_ID}`, { cover: degree, attacker });
  const [created] = await actor.createEmbeddedDocuments("Item", [source]);
  return created;
}

/** Keep the sfrpg modifier of the attacker at the target's cover AC bonus (none: removed). */
export async function setSfrpgModifier(actor, { bonus, kind, label }) {
  const kept = (actor.system?.modifiers ?? []).filter((m) => m.source !== SFRPG_SOURCE);
  if (bonus > 0) {
    kept.push({
      name: label,
      modifier: -bonus,
      type: "untyped",
      modifierType: "constant",
      effectType: kind === "melee" ? "melee-attacks" : "ranged-attacks",
      valueAffected: "",
      enabled: true,
      source: SFRPG_SOURCE,
      notes: label,
      subtab: "temporary",
      condition: "",
      id: `${MODULE_ID}-cover`,
      limitTo: "",
      damage: null,
    });
  }
  await actor.update({ "system.modifiers": kept });
}

/**
 * The results to apply: the answer's, less what the attacker ignores (ignores.js).
 *
 * @param {object} cover      `/v1/cover` answer
 * @param {string} systemId
 * @param {object} actor      the attacker's actor
 * @param {string} kind
 */
export function appliedResults(cover, systemId, actor, kind) {
  const ignored = ignoredCover(systemId, actor, kind);
  return (cover?.results ?? []).map((r) => withoutIgnored(r, ignored));
}

/**
 * The dnd5e pre-roll change of one attack: the roll's target AC and each message target's AC.
 *
 * @param {object} config   dnd5e's roll process configuration (`target`: the one target's AC)
 * @param {object} message  dnd5e's message configuration (`data.flags.dnd5e.targets`)
 * @param {object[]} entries `{token, result}` per target
 * @returns {object[]} `{token, status}` to set on each target
 */
export function dnd5eAdjust(config, message, entries) {
  const statuses = [];
  const targets = message?.data?.flags?.dnd5e?.targets ?? [];
  for (const { token, result } of entries) {
    const actor = token.actor ?? token.document?.actor;
    if (!actor) continue;
    const status = DND5E_STATUS[result.cover] ?? null;
    const total = result.ac_bonus === null || result.can_target === false;
    const delta = (total ? 0 : result.ac_bonus ?? 0) - dnd5eCurrentBonus(actor);
    const described = targets.find((t) => t.uuid === actor.uuid);
    if (described) described.ac = total || described.ac === null ? null : described.ac + delta;
    if (entries.length === 1 && typeof config.target === "number") config.target = total ? undefined : config.target + delta;
    statuses.push({ token, status, delta });
  }
  if (message?.data) setProperty(message.data, `flags.${MODULE_ID}.applied`, statuses.map(({ token, status, delta }) => ({ target: token.id, status, delta })));
  return statuses;
}
