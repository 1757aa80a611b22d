"""API fuzzing (issues 8 and 16): schemathesis drives every endpoint of our own /openapi.json.

Every response must be a 2xx that matches the documented schema, or a JSON error in the
shape of shared/DESIGN.md "Errors" — never a 500. A request valid per the document gets no
4xx (ST202, issue 32) but a 422 for a rule OpenAPI 3.0 cannot say (``UNSAYABLE``). The fast
suite runs 25 examples per operation; ``test_api_deep`` (marked slow, issue 16) runs at
least 200 per operation: ``pytest -m slow tests/fuzz``.
"""

from __future__ import annotations

import collections
import re

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks

from service.app import create_app

# /v1/import/* also takes a Foundry NeDB file as application/x-ndjson (issue 17): its
# documented body is a string, sent as text.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")

app = create_app({"TESTING": False})
schema = schemathesis.openapi.from_wsgi("/openapi.json", app)

#: Examples run per operation by ``test_api_deep`` (read by its last check).
DEEP_EXAMPLES = 200
_calls: collections.Counter[str] = collections.Counter()


#: The rules a request valid per the OpenAPI document may still break (a 422), because
#: OpenAPI 3.0 cannot say them: each ties a field to another field, to another item of the
#: scene, to the ruleset or the grid, or to what an export file holds. Each is (error path,
#: message), both regular expressions matched in full, and why the document cannot say it.
#: Every other 422 of a schema-valid request fails ST202 (``positive_data_acceptance``): a
#: bound the document can say is said there (``schemas/``, ``service.http_errors``).
UNSAYABLE: tuple[tuple[str, str, str], ...] = (
    # The scene: rules across its items or fields.
    (r"json\.scene\.\w+\.\d+\.id", r"Duplicate id .*\.", "ids unique in a list of objects"),
    (
        r"json\.scene\.\w+\.\d+\.level",
        r"No level with id .* in the scene's levels\.",
        "a level id names an item of another list",
    ),
    (r"json\.scene\..*\.bottom", r"Must not be above top\.", "a bound set by another field"),
    # Limits on the work a request costs, set by the whole scene and request.
    (
        r"json\.scene\.tokens",
        r"Token .* covers about .* hexes on this hex grid; .*"
        r"|Flanking tries a line from every square or hex of .*",
        "by the grid's type and the tokens' sizes",
    ),
    (
        r"json\.scene\.regions",
        r"The regions' outlines may hold at most .* points in all .*",
        "a bound on all regions together",
    ),
    (
        r"json(\.scene)?\.(regions|surfaces)(\.[\w-]+)+",
        r"(After this change: )?The outlines of a scene's regions and floors may cross "
        r"themselves at most .*",
        "the self-crossings of all outlines together (each ring's points in their order)",
    ),
    (r"json(\.\w+)*", r".*; the budget is [\d,]+ line-wall tests.*", "the work of the request"),
    # The attack of /v1/cover and /v1/render's query: its kind decides what it needs.
    (r"json\.(query\.)?attacker", r"Required unless attack\.kind is 'area'\.", "by attack.kind"),
    (
        r"json\.(query\.)?attack\.origin",
        r"(Only for kind 'area'|Required for an area attack)\.",
        "by attack.kind",
    ),
    (
        r"json\.(query\.)?attack\.(spread|radius)",
        r"A spread (is an area with an origin|needs a radius above 0 \(grid units\))\.",
        "by attack.kind, origin and radius",
    ),
    # Options: which apply is set by the ruleset, corner_inset's bound by the grid.
    (
        r"json\.(query\.)?options\.\w+",
        r"Option '\w+' does not apply to ruleset '[\w-]+'; its options here: .*",
        "by ruleset",
    ),
    (
        r"json\.(query\.)?options\.\w+",
        r"Unknown field with kind '[\w-]+': kind '[\w-]+' only\.",
        "by kind (the document: one of the kinds' options)",
    ),
    (
        r"json\.(query\.)?options\.corner_inset",
        r"corner_inset .* px is not below a quarter of a square .*",
        "by the scene's grid size",
    ),
    # Imports: the query's options are set by the format; an export's content is its own.
    (
        r"query\.(scene|page|grid_distance)",
        r"Only with `format` \+ `export`\.|Disagrees with the other scene/page choice\.",
        "by the body",
    ),
    (r"query\.(scene|page|grid_distance)", r"Not used by format '\w+'\.", "by the path's format"),
    (r"json\._?export", r".*", "an export is any JSON (its format's own document)"),
    # One-endpoint rules.
    (r"json\.targets\.\d+", r"A token cannot be its own target\.", "set by attacker/observer"),
    (r"json\.level", r"Unknown level .*: the scene's levels are .*", "a level of the scene"),
    (r"json\.creature", r"Missing data for required field \(ruleset dnd5e\)\.", "by ruleset"),
    (r"json\.(creature|weapon|options)", r"Only with ruleset dnd5e .*", "by ruleset"),
    (r"json\.weapon\.normal_range", r"Must not be above long_range\.", "set by long_range"),
    (
        r"json\.attack\.distance",
        r"A ranged attack underwater needs attack\.distance .*",
        "by attack.kind",
    ),
    (
        r"json\.attack\.(weapon|normal_range)",
        r"Unknown weapon .*: not in the 5e weapon list\. Give attack\.thrown .*"
        r"|No normal range known for .*: give attack\.normal_range \(ft\)\."
        r"|attack\.normal_range \(.* ft\) is above attack\.long_range \(.* ft\)\.",
        "by the weapon table, and ordered",
    ),
)
#: The same for a 400: the lines of a Foundry NeDB file are JSON (a string in the document).
UNSAYABLE_400 = (
    (
        r"json",
        r"Invalid body: a Foundry NeDB file \(application/x-ndjson\) holds one JSON document "
        r"a line: .*",
        "JSON in a string",
    ),
)


#: Rules of one operation: (method and path, rules as in ``UNSAYABLE``).
UNSAYABLE_IN = {
    # The body is the export file (any JSON in the document), read by its format's adapter:
    # "Export not understood", at the path in the export.
    "POST /v1/import/{fmt}": ((r"json(\..*)?", r".*", "the export file's own format"),),
}


def _leaves(node, path=()):
    """Each (dotted error path, message) of a 422's ``errors`` tree."""
    if isinstance(node, dict):
        return [leaf for k, v in node.items() for leaf in _leaves(v, (*path, str(k)))]
    if isinstance(node, list) and all(isinstance(v, str) for v in node):
        return [(".".join(path), message) for message in node]
    if isinstance(node, list):
        return [leaf for i, v in enumerate(node) for leaf in _leaves(v, (*path, str(i)))]
    return [(".".join(path), str(node))]


def unsayable(response, operation: str = "") -> bool:
    """Whether every error of a 422 (400) ``response`` breaks an ``UNSAYABLE`` (``_400``) rule.

    ``operation`` ("POST /v1/import/{fmt}") adds its ``UNSAYABLE_IN`` rules to a 422's.
    """
    rules = {422: UNSAYABLE + UNSAYABLE_IN.get(operation, ()), 400: UNSAYABLE_400}.get(
        response.status_code
    )
    if rules is None:
        return False
    leaves = _leaves(response.json().get("errors"))
    return bool(leaves) and all(
        any(re.fullmatch(p, path) and re.fullmatch(m, message) for p, m, _ in rules)
        for path, message in leaves
    )


def _check(case) -> None:
    response = case.call()
    # ST202 (a request valid per the document must not get a 4xx) for every answer but a
    # 422 for a rule the document cannot say.
    operation = f"{case.operation.method.upper()} {case.operation.path}"
    excluded = [checks.positive_data_acceptance] if unsayable(response, operation) else []
    case.validate_response(response, excluded_checks=excluded)
    assert response.status_code < 500, response.text[:500]
    if response.status_code >= 400:
        body = response.json()
        assert set(body) >= {"code", "status", "message", "errors"}
        assert body["code"] == response.status_code


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_api(case):
    _check(case)


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=DEEP_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_deep(case):
    _calls[f"{case.operation.method.upper()} {case.operation.path}"] += 1
    _check(case)


@pytest.mark.slow
def test_api_deep_ran_its_examples():
    """After ``test_api_deep``: each operation with inputs ran at least ``DEEP_EXAMPLES``.

    Counts include schemathesis' coverage phase and its calls with undocumented methods;
    printed with ``-s``.
    """
    if not _calls:
        pytest.skip("test_api_deep did not run in this session")
    for operation, count in sorted(_calls.items()):
        print(f"{operation}: {count} examples")
    print(f"{len(_calls)} operations, {sum(_calls.values())} examples")
    operations = [op.ok() for op in schema.get_all_operations()]
    assert len(_calls) == len(operations)
    for op in operations:  # an operation without inputs has fewer distinct examples
        if op.body or op.query:
            assert _calls[f"{op.method.upper()} {op.path}"] >= DEEP_EXAMPLES, op.path


class _Answer:
    """A response's status and JSON, as ``unsayable`` reads them."""

    def __init__(self, status_code: int, errors: dict) -> None:
        self.status_code, self._errors = status_code, errors

    def json(self) -> dict:
        return {"errors": self._errors}


INSET = "corner_inset 9999 px is not below a quarter of a square (25 px on this grid, GEO-6)."


@pytest.mark.parametrize(
    ("status", "errors", "expected"),
    [
        (422, {"json": {"options": {"corner_inset": [INSET]}}}, True),
        (404, {"json": {"options": {"corner_inset": [INSET]}}}, False),
        # a bound the document says: ST202 holds it to the document
        (
            422,
            {"json": {"options": {"corner_inset": ["Must be greater than or equal to 0."]}}},
            False,
        ),
        (422, {"json": {"options": {"x": ["Unknown field."]}}}, False),
        # every error must be unsayable, not one of them
        (422, {"json": {"options": {"corner_inset": [INSET], "x": ["Unknown field."]}}}, False),
        (422, {}, False),
    ],
)
def test_only_the_unsayable_rules_are_let_through(status, errors, expected):
    assert unsayable(_Answer(status, errors)) is expected


def test_an_operations_own_rules_are_its_own():
    """An import's body is an export file: its adapter's 422 is unsayable there only."""
    answer = _Answer(422, {"json": {"2": ["not a Foundry scene: neither 'walls' nor grid"]}})
    assert unsayable(answer, "POST /v1/import/{fmt}")
    assert not unsayable(answer, "POST /v1/cover")


def test_the_request_bodies_compile_as_json_schema():
    """schemathesis checks an example body against its schema, once it compiles.

    A body whose schema does not compile has its composed examples sent unchecked, as valid
    ones (``{"scene": null, "scene_id": null}``, then an ST202). ``exclusiveMinimum: true``
    (OpenAPI 3.0) does not compile: only range_increment of /v1/modifiers/range has it.
    """
    from schemathesis.core.jsonschema import make_validator_for

    failing = []
    for result in schema.get_all_operations():
        op = result.ok()
        for alternative in op.body:
            if isinstance(alternative.validation_schema, dict):
                try:
                    make_validator_for(alternative.validation_schema)
                except ValueError:
                    failing.append(op.path)
    assert failing == ["/v1/modifiers/range"]
