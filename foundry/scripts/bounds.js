/**
 * The service's bounds the module builds its scenes within (`model` of data/bounds.json) and
 * each ruleset's cover degrees (`cover`), written by foundry/tools/bounds.py from
 * service/model.py and the rule modules (service/rules/RULESET/cover.py), as a script module.
 *
 * A copy because a browser module cannot import JSON everywhere Foundry v12 to v14 run
 * (import attributes need Chromium 123 and Firefox 138; Foundry v12's desktop app is older);
 * test/bounds.test.mjs fails when it differs from data/bounds.json, which
 * `python foundry/tools/bounds.py --check` keeps current with service.model.
 */

/** service.model bounds by name (px, grid units, counts). */
export const MODEL_BOUNDS = Object.freeze({
  "MAX_COORD_PX": 10000000,
  "MAX_EXTENT_PX": 20000000,
  "MAX_GRAVITY": 1000,
  "MAX_GRID_SIZE_PX": 100000,
  "MAX_POLYGON_POINTS": 10000,
  "MAX_SQUARES": 1000,
  "MAX_UNITS": 1000000,
  "MIN_GRID_DISTANCE": 0.001,
  "MIN_GRID_SIZE_PX": 1,
  "MIN_SQUARES": 0.01
});

/** Each ruleset's cover degrees, weakest first, with the bonuses a cover result gives them. */
export const COVER_DEGREES = Object.freeze({
  "dnd2024": [
    {
      "ac_bonus": 0,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "none",
      "save_bonus": 0
    },
    {
      "ac_bonus": 2,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "half",
      "save_bonus": 2
    },
    {
      "ac_bonus": 5,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "three-quarters",
      "save_bonus": 5
    },
    {
      "ac_bonus": null,
      "advantage_levels": 0,
      "can_target": false,
      "cover": "total",
      "save_bonus": null
    }
  ],
  "dnd5e": [
    {
      "ac_bonus": 0,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "none",
      "save_bonus": 0
    },
    {
      "ac_bonus": 2,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "half",
      "save_bonus": 2
    },
    {
      "ac_bonus": 5,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "three-quarters",
      "save_bonus": 5
    },
    {
      "ac_bonus": null,
      "advantage_levels": 0,
      "can_target": false,
      "cover": "total",
      "save_bonus": null
    }
  ],
  "pf2e": [
    {
      "ac_bonus": 0,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "none",
      "save_bonus": 0
    },
    {
      "ac_bonus": 1,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "lesser",
      "save_bonus": 0
    },
    {
      "ac_bonus": 2,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "standard",
      "save_bonus": 2
    },
    {
      "ac_bonus": 4,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "greater",
      "save_bonus": 4
    },
    {
      "ac_bonus": null,
      "advantage_levels": 0,
      "can_target": false,
      "cover": "total",
      "save_bonus": null
    }
  ],
  "pf2e-variant": [
    {
      "ac_bonus": 0,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "none",
      "save_bonus": 0
    },
    {
      "ac_bonus": 0,
      "advantage_levels": 1,
      "can_target": true,
      "cover": "lesser",
      "save_bonus": 0
    },
    {
      "ac_bonus": 0,
      "advantage_levels": 2,
      "can_target": true,
      "cover": "standard",
      "save_bonus": 0
    },
    {
      "ac_bonus": 0,
      "advantage_levels": 3,
      "can_target": true,
      "cover": "greater",
      "save_bonus": 0
    },
    {
      "ac_bonus": null,
      "advantage_levels": 0,
      "can_target": false,
      "cover": "total",
      "save_bonus": null
    }
  ],
  "starfinder": [
    {
      "ac_bonus": 0,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "none",
      "save_bonus": 0
    },
    {
      "ac_bonus": 2,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "partial",
      "save_bonus": 1
    },
    {
      "ac_bonus": 4,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "cover",
      "save_bonus": 2
    },
    {
      "ac_bonus": 4,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "soft",
      "save_bonus": 0
    },
    {
      "ac_bonus": 8,
      "advantage_levels": 0,
      "can_target": true,
      "cover": "improved",
      "save_bonus": 4
    },
    {
      "ac_bonus": null,
      "advantage_levels": 0,
      "can_target": false,
      "cover": "total",
      "save_bonus": null
    }
  ]
});
