"""Faults: failing providers (loopback servers), damaged index files, a full disk."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from memlab_reliability import NOTES, embeddings_route, received_inputs, write_config

from memlab.index.store import IndexStore

SECRET = "sk-test-RELIABILITY-0123456789abcdef"


@pytest.fixture(autouse=True)
def _no_retry_waits(monkeypatch):
    import memlab.embed.http as http

    monkeypatch.setattr(http, "retry_delay", lambda *a, **k: 0.0)


def remote_config(tmp_path: Path, url: str, **sync) -> str:
    ms = {"provider": "openai-compatible", "model": "m",
          "remote": {"baseUrl": f"{url}/v1", "apiKey": SECRET},
          "chunking": {"tokens": 16, "overlap": 0}, "query": {"minScore": 0}}
    if sync:
        ms["sync"] = sync
    return write_config(tmp_path, {"memorySearch": ms, "memlab": {"keyword": "fts5"}},
                        "remote.json5")


def _sound(index: Path) -> IndexStore:
    conn = sqlite3.connect(index)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    store = IndexStore(index)
    assert store.check_consistency() == []
    return store


def _fail(status, payload=None):
    return lambda req, n: (status, payload if payload is not None else {"error": "nope"})


FAULTS = [
    ("500", _fail(500, {"error": {"message": "boom"}}), ["HTTP 500"]),
    ("503 html", _fail(503, b"<html>Service Unavailable</html>"), ["HTTP 503"]),
    ("429 forever", _fail(429, {"error": "rate limited"}), ["HTTP 429"]),
    ("401", _fail(401, {"error": "bad key"}), ["HTTP 401"]),
    ("garbage", lambda req, n: (200, b"\x00not json{{"), ["not JSON"]),
    ("wrong shape", lambda req, n: (200, {"data": "nope"}), ["m"]),
    ("no vectors", lambda req, n: (200, {"data": []}), ["m"]),
    ("ragged dims", lambda req, n: (200, {"data": [{"embedding": [0.1] * (2 + i)} for i, _ in
                                                   enumerate(req["body"]["input"])]}), ["m"]),
    ("strings", lambda req, n: (200, {"data": [{"embedding": ["a", "b"]} for _ in
                                               req["body"]["input"]]}), ["m"]),
    ("nan", lambda req, n: (200, {"data": [{"embedding": [float("nan"), 1.0]} for _ in
                                           req["body"]["input"]]}), ["m"]),
]


@pytest.mark.parametrize("name, route, words", FAULTS, ids=[f[0] for f in FAULTS])
def test_provider_fault_during_index(cli, workspace, tmp_path, fake, name, route, words):
    cfg = remote_config(tmp_path, fake.url)
    index = tmp_path / "i.sqlite"
    fake.route = embeddings_route(4)
    assert cli("index", workspace, "--config", cfg, "--index", index).code == 0
    before = _sound(index).execute("SELECT id, text FROM memory_index_chunks ORDER BY rowid")
    (workspace / "memory" / "2026-05-01.md").write_text(
        "".join(f"Deploy window {i} moved to Friday, the ops channel says.\n" for i in range(6)))
    fake.route = route
    result = cli("index", workspace, "--config", cfg, "--index", index)
    assert result.code == 3, result
    assert "embedding provider unavailable" in result.err
    for word in words:
        assert word in result.err, result.err
    assert SECRET not in result.text
    after = _sound(index).execute("SELECT id, text FROM memory_index_chunks ORDER BY rowid")
    assert after == before  # nothing half-written
    fake.route = embeddings_route(4)  # the provider is back: the next run completes
    result = cli("index", workspace, "--config", cfg, "--index", index)
    assert result.code == 0 and "1 files written" in result.out, result


def test_transient_429_and_500_are_retried(cli, workspace, tmp_path, fake):
    good = embeddings_route(4)
    fake.route = lambda req, n: (429, {"error": "slow down"}) if n == 0 else \
        (500, {"error": "oops"}) if n == 1 else good(req, n)
    cfg = remote_config(tmp_path, fake.url)
    result = cli("index", workspace, "--config", cfg, "--index", tmp_path / "i.sqlite")
    assert result.code == 0, result
    assert len(fake.requests) >= 3
    _sound(tmp_path / "i.sqlite")


def test_slow_provider_times_out_clearly(cli, workspace, tmp_path, fake):
    fake.route = embeddings_route(4)
    fake.delay = 2.5
    cfg = remote_config(tmp_path, fake.url, embeddingBatchTimeoutSeconds=1)
    result = cli("index", workspace, "--config", cfg, "--index", tmp_path / "i.sqlite")
    assert result.code == 3 and "timed out" in result.err, result
    assert SECRET not in result.text


def test_dimension_change_between_runs_pauses_or_rebuilds(cli, workspace, tmp_path, fake):
    """A provider whose vectors change length: searches do not mix vectors of two sizes."""
    cfg = remote_config(tmp_path, fake.url)
    index = tmp_path / "i.sqlite"
    fake.route = embeddings_route(4)
    assert cli("index", workspace, "--config", cfg, "--index", index).code == 0
    fake.route = embeddings_route(8)
    result = cli("search", workspace, "deploy window", "--config", cfg, "--index", index,
                 "--json")
    assert result.code in (0, 2, 3, 4), result
    if result.code:
        assert "memlab index --force" in result.err
    (workspace / "memory" / "new.md").write_text("A brand new note about deploys.\n")
    result = cli("index", workspace, "--config", cfg, "--index", index)
    assert result.code == 3 and "4-dim" in result.err and "memlab index --force" in result.err
    store = _sound(index)
    dims = {len(b) for (b,) in store.execute("SELECT embedding FROM memory_index_chunks_vec")}
    assert len(dims) == 1  # one vector size in the index, never a mix


def test_search_with_a_failing_provider_fails_closed(cli, workspace, tmp_path, fake):
    cfg = remote_config(tmp_path, fake.url)
    index = tmp_path / "i.sqlite"
    fake.route = embeddings_route(4)
    assert cli("index", workspace, "--config", cfg, "--index", index).code == 0
    fake.route = _fail(500)
    result = cli("search", workspace, "a query never embedded", "--config", cfg, "--index",
                 index)
    assert result.code == 3 and "HTTP 500" in result.err, result
    assert SECRET not in result.text


def test_unreachable_provider(cli, workspace, tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = remote_config(tmp_path, f"http://127.0.0.1:{port}")
    result = cli("index", workspace, "--config", cfg, "--index", tmp_path / "i.sqlite")
    assert result.code == 3 and "connection" in result.err.lower(), result


# -- damaged index files -----------------------------------------------------------------------


def _damage(index: Path, how: str) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    data = bytearray(index.read_bytes())
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "header":
        data[:16] = b"definitely-not-a"
    elif how == "pages":
        for off in range(4096 * 2, len(data), 4096):  # scribble over every page but the first
            data[off + 100: off + 400] = b"\xa5" * 300
    elif how == "empty-garbage":
        data = bytearray(b"hello, I am not SQLite at all\n" * 10)
    index.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["header", "empty-garbage"])
def test_unrecognisable_index_is_refused_never_replaced(cli, workspace, tmp_path, none_config,
                                                        how):
    """Without SQLite's header the file cannot be proven to be memlab's: even --force leaves
    it alone (it could be anyone's file passed as --index)."""
    index = tmp_path / "i.sqlite"
    assert cli("index", workspace, "--config", none_config, "--index", index).code == 0
    store = IndexStore(index)
    store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    _damage(index, how)
    before = index.read_bytes()
    for args in (["index", workspace], ["index", workspace, "--force"], ["status", workspace],
                 ["search", workspace, "deploy"]):
        result = cli(*args, "--config", none_config, "--index", index)
        assert result.code == 2 and "not a memlab index" in result.err, (args, result)
    assert index.read_bytes() == before


@pytest.mark.parametrize("how", ["truncated", "pages"])
def test_damaged_index_is_detected_and_force_rebuilds(cli, workspace, tmp_path, none_config, how):
    index = tmp_path / "i.sqlite"
    for i in range(40):  # enough pages to damage
        (workspace / "memory" / f"bulk-{i}.md").write_text(f"note {i} deploy " * 200)
    assert cli("index", workspace, "--config", none_config, "--index", index).code == 0
    store = IndexStore(index)
    store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    _damage(index, how)
    for args in (["index", workspace], ["status", workspace], ["search", workspace, "deploy"]):
        result = cli(*args, "--config", none_config, "--index", index)
        assert result.code == 2, (args, result)
        assert "memlab index --force" in result.err, result
        if args[0] == "index":  # checked on open: the message names the file
            assert str(index) in result.err and "damaged" in result.err
    result = cli("index", workspace, "--force", "--config", none_config, "--index", index)
    assert result.code == 0 and "damaged" in result.err, result
    store = _sound(index)
    assert len(store.source_hashes()) == len(NOTES) + 40
    result = cli("search", workspace, "deploy", "--config", none_config, "--index", index)
    assert result.code == 0 and "No matches" not in result.out


# -- disk full ---------------------------------------------------------------------------------


class _FullDisk:
    """Wraps a sqlite3 connection: INSERTs into chunk tables fail after ``after`` succeed."""

    def __init__(self, conn, after: int):
        self._conn, self.left = conn, after

    def _count(self, sql: str, rows: int) -> None:
        if sql.lstrip().upper().startswith("INSERT") and "memory_index_" in sql:
            if self.left < rows:
                raise sqlite3.OperationalError("database or disk is full")
            self.left -= rows

    def execute(self, sql, *params):
        self._count(sql, 1)
        return self._conn.execute(sql, *params)

    def executemany(self, sql, rows):
        rows = list(rows)
        self._count(sql, len(rows))
        return self._conn.executemany(sql, rows)

    def __getattr__(self, name):
        return getattr(self._conn, name)


@pytest.mark.parametrize("after", [0, 3, 9])
@pytest.mark.parametrize("mode", ["initial", "incremental"])
def test_disk_full_during_indexing(cli, workspace, tmp_path, none_config, monkeypatch, after,
                                   mode):
    index = tmp_path / "i.sqlite"
    for i in range(8):
        (workspace / "memory" / f"n-{i}.md").write_text(f"note {i} about the deploy\n" * 30)
    if mode == "incremental":
        assert cli("index", workspace, "--config", none_config, "--index", index).code == 0
        for i in range(8):
            (workspace / "memory" / f"n-{i}.md").write_text(f"v2 note {i} deploy\n" * 30)
    before = IndexStore(index).execute(
        "SELECT id FROM memory_index_chunks ORDER BY rowid") if index.exists() else []
    real_init = IndexStore.__init__

    def init(self, *a, **k):
        real_init(self, *a, **k)
        self._conn = _FullDisk(self._conn, after)

    monkeypatch.setattr(IndexStore, "__init__", init)
    result = cli("index", workspace, "--config", none_config, "--index", index)
    monkeypatch.setattr(IndexStore, "__init__", real_init)
    assert result.code == 2, result
    assert "disk is full" in result.err and "free some disk space" in result.err
    store = _sound(index)
    ids = [r for (r,) in store.execute("SELECT id FROM memory_index_chunks ORDER BY rowid")]
    if mode == "initial":
        assert ids == [] and store.read_meta() is None  # all or nothing
    else:  # every file entirely old or entirely new
        texts = dict(store.execute("SELECT path, group_concat(text, '') FROM "
                                   "memory_index_chunks GROUP BY path"))
        for i in range(8):
            t = texts[f"memory/n-{i}.md"]
            assert ("v2" in t) != ("about the deploy" in t)
        assert len(ids) >= len(before) - 8 * 30
    result = cli("index", workspace, "--config", none_config, "--index", index)
    assert result.code == 0, result
    store = _sound(index)
    assert all("v2" in t or mode == "initial" for (t,) in store.execute(
        "SELECT text FROM memory_index_chunks WHERE path LIKE 'memory/n-%'"))


def test_disk_full_on_a_real_tiny_filesystem(cli, workspace, tmp_path, none_config):
    """A loop-free way to fill a disk: SQLite's max_page_count caps the file size."""
    index = tmp_path / "i.sqlite"
    assert cli("index", workspace, "--config", none_config, "--index", index).code == 0
    for i in range(30):
        (workspace / "memory" / f"big-{i}.md").write_text(f"filler {i} " * 3000)
    store = IndexStore(index)
    pages = store.execute("PRAGMA page_count")[0][0]
    store.close()
    import memlab.index.store as store_mod

    real = store_mod.IndexStore._open_schema

    def capped(self, tokenizer):
        real(self, tokenizer)
        self._conn.execute(f"PRAGMA max_page_count = {pages + 20}")

    pytest.MonkeyPatch.setattr(mp := pytest.MonkeyPatch(), store_mod.IndexStore, "_open_schema",
                               capped)
    try:
        result = cli("index", workspace, "--config", none_config, "--index", index)
    finally:
        mp.undo()
    assert result.code == 2 and "full" in result.err, result
    store = _sound(index)
    assert set(store.source_hashes()) >= set(NOTES)
    assert cli("index", workspace, "--config", none_config, "--index", index).code == 0
    assert len(_sound(index).source_hashes()) == len(NOTES) + 30
    assert received_inputs is not None
