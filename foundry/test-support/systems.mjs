/**
 * The parts of the game systems the roll integrations meet, as those systems behave.
 *
 * dnd5e 4.x/5.x (module/documents/activity/attack.mjs `rollAttack`, module/dice/basic-roll.mjs
 * `buildConfigure`, module/documents/actor/actor.mjs `coverBonus`,
 * module/data/actor/templates/attributes.mjs AC): the targets' AC is read (a `coverTotal`
 * target has none) before `dnd5e.preRollAttackV2` is called with the roll configuration
 * (`target`: the one target's AC), the dialog and the message configuration; a hook that
 * returns false stops the roll. AC = base + the cover status's bonus (half 2,
 * three-quarters 5).
 *
 * pf2e: an "Effect: Cover" item on the target whose FlatModifier adds
 * `@item.flags.pf2e.rulesSelections.cover.bonus` as a circumstance bonus to AC (the system's
 * effect; here only the fields the integration sets and a Strike reads). midi-qol: its
 * workflow awaits `midi-qol.prePreambleComplete`, then rolls through the dnd5e activity.
 */

let uuids = 0;

class Items extends Map {
  get contents() {
    return [...this.values()];
  }
}

/** A dnd5e actor: statuses, toggleStatusEffect, coverBonus and AC as dnd5e derives them. */
export function dnd5eActor({ name, ac = 12, owners = [] }) {
  uuids += 1;
  const actor = {
    uuid: `Actor.dnd5e${uuids}`,
    name,
    statuses: new Set(),
    items: new Items(),
    flags: {},
    toggles: 0,
    owners,
    baseAc: ac,
    get coverBonus() {
      if (this.statuses.has("coverThreeQuarters")) return 5;
      if (this.statuses.has("coverHalf")) return 2;
      return 0;
    },
    get system() {
      return { attributes: { ac: { value: this.baseAc + this.coverBonus, cover: this.coverBonus } } };
    },
    async toggleStatusEffect(id, { active } = {}) {
      const on = active ?? !this.statuses.has(id);
      if (on) {
        // dnd5e's cover statuses form one exclusive group
        if (id.startsWith("cover")) for (const s of [...this.statuses]) if (s.startsWith("cover")) this.statuses.delete(s);
        this.statuses.add(id);
      } else this.statuses.delete(id);
      this.toggles += 1;
      return on;
    },
    testUserPermission(user) {
      return Boolean(user?.isGM || owners.includes(user?.id));
    },
  };
  return actor;
}

/** Give every token of a mocked Foundry a dnd5e actor (shared by all clients of a table). */
export function withDnd5eActors(f, specs = {}) {
  for (const doc of f.canvas.scene.tokens.contents) {
    doc.actor ??= dnd5eActor({ name: doc.name, ...(specs[doc.id] ?? {}) });
    doc.testUserPermission ??= (user) => doc.actor.testUserPermission(user);
  }
  for (const t of f.canvas.tokens.placeables) t.actor = t.document.actor;
  return f;
}

/**
 * A dnd5e attack activity of `actor`, rolled as AttackActivity#rollAttack does (the order of
 * its steps), with a fixed d20.
 *
 * @returns {object} `{attack: {type}, actor, rolled: [...], rollAttack(config, dialog, message)}`
 */
export function dnd5eAttack({ f, actor, type = "ranged", classification = "weapon", bonus = 5, d20 = 10 }) {
  const activity = {
    actor,
    attack: { type: { value: type, classification } },
    rolled: [],
    async rollAttack(config = {}, dialog = {}, message = {}) {
      const targets = [...f.game.user.targets].map((t) => {
        const a = t.actor;
        return { name: t.name, uuid: a.uuid, ac: a.statuses.has("coverTotal") ? null : a.system.attributes.ac.value };
      });
      const speaker = { token: f.canvas.tokens.placeables.find((t) => t.actor === actor)?.id ?? null, actor: null };
      const rollConfig = { ...config, target: targets.length === 1 ? targets[0].ac : undefined, subject: this, rolls: [{ parts: ["@mod"], data: { mod: bonus } }] };
      rollConfig.hookNames = [...(config.hookNames ?? []), "attack", "d20Test", ""];
      const messageConfig = {
        ...message,
        data: { flavor: "Attack Roll", speaker, flags: { dnd5e: { targets, roll: { type: "attack" } } }, ...(message.data ?? {}) },
      };
      for (const name of rollConfig.hookNames) {
        const hook = `dnd5e.preRoll${name ? name[0].toUpperCase() + name.slice(1) : ""}V2`;
        if (f.Hooks.call(hook, rollConfig, dialog, messageConfig) === false) return null;
      }
      const total = d20 + bonus;
      const roll = { total, target: rollConfig.target, hit: typeof rollConfig.target === "number" ? total >= rollConfig.target : null, message: messageConfig };
      this.rolled.push(roll);
      return roll;
    },
  };
  return activity;
}

/** A stand-in of pf2e's "Effect: Cover" (only what the integration and a Strike read). */
export function pf2eCoverEffect() {
  return {
    toObject: () => ({
      _id: "I9lfZUiCwMiGogVi",
      name: "Effect: Cover",
      type: "effect",
      system: {
        rules: [
          { key: "ChoiceSet", flag: "cover" },
          { key: "FlatModifier", selector: "ac", type: "circumstance", value: "@item.flags.pf2e.rulesSelections.cover.bonus" },
        ],
      },
      flags: {},
    }),
  };
}

/** A pf2e actor with embedded items and the AC a Strike is rolled against. */
export function pf2eActor({ name, ac = 18 }) {
  uuids += 1;
  let next = 0;
  const actor = {
    uuid: `Actor.pf2e${uuids}`,
    name,
    items: new Items(),
    async createEmbeddedDocuments(type, list) {
      return list.map((data) => {
        next += 1;
        const item = { ...structuredClone(data), id: `item${next}`, parent: actor };
        actor.items.set(item.id, item);
        return item;
      });
    },
    async deleteEmbeddedDocuments(type, ids) {
      for (const id of ids) actor.items.delete(id);
    },
    /** AC with the highest circumstance bonus of its FlatModifiers (pf2e stacking rules). */
    get ac() {
      let circumstance = 0;
      for (const item of actor.items.values()) {
        for (const rule of item.system?.rules ?? []) {
          if (rule.key !== "FlatModifier" || rule.selector !== "ac") continue;
          const path = String(rule.value).replace(/^@item\./, "").split(".");
          const value = Number(path.reduce((node, part) => node?.[part], item));
          if (rule.type === "circumstance") circumstance = Math.max(circumstance, value || 0);
        }
      }
      return { value: ac + circumstance, circumstance };
    },
    testUserPermission: (user) => Boolean(user?.isGM),
  };
  return actor;
}
