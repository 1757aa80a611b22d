"""The house's room sizes (docs/architecture.md, "Room sizes"): no product module over 700
lines, at most ten functions over 80, and one compiled path (no ``SIGHTLINE_KERNEL``).

Complexity (at most 20 per function) is ruff's C901 in ``make lint``.
"""

from __future__ import annotations

import re

from bench import tables
from bench.house import (
    LONG_FUNCTION_LINES,
    MAX_LONG_FUNCTIONS,
    MAX_MODULE_LINES,
    long_functions,
    module_lines,
    naming,
    product_files,
)


def test_no_product_module_is_over_the_limit():
    big = {path: n for path, n in module_lines().items() if n > MAX_MODULE_LINES}
    assert big == {}


def test_few_long_functions():
    rows = long_functions()
    assert len(rows) <= MAX_LONG_FUNCTIONS, rows


def test_long_means_over_80_lines_docstring_included():
    assert LONG_FUNCTION_LINES == 80
    assert all(n > LONG_FUNCTION_LINES for n, _ in long_functions())


def test_product_comments_cite_the_docs_not_issue_numbers():
    """Comments and docstrings say what they mean, or cite docs/ or a rule id."""
    pattern = re.compile(r"[Ii]ssues? [0-9]+")
    cited = [p for p in product_files() if pattern.search(p.read_text())]
    assert cited == []


def test_one_compiled_path():
    assert naming("SIGHTLINE_KERNEL") == []
    assert naming("kernel_enabled") == []


def test_cover_modules_are_mostly_tables():
    """A ruleset's cover module is its tables plus a few hooks (docs/architecture.md "Room
    sizes"): at least 40 % of its lines of tables and code are tables (``bench.tables``)."""
    found = tables.cover_modules()
    assert set(found) == set(tables.RULESETS)
    for ruleset, counts in found.items():
        assert tables.share(counts) >= 0.40, (ruleset, counts)
