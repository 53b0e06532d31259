"""Incremental sync, identity pausing, --force, crash safety, the lock, and the CLI."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memlab_test_fakes import FAKE_PROVIDER_SOURCE, NOTES, FakeProvider, write_workspace

from memlab.cli import main
from memlab.index import (
    IndexLock,
    IndexLocked,
    IndexPaused,
    IndexStore,
    index_status,
    sync_index,
)
from memlab.index.store import META_KEY, SOURCES_TABLE
from memlab.indexed_search import IndexedMemorySearch

SMALL_CHUNKS = {"provider": "fake", "chunking": {"tokens": 16, "overlap": 0}}


def _cfg(**over):
    from memlab.config import load_config

    ms = dict(SMALL_CHUNKS)
    ms.update(over)
    return load_config({"memorySearch": ms})


def _chunk_ids(store: IndexStore) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for cid, path in store.execute("SELECT id, path FROM memory_index_chunks ORDER BY rowid"):
        out.setdefault(path, []).append(cid)
    return out


def test_initial_then_unchanged(tmp_path, workspace):
    store = IndexStore(tmp_path / "i.sqlite")
    prov = FakeProvider()
    report = sync_index(store, workspace, _cfg(), prov)
    assert report.mode == "full" and report.reason == "initial index"
    assert report.files == report.indexed == len(NOTES)
    assert report.chunks == len(prov.texts) == report.texts_embedded > len(NOTES)
    assert store.check_consistency() == []
    meta = store.read_meta()
    assert list(meta) == ["model", "provider", "providerKey", "sources", "scopeHash",
                          "chunkTokens", "chunkOverlap", "ftsTokenizer", "vectorDims"]
    assert (meta["provider"], meta["model"], meta["vectorDims"]) == ("fake", "fake-1", 8)
    assert (meta["chunkTokens"], meta["chunkOverlap"], meta["ftsTokenizer"]) == (16, 0,
                                                                                 "unicode61")
    assert meta["providerKey"] == prov.settings_key
    assert store.vectors().shape == (report.chunks, 8)
    again = FakeProvider()
    report = sync_index(store, workspace, _cfg(), again)
    assert report.mode == "incremental" and report.indexed == 0
    assert report.unchanged == len(NOTES) and again.calls == 0


def test_touching_one_file_reembeds_only_its_chunks(tmp_path, workspace):
    store = IndexStore(tmp_path / "i.sqlite")
    cfg = _cfg(cache={"enabled": False})  # no cache: every re-indexed chunk is embedded
    sync_index(store, workspace, cfg, FakeProvider())
    before = _chunk_ids(store)
    target = workspace / "memory" / "projects" / "billing.md"
    target.write_text(target.read_text() + "Refunds go through the same queue.\n")
    prov = FakeProvider()
    report = sync_index(store, workspace, cfg, prov)
    assert report.mode == "incremental" and report.indexed == 1
    assert report.unchanged == len(NOTES) - 1
    after = _chunk_ids(store)
    texts = dict(store.execute("SELECT id, text FROM memory_index_chunks"))
    assert prov.texts == [texts[c] for c in after["memory/projects/billing.md"]]
    assert {p: ids for p, ids in after.items() if p != "memory/projects/billing.md"} == \
        {p: ids for p, ids in before.items() if p != "memory/projects/billing.md"}
    assert store.check_consistency() == []


def test_with_the_cache_only_new_text_is_embedded(tmp_path, workspace):
    store = IndexStore(tmp_path / "i.sqlite")
    sync_index(store, workspace, _cfg(), FakeProvider())
    old = {t for (t,) in store.execute("SELECT text FROM memory_index_chunks")}
    target = workspace / "memory" / "projects" / "billing.md"
    target.write_text(target.read_text() + "Refunds go through the same queue.\n")
    prov = FakeProvider()
    report = sync_index(store, workspace, _cfg(), prov)
    assert report.indexed == 1 and 0 < len(prov.texts) < report.chunks_written
    new = {t for (t,) in store.execute("SELECT text FROM memory_index_chunks")}
    assert sorted(prov.texts) == sorted(new - old)  # cache hits for every unchanged text
    # the cache lives in the index file itself (OpenClaw's memory_embedding_cache)
    assert store.execute("SELECT COUNT(*) FROM memory_embedding_cache")[0][0] >= report.chunks


def test_mtime_alone_changes_nothing(tmp_path, workspace):
    store = IndexStore(tmp_path / "i.sqlite")
    sync_index(store, workspace, _cfg(), FakeProvider())
    os.utime(workspace / "MEMORY.md", (1, 1))
    report = sync_index(store, workspace, _cfg(), FakeProvider())
    assert report.indexed == 0  # the decision is hash-based, like OpenClaw's


def test_deleted_and_added_files(tmp_path, workspace):
    store = IndexStore(tmp_path / "i.sqlite")
    sync_index(store, workspace, _cfg(), FakeProvider())
    (workspace / "memory" / "2026-05-02.md").unlink()
    (workspace / "memory" / "2026-06-01.md").write_text("New note about the NAS.\n")
    (workspace / "memory" / "empty.md").write_text("")
    report = sync_index(store, workspace, _cfg(), FakeProvider())
    assert (report.indexed, report.deleted) == (2, 1)
    paths = set(store.source_hashes())
    assert "memory/2026-05-02.md" not in paths and "memory/2026-06-01.md" in paths
    assert "memory/empty.md" in paths  # an empty file has a source row and no chunks
    chunk_paths = {p for (p,) in store.execute("SELECT DISTINCT path FROM memory_index_chunks")}
    assert "memory/2026-05-02.md" not in chunk_paths and "memory/empty.md" not in chunk_paths
    assert store.check_consistency() == []
    assert not store.execute("SELECT 1 FROM memory_index_chunks_fts WHERE path = ?",
                             ("memory/2026-05-02.md",))


def test_force_rebuilds_without_provider_calls(tmp_path, workspace):
    store = IndexStore(tmp_path / "i.sqlite")
    sync_index(store, workspace, _cfg(), FakeProvider())
    before = store.execute("SELECT id, text FROM memory_index_chunks ORDER BY rowid")
    prov = FakeProvider()
    report = sync_index(store, workspace, _cfg(), prov, force=True)
    assert report.mode == "full" and report.reason == "forced"
    assert prov.calls == 0 and report.texts_embedded == 0
    assert report.cache_hits == len(before)
    assert store.execute("SELECT id, text FROM memory_index_chunks ORDER BY rowid") == before
    fts_rowids = [r for (r,) in store.execute(
        "SELECT rowid FROM memory_index_chunks_fts ORDER BY rowid")]
    assert fts_rowids == list(range(1, len(before) + 1))  # a fresh table, in file order
    assert store.check_consistency() == []


@pytest.mark.parametrize("change, reason", [
    ({"model": "fake-2"}, "index was built for model fake-1, expected fake-2"),
    ({"dims": 4}, "index provider settings changed"),
    ({"cfg": {"chunking": {"tokens": 32, "overlap": 0}}}, "index chunking changed"),
    ({"cfg": {"store": {"fts": {"tokenizer": "trigram"}}}}, "index FTS tokenizer changed"),
    ({"cfg": {"extraPaths": ["notes"]}}, "index scope changed"),
])
def test_identity_change_pauses_until_rebuilt(tmp_path, workspace, change, reason):
    (workspace / "notes").mkdir()
    path = tmp_path / "i.sqlite"
    store = IndexStore(path)
    sync_index(store, workspace, _cfg(), FakeProvider())
    cfg_over = dict(SMALL_CHUNKS)
    cfg_over.update(change.get("cfg", {}))
    cfg = _cfg(**cfg_over)
    prov = FakeProvider(model=change.get("model", "fake-1"), dims=change.get("dims", 8))
    revision = store.revision()
    report = sync_index(store, workspace, cfg, prov, on_mismatch="pause")
    assert report.mode == "paused" and report.reason == reason
    assert store.revision() == revision and prov.calls == 0  # nothing written, no mixing
    ms = IndexedMemorySearch(workspace, cfg, prov, index_path=path)
    assert ms.paused == reason
    with pytest.raises(IndexPaused, match="memlab index --force") as err:
        ms.search("deploy")
    assert reason in str(err.value)
    status = index_status(workspace, cfg, index_path=path, embedder=prov)
    assert status["indexIdentity"] == {"status": "mismatched", "reason": reason,
                                       "fix": "Run: memlab index --force"}
    assert status["dirty"]
    rebuilt = sync_index(store, workspace, cfg, prov)  # `memlab index` rebuilds (OpenClaw too)
    assert rebuilt.mode == "full" and rebuilt.reason == reason
    assert sync_index(store, workspace, cfg, prov, on_mismatch="pause").mode == "incremental"
    assert store.fts_tokenizer == cfg.memory_search.store.fts.tokenizer
    assert IndexedMemorySearch(workspace, cfg, prov, index_path=path).search("deploy")["results"]


def test_search_syncs_a_dirty_index(tmp_path, workspace):
    path = tmp_path / "i.sqlite"
    cfg = {"memorySearch": {"provider": "none"}, "memlab": {"keyword": "fts5"}}
    first = IndexedMemorySearch(workspace, cfg, index_path=path)
    assert first.sync_report.mode == "full"
    assert not first.search("zanzibar")["results"]
    (workspace / "memory" / "2026-05-02.md").write_text("Flight to zanzibar booked.\n")
    second = IndexedMemorySearch(workspace, cfg, index_path=path)
    assert (second.sync_report.mode, second.sync_report.indexed) == ("incremental", 1)
    assert second.search("zanzibar")["results"][0]["path"] == "memory/2026-05-02.md"


def test_hybrid_search_over_the_index_matches_in_memory_search(tmp_path, workspace):
    from memlab.openclaw import MemorySearch

    cfg = {"memorySearch": {"provider": "fake", "query": {"minScore": 0}},
           "memlab": {"keyword": "fts5"}}
    ms = IndexedMemorySearch(workspace, cfg, FakeProvider(), index_path=tmp_path / "i.sqlite")
    mem = MemorySearch(workspace, cfg, FakeProvider())
    for q in ["deploy key vault", "billing", "部署流程在周二"]:
        a = ms.search(q, max_results=10)["results"]
        b = mem.search(q, max_results=10)["results"]
        assert [(r["path"], r["startLine"]) for r in a] == [(r["path"], r["startLine"])
                                                          for r in b]
        for x, y in zip(a, b, strict=True):
            assert x["textScore"] == y["textScore"]
            assert x["vectorScore"] == pytest.approx(y["vectorScore"], abs=1e-6)


# -- crashes and concurrency -------------------------------------------------------------------

_CHILD = FAKE_PROVIDER_SOURCE + '''
import sys
from memlab.config import load_config
from memlab.index.store import IndexStore
from memlab.index.sync import sync_index

path, ws, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
cfg = load_config({"memorySearch": {"provider": "fake", "chunking": {"tokens": 16,
                                                                      "overlap": 0}}})
print("started", flush=True)
report = sync_index(IndexStore(path), ws, cfg, FakeProvider(delay=delay), embed_batch=1)
print("done", report.mode, flush=True)
'''


def _spawn(tmp_path: Path, index: Path, ws: Path, delay: float) -> subprocess.Popen:
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    return subprocess.Popen([sys.executable, str(script), str(index), str(ws), str(delay)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _count(index: Path, sql: str) -> int:
    conn = sqlite3.connect(index, timeout=30)
    try:
        return int(conn.execute(sql).fetchone()[0])
    except sqlite3.OperationalError:  # tables not created yet
        return 0
    finally:
        conn.close()


def _wait(pred, timeout=60.0, child: subprocess.Popen | None = None) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        if child is not None and child.poll() is not None:
            raise AssertionError(f"child exited early: {child.communicate()}")
        time.sleep(0.02)
    raise AssertionError("timed out")


def _many_files(root: Path, n: int, tag: str) -> Path:
    return write_workspace(root, {f"memory/note-{i:02d}.md": f"Note {i} {tag}: deploy item {i}.\n"
                                  for i in range(n)})


def _assert_sound(index: Path) -> IndexStore:
    conn = sqlite3.connect(index)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    store = IndexStore(index)
    assert store.check_consistency() == []
    return store


def test_kill_9_during_incremental_sync(tmp_path):
    ws = _many_files(tmp_path / "ws", 24, "v1")
    index = tmp_path / "i.sqlite"
    sync_index(IndexStore(index), ws, _cfg(), FakeProvider())
    _many_files(ws, 24, "v2")  # every file changed
    child = _spawn(tmp_path, index, ws, delay=0.15)
    new_rows = "SELECT COUNT(*) FROM memory_index_chunks WHERE text LIKE '%v2%'"
    _wait(lambda: _count(index, new_rows) >= 3, child=child)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    store = _assert_sound(index)
    hashes = store.source_hashes()
    texts = dict(store.execute("SELECT path, text FROM memory_index_chunks"))
    done = [p for p, t in texts.items() if "v2" in t]
    assert 3 <= len(done) < 24 and len(hashes) == 24  # some files new, the rest still old
    for p in hashes:  # each file is entirely old or entirely new, source row included
        current = (ws / p).read_text()
        assert (hashes[p] == hashlib.sha256(current.encode()).hexdigest()) == \
            (p in done)
    prov = FakeProvider()
    report = sync_index(store, ws, _cfg(), prov)
    assert report.mode == "incremental" and report.indexed == 24 - len(done)
    # what the killed run embedded is in the cache: only files it never reached are embedded
    assert len(prov.texts) + report.cache_hits == report.indexed
    assert all("v2" in t for (t,) in store.execute("SELECT text FROM memory_index_chunks"))
    assert store.check_consistency() == []


def test_kill_9_during_initial_index(tmp_path):
    ws = _many_files(tmp_path / "ws", 24, "v1")
    index = tmp_path / "i.sqlite"
    child = _spawn(tmp_path, index, ws, delay=0.15)
    _wait(lambda: _count(index, "SELECT COUNT(*) FROM memory_embedding_cache") >= 3,
          child=child)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    store = _assert_sound(index)
    assert not store.has_chunks() and store.read_meta() is None  # all or nothing
    prov = FakeProvider()
    report = sync_index(store, ws, _cfg(), prov)
    assert report.mode == "full" and report.chunks == 24
    assert report.cache_hits >= 3 and len(prov.texts) == 24 - report.cache_hits
    assert store.check_consistency() == []


def test_two_indexers_never_run_at_once(tmp_path, capsys):
    ws = _many_files(tmp_path / "ws", 12, "v1")
    index = tmp_path / "i.sqlite"
    child = _spawn(tmp_path, index, ws, delay=0.3)
    try:
        _wait(lambda: Path(f"{index}.lock").exists()
              and Path(f"{index}.lock").read_text().strip() == str(child.pid), child=child)
        with pytest.raises(IndexLocked, match=f"another memlab index is running on {index}"):
            sync_index(IndexStore(index), ws, _cfg(), FakeProvider())
        code = main(["index", str(ws), "--index", str(index), "--config",
                     _write(tmp_path, {"provider": "none"})])
        assert code == 5
        assert f"another memlab index is running on {index}" in capsys.readouterr().err
    finally:
        child.kill()
        child.wait()
    store = _assert_sound(index)
    report = sync_index(store, ws, _cfg(), FakeProvider())  # the lock died with its holder
    assert report.chunks == 12


def test_lock_within_one_process(tmp_path):
    index = tmp_path / "i.sqlite"
    with IndexLock(index):
        with pytest.raises(IndexLocked, match="another memlab index is running"):
            IndexLock(index).acquire()
    with IndexLock(index):  # released on exit
        pass


# -- the command line --------------------------------------------------------------------------


def _write(tmp_path: Path, cfg: dict) -> str:
    path = tmp_path / "openclaw.json5"
    path.write_text(json.dumps(cfg))
    return str(path)


def test_cli_index_status_search(tmp_path, workspace, capsys):
    cfg = _write(tmp_path, {"memorySearch": {"provider": "none"}, "memlab": {"keyword": "fts5"}})
    index = tmp_path / "cli.sqlite"
    assert main(["status", str(workspace), "--config", cfg, "--index", str(index)]) == 0
    out = capsys.readouterr().out
    assert f"Indexed: 0/{len(NOTES)} files · 0 chunks" in out and "Dirty: yes" in out
    assert not index.exists()  # status never writes
    assert main(["index", str(workspace), "--config", cfg, "--index", str(index)]) == 0
    out = capsys.readouterr().out
    assert f"Memory index updated ({workspace})." in out
    assert f"Indexed: {len(NOTES)}/{len(NOTES)} files" in out and "initial index" in out
    assert main(["status", str(workspace), "--config", cfg, "--index", str(index),
                 "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["files"], status["totalFiles"], status["dirty"]) == (len(NOTES),
                                                                          len(NOTES), False)
    assert status["indexIdentity"] == {"status": "valid"}
    assert status["fts"] == {"enabled": True, "available": True, "tokenizer": "unicode61"}
    assert status["provider"] == "none" and status["dbPath"] == str(index)
    (workspace / "MEMORY.md").write_text("# Facts\nThe NAS is in the closet.\n")
    main(["status", str(workspace), "--config", cfg, "--index", str(index)])
    out = capsys.readouterr().out
    assert "Dirty: yes" in out and "new or changed since the last index: MEMORY.md" in out
    assert main(["search", str(workspace), "NAS closet", "--config", cfg, "--index",
                 str(index), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["path"] == "MEMORY.md"
    assert main(["index", str(workspace), "--config", cfg, "--index", str(index),
                 "--force"]) == 0
    assert "forced" in capsys.readouterr().out
    # a tokenizer change pauses search until the index is rebuilt
    tri = _write(tmp_path, {"memorySearch": {"provider": "none",
                                             "store": {"fts": {"tokenizer": "trigram"}}},
                            "memlab": {"keyword": "fts5"}})
    assert main(["search", str(workspace), "NAS", "--config", tri, "--index", str(index)]) == 4
    err = capsys.readouterr().err
    assert "index FTS tokenizer changed" in err and "memlab index --force" in err
    main(["status", str(workspace), "--config", tri, "--index", str(index)])
    out = capsys.readouterr().out
    assert "Index identity: index FTS tokenizer changed" in out
    assert "Vector search: paused until memory is rebuilt" in out
    assert "Fix: Run: memlab index --force" in out
    assert main(["index", str(workspace), "--config", tri, "--index", str(index)]) == 0
    capsys.readouterr()
    assert main(["search", str(workspace), "NAS", "--config", tri, "--index", str(index)]) == 0


def test_cli_status_deep_probes_the_provider(tmp_path, workspace, capsys, monkeypatch):
    import memlab.index.search as search_mod

    monkeypatch.setattr(search_mod, "make_embedder", lambda cfg: FakeProvider())
    cfg = _write(tmp_path, {"provider": "local"})
    main(["status", str(workspace), "--config", cfg, "--deep", "--index",
          str(tmp_path / "x.sqlite")])
    out = capsys.readouterr().out
    assert "Embeddings: ready" in out and "Vector store: unavailable" in out
    assert "Provider: fake (requested: local)" in out


def test_default_index_location_and_meta(tmp_path, workspace):
    from memlab.index import default_index_path

    cfg = {"memorySearch": {"provider": "none"}}
    IndexedMemorySearch(workspace, cfg)
    path = default_index_path(workspace)
    assert path.exists() and str(path).startswith(os.environ["MEMLAB_CACHE_DIR"])
    conn = sqlite3.connect(path)
    meta = json.loads(conn.execute("SELECT value FROM memory_index_meta WHERE key = ?",
                                   (META_KEY,)).fetchone()[0])
    assert meta["provider"] == "none" and meta["model"] == "fts-only"
    assert conn.execute(f"SELECT COUNT(*) FROM {SOURCES_TABLE}").fetchone()[0] == len(NOTES)


def test_cache_max_entries_prunes_after_sync(tmp_path, workspace):
    store = IndexStore(tmp_path / "i.sqlite")
    sync_index(store, workspace, _cfg(cache={"enabled": True, "maxEntries": 3}), FakeProvider())
    assert store.execute("SELECT COUNT(*) FROM memory_embedding_cache")[0][0] == 3


def test_cli_errors(tmp_path, workspace, capsys):
    cfg = _write(tmp_path, {"provider": "none"})
    index = tmp_path / "x.sqlite"
    assert main(["index", str(tmp_path / "nope"), "--config", cfg, "--index", str(index)]) == 2
    assert "nope" in capsys.readouterr().err and not index.exists()
    assert main(["search", str(workspace), "vault", "--config", cfg, "--no-index",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]
    assert not Path(os.environ["MEMLAB_CACHE_DIR"], "index").exists()
