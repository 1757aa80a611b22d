"""Lines of tables vs lines of code in each ruleset (issue 13), from the source's AST.

``python -m bench.tables [REV]``: counts the rulesets of the working tree, or of git revision
``REV`` (the layout before issue 13 had one module per ruleset plus ``environment.py``).

- tables: module-level assignments of data (literals and calls building records);
- types: classes without methods (result and record types);
- code: lines of functions and methods, docstrings, comments and blank lines left out.
"""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ("dnd5e", "starfinder", "pf2e_variant", "dnd2024", "pf2e")


def _code_lines(source: str, node: ast.AST) -> int:
    """Lines of ``node`` that hold code (no docstring, comment or blank line)."""
    lines = set(range(node.lineno, node.end_lineno + 1))  # type: ignore[attr-defined]
    for sub in ast.walk(node):
        body = getattr(sub, "body", None)
        if (
            isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            lines -= set(range(body[0].lineno, body[0].end_lineno + 1))  # type: ignore[operator]
    text = source.splitlines()
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    comment_only = {t.start[0] for t in tokens if t.type == tokenize.COMMENT}
    return sum(
        1
        for n in lines
        if text[n - 1].strip() and not (n in comment_only and text[n - 1].strip().startswith("#"))
    )


def count(source: str) -> dict[str, int]:
    """``{"tables", "types", "code"}`` line counts of one module's source."""
    tree = ast.parse(source)
    out = {"tables": 0, "types": 0, "code": 0}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            out["tables"] += node.end_lineno - node.lineno + 1  # type: ignore[operator]
        elif isinstance(node, ast.ClassDef):
            methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
            key = "code" if methods else "types"
            out[key] += _code_lines(source, node)
        elif isinstance(node, ast.FunctionDef):
            out["code"] += _code_lines(source, node)
    return out


def _files(rev: str | None) -> dict[str, list[tuple[str, str]]]:
    """Per ruleset, ``(path, source)`` of its modules at ``rev`` (None: working tree)."""
    if rev is None:
        paths = [str(p.relative_to(ROOT)) for p in (ROOT / "service").rglob("*.py")]
    else:
        listing = subprocess.run(
            ["git", "ls-tree", "-r", "--name-only", rev, "service"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        paths = listing.split()

    def read(path: str) -> str:
        if rev is None:
            return (ROOT / path).read_text(encoding="utf-8")
        return subprocess.run(
            ["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout

    out: dict[str, list[tuple[str, str]]] = {r: [] for r in RULESETS}
    for path in sorted(paths):
        for r in RULESETS:
            if path in (f"service/rules/{r}.py",) or path.startswith(f"service/rules/{r}/"):
                out[r].append((path, read(path)))
        if path == "service/environment.py":  # held dnd5e's and pf2e-variant's modifiers
            out["dnd5e"].append((path + " (dnd5e part)", read(path)))
    return out


def share(counts: dict[str, int]) -> float:
    """Tables' share of tables and code: ``tables / (tables + code)``."""
    return counts["tables"] / max(1, counts["tables"] + counts["code"])


def cover_modules(rev: str | None = None) -> dict[str, dict[str, int]]:
    """Each ruleset's ``cover.py`` counted (``count``), by ruleset."""
    return {
        r: count(source)
        for r, files in _files(rev).items()
        for path, source in files
        if path == f"service/rules/{r}/cover.py"
    }


def main(argv: list[str]) -> int:
    rev = argv[1] if len(argv) > 1 else None
    print(f"{'ruleset':<14}{'tables':>8}{'types':>8}{'code':>8}  tables/(tables+code)")
    for ruleset, files in _files(rev).items():
        total = {"tables": 0, "types": 0, "code": 0}
        for _, source in files:
            for k, v in count(source).items():
                total[k] += v
        print(
            f"{ruleset:<14}{total['tables']:>8}{total['types']:>8}{total['code']:>8}"
            f"  {share(total):.1%}"
        )
    print("\ncover.py alone")
    for ruleset, counts in cover_modules(rev).items():
        print(
            f"{ruleset:<14}{counts['tables']:>8}{counts['types']:>8}{counts['code']:>8}"
            f"  {share(counts):.1%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
