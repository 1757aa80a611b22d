/** The handed case of the chat-card tests and the screenshot (Foundry v12 scene data). */

/**
 * Handed case (100 px squares, 5 ft): the archer at (100, 100); the goblin four squares east
 * behind a post (x = 350, y 50..160) that cuts the two upper paired-corner lines (y ~ 100.5)
 * and the centre line (y = 150) but not the two lower ones (y ~ 199.5); the kobold behind a
 * full wall (x = 750, y 300..600).
 */
export const HANDED = {
  _id: "handedScene00001",
  name: "Handed case",
  width: 1000,
  height: 600,
  padding: 0,
  grid: { type: 1, size: 100, distance: 5, units: "ft" },
  environment: { darknessLevel: 0, globalLight: { enabled: true, bright: true, darkness: { min: 0, max: 1 } } },
  walls: [
    { _id: "postWall00000001", c: [350, 50, 350, 160], move: 20, sight: 20, light: 20, sound: 20, dir: 0, door: 0, ds: 0 },
    { _id: "fullWall00000001", c: [750, 300, 750, 600], move: 20, sight: 20, light: 20, sound: 20, dir: 0, door: 0, ds: 0 },
  ],
  tokens: [
    { _id: "archerToken00001", name: "Archer", x: 100, y: 100, width: 1, height: 1 },
    { _id: "goblinToken00001", name: "Goblin", x: 500, y: 100, width: 1, height: 1 },
    { _id: "koboldToken00001", name: "Kobold", x: 800, y: 400, width: 1, height: 1 },
  ],
};
export const ARCHER = "archerToken00001";
export const GOBLIN = "goblinToken00001";
export const KOBOLD = "koboldToken00001";

export const LURKER = "lurkerToken00001";
export const SECRET_DOOR = "secretDoor000001";
/**
 * The handed case with two secrets beside the goblin: a hidden "Invisible Stalker" (Foundry
 * `hidden`) in the lower lines, a secret door (door 2) across the goblin's lower edge.
 */
export const SECRETS = structuredClone(HANDED);
SECRETS.tokens.push({ _id: LURKER, name: "Invisible Stalker", x: 300, y: 170, width: 1, height: 1, hidden: true });
SECRETS.walls.push({ _id: SECRET_DOOR, c: [450, 170, 450, 300], move: 20, sight: 20, light: 20, sound: 20, dir: 0, door: 2, ds: 0 });
