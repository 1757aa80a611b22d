"""Value types of the canonical scene and of answers.

Units: positions and wall coordinates are scene **pixels** (y grows downward); radii,
ranges, elevations, thresholds and heights are **grid units** (``Grid.distance`` units per
square, normally feet); token ``width``/``height`` are **squares**.

The JSON form of these types is the canonical scene of ``shared/DESIGN.md``; it is loaded
and validated by ``schemas.scene.SceneSchema`` (by msgspec in bulk, or field by field).

The types are frozen ``msgspec`` Structs: msgspec decodes a scene's JSON straight into
them, checking in C every type, every ``Annotated`` bound and every ``__post_init__`` check
below: a 5,000-wall scene decodes in less time than ``json.loads`` takes (``docs/decisions.md``,
"The scene model is msgspec Structs").
``__post_init__`` checks raise ``ValueError``.

**The bounds are declared here only.** ``SceneSchema`` (the reference for error messages:
whatever msgspec refuses is loaded field by field there) reads each field's range, length
and choices from these annotations (``schemas.bounds``), and the adapters import the
module constants below; ``tests/schemas/test_model_bounds.py`` checks that every bounded
field agrees.

``Wall``, ``Threshold`` and ``Span`` encode without their defaults (``omit_defaults``), which
makes the canonical JSON that ``scene_id`` hashes five times smaller. msgspec omits a field
whose value *is* the default object: their defaults are ``None`` and ``Literal`` strings,
which msgspec decodes to the very objects declared here, and ``schemas.scene.WallSchema``
interns its strings to the same. The other types encode every field (a float equal to its
default is not the same object, so omitting would make the encoding depend on the path).
"""

from __future__ import annotations

import math
from operator import attrgetter
from typing import Annotated, Literal, get_args

from msgspec import Meta, Struct, field
from msgspec.structs import force_setattr

Restriction = Literal["none", "limited", "normal", "proximity", "distance"]
Direction = Literal["both", "left", "right"]
DoorType = Literal["none", "door", "secret"]
DoorState = Literal["closed", "open", "locked"]
WallCover = Literal["normal", "low", "improved", "extreme"]
GridType = Literal["square", "gridless", "hex-row", "hex-col"]
Diagonals = Literal["equidistant", "alternating", "euclidean"]
LightLevel = Literal["dark", "dim", "bright"]  # darkest first
SeenBy = Literal["everyone", "controllers"]
Size = Literal["tiny", "small", "medium", "large", "huge", "gargantuan"]
Obscurement = Literal["light", "heavy"]

RESTRICTIONS: tuple[Restriction, ...] = get_args(Restriction)
SENSE_TYPES: tuple[str, ...] = ("move", "sight", "light", "sound")
SIZES: tuple[Size, ...] = get_args(Size)  # smallest first
LIGHT_LEVELS: tuple[LightLevel, ...] = get_args(LightLevel)  # darkest first

#: Ids of the rule systems a request may name (``service.rules.REGISTRY``, which
#: ``tests/project/test_layering.py`` checks against this list).
RULESET_IDS: tuple[str, ...] = ("dnd5e", "pf2e-variant", "starfinder", "dnd2024", "pf2e")
#: 5e damage types, as requests name them (``damage_types``; 5E-UW-9 looks for radiant).
DAMAGE_TYPES: tuple[str, ...] = (
    "acid",
    "bludgeoning",
    "cold",
    "fire",
    "force",
    "lightning",
    "necrotic",
    "piercing",
    "poison",
    "psychic",
    "radiant",
    "slashing",
    "thunder",
)

#: Largest coordinate magnitude accepted, in px: beyond it float geometry loses meaning.
MAX_COORD_PX = 1e7
#: Largest length (width, height, radius) accepted, in px: a span of coordinates.
MAX_EXTENT_PX = 2 * MAX_COORD_PX
#: Largest distance, radius, range, elevation or height accepted, in grid units.
MAX_UNITS = 1e6

#: Unit names that count a scene in spaces (GEO-8 "scenes counted in squares"), lower case:
#: read as the unit ``squares`` by the scene schema and the importers.
SPACE_UNIT_NAMES = ("", "squares", "square", "sq", "hexes", "hex", "spaces", "space", "cells")

#: Smallest grid distance (units per square): below it px per unit overflows to infinity.
MIN_GRID_DISTANCE = 1e-3
#: Grid square size bounds, in px per square.
MIN_GRID_SIZE_PX = 1
MAX_GRID_SIZE_PX = 1e5
#: Token width/height bounds, in squares.
MIN_SQUARES = 0.01
MAX_SQUARES = 1000
#: Largest gravity multiplier X (1 = standard).
MAX_GRAVITY = 1000
#: Bounds of an ability modifier.
MIN_ABILITY = -100
MAX_ABILITY = 100
#: Largest wall hit points.
MAX_HP = 10**9
#: Bounds of a wall's armour class.
MIN_AC = -1000
MAX_AC = 1000
#: Most points of a polygon outline.
MAX_POLYGON_POINTS = 10000
#: Most levels (floors) of a scene (GEO-10).
MAX_LEVELS = 1000
#: Most surfaces (floors, roofs, bridges) of a scene (GEO-10).
MAX_SURFACES = 1000
#: Most outline points of all surfaces of a scene together: each traced line is tested
#: against the surfaces it crosses, so their points bound the cost per line.
MAX_SURFACE_POINTS = 100_000

#: A coordinate in px, |value| <= MAX_COORD_PX.
Coord = Annotated[float, Meta(ge=-MAX_COORD_PX, le=MAX_COORD_PX)]
#: A non-negative distance in grid units, <= MAX_UNITS.
Units = Annotated[float, Meta(ge=0, le=MAX_UNITS)]
#: An elevation in grid units, |value| <= MAX_UNITS.
Elevation = Annotated[float, Meta(ge=-MAX_UNITS, le=MAX_UNITS)]
#: A point ``(x, y)`` in px.
Point = tuple[Coord, Coord]
#: A length in px, 0 <= value <= MAX_EXTENT_PX.
Extent = Annotated[float, Meta(ge=0, le=MAX_EXTENT_PX)]
#: A gravity multiplier X (1 = standard).
Gravity = Annotated[float, Meta(ge=0, le=MAX_GRAVITY)]
#: A non-empty id.
Id = Annotated[str, Meta(min_length=1)]


def size_from_width(width_squares: float) -> Size:
    """Default size category from a token's width in squares (``shared/DESIGN.md``).

    ``< 1`` small (``<= 0.5`` tiny), ``1`` medium, ``2`` large, ``3`` huge, ``4+`` gargantuan.
    """
    if width_squares <= 0.5:
        return "tiny"
    if width_squares < 1:
        return "small"
    if width_squares < 2:
        return "medium"
    if width_squares < 3:
        return "large"
    if width_squares < 4:
        return "huge"
    return "gargantuan"


class Value(Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """Base of the scene types: immutable, unknown fields refused.

    ``gc=False``: scene values never form reference cycles, so the garbage collector need
    not track them (thousands of walls per scene).
    """


class Grid(Value, frozen=True):
    """Grid: ``size`` px per square (1 to 1e5), ``distance`` grid units per square (>= 0.001).

    ``diagonals`` ``None`` means the scene does not set a diagonal rule: each ruleset takes
    its own default (GEO-8); an explicit value is the scene's rule for every ruleset.
    ``type``: ``hex-row`` is pointy-topped hexes in rows (Foundry HEXODDR/HEXEVENR),
    ``hex-col`` flat-topped hexes in columns (HEXODDQ/HEXEVENQ); on hex grids ``size`` is
    the px between the centres of adjacent hexes, and ``hex_offset`` says which rows
    (columns) are shifted by half a hex: ``odd`` (Foundry's ODD types) or ``even``
    (``service.engine.grids``). ``units`` ``squares``: the scene counts in spaces (squares or
    hexes, Lancer's 1 unit a hex), 1 space = 5 ft for every rule distance and creature height
    (GEO-8 "scenes counted in squares").
    """

    size: Annotated[float, Meta(ge=MIN_GRID_SIZE_PX, le=MAX_GRID_SIZE_PX)]
    distance: Annotated[float, Meta(ge=MIN_GRID_DISTANCE, le=MAX_UNITS)] = 5.0
    units: Literal["ft", "m", "squares"] = "ft"
    type: GridType = "square"
    diagonals: Diagonals | None = None
    hex_offset: Literal["odd", "even"] = "odd"

    @property
    def px_per_unit(self) -> float:
        """Pixels per grid unit (``size / distance``)."""
        return self.size / self.distance


class Environment(Value, frozen=True):
    """Scene-wide conditions: ambient ``light``, ``gravity`` X (1 = standard), ``underwater``."""

    light: LightLevel = "bright"
    gravity: Gravity = 1.0
    underwater: bool = False


class Threshold(Value, frozen=True, omit_defaults=True):
    """Proximity/distance thresholds of a wall, in grid units (``None`` = no threshold)."""

    sight: Units | None = None
    light: Units | None = None
    sound: Units | None = None


class Span(Value, frozen=True, omit_defaults=True):
    """A vertical extent in grid units; ``None`` bounds are unbounded (GEO-5).

    Raises ``ValueError`` when ``bottom`` is above ``top``.
    """

    bottom: Elevation | None = None
    top: Elevation | None = None

    def __post_init__(self) -> None:
        if self.bottom is not None and self.top is not None and self.bottom > self.top:
            raise ValueError("Must not be above top.")

    @property
    def low(self) -> float:
        """Lower bound, ``-inf`` when unbounded."""
        return -math.inf if self.bottom is None else self.bottom

    @property
    def high(self) -> float:
        """Upper bound, ``+inf`` when unbounded."""
        return math.inf if self.top is None else self.top


class Wall(Value, frozen=True, omit_defaults=True):
    """A wall segment ``c = (x0, y0, x1, y1)`` in px with its restrictions (GEO-1..5).

    ``direction`` is relative to the directed segment (x0, y0) → (x1, y1) (GEO-3).
    ``hp``/``ac`` make the wall breakable (5E-LOE-4). ``level``: the id of the level (floor)
    it belongs to; without a ``height`` of its own it takes that level's range (GEO-10).
    """

    id: Id
    c: tuple[Coord, Coord, Coord, Coord]
    move: Restriction = "normal"
    sight: Restriction = "normal"
    light: Restriction = "normal"
    sound: Restriction = "normal"
    threshold: Threshold | None = None
    direction: Direction = "both"
    door: DoorType = "none"
    door_state: DoorState = "closed"
    height: Span | None = None
    cover: WallCover = "normal"
    hp: Annotated[int, Meta(ge=0, le=MAX_HP)] | None = None
    ac: Annotated[int, Meta(ge=MIN_AC, le=MAX_AC)] | None = None
    level: Id | None = None


class Senses(Value, frozen=True):
    """Senses of a token; ranges in grid units, 0 = does not have it.

    ``hearing`` ``None`` means unlimited hearing; 0 means the token cannot hear.
    """

    darkvision: Units = 0.0
    devils_sight: Units = 0.0
    truesight: Units = 0.0
    blindsight: Units = 0.0
    tremorsense: Units = 0.0
    xray: Units = 0.0
    low_light_vision: bool = False
    see_invisibility: Units = 0.0
    hearing: Units | None = None


#: An ability modifier.
Ability = Annotated[int, Meta(ge=MIN_ABILITY, le=MAX_ABILITY)]


class Abilities(Value, frozen=True):
    """Ability modifiers used by environment rules (5E-GRV-2..4, 5E-UW-7)."""

    str: Ability = 0
    dex: Ability = 0
    con: Ability = 0


class CarriedLight(Value, frozen=True):
    """Light carried by a token: ``bright`` and outer ``dim`` radius in grid units.

    ``seen_by`` ``"controllers"``: a private light (Roll20 token light that other players do
    not see) lights only for the token that carries it, never for another observer.
    """

    bright: Units = 0.0
    dim: Units = 0.0
    seen_by: SeenBy = "everyone"


#: A token's width or height in squares.
Squares = Annotated[float, Meta(ge=MIN_SQUARES, le=MAX_SQUARES)]


class Token(Value, frozen=True):
    """A creature: top-left ``x, y`` in px; ``width``, ``height`` in squares.

    ``name`` defaults to the id and ``size`` to ``size_from_width(width)``.
    ``vertical_extent`` is the creature's height in grid units above its ``elevation``
    (GEO-5a; ``None``: from its size); it is named so as not to be taken for ``height``, the
    footprint in squares. ``hidden``: hidden from players (Foundry hidden token, Roll20 GM
    layer); the ``ignore_hidden`` option leaves such tokens out of every obstacle.
    ``reach`` in grid units; ``None`` (the default) is the rules' 5 ft in the scene's units
    (1.5 m on a metric scene, GEO-8; ``service.engine.grids.reach_units``).
    """

    id: Id
    x: Coord
    y: Coord
    name: str = None  # type: ignore[assignment]  # None only until __post_init__
    width: Squares = 1.0
    height: Squares = 1.0
    elevation: Elevation = 0.0
    vertical_extent: Units | None = None
    size: Size = None  # type: ignore[assignment]  # None only until __post_init__
    reach: Units | None = None
    senses: Senses = field(default_factory=Senses)
    conditions: tuple[str, ...] = ()
    swim_speed: Units = 0.0
    abilities: Abilities = field(default_factory=Abilities)
    light: CarriedLight = field(default_factory=CarriedLight)
    hidden: bool = False

    def __post_init__(self) -> None:
        if self.name is None:
            force_setattr(self, "name", self.id)
        if self.size is None:
            force_setattr(self, "size", size_from_width(self.width))

    def box(self, grid_size_px: float) -> tuple[float, float, float, float]:
        """Space of the token as ``(x0, y0, x1, y1)`` px."""
        return (
            self.x,
            self.y,
            self.x + self.width * grid_size_px,
            self.y + self.height * grid_size_px,
        )


class Light(Value, frozen=True):
    """A point light at ``x, y`` px; ``bright``/``dim`` radii in grid units.

    ``angle`` is the emission cone in degrees (360 = all around), ``rotation`` its facing in
    degrees; ``darkness`` makes it a source of magical darkness; ``walls`` whether walls
    that restrict light constrain it; ``elevation`` in grid units (GEO-5a: a band of no
    thickness). ``on`` ``False``: switched off in the VTT (Foundry ``hidden``), it lights
    nothing; ``seen_by`` ``"controllers"``: a private light, which lights nothing for any
    observer (no observer controls a scene light). ``level``: the id of the level it
    belongs to (GEO-10); the light stays at its own ``elevation``.
    """

    id: Id
    x: Coord
    y: Coord
    bright: Units = 0.0
    dim: Units = 0.0
    angle: Annotated[float, Meta(ge=0, le=360)] = 360.0
    rotation: Annotated[float, Meta(ge=-36000, le=36000)] = 0.0
    darkness: bool = False
    walls: bool = True
    elevation: Elevation = 0.0
    on: bool = True
    seen_by: SeenBy = "everyone"
    level: Id | None = None


class Shape(Value, frozen=True):
    """Region outline: ``polygon`` (``points`` px), ``rect`` or ``circle`` (px).

    Raises ``ValueError`` for a polygon of fewer than 3 points, a rect without a positive
    width and height, or a circle without a positive radius.
    """

    type: Literal["polygon", "rect", "circle"]
    points: Annotated[tuple[Point, ...], Meta(max_length=MAX_POLYGON_POINTS)] = ()
    x: Coord = 0.0
    y: Coord = 0.0
    width: Extent = 0.0
    height: Extent = 0.0
    radius: Extent = 0.0

    def __post_init__(self) -> None:
        if self.type == "polygon" and len(self.points) < 3:
            raise ValueError("A polygon needs at least 3 points.")
        if self.type == "rect" and (self.width <= 0 or self.height <= 0):
            raise ValueError("A rect needs a positive width and height.")
        if self.type == "circle" and self.radius <= 0:
            raise ValueError("A circle needs a positive radius.")


class Region(Value, frozen=True):
    """An area with environmental properties (fog, darkness, water, gravity).

    ``light`` (GEO-9) replaces the scene's ambient light inside the region (Foundry v12+
    "Adjust Darkness Level"); lights still add. ``elevation`` is its half-open height range
    ``[bottom, top)`` (GEO-5); without one, a region naming a ``level`` takes that level's
    range (GEO-10).
    """

    id: Id
    shape: Shape
    obscurement: Obscurement | None = None
    concealment: bool = False
    magical_darkness: bool = False
    water: bool = False
    gravity: Gravity | None = None
    light: LightLevel | None = None
    elevation: Span | None = None
    level: Id | None = None


class Level(Value, frozen=True):
    """A level (floor) of a building: the half-open elevation range ``[bottom, top)`` (GEO-10).

    In grid units; ``None`` bounds are unbounded. A creature is on the level whose range
    holds its elevation. Source: Foundry v14 ``scene.levels[].elevation``, the Levels
    module's ``sceneLevels`` (inclusive ranges read as GEO-5 says).

    Raises ``ValueError`` when ``bottom`` is above ``top``.
    """

    id: Id
    name: str = ""
    bottom: Elevation | None = None
    top: Elevation | None = None

    def __post_init__(self) -> None:
        if self.bottom is not None and self.top is not None and self.bottom > self.top:
            raise ValueError("Must not be above top.")

    @property
    def span(self) -> Span:
        """The level's range as a ``Span``."""
        return Span(self.bottom, self.top)


class SurfaceBlocks(Value, frozen=True):
    """What a surface blocks (GEO-10): movement and effect, sight, light, sound."""

    move: bool = True
    sight: bool = True
    light: bool = True
    sound: bool = True


#: One ring of a surface outline: at least 3 points ``(x, y)`` px.
Ring = Annotated[tuple[Point, ...], Meta(min_length=3, max_length=MAX_POLYGON_POINTS)]
#: One polygon of a surface outline: its exterior ring, then its holes (at least one ring;
#: the rings of all surfaces together are bounded by ``MAX_SURFACE_POINTS``).
OutlinePolygon = tuple[Ring, ...]


class Surface(Value, frozen=True):
    """A horizontal surface (a floor, a roof, a bridge) at ``elevation`` grid units (GEO-10).

    ``outline`` is a list of polygons, each its exterior ring followed by its holes (the
    coordinates of a GeoJSON MultiPolygon, in px). The surface covers the union of the
    exteriors less every hole (a hole may cut any of them: Foundry's hole shapes). A traced
    line that crosses the plane at ``elevation`` inside the outline is blocked for what
    ``blocks`` says; heights are half-open (GEO-5): a point at ``elevation`` is above it.
    ``level``: the level it is the floor of, if given (for pictures and stats only).
    """

    id: Id
    outline: tuple[OutlinePolygon, ...]
    elevation: Elevation
    blocks: SurfaceBlocks = field(default_factory=SurfaceBlocks)
    level: Id | None = None

    def __post_init__(self) -> None:
        if not self.outline or not all(self.outline):
            raise ValueError("A surface needs at least one polygon, each with its outline.")

    @property
    def points(self) -> int:
        """Outline points of all rings."""
        return sum(len(ring) for polygon in self.outline for ring in polygon)


class Scene(Value, frozen=True):
    """The canonical scene (``shared/DESIGN.md``, "Canonical scene").

    ``levels`` and ``surfaces``: the floors of a building (GEO-10); a scene without them
    answers as a single floor.

    Raises ``ValueError`` when two walls, tokens, lights, regions, levels or surfaces share
    an id, when a wall, light, region or surface names a level the scene does not have, or
    when the levels, the surfaces or their outline points pass their bounds
    (``level_problem``).
    """

    grid: Grid
    walls: tuple[Wall, ...] = ()
    tokens: tuple[Token, ...] = ()
    lights: tuple[Light, ...] = ()
    regions: tuple[Region, ...] = ()
    environment: Environment = field(default_factory=Environment)
    width: Extent | None = None
    height: Extent | None = None
    levels: tuple[Level, ...] = ()
    surfaces: tuple[Surface, ...] = ()

    def __post_init__(self) -> None:
        for kind in SCENE_COLLECTIONS:
            items = getattr(self, kind)
            if len(set(map(_ID, items))) != len(items):
                raise ValueError(f"Two {kind} share an id.")
        problem = level_problem(self)
        if problem is not None:
            raise ValueError(problem)

    def token(self, token_id: str) -> Token | None:
        """The token with id ``token_id``, or ``None``."""
        for tok in self.tokens:
            if tok.id == token_id:
                return tok
        return None


_ID = attrgetter("id")
_LEVEL = attrgetter("level")

#: The scene's collections of items with ids (unique per collection).
SCENE_COLLECTIONS = ("walls", "tokens", "lights", "regions", "levels", "surfaces")
#: The collections whose items may name a level (GEO-10).
LEVEL_MEMBERS = ("walls", "lights", "regions", "surfaces")


def level_problem(scene: Scene) -> str | None:
    """What is wrong with a scene's levels and surfaces (GEO-10), or ``None``.

    More than ``MAX_LEVELS`` levels or ``MAX_SURFACES`` surfaces, an item naming a level the
    scene lacks, or surfaces holding more than ``MAX_SURFACE_POINTS`` outline points
    together. O(walls + lights + regions + surfaces).
    """
    for kind, most in (("levels", MAX_LEVELS), ("surfaces", MAX_SURFACES)):
        if len(getattr(scene, kind)) > most:
            return (
                f"A scene may hold at most {most} {kind}; this one has {len(getattr(scene, kind))}."
            )
    known = set(map(_ID, scene.levels))
    for kind in LEVEL_MEMBERS:
        named = set(map(_LEVEL, getattr(scene, kind)))
        named.discard(None)
        unknown = named - known
        if unknown:
            return f"{kind.capitalize()} name a level the scene does not have: {min(unknown)!r}."
    points = sum(s.points for s in scene.surfaces)
    if points > MAX_SURFACE_POINTS:
        return (
            f"The surfaces' outlines may hold at most {MAX_SURFACE_POINTS:,} points in all; "
            f"these hold {points:,}: simplify them."
        )
    return None
