"""docs/api.md is the contract as /openapi.json says it; README and docs/ links resolve here.

A clone without ``../shared`` beside it is complete: every Markdown link of ``README.md`` and
``docs/*.md`` names a file of the repository (and a heading of it, for ``#anchors``), and no
page sends the reader to the shared specification's pages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.project import api_doc

ROOT = api_doc.ROOT
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def spec():
    return api_doc.openapi()


def test_the_reference_is_the_openapi_document(spec):
    page = api_doc.PAGE.read_text("utf-8")
    assert page == api_doc.page_with(api_doc.reference(spec), page), (
        "docs/api.md differs from /openapi.json: run `python -m tests.project.api_doc`"
    )


def test_every_operation_is_listed(spec):
    page = api_doc.PAGE.read_text("utf-8")
    for method, path, op in api_doc.operations(spec):
        assert f"\n### {method} {path}\n" in page, (method, path)
        assert f"`{op['operationId']}`" in page, op["operationId"]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text("utf-8"), flags=re.S)
    return {slug(m) for m in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text("utf-8"), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
    return [a or b for a, b in LINK.findall(text)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves_inside_the_repository(page: Path):
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # http(s), mailto: not ours to check
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (page.parent / file_part).resolve() if file_part else page
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(target)
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(target)
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_sends_the_reader_to_the_shared_specification(page: Path):
    text = page.read_text("utf-8")
    assert re.findall(r"\.\./shared/(?:API|RULES|DESIGN)\.md", text) == []
