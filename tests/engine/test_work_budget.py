"""Bounded work: every kind of costly body costs what its size allows, or is a 422.

Small sizes of the kinds that once took minutes or gigabytes (``bench/worst.py`` measures the
big ones): copies of one wall, a forest of short walls between two tokens, detailed fog
regions, many uploads. What is asserted is behaviour (the answer, the refusal and its
message, what the cache counts), never time.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.worst import copies, fog, scatter
from schemas.scene import SceneSchema
from service import rules
from service.app import create_app
from service.cache import approx_bytes
from service.engine.budget import WorkBudget
from service.engine.scene import build_scene
from service.engine.walls import index_walls
from service.errors import OverBudget
from service.geometry import search
from service.geometry.exact import lines_of_effect
from service.geometry.search import search_many, vertex_pairs
from service.geometry.trace import trace
from service.model import Wall
from service.rules.ask import cover_all, cover_one
from service.rules.base import Attack
from tests.scenes import T_EAST, A, load, tok, wall


def _cover(scene, ruleset="dnd5e"):
    built = build_scene(scene)
    return cover_one(rules.get(ruleset), built, scene.token("A"), scene.token("T"), Attack(), {})


# --------------------------------------------------------------------------- copies


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize("n", [2, 7, 300])
def test_copies_of_one_wall_answer_as_one_wall_naming_every_copy(ruleset, n):
    """Identical walls are indexed once (bounded work) and every copy is still a blocker."""
    one = load([wall("w0", 250, -100, 250, 60)], [A, T_EAST])
    many = load([wall(f"w{k}", 250, -100, 250, 60) for k in range(n)], [A, T_EAST])
    a, b = _cover(one, ruleset), _cover(many, ruleset)
    assert (a.cover, a.line_of_effect) == (b.cover, b.line_of_effect)
    for la, lb in zip(a.lines, b.lines, strict=True):
        assert la.blocked == lb.blocked
        if la.blockers:
            assert [x.id for x in lb.blockers] == [f"w{k}" for k in range(n)]
    assert build_scene(many).walls.size == 1


def test_reversed_two_way_copies_merge_but_one_way_walls_keep_their_side():
    """A two-way wall and its reverse are one wall; a one-way wall's reverse is not (GEO-3)."""
    two_way = index_walls(
        [Wall("a", (0.0, 0.0, 100.0, 0.0)), Wall("b", (100.0, 0.0, 0.0, 0.0))], 20.0
    )
    assert (two_way.size, two_way.names([0])) == (1, ["a", "b"])
    one_way = index_walls(
        [
            Wall("a", (0.0, 0.0, 100.0, 0.0), direction="left"),
            Wall("b", (100.0, 0.0, 0.0, 0.0), direction="left"),
        ],
        20.0,
    )
    assert one_way.size == 2


@pytest.mark.parametrize(
    "other",
    [
        {"sight": "none"},
        {"height": {"bottom": 0, "top": 5}},
        {"cover": "low"},
        {"door": "door", "door_state": "open"},
        {"hp": 10},
    ],
    ids=["restriction", "height", "cover", "open door", "hp"],
)
def test_walls_differing_in_what_they_block_are_not_merged(other):
    scene = load([wall("a", 250, -100, 250, 60), wall("b", 250, -100, 250, 60, **other)], [A])
    assert build_scene(scene).walls.size == 2


def test_walls_with_hp_are_never_merged_breakthrough_counts_each():
    """5E-LOE-4: each wall with hp absorbs damage, so identical ones stay two layers."""
    scene = load(
        [wall("a", 250, -100, 250, 160, hp=10), wall("b", 250, -100, 250, 160, hp=10)], [A, T_EAST]
    )
    client = create_app({"TESTING": False}).test_client()
    body = {"scene": SceneSchema().dump(scene), "from": "A", "to": "T", "effect": {"damage": 40}}
    got = client.post("/v1/line-of-effect", json=body).get_json()
    assert got["breakthrough"]["destroyed"] == ["a", "b"]
    assert got["breakthrough"]["damage_reaching"] == 20


@given(
    walls=st.lists(
        st.tuples(*[st.integers(0, 6)] * 4).filter(lambda c: c[:2] != c[2:]), max_size=5
    ),
    repeat=st.lists(st.integers(0, 4), max_size=5),
    segments=st.lists(
        st.tuples(*[st.integers(0, 6)] * 4).filter(lambda c: c[:2] != c[2:]),
        min_size=1,
        max_size=6,
    ),
)
def test_repeating_walls_changes_no_trace(walls, repeat, segments):
    """Adding identical copies of walls changes no blocked flag; blockers name the copies."""
    base = [Wall(f"w{i}", tuple(float(v) for v in c)) for i, c in enumerate(walls)]
    extra = [Wall(f"c{k}", base[i % len(base)].c) for k, i in enumerate(repeat) if base]
    seg = np.array(segments, dtype=np.float64)
    alone = index_walls(base, 20.0)
    a = trace(alone, seg)
    index = index_walls(base + extra, 20.0)
    b = trace(index, seg)
    assert a.wall_blocked.tolist() == b.wall_blocked.tolist()
    for wa, wb in zip(a.wall_blockers, b.wall_blockers, strict=True):
        names = index.names(wb)
        want = alone.names(wa)
        assert sorted(n for n in names if n.startswith("w")) == sorted(want)
        copied = {f"w{repeat[int(n[1:])] % len(base)}" for n in names if n.startswith("c")}
        assert copied <= set(want)


# --------------------------------------------------------------------------- the exact search


@given(n=st.integers(0, 60), chunk=st.integers(1, 500))
def test_vertex_pairs_come_in_the_order_of_triu_indices_whatever_the_chunk(n, chunk):
    got_i, got_j = [], []
    for i, j in vertex_pairs(n, chunk):
        assert len(i) < chunk + n  # whole rows: at most one row past the chunk
        got_i += i.tolist()
        got_j += j.tolist()
    want_i, want_j = np.triu_indices(n, 1)
    assert (got_i, got_j) == (want_i.tolist(), want_j.tolist())


def test_a_forest_between_two_spaces_is_refused_with_what_to_reduce():
    """The exact line-of-effect search stops at its budget with a 422 naming the cause."""
    built = build_scene(SceneSchema().load(scatter(300)))
    boxes = [np.asarray([built.token_boxes[t]], dtype=np.float64) for t in ("A", "T")]
    with pytest.raises(OverBudget) as err:
        search_many(built.walls, *boxes, "move", None, None, None, max_tests=50)
    assert "reduce the walls between them" in err.value.message
    assert "the budget is 50 line-wall tests" in err.value.message


def test_a_clear_line_found_early_is_answered_within_the_budget(monkeypatch):
    """Cheap lines first: a clear centre or corner line needs no search, however many walls."""
    monkeypatch.setattr(search, "MAX_SEARCH_TESTS", 10)
    scene = SceneSchema().load(scatter(300))
    built = build_scene(scene)
    a = np.array([[0.0, -1000.0, 100.0, -900.0]])  # above the forest: the lines pass over it
    t = np.array([[2000.0, -1000.0, 2100.0, -900.0]])
    found = lines_of_effect(built.walls, a, t, "move")[0]
    assert found.clear and found.witness is not None


def test_a_request_over_its_work_budget_is_a_422_before_the_work():
    """The cost model (SIGHTLINE_WORK_BUDGET): refused with what to reduce, not a killed worker."""
    client = create_app({"TESTING": False, "WORK_BUDGET": 100}).test_client()
    body = {
        "ruleset": "dnd5e",
        "scene": scatter(200),
        "attacker": "A",
        "targets": ["T"],
    }
    resp = client.post("/v1/cover", json=body)
    assert resp.status_code == 422
    message = resp.get_json()["message"]
    assert "SIGHTLINE_WORK_BUDGET" in message and "the budget is 100 line-wall" in message
    big = create_app({"TESTING": False}).test_client()
    assert big.post("/v1/cover", json=body).status_code == 200


def test_the_budget_counts_every_test_of_a_request():
    """A matrix spends what its traces test: the same count for the same question."""
    scene = load(
        [wall(f"w{k}", 250 + 10 * k, -100, 250 + 10 * k, 60) for k in range(5)],
        [A, T_EAST, tok("B", 0, 300)],
    )
    built = build_scene(scene)
    pairs = [(a, t) for a in scene.tokens for t in scene.tokens if a is not t]
    spent = []
    for _ in range(2):
        budget = WorkBudget(10**9, "x")
        cover_all(rules.get("dnd5e"), built, pairs, Attack(), {}, budget=budget)
        spent.append(budget.used)
    assert spent[0] == spent[1] > 0
    with pytest.raises(OverBudget):
        cover_all(rules.get("dnd5e"), built, pairs, Attack(), {}, budget=WorkBudget(3, "x"))


# --------------------------------------------------------------------------- regions, memory


def test_region_outlines_over_the_scene_limit_are_refused_naming_the_largest():
    client = create_app({"TESTING": False, "MAX_REGION_POINTS": 5000}).test_client()
    resp = client.post("/v1/scenes", json={"scene": fog(2, points=3000)})
    assert resp.status_code == 422
    body = resp.get_json()
    assert "SIGHTLINE_MAX_REGION_POINTS" in body["message"] and "'fog0'" in body["message"]
    assert body["errors"]["json"] == {"scene": {"regions": [body["message"]]}}


def test_detailed_fog_is_answered_or_refused_with_a_422_never_a_500():
    client = create_app({"TESTING": False}).test_client()
    body = {"ruleset": "dnd5e", "scene": fog(2, points=2000), "observer": "A", "targets": ["T"]}
    resp = client.post("/v1/vision", json=body)
    assert resp.status_code in (200, 422), resp.get_json()
    if resp.status_code == 200:
        assert resp.get_json()["results"][0]["line_of_sight"] is False


def test_the_cache_counts_region_outlines_points_and_lights():
    """A region-heavy scene weighs more in the cache than the same scene without."""
    plain = SceneSchema().load({**fog(0), "lights": []})
    heavy = SceneSchema().load(fog(3, points=2000))
    lit = SceneSchema().load(
        {**fog(0), "lights": [{"id": f"l{k}", "x": k, "y": 0, "bright": 10} for k in range(50)]}
    )
    base = approx_bytes(build_scene(plain))
    assert approx_bytes(build_scene(heavy)) > base + 3 * 2000 * 1000
    assert approx_bytes(build_scene(lit)) >= base + 50 * 400


def test_copies_cost_one_wall_in_the_worst_case_body():
    """The bench's ``copies`` body, small: answered, one indexed wall."""
    scene = SceneSchema().load(copies(50))
    built = build_scene(scene)
    assert built.walls.size == 1
    assert len(built.walls.names([0])) == 50


def test_lighting_with_many_lights_is_bounded_by_the_work_budget():
    """Lights x points rays are estimated and counted like any other lines."""
    from bench.worst import lights

    body = {"scene": lights(60), "points": [[2000, 2000]], "tokens": ["t0", "t1"]}
    small = create_app({"TESTING": False, "WORK_BUDGET": 50}).test_client()
    resp = small.post("/v1/lighting", json=body)
    assert resp.status_code == 422 and "SIGHTLINE_WORK_BUDGET" in resp.get_json()["message"]
    big = create_app({"TESTING": False, "WORK_BUDGET": 10**9}).test_client()
    assert big.post("/v1/lighting", json=body).status_code == 200


def test_a_far_light_adds_no_sample_point_to_a_token():
    """Only lights that reach a space add their nearest point to its samples."""
    from service.lighting import token_sample_points

    near = {"id": "near", "x": 150, "y": 50, "bright": 5, "dim": 5}
    far = {"id": "far", "x": 5000, "y": 50, "bright": 5, "dim": 5}
    scene = load([], [tok("T", 0, 0)], lights=[near, far])
    built = build_scene(scene)
    points = token_sample_points(built, scene.token("T"))
    assert len(points) == 9 + 1  # the 3x3 lattice and the near light's nearest point


# --------------------------------------------------------------------------- sampled estimate


def test_sample_rows_spread_over_the_pairs_one_in_a_hundred():
    """``sample_rows``: one pair in ``SAMPLE_SHARE`` (at least ``SAMPLE_MIN``), first to last."""
    from service.engine.budget import SAMPLE_MIN, SAMPLE_SHARE, sample_rows

    assert sample_rows(2 * SAMPLE_MIN - 1) is None  # too few: the steps' own bounds hold
    rows = sample_rows(40_000)
    assert rows is not None and len(rows) == 40_000 // SAMPLE_SHARE
    assert rows[0] == 0 and rows[-1] == 39_999 and np.all(np.diff(rows) > 0)
    small = sample_rows(2 * SAMPLE_MIN)
    assert small is not None and len(small) == SAMPLE_MIN


def test_foresee_refuses_from_the_sample_before_the_rest_of_the_work():
    """docs/decisions.md "Bounded work": a sample that passes its share refuses the request at
    once, having done about 1/100 of the budget's work, and the request's budget is untouched."""
    done = []

    def run(rows, trial):
        for r in rows.tolist():
            done.append(r)
            trial.spend(50)  # 50 units a pair: 10,000 pairs need 500,000
        return 0.0

    budget = WorkBudget(100_000, "ask about fewer pairs")
    with pytest.raises(OverBudget, match="ask about fewer pairs"):
        budget.foresee(10_000, run)
    assert budget.used == 0 and not budget.foreseen
    assert len(done) <= 100_000 // 100 // 50 + 1  # the sample stopped at its share


def test_foresee_affords_the_scaled_count_and_the_lines_estimates_defer_to_it():
    """What fits is afforded as the sample's count and uncounted work scaled to every pair;
    the lines' own estimates (``afford_bounded``) are then not asked again."""

    def run(rows, trial):
        trial.spend(10 * len(rows))
        return 5.0 * len(rows)  # the work the steps do not count (``trace_units``)

    budget = WorkBudget(200_000, "x")
    budget.foresee(10_000, run)
    assert budget.foreseen and budget.used == 0
    with pytest.raises(OverBudget, match=r"it needs about 250,000"):
        WorkBudget(200_000, "x").foresee(10_000, lambda r, t: 25.0 * len(r))
    asked = []
    budget.afford_bounded(10**12, lambda: asked.append(1) or 0.0)
    assert not asked  # deferred: the sample ran the same lines
    few = WorkBudget(100, "x")
    with pytest.raises(OverBudget):  # too few pairs to sample: the upper bound ``own``
        few.foresee(10, run, own=101)


def test_a_matrix_sample_foresees_what_the_matrix_counts_within_two_times(monkeypatch):
    """The cost model against the count (the calibration's ``est/spent`` in a test): a dnd5e
    and a Starfinder cover matrix of 40 tokens on the bench dungeon. The units the sample
    foresees for the counted steps are within 2x of what the whole matrix then counts (the
    planning's CPU time, the one timed term, set to 0 here)."""
    import service.engine.budget as budget_module
    from bench.dungeon import dungeon

    monkeypatch.setattr(budget_module, "cpu_units", lambda seconds: 0.0)
    scene = SceneSchema().load(dungeon(2000, 40, seed=3))
    built = build_scene(scene)
    pairs = [(a, t) for a in scene.tokens for t in scene.tokens if a is not t]
    for ruleset in ("dnd5e", "starfinder"):
        foreseen = []
        budget = WorkBudget(10**12, "x")
        inner = budget.foresee

        def spy(total, run, own=0.0, inner=inner, foreseen=foreseen):
            def counted(rows, trial):
                uncounted = run(rows, trial)
                foreseen.append(trial.used * total / len(rows))
                return uncounted

            inner(total, counted, own)

        budget.foresee = spy  # type: ignore[method-assign]
        cover_all(rules.get(ruleset), built, pairs, Attack(), {}, budget=budget)
        assert len(foreseen) == 1 and budget.used > 0
        assert budget.used / 2 <= foreseen[0] <= 2 * budget.used, (ruleset, foreseen, budget.used)


def test_a_costly_plan_is_refused_from_the_timed_probe(monkeypatch):
    """Planning that no step counts (SF-COV-5's low obstacles) is timed on the sample's first
    pairs (``PLAN_PROBE``, in growing groups) and scaled: past the budget, refused after the
    first group, before the other pairs are planned or any line traced (``measure`` never
    runs)."""
    import service.engine.budget as budget_module
    import service.rules.ask as ask
    from bench.dungeon import dungeon

    scene = SceneSchema().load(dungeon(500, 40, seed=3))
    built = build_scene(scene)
    pairs = [(a, t) for a in scene.tokens for t in scene.tokens if a is not t]
    monkeypatch.setattr(budget_module, "cpu_units", lambda seconds: 10**9)  # a very slow plan
    measured = []
    monkeypatch.setattr(ask, "measure", lambda *a, **k: measured.append(1))
    system = rules.get("starfinder")
    planned = []
    plan = system.cover_plan

    def spy(built, some, *args, **kwargs):
        planned.append(len(some))
        return plan(built, some, *args, **kwargs)

    monkeypatch.setattr(system, "cover_plan", spy)
    budget = WorkBudget(6_000_000, "plan fewer pairs")
    with pytest.raises(OverBudget, match="plan fewer pairs"):
        cover_all(system, built, pairs, Attack(), {}, budget=budget)
    assert not measured and budget.used == 0
    assert planned == [1, budget_module.PLAN_PROBE[0]]  # the first pair, then one group


@pytest.mark.parametrize("each", [0.0, 1e-6, 1e-3])
def test_the_probe_spends_a_pairs_planning_without_the_calls_overhead(monkeypatch, each):
    """``PlanProbe`` fits a pair's planning from its groups' times (the slope against their
    sizes): a call's own overhead is not counted as the pairs' work, and what a pair adds,
    scaled to the sample's pairs and divided by ``PLAN_BATCHING``, is spent once."""
    import service.engine.budget as budget_module

    now = [0.0]
    monkeypatch.setattr(budget_module.time, "thread_time", lambda: now[0])

    def plan(part):
        now[0] += 0.004 + each * len(part)  # 4 ms a call, ``each`` s a pair
        return part.tolist()

    rows = np.arange(0, 39_800, 100)
    trial = WorkBudget(10**12, "x")
    plans = budget_module.PlanProbe(trial).plans(rows, plan)
    assert sum(plans, []) == rows.tolist()  # every row planned once, in order
    assert [len(p) for p in plans[:-1]] == list(budget_module.PLAN_PROBE)
    expected = budget_module.cpu_units(each) * len(rows) / budget_module.PLAN_BATCHING
    assert trial.used == pytest.approx(int(expected), abs=2)
