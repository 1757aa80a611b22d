"""Corners where tokens touch walls or each other (GEO-6 Decisions), for every ruleset.

* An end point on a wall (a token flush against it at ``corner_inset: 0``, or an exact
  corner line) is on its own creature's side: a wall a creature stands flush against still
  separates it from a creature on the far side, whatever the inset.
* A wall that only ends on a token's corner (either end's token) is met at its free tip:
  the inset never adds a block, in the exact line of effect as in the traced lines.
* In a row of four adjacent creatures none gives the others cover by its edges alone.
* ``corner_inset`` is below a quarter square for every traced request; larger is a 422.

Through the HTTP API (grid 100 px = 5 ft unless said).
"""

from __future__ import annotations

import pytest

from service.app import create_app


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": False}).test_client()


def _scene(walls, tokens, size=100):
    grid = {"size": size, "distance": 5, "units": "ft", "type": "square"}
    return {"grid": grid, "walls": walls, "tokens": tokens}


def _tok(tid, x, y, w=1):
    return {"id": tid, "x": x, "y": y, "width": w, "height": w}


def _post(client, endpoint, body, status=200):
    resp = client.post(endpoint, json=body)
    assert resp.status_code == status, resp.get_json()
    return resp.get_json()


V = {"id": "V", "c": [300, -200, 300, 500]}

# (walls, P, Q, options, clear) -- /v1/line-of-effect from P to Q
FLUSH = [
    pytest.param([V], _tok("P", 0, 100), _tok("Q", 300, 200), {"corner_inset": 0}, False,
                 id="Q flush on V's far side, inset 0 (handed-3)"),
    pytest.param([V], _tok("P", 0, 100), _tok("Q", 300, 200), {}, False, id="default inset"),
    pytest.param([V], _tok("P", 100, 400), _tok("Q", 300, 200), {"corner_inset": 0}, False,
                 id="P flush too, on V's near side"),
    pytest.param([V], _tok("P", 300, 0), _tok("Q", 300, 300), {"corner_inset": 0}, True,
                 id="both flush on the same side: along V, clear"),
    pytest.param([V], _tok("P", 0, 100, 2), _tok("Q", 300, 200, 2), {"corner_inset": 0}, False,
                 id="large tokens either side"),
]  # fmt: skip


@pytest.mark.parametrize("walls, p, q, options, clear", FLUSH)
def test_a_flush_wall_still_separates(client, walls, p, q, options, clear):
    """GEO-6 end-point Decision: an end on a wall is on its own creature's side."""
    body = {"scene": _scene(walls, [p, q]), "from": "P", "to": "Q", "options": options}
    got = _post(client, "/v1/line-of-effect", body)
    assert got["clear"] is clear
    assert (got["witness"] is None) is (not clear)


W = {"id": "W", "c": [400, 100, 0, 400]}  # ends on B's bottom-right corner
B, A = _tok("B", 300, 0), _tok("A", 200, 300)

# (ruleset, options, cover, line of effect) -- A attacks B across W, which ends on B's corner
TIP = [
    pytest.param("dnd5e", {}, "three-quarters", True, id="dnd5e default inset (handed-3)"),
    pytest.param("dnd5e", {"corner_inset": 0}, "three-quarters", True, id="dnd5e inset 0"),
    pytest.param("dnd5e", {"corner_inset": 10}, "three-quarters", True, id="dnd5e inset 10"),
    pytest.param("pf2e-variant", {"corner_inset": 0.25}, "standard", True,
                 id="pf2e inset 0.25 (handed-3)"),
    pytest.param("pf2e-variant", {}, "standard", True, id="pf2e default inset"),
    pytest.param("pf2e-variant", {"corner_inset": 0}, "standard", True, id="pf2e inset 0"),
]  # fmt: skip


@pytest.mark.parametrize("ruleset, options, cover, loe", TIP)
def test_a_wall_ending_on_a_corner_never_blocks_there(client, ruleset, options, cover, loe):
    """GEO-6: the exact corner line meets W only at its free tip, the target's own corner;
    the inset may not block it, so the answer has a line of effect (no "clear traced line
    beside line_of_effect: false")."""
    body = {"ruleset": ruleset, "scene": _scene([W], [B, A]), "attacker": "A",
            "targets": ["B"], "options": options}  # fmt: skip
    got = _post(client, "/v1/cover", body)["results"][0]
    assert (got["cover"], got["line_of_effect"], got["can_target"]) == (cover, loe, True)


@pytest.mark.parametrize("inset", [None, 0, 0.25, 10])
def test_line_of_effect_agrees_at_every_inset(client, inset):
    """GEO-6: ``/v1/line-of-effect`` across W is clear at every inset."""
    options = {} if inset is None else {"corner_inset": inset}
    body = {"scene": _scene([W], [B, A]), "from": "A", "to": "B", "options": options}
    assert _post(client, "/v1/line-of-effect", body)["clear"] is True


def test_starfinder_attacker_flush_against_a_wall():
    """GEO-6 end-point Decision with SF-COV-1 (handed-3): corners on V have lines leaving to
    V's far side (blocked), the others cross V; line of effect around V's tip: cover +4."""
    client = create_app({"TESTING": False}).test_client()
    walls = [{"id": "V", "c": [500, -100, 500, 340]}]
    tokens = [_tok("A", 400, 200), _tok("T", 600, 300)]
    body = {"ruleset": "starfinder", "scene": _scene(walls, tokens), "attacker": "A",
            "targets": ["T"]}  # fmt: skip
    got = _post(client, "/v1/cover", body)["results"][0]
    assert (got["cover"], got["ac_bonus"], got["save_bonus"], got["line_of_effect"]) == (
        "cover", 4, 2, True,
    )  # fmt: skip


# (ruleset, tokens as (id, x, y, w), attacker, targets, covers)
ROWS = [
    pytest.param("dnd5e", [("A", 500, 100, 1), ("B", 500, 200, 1), ("C", 500, 300, 1),
                           ("D", 500, 400, 1)], "D", ["B", "A"], ["none", "none"],
                 id="dnd5e column of four (handed-3)"),
    pytest.param("dnd5e", [("A", 100, 100, 1), ("B", 200, 100, 1), ("C", 300, 100, 1),
                           ("D", 400, 100, 1)], "A", ["C", "D"], ["none", "none"],
                 id="dnd5e row of four"),
    pytest.param("dnd5e", [("A", 0, 0, 2), ("B", 0, 200, 2), ("C", 0, 400, 2),
                           ("D", 0, 600, 2)], "D", ["B", "A"], ["none", "none"],
                 id="dnd5e column of four large"),
    pytest.param("dnd5e", [("A", 500, 100, 1), ("B", 500, 200, 1), ("C", 400, 300, 1),
                           ("D", 500, 400, 1)], "D", ["A"], ["none"],
                 id="dnd5e column with C beside it: B alone in between"),
]  # fmt: skip


@pytest.mark.parametrize("ruleset, tokens, attacker, targets, covers", ROWS)
def test_a_row_of_adjacent_creatures_gives_no_cover_by_edges(
    client, ruleset, tokens, attacker, targets, covers
):
    """GEO-6: a creature whose corner lies on either end's token's corner gives no cover by
    its edges alone (GEO-7, 5E-COV-5: the paired lines run along the row's edges)."""
    scene = _scene([], [_tok(*t) for t in tokens])
    body = {"ruleset": ruleset, "scene": scene, "attacker": attacker, "targets": targets}
    got = _post(client, "/v1/cover", body)["results"]
    assert [r["cover"] for r in got] == covers


# (grid size px, endpoint, inset, status) -- a quarter square is size / 4
INSETS = [
    pytest.param(70, "/v1/line-of-effect", 20, 422, id="20 on a 70 px grid (handed-3)"),
    pytest.param(70, "/v1/line-of-effect", 17.5, 422, id="exactly a quarter: 422"),
    pytest.param(70, "/v1/line-of-effect", 17.4, 200, id="just below: 200"),
    pytest.param(100, "/v1/cover", 30, 422, id="cover, 30 on 100"),
    pytest.param(100, "/v1/vision", 25, 422, id="vision, 25 on 100"),
    pytest.param(100, "/v1/line-of-sight", 24, 200, id="line of sight, 24 on 100"),
]


@pytest.mark.parametrize("size, endpoint, inset, status", INSETS)
def test_corner_inset_below_a_quarter_square(client, size, endpoint, inset, status):
    """GEO-6: ``corner_inset`` from 0 up to, not including, a quarter square."""
    scene = _scene([], [_tok("A", 0, 0), _tok("B", 3 * size, 0)], size)
    scene["tokens"][1]["x"] = 3 * size
    body = {"scene": scene, "options": {"corner_inset": inset}}
    if endpoint in ("/v1/line-of-effect", "/v1/line-of-sight"):
        body.update({"from": "A", "to": "B"})
    else:
        who = "attacker" if endpoint == "/v1/cover" else "observer"
        body.update({"ruleset": "dnd5e", who: "A", "targets": ["B"]})
    got = _post(client, endpoint, body, status)
    if status == 422:
        assert got["code"] == 422 and "corner_inset" in str(got["errors"])
