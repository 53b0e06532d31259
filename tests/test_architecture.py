"""The shape of memlab's import graph: no cycle, no private name imported across modules, and
no module importing a higher layer.

The graph is read from the source (``ast``, nothing is imported): every ``import memlab...`` /
``from memlab... import ...`` of a module is an edge, wherever it stands (inside a function or
under ``TYPE_CHECKING`` too: a lazy import still makes the two modules depend on each other).
``from memlab.pkg import sub`` where ``sub`` is a submodule is an edge to ``memlab.pkg.sub``.

Layers, lowest first (a module may import its own layer and the ones below):

0. foundation -- ``text`` (tokenizers, JavaScript string semantics), ``frames`` and ``pipeline``
   (the tabular contract and the ``Stage`` base every stage implements), ``kernels`` and
   ``bm25`` (pure ranking math, importing nothing of memlab), ``annotations``, ``progress``,
   ``lazy``, ``safeio``, ``secrets``;
1. ``config``;
2. data -- ``workspace``, ``chunking``, ``sessions``, ``corpus``, ``snippet``, ``results``,
   ``embedding_input``;
3. ``embed``, ``index``;
4. ``stages``;
5. ``openclaw``, ``indexed_search``, ``profiles`` (whole pipelines);
6. ``eval`` (metrics, datasets, experiments, stats), ``convert``, ``mine``;
7. ``tune`` (sweeps, tuning, the quality gate; above the evaluation it runs);
8. ``plots``, ``widgets``;
9. ``cli``.

``docs/architecture.md`` shows the same table; :func:`doc_problems` checks that it does.

Run it as a script to print the graph's problems without pytest::

    python tests/test_architecture.py
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memlab"
DOC = PACKAGE.parent / "docs" / "architecture.md"

#: Layer of each top-level part of memlab (``memlab.<part>``).
LAYERS: dict[str, int] = {
    **dict.fromkeys(("text", "frames", "pipeline", "kernels", "bm25", "annotations", "progress",
                     "lazy", "safeio", "secrets"), 0),
    "config": 1,
    **dict.fromkeys(("workspace", "chunking", "sessions", "corpus", "snippet", "results",
                     "embedding_input"), 2),
    **dict.fromkeys(("embed", "index"), 3),
    "stages": 4,
    **dict.fromkeys(("openclaw", "indexed_search", "profiles"), 5),
    **dict.fromkeys(("eval", "convert", "mine"), 6),
    "tune": 7,
    **dict.fromkeys(("plots", "widgets"), 8),
    "cli": 9,
}


@dataclass(frozen=True)
class Edge:
    """``importer`` imports ``names`` from ``imported`` at ``line``."""

    importer: str
    imported: str
    line: int
    names: tuple[str, ...]


def module_name(path: Path) -> str:
    """``memlab/a/b.py`` -> ``memlab.a.b``; a package's ``__init__.py`` is the package.

    >>> module_name(PACKAGE / "config" / "__init__.py"), module_name(PACKAGE / "cli" / "main.py")
    ('memlab.config', 'memlab.cli.main')
    """
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@cache
def edges() -> tuple[Edge, ...]:
    known = modules()
    out: list[Edge] = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                    node.module == "memlab" or node.module.startswith("memlab.")):
                by_target: dict[str, list[str]] = {}
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    target = sub if sub in known else node.module
                    by_target.setdefault(target, []).append(alias.name)
                out.extend(Edge(name, target, node.lineno, tuple(names))
                           for target, names in by_target.items())
            elif isinstance(node, ast.Import):
                out.extend(Edge(name, alias.name, node.lineno, ()) for alias in node.names
                           if alias.name == "memlab" or alias.name.startswith("memlab."))
    return tuple(e for e in out if e.imported != e.importer)


def where(edge: Edge) -> str:
    return f"{modules()[edge.importer].relative_to(PACKAGE.parent)}:{edge.line}"


def layer(module: str) -> int | None:
    """The layer of ``memlab.<part>...`` (``None`` for the ``memlab`` facade itself)."""
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {m: set() for m in modules()}
    for e in edges():
        if e.imported in graph:
            graph[e.importer].add(e.imported)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # recursion depth is bounded by the module count (~200)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def cycle_problems() -> Iterator[str]:
    for component in cycles():
        members = set(component)
        inside = [e for e in edges() if e.importer in members and e.imported in members]
        yield (f"import cycle {' <-> '.join(component)}: "
               + "; ".join(f"{where(e)} imports {e.imported}" for e in inside))


def private_problems() -> Iterator[str]:
    for e in edges():
        private = [n for n in e.names if n.startswith("_") and not n.startswith("__")]
        if private:
            yield f"{where(e)}: imports private {', '.join(private)} from {e.imported}"


def layer_problems() -> Iterator[str]:
    for name in modules():
        if name != "memlab" and layer(name) is None:
            yield f"{name} has no layer: add memlab.{name.split('.')[1]} to LAYERS"
    for e in edges():
        low, high = layer(e.importer), layer(e.imported)
        if low is not None and high is not None and high > low:
            yield (f"{where(e)}: {e.importer} (layer {low}) imports {e.imported} "
                   f"(layer {high})")


def doc_layers(text: str) -> dict[str, int]:
    """The layer of each part in the layer table of ``docs/architecture.md`` (rows
    ``| N | `part/`, `module` (notes) | ... |``; backticked names inside parentheses are notes).

    >>> doc_layers("| 0 | `kernels/`, `frames` (`frames.py`) | math |\\n| 1 | `config/` | x |")
    {'kernels': 0, 'frames': 0, 'config': 1}
    """
    out: dict[str, int] = {}
    for number, modules_cell in re.findall(r"^\|\s*(\d+)\s*\|([^|]*)\|", text, re.M):
        for name in re.findall(r"`([^`]+)`", re.sub(r"\([^)]*\)", "", modules_cell)):
            out[name.strip().rstrip("/").removesuffix(".py")] = int(number)
    return out


def doc_problems(text: str | None = None) -> Iterator[str]:
    """Where the layer table of ``docs/architecture.md`` differs from :data:`LAYERS`."""
    documented = doc_layers(DOC.read_text(encoding="utf-8") if text is None else text)
    for part in sorted(set(LAYERS) | set(documented)):
        have, want = documented.get(part), LAYERS.get(part)
        if have != want:
            yield (f"{DOC.relative_to(PACKAGE.parent)}: {part} is in layer "
                   f"{'(missing)' if have is None else have} there, {want} in LAYERS")


def test_the_architecture_doc_shows_these_layers() -> None:
    problems = list(doc_problems())
    assert not problems, "\n".join(problems)
    off_by_one = DOC.read_text(encoding="utf-8").replace("| 1 | `config/`", "| 2 | `config/`")
    assert any("config is in layer 2" in p for p in doc_problems(off_by_one))


def test_no_import_cycle() -> None:
    problems = list(cycle_problems())
    assert not problems, "\n".join(problems)


def test_no_private_name_imported_across_modules() -> None:
    problems = list(private_problems())
    assert not problems, "\n".join(problems)


def test_no_module_imports_a_higher_layer() -> None:
    problems = list(layer_problems())
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source, problem", [
    ("from memlab.b import _helper\n", "imports private _helper from memlab.b"),
    ("def f():\n    from memlab.b import x\n", "import cycle memlab.a <-> memlab.b"),
    ("from memlab.cli.main import main\n", "(layer 0) imports memlab.cli.main (layer 9)"),
])
def test_checks_catch_their_violation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      source: str, problem: str) -> None:
    """Each check finds the violation it is for in a throwaway package."""
    pkg = tmp_path / "memlab"
    (pkg / "cli").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "cli" / "__init__.py").write_text("")
    (pkg / "cli" / "main.py").write_text("def main():\n    return 0\n")
    (pkg / "a.py").write_text(source)
    (pkg / "b.py").write_text("import memlab.a\n\nx = 1\n_helper = 2\n")
    monkeypatch.setitem(LAYERS, "a", 0)
    monkeypatch.setitem(LAYERS, "b", 0)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    for cached in (modules, edges):
        cached.cache_clear()
    try:
        found = [*cycle_problems(), *private_problems(), *layer_problems()]
    finally:
        for cached in (modules, edges):
            cached.cache_clear()
    assert any(problem in p for p in found), found


if __name__ == "__main__":
    report = [*cycle_problems(), *private_problems(), *layer_problems(), *doc_problems()]
    print("\n".join(report) if report else "import graph: no cycle, no private import, "
          "no upward import")
    sys.exit(1 if report else 0)
