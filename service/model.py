"""Value types of the canonical scene and of answers.

Units: positions and wall coordinates are scene **pixels** (y grows downward); radii,
ranges, elevations, thresholds and heights are **grid units** (``Grid.distance`` units per
square, normally feet); token ``width``/``height`` are **squares**.

The JSON form of these types is the canonical scene of ``shared/DESIGN.md``; it is loaded
and validated by ``schemas.scene.SceneSchema``, whose ``post_load`` builds these objects.

``Wall`` and its parts (``Threshold``, ``Span``) are ``msgspec`` Structs, not dataclasses:
a scene's walls are its bulk (thousands), and msgspec decodes a JSON ``walls`` array
straight into them, checking every type and bound below in C (issue 7, ingestion). Their
``Annotated`` bounds are the same as ``SceneSchema``'s, which remains the reference for
error messages. They encode without their defaults (``omit_defaults``), which keeps the
canonical JSON hashed for ``scene_id`` small. Everything else is a frozen standard-library
dataclass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Annotated, Literal

from msgspec import Meta, Struct

Restriction = Literal["none", "limited", "normal", "proximity", "distance"]
Direction = Literal["both", "left", "right"]
DoorType = Literal["none", "door", "secret"]
DoorState = Literal["closed", "open", "locked"]
WallCover = Literal["normal", "low", "improved", "extreme"]
GridType = Literal["square", "gridless", "hex-row", "hex-col"]
Diagonals = Literal["equidistant", "alternating", "euclidean"]
LightLevel = Literal["bright", "dim", "dark"]
Size = Literal["tiny", "small", "medium", "large", "huge", "gargantuan"]
Obscurement = Literal["light", "heavy"]

RESTRICTIONS: tuple[Restriction, ...] = ("none", "limited", "normal", "proximity", "distance")
SENSE_TYPES: tuple[str, ...] = ("move", "sight", "light", "sound")
SIZES: tuple[Size, ...] = ("tiny", "small", "medium", "large", "huge", "gargantuan")
LIGHT_LEVELS: tuple[LightLevel, ...] = ("dark", "dim", "bright")

#: Largest coordinate magnitude accepted, in px: beyond it float geometry loses meaning.
MAX_COORD_PX = 1e7
#: Largest distance, radius, range, elevation or height accepted, in grid units.
MAX_UNITS = 1e6

#: A coordinate in px, |value| <= MAX_COORD_PX.
Coord = Annotated[float, Meta(ge=-MAX_COORD_PX, le=MAX_COORD_PX)]
#: A non-negative distance in grid units, <= MAX_UNITS.
Units = Annotated[float, Meta(ge=0, le=MAX_UNITS)]
#: An elevation in grid units, |value| <= MAX_UNITS.
Elevation = Annotated[float, Meta(ge=-MAX_UNITS, le=MAX_UNITS)]


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


@dataclass(frozen=True, slots=True)
class Grid:
    """Grid of a scene: ``size`` px per square, ``distance`` grid units per square."""

    size: float
    distance: float = 5.0
    units: Literal["ft", "m"] = "ft"
    type: GridType = "square"
    diagonals: Diagonals = "equidistant"

    @property
    def px_per_unit(self) -> float:
        """Pixels per grid unit (``size / distance``)."""
        return self.size / self.distance


@dataclass(frozen=True, slots=True)
class Environment:
    """Scene-wide conditions: ambient ``light``, ``gravity`` X (1 = standard), ``underwater``."""

    light: LightLevel = "bright"
    gravity: float = 1.0
    underwater: bool = False


class Threshold(Struct, frozen=True, forbid_unknown_fields=True, gc=False, omit_defaults=True):
    """Proximity/distance thresholds of a wall, in grid units (``None`` = no threshold)."""

    sight: Units | None = None
    light: Units | None = None
    sound: Units | None = None


class Span(Struct, frozen=True, forbid_unknown_fields=True, gc=False, omit_defaults=True):
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


class Wall(Struct, frozen=True, forbid_unknown_fields=True, gc=False, omit_defaults=True):
    """A wall segment ``c = (x0, y0, x1, y1)`` in px with its restrictions (GEO-1..5).

    ``direction`` is relative to the directed segment (x0, y0) → (x1, y1) (GEO-3).
    ``hp``/``ac`` make the wall breakable (5E-LOE-4).
    """

    id: Annotated[str, Meta(min_length=1)]
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
    hp: Annotated[int, Meta(ge=0, le=10**9)] | None = None
    ac: Annotated[int, Meta(ge=-1000, le=1000)] | None = None

    def restriction(self, sense: str) -> Restriction:
        """Restriction of this wall for ``sense`` (one of ``SENSE_TYPES``)."""
        return getattr(self, sense)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class Senses:
    """Senses of a token; ranges in grid units, 0 = does not have it.

    ``hearing`` ``None`` means unlimited hearing; 0 means the token cannot hear.
    """

    darkvision: float = 0.0
    devils_sight: float = 0.0
    truesight: float = 0.0
    blindsight: float = 0.0
    tremorsense: float = 0.0
    xray: float = 0.0
    low_light_vision: bool = False
    see_invisibility: float = 0.0
    hearing: float | None = None


@dataclass(frozen=True, slots=True)
class Abilities:
    """Ability modifiers used by environment rules (5E-GRV-2..4, 5E-UW-7)."""

    str: int = 0
    dex: int = 0
    con: int = 0


@dataclass(frozen=True, slots=True)
class CarriedLight:
    """Light carried by a token: ``bright`` and outer ``dim`` radius in grid units."""

    bright: float = 0.0
    dim: float = 0.0


@dataclass(frozen=True, slots=True)
class Token:
    """A creature: top-left ``x, y`` in px; ``width``, ``height`` in squares."""

    id: str
    x: float
    y: float
    name: str = ""
    width: float = 1.0
    height: float = 1.0
    elevation: float = 0.0
    size: Size = "medium"
    reach: float = 5.0
    senses: Senses = field(default_factory=Senses)
    conditions: tuple[str, ...] = ()
    swim_speed: float = 0.0
    abilities: Abilities = field(default_factory=Abilities)
    light: CarriedLight = field(default_factory=CarriedLight)
    hidden: bool = False

    def box(self, grid_size_px: float) -> tuple[float, float, float, float]:
        """Space of the token as ``(x0, y0, x1, y1)`` px."""
        return (
            self.x,
            self.y,
            self.x + self.width * grid_size_px,
            self.y + self.height * grid_size_px,
        )


@dataclass(frozen=True, slots=True)
class Light:
    """A point light at ``x, y`` px; ``bright``/``dim`` radii in grid units.

    ``angle`` is the emission cone in degrees (360 = all around), ``rotation`` its facing in
    degrees; ``darkness`` makes it a source of magical darkness; ``walls`` whether walls
    that restrict light constrain it.
    """

    id: str
    x: float
    y: float
    bright: float = 0.0
    dim: float = 0.0
    angle: float = 360.0
    rotation: float = 0.0
    darkness: bool = False
    walls: bool = True


@dataclass(frozen=True, slots=True)
class Shape:
    """Region outline: ``polygon`` (``points`` px), ``rect`` or ``circle`` (px)."""

    type: Literal["polygon", "rect", "circle"]
    points: tuple[tuple[float, float], ...] = ()
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0
    radius: float = 0.0


@dataclass(frozen=True, slots=True)
class Region:
    """An area with environmental properties (fog, darkness, water, gravity)."""

    id: str
    shape: Shape
    obscurement: Obscurement | None = None
    concealment: bool = False
    magical_darkness: bool = False
    water: bool = False
    gravity: float | None = None
    elevation: Span | None = None


@dataclass(frozen=True, slots=True)
class Scene:
    """The canonical scene (``shared/DESIGN.md``, "Canonical scene")."""

    grid: Grid
    walls: tuple[Wall, ...] = ()
    tokens: tuple[Token, ...] = ()
    lights: tuple[Light, ...] = ()
    regions: tuple[Region, ...] = ()
    environment: Environment = field(default_factory=Environment)
    width: float | None = None
    height: float | None = None

    def token(self, token_id: str) -> Token | None:
        """The token with id ``token_id``, or ``None``."""
        for tok in self.tokens:
            if tok.id == token_id:
                return tok
        return None
