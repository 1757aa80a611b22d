"""The cover answer written in C (``schemas.answers``) is marshmallow's, byte for byte.

``POST /v1/cover`` (shared/API.md "Cover") answers ``{"ruleset", "attacker", "results":
[{"target", "cover", "ac_bonus", "save_bonus", "advantage_levels", "can_target",
"line_of_effect", "rules", "lines": [{"from", "to", "blocked", "blockers": [{"kind", "id",
"low"?}]}], "notes", "concealment", "miss_chance", "can_hide", "modifiers"}]}``. The fast
path must write exactly what ``CoverResponseSchema().dump`` followed by Flask's ``jsonify``
writes (sorted keys, compact, ASCII), or step aside (``None``) and let marshmallow write it:

- a table of real answers, every ruleset, with and without blocked lines, low obstacles
  (GEO-5a ``"low": true``), creature blockers, notes and modifiers, areas without attacker,
  several targets, total cover; plus every ``/v1/cover`` case of ``../shared/cases``;
- made-up answers the fast path must decline: floats Python writes with an exponent,
  strings needing escapes or not ASCII, values of another type than the schema's; and a
  Hypothesis property over made-up answers (declined, or equal);
- through HTTP: the body is the marshmallow path's body, and the debug app (indented JSON)
  keeps the marshmallow path;
- the Structs mirror the marshmallow schemas field for field.
"""

from __future__ import annotations

import json
import string
from typing import Any

import msgspec
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from marshmallow import ValidationError

from schemas import answers, responses
from schemas.scene import SceneSchema
from service.app import create_app, sample_scene
from service.errors import RulesError
from service.geometry.measure import Blocker, TracedLine
from service.operations import OPERATIONS, build_scene
from service.rules.base import CoverResult, Modifier
from tests.scenes import load, tok, wall

COVER = OPERATIONS["cover"]
RULESETS = ("dnd5e", "starfinder", "pf2e-variant")


def marshmallow_json(answer: Any) -> bytes:
    """The marshmallow path: the response schema's dump, written as Flask writes JSON."""
    return json.dumps(COVER.dump(answer), sort_keys=True, separators=(",", ":")).encode()


def answer_of(scene: Any, body: dict[str, Any]) -> Any:
    """The core's cover answer (``service.operations.cover``) for a request without scene."""
    return COVER.answer(build_scene(scene), COVER.prepare(COVER.load(body)))


# Attacker A west, target T four squares east (the handed cases' layout), 100 px squares.
A, T = tok("A", 0, 0), tok("T", 400, 0)
SCENES = {
    "open": load([], [A, T]),
    "wall": load([wall("w1", 250, -100, 250, 60)], [A, T]),
    "wall-both-sides": load(
        [wall("w1", 250, -100, 250, 60), wall("w2", 250, 140, 250, 300)], [A, T]
    ),
    "sealed": load([wall("w1", 250, -1000, 250, 1000)], [A, T]),
    "low-wall": load([wall("low", 250, -1000, 250, 1000, cover="low")], [A, T]),
    "creature": load([], [A, T, tok("C", 200, 0)]),
    "hidden-creature": load([], [A, T, tok("H", 200, 0, hidden=True)]),
    "prone-target": load([], [A, tok("T", 400, 0, conditions=["prone"])]),
    "gravity": load([wall("w1", 250, -100, 250, 60)], [A, T], environment={"gravity": 3}),
    "three-targets": load(
        [wall("w1", 250, -100, 250, 60)], [A, T, tok("U", 400, 300), tok("V", 0, 400, 2)]
    ),
}
CASES = [
    # (scene, request body without scene): every ruleset on each.
    ("open", {"attacker": "A", "targets": ["T"]}),
    ("wall", {"attacker": "A", "targets": ["T"]}),
    ("wall", {"attacker": "A", "targets": ["T"], "attack": {"kind": "melee"}}),
    ("wall-both-sides", {"attacker": "A", "targets": ["T"]}),
    ("sealed", {"attacker": "A", "targets": ["T"]}),
    ("low-wall", {"attacker": "A", "targets": ["T"]}),
    ("creature", {"attacker": "A", "targets": ["T"]}),
    ("hidden-creature", {"attacker": "A", "targets": ["T"]}),
    ("hidden-creature", {"attacker": "A", "targets": ["T"], "options": {"ignore_hidden": True}}),
    ("prone-target", {"attacker": "A", "targets": ["T"]}),
    ("prone-target", {"attacker": "A", "targets": ["T"], "attack": {"kind": "melee"}}),
    ("gravity", {"attacker": "A", "targets": ["T"]}),
    ("three-targets", {"attacker": "A", "targets": ["T", "U", "V"]}),
    ("wall", {"targets": ["T", "A"], "attack": {"kind": "area", "origin": [100, 50]}}),
]


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize(
    ("scene", "body"), CASES, ids=[f"{s}-{i}" for i, (s, _) in enumerate(CASES)]
)
def test_cover_answers_written_alike(ruleset: str, scene: str, body: dict[str, Any]) -> None:
    """API.md "Cover": the fast path writes every answer of the table as marshmallow does."""
    answer = answer_of(SCENES[scene], {"ruleset": ruleset, **body})
    fast = COVER.to_json(answer)
    assert fast is not None, "an ordinary answer takes the fast path"
    assert fast == marshmallow_json(answer)


def test_table_covers_what_it_claims() -> None:
    """The table holds lines blocked and clear, low obstacles, creatures, notes, modifiers."""
    seen: dict[str, bool] = dict.fromkeys(
        ("blocked", "clear", "low", "token", "notes", "modifiers", "no-attacker", "total"), False
    )
    for ruleset in RULESETS:
        for scene, body in CASES:
            dumped = COVER.dump(answer_of(SCENES[scene], {"ruleset": ruleset, **body}))
            seen["no-attacker"] |= dumped["attacker"] is None
            for result in dumped["results"]:
                lines = result["lines"]
                blockers = [b for line in lines for b in line["blockers"]]
                seen["blocked"] |= any(line["blocked"] for line in lines)
                seen["clear"] |= any(not line["blocked"] for line in lines)
                seen["low"] |= any(b.get("low") for b in blockers)
                seen["token"] |= any(b["kind"] == "token" for b in blockers)
                seen["notes"] |= bool(result["notes"])
                seen["modifiers"] |= bool(result["modifiers"])
                seen["total"] |= result["ac_bonus"] is None
    assert all(seen.values()), seen


def test_shared_cover_cases_written_alike(shared_dir: Any) -> None:
    """Every ``/v1/cover`` case of ../shared/cases (API.md "Cover"): the same bytes."""
    cases = [
        case
        for path in sorted((shared_dir / "cases").glob("*.json"))
        for case in json.loads(path.read_text(encoding="utf-8"))
        if case.get("endpoint") == "/v1/cover"
    ]
    written = 0
    for case in cases:
        request = dict(case["request"])
        try:
            answer = answer_of(SceneSchema().load(request.pop("scene")), request)
        except (ValidationError, RulesError):  # a case expecting a refusal: nothing to write
            continue
        fast = COVER.to_json(answer)
        assert fast is not None, case["id"]
        assert fast == marshmallow_json(answer), case["id"]
        written += 1
    assert written >= 10


def _line(*points: float, blockers: tuple[Blocker, ...] = (), low: tuple = ()) -> TracedLine:
    return TracedLine(points[0:2], points[2:4], bool(blockers), blockers, None, low)  # type: ignore[arg-type]


def _result(**kw: Any) -> CoverResult:
    base: dict[str, Any] = {
        "target": "T",
        "cover": "half",
        "ac_bonus": 2,
        "save_bonus": 2,
        "advantage_levels": 0,
        "can_target": True,
        "line_of_effect": True,
        "rules": ("5E-COV-5",),
        "lines": (_line(0.5, 0.5, 400.5, 0.5),),
    }
    return CoverResult(**{**base, **kw})


def _answer(*results: CoverResult, attacker: Any = "A") -> dict[str, Any]:
    return {"ruleset": "dnd5e", "attacker": attacker, "results": list(results)}


WALL = Blocker("wall", "w1")
MADE_UP = {
    # Written by the fast path.
    "plain": (_answer(_result()), True),
    "low-marked": (
        _answer(
            _result(lines=(_line(0, 0, 1, 1, blockers=(WALL, Blocker("token", "C")), low=(WALL,)),))
        ),
        True,
    ),
    "modifier": (_answer(_result(modifiers=(Modifier("SF-PRN-1", "ac", 4, "prone"),))), True),
    "small-and-big-plain-floats": (_answer(_result(lines=(_line(1e-4, -0.0, 9.9e15, 0),))), True),
    "integer-points": (_answer(_result(lines=(_line(1, 2, 3, 4),))), True),
    "no-lines": (_answer(_result(lines=())), True),
    "no-results": (_answer(), True),
    # Declined: marshmallow writes them.
    "exponent-small": (_answer(_result(lines=(_line(1e-5, 0, 1, 1),))), False),
    "exponent-big": (_answer(_result(lines=(_line(1e16, 0, 1, 1),))), False),
    "nan": (_answer(_result(lines=(_line(float("nan"), 0, 1, 1),))), False),
    "infinity": (_answer(_result(lines=(_line(float("inf"), 0, 1, 1),))), False),
    "not-ascii": (_answer(_result(target="gobelin-é")), False),
    "quote": (_answer(_result(notes=('say "hi"',))), False),
    "control": (_answer(_result(notes=("tab\there",))), False),
    "delete": (_answer(_result(notes=("del\x7f",))), False),
    "numpy-float": (_answer(_result(lines=(_line(np.float64(1.5), 0, 1, 1),))), False),
    "numpy-int": (_answer(_result(ac_bonus=np.int64(2))), False),
    "numpy-bool": (_answer(_result(can_target=np.bool_(True))), False),
    "bool-as-int": (_answer(_result(advantage_levels=True)), False),
    "none-target": (_answer(_result(target=None)), False),
    "not-a-result": (_answer({"target": "T"}), False),  # type: ignore[arg-type]
}


@pytest.mark.parametrize(("answer", "taken"), MADE_UP.values(), ids=MADE_UP.keys())
def test_made_up_answers_written_alike_or_declined(answer: Any, taken: bool) -> None:
    """What the fast path cannot write as Python's json does, it declines (``None``)."""
    fast = COVER.to_json(answer)
    assert (fast is not None) == taken
    if fast is not None:
        assert fast == marshmallow_json(answer)


_text = st.text(max_size=12) | st.text(alphabet=string.ascii_letters + " -.,:", max_size=12)
_coord = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(10**6), 10**6)
_blocker = st.builds(Blocker, st.sampled_from(["wall", "token", "region"]), _text)


@st.composite
def _traced(draw: st.DrawFn) -> TracedLine:
    blockers = tuple(draw(st.lists(_blocker, max_size=3)))
    low = tuple(b for b in blockers if draw(st.booleans()))
    points = draw(st.lists(_coord, min_size=4, max_size=4))
    return _line(*points, blockers=blockers, low=low)


_results = st.builds(
    CoverResult,
    target=_text,
    cover=st.sampled_from(["none", "half", "three-quarters", "total", "soft"]),
    ac_bonus=st.none() | st.integers(-10, 10),
    save_bonus=st.none() | st.integers(-10, 10),
    advantage_levels=st.integers(0, 3),
    can_target=st.booleans(),
    line_of_effect=st.booleans(),
    rules=st.lists(_text, max_size=3).map(tuple),
    lines=st.lists(_traced(), max_size=4).map(tuple),
    notes=st.lists(_text, max_size=2).map(tuple),
    concealment=st.sampled_from(["none", "concealment", "total"]),
    miss_chance=st.sampled_from([0, 20, 50]),
    can_hide=st.none() | st.booleans(),
    modifiers=st.lists(
        st.builds(Modifier, _text, _text, st.integers(-5, 5), _text), max_size=2
    ).map(tuple),
)


@given(st.lists(_results, max_size=3), st.none() | _text)
def test_any_answer_written_alike_or_declined(results: list[CoverResult], attacker: Any) -> None:
    """Property (API.md "Cover"): any answer is written as marshmallow writes it, or declined."""
    answer = _answer(*results, attacker=attacker)
    fast = COVER.to_json(answer)
    assert fast is None or fast == marshmallow_json(answer)


@pytest.fixture(scope="module")
def geo_sample():
    return build_scene(SceneSchema().load(sample_scene()))


@pytest.mark.parametrize("debug", [False, True], ids=["compact", "debug-indented"])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_http_body_is_the_marshmallow_body(ruleset: str, debug: bool, geo_sample: Any) -> None:
    """``POST /v1/cover`` answers the bytes flask-smorest's dump and ``jsonify`` would write.

    In debug (indented JSON), the fast path steps aside and the body is still that.
    """
    app = create_app({"PRELOAD_SAMPLE": True})
    app.debug = debug
    body = {"ruleset": ruleset, "attacker": "archer", "targets": ["goblin", "kobold", "bat"]}
    resp = app.test_client().post("/v1/cover", json={**body, "scene_id": "sample"})
    assert resp.status_code == 200
    assert resp.mimetype == "application/json"
    with app.app_context():
        expected = app.json.response(COVER.dump(answer_of(geo_sample.scene, body))).data
    assert resp.data == expected


def test_http_declined_answer_still_answers(geo_sample: Any) -> None:
    """A token id that is not ASCII: the fast path declines, the answer is marshmallow's."""
    scene = sample_scene()
    scene["tokens"][0]["id"] = "archère"
    app = create_app()
    resp = app.test_client().post(
        "/v1/cover",
        json={"ruleset": "dnd5e", "scene": scene, "attacker": "archère", "targets": ["goblin"]},
    )
    assert resp.status_code == 200
    assert b"\\u00e8" in resp.data  # ensure_ascii, as jsonify writes it
    assert resp.get_json()["attacker"] == "archère"


def _schema_fields(name: str) -> dict[str, bool]:
    schema = getattr(responses, name)()
    return {f.data_key or key: f.allow_none for key, f in schema.fields.items()}


@pytest.mark.parametrize("struct", answers.MIRRORS, ids=lambda s: s.__name__)
def test_structs_mirror_the_response_schemas(struct: type[msgspec.Struct]) -> None:
    """Each Struct writes the fields of its marshmallow schema (API.md "Cover"), nullable alike.

    ``low`` is the one field written only when true (``TracedLineSchema.mark_low``).
    """
    info = msgspec.inspect.type_info(struct)
    assert isinstance(info, msgspec.inspect.StructType)
    mine = {f.encode_name: isinstance(f.type, msgspec.inspect.UnionType) for f in info.fields}
    theirs = _schema_fields(answers.MIRRORS[struct])
    if struct is answers.BlockerJSON:
        theirs["low"] = False  # declared nullable or not, it is only ever written true
    assert mine == theirs


@pytest.mark.parametrize("odd", ["\ud800", "\udfff", "a\udc80b"], ids=["high", "low", "inside"])
@pytest.mark.parametrize("where", ["token", "wall"])
def test_ids_utf8_cannot_write_are_declined(odd: str, where: str) -> None:
    """API.md "Cover": ids are echoed as sent. A lone surrogate (valid JSON text, ``\\ud800``)
    cannot be written as UTF-8: the fast path declines and marshmallow's JSON (which
    escapes it, as every other endpoint does) answers 200, never a 500 (hostile trial)."""
    scene = {
        "grid": {"size": 100},
        "walls": [{"id": odd if where == "wall" else "w", "c": [200, -100, 200, 100]}],
        "tokens": [
            {"id": odd if where == "token" else "A", "x": 0, "y": 0},
            {"id": "B", "x": 400, "y": 0},
        ],
    }
    attacker = odd if where == "token" else "A"
    body = json.dumps(
        {"ruleset": "dnd5e", "scene": scene, "attacker": attacker, "targets": ["B"]}
    )  # ensure_ascii: the surrogate travels as the escape \ud800
    resp = create_app().test_client().post("/v1/cover", data=body, content_type="application/json")
    assert resp.status_code == 200, resp.data
    got = resp.get_json()
    named = [b["id"] for line in got["results"][0]["lines"] for b in line["blockers"]]
    assert got["attacker"] == attacker
    assert (odd in named) == (where == "wall")
