/**
 * What players may see of an answer: the blockers the GM hides, and who sees a card.
 *
 * A cover answer names its blockers per traced line (`lines[].blockers`: `{kind, id}`). A
 * hidden token (Foundry `hidden`) and a secret door (`door` SECRET) are the GM's secrets: a
 * card that players see names neither, and carries no service note naming them (the cover
 * answer's "Hidden tokens block some lines ..." note); the GM gets those details whispered.
 * The rest follows the roll mode (Foundry's `core.rollMode`, or the attack roll message's own
 * whisper and blind): public, GM (whisper to the GMs and the roller), blind (the GMs only),
 * self (the roller only).
 */

/** Foundry CONST.WALL_DOOR_TYPES.SECRET. */
export const SECRET_DOOR = 2;

/** Foundry's roll modes (CONST.DICE_ROLL_MODES values). */
export const ROLL_MODES = { public: "publicroll", gm: "gmroll", blind: "blindroll", self: "selfroll" };

const contents = (collection) => collection?.contents ?? [...(collection?.values?.() ?? [])];

/**
 * The secrets among the blockers of each cover result.
 *
 * @param {object} cover  `/v1/cover` answer
 * @param {object} scene  the Scene document (`tokens`, `walls` collections)
 * @returns {Map<string, {kind: string, id: string, name: string}[]>} target id -> secrets
 */
export function secretsOf(cover, scene) {
  const tokens = new Map(contents(scene?.tokens).map((t) => [t.id, t]));
  const walls = new Map(contents(scene?.walls).map((w) => [w.id, w]));
  const out = new Map();
  for (const result of cover?.results ?? []) {
    const found = new Map();
    for (const line of result.lines ?? []) {
      for (const b of line.blockers ?? []) {
        const kind = b.kind ?? "wall";
        if (kind === "token" && tokens.get(b.id)?.hidden) found.set(b.id, { kind, id: b.id, name: tokens.get(b.id).name ?? b.id });
        if (kind === "wall" && walls.get(b.id)?.door === SECRET_DOOR) found.set(b.id, { kind: "secret-door", id: b.id, name: b.id });
      }
    }
    out.set(result.target, [...found.values()]);
  }
  return out;
}

/** The notes of a result that name none of `secrets` (ids or names). */
export function publicNotes(notes, secrets) {
  const words = secrets.flatMap((s) => [s.id, s.name]).filter(Boolean);
  return (notes ?? []).filter((note) => !words.some((w) => note.includes(w)));
}

/** Ids of the active GM users. */
export function gmIds(game) {
  return contents(game.users).filter((u) => u.isGM && u.active !== false).map((u) => u.id);
}

/**
 * `whisper` and `blind` of a card for a roll mode, as Foundry's ChatMessage.applyRollMode.
 *
 * @param {string} mode  a ROLL_MODES value
 * @param {object} game
 * @returns {{whisper?: string[], blind?: boolean}}
 */
export function rollModeTargets(mode, game) {
  const gms = gmIds(game);
  if (mode === ROLL_MODES.gm) return { whisper: [...new Set([...gms, game.user.id])] };
  if (mode === ROLL_MODES.blind) return { whisper: gms, blind: true };
  if (mode === ROLL_MODES.self) return { whisper: [game.user.id] };
  return {};
}

/**
 * Who sees the card: the attack roll message's own recipients when there is one, else the
 * user's current roll mode.
 */
export function cardAudience(game, rollMessage = null) {
  if (rollMessage) {
    const whisper = (rollMessage.whisper ?? []).map((u) => u?.id ?? u);
    if (!whisper.length) return {};
    return rollMessage.blind ? { whisper, blind: true } : { whisper };
  }
  let mode = ROLL_MODES.public;
  try {
    mode = game.settings.get("core", "rollMode") ?? mode;
  } catch {
    mode = ROLL_MODES.public;
  }
  return rollModeTargets(mode, game);
}

/** Whether an audience includes players (a card they may read must hold no secret). */
export function playersSee(audience, game) {
  if (!audience.whisper) return true;
  return audience.whisper.some((id) => !contents(game.users).find((u) => u.id === id)?.isGM);
}
