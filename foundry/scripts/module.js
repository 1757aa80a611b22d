/**
 * The module itself: settings, scene sync, the targeting marker, chat cards, the roll
 * integrations, the GM relay, buttons and hooks.
 *
 * Every Foundry global it uses is passed in (`deps`), so tests run it on a mocked Foundry.
 * main.js builds it from the real globals, calls `init()` at Foundry's `init` hook (settings,
 * controls, render and roll hooks: registered before Foundry draws the UI) and `ready()` at
 * `ready` (the service client, the relay, scene sync, the rule summaries).
 *
 * Quiet by default: targeting asks the service and marks each target for this user only;
 * the card comes with the attack roll (or a button). What players may see of a card holds no
 * secret (privacy.js): the details go to the GMs in a whisper, and the rest follows the roll
 * mode; the picture of a card players see is drawn from the attacker's view, cropped.
 * A card only GMs see carries the GM's confirm / override of each degree (override.js), and
 * a GM's client has a toggle for the overlay of the traced lines on its canvas (overlay.js).
 */

import { SightlineClient, SightlineError } from "./client.js";
import { askAttack, askVision, cardData, postCard, visionData } from "./card.js";
import { MODULE_ID, TEMPLATES } from "./constants.js";
import { Notifier } from "./notify.js";
import { SETTINGS, readSettings, registerSettings, rulesMenuClass } from "./settings.js";
import { registerBehavior } from "./behavior.js";
import { SceneSync } from "./sync.js";
import { RelayClient, RelayServer, ownsToken } from "./relay.js";
import { cardAudience, gmIds, playersSee, secretsOf } from "./privacy.js";
import { clearMarker, showMarker } from "./marker.js";
import { overrideButtons, overrideUpdate, withDegree, withOverrides } from "./override.js";
import { LinesOverlay, recordingCover } from "./overlay.js";
import {
  DND5E_STATUS,
  appliedResults,
  dnd5eAdjust,
  dnd5eKind,
  pf2eKind,
  setDnd5eStatus,
  setPf2eCover,
  setSfrpgModifier,
  sfrpgKind,
} from "./apply.js";

/** Milliseconds to wait after the last target change before asking (several clicks: one ask). */
export const TARGETING_DEBOUNCE_MS = 150;

/** Whether a chat message is an attack roll of a system the module knows (dnd5e, pf2e, sfrpg). */
export function isAttackRoll(message) {
  const flags = message?.flags ?? {};
  if (flags.dnd5e?.roll?.type === "attack") return true;
  const pf2e = flags.pf2e?.context?.type;
  if (pf2e === "attack-roll" || pf2e === "spell-attack-roll") return true;
  return flags.sfrpg?.rollType === "attack";
}

/** The attack kind of an attack roll message: from the item rolled (apply.js). */
export function messageKind(message) {
  const flags = message?.flags ?? {};
  if (flags.dnd5e) return dnd5eKind(message.getAssociatedActivity?.() ?? null);
  if (flags.pf2e) return pf2eKind(message);
  if (flags.sfrpg) return sfrpgKind(message.getAssociatedItem?.() ?? message.item ?? null);
  return "ranged";
}

const authorOf = (message) => message?.author?.id ?? message?.user?.id ?? message?.author ?? message?.user;

export class SightlineModule {
  /**
   * @param {object} deps
   * @param {object} deps.game
   * @param {Function} deps.canvas          returns the current `canvas`
   * @param {object} deps.Hooks
   * @param {any} deps.ChatMessage        the ChatMessage class (`create`, `getSpeaker`)
   * @param {object} deps.ui
   * @param {object} deps.foundry
   * @param {object} [deps.CONFIG]
   * @param {Function} deps.renderTemplate  `(path, data) => Promise<string>`
   * @param {Function} deps.loadRules       `() => Promise<{ruleId: summary}>`
   * @param {Function} [deps.fetch]
   * @param {Function} [deps.fromUuid]      Foundry's `fromUuid` (pf2e's cover effect)
   * @param {object} [deps.PIXI]            the canvas library (the targeting marker)
   * @param {number} [deps.debounceMs]      scene sync debounce
   * @param {Function} [deps.log]           error details besides the notification (console)
   */
  constructor(deps) {
    this.deps = deps;
    this.notifier = new Notifier({ ui: deps.ui, i18n: deps.game.i18n, log: deps.log });
    this.summaries = {};
    this.client = null;
    this.relay = null;
    this.peer = null;
    this.server = null;
    this.sync = null;
    this.targetTimer = null;
    this.answers = new Map();
    this.pending = new Set();
    this.retried = new WeakSet();
    this.overlay = new LinesOverlay({ PIXI: () => this.deps.PIXI ?? globalThis.PIXI, canvas: () => this.deps.canvas() });
  }

  get game() {
    return this.deps.game;
  }

  /** `init` hook: settings, the rules menu, the region behaviour type, every hook. */
  init() {
    const { game, foundry, CONFIG, Hooks } = this.deps;
    registerBehavior(foundry, CONFIG);
    const menu = foundry?.applications?.api?.ApplicationV2
      ? rulesMenuClass({ foundry, client: () => this.makeClient(), game, notifier: this.notifier })
      : null;
    registerSettings({
      settings: game.settings,
      systemId: game.system?.id,
      rulesVersion: dnd5eRulesVersion(game),
      menu,
      onChange: (key) => this.settingChanged(key),
    });
    Hooks.on("targetToken", (user, token, targeted) => this.targeted(user, token, targeted));
    Hooks.on("createChatMessage", (message) => this.chatMessage(message));
    const generation = game.release?.generation ?? 12;
    const renderHook = generation >= 13 ? "renderChatMessageHTML" : "renderChatMessage";
    Hooks.on(renderHook, (message, html) => this.bindCard(html?.[0] ?? html));
    Hooks.on("getSceneControlButtons", (controls) => this.addControls(controls));
    Hooks.on("dnd5e.preRollAttackV2", (config, dialog, message) => this.dnd5ePreRoll(config, dialog, message));
    Hooks.on("midi-qol.prePreambleComplete", (workflow) => this.midiPreamble(workflow));
  }

  /** `ready` hook: service client (or the GM relay), scene sync, rule summaries. */
  async ready() {
    const { Hooks, game } = this.deps;
    if (!game.user.isGM && game.socket) this.relay = new RelayClient({ game });
    if (game.user.isGM && game.socket) {
      this.server = new RelayServer({ game, client: () => this.client, scene: () => this.live()?.scene, actions: this.gmActions() });
    }
    this.client = this.makeClient();
    // A GM's client that is not the active GM asks the active one for the scene id too (sync.js).
    this.peer = this.relay ?? (game.socket ? new RelayClient({ game }) : null);
    this.sync = new SceneSync({
      live: () => this.live(),
      client: this.client,
      hooks: Hooks,
      game,
      peer: this.peer,
      direct: () => !this.relay || this.client !== this.relay,
      onError: (err) => this.notifier.error(err),
      debounceMs: this.deps.debounceMs,
    }).start();
    try {
      this.summaries = await this.deps.loadRules();
    } catch (err) {
      this.notifier.error(err);
    }
    if (this.live()?.scene) this.sync.changed();
  }

  /** The service client: the GM relay for a player (unless direct calls are set), else HTTP. */
  makeClient() {
    const s = readSettings(this.deps.game.settings);
    if (this.relay && s.connection !== "direct") return this.relay;
    const client = new SightlineClient({ url: s.url, apiKey: s.apiKey, fetch: this.deps.fetch ?? globalThis.fetch?.bind(globalThis) });
    // A GM's client keeps each cover answer (its own and the players' it relays) for the overlay.
    return this.game.user?.isGM ? recordingCover(client, (answer) => this.overlay.record(answer)) : client;
  }

  settingChanged(key) {
    if (!this.sync) return;
    if (key === SETTINGS.url || key === SETTINGS.apiKey || key === SETTINGS.connection) {
      this.client = this.makeClient();
      this.sync.client = this.client;
      this.notifier.clear();
      this.sync.reset();
    }
  }

  /** What scene.js reads from the canvas, or null before a scene is drawn. */
  live() {
    const canvas = this.deps.canvas();
    if (!canvas?.scene) return null;
    return { scene: canvas.scene, grid: canvas.grid, dimensions: canvas.dimensions };
  }

  get settings() {
    return readSettings(this.deps.game.settings);
  }

  /** Whether an integration is on and cover is applied to rolls (at once, or once the GM confirms). */
  applies(id) {
    const s = this.settings;
    return s.applyCover !== "tell" && s.integrations[id] !== false;
  }

  /** The results shown for an answer: less what the attacker ignores (ignores.js), with the GM's choices. */
  shownResults(cover, attackerId, actor, kind) {
    const results = appliedResults(cover, this.game.system?.id, actor, kind);
    return withOverrides(results, { scene: this.live()?.scene, attacker: attackerId, ruleset: this.settings.ruleset });
  }

  /** The results applied to a roll: the shown ones; with "apply once the GM confirms", the GM's only. */
  resultsToApply(cover, attackerId, actor, kind) {
    const results = appliedResults(cover, this.game.system?.id, actor, kind);
    const s = this.settings;
    return withOverrides(results, { scene: this.live()?.scene, attacker: attackerId, ruleset: s.ruleset, confirmedOnly: s.applyCover === "confirm" });
  }

  /** Wait for the background work started by hooks (status changes, retried rolls). */
  async settled() {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  track(promise) {
    const p = Promise.resolve(promise).catch((err) => this.notifier.error(err));
    this.pending.add(p);
    p.finally(() => this.pending.delete(p));
    return p;
  }

  // ------------------------------------------------------------------------ GM actions

  /** What a player's client may ask the GM's client to do (changes to documents they do not own). */
  gmActions() {
    return {
      dnd5eStatus: async ({ token, status }) => {
        const actor = this.tokenDocument(token)?.actor;
        if (actor) await setDnd5eStatus(actor, status);
      },
      pf2eCover: async ({ token, degree, attacker }) => {
        const actor = this.tokenDocument(token)?.actor;
        if (actor) await setPf2eCover(actor, degree, { fromUuid: this.deps.fromUuid, attacker });
      },
      scene: async ({ scene, stale = null }) => {
        // The id of a scene players may be on (the viewed or the active one), sent first if need be.
        const viewed = this.live()?.scene?.id;
        if (scene !== viewed && scene !== this.game.scenes?.active?.id) {
          throw new SightlineError("invalid", { message: `not a scene the table views: ${scene}` });
        }
        return this.sync.idFor(scene, typeof stale === "string" ? stale : null);
      },
      details: async ({ attacker, targets, kind }, user) => {
        if (!user || (!user.isGM && !ownsToken(this.live()?.scene, attacker, user))) return null;
        return this.postDetails({ attacker, targets, kind });
      },
    };
  }

  /** Run a GM action here (a GM) or on the active GM's client (a player). */
  gm(action, args) {
    if (this.game.user.isGM || !this.relay) return this.gmActions()[action](args, this.game.user);
    return this.relay.action(action, args);
  }

  tokenDocument(id) {
    return this.live()?.scene?.tokens?.get?.(id) ?? null;
  }

  // ------------------------------------------------------------------------ asking

  cacheKey(attacker, kind) {
    const s = this.settings;
    return `${this.sync?.sceneId}|${attacker}|${kind}|${s.ruleset}|${JSON.stringify(s.options)}`;
  }

  /** The answers asked for this attacker, kind and scene, for every target; else null. */
  cached(attacker, targets, kind) {
    if (!this.sync || this.sync.dirty || !this.sync.sceneId) return null;
    const entry = this.answers.get(this.cacheKey(attacker, kind));
    if (!entry) return null;
    const ids = new Set(entry.cover.results.map((r) => r.target));
    return targets.every((t) => ids.has(t)) ? entry : null;
  }

  /** Ask cover and vision of `targets` from `attacker` (no pictures), and remember them. */
  async ask(attacker, targets, kind) {
    const s = this.settings;
    const answers = await askAttack({ sync: this.sync, client: this.client }, { ruleset: s.ruleset, options: s.options, attacker, targets, kind, pictures: false });
    this.answers.set(this.cacheKey(attacker, kind), answers);
    return answers;
  }

  // ------------------------------------------------------------------------ triggers

  /** The attacking token: the message's speaker first, else the controlled token. */
  actingToken(speakerToken = null) {
    const canvas = this.deps.canvas();
    const spoken = speakerToken ? canvas?.tokens?.get?.(speakerToken) ?? null : null;
    if (spoken) return spoken;
    return canvas?.tokens?.controlled?.[0] ?? null;
  }

  targets(attacker) {
    return [...(this.game.user.targets ?? [])].filter((t) => t.id !== attacker.id);
  }

  targeted(user, token, targeted) {
    if (user?.id !== this.game.user.id || !this.client) return;
    if (!targeted) clearMarker(token);
    clearTimeout(this.targetTimer);
    this.targetTimer = setTimeout(() => {
      this.targetTimer = null;
      this.track(this.onTargets());
    }, TARGETING_DEBOUNCE_MS);
  }

  /** After targeting: ask quietly, mark the targets, set pf2e/sfrpg cover; the card if set so. */
  async onTargets() {
    const s = this.settings;
    if (s.askWhen === "targeting") return this.askCover({ update: true, quiet: true });
    const attacker = this.actingToken();
    if (!attacker) return null;
    const targets = this.targets(attacker);
    if (!targets.length) return null;
    const answers = await this.ask(attacker.id, targets.map((t) => t.id), "ranged");
    this.notifier.clear();
    this.markTargets(attacker, targets, answers);
    await this.applyOnTargeting(attacker, targets, answers, "ranged");
    return answers;
  }

  markTargets(attacker, targets, { cover, vision }) {
    const s = this.settings;
    if (!s.marker) return;
    const { i18n } = this.game;
    const seen = new Map((vision?.results ?? []).map((r) => [r.target, r]));
    const results = this.shownResults(cover, attacker.id, attacker.actor, "ranged");
    for (const token of targets) {
      const result = results.find((r) => r.target === token.id);
      if (!result) continue;
      const degree = i18n.localize(`SIGHTLINE.Cover.${result.cover}`);
      const unseen = seen.get(token.id)?.can_see === false ? ` · ${i18n.localize("SIGHTLINE.Marker.Unseen")}` : "";
      showMarker(this.deps.PIXI ?? globalThis.PIXI, token, `${degree}${unseen}`);
    }
  }

  /** pf2e and sfrpg have no pre-roll hook: their cover is set when the targets are known. */
  async applyOnTargeting(attacker, targets, { cover }, kind) {
    const system = this.game.system?.id;
    const results = this.resultsToApply(cover, attacker.id, attacker.actor, kind);
    if (system === "pf2e" && this.applies("pf2e")) {
      for (const result of results) await this.gm("pf2eCover", { token: result.target, degree: result.cover, attacker: attacker.id });
    }
    if (system === "sfrpg" && this.applies("sfrpg") && attacker.actor?.isOwner !== false && attacker.actor) {
      const one = results.length === 1 ? results[0] : null;
      const label = `Sightline: ${this.game.i18n.localize(`SIGHTLINE.Cover.${one?.cover ?? "none"}`)}`;
      await setSfrpgModifier(attacker.actor, { bonus: one?.ac_bonus ?? 0, kind, label });
    }
  }

  chatMessage(message) {
    if (authorOf(message) !== this.game.user.id || this.settings.askWhen !== "attack" || !isAttackRoll(message)) return null;
    return this.askCover({ update: false, speakerToken: message.speaker?.token, kind: messageKind(message), rollMessage: message });
  }

  // ------------------------------------------------------------------------ rolls

  /**
   * dnd5e.preRollAttackV2 (synchronous): apply the answer asked on targeting; without one,
   * stop this roll, ask, and roll again once.
   */
  dnd5ePreRoll(config, dialog, message) {
    if (this.game.system?.id !== "dnd5e" || !this.applies("dnd5e") || !this.sync) return true;
    if (this.game.modules?.get?.("midi-qol")?.active && this.applies("midi-qol")) return true; // midiPreamble
    const attacker = this.actingToken(message?.data?.speaker?.token);
    if (!attacker) return true;
    const targets = this.targets(attacker);
    if (!targets.length) return true;
    const kind = dnd5eKind(config.subject);
    const answers = this.cached(attacker.id, targets.map((t) => t.id), kind);
    if (!answers) {
      if (config.sightlineRetry || typeof config.subject?.rollAttack !== "function") return true;
      const again = { event: config.event, sightlineRetry: true };
      for (const key of ["ammunition", "attackMode", "mastery"]) if (config[key] !== undefined) again[key] = config[key];
      this.track(this.ask(attacker.id, targets.map((t) => t.id), kind).then(() => config.subject.rollAttack(again, dialog, message)));
      return false;
    }
    const results = this.resultsToApply(answers.cover, attacker.id, attacker.actor, kind);
    const entries = targets.map((token) => ({ token, result: results.find((r) => r.target === token.id) })).filter((e) => e.result);
    for (const { token, status } of dnd5eAdjust(config, message, entries)) {
      this.track(this.gm("dnd5eStatus", { token: token.id, status }));
    }
    return true;
  }

  /** midi-qol.prePreambleComplete (awaited by midi): the statuses set before midi checks hits. */
  async midiPreamble(workflow) {
    if (this.game.system?.id !== "dnd5e" || !this.applies("midi-qol") || !this.sync) return true;
    const attacker = workflow?.token?.object ?? workflow?.token;
    const targets = [...(workflow?.targets ?? [])].map((t) => t.object ?? t).filter((t) => t.id !== attacker?.id);
    if (!attacker || !targets.length) return true;
    const kind = dnd5eKind(workflow.activity);
    try {
      const answers = this.cached(attacker.id, targets.map((t) => t.id), kind) ?? (await this.ask(attacker.id, targets.map((t) => t.id), kind));
      for (const result of this.resultsToApply(answers.cover, attacker.id, attacker.actor, kind)) {
        await this.gm("dnd5eStatus", { token: result.target, status: DND5E_STATUS[result.cover] ?? null });
      }
    } catch (err) {
      this.notifier.error(err);
    }
    return true;
  }

  // ------------------------------------------------------------------------ cards

  /**
   * Post (or update) the cover card of the user's targets.
   *
   * @param {object} [opts]
   * @param {boolean} [opts.update] update the user's last card for this attacker
   * @param {boolean} [opts.quiet]  no notification for a missing attacker or target
   * @param {string} [opts.speakerToken] token id of an attack message's speaker
   * @param {string} [opts.kind]    attack kind (the item rolled)
   * @param {object} [opts.rollMessage] the attack roll message whose audience the card follows
   * @returns {Promise<object|null>} the chat message, or null
   */
  async askCover({ update = false, quiet = false, speakerToken = null, kind = "ranged", rollMessage = null } = {}) {
    const { game, ChatMessage, renderTemplate } = this.deps;
    if (!this.client) return null;
    const attacker = this.actingToken(speakerToken);
    if (!attacker) {
      if (!quiet) this.notifier.warn("SIGHTLINE.Error.noController");
      return null;
    }
    const targets = this.targets(attacker);
    if (!targets.length) {
      if (!quiet) this.notifier.warn("SIGHTLINE.Error.noTargets");
      return null;
    }
    const s = this.settings;
    const ids = targets.map((t) => t.id);
    try {
      const audience = cardAudience(game, rollMessage);
      const forPlayers = playersSee(audience, game);
      const answers = await askAttack(
        { sync: this.sync, client: this.client },
        { ruleset: s.ruleset, options: s.options, attacker: attacker.id, targets: ids, kind, pictures: s.pictures, viewer: forPlayers ? attacker.id : "gm", crop: true },
      );
      this.answers.set(this.cacheKey(attacker.id, kind), answers);
      this.notifier.clear();
      const secrets = secretsOf(answers.cover, this.live()?.scene);
      const anySecret = [...secrets.values()].some((list) => list.length);
      const data = cardData({
        i18n: game.i18n,
        ruleset: s.ruleset,
        attacker: { id: attacker.id, name: attacker.name },
        names: Object.fromEntries(targets.map((t) => [t.id, t.name])),
        ...answers,
        results: this.shownResults(answers.cover, attacker.id, attacker.actor, kind),
        summaries: this.summaries,
        hide: forPlayers ? secrets : null,
        details: forPlayers ? null : secrets,
      });
      if (!forPlayers) this.withOverrideButtons(data, answers.cover, kind);
      const content = await renderTemplate(TEMPLATES.card, data);
      const message = await postCard(
        { ChatMessage, messages: game.messages, user: game.user },
        {
          content,
          update,
          ...audience,
          speaker: ChatMessage.getSpeaker?.({ token: attacker.document ?? attacker }) ?? {},
          flags: { card: "attack", attacker: attacker.id, targets: ids, ruleset: s.ruleset },
        },
      );
      // The GMs' whisper: the secrets, and the degrees to confirm or override (override.js).
      if (forPlayers && (anySecret || s.applyCover === "confirm")) await this.gm("details", { attacker: attacker.id, targets: ids, kind });
      return message;
    } catch (err) {
      this.notifier.error(err);
      return null;
    }
  }

  /**
   * The GMs' whisper: the card with the secrets of each target and the GM's picture. Run on
   * a GM's client (gmActions `details`).
   */
  async postDetails({ attacker, targets, kind = "ranged" }) {
    const { game, ChatMessage, renderTemplate } = this.deps;
    const s = this.settings;
    const answers = await askAttack(
      { sync: this.sync, client: this.client },
      { ruleset: s.ruleset, options: s.options, attacker, targets, kind, pictures: s.pictures, viewer: "gm", crop: true },
    );
    const scene = this.live()?.scene;
    const attackerDoc = scene?.tokens?.get?.(attacker);
    const names = Object.fromEntries(targets.map((id) => [id, scene?.tokens?.get?.(id)?.name ?? id]));
    const data = cardData({
      i18n: game.i18n,
      ruleset: s.ruleset,
      attacker: { id: attacker, name: attackerDoc?.name ?? attacker },
      names,
      ...answers,
      results: this.shownResults(answers.cover, attacker, attackerDoc?.actor, kind),
      summaries: this.summaries,
      details: secretsOf(answers.cover, scene),
    });
    this.withOverrideButtons(data, answers.cover, kind);
    const content = await renderTemplate(TEMPLATES.card, { ...data, gm: true });
    return postCard(
      { ChatMessage, messages: game.messages, user: game.user },
      { content, whisper: gmIds(game), flags: { card: "gm-details", attacker, targets, ruleset: s.ruleset } },
    );
  }

  /**
   * Whisper to the user what `observerId` (default: the controlled token) can see: every
   * other token for a GM, the tokens the user's canvas shows for a player.
   */
  async askVision(observerId = null) {
    const { game, ChatMessage, renderTemplate } = this.deps;
    const canvas = this.deps.canvas();
    if (!this.client) return null;
    const observer = observerId ? canvas?.tokens?.get?.(observerId) : this.actingToken();
    if (!observer) {
      this.notifier.warn("SIGHTLINE.Error.noController");
      return null;
    }
    const others = (canvas.tokens.placeables ?? []).filter(
      (t) => t.id !== observer.id && (game.user.isGM || t.visible !== false),
    );
    const s = this.settings;
    try {
      const vision = others.length
        ? await askVision({ sync: this.sync, client: this.client }, { ruleset: s.ruleset, options: s.options, observer: observer.id, targets: others.map((t) => t.id) })
        : { results: [] };
      this.notifier.clear();
      const data = visionData({
        i18n: game.i18n,
        ruleset: s.ruleset,
        observer: { id: observer.id, name: observer.name },
        names: Object.fromEntries(others.map((t) => [t.id, t.name])),
        vision,
        summaries: this.summaries,
      });
      const content = await renderTemplate(TEMPLATES.vision, data);
      return await postCard(
        { ChatMessage, messages: game.messages, user: game.user },
        { content, whisper: [game.user.id], flags: { card: "vision", attacker: observer.id, ruleset: s.ruleset } },
      );
    } catch (err) {
      this.notifier.error(err);
      return null;
    }
  }

  /**
   * The buttons of a rendered card (an HTMLElement: v13 renderChatMessageHTML): "vision", and
   * on a GM's client the degrees to confirm or override (removed on any other client).
   */
  bindCard(element) {
    if (!element?.querySelectorAll) return;
    for (const button of element.querySelectorAll("[data-action=sightline-vision]")) {
      button.addEventListener("click", (event) => {
        event.preventDefault();
        this.askVision(button.dataset.token || null);
      });
    }
    for (const group of element.querySelectorAll(".sightline-override")) {
      if (!this.game.user?.isGM) {
        group.remove();
        continue;
      }
      for (const button of group.querySelectorAll("[data-action=sightline-override]")) {
        button.addEventListener("click", (event) => {
          event.preventDefault();
          const { attacker, target, kind } = group.dataset;
          const answered = group.querySelector("[data-answered=true]")?.dataset.degree ?? null;
          this.track(this.override({ attacker, target, kind, answered, degree: button.dataset.degree })).then((done) => {
            if (!done) return;
            for (const other of group.querySelectorAll("[data-action=sightline-override]")) other.setAttribute("aria-pressed", String(other === button));
          });
        });
      }
    }
  }

  /** Each target of a card only GMs see gets the degrees to confirm or override (not in "only tell"). */
  withOverrideButtons(data, cover, kind) {
    const s = this.settings;
    if (s.applyCover === "tell") return data;
    const answered = new Map((cover?.results ?? []).map((r) => [r.target, r.cover]));
    for (const target of data.targets) {
      target.override = { kind, buttons: overrideButtons(this.game.i18n, data.ruleset, target.degree, answered.get(target.id) ?? target.degree) };
    }
    return data;
  }

  /**
   * The GM's degree for `attacker` at `target` (override.js): kept on the scene and
   * applied at once through the integrations that are on; the GMs get a whisper saying so.
   *
   * @param {object} args
   * @param {string} args.attacker  token id
   * @param {string} args.target    token id
   * @param {string} args.degree    a degree of the ruleset
   * @param {string} [args.kind]    attack kind (sfrpg's modifier is per melee / ranged)
   * @param {string} [args.answered] the service's degree (the card's), else this client's last answer's
   * @returns {Promise<object|null>} the result applied, or null (not a GM, unknown token)
   */
  async override({ attacker, target, degree, kind = "ranged", answered = null }) {
    const { game, ChatMessage } = this.deps;
    const scene = this.live()?.scene;
    const attackerDoc = scene?.tokens?.get?.(attacker);
    const targetDoc = scene?.tokens?.get?.(target);
    if (!game.user?.isGM || !attackerDoc || !targetDoc || typeof scene.update !== "function") return null;
    const s = this.settings;
    answered ??= this.answers.get(this.cacheKey(attacker, kind))?.cover?.results?.find((r) => r.target === target)?.cover ?? null;
    await scene.update(overrideUpdate(targetDoc, attackerDoc, degree));
    const result = withDegree({ target, cover: answered }, s.ruleset, degree);
    const system = game.system?.id;
    if (system === "dnd5e" && targetDoc.actor && (this.applies("dnd5e") || this.applies("midi-qol"))) {
      await setDnd5eStatus(targetDoc.actor, DND5E_STATUS[degree] ?? null);
    }
    if (system === "pf2e" && targetDoc.actor && this.applies("pf2e")) {
      await setPf2eCover(targetDoc.actor, degree, { fromUuid: this.deps.fromUuid, attacker });
    }
    if (system === "sfrpg" && attackerDoc.actor && this.applies("sfrpg")) {
      const label = `Sightline: ${game.i18n.localize(`SIGHTLINE.Cover.${degree}`)}`;
      await setSfrpgModifier(attackerDoc.actor, { bonus: result.ac_bonus ?? 0, kind, label });
    }
    const name = (key) => game.i18n.localize(`SIGHTLINE.Cover.${key}`);
    const content = game.i18n.format("SIGHTLINE.Override.Set", {
      attacker: attackerDoc.name ?? attacker,
      target: targetDoc.name ?? target,
      degree: name(degree),
      answered: answered ? name(answered) : "?",
    });
    await postCard({ ChatMessage, messages: game.messages, user: game.user }, { content: `<p class="sightline-override-note">${content}</p>`, whisper: gmIds(game), flags: { card: "gm-override", attacker, targets: [target], degree } });
    return result;
  }

  /**
   * Buttons in the token controls: cover of my targets, what my token can see; for a GM, the
   * toggle of the traced lines' overlay (overlay.js).
   */
  addControls(controls) {
    const { game } = this.deps;
    const tools = [
      { name: `${MODULE_ID}-cover`, title: "SIGHTLINE.Controls.Cover", icon: "fa-solid fa-shield-halved", run: () => this.askCover() },
      { name: `${MODULE_ID}-vision`, title: "SIGHTLINE.Controls.Vision", icon: "fa-solid fa-eye", run: () => this.askVision() },
    ];
    const lines = { name: `${MODULE_ID}-lines`, title: "SIGHTLINE.Controls.Lines", icon: "fa-solid fa-bezier-curve", toggle: (on) => this.overlay.toggle(on) };
    const gm = Boolean(game.user?.isGM);
    if (Array.isArray(controls)) {
      // v12: an array of controls, each with an array of tools and onClick.
      const token = controls.find((c) => c.name === "token");
      for (const tool of tools) {
        token?.tools.push({ name: tool.name, title: game.i18n.localize(tool.title), icon: tool.icon, button: true, onClick: tool.run });
      }
      if (gm) token?.tools.push({ name: lines.name, title: game.i18n.localize(lines.title), icon: lines.icon, toggle: true, active: this.overlay.on, onClick: lines.toggle });
      return;
    }
    // v13: a record of controls, each with a record of tools and onChange.
    const token = controls?.tokens;
    if (!token?.tools) return;
    for (const tool of tools) {
      token.tools[tool.name] = {
        name: tool.name,
        title: tool.title,
        icon: tool.icon,
        order: Object.keys(token.tools).length,
        button: true,
        onChange: () => tool.run(),
      };
    }
    if (!gm) return;
    // v13 toggles: onChange(event, active).
    token.tools[lines.name] = {
      name: lines.name,
      title: lines.title,
      icon: lines.icon,
      order: Object.keys(token.tools).length,
      toggle: true,
      active: this.overlay.on,
      visible: true,
      onChange: (event, active) => lines.toggle(active),
    };
  }
}

/** dnd5e's `rulesVersion` world setting ("modern" or "legacy"), or null without it. */
export function dnd5eRulesVersion(game) {
  if (game.system?.id !== "dnd5e") return null;
  try {
    return game.settings.get("dnd5e", "rulesVersion") ?? null;
  } catch {
    return null; // an older dnd5e: no such setting, the legacy rules
  }
}
