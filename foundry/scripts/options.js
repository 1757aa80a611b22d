/**
 * Ruleset options as `GET /v1/rulesets` lists them, turned into form fields and back.
 *
 * Nothing is hard-coded: each option's kind comes from its listed default and choices.
 * Options whose default is a list (`take_cover`, `partial_cover`, `unnoticed`, ...) name
 * tokens for one query: they are GM rulings, not settings, and are left out of the form.
 */

/** Kind of an option from its listing: choice, boolean, number, numbers (object) or null. */
export function optionKind(spec) {
  if (Array.isArray(spec.choices) && spec.choices.length) return "choice";
  const d = spec.default;
  if (typeof d === "boolean") return "boolean";
  if (typeof d === "number") return "number";
  if (d && typeof d === "object" && !Array.isArray(d) && Object.values(d).every((v) => typeof v === "number")) return "numbers";
  return null;
}

/**
 * Form fields of a ruleset's options.
 *
 * @param {object} ruleset  one entry of `GET /v1/rulesets` (`options: {name: {default, choices, description}}`)
 * @param {object} current  saved values of this ruleset (name -> value)
 * @returns {object[]} `{name, kind, description, default, value, choices?, entries?}`
 */
export function optionFields(ruleset, current = {}) {
  const fields = [];
  for (const [name, spec] of Object.entries(ruleset?.options ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const kind = optionKind(spec);
    if (!kind) continue;
    const value = current[name] ?? spec.default;
    const field = { name, kind, description: spec.description ?? "", default: JSON.stringify(spec.default), value };
    if (kind === "choice") field.choices = spec.choices.map((c) => ({ value: c, selected: c === value }));
    if (kind === "numbers") {
      field.entries = Object.entries(spec.default).map(([key, d]) => ({ key, value: value?.[key] ?? d }));
    }
    fields.push(field);
  }
  return fields;
}

/**
 * Options to save from a submitted form, keeping only values that differ from the defaults.
 *
 * @param {object} ruleset   one entry of `GET /v1/rulesets`
 * @param {object} submitted `{name: value}` as the form gives them (strings, booleans)
 * @returns {object} name -> value in the types the service takes
 */
export function readOptions(ruleset, submitted = {}) {
  const out = {};
  for (const [name, spec] of Object.entries(ruleset?.options ?? {})) {
    const kind = optionKind(spec);
    const raw = submitted[name];
    let value;
    if (kind === "choice") value = spec.choices.includes(raw) ? raw : spec.default;
    else if (kind === "boolean") value = raw === true || raw === "true" || raw === "on";
    else if (kind === "number") value = raw === "" || raw === undefined || Number.isNaN(Number(raw)) ? spec.default : Number(raw);
    else if (kind === "numbers") {
      value = {};
      for (const [key, d] of Object.entries(spec.default)) {
        const n = Number(raw?.[key]);
        value[key] = raw?.[key] === "" || raw?.[key] === undefined || Number.isNaN(n) ? d : n;
      }
    } else continue;
    if (JSON.stringify(value) !== JSON.stringify(spec.default)) out[name] = value;
  }
  return out;
}
