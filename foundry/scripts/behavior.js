/**
 * The "Sightline environment" region behaviour (module.json documentTypes.RegionBehavior).
 *
 * A GM adds it to a region like any core behaviour; scene.js reads its fields into the
 * canonical region (obscurement, concealment, magical darkness, water, gravity: GEO-9).
 */

import { BEHAVIOR_TYPE } from "./constants.js";

/**
 * Register the behaviour type when Foundry offers region behaviours (v12+).
 *
 * @param {object} foundry  the `foundry` namespace
 * @param {object} CONFIG   Foundry's CONFIG
 * @returns {boolean} whether it was registered
 */
export function registerBehavior(foundry, CONFIG) {
  const Base = foundry?.data?.regionBehaviors?.RegionBehaviorType;
  const fields = foundry?.data?.fields;
  if (!Base || !fields || !CONFIG?.RegionBehavior) return false;
  class SightlineEnvironment extends Base {
    static LOCALIZATION_PREFIXES = ["SIGHTLINE.Behavior"];

    static defineSchema() {
      return {
        obscurement: new fields.StringField({
          required: true,
          blank: true,
          initial: "",
          choices: {
            "": "SIGHTLINE.Behavior.Obscurement.none",
            light: "SIGHTLINE.Behavior.Obscurement.light",
            heavy: "SIGHTLINE.Behavior.Obscurement.heavy",
          },
        }),
        concealment: new fields.BooleanField({ initial: false }),
        magicalDarkness: new fields.BooleanField({ initial: false }),
        water: new fields.BooleanField({ initial: false }),
        gravity: new fields.NumberField({ required: false, nullable: true, initial: null, min: 0 }),
      };
    }
  }
  CONFIG.RegionBehavior.dataModels[BEHAVIOR_TYPE] = SightlineEnvironment;
  CONFIG.RegionBehavior.typeLabels ??= {};
  CONFIG.RegionBehavior.typeLabels[BEHAVIOR_TYPE] = "SIGHTLINE.Behavior.Label";
  CONFIG.RegionBehavior.typeIcons ??= {};
  CONFIG.RegionBehavior.typeIcons[BEHAVIOR_TYPE] = "fa-solid fa-eye-low-vision";
  return true;
}
