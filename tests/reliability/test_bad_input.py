"""Bad input never reaches the user as a traceback: a clear error, or a reported skip."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from memlab_reliability import NOTES, FakeProvider, run_memlab, subprocess_env, write_config

# -- configs -----------------------------------------------------------------------------------

BAD_CONFIGS = [
    # (config text, words the message must contain)
    ('{memorySearch: {provider: "none",', ["JSON5 syntax error", "line"]),
    ("", ["JSON5 syntax error"]),
    ("[1, 2]", ["must be an object"]),
    ('{memorySearch: {providr: "none"}}', ["memorySearch.providr", "did you mean 'provider'"]),
    ('{agents: {defaults: {memorySearch: {query: {maxResults: "ten"}}}}}',
     ["agents.defaults.memorySearch.query.maxResults", "integer"]),
    ('{memorySearch: {query: {hybrid: {enabled: "yes"}}}}', ["hybrid.enabled", "boolean"]),
    ('{memorySearch: {query: {hybrid: {vectorWeight: 1.7}}}}', ["vectorWeight", "between 0 and 1"]),
    ('{memorySearch: {query: {hybrid: {textWeight: -0.5}}}}', ["textWeight", "between 0 and 1"]),
    ('{memorySearch: {query: {hybrid: {temporalDecay: {enabled: true, halfLifeDays: -3}}}}}',
     ["halfLifeDays", "positive"]),
    ('{memorySearch: {chunking: {tokens: 0}}}', ["chunking.tokens", "positive"]),
    ('{memorySearch: {extraPaths: "notes"}}', ["extraPaths", "list"]),
    ('{memorySearch: null}', ["memorySearch", "object"]),
    # memorySearch at a wrong path: reported, not silently ignored
    ('{agents: {memorySearch: {provider: "none"}}}',
     ["agents.memorySearch", "agents.defaults.memorySearch"]),
    ('{agents: {defaults: {memory: {memorySearch: {provider: "none"}}}}}',
     ["agents.defaults.memory.memorySearch", "not read here"]),
    ('{defaults: {memorySearch: {provider: "none"}}}', ["defaults", "unknown"]),
    ('{memorySearch: {provider: "none"}, agents: {defaults: {}}}',
     ["top-level memorySearch", "agents.defaults.memorySearch"]),
    ('{memorySearch: {provider: "none"}, memlab: {keyword: "nope"}}', ["memlab.keyword"]),
]


@pytest.mark.parametrize("text, words", BAD_CONFIGS)
@pytest.mark.parametrize("command", ["search", "index", "status"])
def test_bad_config_is_a_clear_error(cli, workspace, tmp_path, text, words, command):
    cfg = write_config(tmp_path, text)
    args = [command, workspace, *(["deploy"] if command == "search" else []), "--config", cfg,
            "--index", tmp_path / "i.sqlite"]
    result = cli(*args)
    assert result.code == 2, result
    assert "config error" in result.err and cfg in result.err
    for word in words:
        assert word in result.err, (word, result.err)
    assert not (tmp_path / "i.sqlite").exists()  # nothing written on a bad config


def test_config_file_problems(cli, workspace, tmp_path):
    for cfg in [tmp_path / "missing.json5", tmp_path]:  # missing; a directory
        result = cli("search", workspace, "x", "--config", cfg)
        assert result.code == 2 and str(cfg) in result.err, result
    latin = tmp_path / "latin.json5"
    latin.write_bytes('{memorySearch: {model: "caf\xe9"}}'.encode("latin-1"))
    result = cli("search", workspace, "x", "--config", latin)
    assert result.code == 2 and str(latin) in result.err, result


def test_bad_config_as_a_user_sees_it(workspace, tmp_path):
    """The console entry point itself: exit code 2, one line, no traceback."""
    cfg = write_config(tmp_path, "{memorySearch: {query: {hybrid: {vectorWeight: 2}}}}")
    done = run_memlab("index", workspace, "--config", cfg)
    assert done.returncode == 2 and "Traceback" not in done.stderr + done.stdout
    assert "memorySearch.query.hybrid.vectorWeight" in done.stderr


# -- workspaces --------------------------------------------------------------------------------


def _hostile_workspace(root: Path, outside: Path) -> Path:
    from memlab_reliability import write_workspace

    ws = write_workspace(root, dict(NOTES))
    mem = ws / "memory"
    (mem / "binary.md").write_bytes(b"\x89PNG\x00\x01deploy\x00" * 50)
    (mem / "latin1.md").write_bytes("caf\xe9 deploy window".encode("latin-1"))
    (mem / "zero.md").write_bytes(b"")
    with open(mem / "sparse-50mb.md", "wb") as fh:  # 50 MB, sparse: fast to make
        fh.write(b"deploy huge\n")
        fh.truncate(50 * 1024 * 1024)
    (mem / "one-line.md").write_text("zanzibar " + "y" * (10 * 1024 * 1024))
    (mem / "loops").mkdir()
    (mem / "loops" / "self").symlink_to(mem)  # a loop back to memory/
    (mem / "loops" / "self.md").symlink_to(mem / "loops")
    (mem / "loops" / "dangling.md").symlink_to(root / "nowhere.md")
    outside.write_text("deploy SECRET-OUTSIDE text\n")
    (mem / "escape.md").symlink_to(outside)
    (mem / "escape-dir").symlink_to(outside.parent)
    (mem / "with space.md").write_text("quokka spaced name\n")
    (mem / "new\nline.md").write_text("quokka newline name\n")
    (mem / "ünïcødé 部署 \u202e.md").write_text("quokka unicode name\n")
    os.mkfifo(mem / "fifo.md")
    return ws


EXPECTED_SKIPS = {
    "memory/binary.md": "binary", "memory/latin1.md": "UTF-8",
    "memory/sparse-50mb.md": "binary", "memory/loops/self": "symlink",
    "memory/loops/self.md": "symlink", "memory/escape.md": "symlink",
    "memory/escape-dir": "symlink", "memory/fifo.md": "not a regular file",
}


@pytest.mark.parametrize("mode", ["index", "search", "search --no-index", "status"])
def test_hostile_workspace(cli, tmp_path, none_config, mode):
    ws = _hostile_workspace(tmp_path / "ws", tmp_path / "secret" / "outside.md") \
        if (tmp_path / "secret").mkdir() is None else None
    command, *flags = mode.split()
    index = ["--index", tmp_path / "i.sqlite"] if "--no-index" not in flags else []
    query = ["quokka"] if command == "search" else []
    result = cli(command, ws, *query, "--config", none_config, *flags, *index,
                 *(["--json"] if command == "search" else []))
    assert result.code == 0, result
    for path, reason in EXPECTED_SKIPS.items():
        line = next((ln for ln in result.text.splitlines() if f"{path}:" in ln), None)
        assert line is not None and reason in line, (path, result.err)
    assert "SECRET-OUTSIDE" not in result.out
    if command == "search":
        paths = {r["path"] for r in json.loads(result.out)["results"]}
        assert paths == {"memory/with space.md", "memory/new\nline.md",
                         "memory/ünïcødé 部署 \u202e.md"}
        found = cli("search", ws, "zanzibar", "--config", none_config, *flags, *index, "--json")
        top = json.loads(found.out)["results"][0]
        assert top["path"] == "memory/one-line.md" and len(top["snippet"]) == 700
    if command == "index":
        assert "7/7 files" not in result.out and "Indexed:" in result.out


def test_plain_output_escapes_control_characters_in_paths(cli, tmp_path, none_config):
    from memlab_reliability import write_workspace

    ws = write_workspace(tmp_path / "ws", {"memory/a\nb\x1b[2J.md": "quokka\n"})
    result = cli("search", ws, "quokka", "--config", none_config, "--no-index")
    first = result.out.splitlines()[0]
    assert first.endswith("memory/a\\nb\\x1b[2J.md:1-2"), result
    assert "\x1b" not in result.out


def test_zero_byte_file_is_indexed_without_chunks(cli, tmp_path, none_config):
    from memlab_reliability import write_workspace

    from memlab.index.store import IndexStore

    ws = write_workspace(tmp_path / "ws", {"MEMORY.md": "", "memory/a.md": b""})
    assert cli("index", ws, "--config", none_config, "--index", tmp_path / "i.sqlite").code == 0
    store = IndexStore(tmp_path / "i.sqlite")
    assert set(store.source_hashes()) == {"MEMORY.md", "memory/a.md"}
    assert not store.has_chunks() and store.check_consistency() == []
    assert cli("search", ws, "x", "--config", none_config, "--index",
               tmp_path / "i.sqlite").out.strip() == "No matches."


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads chmod-000 files; simulated below")
def test_unreadable_file_real_permissions(cli, workspace, tmp_path, none_config):
    target = workspace / "memory" / "2026-05-01.md"
    target.chmod(0)
    try:
        result = cli("index", workspace, "--config", none_config, "--index", tmp_path / "i")
    finally:
        target.chmod(0o644)
    assert result.code == 0 and "memory/2026-05-01.md: unreadable" in result.err


def test_unreadable_file_simulated(cli, workspace, tmp_path, none_config, monkeypatch):
    real_open = os.open

    def deny(path, flags, *a, **k):
        if os.fspath(path).endswith("2026-05-01.md"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", deny)
    result = cli("index", workspace, "--config", none_config, "--index", tmp_path / "i.sqlite")
    assert result.code == 0, result
    assert "skipped memory/2026-05-01.md: unreadable: Permission denied" in result.err
    assert f"Indexed: {len(NOTES) - 1}/{len(NOTES) - 1} files" in result.out


def test_unreadable_directory_simulated(cli, workspace, tmp_path, none_config, monkeypatch):
    import memlab.workspace as wsmod

    real = wsmod._sorted_entries

    def deny(directory):
        if directory.endswith("projects"):
            raise PermissionError(13, "Permission denied", directory)
        return real(directory)

    monkeypatch.setattr(wsmod, "_sorted_entries", deny)
    result = cli("index", workspace, "--config", none_config, "--index", tmp_path / "i.sqlite")
    assert result.code == 0 and "memory/projects: unreadable directory" in result.err, result


def test_file_deleted_mid_index(cli, workspace, tmp_path, none_config, monkeypatch):
    """Listed, then deleted before it is read: reported as skipped, the rest indexed."""
    import memlab.workspace as wsmod

    real = wsmod._discover
    victim = workspace / "memory" / "2026-05-01.md"

    def discover_then_delete(*a, **k):
        out = real(*a, **k)
        victim.unlink(missing_ok=True)
        return out

    monkeypatch.setattr(wsmod, "_discover", discover_then_delete)
    index = tmp_path / "i.sqlite"
    result = cli("index", workspace, "--config", none_config, "--index", index)
    assert result.code == 0 and "skipped memory/2026-05-01.md: missing" in result.err, result
    monkeypatch.setattr(wsmod, "_discover", real)
    from memlab.index.store import IndexStore

    store = IndexStore(index)
    assert "memory/2026-05-01.md" not in store.source_hashes()
    assert store.check_consistency() == []


def test_file_deleted_after_read_is_dropped_next_run(cli, workspace, tmp_path, none_config,
                                                     monkeypatch):
    """Deleted after it was read (while the index is written): the next run removes it."""
    import memlab.index.sync as sync_mod
    from memlab.index.store import IndexStore

    real = sync_mod.scan_sources
    victim = workspace / "memory" / "2026-05-01.md"

    def scan_then_delete(*a, **k):
        out = real(*a, **k)
        victim.unlink(missing_ok=True)
        return out

    monkeypatch.setattr(sync_mod, "scan_sources", scan_then_delete)
    index = tmp_path / "i.sqlite"
    assert cli("index", workspace, "--config", none_config, "--index", index).code == 0
    monkeypatch.setattr(sync_mod, "scan_sources", real)
    result = cli("index", workspace, "--config", none_config, "--index", index)
    assert result.code == 0 and "1 removed" in result.out, result
    store = IndexStore(index)
    assert "memory/2026-05-01.md" not in store.source_hashes()
    assert store.check_consistency() == []


def test_workspace_is_a_file_or_missing(cli, tmp_path, none_config):
    afile = tmp_path / "file.md"
    afile.write_text("x")
    for ws in [tmp_path / "missing", afile]:
        for cmd in (["index", ws], ["search", ws, "x"], ["search", ws, "x", "--no-index"],
                    ["status", ws]):
            result = cli(*cmd, "--config", none_config, "--index", tmp_path / "i.sqlite") \
                if "--no-index" not in cmd else cli(*cmd, "--config", none_config)
            assert result.code == 2 and str(ws) in result.err, (cmd, result)


# -- queries -----------------------------------------------------------------------------------

QUERIES = ["", " ", "\t\n ", "?!...", "—", '"NEAR(" OR *', "NEAR(deploy vault)", 'deploy"',
           '"', "'", "a*", "^deploy", "text:deploy", "deploy AND", "AND OR NOT", "NOT deploy",
           "(((", "{deploy vault}", "x" * 100_000, "deploy " * 15_000, "🙂🚀", "deploy 🙂",
           "部署 deploy Привет مرحبا ไทย 배포", "\ufeff\u200b", "\x00deploy"]


@pytest.mark.parametrize("tokenizer", ["unicode61", "trigram"])
@pytest.mark.parametrize("no_index", [False, True])
def test_odd_queries_cli(cli, workspace, tmp_path, tokenizer, no_index):
    cfg = write_config(tmp_path, {"memorySearch": {"provider": "none",
                                                   "store": {"fts": {"tokenizer": tokenizer}}},
                                  "memlab": {"keyword": "fts5"}})
    where = ["--no-index"] if no_index else ["--index", tmp_path / "i.sqlite"]
    for query in QUERIES:
        result = cli("search", workspace, "--json", "--config", cfg, *where, "--", query)
        assert result.code == 0, (query[:40], result)
        assert isinstance(json.loads(result.out)["results"], list)
    deploy = cli("search", workspace, "--json", "--config", cfg, *where, "--", "deploy 🙂")
    assert json.loads(deploy.out)["results"]


def test_odd_queries_hybrid_api(workspace, tmp_path):
    from memlab.indexed_search import IndexedMemorySearch

    cfg = {"memorySearch": {"provider": "fake", "query": {"minScore": 0}},
           "memlab": {"keyword": "fts5"}}
    ms = IndexedMemorySearch(workspace, cfg, FakeProvider(), index_path=tmp_path / "i.sqlite")
    for query in QUERIES:
        payload = ms.search(query)
        assert isinstance(payload["results"], list)


def test_undecodable_query_bytes(workspace, tmp_path, none_config):
    env = subprocess_env(LC_ALL="C.UTF-8")
    import subprocess
    import sys

    done = subprocess.run([sys.executable.encode(), b"-m", b"memlab.cli", b"search",
                           os.fsencode(workspace), b"caf\xe9", b"--config",
                           os.fsencode(none_config), b"--no-index"],
                          capture_output=True, env=env, timeout=120)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2 and "Traceback" not in err
    assert "query is not valid UTF-8" in err


# -- datasets ----------------------------------------------------------------------------------


def _dataset(root: Path, queries: list, qrels: list) -> Path:
    from memlab_reliability import write_workspace

    write_workspace(root / "workspace", NOTES)
    (root / "queries.jsonl").write_text(
        "".join((q if isinstance(q, str) else json.dumps(q)) + "\n" for q in queries))
    (root / "qrels.jsonl").write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in qrels))
    return root


Q = {"id": "q1", "text": "deploy window"}
R = {"query_id": "q1", "path": "memory/2026-05-01.md", "start_line": 1, "end_line": 1}

BAD_DATASETS = [
    ([Q], [{**R, "end_line": 99}], ["qrels.jsonl:1", "outside"]),
    ([Q], [{**R, "start_line": 0}], ["qrels.jsonl:1", "outside"]),
    ([Q], [{**R, "start_line": 2, "end_line": 1}], ["qrels.jsonl:1"]),
    ([Q], [{**R, "path": "memory/nope.md"}], ["qrels.jsonl:1", "does not exist"]),
    ([Q], [{**R, "path": "../queries.jsonl"}], ["qrels.jsonl:1", "outside"]),
    ([Q], [{**R, "path": "/etc/passwd"}], ["qrels.jsonl:1"]),
    ([Q, Q], [R], ["queries.jsonl:2", "duplicate"]),
    ([Q, "{not json"], [R], ["queries.jsonl:2", "malformed"]),
    ([Q, "[1, 2]"], [R], ["queries.jsonl:2", "object"]),
    ([{"id": "q1"}], [R], ["queries.jsonl:1", "text"]),
    ([Q], [{**R, "query_id": "q9"}], ["qrels.jsonl:1", "q9"]),
    ([Q], [{**R, "start_line": "one"}], ["qrels.jsonl:1", "start_line"]),
    ([Q], [{**R, "start_line": None}], ["qrels.jsonl:1", "start_line"]),
    ([Q], [{**R, "grade": "high"}], ["qrels.jsonl:1", "grade"]),
    ([Q], [{**R, "grade": 0}], ["qrels.jsonl:1", "grade"]),
    ([Q], ["{broken"], ["qrels.jsonl:1", "malformed"]),
]


@pytest.mark.parametrize("queries, qrels, words", BAD_DATASETS)
def test_bad_dataset_is_a_clear_error(cli, tmp_path, queries, qrels, words):
    root = _dataset(tmp_path / "ds", queries, qrels)
    result = cli("eval", root, "--config", "keyword", "--resamples", "10")
    assert result.code == 2, result
    for word in words:
        assert word in result.err, (word, result.err)


def test_dataset_qrels_on_a_non_utf8_file(cli, tmp_path):
    root = _dataset(tmp_path / "ds", [Q], [{**R, "path": "memory/bad.md"}])
    (root / "workspace" / "memory" / "bad.md").write_bytes(b"caf\xe9\n")
    result = cli("eval", root, "--config", "keyword", "--resamples", "10")
    assert result.code == 2 and "qrels.jsonl:1" in result.err, result


def test_missing_dataset_parts(cli, tmp_path):
    assert cli("eval", tmp_path / "nope", "--resamples", "10").code == 2
    root = _dataset(tmp_path / "ds", [Q], [R])
    (root / "qrels.jsonl").unlink()
    result = cli("eval", root, "--config", "keyword", "--resamples", "10")
    assert result.code == 2 and "qrels.jsonl" in result.err
