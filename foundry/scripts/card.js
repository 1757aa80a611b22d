/**
 * The chat card: cover, bonuses, concealment and flat checks of each target of an attack.
 *
 * `askAttack` asks the service (`/v1/cover`, `/v1/vision` and one `/v1/render` per target, all
 * by `scene_id` through SceneSync), `cardData` turns the answers into what the template
 * shows, and `postCard` posts the card or updates the user's last card for the same attacker.
 * `askVision` does the same for the "vision" button: what the controlled token can see.
 */

import { MODULE_ID } from "./constants.js";
import { publicNotes } from "./privacy.js";

/** Options the service refused for a query kind and ruleset ("cover:dnd5e" -> names). */
const refusedOptions = new Map();

/**
 * Run `call(options)`; when the service answers 422 naming options it does not take for this
 * query (an option of one query kind sent to another), drop them, remember it, and retry.
 * `GET /v1/rulesets` lists a ruleset's options without saying which query reads each.
 */
export async function withOptions(kind, ruleset, options, call) {
  const key = `${kind}:${ruleset}`;
  const refused = refusedOptions.get(key) ?? new Set();
  const kept = Object.fromEntries(Object.entries(options ?? {}).filter(([name]) => !refused.has(name)));
  try {
    return await call(kept);
  } catch (err) {
    const named = Object.keys(err?.errors?.json?.options ?? {}).filter((name) => name in kept);
    if (err?.kind !== "invalid" || named.length === 0) throw err;
    for (const name of named) refused.add(name);
    refusedOptions.set(key, refused);
    return withOptions(kind, ruleset, options, call);
  }
}

/** An SVG document as an `<img>` source. */
export function svgDataUri(svg) {
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/**
 * Ask the service about one attack.
 *
 * @param {object} deps
 * @param {object} deps.sync       SceneSync (scene_id, resend on 404)
 * @param {object} deps.client     SightlineClient
 * @param {object} query
 * @param {string} query.ruleset
 * @param {object} query.options   ruleset options (settings)
 * @param {string} query.attacker  token id
 * @param {string[]} query.targets token ids
 * @param {string} [query.kind]    attack kind: melee | ranged | spell
 * @param {boolean} [query.pictures] also fetch the `/v1/render` picture of each target
 * @param {string} [query.viewer]  whose picture (`/v1/render` viewer): a token id, or "gm"
 * @param {boolean} [query.crop]   the picture framed on the two tokens, at a chat card's size
 * @returns {Promise<{cover: object, vision: object, pictures: object}>}
 */
export async function askAttack({ sync, client }, { ruleset, options, attacker, targets, kind = "ranged", pictures = true, viewer = "gm", crop = true }) {
  const cover = await sync.withScene((ref) =>
    withOptions("cover", ruleset, options, (opts) =>
      client.post("/v1/cover", { ruleset, ...ref, attacker, targets, attack: { kind }, options: opts })));
  const vision = await sync.withScene((ref) =>
    withOptions("vision", ruleset, options, (opts) =>
      client.post("/v1/vision", { ruleset, ...ref, observer: attacker, targets, options: opts })));
  const svgs = {};
  if (pictures) {
    for (const target of targets) {
      svgs[target] = await sync.withScene((ref) =>
        withOptions("cover", ruleset, options, (opts) =>
          client.render({ ...ref, viewer, crop, query: { type: "cover", ruleset, attacker, target, attack: { kind }, options: opts } })));
    }
  }
  return { cover, vision, pictures: svgs };
}

/** Ask what `observer` can see among `targets` (`/v1/vision`). */
export async function askVision({ sync, client }, { ruleset, options, observer, targets }) {
  return sync.withScene((ref) =>
    withOptions("vision", ruleset, options, (opts) =>
      client.post("/v1/vision", { ruleset, ...ref, observer, targets, options: opts })));
}

function label(i18n, key, fallback) {
  const text = i18n.localize(key);
  return text === key ? fallback : text;
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** Rule chips: id and its one-line summary (the tooltip). */
export function ruleChips(ids, summaries) {
  return [...new Set(ids)].map((id) => ({ id, summary: summaries[id] ?? "" }));
}

/**
 * What the card template shows.
 *
 * @param {object} args
 * @param {object} args.i18n        `game.i18n`
 * @param {string} args.ruleset
 * @param {{id: string, name: string}} args.attacker
 * @param {Object<string, string>} args.names   token id -> name
 * @param {object} args.cover       `/v1/cover` answer
 * @param {object} [args.vision]    `/v1/vision` answer
 * @param {Object<string, string>} [args.pictures] token id -> SVG text
 * @param {Object<string, string>} args.summaries  rule id -> one-line summary (data/rules.json)
 * @param {object[]} [args.results] the results to show (ignores.js applied), default the answer's
 * @param {Map} [args.hide]     target id -> secrets (privacy.js) no note may name: a card players see
 * @param {Map} [args.details]  target id -> secrets listed: the GM's card
 * @returns {object}
 */
export function cardData({ i18n, ruleset, attacker, names, cover, vision = null, pictures = {}, summaries, results = null, hide = null, details = null }) {
  const seen = new Map((vision?.results ?? []).map((r) => [r.target, r]));
  const targets = (results ?? cover.results).map((result) => {
    const sight = seen.get(result.target) ?? null;
    const degree = result.cover;
    const missChance = Math.max(result.miss_chance ?? 0, sight?.miss_chance ?? 0);
    const concealment = result.concealment && result.concealment !== "none" ? result.concealment : sight?.concealment ?? "none";
    const rows = [];
    if (result.can_target === false) {
      rows.push({ label: label(i18n, "SIGHTLINE.Card.Target", "Target"), value: i18n.localize("SIGHTLINE.Card.CannotTarget") });
    } else if (ruleset === "pf2e-variant") {
      rows.push({
        label: label(i18n, "SIGHTLINE.Card.Defense", "Defense"),
        value: i18n.format("SIGHTLINE.Card.AdvantageLevels", { levels: result.advantage_levels ?? 0 }),
      });
    } else {
      rows.push({ label: label(i18n, "SIGHTLINE.Card.AC", "AC"), value: signed(result.ac_bonus ?? 0) });
      rows.push({ label: label(i18n, `SIGHTLINE.Save.${ruleset}`, i18n.localize("SIGHTLINE.Save.other")), value: signed(result.save_bonus ?? 0) });
    }
    if (sight) {
      rows.push({
        label: label(i18n, "SIGHTLINE.Card.Sight", "Sight"),
        value: sight.can_see
          ? label(i18n, `SIGHTLINE.Sense.${sight.sense}`, sight.sense ?? "")
          : label(i18n, `SIGHTLINE.Sense.${sight.sense ?? "none"}`, i18n.localize("SIGHTLINE.Sense.none")),
      });
      if (sight.obscurement && sight.obscurement !== "none") {
        rows.push({ label: label(i18n, "SIGHTLINE.Card.Obscurement", "Obscured"), value: label(i18n, `SIGHTLINE.Obscurement.${sight.obscurement}`, sight.obscurement) });
      }
      if (ruleset === "pf2e-variant" && sight.detection) {
        rows.push({ label: label(i18n, "SIGHTLINE.Card.Detection", "Detection"), value: label(i18n, `SIGHTLINE.Detection.${sight.detection}`, sight.detection) });
      }
    }
    if (concealment !== "none" || missChance > 0) {
      rows.push({
        label: label(i18n, "SIGHTLINE.Card.Concealment", "Concealment"),
        value: i18n.format("SIGHTLINE.Card.MissChance", {
          concealment: label(i18n, `SIGHTLINE.Concealment.${concealment}`, concealment),
          chance: missChance,
        }),
      });
    }
    if (result.ignored) {
      rows.push({
        label: label(i18n, "SIGHTLINE.Card.Ignored", "Ignored"),
        value: i18n.format("SIGHTLINE.Card.IgnoredBy", { degree: label(i18n, `SIGHTLINE.Cover.${result.ignored.degree}`, result.ignored.degree), source: result.ignored.source }),
      });
    }
    if (result.overridden) {
      rows.push({
        label: label(i18n, "SIGHTLINE.Card.OverriddenLabel", "GM"),
        value: i18n.format("SIGHTLINE.Card.Overridden", { degree: label(i18n, `SIGHTLINE.Cover.${degree}`, degree), answered: label(i18n, `SIGHTLINE.Cover.${result.overridden.from}`, result.overridden.from ?? "?") }),
      });
    }
    const flatCheck = sight?.flat_check_dc ?? null;
    if (flatCheck !== null) {
      rows.push({ label: label(i18n, "SIGHTLINE.Card.FlatCheck", "Flat check"), value: i18n.format("SIGHTLINE.Card.DC", { dc: flatCheck }) });
    }
    return {
      id: result.target,
      name: names[result.target] ?? result.target,
      degree,
      degreeLabel: label(i18n, `SIGHTLINE.Cover.${degree}`, degree),
      canTarget: result.can_target !== false,
      acBonus: result.ac_bonus ?? null,
      saveBonus: result.save_bonus ?? null,
      advantageLevels: result.advantage_levels ?? 0,
      concealment,
      missChance,
      flatCheck,
      rows,
      rules: ruleChips([...(result.rules ?? []), ...(sight?.rules ?? [])], summaries),
      notes: hide ? publicNotes(result.notes, hide.get(result.target) ?? []) : result.notes ?? [],
      secrets: (details?.get(result.target) ?? []).map((s) => ({
        kind: s.kind,
        id: s.id,
        text: i18n.format("SIGHTLINE.Card.SecretItem", { what: label(i18n, `SIGHTLINE.Secret.${s.kind}`, s.kind), name: s.name }),
      })),
      picture: pictures[result.target] ? svgDataUri(pictures[result.target]) : null,
    };
  });
  return {
    ruleset,
    rulesetLabel: label(i18n, `SIGHTLINE.Ruleset.${ruleset}`, ruleset),
    attacker,
    targets,
  };
}

/** What the vision card shows: each token the observer asked about, seen or not, and how. */
export function visionData({ i18n, ruleset, observer, names, vision, summaries }) {
  const rows = vision.results.map((r) => ({
    id: r.target,
    name: names[r.target] ?? r.target,
    canSee: r.can_see,
    sense: label(i18n, `SIGHTLINE.Sense.${r.sense ?? "none"}`, r.sense ?? ""),
    light: label(i18n, `SIGHTLINE.Light.${r.light}`, r.light ?? ""),
    detail: [
      r.obscurement && r.obscurement !== "none" ? label(i18n, `SIGHTLINE.Obscurement.${r.obscurement}`, r.obscurement) : null,
      ruleset === "pf2e-variant" && r.detection ? label(i18n, `SIGHTLINE.Detection.${r.detection}`, r.detection) : null,
      r.concealment && r.concealment !== "none"
        ? i18n.format("SIGHTLINE.Card.MissChance", { concealment: label(i18n, `SIGHTLINE.Concealment.${r.concealment}`, r.concealment), chance: r.miss_chance ?? 0 })
        : null,
      r.flat_check_dc ? i18n.format("SIGHTLINE.Card.DC", { dc: r.flat_check_dc }) : null,
    ].filter(Boolean).join(" · "),
    rules: ruleChips(r.rules ?? [], summaries),
  }));
  rows.sort((a, b) => Number(b.canSee) - Number(a.canSee) || a.name.localeCompare(b.name));
  return { ruleset, rulesetLabel: label(i18n, `SIGHTLINE.Ruleset.${ruleset}`, ruleset), observer, rows };
}

/**
 * Post the card, or update the user's card for the same attacker when it is still the last
 * message in the chat log (targeting one token after another updates one card).
 *
 * @param {object} deps
 * @param {{create: (data: object) => Promise<object>}} deps.ChatMessage  the ChatMessage class
 * @param {object} deps.messages       `game.messages`
 * @param {object} deps.user           `game.user`
 * @param {object} card
 * @param {string} card.content        the card's HTML
 * @param {object} card.flags          `{card: "attack"|"vision", attacker, targets}` kept in
 *                                     `flags.sightline`
 * @param {object} [card.speaker]
 * @param {boolean} [card.update]      update the last card when it matches (targeting mode)
 * @param {string[]} [card.whisper]
 * @param {boolean} [card.blind]       a blind roll's card: the roller does not see it
 * @returns {Promise<object>} the message
 */
export async function postCard({ ChatMessage, messages, user }, { content, flags, speaker = {}, update = false, whisper = undefined, blind = false }) {
  if (update) {
    const last = messages?.contents?.at?.(-1);
    const ours = last?.flags?.[MODULE_ID];
    const author = last?.author?.id ?? last?.user?.id ?? last?.author ?? last?.user;
    if (ours && ours.card === flags.card && ours.attacker === flags.attacker && author === user.id) {
      await last.update({ content, [`flags.${MODULE_ID}`]: { ...flags } });
      return last;
    }
  }
  const data = { content, speaker, flags: { [MODULE_ID]: { ...flags } } };
  if (whisper) data.whisper = whisper;
  if (blind) data.blind = true;
  return ChatMessage.create(data);
}
