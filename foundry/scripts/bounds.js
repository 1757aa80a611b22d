/**
 * The service's bounds the module builds its scenes within: `model` of data/bounds.json
 * (written by foundry/tools/bounds.py from service/model.py), as a script module.
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
