"""GEO-8 distances on every grid type for every ruleset, reach in feet, SF-FLK-1 threats.

Tables per rule, per grid type (``square``, ``gridless``, ``hex-row``, ``hex-col``) and per
ruleset; hex positions are written as Foundry offset coordinates (row ``i``, column ``j``)
and placed by Foundry v12's own centre formula (``offset_centre`` below, FORMATS.md A.2),
independently of ``service.engine.grids``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.scene import SceneSchema
from service import rules
from service.engine import grids
from service.engine.scene import build_scene
from service.model import Grid, Token
from service.rules.ask import vision_one
from service.rules.pf2e_variant.range_increments import range_modifiers
from service.rules.starfinder import RULESET as STARFINDER
from service.rules.starfinder.obstacles import low_obstacle_mask

SQRT3 = math.sqrt(3)


def grid(kind: str = "square", **kw) -> dict:
    return {"size": 100, "distance": 5, "units": "ft", "type": kind, **kw}


def tok(tid: str, x: float, y: float, w: float = 1, **kw) -> dict:
    return {"id": tid, "x": x, "y": y, "width": w, "height": w, **kw}


def scene(g: dict, tokens: list[dict], walls: list[dict] = ()) -> object:  # type: ignore[assignment]
    return SceneSchema().load({"grid": g, "tokens": tokens, "walls": list(walls)})


def distance(ruleset: str, g: dict, tokens: list[dict], a: str = "A", b: str = "T") -> float:
    """The ``distance`` of a vision answer (every endpoint measures with the same function)."""
    sc = scene(g, tokens)
    res = vision_one(rules.get(ruleset), build_scene(sc), sc.token(a), sc.token(b), {})
    return res.distance


# ---------------------------------------------------------------------------- hex helpers


def offset_centre(i: int, j: int, columns: bool, even: bool, size: float = 100) -> tuple:
    """Foundry v12 ``HexagonalGrid#getCenterPoint({i, j})``: row i, column j, px."""
    if columns:
        x = 2 / SQRT3 * (0.75 * j + 0.5) * size
        shifted = (j % 2 == 1) != even  # odd grids shift the odd columns
        y = (i + (0.5 if shifted else 0.0)) * size
    else:
        y = 2 / SQRT3 * (0.75 * i + 0.5) * size
        shifted = (i % 2 == 1) != even
        x = (j + (0.5 if shifted else 0.0)) * size
    return x, y


def offset_cube(i: int, j: int, columns: bool, even: bool) -> tuple[int, int, int]:
    """Offset to cube coordinates by the red blob formulas (odd-r, even-r, odd-q, even-q)."""
    if columns:
        q = j
        r = i - (j + (j & 1)) // 2 if even else i - (j - (j & 1)) // 2
    else:
        r = i
        q = j - (i + (i & 1)) // 2 if even else j - (i - (i & 1)) // 2
    return q, r, -q - r


def cube_distance(a: tuple, b: tuple) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))


def hex_tok(tid: str, i: int, j: int, columns: bool, even: bool = False, w: float = 1, **kw):
    """A token whose hex (top-left hex of its shape for w > 1) is at offset (i, j)."""
    x, y = offset_centre(i, j, columns, even)
    r = 100 / SQRT3
    sx, sy = (2 * r, 100.0) if columns else (100.0, 2 * r)
    return tok(tid, x - sx / 2, y - sy / 2, w, **kw)


def hex_grid(columns: bool, even: bool = False, **kw) -> dict:
    return grid("hex-col" if columns else "hex-row", hex_offset="even" if even else "odd", **kw)


# ---------------------------------------------------------------------------- feet


@pytest.mark.parametrize(
    ("feet", "units", "expected"),
    [
        pytest.param(5, "ft", 5, id="GEO-8 5 ft on a feet scene"),
        pytest.param(5, "m", 1.5, id="GEO-8 5 ft is 1.5 m"),
        pytest.param(30, "m", 9, id="GEO-8 SF-COV-5 30 ft is 9 m"),
        pytest.param(120, "m", 36, id="GEO-8 PV-RNG-1 120 ft is 36 m"),
    ],
)
def test_feet_to_scene_units(feet, units, expected):
    g = Grid(size=100, distance=1.5 if units == "m" else 5, units=units)
    assert grids.feet_to_units(feet, g) == pytest.approx(expected)
    assert grids.units_to_feet(expected, g) == pytest.approx(feet)


@pytest.mark.parametrize(
    ("units", "reach", "expected"),
    [
        pytest.param("ft", None, 5.0, id="PV-MEL-1 default reach 5 ft"),
        pytest.param("m", None, 1.5, id="GEO-8 default reach on a metric scene is 1.5 m"),
        pytest.param("m", 3.0, 3.0, id="GEO-8 an explicit reach is in scene units"),
        pytest.param("ft", 0.0, 0.0, id="SF-FLK-1 reach 0 stays 0"),
    ],
)
def test_reach_units(units, reach, expected):
    g = Grid(size=100, distance=1.5 if units == "m" else 5, units=units)
    assert grids.reach_units(Token("A", 0, 0, reach=reach), g) == expected


# ---------------------------------------------------------------------------- squares

DIAGONAL_2 = [tok("A", 0, 0), tok("T", 200, 200)]  # two diagonal steps apart


@pytest.mark.parametrize(
    ("ruleset", "scene_rule", "expected"),
    [
        pytest.param("dnd5e", None, 10, id="GEO-8 dnd5e default equidistant 5-5-5"),
        pytest.param("starfinder", None, 15, id="GEO-8 starfinder default alternating 5-10-5"),
        pytest.param("pf2e-variant", None, 15, id="GEO-8 pf2e-variant default alternating"),
        pytest.param(
            "dnd5e", "alternating", 15, id="GEO-8 a 5-10-5 scene measures 5-10-5 in dnd5e"
        ),
        pytest.param("starfinder", "equidistant", 10, id="GEO-8 the scene's rule wins in sf"),
        pytest.param("pf2e-variant", "euclidean", 5 * math.hypot(2, 2), id="GEO-8 euclidean"),
    ],
)
def test_square_diagonal_rule(ruleset, scene_rule, expected):
    g = grid(diagonals=scene_rule) if scene_rule else grid()
    assert distance(ruleset, g, DIAGONAL_2) == pytest.approx(expected)


TINY = {"width": 0.5, "height": 0.5, "size": "tiny"}


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        pytest.param([tok("A", 100, 200), tok("T", 100, 100, **TINY)], 5, id="GEO-8 tiny far half"),
        pytest.param([tok("A", 100, 200), tok("T", 150, 150, **TINY)], 5, id="GEO-8 tiny near"),
        pytest.param([tok("A", 100, 200), tok("T", 125, 110, **TINY)], 5, id="GEO-8 tiny mid"),
        pytest.param([tok("A", 100, 300), tok("T", 150, 150, **TINY)], 10, id="GEO-8 tiny 2 sq"),
        pytest.param([tok("A", 100, 100), tok("T", 150, 150, **TINY)], 0, id="GEO-8 tiny shares"),
        pytest.param(
            [tok("A", 100, 200, **TINY), tok("T", 100, 100, **TINY)], 5, id="GEO-8 two tiny"
        ),
        pytest.param([tok("A", 0, 0), tok("T", 100, 0)], 5, id="GEO-8 adjacent is 5 ft"),
        pytest.param([tok("A", 0, 0, 2), tok("T", 300, 0)], 10, id="GEO-8 large, nearest squares"),
    ],
)
def test_square_distances(ruleset, tokens, expected):
    assert distance(ruleset, grid(), tokens) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("units", "distance_per_square", "expected"),
    [
        pytest.param("m", 1.5, 3.0, id="GEO-8 metric squares: 2 squares = 3 m"),
        pytest.param("ft", 10, 20, id="GEO-8 a 10-ft grid counts 10 ft a square"),
    ],
)
def test_square_units(units, distance_per_square, expected):
    g = grid(units=units, distance=distance_per_square)
    assert distance("starfinder", g, [tok("A", 0, 0), tok("T", 200, 0)]) == expected


# ---------------------------------------------------------------------------- gridless


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        pytest.param([tok("A", 0, 0), tok("T", 100, 0)], 5, id="GEO-8 gridless touching 5 ft"),
        pytest.param([tok("A", 0, 0), tok("T", 130, 0)], 6.5, id="GEO-8 gridless no rounding"),
        pytest.param(
            [tok("A", 0, 0), tok("T", 200, 200)],
            5 + 5 * math.sqrt(2),
            id="GEO-8 gridless diagonal gap by ruler",
        ),
        pytest.param([tok("A", 0, 0), tok("T", 50, 50)], 0, id="GEO-8 gridless overlap 0"),
        pytest.param(
            [tok("A", 0, 0), tok("T", 107, 23, **TINY)], 5.35, id="GEO-8 gridless tiny not snapped"
        ),
    ],
)
def test_gridless_ruler(ruleset, tokens, expected):
    assert distance(ruleset, grid("gridless"), tokens) == pytest.approx(expected)


def test_gridless_ignores_diagonal_rule():
    """GEO-8: nothing snaps on a gridless scene, whatever diagonal rule it names."""
    g = grid("gridless", diagonals="alternating")
    assert distance("dnd5e", g, DIAGONAL_2) == pytest.approx(5 + 5 * math.sqrt(2))


# ---------------------------------------------------------------------------- hexes

HEX_KINDS = [
    pytest.param(False, False, id="hex-row odd (HEXODDR)"),
    pytest.param(False, True, id="hex-row even (HEXEVENR)"),
    pytest.param(True, False, id="hex-col odd (HEXODDQ)"),
    pytest.param(True, True, id="hex-col even (HEXEVENQ)"),
]


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize(("columns", "even"), HEX_KINDS)
@pytest.mark.parametrize(
    ("a", "b", "hexes"),
    [
        pytest.param((4, 4), (4, 5), 1, id="GEO-8 hex neighbour along the offset axis"),
        pytest.param((4, 4), (5, 4), 1, id="GEO-8 hex neighbour across"),
        pytest.param((4, 4), (4, 4), 0, id="GEO-8 same hex"),
        pytest.param((4, 4), (8, 4), 4, id="GEO-8 four hexes straight across rows"),
        pytest.param((4, 4), (7, 7), None, id="GEO-8 hex diagonal-ish"),
        pytest.param((1, 2), (6, 0), None, id="GEO-8 hex far"),
    ],
)
def test_hex_distance_table(ruleset, columns, even, a, b, hexes):
    """GEO-8 on hexes: hexes counted (Foundry's cube distance), whatever the diagonal rule."""
    expected = cube_distance(offset_cube(*a, columns, even), offset_cube(*b, columns, even))
    if hexes is not None:
        if columns:  # the table is written for rows; columns swap the axes
            expected = cube_distance(
                offset_cube(a[1], a[0], columns, even), offset_cube(b[1], b[0], columns, even)
            )
            a, b = (a[1], a[0]), (b[1], b[0])
        assert expected == hexes
    tokens = [hex_tok("A", *a, columns, even), hex_tok("T", *b, columns, even)]
    g = hex_grid(columns, even, diagonals="alternating")
    assert distance(ruleset, g, tokens) == pytest.approx(5 * expected)


@settings(max_examples=300, deadline=None)
@given(
    st.booleans(),
    st.booleans(),
    st.tuples(st.integers(0, 40), st.integers(0, 40)),
    st.tuples(st.integers(0, 40), st.integers(0, 40)),
    st.floats(-0.3, 0.3),
    st.floats(-0.3, 0.3),
)
def test_hex_distance_matches_offset_formula(columns, even, a, b, jx, jy):
    """GEO-8: the pixel-based hex distance agrees with Foundry's offset-to-cube formula.

    The tokens are placed by Foundry's centre formula, nudged by up to 0.3 px, and the
    distance the engine measures from pixels equals the cube distance of the offset
    coordinates converted independently (red blob odd-r/even-r/odd-q/even-q).
    """
    ta = hex_tok("A", *a, columns, even)
    tb = hex_tok("T", *b, columns, even)
    ta["x"] += jx
    tb["y"] += jy
    g = hex_grid(columns, even)
    expected = cube_distance(offset_cube(*a, columns, even), offset_cube(*b, columns, even))
    sc = scene(g, [ta, tb])
    built = build_scene(sc)
    got = grids.space_distance_units(
        sc.token("A"), sc.token("T"), sc.grid, built.token_boxes, "equidistant"
    )
    assert got == 5 * expected


@pytest.mark.parametrize(("columns", "even"), HEX_KINDS)
@pytest.mark.parametrize(
    ("width", "count"),
    [
        pytest.param(0.5, 1, id="tiny: the hex holding its centre"),
        pytest.param(1, 1, id="medium: one hex"),
        pytest.param(2, 3, id="large: three hexes (Foundry v12 ELLIPSE_1)"),
        pytest.param(3, 7, id="huge: seven hexes"),
        pytest.param(4, 12, id="gargantuan: twelve hexes (3-4-3-2)"),
    ],
)
def test_hex_footprints(columns, even, width, count):
    """Token footprints by size, as Foundry v12+ draws hex tokens (default ELLIPSE_1)."""
    t = hex_tok("A", 4, 4, columns, even, width)
    g = Grid(**hex_grid(columns, even))
    cells = grids.footprint(Token("A", t["x"], t["y"], width=width, height=width), g)
    assert len(cells) == count
    assert len({tuple(c) for c in cells.tolist()}) == count
    # contiguous: every hex of a multi-hex token touches another of its hexes
    if count > 1:
        d = grids.hex_distance(cells[:, None, :], cells[None, :, :])
        assert ((d == 1).sum(axis=1) >= 1).all()


@pytest.mark.parametrize(("columns", "even"), HEX_KINDS)
def test_hex_large_token_distance(columns, even):
    """GEO-8: a Large token counts from its nearest hex: the hex touching it is 5 ft away."""
    big = hex_tok("A", 4, 4, columns, even, 2)
    g = Grid(**hex_grid(columns, even))
    cells = grids.footprint(Token("A", big["x"], big["y"], width=2, height=2), g)
    lat = grids.lattice(g)
    assert lat is not None
    # a hex next to one of its hexes but not in the footprint
    for q, r in cells.tolist():
        for dq, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)):
            n = (q + dq, r + dr)
            if n not in {tuple(c) for c in cells.tolist()}:
                (cx, cy) = lat.centres(__import__("numpy").array([n]))[0]
                sx, sy = lat.size_x, lat.size_y
                near = tok("T", cx - sx / 2, cy - sy / 2)
                assert distance("dnd5e", hex_grid(columns, even), [big, near]) == 5
                return
    raise AssertionError("no neighbour found")


def test_hex_metric_scene():
    """GEO-8: a hex of 2 m (Twilight 2000) counts 2 m per hex."""
    g = hex_grid(True, distance=2, units="m")
    tokens = [hex_tok("A", 0, 0, True), hex_tok("T", 0, 3, True)]
    assert distance("starfinder", g, tokens) == 6


# ---------------------------------------------------------------------------- flanking


def flank(g: dict, tokens: list[dict], walls: list[dict] = (), ally: str = "B") -> bool:  # type: ignore[assignment]
    sc = scene(g, tokens, walls)
    built = build_scene(sc)
    return STARFINDER.flanking(built, sc.token("A"), sc.token(ally), sc.token("T"))[0]


@pytest.mark.parametrize(
    ("g", "tokens", "walls", "expected"),
    [
        pytest.param(
            grid(),
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100)],
            [],
            True,
            id="SF-FLK-1 squares: opposite edges, both threaten",
        ),
        pytest.param(
            grid(),
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100)],
            [{"id": "w", "c": [200, 100, 200, 200]}],
            False,
            id="SF-FLK-1 wall on the edge between ally and target: no threat",
        ),
        pytest.param(
            grid(),
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100)],
            [{"id": "w", "c": [200, 100, 200, 200], "move": "none"}],
            True,
            id="SF-FLK-1 a wall that does not restrict movement does not stop the threat",
        ),
        pytest.param(
            grid(),
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100)],
            [{"id": "w", "c": [200, 100, 200, 200], "door": "door", "door_state": "open"}],
            True,
            id="SF-FLK-1 GEO-2 an open door does not stop the threat",
        ),
        pytest.param(
            grid(),
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100)],
            [{"id": "w", "c": [200, 100, 200, 200], "cover": "low"}],
            True,
            id="SF-FLK-1 a low obstacle does not stop the threat (attacks go over it)",
        ),
        pytest.param(
            grid(units="m", distance=1.5, diagonals="alternating"),
            [tok("C", 300, 0), tok("T", 300, 100), tok("A", 300, 300), tok("B", 300, 0)],
            [],
            False,
            id="GEO-8 metric default reach 1.5 m: 3 m away does not threaten",
        ),
        pytest.param(
            grid(units="m", distance=1.5),
            [tok("T", 300, 100), tok("A", 300, 300, reach=3), tok("B", 300, 0)],
            [],
            True,
            id="GEO-8 metric explicit reach 3 m threatens 3 m away",
        ),
        pytest.param(
            grid(distance=10),
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100)],
            [],
            False,
            id="GEO-8 10-ft squares: adjacent is 10 ft, beyond the default 5-ft reach",
        ),
        pytest.param(
            grid("gridless"),
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100)],
            [],
            True,
            id="SF-FLK-1 gridless touching on opposite sides",
        ),
        pytest.param(
            grid("gridless"),
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 210, 100)],
            [],
            False,
            id="SF-FLK-1 gridless 0.5 ft gap: 5.5 ft > 5 ft reach",
        ),
        pytest.param(
            grid("gridless"),
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 210, 100, reach=10)],
            [],
            True,
            id="SF-FLK-1 gridless reach 10 ft reaches across the gap",
        ),
    ],
)
def test_flanking_table(g, tokens, walls, expected):
    assert flank(g, tokens, walls) is expected


@pytest.mark.parametrize(("columns", "even"), HEX_KINDS)
@pytest.mark.parametrize(
    ("ally", "expected"),
    [
        pytest.param("opposite", True, id="SF-FLK-1 hex: opposite neighbours flank"),
        pytest.param("next", False, id="SF-FLK-1 hex: neighbouring sides do not"),
        pytest.param("wide", False, id="SF-FLK-1 hex: sides two apart do not"),
        pytest.param("far", False, id="SF-FLK-1 hex: opposite but out of reach"),
    ],
)
def test_hex_flanking(columns, even, ally, expected):
    g = Grid(**hex_grid(columns, even))
    lat = grids.lattice(g)
    assert lat is not None
    import numpy as np

    t = hex_tok("T", 6, 6, columns, even)
    (tc,) = grids.footprint(Token("T", t["x"], t["y"]), g)
    dirs = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
    pick = {"opposite": 3, "next": 1, "wide": 2, "far": 3}[ally]
    steps = 2 if ally == "far" else 1

    def at(tid, d, k):
        q, r = tc[0] + d[0] * k, tc[1] + d[1] * k
        (cx, cy) = lat.centres(np.array([[q, r]]))[0]
        return tok(tid, cx - lat.size_x / 2, cy - lat.size_y / 2)

    tokens = [t, at("A", dirs[0], 1), at("B", dirs[pick], steps)]
    assert flank(hex_grid(columns, even), tokens) is expected


def test_hex_flanking_wall_between():
    """SF-FLK-1 on hexes: a wall along the edge between the ally and the target."""
    g = Grid(**hex_grid(False))
    lat = grids.lattice(g)
    assert lat is not None
    import numpy as np

    t = hex_tok("T", 6, 6, False)
    (tc,) = grids.footprint(Token("T", t["x"], t["y"]), g)
    cells = np.array([[tc[0] + 1, tc[1]], [tc[0] - 1, tc[1]]])
    (ca, cb) = lat.centres(cells)
    a = tok("A", ca[0] - 50, ca[1] - lat.size_y / 2)
    b = tok("B", cb[0] - 50, cb[1] - lat.size_y / 2)
    # the west edge of T (pointy hexes: a vertical edge at x = centre - size / 2)
    (tcx, tcy) = lat.centres(np.array([tc]))[0]
    edge = {"id": "w", "c": [tcx - 50, tcy - 40, tcx - 50, tcy + 40]}
    assert flank(hex_grid(False), [t, a, b]) is True
    assert flank(hex_grid(False), [t, a, b], [edge]) is False


# ---------------------------------------------------------------------------- SF-COV-5, PV-RNG


@pytest.mark.parametrize(
    ("g", "gap_px", "covered"),
    [
        pytest.param(grid(), 500, True, id="SF-COV-5 25 ft from the target: cover"),
        pytest.param(grid(), 700, False, id="SF-COV-5 35 ft from the target: none"),
        pytest.param(grid(distance=10), 200, True, id="SF-COV-5 10-ft squares, 20 ft: cover"),
        pytest.param(grid(distance=10), 400, False, id="SF-COV-5 10-ft squares, 40 ft: none"),
        pytest.param(grid(units="m", distance=2), 400, True, id="SF-COV-5 2-m squares 8 m"),
        pytest.param(grid(units="m", distance=2), 500, False, id="SF-COV-5 2-m squares 10 m"),
    ],
)
def test_low_obstacle_range_in_feet(g, gap_px, covered):
    """SF-COV-5's 30 ft is converted to the scene's units (GEO-8), not 6 squares."""
    x = 100 + gap_px
    sc = scene(
        g,
        [tok("T", 0, 0), tok("A", x + gap_px + 200, 0)],
        [{"id": "low", "c": [x, -300, x, 400], "cover": "low"}],
    )
    built = build_scene(sc)
    mask = low_obstacle_mask(built, built.token_boxes["A"], built.token_boxes["T"])
    assert mask is not None
    assert bool(mask[0]) is covered


@pytest.mark.parametrize(
    ("distance_m", "increment_m", "band", "levels"),
    [
        pytest.param(9, None, "close", None, id="PV-RNG-1 9 m is 30 ft: close"),
        pytest.param(9.3, None, "near", None, id="PV-RNG-1 9.3 m is 31 ft: near"),
        pytest.param(36, None, "far", None, id="PV-RNG-1 36 m is 120 ft: far"),
        pytest.param(37, None, "distant", None, id="PV-RNG-1 37 m: distant"),
        pytest.param(18, 9, "near", 1, id="PV-RNG-2 increments count the same in metres"),
    ],
)
def test_range_bands_in_metres(distance_m, increment_m, band, levels):
    res = range_modifiers(distance_m, increment_m, units="m")
    assert res.band == band
    assert res.disadvantage_levels == levels
    assert "GEO-8" in res.rules


# ---------------------------------------------------------------------------- hex corners

R = 100 / SQRT3  # hex radius for size 100


def hex_cover(ruleset: str, wall_span: tuple[float, float] | None, columns=False, **options):
    """Cover on a hex grid: A three hexes from T along its row (hex-row: east) or column
    (hex-col: south); a wall across midway whose extent is given relative to the line of
    centres (px)."""
    from service.rules.ask import cover_one
    from service.rules.base import Attack

    g = hex_grid(columns)
    if columns:
        t, a = hex_tok("T", 4, 4, True), hex_tok("A", 7, 4, True)
    else:
        t, a = hex_tok("T", 4, 4, False), hex_tok("A", 4, 7, False)
    (tx, ty) = offset_centre(4, 4, columns, False)
    walls = []
    if wall_span is not None:
        lo, hi = wall_span
        c = (
            [tx + lo, ty + 150, tx + hi, ty + 150]
            if columns
            else [tx + 150, ty + lo, tx + 150, ty + hi]
        )
        walls = [{"id": "w", "c": c}]
    sc = scene(g, [t, a], walls)
    return cover_one(
        rules.get(ruleset), build_scene(sc), sc.token("A"), sc.token("T"), Attack(), options
    )


def test_hex_corners_are_the_hex_vertices():
    """On hex grids a token's corners are its hex's six vertices (docs/decisions.md)."""
    from service.geometry import sampling

    g = hex_grid(False)
    sc = scene(g, [hex_tok("T", 4, 4, False)])
    built = build_scene(sc)
    pts = sampling.space_corners(built, sc.token("T"), built.token_boxes["T"], 0.0)
    (cx, cy) = offset_centre(4, 4, False, False)
    assert pts.shape == (6, 2)
    assert sorted(pts[:, 1].round(6).tolist()) == sorted(
        [round(cy + d, 6) for d in (-R, -R / 2, -R / 2, R / 2, R / 2, R)]
    )
    assert pts[0].tolist() == pytest.approx([cx, cy - R])  # clockwise from the top


@pytest.mark.parametrize(
    ("span", "paired", "dmg"),
    [
        pytest.param(None, "none", "none", id="5E-COV-5/8 hex: nothing in the way"),
        pytest.param((-R - 10, -R * 0.75), "none", "none", id="5E-COV-5 hex: 1 of 6 none"),
        pytest.param((-R - 10, -R / 4), "half", "none", id="5E-COV-5 hex: 3 of 6 half"),
        pytest.param((-R * 0.6, R * 0.6), "half", "half", id="5E-COV-5 hex: 4 of 6 still half"),
        pytest.param(
            (-R - 10, R * 0.75),
            "three-quarters",
            "three-quarters",
            id="5E-COV-5 hex: 5 of 6; 5E-COV-8 6 of 6 with line of effect",
        ),
        pytest.param((-R - 10, R + 10), "total", "total", id="5E-COV-5 hex: 6 of 6 total"),
    ],
)
@pytest.mark.parametrize("columns", [False, True], ids=["hex-row", "hex-col"])
def test_dnd5e_hex_corner_tables(columns, span, paired, dmg):
    assert hex_cover("dnd5e", span, columns).cover == paired
    assert hex_cover("dnd5e", span, columns, cover_method="dmg-corner").cover == dmg
    assert len(hex_cover("dnd5e", span, columns).lines) == 6


@pytest.mark.parametrize(
    ("span", "degree"),
    [
        pytest.param(None, "none", id="SF-COV-1 hex: clear"),
        pytest.param((-R - 10, R + 10), "total", id="SF-COV-9 hex: wall across"),
        pytest.param((-R * 0.6, R * 0.6), "cover", id="SF-COV-1 hex: every vertex has a line"),
        pytest.param((-R - 10, -R * 0.9), "none", id="SF-COV-1 hex: a low vertex sees all six"),
    ],
)
@pytest.mark.parametrize("columns", [False, True], ids=["hex-row", "hex-col"])
def test_starfinder_hex_cover(columns, span, degree):
    assert hex_cover("starfinder", span, columns).cover == degree


@pytest.mark.parametrize(
    ("span", "degree"),
    [
        pytest.param(None, "none", id="PV-COV-2 hex: centre line clear"),
        pytest.param((-10, 10), "standard", id="PV-COV-2 hex: centre line through a wall"),
    ],
)
@pytest.mark.parametrize("columns", [False, True], ids=["hex-row", "hex-col"])
def test_pf2e_hex_cover(columns, span, degree):
    assert hex_cover("pf2e-variant", span, columns).cover == degree


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["dnd5e", "starfinder", "pf2e-variant"]),
    st.integers(-3, 3),
    st.integers(-3, 3),
    st.floats(0, 50),
    st.floats(0, 50),
)
def test_tiny_counts_from_its_square(ruleset, i, j, dx, dy):
    """GEO-8: a tiny creature anywhere in a square is as far as a medium one in it."""
    if (i, j) == (0, 0):
        return
    tiny = tok("T", 100 * i + dx, 100 * j + dy, **TINY)
    medium = tok("T", 100 * i, 100 * j)
    a = tok("A", 0, 0)
    assert distance(ruleset, grid(), [a, tiny]) == distance(ruleset, grid(), [a, medium])


@settings(max_examples=300, deadline=None)
@given(
    spaces=st.lists(
        st.tuples(
            st.integers(-20, 20).map(lambda v: 25.0 * v),
            st.integers(-20, 20).map(lambda v: 25.0 * v),
            st.sampled_from([25.0, 50.0, 100.0, 200.0, 300.0]),
            st.sampled_from([0.0, 0.0, 5.0, 12.5, 30.0, -10.0]),
        ),
        min_size=2,
        max_size=8,
    ),
    rule=st.sampled_from(["equidistant", "alternating"]),
    distance=st.sampled_from([5.0, 1.5, 2.0]),
)
def test_square_distances_of_many_pairs_are_each_pairs(spaces, rule, distance):
    """GEO-8 on squares: ``square_distances_units`` (a vision matrix's distances)
    gives every pair exactly ``space_distance_units``' float, tiny spaces (counting from the
    square that holds their centre), large ones and elevations included."""
    g = Grid(type="square", size=100.0, distance=distance)
    toks = [
        Token(id=f"t{i}", x=x, y=y, width=w / 100, height=w / 100, elevation=z)
        for i, (x, y, w, z) in enumerate(spaces)
    ]
    boxes = {t.id: (t.x, t.y, t.x + t.width * 100, t.y + t.height * 100) for t in toks}
    pairs = [(a, b) for a in toks for b in toks if a is not b]
    counted = {t.id: grids.counting_box(boxes[t.id], g) for t in toks}
    got = grids.square_distances_units(
        np.array([counted[a.id] for a, _ in pairs]),
        np.array([counted[b.id] for _, b in pairs]),
        np.array([(a.elevation, b.elevation) for a, b in pairs]),
        g,
        rule,
    )
    expected = [grids.space_distance_units(a, b, g, boxes, rule) for a, b in pairs]
    assert got.tolist() == expected
