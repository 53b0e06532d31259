"""Versions live in ``memlab/lines/`` only: code elsewhere asks the line (issue 33).

Outside ``memlab/lines/`` no string constant of the code is exactly an OpenClaw version
(``"2026.9"``, ``"2026.7.35"``): a comparison, default, dict key or choice list names the line's
layout, engine, release or schemas instead. Docstrings are documentation and may name versions;
so may messages, whose constants are never exactly a version. No module file outside
``memlab/lines/`` carries a version in its name.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import memlab

ROOT = Path(memlab.__file__).resolve().parent
VERSION = re.compile(r"^\d{4}\.\d{1,2}(\.\d+)?$")
VERSIONED_NAME = re.compile(r"20\d\d_\d")
#: Accepted version literals outside ``memlab/lines/`` as ``(path relative to memlab/,
#: literal)``: none, the user-facing values (``memlab.profile``, ``--schema``,
#: ``memlab.decayRule``) come from the lines.
ALLOWED: frozenset[tuple[str, str]] = frozenset()


def _modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if p.relative_to(ROOT).parts[0] != "lines")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of ``tree`` (module, classes, functions)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.add(id(body[0].value))
    return out


def version_literals(path: Path) -> list[tuple[int, str]]:
    """``(line, literal)`` of every string constant of ``path`` that is exactly a version,
    docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docs = _docstrings(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs and VERSION.match(node.value)]


def test_the_scan_sees_a_literal_and_skips_docstrings(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('"""Module of 2026.9."""\n\ndef f(x):\n    """2026.7"""\n'
                      '    return x == "2026.9" or x in {"2026.7.35": 1} or "OpenClaw 2026.9"\n')
    assert version_literals(sample) == [(5, "2026.9"), (5, "2026.7.35")]


def test_no_version_literal_outside_lines():
    found = [f"memlab/{path.relative_to(ROOT).as_posix()}:{line}: {value!r}"
             for path in _modules() for line, value in version_literals(path)
             if (path.relative_to(ROOT).as_posix(), value) not in ALLOWED]
    assert not found, ("version literals outside memlab/lines/ (ask the line: layout, engine, "
                       "release, schemas, date_rule...):\n" + "\n".join(found))


def test_no_module_name_carries_a_version_outside_lines():
    named = [path.relative_to(ROOT).as_posix() for path in _modules()
             if VERSIONED_NAME.search(path.relative_to(ROOT).as_posix())]
    assert not named
    assert any(VERSIONED_NAME.search(p.name) for p in (ROOT / "lines").glob("*.py"))
