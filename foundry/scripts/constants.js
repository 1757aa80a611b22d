/**
 * Names shared by every part of the module.
 *
 * The module id, the setting keys, and the table that picks a Sightline ruleset from the
 * game system. Nothing here touches Foundry globals, so tests import it as it is.
 */

/** Module id (module.json "id", settings namespace, flags namespace, template paths). */
export const MODULE_ID = "sightline";

/** Paths inside the installed module. */
export const TEMPLATES = {
  card: `modules/${MODULE_ID}/templates/chat-card.hbs`,
  vision: `modules/${MODULE_ID}/templates/vision-card.hbs`,
  rules: `modules/${MODULE_ID}/templates/rules-config.hbs`,
};

/** Game system id -> Sightline ruleset id (issue 19); other systems start on dnd5e. */
export const SYSTEM_RULESETS = {
  dnd5e: "dnd5e",
  sfrpg: "starfinder",
  pf2e: "pf2e",
};

/** The ruleset of dnd5e worlds on the modern (2024) rules (the system's `rulesVersion`). */
export const MODERN_DND5E_RULESET = "dnd2024";

/** Ruleset used when the game system has no entry in SYSTEM_RULESETS. */
export const FALLBACK_RULESET = "dnd5e";

/** When the module posts the chat card (targeting always asks, quietly, for the marker). */
export const ASK_WHEN = ["attack", "targeting", "button"];

/**
 * Milliseconds after a scene is drawn before the active GM's client uploads it (its changes
 * then go as PATCHes, one per animation frame: sync.js).
 */
export const SYNC_DEBOUNCE_MS = 250;

/** Type of the region behaviour this module adds (module.json documentTypes). */
export const BEHAVIOR_TYPE = `${MODULE_ID}.environment`;

/**
 * Ruleset for a game system id.
 *
 * @param {string|undefined} systemId  `game.system.id`
 * @returns {string} a ruleset id of `GET /v1/rulesets`
 */
export function rulesetForSystem(systemId, rulesVersion = null) {
  if (systemId === "dnd5e" && rulesVersion === "modern") return MODERN_DND5E_RULESET;
  return SYSTEM_RULESETS[systemId] ?? FALLBACK_RULESET;
}
