"""The shape of memlab's import graph: no cycle, no private name used across modules, and
no module importing a higher layer.

The graph is read from the source (``ast``, nothing is imported): every ``import memlab...`` /
``from memlab... import ...`` of a module is an edge, wherever it stands (inside a function or
under ``TYPE_CHECKING`` too: a lazy import still makes the two modules depend on each other).
``from memlab.pkg import sub`` where ``sub`` is a submodule is an edge to ``memlab.pkg.sub``.

A private name (``_x``, not a dunder) stays in its module: another module neither imports it
(``from memlab.b import _x``) nor reaches it as an attribute (``obj._x``, ``mod._x``). With no
types to go by, attributes are matched by name: ``<expr>._x`` in module A is a problem when a
module other than A defines a private member ``_x`` (:func:`private_members`) and ``<expr>``
is not ``self``, ``cls`` or ``super()`` (a class using its own or its bases' members). It is
one even when A defines an ``_x`` of its own (``self.provider._headers()`` inside a class with
its own ``_headers``). Private names of other packages (``sys._getframe``) are not checked.

Layers, lowest first (a module may import its own layer and the ones below):

0. foundation -- ``text`` (tokenizers, JavaScript string semantics), ``frames`` and ``pipeline``
   (the tabular contract and the ``Stage`` base every stage implements), ``kernels`` and
   ``bm25`` (pure ranking math, importing nothing of memlab), ``annotations``, ``progress``,
   ``lazy``, ``safeio``, ``secrets``, ``lines`` (the OpenClaw release lines, as data);
1. ``config``;
2. data -- ``workspace``, ``chunking``, ``sessions``, ``corpus``, ``snippet``, ``results``,
   ``embedding_input``;
3. ``embed``, ``index``;
4. ``stages``;
5. ``openclaw``, ``indexed_search``, ``tiered`` (whole searches);
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
                     "lazy", "safeio", "secrets", "lines"), 0),
    "config": 1,
    **dict.fromkeys(("workspace", "chunking", "sessions", "corpus", "snippet", "results",
                     "embedding_input"), 2),
    **dict.fromkeys(("embed", "index"), 3),
    "stages": 4,
    **dict.fromkeys(("openclaw", "indexed_search", "tiered"), 5),
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
def trees() -> dict[str, ast.Module]:
    return {name: ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for name, path in modules().items()}


@cache
def edges() -> tuple[Edge, ...]:
    known = modules()
    out: list[Edge] = []
    for name, tree in trees().items():
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


def is_private(name: str) -> bool:
    """``_x`` and ``__x`` (name-mangled) are private; ``__x__`` is not.

    >>> [is_private(n) for n in ("_lock", "__secret", "__init__", "lock")]
    [True, True, False, False]
    """
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_members(tree: ast.Module) -> set[str]:
    """The private names a module defines: module-level functions, classes, variables and
    import aliases; the methods and class attributes of its classes (nested ones too); the
    attributes its code assigns on ``self`` or ``cls``. Not the locals of functions.

    >>> sorted(private_members(ast.parse(
    ...     "import os as _os\\n_N = 1\\nclass _C:\\n    _k: int = 0\\n"
    ...     "    def _m(self):\\n        self._x = _y = 1\\n"
    ...     "        def _inner(): pass\\n        other._z = 2\\n")))
    ['_C', '_N', '_k', '_m', '_os', '_x']
    """
    out: set[str] = set()

    def scope(body: list[ast.stmt]) -> None:  # a module's or a class's body
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.add(node.name)
                if isinstance(node, ast.ClassDef):
                    scope(node.body)
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                out.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
            elif isinstance(node, ast.Import | ast.ImportFrom):
                out.update(a.asname or a.name.split(".")[0] for a in node.names)
            else:  # if / try / with / for / while at this level
                for field in ("body", "orelse", "finalbody"):
                    scope(getattr(node, field, None) or [])
                for handler in getattr(node, "handlers", None) or []:
                    scope(handler.body)

    scope(tree.body)
    out.update(node.attr for node in ast.walk(tree)
               if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
               and _is_own(node.value))
    return {name for name in out if is_private(name)}


def _is_own(value: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: the object whose class is being written."""
    return (isinstance(value, ast.Name) and value.id in ("self", "cls")) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
        and value.func.id == "super")


@dataclass(frozen=True)
class PrivateUse:
    """``module`` reaches ``name``, a private member of ``owners``, at ``line`` as ``code``."""

    module: str
    line: int
    code: str
    name: str
    owners: tuple[str, ...]

    def __str__(self) -> str:
        return (f"{modules()[self.module].relative_to(PACKAGE.parent)}:{self.line}: "
                f"{self.code} uses private {self.name} of {', '.join(self.owners)}")


#: ``(module, private name)`` uses tolerated for now, each with the reason; an entry no longer
#: needed fails :func:`test_no_private_member_used_across_modules` so that it is deleted.
ALLOWED_PRIVATE_USES: dict[tuple[str, str], str] = {}


def private_uses() -> list[PrivateUse]:
    """Every ``<expr>._x`` where ``_x`` is a private member of another module of memlab."""
    members = {name: private_members(tree) for name, tree in trees().items()}
    owners: dict[str, set[str]] = {}
    for module, names in members.items():
        for name in names:
            owners.setdefault(name, set()).add(module)
    found = []
    for module, tree in trees().items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and is_private(node.attr)) or _is_own(
                    node.value):
                continue
            others = owners.get(node.attr, set()) - {module}
            if others:
                found.append(PrivateUse(module, node.lineno, ast.unparse(node), node.attr,
                                        tuple(sorted(others))))
    return sorted(found, key=lambda u: (u.module, u.line, u.code))


def private_problems() -> Iterator[str]:
    for e in edges():
        private = [n for n in e.names if is_private(n)]
        if private:
            yield f"{where(e)}: imports private {', '.join(private)} from {e.imported}"
    uses = private_uses()
    for use in uses:
        if (use.module, use.name) not in ALLOWED_PRIVATE_USES:
            yield str(use)
    used = {(u.module, u.name) for u in uses}
    for module, name in sorted(set(ALLOWED_PRIVATE_USES) - used):
        yield (f"ALLOWED_PRIVATE_USES[({module!r}, {name!r})] is no longer needed: "
               "delete the entry")


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


def test_no_private_member_used_across_modules() -> None:
    """No ``from memlab.b import _x`` and no ``obj._x`` reaching another module's ``_x``."""
    problems = list(private_problems())
    assert not problems, "\n".join(problems)


def test_own_and_dunder_members_are_not_private_uses(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``self._x``, ``cls._x``, ``super()._x``, dunders and names no other module defines
    are fine; another object's ``_x`` is not, even when the module has an ``_x`` too."""
    pkg = tmp_path / "memlab"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "b.py").write_text("class B:\n    def __init__(self):\n        self._state = 1\n")
    (pkg / "a.py").write_text(
        "import sys\n\nclass A(B):\n    def __init__(self, other):\n"
        "        self._state = other._state\n        super()._state\n        cls._state\n"
        "        self.__class__, sys._getframe, other._mine\n"
        "    def _mine(self):\n        return self\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    for cached in (modules, trees):
        cached.cache_clear()
    try:
        found = [str(u) for u in private_uses()]
    finally:
        for cached in (modules, trees):
            cached.cache_clear()
    assert found == ["memlab/a.py:5: other._state uses private _state of memlab.b"]


def test_no_module_imports_a_higher_layer() -> None:
    problems = list(layer_problems())
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source, problem", [
    ("from memlab.b import _helper\n", "imports private _helper from memlab.b"),
    ("import memlab.b\n\nmemlab.b._helper\n", "memlab.b._helper uses private _helper of "
                                                "memlab.b"),
    ("def f(b):\n    return b.box._state\n", "b.box._state uses private _state of memlab.b"),
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
    (pkg / "b.py").write_text("import memlab.a\n\nx = 1\n_helper = 2\n\n\nclass B:\n"
                              "    def __init__(self):\n        self._state = 0\n")
    monkeypatch.setitem(LAYERS, "a", 0)
    monkeypatch.setitem(LAYERS, "b", 0)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    monkeypatch.setattr(sys.modules[__name__], "ALLOWED_PRIVATE_USES", {})
    for cached in (modules, edges, trees):
        cached.cache_clear()
    try:
        found = [*cycle_problems(), *private_problems(), *layer_problems()]
    finally:
        for cached in (modules, edges, trees):
            cached.cache_clear()
    assert any(problem in p for p in found), found


if __name__ == "__main__":
    report = [*cycle_problems(), *private_problems(), *layer_problems(), *doc_problems()]
    print("\n".join(report) if report else "import graph: no cycle, no private use across "
          "modules, no upward import")
    sys.exit(1 if report else 0)
