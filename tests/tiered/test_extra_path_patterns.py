"""2026.9 ``extraPaths`` in the ``{path, pattern}`` form: the glob matcher
(:mod:`memlab.text.node_glob`, Node's ``path.posix.matchesGlob``), the entry normalisation and
the file selection of :func:`memlab.workspace.list_memory_files` and
:func:`memlab.tiered.index.collect_files`.

The expected answers in :data:`NODE_CASES` were printed by Node 24.22.3's
``path.posix.matchesGlob`` (what openclaw@2026.9.6's ``matchesExtraMemoryPathEntry`` calls);
:func:`test_against_node` re-asks a Node >= 22 when one is installed (the parity cache's, or
``node`` on the PATH)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memlab.config.memory_layout import read_config
from memlab.text.node_glob import compile_glob, expand_braces, matches_glob
from memlab.tiered.index import collect_files
from memlab.workspace import ExtraPath, list_memory_files, normalize_extra_path_entries

#: (pattern, path, Node's answer).
NODE_CASES = [
    ("*.md", "a.md", True), ("*.md", "x/a.md", False), ("*.md", ".h.md", False),
    ("*.MD", "a.md", False), ("**/*.md", "a.md", True), ("**/*.md", "x/z/y.md", True),
    ("**/*.md", "x/.h/y.md", False), ("**/*.md", "x/.h.md", False),
    ("**/.*.md", "x/.h.md", True), (".*.md", ".h.md", True), ("**", "x", True),
    ("**", "a/c/d/b.md", True), ("x/**", "x", False), ("x/**", "x/z/y.md", True),
    ("x/**", "x/.h/y.md", False), ("x/**/y.md", "x/y.md", True),
    ("x/**/y.md", "x/z/y.md", True), ("a/**/**/b.md", "a/b.md", True),
    ("**/*/*.md", "a.md", False), ("**/*/*.md", "a/b.md", True), ("a?.md", "a1.md", True),
    ("a?.md", "a.md", False), ("[ab]*.md", "b.md", True), ("[!a]*.md", "a1.md", False),
    ("[^a]*.md", "b.md", True), ("[a-c]*.md", "c.md", True), ("[a-c]*.md", "x.md", False),
    ("[]a].md", "a.md", True), ("[.]h.md", ".h.md", True), ("[a.]h.md", ".h.md", False),
    ("?h.md", ".h.md", False), ("a[b.md", "a[b.md", True), ("{a,b}.md", "b.md", True),
    ("{a}.md", "a.md", False), ("{a}.md", "{a}.md", True), ("{,x}a.md", "a.md", True),
    ("{,x}a.md", "xa.md", True), ("a{1..3}.md", "a3.md", True), ("a{1..3}.md", "a4.md", False),
    ("a{01..03}.md", "a02.md", True), ("a{01..03}.md", "a2.md", False),
    ("a{1..4..2}.md", "a3.md", True), ("a{1..4..2}.md", "a2.md", False),
    ("{c..a}.md", "b.md", True), ("{a,b}/**/*.md", "a/c/b.md", True),
    ("*.{md,txt}", "a.txt", True), ("*{?{1..2}[.]", "b{11.", True),
    ("a\\*.md", "a/b.md", True), ("a//b.md", "a/b.md", True), ("./*.md", "a.md", False),
    ("x/", "x", False), ("/a.md", "a.md", False), ("!a.md", "!a.md", True),
    ("#a.md", "#a.md", True), ("2026-*.md", "2026-09-10.md", True),
    ("2026-*.md", "2025/2026-01-01.md", False), ("a**.md", "ab.md", True),
]


@pytest.mark.parametrize(("pattern", "path", "want"), NODE_CASES)
def test_node_cases(pattern: str, path: str, want: bool) -> None:
    assert matches_glob(path, pattern) is want


def _node() -> str | None:
    cache = Path(os.environ.get("MEMLAB_PARITY_CACHE", "~/.cache/memlab/parity")).expanduser()
    found = sorted(cache.glob("node-v*/bin/node"))
    return str(found[-1]) if found else shutil.which("node")


def test_against_node() -> None:
    node = _node()
    if node is None:
        pytest.skip("no Node to ask (the parity harness installs one)")
    pats = ["*.md", "**/*.md", "x/**", "x/**/y.md", "**/x/*.md", "[!a]*", "[.]*", "{a,x}/*",
            "a{1..2}*", "?/*.md", "**/[ab].md", "*/", "**/**", "x/*/*.md", "{,.}*.md", "[a-]*"]
    paths = ["a.md", "b.md", ".h.md", "x/a.md", "x/y.md", "x/z/y.md", "x/.h/y.md", "a1.md",
             "a2.txt", "-a.md", "a/b.md", "x/z/.q.md", "x"]
    js = ("const path = require('node:path'); const d = JSON.parse(process.argv[1]); "
          "if (!path.posix.matchesGlob) process.exit(3); console.log(JSON.stringify("
          "d.p.map(p => d.f.map(f => path.posix.matchesGlob(f, p)))))")
    run = subprocess.run([node, "-e", js, json.dumps({"p": pats, "f": paths})],
                         capture_output=True, text=True, timeout=60)
    if run.returncode == 3:
        pytest.skip(f"{node} has no path.matchesGlob (Node < 22)")
    assert run.returncode == 0, run.stderr
    answers = json.loads(run.stdout)
    diffs = [(p, f, want) for p, row in zip(pats, answers, strict=True)
             for f, want in zip(paths, row, strict=True) if matches_glob(f, p) is not want]
    assert diffs == []


@pytest.mark.parametrize("pattern", ["@(a|b).md", "!(a).md", "+(a).md", "[[:alpha:]]*.md"])
def test_unsupported_features_are_refused(pattern: str) -> None:
    with pytest.raises(ValueError, match="not supported"):
        compile_glob(pattern)


def test_expand_braces() -> None:
    assert expand_braces("{a,{b,c}}.md") == ["a.md", "b.md", "c.md"]
    assert expand_braces("a{,/c}/b.md") == ["a/b.md", "a/c/b.md"]
    assert expand_braces("{x") == ["{x"]


def test_normalize_entries() -> None:
    got = normalize_extra_path_entries("/ws", [
        "docs", ExtraPath("docs", " api/** "), {"path": " docs ", "pattern": "api/**"},
        ExtraPath("docs", "a\\*.md"), ExtraPath("  ", "*.md"), ExtraPath("/abs/x", "")])
    assert got == [ExtraPath("/ws/docs"), ExtraPath("/ws/docs", "api/**"),
                   ExtraPath("/ws/docs", "a/*.md"), ExtraPath("/abs/x")]


def _write(root: Path, rel: str, text: str = "x\n") -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    for rel in ["MEMORY.md", "docs/README.md", "docs/drafts.md", "docs/api/a.md",
                "docs/api/v2/b.md", "docs/api/.hidden.md", "docs/old/c.md", "one.md",
                "misc/m.md", "misc/sub/n.md"]:
        _write(tmp_path, rel)
    return tmp_path


def test_list_memory_files_with_patterns(workspace: Path) -> None:
    files = list_memory_files(workspace, [
        ExtraPath("docs", "api/**"), ExtraPath("docs", "[!d]*.md"),
        ExtraPath("one.md", "no-match"), ExtraPath("misc", "   ")])
    assert [f.path for f in files] == [
        "MEMORY.md", "docs/api/a.md", "docs/api/v2/b.md", "docs/README.md", "one.md",
        "misc/m.md", "misc/sub/n.md"]


def test_string_entries_unchanged(workspace: Path) -> None:
    assert [f.path for f in list_memory_files(workspace, ["docs"])] == [
        "MEMORY.md", "docs/README.md", "docs/api/.hidden.md", "docs/api/a.md",
        "docs/api/v2/b.md", "docs/drafts.md", "docs/old/c.md"]


def test_collect_files_reads_the_schema_entries(workspace: Path) -> None:
    settings = read_config({"memory": {"search": {"provider": "none", "extraPaths": [
        {"path": "docs", "pattern": "**/*.md"}, "one.md"]}}}).resolve("main")
    got = [f.path for f in collect_files(workspace, settings.sources, settings.extra_paths,
                                         "main")]
    assert got == ["MEMORY.md", "docs/README.md", "docs/api/a.md", "docs/api/v2/b.md",
                   "docs/drafts.md", "docs/old/c.md", "one.md"]


def test_unsupported_pattern_is_a_clear_error(workspace: Path) -> None:
    with pytest.raises(ValueError, match=r"glob pattern '@\(a\|b\)': extglobs"):
        list_memory_files(workspace, [ExtraPath("docs", "@(a|b)")])


def test_parity_file_selection_check(workspace: Path) -> None:
    """parity/tiered_line.indexed_files_issues: memlab's selection against OpenClaw's rows."""
    import importlib.util

    parity = Path(__file__).resolve().parents[2] / "parity" / "tiered_line.py"
    spec = importlib.util.spec_from_file_location("tiered_line_files", parity)
    assert spec and spec.loader
    line = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(line)
    ms = {"provider": "none", "extraPaths": [{"path": "docs", "pattern": "api/**"}]}
    rows = [{"path": p, "source": "memory"} for p in
            ["MEMORY.md", "docs/api/a.md", "docs/api/v2/b.md"]]
    assert line.indexed_files_issues(workspace, "main", rows, ms, None) == []
    assert line.indexed_files_issues(workspace, "main", rows[:2] + [
        {"path": "docs/drafts.md", "source": "memory"}], ms, None) == [
        "indexed by OpenClaw only: ['docs/drafts.md']",
        "indexed by memlab only: ['docs/api/v2/b.md']"]
