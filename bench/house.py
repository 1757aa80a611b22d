"""The house's room sizes: product modules, long functions, complexity (docs/architecture.md).

``python -m bench.house`` prints the product modules (``service``, ``adapters``, ``schemas``)
over ``MAX_MODULE_LINES``, the functions over ``LONG_FUNCTION_LINES`` (from ``def`` to the last
line, docstring included) and the files that name ``SIGHTLINE_KERNEL``;
``tests/project/test_house.py`` holds the same limits. Complexity is ruff's C901 (``make
lint``, bound 20).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("service", "adapters", "schemas")

#: Most lines of one product module.
MAX_MODULE_LINES = 700
#: A function longer than this (lines, docstring included) is long.
LONG_FUNCTION_LINES = 80
#: Most long functions in the product code.
MAX_LONG_FUNCTIONS = 10


def product_files() -> list[Path]:
    """Every product module, sorted by path."""
    return sorted(p for root in PRODUCT for p in (ROOT / root).rglob("*.py"))


def module_lines() -> dict[str, int]:
    """``{path: lines}`` of every product module, paths relative to the checkout."""
    return {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in product_files()}


def long_functions(limit: int = LONG_FUNCTION_LINES) -> list[tuple[int, str]]:
    """``(lines, "path:line:name")`` of the product functions over ``limit`` lines."""
    rows = []
    for path in product_files():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > limit:
                    rows.append((size, f"{path.relative_to(ROOT)}:{node.lineno}:{node.name}"))
    return sorted(rows, reverse=True)


def naming(word: str) -> list[str]:
    """Product modules whose text holds ``word``."""
    return [str(p.relative_to(ROOT)) for p in product_files() if word in p.read_text()]


def main() -> None:
    """Print the report."""
    big = {k: v for k, v in module_lines().items() if v > MAX_MODULE_LINES}
    print(f"modules over {MAX_MODULE_LINES} lines: {len(big)}")
    for path, n in sorted(big.items(), key=lambda kv: -kv[1]):
        print(f"  {n:5d} {path}")
    rows = long_functions()
    print(f"functions over {LONG_FUNCTION_LINES} lines: {len(rows)} (at most {MAX_LONG_FUNCTIONS})")
    for n, where in rows:
        print(f"  {n:5d} {where}")
    print(f"modules naming SIGHTLINE_KERNEL: {naming('SIGHTLINE_KERNEL')}")


if __name__ == "__main__":
    main()
